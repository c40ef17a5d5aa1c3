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
   cards Wood Elf, Elven Princess or Titania showed it: ``known_draw_pile`` in a Crazier Eights
   view; a buried eight in classic Crazy Eights);
3. the hand it is looking at now (Trade, Queen Guinevere: ``looking_at``);
4. where each reshuffle's cards went: a reshuffle puts face-up cards (the Crazier Eights event
   names them; in the eights family they are the play pile but its top card) *under* the draw
   pile, and draws take from the top, so the seat knows which places of the draw pile hold cards
   of which reshuffle, and how many cards of each hand came from each;
5. a card it gave by Trade, or saw in a hand Queen Guinevere showed it, stays in that hand until
   an event names it again or could have moved it unseen (Crazier Eights);
6. a card it saw on the draw pile (fact 2) that another player has drawn since is in that
   player's hand, on the same terms.

Facts 4 to 6 come from a walk over the seat's history (:mod:`engine.knowledge`), which follows the draw
pile place by place. Where a card goes where the walk cannot follow it (a put-back from a hand
holding reshuffled cards, a trade between two others, Revolution, a shuffled draw pile), the
kinds of card involved are merged into "nothing known", which only widens the worlds; a walk that
cannot square the history with the view is not used for facts 2, 4 and 6 beyond the view's own.

