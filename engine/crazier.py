"""Crazier Eights: the turn machine.

The game is a *decision machine*. Its state is plain data: zones (hands, draw pile, discard pile,
cards in play, limbo for cards in transit), turn counters, the RNG, and a stack of small frames
(dicts) describing the work in progress. :meth:`Game._advance` runs the top frame's step function
until one of them asks a player something; that question is :attr:`Game.pending`. Applying an
option stores the answer in the top frame and runs again.

Step functions follow one rule that makes every state serialisable and replays exact: a step
either changes the state and returns ``None``, or returns a :class:`Decision` *without* changing
anything. So a loaded game re-derives its pending decision by simply running the top frame.

Card effects live in :mod:`engine.effects`, one small entry per card; timing rules (trigger
order, snapshots, destruction windows, draw substitutions) live here, once.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

from engine.cards import BY_NAME, CARDS, DEFAULT_COLOUR_NAMES, SUITS, CardDef, promo_card
from engine.common import (
    Decision,
    IllegalOption,
    OptionsError,
    PositionError,
    Result,
    placements_from_scores,
    record_forfeit,
    rng_from_json,
    rng_to_json,
)
from engine.effects import EFFECTS
from engine.effects.helpers import arg

RULE_SET = "crazier-eights"
FORMAT_VERSION = 1

#: Rule-set switches (rulings.md, end) with the rulings as defaults.
OPTIONS = {
    "suit_colour_names": dict(DEFAULT_COLOUR_NAMES),
    "max_players_two_decks": 8,
    "minions_as_trigger": False,
    "put_back_capped_by_drawn": False,
    "first_destruction_scope": "event",
    "simultaneous_empty": "turn_order",
    "impossible_draw_tie": "shared",
    "eliminated_score": "snapshot",
    "promo_cards": [],
    "hand_size": 7,
}

_CHOICES = {
    "first_destruction_scope": ("event", "per_card"),
    "simultaneous_empty": ("turn_order", "shared"),
    "impossible_draw_tie": ("shared", "turn_order"),
    "eliminated_score": ("snapshot", "zero", "max_plus_one"),
}

# Interned option ids: building "play:17" once per card id keeps the option lists cheap.
_PLAY = [f"play:{i}" for i in range(512)]
_DISCARD = [f"discard:{i}" for i in range(512)]
_CARD = [f"card:{i}" for i in range(512)]
_COLOUR = [f"colour:{s}" for s in SUITS]


def validate_options(options: dict, players: int | None = None) -> dict:
    """The options completed with defaults; unknown names and bad values are OptionsError."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise OptionsError(
            f"unknown option {unknown[0]!r} for crazier-eights (known: {', '.join(sorted(OPTIONS))})"
        )
    out = {k: (dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v) for k, v in OPTIONS.items()}
    out.update(options)
    for name, allowed in _CHOICES.items():
        if out[name] not in allowed:
            raise OptionsError(f"option {name} must be one of {', '.join(allowed)}, not {out[name]!r}")
    for name in ("minions_as_trigger", "put_back_capped_by_drawn"):
        if not isinstance(out[name], bool):
            raise OptionsError(f"option {name} must be true or false, not {out[name]!r}")
    if not _names_every_suit(out["suit_colour_names"]):
        raise OptionsError(f"option suit_colour_names must name a colour for each of {', '.join(SUITS)}")
    if not isinstance(out["max_players_two_decks"], int) or not 5 <= out["max_players_two_decks"] <= 8:
        raise OptionsError("option max_players_two_decks must be a whole number from 5 to 8")
    if not isinstance(out["hand_size"], int) or not 1 <= out["hand_size"] <= 12:
        raise OptionsError("option hand_size must be a whole number from 1 to 12")
    promos = out["promo_cards"]
    if not isinstance(promos, list) or len(promos) > 4:
        raise OptionsError("option promo_cards must be a list of at most four cards")
    for spec in promos:
        try:
            promo_card(spec)
        except (ValueError, KeyError, TypeError) as exc:
            raise OptionsError(f"option promo_cards: {exc}") from None
    if players is not None and not 2 <= players <= out["max_players_two_decks"]:
        raise OptionsError(f"crazier-eights is for 2 to {out['max_players_two_decks']} players, not {players}")
    return out


def _names_every_suit(names: object) -> bool:
    """Whether ``names`` gives each suit a colour name (a non-empty string) and nothing else."""
    return (
        isinstance(names, dict) and set(names) == set(SUITS)
        and all(isinstance(v, str) and v for v in names.values())
    )


def new_game(players=2, seed=0, options=None, first_player=None, teams=None) -> Game:
    """Shuffle, deal seven each, turn the top card of the draw pile onto the discard pile."""
    opts = validate_options(options or {}, players)
    decks = 1 if players <= 4 else 2
    deck = [card.name for card in CARDS] * decks + [dict(p) for p in opts["promo_cards"]]
    rng = random.Random(seed)
    if first_player is None:
        first_player = rng.randrange(players)
    elif not 0 <= first_player < players:
        raise OptionsError(f"first player must be a seat from 0 to {players - 1}")
    order = list(range(len(deck)))
    rng.shuffle(order)
    game = Game(players, seed, opts, deck, _team_ids(players, teams), rng)
    game.turn_number = 0  # _start_turn counts the first turn
    size = opts["hand_size"]
    if size * players >= len(deck):
        raise OptionsError("not enough cards to deal that hand size")
    # Deal from the "top" (end) of the shuffled pile, one card at a time round the table.
    for _ in range(size):
        for p in range(players):
            game.hands[p].append(order.pop())
    game.discard.append(order.pop())
    game.draw_pile = order
    game._start_turn(first_player)
    game.stack.append({"do": "turn", "stage": "begin"})
    game._advance()
    return game


