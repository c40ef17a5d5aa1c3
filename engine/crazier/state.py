"""Crazier Eights: the state a game saves, spelled out once, and its saved form.

:class:`State` lists every field that ``to_dict()`` writes, in order, with its default and its
conversion to and from JSON; saving and loading (games and hand-written positions, docs/positions.md)
read that list, so a new field is declared in one place.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import NamedTuple, Self

from engine.cards import BY_NAME, SUITS, CardDef, promo_card
from engine.common import PositionError, Result, rng_from_json, rng_to_json
from engine.crazier.options import FORMAT_VERSION, RULE_SET, _team_ids, validate_options
from engine.effects import EFFECTS, Effect


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
    if not isinstance(value, (list, dict)):
        return lambda players: [value] * players  # an int or bool is immutable: one may be shared
    if value == []:  # hands, cards in play, known cards: a new empty list each (made at every deal)
        return lambda players: [[] for _ in range(players)]
    return lambda players: [_json_copy(value) for _ in range(players)]


def _constant(value):
    return lambda players: value


class _Setup:
    """What a game fixes when it starts: the seats, seed, options and deck, and the per-card tables
    read from the deck (:class:`DeckTables`), set when the game is made; ``to_dict()`` saves
    the first ones as they are, the tables not at all.

    Every attribute of a game is declared in ``__slots__`` (these, the saved fields of
    :class:`State`, and the two of :class:`~engine.crazier.game.Game`): a game has about fifty,
    and Python 3.11 keeps an object's attributes in its fast layout only up to thirty; past
    that, every attribute read and write on every step takes a slower path.
    """

    __slots__ = (
        "players", "seed", "options", "deck", "team", "rng", "defs", "_rank", "_suits", "_eff", "_playable", "_tested",
        "asset_ids", "_fortune_tellers", "_hooked", "_changes_discards", "_changes_draws", "_fits", "_fits_suit",
        "_eights", "_texts",
    )

    def __init__(self, players, seed, options, deck, team, rng):
        self.players = players
        self.seed = seed
        self.options = options
        self.deck = deck  # card id -> name (or a promo spec dict)
        self.team = team
        self.rng = rng
        key = tuple(deck)
        try:
            tables = _DECK_TABLES.get(key)
            shared = True
        except TypeError:  # a promo card (a dict): its tables are the game's own
            tables, shared = None, False
        if tables is None:
            tables = _deck_tables(deck)
            if len(_DECK_TABLES) < 16 and shared:
                _DECK_TABLES[key] = tables
        self.defs: list[CardDef] = list(tables.defs)
        self._rank = tables.ranks
        self._suits = tables.suits
        self._eff = tables.effects
        #: card id -> its effect's "may be played now" test, None when it always may
        self._playable = tables.playable
        self._tested = tables.tested
        self.asset_ids = tables.assets
        self._fortune_tellers = tables.fortune_tellers
        self._hooked = tables.hooked
        self._changes_discards = tables.changes_discards
        self._changes_draws = tables.changes_draws
        self._fits = tables.fits
        self._fits_suit = tables.fits_suit
        self._eights = tables.eights
        self._texts: dict[int, str] = {}  # card id -> card_text


@dataclass(init=False, eq=False, repr=False, slots=True)
class State(_Setup):
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



    def __init__(self, players, seed, options, deck, team, rng):
        """A game with nothing dealt: every saved field at its default."""
        # not super(): dataclass(slots=True) makes a new class, which the zero-argument form misses
        _Setup.__init__(self, players, seed, options, deck, team, rng)
        for name, default in _DEFAULTS:
            setattr(self, name, default(players))

    def _teams_list(self):
        if self.team == list(range(self.players)):
            return None
        groups: dict[int, list[int]] = {}
        for seat, t in enumerate(self.team):
            groups.setdefault(t, []).append(seat)
        return list(groups.values())

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
        for f in _FIELDS:
            out[_key(f)] = f.metadata["save"](getattr(self, f.name))
        out["rng"] = rng_to_json(self.rng)
        return out

    def clone(self) -> Self:
        """An independent copy of this game, equal to it, RNG included: what search and
        self-play copy at every node. Each field is copied as deep as it can change (a hand is a
        new list; a logged event, never changed once logged, and the per-deck tables are shared),
        which is several times faster than ``copy.deepcopy`` or a pickle round trip (bench/engine_clone.py)."""
        new = object.__new__(type(self))
        for klass in type(self).__mro__:  # _Setup's, then the Game's own (pending, label cache)
            for name in getattr(klass, "__slots__", ()):
                if name not in _FIELD_NAMES and hasattr(self, name):
                    setattr(new, name, getattr(self, name))
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        new.rng = rng
        for name, copy_of in _COPIERS:
            setattr(new, name, copy_of(getattr(self, name)))
        return new

    def __reduce__(self):
        # pickle and copy go through the saved form (as the eights family does): small, and a
        # game's per-deck tables are rebuilt from its deck rather than written out
        return _restored, (type(self), self.to_dict())

    @classmethod
    def _loaded(cls, d: dict) -> Self:
        """A game's fields from ``to_dict()`` output or a hand-written position; the caller runs
        the machine on to its pending decision."""
        players = d["players"]
        options = validate_options(d.get("options", {}), players)
        if "hands" not in d:
            raise PositionError("a position needs \"hands\": one list of cards per player")
        if "deck" not in d:
            d = _name_position_to_ids(d)
        rng = rng_from_json(d["rng"]) if "rng" in d else random.Random(d.get("seed", 0))
        game = cls(players, d.get("seed", 0), options, list(d["deck"]), _team_ids(players, d.get("teams")), rng)
        for f in _FIELDS:
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
        return game


_FIELDS = fields(State)
_DEFAULTS = tuple((f.name, f.metadata["default"]) for f in _FIELDS)
_FIELD_NAMES = frozenset(f.name for f in _FIELDS)


def _same(value):
    return value


def _list_of_lists(value):
    return [list(v) for v in value]


#: per saved field, how clone() copies it: as deep as the game ever changes it in place
_COPIERS = tuple(
    (f.name, {
        "hands": _list_of_lists, "in_play": _list_of_lists, "known": _list_of_lists,
        "stack": _json_copy,  # frames are dicts holding lists (chosen players, cards, a look)
        "named": lambda v: None if v is None else list(v),
        "result": _same,  # a result is made once, at the end
    }.get(f.name, list if f.type.startswith("list") else _same))
    for f in _FIELDS
)


def _restored(cls, data: dict):
    """A game from its saved form (the pickle's way back, see ``State.__reduce__``)."""
    return cls._from_dict(data)

class DeckTables(NamedTuple):
    """What a game looks cards up in, by card id, computed once per deck. The sets answer the
    questions asked at every decision ("does any card in play...?", "which cards of this hand
    may be discarded?") with one set operation rather than a scan of the cards' definitions."""

    defs: tuple[CardDef, ...]
    ranks: tuple[str | None, ...]
    suits: tuple[frozenset[str], ...]
    effects: tuple[Effect | None, ...]
    playable: tuple[Callable | None, ...]  # the effect's "may be played now" test
    tested: frozenset[int]  # the cards with such a test
    assets: frozenset[int]
    fortune_tellers: frozenset[int]  # checked at every decision (P14)
    #: per moment ("begin", "end"): the ids of the cards with an ability then, and per card id
    #: that ability's condition (None without one)
    hooked: dict[str, tuple[frozenset[int], tuple[Callable | None, ...]]]
    changes_discards: frozenset[int]  # cards that change how many cards may be discarded
    changes_draws: frozenset[int]  # cards that change how many cards a draw gives
    #: per top card of the discard pile: the cards that may be discarded on it (can_discard)
    fits: tuple[frozenset[int], ...]
    fits_suit: dict[str, frozenset[int]]  # per suit: the cards that may go on an eight naming it
    eights: frozenset[int]  # wild when discarded


#: a deck (card names) -> its tables
_DECK_TABLES: dict[tuple, DeckTables] = {}


def _deck_tables(deck: list) -> DeckTables:
    defs = tuple(BY_NAME[d] if isinstance(d, str) else promo_card(d) for d in deck)
    effects = tuple(EFFECTS.get(d.name) for d in defs)
    eights = frozenset(c for c, d in enumerate(defs) if d.rank == "8")
    return DeckTables(
        defs=defs,
        ranks=tuple(d.rank for d in defs),
        suits=tuple(d.suits for d in defs),
        effects=effects,
        playable=tuple(None if e is None else e.playable for e in effects),
        tested=frozenset(c for c, e in enumerate(effects) if e is not None and e.playable is not None),
        assets=frozenset(c for c, d in enumerate(defs) if d.is_asset),
        fortune_tellers=frozenset(c for c, d in enumerate(defs) if d.name == "Fortune Teller"),
        hooked={
            "begin": (
                frozenset(c for c, e in enumerate(effects) if e is not None and e.at_begin is not None),
                tuple(None if e is None else e.at_begin for e in effects),
            ),
            "end": (
                frozenset(c for c, e in enumerate(effects) if e is not None and e.at_end is not None),
                tuple(None if e is None else e.at_end for e in effects),
            ),
        },
        changes_discards=frozenset(
            c for c, e in enumerate(effects)
            if e is not None and (e.extra_discards_all or e.extra_discards_own or e.opponents_discard_cap is not None)
        ),
        changes_draws=frozenset(
            c for c, e in enumerate(effects)
            if e is not None and (e.draw_more_to_opponents or e.draw_less_from_opponents or e.draw_less_all)
        ),
        fits=tuple(
            eights | {
                c for c, d in enumerate(defs)
                if (d.rank is not None and d.rank == top.rank) or not d.suits.isdisjoint(top.suits)
            }
            for top in defs
        ),
        fits_suit={suit: eights | {c for c, d in enumerate(defs) if suit in d.suits} for suit in SUITS},
        eights=eights,
    )


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

