"""Hidden cards sampled from what one seat knows: the determinisations that search (IS-MCTS,
determinised Monte-Carlo) plays out.

Three small steps, each usable alone:

- :func:`information` -- a seat's information state: its view now, plus ``"history"``, every event
  it has been shown since the deal (the public ones and its own private ones). Nothing else of
  the game is read.
- :func:`sample_world` -- from an information state alone, the unseen cards placed at random:
  ``{"hands": {hand: [cards]}, "draw_pile": [cards, top last]}`` for the hands the seat cannot see
  and the draw pile. Uniform over the *consistent worlds* (below).
- :func:`determinise` -- a copy of a game with its unseen cards relabelled to a sampled world, and
  a fresh RNG (the true RNG decides future shuffles, so it is hidden too): a full state the seat
  cannot tell from the true one.

A world is consistent when it keeps every fact the seat has been shown:

1. its own hand, every face-up zone (discard pile, cards in play, limbo, the exposed dummies), and
   the number of cards of every hand and of the draw pile;
2. every draw-pile card it knows at a known depth (Fortune Teller's look, its own put-backs, the
   cards Wood Elf or Elven Princess showed it: ``known_draw_pile`` in a Crazier Eights view);
3. the hand it is looking at now (Trade, Queen Guinevere: ``looking_at``);
4. a draw pile rebuilt from the play pile (Super Crazy Eights): it holds only cards that were in
   the play pile then and have not been seen since;
5. a card it gave by Trade, or saw in a hand Queen Guinevere showed it, stays in that hand until
   an event names it again or could have moved it unseen (Crazier Eights).

Within those facts the unseen cards are exchangeable, so every consistent world is equally likely:
the sampler draws each slot's card uniformly from the cards allowed there (tests/test_sampling.py
checks it by a chi-square test against worlds counted by brute force). It does not use what the
other players' choices suggest about their hands (a forced draw says a player held nothing
playable), nor, in Crazier Eights, a card shown on top of the draw pile that someone has drawn
since, or which part of a draw pile came from a reshuffle: there the worlds are wider than the seat's exact
knowledge (docs/engine.md, "Sampling hidden cards").
"""

from __future__ import annotations

import random
import re

from engine.common import Game

#: event fields that name cards (mapped when a world relabels a game's hidden cards)
_CARD_FIELDS = ("card", "cards", "gave", "took", "take", "give", "holding")


def information(game: Game, seat: int) -> dict:
    """``game.view(seat)`` with ``"history"``: every event the seat has been shown since the deal,
    public ones and its own private ones, in order (an information state in OpenSpiel's sense)."""
    info = game.view(seat)
    private = getattr(game, "_private", None)
    if private is None:  # Crazier Eights: private events carry "only"
        info["history"] = [e for e in game.events if e.get("only", seat) == seat]
    else:  # the eights family keeps a private draw's cards apart (see EightsGame.view)
        history = []
        for i, event in enumerate(game.events):
            secret = private.get(i)
            if secret is not None and secret[0] == seat:
                event = {**event, "cards": list(secret[1])}
            history.append(event)
        info["history"] = history
    return info


def _hidden_hands(info: dict) -> dict[int, int]:
    """Hand index -> its size, for every hand the seat cannot see."""
    if "hands" in info and isinstance(info["hands"], list):  # the two-handed form: four hands
        return {h: entry["size"] for h, entry in enumerate(info["hands"]) if "cards" not in entry}
    seat = info["player"]
    return {q: size for q, size in enumerate(info["hand_sizes"]) if q != seat and size}


def _seen_cards(info: dict) -> set[int]:
    """Every card whose place the seat sees now."""
    seen = set(info["hand"]) | set(info["discard_pile"])
    for cards in info.get("in_play", ()):
        seen.update(cards)
    seen.update(info.get("limbo", ()))
    if isinstance(info.get("hands"), list):
        for entry in info["hands"]:
            seen.update(entry.get("cards", ()))
    return seen


def _rebuilt_pile(info: dict) -> set[int] | None:
    """The cards a draw pile rebuilt from the play pile may hold (fact 4), or None when the draw
    pile was never rebuilt. In the eights family the play pile is the starter and every card
    played since the last rebuild; the rebuild takes all of it but the top card."""
    if info["rule_set"] == "crazier-eights":
        return None
    pile: set[int] = set()
    rebuilt = None
    top = None
    for event in info["history"]:
        kind = event.get("type")
        if kind in ("starter", "play"):
            top = event["card"]
            pile.add(top)
        elif kind == "reshuffle":
            rebuilt = {c for c in pile if c != top}  # the card on top stays in the play pile
            pile = {c for c in pile if c == top}
        elif kind == "bury":
            pile.discard(event["card"])
    return rebuilt