def load(data: dict) -> Game:
    """A game from ``Game.to_dict()`` output or from a hand-written position (docs/positions.md)."""
    try:
        return Game._from_dict(data)
    except PositionError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise PositionError(f"cannot load crazier-eights position: {exc!r}") from None


def _team_ids(players: int, teams) -> list[int]:
    if not teams:
        return list(range(players))
    seats = sorted(s for team in teams for s in team)
    if seats != list(range(players)):
        raise OptionsError("teams must list every seat exactly once")
    if players not in (4, 6, 8) or len({len(t) for t in teams}) != 1 or len(teams[0]) not in (2, 3):
        raise OptionsError("teams are two or three players each, with 4, 6 or 8 players")
    ids = [0] * players
    for i, team in enumerate(teams):
        for s in team:
            ids[s] = i
    return ids


# ----------------------------------------------------------------- the saved state
def _json_copy(value):
    """A copy of JSON-like data, new lists and dicts at every depth."""
    if isinstance(value, list):
        return [_json_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_copy(v) for k, v in value.items()}
    return value


def _flipped(zone: list[int]) -> list[int]:
    """A pile in the other order: the engine keeps its top last, saved games list it top first."""
    return zone[::-1]


def _saved(default, key: str | None = None, save=_json_copy, load=_json_copy):
    """A field of the saved state. ``default(players)`` is its value in a fresh game and in a
    position that leaves it out; ``key`` its name in ``to_dict()`` when that is not the field's;
    ``save`` and ``load`` convert it to and from its JSON form."""
    return field(metadata={"default": default, "key": key, "save": save, "load": load})


def _key(f) -> str:
    return f.metadata["key"] or f.name


def _none(players: int) -> None:
    return None


def _no_cards(players: int) -> list:
    return []


def _per_player(value):
    """Default: one ``value`` per player (a fresh copy of it for each)."""
    return lambda players: [_json_copy(value) for _ in range(players)]


def _constant(value):
    return lambda players: value


@dataclass(init=False, eq=False, repr=False)
class State:
    """Everything a game of Crazier Eights saves, in the order ``to_dict()`` writes it.

    This field list is the one place the state is spelled out: a new game starts from the
    defaults, ``to_dict()`` writes the fields in this order, and loading reads them back, a field
    a saved game or position leaves out taking its default. (A position's defaults describe the
    main phase of the first turn; :func:`new_game` deals and starts the first turn instead.)
    """

    hands: list[list[int]] = _saved(_per_player([]))
    draw_pile: list[int] = _saved(_no_cards, save=_flipped, load=_flipped)  # top last
    discard: list[int] = _saved(_no_cards, "discard_pile", save=_flipped, load=_flipped)  # top last
    in_play: list[list[int]] = _saved(_per_player([]))
    limbo: list[int] = _saved(_no_cards)  # events resolving, destroyed cards being ordered, revealed cards
    alive: list[bool] = _saved(_per_player(True))
    turn: int = _saved(_constant(0))
    turn_number: int = _saved(_constant(1))
    phase: str = _saved(_constant("main"))
    played: bool = _saved(_constant(False))
    discards_made: int = _saved(_constant(0))
    bonus_discards: int = _saved(_constant(0))
    destruction_seen: bool = _saved(_constant(False))
    at_risk: list[int] = _saved(_no_cards)  # per_card scope: cards already threatened this turn
    named: list | None = _saved(_none)  # [eight's card id, suit] while that eight is on top
    skips: list[int] = _saved(_per_player(0))
    extra: list[int] = _saved(_per_player(0), "extra_turns")
    known: list[list[int]] = _saved(_per_player([]))  # draw-pile cards a player has looked at
    stack: list[dict] = _saved(_no_cards)
    events: list[dict] = _saved(_no_cards)
    seen: list[int] = _saved(_per_player(0))
    eliminated: list[int] = _saved(_no_cards)
    elim_points: list[int] = _saved(_per_player(0))
    choices: list[str] = _saved(_no_cards)
    result: Result | None = _saved(
        _none, save=lambda r: r.to_dict() if r else None, load=Result.from_dict,
    )


#: label texts of the option verbs (see ``Game.label``)
_CARD_VERBS = {"play": "play ", "discard": "discard ", "card": ""}
_WORDS = {
    "end": "end the turn",
    "done": "done",
    "yes": "yes",
    "no": "no",
    "play_top": "play the top card of the draw pile",
    "top": "leave it on top",
    "bottom": "put it on the bottom",
}