Within those facts the unseen cards of one kind (a reshuffle's, or the rest) are exchangeable, so
every consistent world is equally likely: the sampler matches each kind's cards to that kind's
places uniformly (tests/test_sampling.py checks it by chi-square tests against worlds counted by
brute force). It does not use what the other players' choices suggest about their hands (a forced
draw says a player held nothing playable); docs/engine.md ("Sampling hidden cards") says what else
it leaves out.
"""

from __future__ import annotations

import random

from engine.common import Game
from engine.knowledge import BASE, CARD_FIELDS, OWN, Walk, walk_history


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


def _pile_facts(walk: Walk, hands: dict[int, int], seen: set[int], pinned: dict[int, tuple]) -> dict | None:
    """What a trusted walk adds to the pins of the view: the known cards the view does not list
    (a buried eight), and the kinds of the other unseen cards and places (fact 4); None when
    the walk and the view disagree."""
    size = len(walk.pile)
    pinned = dict(pinned)
    at = {where: card for card, (zone, where) in pinned.items() if zone == "pile"}
    for depth, place in enumerate(reversed(walk.pile)):
        if isinstance(place, tuple) and place[0] == "card" and place[1] not in pinned and depth not in at \
                and place[1] not in seen:
            pinned[place[1]] = ("pile", depth)
            at[depth] = place[1]
    for depth, card in at.items():
        place = walk.pile[size - 1 - depth]
        if not (place in (BASE, OWN, ("card", card)) or place == walk.label.get(card, BASE)):
            return None
    for card, (zone, h) in pinned.items():  # a card a look pins to a hand takes one of its places
        k = walk.label.pop(card, BASE)
        if zone == "hand" and k != BASE:
            counts = walk.hands.get(h, {})
            if counts.get(k, 0) > 0:
                counts[k] -= 1
            else:
                walk.merge(k)
    for card in [c for c in walk.label if c in seen]:
        del walk.label[card]
    for h in {place[1] for place in walk.pile if isinstance(place, tuple) and place[0] == "pool"} - set(hands):
        walk.scramble(h)  # a pool whose hand left the game (or is seen)
    for h, counts in list(walk.hands.items()):
        if h not in hands or sum(counts.values()) > hands[h] + walk.pile.count(("pool", h)):
            walk.scramble(h)
    pile_labels = {
        depth: place for depth, place in enumerate(reversed(walk.pile))
        if isinstance(place, int) and place > BASE and depth not in at
    }
    # every kind has as many cards as places, or the walk lost one somewhere: forget that kind
    places: dict[int, int] = {}
    for k in pile_labels.values():
        places[k] = places.get(k, 0) + 1
    for counts in walk.hands.values():
        for k, n in counts.items():
            places[k] = places.get(k, 0) + n
    cards: dict[int, int] = {}
    for k in walk.label.values():
        cards[k] = cards.get(k, 0) + 1
    for k in set(places) | set(cards):
        if places.get(k, 0) != cards.get(k, 0):
            walk.merge(k)
            pile_labels = {depth: j for depth, j in pile_labels.items() if j != k}
    pools: dict[int, list[int]] = {}
    for depth, place in enumerate(reversed(walk.pile)):
        if isinstance(place, tuple) and place[0] == "pool":
            pools.setdefault(place[1], []).append(depth)
    return {
        "pinned": pinned, "labels": dict(walk.label), "pile_labels": pile_labels, "pools": pools,
        "hand_labels": {h: {k: n for k, n in counts.items() if n} for h, counts in walk.hands.items()
                        if any(counts.values())},
    }


def unseen(info: dict) -> dict:
    """What the seat does not see, from its information state: ``"hands"`` (hand -> size, the
    hands it cannot see), ``"draw_pile"`` (its size), ``"pinned"``: the unseen cards whose place
    it knows (facts 2, 3, 5 and 6), card -> ``("hand", h)`` or ``("pile", depth from the top)``;
    and the kinds of the other unseen cards (fact 4): ``"labels"`` (card -> the reshuffle it
    came from), ``"pile_labels"`` (depth -> reshuffle) and ``"hand_labels"`` (hand -> reshuffle
    -> how many of that hand's cards came from it) and ``"pools"`` (hand -> the depths of the
    cards it put back on the draw pile, which count with that hand in ``"hand_labels"``). The
    unlabelled cards fill the unlabelled places."""
    hands = _hidden_hands(info)
    seen = _seen_cards(info)
    pinned: dict[int, tuple] = {}
    for card, depth in (info.get("known_draw_pile") or {}).items():
        pinned[int(card)] = ("pile", int(depth))
    look = info.get("looking_at")
    if look and look["hand_of"] in hands and len(look["cards"]) <= hands[look["hand_of"]]:
        for card in look["cards"]:
            pinned[card] = ("hand", look["hand_of"])
    walk = walk_history(info)
    facts = _pile_facts(walk, hands, seen, pinned) if walk.ok else None
    if facts is None:
        facts = {"pinned": pinned, "labels": {}, "pile_labels": {}, "hand_labels": {}, "pools": {}}
        held_facts = {card: fact for card, fact in walk.held.items() if not fact[1]}  # not the pile's
    else:
        held_facts = walk.held
    pinned, labels, hand_labels, pools = facts["pinned"], facts["labels"], facts["hand_labels"], facts["pools"]
    held: dict[int, list[int]] = {}
    for card, (q, _) in held_facts.items():
        if card not in seen and card not in pinned and card not in labels and q in hands:
            held.setdefault(q, []).append(card)
    for q, cards in held.items():
        taken = sum(hand_labels.get(q, {}).values()) + sum(1 for zone in pinned.values() if zone == ("hand", q))
        if len(cards) + taken <= hands[q] + len(pools.get(q, ())):
            pinned.update((card, ("hand", q)) for card in cards)
    return {"hands": hands, "draw_pile": info["draw_pile"], **facts, "pinned": pinned}


def sample_world(info: dict, deck: list[int], rng: random.Random) -> dict:
    """A world drawn uniformly from those consistent with ``info`` (see the module docstring):
    ``{"hands": {hand: [cards]}, "draw_pile": [cards, top last]}`` for the unseen hands and the
    draw pile. ``deck`` is every card id of the game (public: ``game.card_table()``'s keys).

    Reads nothing but its arguments: two games that give a seat the same information state give
    the same worlds from the same ``rng``."""
    return _place(unseen(info), _seen_cards(info), deck, rng)


def _place(spec: dict, seen: set[int], deck: list[int], rng: random.Random) -> dict:
    """:func:`sample_world` from the seat's :func:`unseen` places and the cards it sees."""
    hands: dict[int, int] = spec["hands"]
    pile_size: int = spec["draw_pile"]
    pinned: dict[int, tuple] = spec["pinned"]
    labels: dict[int, int] = spec["labels"]
    pile: list[int | None] = [None] * pile_size  # top first while filling
    out_hands: dict[int, list[int]] = {h: [] for h in hands}
    for card, (zone, where) in pinned.items():
        if zone == "pile":
            pile[where] = card
        else:
            out_hands[where].append(card)
    # the places of each kind of card (BASE: the unlabelled ones)
    places: dict[int, list[tuple]] = {}
    pools: dict[int, list[int]] = spec["pools"]
    pooled = {depth for depths in pools.values() for depth in depths}
    for depth in range(pile_size):
        if pile[depth] is None and depth not in pooled:
            places.setdefault(spec["pile_labels"].get(depth, BASE), []).append(("pile", depth))
    for h, size in hands.items():
        # a hand and the cards it put back on the draw pile (its pool) hold so many cards of each
        # kind between them, in any arrangement: a uniform arrangement of the kinds over the
        # pool's places, then each kind's cards matched uniformly, is uniform over the worlds
        counts = spec["hand_labels"].get(h, {})
        pool = [("hand", h)] * (size - len(out_hands[h])) + [("pile", depth) for depth in pools.get(h, ())]
        kinds_here = [k for k, n in sorted(counts.items()) for _ in range(n)]
        kinds_here += [BASE] * (len(pool) - len(kinds_here))
        if pools.get(h):
            rng.shuffle(kinds_here)
        for place, k in zip(pool, kinds_here, strict=True):
            places.setdefault(k, []).append(place)
    kinds: dict[int, list[int]] = {}
    for card in sorted(deck):
        if card not in seen and card not in pinned:
            kinds.setdefault(labels.get(card, BASE), []).append(card)
    # within a kind the cards are exchangeable: a uniform match of its cards to its places, for
    # each kind apart, is uniform over the worlds
    for k in sorted(set(kinds) | set(places)):
        cards, where = kinds.get(k, []), places.get(k, [])
        if len(cards) != len(where):
            raise ValueError(
                f"an inconsistent information state: {len(cards)} unseen cards for {len(where)} unseen places"
            )
        rng.shuffle(cards)
        for (zone, at), card in zip(where, cards, strict=True):
            if zone == "pile":
                pile[at] = card
            else:
                out_hands[at].append(card)
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
        self.spec = unseen(self.info)
        self.seen = _seen_cards(self.info)
        self.pinned = self.spec["pinned"]

    def sample(self, rng: random.Random) -> Game:
        game, seat, pinned = self.game, self.seat, self.pinned
        world = _place(self.spec, self.seen, self.deck, rng)
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
    for key in CARD_FIELDS:
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
    return any(key in event for key in CARD_FIELDS)


def _ask_again(game) -> None:
    """Derive the pending decision anew after a relabelling (its options may name cards)."""
    if hasattr(game, "_restore_pending"):
        game._restore_pending()
    else:
        game._advance()