def unseen(info: dict) -> dict:
    """What the seat does not see, from its information state: ``"hands"`` (hand -> size, the
    hands it cannot see), ``"draw_pile"`` (its size) and ``"pinned"``: the unseen cards whose
    place it knows (facts 2, 3 and 5), card -> ``("hand", h)`` or ``("pile", depth from the top)``."""
    hands = _hidden_hands(info)
    pinned: dict[int, tuple] = {}
    for card, depth in (info.get("known_draw_pile") or {}).items():
        pinned[int(card)] = ("pile", int(depth))
    look = info.get("looking_at")
    if look and look["hand_of"] in hands and len(look["cards"]) <= hands[look["hand_of"]]:
        for card in look["cards"]:
            pinned[card] = ("hand", look["hand_of"])
    seen = _seen_cards(info)
    held: dict[int, list[int]] = {}
    for card, q in _known_in_hands(info).items():
        if card not in seen and card not in pinned and q in hands:
            held.setdefault(q, []).append(card)
    for q, cards in held.items():
        if len(cards) + sum(1 for zone in pinned.values() if zone == ("hand", q)) <= hands[q]:
            pinned.update((card, ("hand", q)) for card in cards)
    return {"hands": hands, "draw_pile": info["draw_pile"], "pinned": pinned}


#: Crazier Eights effects whose controller puts a card of their hand into the draw pile unseen
_PUT_BACKS = frozenset({"Study", "Research", "Sagacious Sorceress", "Crystal Ball", "Merlin"})
_QUEEN_LOOK = re.compile(r"player (\d+)'s hand: ")


def _known_in_hands(info: dict) -> dict[int, int]:
    """Cards the seat knows to be in another player's hand (Crazier Eights, fact 5): a card it gave
    by Trade, the hand Queen Guinevere showed it. A fact holds until the card is named again by
    any event, or until an event could have moved it unseen: someone else's Trade, Revolution,
    that player's put-back into the draw pile, Queen Guinevere taking from that hand."""
    if info["rule_set"] != "crazier-eights":
        return {}
    seat = info["player"]
    history = info["history"]
    known: dict[int, int] = {}
    for i, event in enumerate(history):
        kind = event.get("type")
        for key in _CARD_FIELDS:
            named = event.get(key)
            for card in named if isinstance(named, list) else (named,) if isinstance(named, int) else ():
                known.pop(card, None)  # seen again: its place now is the view's business
        if kind == "traded" and event.get("only") == seat:
            known[event["gave"]] = event["with"]
        elif kind == "effect":
            name = event.get("card")
            if name == "Queen Guinevere" and event.get("only") == seat and "cards" in event:
                match = _QUEEN_LOOK.match(event.get("text", ""))
                if match:
                    known.update((card, int(match.group(1))) for card in event["cards"])
            elif name == "Queen Guinevere" and "from player" in event.get("text", ""):
                known.clear()  # an asset taken from a hand into play (named by text only)
            elif name == "Trade":
                follows = history[i + 1] if i + 1 < len(history) else {}
                if not (follows.get("type") == "traded" and follows.get("only") == seat):
                    known.clear()  # a trade between two others
            elif name == "Revolution":
                known.clear()
            elif name in _PUT_BACKS:
                owner = event.get("player")
                known = {card: q for card, q in known.items() if q != owner}
    return known