class Game(State):
    """One game of Crazier Eights. See the module docstring and docs/engine.md."""

    rule_set = RULE_SET

    def __init__(self, players, seed, options, deck, team, rng):
        self.players = players
        self.seed = seed
        self.options = options
        self.deck = deck  # card id -> name (or a promo spec dict)
        self.team = team
        self.rng = rng
        self.defs: list[CardDef] = [BY_NAME[d] if isinstance(d, str) else promo_card(d) for d in deck]
        self._rank = [d.rank for d in self.defs]
        self._suits = [d.suits for d in self.defs]
        self._eff = [EFFECTS.get(d.name) for d in self.defs]
        # checked at every decision (P14), so a set lookup rather than a scan of names
        self._fortune_tellers = frozenset(c for c, d in enumerate(self.defs) if d.name == "Fortune Teller")
        for f in fields(State):
            setattr(self, f.name, f.metadata["default"](players))
        self._pending: Decision | None = None
        self._labels: dict[str, str] = {}  # option id -> label, see label()

    # ----------------------------------------------------------------- the contract
    @property
    def pending(self) -> Decision | None:
        return self._pending

    def apply(self, option_id: str) -> None:
        """Answer the pending decision with one of its option ids."""
        decision = self._pending
        if decision is None:
            raise IllegalOption("the game is over: no decision is pending")
        if option_id not in decision.options:
            raise IllegalOption(
                f"{option_id!r} is not an option of this {decision.kind} decision of player "
                f"{decision.player} (options: {', '.join(decision.options)})"
            )
        self.choices.append(option_id)
        self.seen[decision.player] = len(self.events)
        self.stack[-1]["answer"] = option_id
        self._advance()

    def forfeit(self, player: int, reason: str) -> None:
        """``player`` loses the game under the rules (a bot's fault); the game goes on.
        Recorded in ``choices`` (see :func:`engine.common.record_forfeit`)."""
        if not record_forfeit(self, player, reason):
            return
        self._log({"type": "forfeit", "player": player, "reason": reason})
        self._lose([player], f"forfeit:{reason}")
        if self.result is None:
            self._advance()
        else:
            self._pending = None

    def label(self, option_id: str) -> str:
        """A readable text for an option id (a pure function of the id in a given game, so it is
        kept: the referee labels every option of every request)."""
        text = self._labels.get(option_id)
        if text is None:
            text = self._labels[option_id] = self._make_label(option_id)
        return text

    def _make_label(self, option_id: str) -> str:
        verb, _, value = option_id.partition(":")
        if verb in ("play", "discard", "card"):
            return _CARD_VERBS[verb] + self.card_text(int(value))
        if verb == "colour":
            return f"name {self.options['suit_colour_names'][value]} ({value})"
        if verb == "player":
            return f"player {value}"
        return _WORDS.get(verb, option_id)

    def card_text(self, cid: int) -> str:
        d = self.defs[cid]
        suits = "/".join(sorted(d.suits, key=SUITS.index))
        return f"{d.name} ({d.rank or '-'} {suits})"

    def card_table(self) -> dict[int, dict]:
        return {cid: d.to_dict() for cid, d in enumerate(self.defs)}

    def view(self, player: int) -> dict:
        """What ``player`` may know now, as JSON-ready data (docs/positions.md describes it)."""
        active = self.turn
        events = [e for e in self.events[self.seen[player]:] if e.get("only", player) == player]
        known = {}
        if self.known[player]:
            positions = {c: i for i, c in enumerate(reversed(self.draw_pile))}
            known = {str(c): positions[c] for c in self.known[player] if c in positions}
        look = self._current_look(player)
        view = {
            "rule_set": RULE_SET,
            "player": player,
            "players": self.players,
            "active": active,
            "turn": self.turn_number,
            "phase": self.phase,
            "alive": list(self.alive),
            "teams": self._teams_list(),
            "hand": list(self.hands[player]),
            "hand_sizes": [len(h) for h in self.hands],
            "draw_pile": len(self.draw_pile),
            "discard_pile": list(self.discard),
            "top": self.discard[-1] if self.discard else None,
            "named_colour": self._named_suit(),
            "in_play": [list(cards) for cards in self.in_play],
            "limbo": list(self.limbo),
            "this_turn": {
                "played": self.played,
                "discards_made": self.discards_made,
                "discards_allowed": self._discard_allowance(active),
            },
            "skips": list(self.skips),
            "extra_turns": list(self.extra),
            "known_draw_pile": known,
            "events": events,
        }
        if look:
            view["looking_at"] = look
        return view

    def describe(self, e: dict) -> str:
        t = e["type"]
        p = e.get("player")
        name = self.card_text
        if t == "turn":
            return f"-- turn {e['turn']}: player {p}"
        if t == "draw":
            return f"player {p} draws {e['count']}" + (f" ({e['cause']})" if e.get("cause") else "")
        if t == "drew":
            return f"player {p} drew " + ", ".join(name(c) for c in e["cards"])
        if t == "discard":
            return f"player {p} discards {name(e['card'])}"
        if t == "colour":
            return f"player {p} names {self.options['suit_colour_names'][e['suit']]}"
        if t == "play":
            return f"player {p} plays {name(e['card'])} as {'an asset' if e['as'] == 'asset' else 'an event'}"
        if t == "destroy":
            return "destroyed: " + ", ".join(name(c) for c in e["cards"])
        if t == "save":
            return f"player {p} saves {name(e['card'])} with {e['by']}"
        if t == "bottom":
            return f"{name(e['card'])} goes to the bottom of the discard pile"
        if t == "skip":
            return f"player {p} skips a turn"
        if t == "reshuffle":
            return f"the discard pile is shuffled into a new draw pile ({e['count']} cards)"
        if t == "lose":
            return f"player {p} loses ({e['reason']})"
        if t == "forfeit":
            return f"player {p} forfeits ({e['reason']})"
        if t == "end":
            winners = e["winners"]
            who = "nobody" if not winners else ", ".join(f"player {w}" for w in winners)
            return f"game over: {who} wins ({e['reason']})"
        if t == "effect":
            return f"{e['card']}: {e['text']}"
        return str(e)

    # ----------------------------------------------------------------- machinery
    def _advance(self) -> None:
        stack = self.stack
        while self.result is None:
            frame = stack[-1]
            decision = STEPS[frame["do"]](self, frame)
            if self.result is not None:
                break
            if self._check_empty_hands():
                break
            if decision is not None:
                if not self._fortune_tellers.isdisjoint(self.in_play[self.turn]) and self._fortune_teller_looks():
                    continue  # the step changed nothing, so asking it again gives the decision anew
                self._pending = decision
                return
        self._pending = None

    def _fortune_teller_looks(self) -> bool:
        """Fortune Teller lets its controller look at the top card of the draw pile all through
        their turn (item 26): the engine has them look whenever a decision is pending in that turn.
        As with every look, an empty draw pile is refilled first (item 10), and the card seen stays
        known while it stays in the pile (P12). Called when the active player controls a Fortune
        Teller; True when this changed the state."""
        p = self.turn
        if not self.draw_pile:
            if len(self.discard) <= 1:
                return False
            self.top_up(1)
        top = self.draw_pile[-1]
        if top in self.known[p]:
            return False
        self.known[p].append(top)
        self._log({"type": "effect", "card": "Fortune Teller", "player": p, "only": p, "cards": [top],
                   "text": f"you see {self.card_text(top)} on top of the draw pile"})
        return True

    def _log(self, event: dict) -> None:
        self.events.append(event)

    def _check_empty_hands(self) -> bool:
        empty = [p for p in range(self.players) if self.alive[p] and not self.hands[p]]
        if not empty:
            return False
        if len(empty) > 1 and self.options["simultaneous_empty"] == "turn_order":
            empty = [min(empty, key=lambda p: (p - self.turn) % self.players)]
        self._win(empty, "empty_hand")
        return True

    def _order_from(self, start: int) -> list[int]:
        """Players still in the game, in turn order starting with ``start``."""
        n = self.players
        return [q for q in ((start + i) % n for i in range(n)) if self.alive[q]]

    def _next_alive(self, p: int) -> int:
        n = self.players
        for i in range(1, n + 1):
            q = (p + i) % n
            if self.alive[q]:
                return q
        return p

    def opponents(self, p: int) -> list[int]:
        return [q for q in self._order_from(p) if self.team[q] != self.team[p]]

    def is_opponent(self, p: int, q: int) -> bool:
        return self.team[p] != self.team[q]

    def _teams_list(self):
        if self.team == list(range(self.players)):
            return None
        groups: dict[int, list[int]] = {}
        for seat, t in enumerate(self.team):
            groups.setdefault(t, []).append(seat)
        return list(groups.values())

    def _named_suit(self):
        named = self.named
        if named and self.discard and self.discard[-1] == named[0]:
            return named[1]
        return None

    def _current_look(self, player: int) -> dict | None:
        """The hand an effect in progress lets ``player`` look at (Trade, Queen Guinevere), as
        ``{"hand_of": seat, "cards": [...]}``; games saved before Queen Guinevere's look took this
        shape wrote ``"player"`` for ``"hand_of"``."""
        for frame in reversed(self.stack):
            look = frame.get("look")
            if look and look.get("to") == player:
                return {"hand_of": look.get("hand_of", look.get("player")), "cards": list(look["cards"])}
        return None

    # ----------------------------------------------------------------- zones
    def card_name(self, cid: int) -> str:
        return self.defs[cid].name

    def all_in_play(self) -> list[int]:
        return [c for q in self._order_from(self.turn) for c in self.in_play[q]]

    def controller(self, cid: int) -> int | None:
        for q in range(self.players):
            if cid in self.in_play[q]:
                return q
        return None

    def take_from_discard(self, cid: int) -> None:
        if self.discard and self.discard[-1] == cid:
            self.named = None
        self.discard.remove(cid)

    def put_on_bottom(self, cid: int) -> None:
        if not self.discard:
            self.named = None
        self.discard.insert(0, cid)
        self._log({"type": "bottom", "card": cid})

    def put_on_top_of_discard(self, cid: int) -> None:
        """A card placed on top without being discarded: not wild, names nothing (item 22)."""
        self.discard.append(cid)
        self.named = None

    def draw(self, p: int, n: int, cause: int | None = None, source: str | None = None) -> list[int]:
        """``p`` draws ``n`` cards; ``cause`` is the player whose event or asset makes them draw
        (None for the rules' own draws, to which no substitution applies: rulings.md item 7).

        Castle, Guardian Angel and Minions adjust the number once per draw instance (item 8).
        Returns the cards drawn; an impossible draw ends the game.
        """
        if not self.alive[p] or self.result is not None:
            return []
        extra_instance = 0
        if cause is not None and n >= 1:
            n, extra_instance = self._adjust_draw(p, n, cause)
        got = self._draw_cards(p, n)
        stuck = len(got) < n
        if extra_instance and not stuck:
            more = self._draw_cards(p, extra_instance)
            stuck = len(more) < extra_instance
            got += more
        if got or n:
            self._log({"type": "draw", "player": p, "count": len(got), "cause": source})
            self._log({"type": "drew", "player": p, "cards": list(got), "only": p})
        if stuck:  # logged after the draw that could not be completed (P9)
            self._impossible_draw()
        return got

    def _adjust_draw(self, p: int, n: int, cause: int) -> tuple[int, int]:
        opponent = self.team[p] != self.team[cause]
        more = less = everyone = 0
        for q in range(self.players):
            if not self.alive[q]:
                continue
            for c in self.in_play[q]:
                e = self._eff[c]
                if e is None:
                    continue
                if q == cause:
                    more += e.draw_more_to_opponents
                if q == p:
                    less += e.draw_less_from_opponents
                everyone += e.draw_less_all
        if not opponent:
            more = less = 0
        if self.options["minions_as_trigger"] and more:
            # Minions as a separate instance: its cards are drawn after, and get their own reductions.
            extra = max(0, more - less - everyone)
            return max(0, n - less - everyone), extra
        return max(0, n + more - less - everyone), 0

    def _draw_cards(self, p: int, n: int) -> list[int]:
        """Up to ``n`` cards from the draw pile into ``p``'s hand, reshuffling when it runs out;
        fewer than ``n`` means the draw became impossible (the caller ends the game)."""
        got = []
        hand = self.hands[p]
        for _ in range(n):
            if not self.draw_pile and not self._reshuffle():
                break
            c = self.draw_pile.pop()
            hand.append(c)
            got.append(c)
        for k in self.known:
            if k:
                for c in got:
                    if c in k:
                        k.remove(c)
        return got

    def _reshuffle(self) -> bool:
        """Turn all but the top card of the discard pile into a new draw pile (CR §3)."""
        if len(self.discard) <= 1:
            return False
        rest = self.discard[:-1]
        del self.discard[:-1]
        self.rng.shuffle(rest)
        self.draw_pile = rest + self.draw_pile
        for k in self.known:
            k.clear()
        self._log({"type": "reshuffle", "count": len(rest)})
        return True

    def top_up(self, k: int) -> None:
        """Before looking at or revealing ``k`` cards: if the draw pile is short, shuffle the
        discard pile but its top card and put it *under* the draw pile (CR §12.5, item 10)."""
        if len(self.draw_pile) < k and len(self.discard) > 1:
            rest = self.discard[:-1]
            del self.discard[:-1]
            self.rng.shuffle(rest)
            self.draw_pile[:0] = rest
            self._log({"type": "reshuffle", "count": len(rest)})

    def destroy(self, cards: list[int]) -> None:
        """Start one destruction event for ``cards`` (cards in play)."""
        if cards:
            self.stack.append({"do": "destroy", "cards": list(cards), "stage": "protect"})

    def to_bottom_in_order(self, cards: list[int], orderer: int) -> None:
        """Cards in limbo go to the bottom of the discard pile; ``orderer`` picks the order."""
        if len(cards) == 1:
            self.limbo.remove(cards[0])
            self.put_on_bottom(cards[0])
        elif cards:
            self.stack.append({"do": "bottom", "cards": list(cards), "p": orderer, "owner": orderer})

    # ----------------------------------------------------------------- discards
    def _discard_allowance(self, p: int) -> int:
        allowed = 1 + (self.bonus_discards if p == self.turn else 0)
        cap = None
        for q in range(self.players):
            if not self.alive[q]:
                continue
            for c in self.in_play[q]:
                e = self._eff[c]
                if e is None:
                    continue
                allowed += e.extra_discards_all
                if q == p:
                    allowed += e.extra_discards_own
                elif e.opponents_discard_cap is not None and self.team[q] != self.team[p]:
                    cap = e.opponents_discard_cap if cap is None else min(cap, e.opponents_discard_cap)
        return allowed if cap is None else min(allowed, cap)

    def can_discard(self, cid: int) -> bool:
        rank = self._rank[cid]
        if rank == "8":
            return True
        if not self.discard:
            return True
        top = self.discard[-1]
        named = self.named
        if named is not None and named[0] == top:
            return named[1] in self._suits[cid]
        return (rank is not None and rank == self._rank[top]) or not self._suits[cid].isdisjoint(self._suits[top])

    def can_play(self, p: int, cid: int) -> bool:
        e = self._eff[cid]
        return e is None or e.playable is None or e.playable(self, p)

    def _main_options(self) -> list[str]:
        p = self.turn
        hand = self.hands[p]
        options = []
        if not self.played:
            eff = self._eff
            for c in hand:
                e = eff[c]
                if e is None or e.playable is None or e.playable(self, p):
                    options.append(_PLAY[c])
            if self.draw_pile and self._may_play_top(p):
                options.append("play_top")
        if self.discards_made < self._discard_allowance(p):
            for c in hand:
                if self.can_discard(c):
                    options.append(_DISCARD[c])
        options.append("end")
        return options

    def _controls(self, p: int, name: str) -> bool:
        return any(self.defs[c].name == name for c in self.in_play[p])

    def _may_play_top(self, p: int) -> bool:
        return self._controls(p, "Fortune Teller") and self.can_play(p, self.draw_pile[-1])

    def play_card(self, p: int, cid: int) -> None:
        """Play ``cid`` (already out of its zone) for its effect, as an asset or an event."""
        self.played = True
        if self.defs[cid].is_asset:
            self.in_play[p].append(cid)
            self._log({"type": "play", "player": p, "card": cid, "as": "asset"})
            return
        self.limbo.append(cid)
        self._log({"type": "play", "player": p, "card": cid, "as": "event"})
        self.stack.append({"do": "event_done", "card": cid})
        e = self._eff[cid]
        if e is not None and e.resolve is not None:
            self.stack.append({"do": "card", "name": self.defs[cid].name, "src": cid, "p": p, "owner": p, "step": 0})

    # ----------------------------------------------------------------- turns
    def _start_turn(self, p: int) -> None:
        self.turn = p
        self.turn_number += 1
        self.phase = "begin"
        self.played = False
        self.discards_made = 0
        self.bonus_discards = 0
        self.destruction_seen = False
        self.at_risk = []
        self._log({"type": "turn", "player": p, "turn": self.turn_number})

    def _next_turn(self) -> None:
        p = self.turn
        while True:
            if self.alive[p] and self.extra[p] > 0:
                self.extra[p] -= 1
                candidate = p
            else:
                candidate = self._next_alive(p)
            if self.skips[candidate] > 0:
                self.skips[candidate] -= 1
                self._log({"type": "skip", "player": candidate})
                p = candidate
                continue
            break
        self._start_turn(candidate)

    def _push_triggers(self, when: str) -> None:
        """Collect the conditional abilities of this moment (a snapshot, item 12) in groups per
        controller, active player first then clockwise (CR §10)."""
        active = self.turn
        groups = []
        for q in self._order_from(active):
            cards = []
            for c in self.in_play[q]:
                e = self._eff[c]
                if e is None:
                    continue
                hook = e.at_begin if when == "begin" else e.at_end
                if hook is not None and hook(self, q, active):
                    cards.append(c)
            if cards:
                groups.append({"do": "group", "owner": q, "p": active, "cards": cards, "when": when, "active": active})
        self.stack.extend(reversed(groups))

    # ----------------------------------------------------------------- winning and losing
    def _expand_teams(self, players) -> list[int]:
        teams = {self.team[p] for p in players}
        return [q for q in range(self.players) if self.team[q] in teams]

    def _points(self, winners: list[int]) -> list[int]:
        mode = self.options["eliminated_score"]
        most = max((len(h) for h in self.hands), default=0)
        points = []
        for p in range(self.players):
            if p in winners:
                points.append(0)
            elif self.alive[p]:
                points.append(len(self.hands[p]))
            elif mode == "snapshot":
                points.append(self.elim_points[p])
            elif mode == "zero":
                points.append(0)
            else:
                points.append(max(most, max(self.elim_points)) + 1)
        return points

    def _finish(self, winners: list[int], reason: str, detail: str = "", tied: Sequence[int] = ()) -> None:
        points = self._points(winners)
        order = {p: i for i, p in enumerate(self.eliminated)}
        keys: list[float] = []
        for p in range(self.players):
            if p in winners or p in tied:
                keys.append(0)
            elif self.alive[p]:
                keys.append(1 + points[p] / 1000)
            else:
                keys.append(2 + (len(self.eliminated) - order[p]) / 1000)
        self.result = Result(
            winners=sorted(winners),
            reason=reason,
            points=points,
            placements=placements_from_scores(keys),
            eliminated=list(self.eliminated),
            detail=detail,
        )
        self.stack.clear()
        self._pending = None
        self._log({"type": "end", "winners": sorted(winners), "reason": reason})

    def _win(self, players: list[int], reason: str) -> None:
        winners = [p for p in self._expand_teams(players) if self.alive[p]] or self._expand_teams(players)
        self._finish(winners, reason, "shared" if len({self.team[w] for w in winners}) > 1 else "")

    def win(self, players: list[int], reason: str) -> None:
        """Alternate win conditions call this: ``players`` (and their allies) win now."""
        self._win(players, reason)

    def _impossible_draw(self) -> None:
        alive = self._order_from(self.turn)
        fewest = min(len(self.hands[p]) for p in alive)
        winners = [p for p in alive if len(self.hands[p]) == fewest]
        if self.options["impossible_draw_tie"] == "turn_order":
            winners = winners[:1]
        self._win(winners, "impossible_draw")

    def lose(self, players: list[int], reason: str) -> None:
        """Players (and their allies) lose the game now (CR §2): their hands and the cards they
        control go to the bottom of the discard pile and they leave the game."""
        self._lose(players, reason)

    def _lose(self, players: list[int], reason: str) -> None:
        losers = [p for p in self._order_from(self.turn) if p in self._expand_teams(players)]
        if not losers:
            return
        for p in losers:
            self.elim_points[p] = len(self.hands[p])
            self.alive[p] = False
            self.eliminated.append(p)
            self._log({"type": "lose", "player": p, "reason": reason})
            # Fixed order (hand, then cards in play): see docs/rulings.md, "eliminated cards".
            for c in self.hands[p] + self.in_play[p]:
                self.put_on_bottom(c)
            self.hands[p].clear()
            self.in_play[p].clear()
            self.skips[p] = self.extra[p] = 0
        remaining = {self.team[q] for q in range(self.players) if self.alive[q]}
        if not remaining:
            self._finish([], "all_lost", "tie", tied=losers)
            return
        if len(remaining) == 1:
            self._win([q for q in range(self.players) if self.alive[q]], "last_standing")
            return
        self._drop_frames(set(losers))

    def _drop_frames(self, gone: set[int]) -> None:
        """Cancel the work of players who left; their cards in transit go to the bottom."""
        stack = self.stack
        if self.turn in gone:
            cut = 1
            stack[0]["stage"] = "next"
        else:
            cut = next((i for i in range(1, len(stack)) if stack[i].get("owner") in gone), len(stack))
        if cut < len(stack):
            del stack[cut:]
            referenced = set()
            for f in stack:
                if f["do"] == "event_done":
                    referenced.add(f["card"])
                referenced.update(f.get("cards", ()) if f["do"] in ("bottom", "destroy") else ())
                referenced.update(f.get("holding", ()))
            for c in [c for c in self.limbo if c not in referenced]:
                self.limbo.remove(c)
                self.put_on_bottom(c)

    # ----------------------------------------------------------------- save and load
    def to_dict(self) -> dict:
        """The whole state as JSON-ready data (zones listed top first)."""
        out = {
            "rule_set": RULE_SET,
            "version": FORMAT_VERSION,
            "players": self.players,
            "seed": self.seed,
            "options": self.options,
            "deck": list(self.deck),
            "teams": self._teams_list(),
        }
        for f in fields(State):
            out[_key(f)] = f.metadata["save"](getattr(self, f.name))
        out["rng"] = rng_to_json(self.rng)
        return out

    @classmethod
    def _from_dict(cls, d: dict) -> Game:
        players = d["players"]
        options = validate_options(d.get("options", {}), players)
        if "hands" not in d:
            raise PositionError("a position needs \"hands\": one list of cards per player")
        if "deck" not in d:
            d = _name_position_to_ids(d)
        rng = rng_from_json(d["rng"]) if "rng" in d else random.Random(d.get("seed", 0))
        game = cls(players, d.get("seed", 0), options, list(d["deck"]), _team_ids(players, d.get("teams")), rng)
        for f in fields(State):
            key = _key(f)
            if key in d:
                setattr(game, f.name, f.metadata["load"](d[key]))
        if len(game.hands) != players or len(game.in_play) != players:
            raise PositionError("hands and in_play need one list per player")
        for seat, cards in enumerate(game.in_play):
            for c in cards:
                if not game.defs[c].is_asset:
                    raise PositionError(
                        f"{game.defs[c].name} is an event: only assets can be in play (in_play of player {seat})"
                    )
        if "named" not in d and d.get("named_colour"):
            suit = d["named_colour"]
            if suit not in SUITS or not game.discard or game.defs[game.discard[-1]].rank != "8":
                raise PositionError("named_colour needs a suit and an eight on top of the discard pile")
            game.named = [game.discard[-1], suit]
        if "stack" not in d:
            stage = {"begin": "begin", "draw": "draw", "main": "end", "end": "end"}.get(game.phase)
            if stage is None:
                raise PositionError(f"unknown phase {game.phase!r} (begin, draw, main or end)")
            game.stack = [{"do": "turn", "stage": stage}]
            if game.phase == "main":
                game.stack.append({"do": "main", "owner": game.turn})
        if game.result is None:
            game._advance()
        return game


