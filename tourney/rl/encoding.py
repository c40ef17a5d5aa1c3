"""Fixed-shape numbers for learning: a seat's view as an observation, options as actions.

Everything here is built from what a bot is sent in a protocol ``request`` (docs/protocol.md): the
seat's ``view``, the decision's ``kind`` and its option ids. Nothing else of the game is read, so
an observation never holds hidden information, and a protocol bot can encode its requests with
exactly the function a learner was trained with (``python -m tourney.rl.train``).

The shapes depend on two numbers fixed for a game's set-up: ``cards`` (the size of the game's card
table: 52 or 104, more with Crazier Eights' promo cards) and ``players``. :class:`Encoding` holds
them; :meth:`Encoding.layout` names every slice (docs/tutorial.md, part 2, lists them).

Actions (``Discrete(Encoding.actions)``), in this order:

- ``play:<card>`` for every card id, then ``discard:<card>``, then ``card:<card>``;
- ``player:<seat>`` for every seat;
- the fixed ids of :data:`VERBS` (``end``, ``done``, ``draw``, ``colour:moon``, ``count:all``, ...).

Every option id of every rule set has its action, and one decision never offers two ids with the
same action, so :meth:`Encoding.option` maps an action back to the offered id.

The environments get the same numbers faster from :mod:`tourney.rl.observe`, which reads the
engine's state and updates each seat's observation in place; tests/test_rl.py checks that its
observations equal :meth:`Encoding.encode` of the seat's view after every step of seeded games.

Numbers come as numpy arrays when numpy is there (the environments need it); without numpy,
:meth:`Encoding.encode` returns a list of floats, so a protocol bot needs nothing beyond the
standard library.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

try:  # numpy is optional here: a protocol bot may run without it
    import numpy as np
except ImportError:  # pragma: no cover - the rl extra installs numpy
    np = None  # type: ignore[assignment]

_INT8 = np.dtype(np.int8) if np is not None else None
_FLOAT32 = np.dtype(np.float32) if np is not None else None

#: the decision kinds of every rule set (docs/protocol.md, "Decision kinds by rule set"); a kind
#: not listed sets the last slot, ``other``
KINDS = (
    "main", "colour", "player", "players", "card", "destroy", "save", "order", "put_back",
    "trade_give", "trade_take", "yes_no", "top_or_bottom",  # crazier-eights
    "turn", "suit", "last_card", "score",  # crazy-eights, super-crazy-eights
    "other",
)

#: option ids without a card or a seat, in action order after the card and seat actions
VERBS = (
    "end", "play_top", "done", "yes", "no", "top", "bottom",
    "colour:moon", "colour:ankh", "colour:sun", "colour:eye",
    "draw", "pass", "last_card", "silent",
    "suit:clubs", "suit:diamonds", "suit:hearts", "suit:spades",
    "count:all", "count:south", "count:west", "count:north", "count:east",
)

#: option verbs that take a card id, in action order
CARD_VERBS = ("play", "discard", "card")

#: Crazier Eights' phases, then the classic games' only "phase" (a turn)
PHASES = ("begin", "draw", "main", "end")

#: a named colour (Crazier Eights) or suit (classic), one slot each
NAMED = ("moon", "ankh", "sun", "eye", "clubs", "diamonds", "hearts", "spades")

#: per-card planes, each ``cards`` long, then one ``in_play`` plane per seat (relative order)
PLANES = ("hand", "discard_pile", "top", "limbo", "known_draw_pile", "looking_at", "dummy_mine",
          "dummy_other")

#: per-seat numbers (relative order: me first, then the next seats in turn order)
SEAT_FEATURES = ("hand_size", "alive", "active", "turn", "dealer", "skips", "extra_turns", "team_mate",
                 "missed_call", "being_looked_at")

#: numbers about the whole table
GLOBALS = ("draw_pile", "discard_size", "turn_number", "clockwise", "draw_stack", "any_card",
           "played_this_turn", "discards_made", "discards_allowed")

#: counts are divided by their cap (and capped), so that every number lies in [0, 1]
TURN_CAP = 200
SMALL_CAP = 4


class EncodingError(ValueError):
    """An option id or action the encoding does not know (a newer protocol's verb)."""


@dataclass(frozen=True)
class Encoding:
    """Observation and action layout for games with ``cards`` cards and ``players`` seats."""

    cards: int
    players: int
    _action_of: dict = field(init=False, repr=False, compare=False)
    _option_of: tuple = field(init=False, repr=False, compare=False)
    _offsets: dict = field(init=False, repr=False, compare=False)
    _at: dict = field(init=False, repr=False, compare=False)
    _size: int = field(init=False, repr=False, compare=False)
    _zeros: Any = field(init=False, repr=False, compare=False)
    _relative: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ids: dict[str, int] = {}
        for verb in CARD_VERBS:
            for c in range(self.cards):
                ids[f"{verb}:{c}"] = len(ids)
        for seat in range(self.players):
            ids[f"player:{seat}"] = len(ids)
        for verb in VERBS:
            ids[verb] = len(ids)
        object.__setattr__(self, "_action_of", ids)
        object.__setattr__(self, "_option_of", tuple(ids))  # action -> its option id
        offsets: dict[str, tuple[int, int]] = {}
        at = 0
        for name, size in self._sizes():
            offsets[name] = (at, size)
            at += size
        object.__setattr__(self, "_offsets", offsets)
        object.__setattr__(self, "_at", {name: start for name, (start, _) in offsets.items()})
        object.__setattr__(self, "_size", at)
        object.__setattr__(self, "_zeros", array("f", bytes(4 * at)))
        object.__setattr__(self, "_relative", tuple(
            tuple((s - me) % self.players for s in range(self.players)) for me in range(self.players)))

    @classmethod
    def for_game(cls, game: Any) -> Encoding:
        """The encoding of an engine game's set-up."""
        return cls(len(game.card_table()), game.players)

    # -- actions ---------------------------------------------------------------------------------
    @property
    def actions(self) -> int:
        """How many actions there are (the ``Discrete`` space's ``n``)."""
        return len(self._action_of)

    def action(self, option_id: str) -> int:
        """The action of an option id."""
        try:
            return self._action_of[option_id]
        except KeyError:
            raise EncodingError(f"option {option_id!r} has no action in this encoding") from None

    @property
    def option_ids(self) -> tuple[str, ...]:
        """The option id of every action, in action order."""
        return self._option_of

    def option(self, action: int, options: list[str]) -> str:
        """The offered option id that ``action`` stands for; :class:`EncodingError` if none."""
        if 0 <= action < len(self._option_of):
            option_id = self._option_of[action]  # an action stands for one option id: is it offered?
            if option_id in options:
                return option_id
        raise EncodingError(f"action {action} is not one of the offered options {options}")

    def mask(self, options: list[str]) -> Any:
        """1 for the action of each offered option, 0 elsewhere (int8 array, or a list)."""
        if np is None:
            out = [0] * self.actions
            for o in options:
                out[self.action(o)] = 1
            return out
        ids = self._action_of
        # a new zeroed array and one item write per option: for the few options of a decision
        # this beats filling a bytearray and wrapping it (np.frombuffer costs more than np.zeros)
        mask = np.zeros(len(ids), _INT8)  # a dtype passed by position costs half as much
        try:
            for o in options:
                mask[ids[o]] = 1
        except KeyError:
            self.action(o)  # raises the EncodingError naming the option
        return mask

    # -- observations ----------------------------------------------------------------------------
    def _sizes(self) -> list[tuple[str, int]]:
        sizes = [(name, self.cards) for name in PLANES]
        sizes += [(f"in_play_{k}", self.cards) for k in range(self.players)]
        sizes += [(f"{name}_{k}", 1) for name in SEAT_FEATURES for k in range(self.players)]
        sizes += [(name, 1) for name in GLOBALS]
        sizes += [("phase", len(PHASES)), ("named", len(NAMED)), ("kind", len(KINDS))]
        return sizes

    @property
    def size(self) -> int:
        """Length of an observation vector."""
        return self._size

    def layout(self) -> list[tuple[str, int, int]]:
        """Every slice of an observation: ``(name, start, length)``, in order."""
        return [(name, start, size) for name, (start, size) in self._offsets.items()]

    def encode(self, view: dict, kind: str | None = None) -> Any:
        """The observation of ``view`` (and of the decision ``kind`` asked, if any): float32 array
        of :attr:`size` numbers in [0, 1] (a list of floats without numpy).

        Seats are relative: ``<feature>_0`` is the viewer, ``<feature>_1`` the next seat in turn
        order, and so on. Counts are divided by their cap and capped at 1: hand sizes, the draw
        pile, the discard pile and a stack of twos by the number of cards; skips, extra turns and
        discards by 4; the turn's number by 200.
        """
        at = self._at
        cards = self.cards
        # every number is written straight into a copy of a zeroed float buffer, which takes single
        # writes far faster than a numpy array does (an observation costs about as much as an engine
        # step, so every microsecond shows); numpy then wraps the buffer without copying it
        out = self._zeros[:] if np is not None else [0.0] * self._size
        me = view["player"]
        rel = self._relative[me]  # seat -> its place counted from the viewer

        def ones(start: int, ids) -> None:
            for c in ids:
                out[start + c] = 1.0

        ones(at["hand"], view["hand"])
        pile = view["discard_pile"]
        ones(at["discard_pile"], pile)
        top = view.get("top")
        if top is not None:
            out[at["top"] + top] = 1.0
        crazier = "phase" in view
        if crazier:
            ones(at["limbo"], view["limbo"])
            known = view["known_draw_pile"]
            if known:
                ones(at["known_draw_pile"], [int(c) for c in known])
            look = view.get("looking_at")
            if look:
                ones(at["looking_at"], look["cards"])
                out[at["being_looked_at_0"] + rel[look["hand_of"]]] = 1.0
            in_play = at["in_play_0"]
            for s, ids in enumerate(view["in_play"]):
                if ids:
                    ones(in_play + rel[s] * cards, ids)
        dummies = view.get("dummies")
        if dummies:
            mine = view.get("dummy_position")
            for position, ids in dummies.items():
                ones(at["dummy_mine" if position == mine else "dummy_other"], ids)

        # per seat, relative to the viewer
        base = at["hand_size_0"]
        for s, n in enumerate(view["hand_sizes"]):
            if n:
                out[base + rel[s]] = min(n / cards, 1.0)
        base = at["alive_0"]
        for s, alive in enumerate(view["alive"]):
            if alive:
                out[base + rel[s]] = 1.0
        active = view.get("active")
        if active is not None:
            out[at["active_0"] + rel[active]] = 1.0
        dealer = view.get("dealer")
        if dealer is not None:
            out[at["dealer_0"] + rel[dealer]] = 1.0
        if crazier:  # Crazier Eights' "turn" is the turn's number
            out[at["turn_number"]] = min(view["turn"] / TURN_CAP, 1.0)
            for name in ("skips", "extra_turns"):
                base = at[name + "_0"]
                for s, n in enumerate(view[name]):
                    if n:
                        out[base + rel[s]] = min(n / SMALL_CAP, 1.0)
            for team in view["teams"] or ():
                if me in team:
                    for s in team:
                        if s != me:
                            out[at["team_mate_0"] + rel[s]] = 1.0
            this_turn = view["this_turn"]
            if this_turn["played"]:
                out[at["played_this_turn"]] = 1.0
            out[at["discards_made"]] = min(this_turn["discards_made"] / SMALL_CAP, 1.0)
            out[at["discards_allowed"]] = min(this_turn["discards_allowed"] / SMALL_CAP, 1.0)
            phase = view["phase"]
            if phase in PHASES:
                out[at["phase"] + PHASES.index(phase)] = 1.0
        else:  # the classic games' "turn" is the seat to play
            turn = view.get("turn")
            if turn is not None:
                out[at["turn_0"] + rel[turn]] = 1.0
            missed = view.get("missed_call")
            if missed:
                controller = {h["position"]: h["player"] for h in view.get("hands") or ()}
                for who in missed:
                    holder = controller.get(who) if isinstance(who, str) else who
                    if holder is not None:
                        out[at["missed_call_0"] + rel[holder]] = 1.0
            if view.get("direction", "clockwise") == "clockwise":
                out[at["clockwise"]] = 1.0
            out[at["draw_stack"]] = min((view.get("draw_stack") or 0) / cards, 1.0)
            if view.get("any_card"):
                out[at["any_card"]] = 1.0

        out[at["draw_pile"]] = min(view["draw_pile"] / cards, 1.0)
        out[at["discard_size"]] = min(len(pile) / cards, 1.0)
        named = view.get("named_colour") or view.get("named_suit")
        if named in NAMED:
            out[at["named"] + NAMED.index(named)] = 1.0
        if kind is not None:
            out[at["kind"] + (KINDS.index(kind) if kind in KINDS else len(KINDS) - 1)] = 1.0
        if np is None:
            return out
        return np.frombuffer(out, _FLOAT32)