def sample_world(info: dict, deck: list[int], rng: random.Random) -> dict:
    """A world drawn uniformly from those consistent with ``info`` (see the module docstring):
    ``{"hands": {hand: [cards]}, "draw_pile": [cards, top last]}`` for the unseen hands and the
    draw pile. ``deck`` is every card id of the game (public: ``game.card_table()``'s keys).

    Reads nothing but its arguments: two games that give a seat the same information state give
    the same worlds from the same ``rng``."""
    spec = unseen(info)
    hands: dict[int, int] = spec["hands"]
    pile_size: int = spec["draw_pile"]
    pinned: dict[int, tuple] = spec["pinned"]
    seen = _seen_cards(info)
    free = sorted(c for c in deck if c not in seen and c not in pinned)
    pile: list[int | None] = [None] * pile_size  # top first while filling
    out_hands: dict[int, list[int]] = {h: [] for h in hands}
    for card, (zone, where) in pinned.items():
        if zone == "pile":
            pile[where] = card
        else:
            out_hands[where].append(card)
    pile_slots = [i for i, c in enumerate(pile) if c is None]
    hand_slots = [h for h, size in hands.items() for _ in range(size - len(out_hands[h]))]
    if len(free) != len(pile_slots) + len(hand_slots):
        raise ValueError(
            f"an inconsistent information state: {len(free)} unseen cards for "
            f"{len(pile_slots) + len(hand_slots)} unseen places"
        )
    rebuilt = _rebuilt_pile(info)
    if rebuilt is not None:
        # fact 4: the draw pile holds rebuilt cards only, the hands hold the rest and the
        # rebuilt cards drawn since. Both counts are fixed, so filling the pile uniformly from
        # the rebuilt cards and the hands uniformly from what is left is uniform over the worlds.
        allowed = [c for c in free if c in rebuilt]
        if len(allowed) < len(pile_slots):
            raise ValueError("an inconsistent information state: too few rebuilt cards for the draw pile")
        rng.shuffle(allowed)
        for i, card in zip(pile_slots, allowed, strict=False):
            pile[i] = card
        rest = allowed[len(pile_slots):] + [c for c in free if c not in rebuilt]
    else:
        rest = list(free)
        rng.shuffle(rest)
        for i in pile_slots:
            pile[i] = rest.pop()
    rng.shuffle(rest)
    for h, card in zip(hand_slots, rest, strict=True):
        out_hands[h].append(card)
    for h in out_hands:
        rng.shuffle(out_hands[h])  # a hand's order is not seen either
    return {"hands": out_hands, "draw_pile": [c for c in reversed(pile) if c is not None]}


def determinise(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``game`` in a world sampled for ``seat`` (:func:`sample_world`): every unseen card
    relabelled, wherever the state names it (hands, draw pile, other players' knowledge, private
    events, effects under way), and a fresh RNG drawn from ``rng``. The copy gives ``seat`` the
    same view as ``game``; its pending decision is asked anew when it is another seat's."""
    return Determiniser(game, seat).sample(rng)


class Determiniser:
    """:func:`determinise` for many worlds of one moment: the seat's information is read once."""

    def __init__(self, game: Game, seat: int):
        self.game = game
        self.seat = seat
        self.info = information(game, seat)
        self.deck = sorted(int(c) for c in game.card_table())
        self.pinned = unseen(self.info)["pinned"]

    def sample(self, rng: random.Random) -> Game:
        game, seat, pinned = self.game, self.seat, self.pinned
        world = sample_world(self.info, self.deck, rng)
        mapping: dict[int, int] = {}
        for h, cards in world["hands"].items():
            # a pinned card keeps its name; the others pair off (the sampled order is random)
            mapping.update(zip(
                [c for c in game.hands[h] if c not in pinned], [c for c in cards if c not in pinned], strict=True,
            ))
        mapping.update(zip(game.draw_pile, world["draw_pile"], strict=True))
        copy = game.clone()
        _relabel(copy, mapping, seat)
        copy.rng = random.Random(rng.getrandbits(64))  # type: ignore[attr-defined]
        pending = copy.pending
        if pending is not None and pending.player != seat:
            _ask_again(copy)
        return copy


def _map_value(value, mapping):
    if isinstance(value, int) and not isinstance(value, bool):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [_map_value(v, mapping) for v in value]
    return value


def _map_record(record: dict, mapping: dict[int, int]) -> dict:
    out = dict(record)
    for key in _CARD_FIELDS:
        if key in out:
            out[key] = _map_value(out[key], mapping)
    look = out.get("look")
    if look:
        out["look"] = {**look, "cards": _map_value(look["cards"], mapping)}
    return out


def _relabel(game, mapping: dict[int, int], seat: int) -> None:
    """Move the unseen cards of ``game`` through ``mapping`` (a permutation of them): the zones,
    the effects under way, and what the *other* players saw privately. The events ``seat`` was
    shown stay as they are: they are its history."""
    game.hands = [[mapping.get(c, c) for c in hand] for hand in game.hands]
    game.draw_pile = [mapping.get(c, c) for c in game.draw_pile]
    private = getattr(game, "_private", None)
    if private is not None:
        game._private = {
            i: (p, cards if p == seat else [mapping.get(c, c) for c in cards]) for i, (p, cards) in private.items()
        }
    else:
        game.events = [
            _map_record(e, mapping) if e.get("only", seat) != seat and _names_cards(e) else e for e in game.events
        ]
        game.known = [[mapping.get(c, c) for c in k] for k in game.known]
        game.stack = [_map_record(f, mapping) for f in game.stack]


def _names_cards(event: dict) -> bool:
    return any(key in event for key in _CARD_FIELDS)


def _ask_again(game) -> None:
    """Derive the pending decision anew after a relabelling (its options may name cards)."""
    if hasattr(game, "_restore_pending"):
        game._restore_pending()
    else:
        game._advance()