def _name_position_to_ids(d: dict) -> dict:
    """A hand-written position names its cards: give each occurrence its own card id."""
    deck: list[str | dict] = []

    def ids(cards):
        out = []
        for name in cards:
            if not isinstance(name, str):
                raise PositionError("a position without a \"deck\" must name its cards")
            if name not in BY_NAME and name not in promos:
                raise PositionError(f"unknown card {name!r}")
            deck.append(name if name in BY_NAME else dict(promos[name]))
            out.append(len(deck) - 1)
        return out

    promos = {spec["name"]: spec for spec in d.get("options", {}).get("promo_cards", [])}
    d = dict(d)
    d["hands"] = [ids(h) for h in d["hands"]]
    d["in_play"] = [ids(c) for c in d.get("in_play", [[] for _ in d["hands"]])]
    for zone in ("draw_pile", "discard_pile", "limbo"):
        d[zone] = ids(d.get(zone, []))
    d["deck"] = deck
    return d


# ----------------------------------------------------------------- step functions
def _step_turn(g: Game, f: dict):
    stage = f["stage"]
    if stage == "begin":
        g.phase = "begin"
        f["stage"] = "draw"
        g._push_triggers("begin")
    elif stage == "draw":
        g.phase = "draw"
        f["stage"] = "main"
        g.draw(g.turn, 1)
    elif stage == "main":
        g.phase = "main"
        f["stage"] = "end"
        g.stack.append({"do": "main", "owner": g.turn})
    elif stage == "end":
        g.phase = "end"
        f["stage"] = "next"
        g._push_triggers("end")
    else:
        f["stage"] = "begin"
        g._next_turn()
    return None


def _step_main(g: Game, f: dict):
    answer = f.pop("answer", None)
    p = g.turn
    if answer is None:
        return Decision(p, "main", g._main_options(), "play a card, discard, or end the turn")
    if answer == "end":
        g.stack.pop()
        return None
    verb, _, value = answer.partition(":")
    if verb == "discard":
        cid = int(value)
        g.hands[p].remove(cid)
        g.discard.append(cid)
        g.named = None
        g.discards_made += 1
        g._log({"type": "discard", "player": p, "card": cid})
        if g._rank[cid] == "8":
            g.stack.append({"do": "colour", "p": p, "owner": p})
    elif verb == "play":
        cid = int(value)
        g.hands[p].remove(cid)
        g.play_card(p, cid)
    else:  # play_top (Fortune Teller)
        cid = g.draw_pile.pop()
        for k in g.known:
            if cid in k:
                k.remove(cid)
        g.play_card(p, cid)
    return None


def _step_colour(g: Game, f: dict):
    answer = f.pop("answer", None)
    if answer is None:
        return Decision(f["p"], "colour", list(_COLOUR), "name a colour for the eight you discarded")
    g.stack.pop()
    suit = answer.partition(":")[2]
    if g.discard:
        g.named = [g.discard[-1], suit]
    g._log({"type": "colour", "player": f["p"], "suit": suit})
    return None


def _step_event_done(g: Game, f: dict):
    g.stack.pop()
    cid = f["card"]
    if cid in g.limbo:
        g.limbo.remove(cid)
        g.put_on_bottom(cid)
    return None


def _step_card(g: Game, f: dict):
    resolve = EFFECTS[f["name"]].resolve
    assert resolve is not None, "a card frame is pushed only for an effect that resolves"
    return resolve(g, f)


def _step_group(g: Game, f: dict):
    cards = f["cards"]
    if len(cards) > 1:
        answer = f.pop("answer", None)
        if answer is None:
            return Decision(
                f["p"], "order", [_CARD[c] for c in cards],
                f"choose which ability of player {f['owner']} takes effect next",
            )
        cid = arg(answer)
        cards.remove(cid)
    else:
        cid = cards.pop()
    if not cards:
        g.stack.pop()
    name = g.defs[cid].name
    g._log({"type": "effect", "card": name, "text": "takes effect", "player": f["owner"]})
    g.stack.append({
        "do": "card", "name": name, "src": cid, "p": f["owner"], "owner": f["owner"],
        "step": 0, "when": f["when"], "active": f["active"],
    })
    return None


def _step_destroy(g: Game, f: dict):
    stage = f["stage"]
    if stage == "protect":
        per_card = g.options["first_destruction_scope"] == "per_card"
        if per_card:
            f["open"] = [c for c in f["cards"] if c not in g.at_risk]
            g.at_risk.extend(f["open"])
            first = bool(f["open"])
        else:
            first = not g.destruction_seen
            f["open"] = list(f["cards"])
        g.destruction_seen = True
        f["prot"] = []
        if first:
            f["prot"] = [
                [c, q] for q in g._order_from(g.turn) for c in g.in_play[q]
                if (e := g._eff[c]) is not None and e.saves
            ]
        f["stage"] = "save"
        return None
    if stage == "save":
        while f["prot"]:
            protector, ctrl = f["prot"][0]
            left = f.setdefault("left", g._eff[protector].saves)
            candidates = [c for c in f["open"] if c in f["cards"]]
            if left <= 0 or not candidates or not g.alive[ctrl]:
                f["prot"].pop(0)
                f.pop("left", None)
                continue
            answer = f.pop("answer", None)
            if answer is None:
                name = g.defs[protector].name
                return Decision(
                    ctrl, "save", [_CARD[c] for c in candidates] + ["done"],
                    f"{name}: you may save {left} more of the cards about to be destroyed", name,
                )
            if answer == "done":
                f["prot"].pop(0)
                f.pop("left", None)
                continue
            cid = arg(answer)
            f["cards"].remove(cid)
            f["left"] = left - 1
            g._log({"type": "save", "player": ctrl, "card": cid, "by": g.defs[protector].name})
            return None
        f["stage"] = "remove"
        return None
    # remove: the cards leave play together, then go to the bottom in the active player's order
    g.stack.pop()
    gone = []
    for c in f["cards"]:
        q = g.controller(c)
        if q is not None:
            g.in_play[q].remove(c)
            gone.append(c)
    if gone:
        g.limbo.extend(gone)
        g._log({"type": "destroy", "cards": gone})
        g.to_bottom_in_order(gone, g.turn)
    return None


def _step_bottom(g: Game, f: dict):
    cards = f["cards"]
    answer = f.pop("answer", None)
    if answer is None:
        if len(cards) > 1:
            return Decision(
                f["p"], "order", [_CARD[c] for c in cards] + ["done"],
                "choose the next card to put on the bottom of the discard pile (done: the rest as listed)",
            )
        chosen = list(cards)
    elif answer == "done":
        chosen = list(cards)
    else:
        chosen = [arg(answer)]
    for c in chosen:
        cards.remove(c)
        g.limbo.remove(c)
        g.put_on_bottom(c)
    if not cards:
        g.stack.pop()
    return None


STEPS = {
    "turn": _step_turn,
    "main": _step_main,
    "colour": _step_colour,
    "event_done": _step_event_done,
    "card": _step_card,
    "group": _step_group,
    "destroy": _step_destroy,
    "bottom": _step_bottom,
}
