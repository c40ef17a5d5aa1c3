"""The environments' observations, read from the engine's state and updated in place, seat by seat.

:meth:`tourney.rl.encoding.Encoding.encode` turns a seat's view into an observation: it is the
definition, and what a protocol bot calls on its requests. The environments get exactly the same
numbers for less: building the whole view (events included) and then a fresh observation from
it cost three to four engine steps. An :class:`Observer` instead keeps one observation per seat
and, when asked, writes only what changed since that seat was last observed:

- every 1 of the observation (the cards of each card plane, and the one-hot slots: whose turn,
  the phase, the named suit, the decision's kind, ...) belongs to a list of indices; an unchanged
  list costs a comparison, a list grown at its end (a card drawn, a card discarded) or at its
  start (cards put under the discard pile) one write per new index, a list with one card gone
  (a card played) one write, and any other change (a reshuffle, a trade) rewrites its plane;
- the few counts (hand sizes, piles, ...) are written anew every time, and the rest only when
  what they are read from changed (the discards allowed, the turn's number, skips, ...).

It reads, item for item, what ``game.view(seat)`` is made of and nothing a view leaves out: the
seat's own hand, the face-up piles and cards, the sizes of the other hands, and so on.
tests/test_rl.py checks every observation against ``Encoding.encode(game.view(seat), kind)``
after every step of seeded games of every rule set, observed at random moments so that an
update spans several steps.

An observation handed out is a copy: later steps never change it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from tourney.rl.encoding import KINDS, NAMED, PHASES, SEAT_FEATURES, SMALL_CAP, TURN_CAP, Encoding

#: the classic games' suits in the engine's order (``EightsGame.named_suit`` indexes them)
CLASSIC_SUITS = ("clubs", "diamonds", "hearts", "spades")

#: one seat's observation, kept up to date: ``observe(kind)`` -> a new float32 array
SeatObserver = Callable[[str | None], np.ndarray]


def _show(mv: Any, start: int, shown: list[int], ids: list[int]) -> list[int]:
    """Make ``start + i`` for each ``i`` in ``ids`` the 1s of a plane whose 1s are ``shown`` now
    (a list of this module's own: the engine changes its lists in place); returns it, updated."""
    n, m = len(shown), len(ids)
    if m == n:
        if ids == shown:  # unchanged (the usual case: compared without slicing)
            return shown
    elif m > n:
        if ids[:n] == shown:  # grown at its end (cards drawn, a card discarded)
            new = ids[n:]
            for i in new:
                mv[start + i] = 1.0
            shown += new
            return shown
        if ids[m - n:] == shown:  # grown at its start (cards put under the discard pile)
            for i in ids[:m - n]:
                mv[start + i] = 1.0
            return ids[:]
    elif m == n - 1:  # one gone, the others kept in order (a card played)? (a card id is in a list once)
        gone = sum(shown) - sum(ids)
        if gone in shown:
            shown.remove(gone)
            mv[start + gone] = 0.0
            if shown == ids:
                return shown
            # not in order: rewritten below from the 1s shown now (gone's is cleared already)
    for i in shown:  # anything else (a reshuffle, a trade): anew
        mv[start + i] = 0.0
    for i in ids:
        mv[start + i] = 1.0
    return ids[:]


def _move(mv: Any, old: int | None, new: int | None) -> int | None:
    """Move a one-hot 1 from slot ``old`` to slot ``new`` (``None``: no slot); returns ``new``."""
    if old is not None:
        mv[old] = 0.0
    if new is not None:
        mv[new] = 1.0
    return new


@dataclass(frozen=True)
class _Slots:
    """Where everything goes in one seat's observation: slice starts, and per seat feature the
    slot of each seat as seen from this one."""

    start: dict[str, int]
    seat: dict[str, list[int]]  # feature -> seat -> slot
    in_play: list[int]  # seat -> start of its in_play plane
    kind: dict[str, int]
    other_kind: int
    named: dict[str, int]
    suit: list[int]  # classic suit index -> slot
    phase: dict[str, int]


@lru_cache(maxsize=32)
def _slots(encoding: Encoding) -> tuple[_Slots, ...]:
    """Every seat's :class:`_Slots` (the same for every game of one set-up: worked out once)."""
    at = {name: start for name, start, _ in encoding.layout()}
    players, cards = encoding.players, encoding.cards
    named = {name: at["named"] + i for i, name in enumerate(NAMED)}
    out = []
    for me in range(players):
        rel = [(s - me) % players for s in range(players)]
        out.append(_Slots(
            start=at,
            seat={name: [at[f"{name}_{k}"] for k in rel] for name in SEAT_FEATURES},
            in_play=[at["in_play_0"] + k * cards for k in rel],
            kind={kind: at["kind"] + i for i, kind in enumerate(KINDS)},
            other_kind=at["kind"] + len(KINDS) - 1,
            named=named,
            suit=[named[s] for s in CLASSIC_SUITS],
            phase={phase: at["phase"] + i for i, phase in enumerate(PHASES)},
        ))
    return tuple(out)


@lru_cache(maxsize=32)
def _fractions(cap: int) -> tuple[float, ...]:
    """``min(n / cap, 1.0)`` for n = 0 ... cap, as the encoding computes it."""
    return tuple(min(n / cap, 1.0) for n in range(cap + 1))


class Observer:
    """Every seat's observation of one ``game``, from the rule set's seat observer."""

    def __init__(self, encoding: Encoding, game: Any):
        self.encoding = encoding
        self.game = game
        self._make = _crazier_seat if game.rule_set == "crazier-eights" else _classic_seat
        self._seats: list[SeatObserver | None] = [None] * encoding.players  # made when first asked

    def observe(self, seat: int, kind: str | None = None) -> np.ndarray:
        """``Encoding.encode(game.view(seat), kind)`` as a new float32 array."""
        observe = self._seats[seat]
        if observe is None:
            observe = self._seats[seat] = self._make(self.encoding, self.game, seat)
        return observe(kind)


# Each seat observer below takes its constants (worked out once per set-up by its plan) into
# local names, then returns the function that updates the seat's observation: local names are
# the fastest reads Python has.


@lru_cache(maxsize=256)
def _classic_plan(encoding: Encoding, seat: int, controller: tuple, dummy: tuple, dummy_form: bool) -> tuple:
    """The constants of a classic seat's observer (for every game with these hands: worked out once)."""
    slots = _slots(encoding)[seat]
    at, by_seat = slots.start, slots.seat
    hand_count = len(controller)
    # the view's hand is the seat's first concealed hand; a seat's hand size counts all it conceals
    own = next((h for h in range(hand_count) if controller[h] == seat and not dummy[h]), None)
    concealed = [h for h in range(hand_count) if not dummy[h]]
    one_each = sorted(controller[h] for h in concealed) == list(range(encoding.players))
    dummies = [h for h in range(hand_count) if dummy[h]] if dummy_form else []
    return (
        own, concealed, one_each, [(by_seat["hand_size"][controller[h]], h) for h in concealed],
        dummies, [h for h in dummies if controller[h] == seat], [h for h in dummies if controller[h] != seat],
        at["hand"], at["discard_pile"], at["top"], at["dummy_mine"], at["dummy_other"],
        [by_seat["turn"][controller[h]] for h in range(hand_count)],
        [by_seat["dealer"][controller[h]] for h in range(hand_count)],
        by_seat["missed_call"], by_seat["active"], by_seat["alive"], by_seat["hand_size"],
        at["clockwise"], at["any_card"], at["draw_stack"], at["draw_pile"], at["discard_size"],
        slots.kind, slots.other_kind, slots.suit, _fractions(encoding.cards),
    )


def _classic_seat(encoding: Encoding, game: Any, seat: int) -> SeatObserver:
    """A seat of Crazy Eights or Super Crazy Eights (engine/eights_family.py), dummies included."""
    obs = np.zeros(encoding.size, np.float32)
    mv: Any = obs.data  # a memoryview: a single write through it costs half of numpy's
    players, cards = encoding.players, encoding.cards
    controller = game.controller
    (
        own, concealed, one_each, size_of_hand,
        dummies, mine, others,
        hand_at, discard_at, top_at, mine_at, other_at,
        turn_slot,
        dealer_slot,
        missed_slot, active_slot, alive_slot, size_slot,
        clockwise_at, any_card_at, stack_at, draw_at, discard_size_at,
        kind_slot, other_kind, suit_slot, count,
    ) = _classic_plan(encoding, seat, tuple(controller), tuple(game.dummy), game.dummy_form)
    hand_shown: list[int] = []
    discard_shown: list[int] = []
    mine_shown: list[int] = []
    other_shown: list[int] = []
    # the slot of each one-hot 1 now (None: none)
    turn_shown = dealer_shown = top_shown = active_shown = named_shown = kind_shown = None
    missed_shown: list[int] = []
    flags_shown = (False, False)  # clockwise, any card
    alive_shown: list[bool] = []
    stack_shown = 0

    def observe(kind: str | None) -> np.ndarray:
        nonlocal hand_shown, discard_shown, mine_shown, other_shown, turn_shown, dealer_shown, top_shown
        nonlocal active_shown, named_shown, kind_shown, missed_shown, flags_shown, alive_shown, stack_shown
        g = game
        hands = g.hands
        hand_shown = _show(mv, hand_at, hand_shown, hands[own] if own is not None else [])
        discard = g.discard
        discard_shown = _show(mv, discard_at, discard_shown, discard)
        if dummies:  # one hand is shown as it is, several are joined
            mine_shown = _show(mv, mine_at, mine_shown,
                               hands[mine[0]] if len(mine) == 1 else [c for h in mine for c in hands[h]])
            other_shown = _show(mv, other_at, other_shown,
                                hands[others[0]] if len(others) == 1 else [c for h in others for c in hands[h]])

        slot = turn_slot[g.turn]
        if slot != turn_shown:
            turn_shown = _move(mv, turn_shown, slot)
        slot = dealer_slot[g.dealer]
        if slot != dealer_shown:
            dealer_shown = _move(mv, dealer_shown, slot)
        slot = top_at + discard[-1] if discard else None
        if slot != top_shown:
            top_shown = _move(mv, top_shown, slot)
        pending = g.pending
        slot = active_slot[pending.player] if pending is not None else None
        if slot != active_shown:
            active_shown = _move(mv, active_shown, slot)
        slot = suit_slot[g.named_suit] if g.named_suit is not None else None
        if slot != named_shown:
            named_shown = _move(mv, named_shown, slot)
        slot = kind_slot.get(kind, other_kind) if kind is not None else None
        if slot != kind_shown:
            kind_shown = _move(mv, kind_shown, slot)
        if missed_shown or any(g.missed):
            missed = sorted({missed_slot[controller[h]] for h, m in enumerate(g.missed) if m})
            missed_shown = _show(mv, 0, missed_shown, missed)
        flags = (g.direction == 1, g.wild)
        if flags != flags_shown:
            mv[clockwise_at], mv[any_card_at] = float(flags[0]), float(flags[1])
            flags_shown = flags

        if g.alive != alive_shown:
            for slot, a in zip(alive_slot, g.alive):
                mv[slot] = 1.0 if a else 0.0
            alive_shown = g.alive[:]
        if g.stack != stack_shown:
            stack_shown = g.stack
            mv[stack_at] = min(stack_shown / cards, 1.0)
        if one_each:
            for slot, h in size_of_hand:
                mv[slot] = count[len(hands[h])]
        else:
            sizes = [0] * players
            for h in concealed:
                sizes[controller[h]] += len(hands[h])
            for slot, n in zip(size_slot, sizes):
                mv[slot] = count[n]
        mv[draw_at] = count[len(g.draw_pile)]
        mv[discard_size_at] = count[len(discard)]
        return obs.copy()

    return observe


@lru_cache(maxsize=256)
def _crazier_plan(encoding: Encoding, seat: int, team: tuple) -> tuple:
    """The constants of a Crazier Eights seat's observer (for every game with these teams: worked out once)."""
    slots = _slots(encoding)[seat]
    at, by_seat = slots.start, slots.seat
    return (
        [by_seat["team_mate"][s] for s in range(encoding.players) if s != seat and team[s] == team[seat]],
        at["hand"], at["discard_pile"], at["top"], at["limbo"], at["known_draw_pile"], at["looking_at"],
        slots.in_play, by_seat["active"], by_seat["alive"], by_seat["hand_size"],
        by_seat["being_looked_at"], by_seat["skips"], by_seat["extra_turns"],
        at["played_this_turn"], at["discards_made"], at["discards_allowed"],
        at["turn_number"], at["draw_pile"], at["discard_size"],
        slots.kind, slots.other_kind, slots.named, slots.phase, _fractions(encoding.cards), _fractions(SMALL_CAP),
    )


def _crazier_seat(encoding: Encoding, game: Any, seat: int) -> SeatObserver:
    """A seat of Crazier Eights (engine/crazier/). Three items of its view come from the engine's
    own helpers, as the view takes them: the named colour, the discards allowed this turn (cards
    in play change it) and the hand the seat is looking at (Trade, Queen Guinevere)."""
    obs = np.zeros(encoding.size, np.float32)
    mv: Any = obs.data  # a memoryview: a single write through it costs half of numpy's
    players = encoding.players
    (
        mates,
        hand_at, discard_at, top_at, limbo_at, known_at, looking_at,
        in_play_at, active_slot, alive_slot, size_slot,
        looked_slot, skips_slot, extra_slot,
        played_at, made_at, allowed_at,
        turn_number_at, draw_at, discard_size_at,
        kind_slot, other_kind, named_slot, phase_slot, count, small,
    ) = _crazier_plan(encoding, seat, tuple(game.team))
    for slot in mates:  # team mates never change
        mv[slot] = 1.0
    hand_shown: list[int] = []
    discard_shown: list[int] = []
    limbo_shown: list[int] = []
    known_shown: list[int] = []
    look_shown: list[int] = []
    in_play_shown: list[list[int]] = [[] for _ in range(players)]
    # the slot of each one-hot 1 now (None: none)
    active_shown = top_shown = looked_shown = phase_shown = named_shown = kind_shown = None
    alive_shown: list[bool] = []
    skips_shown: list[int] = []
    extra_shown: list[int] = []
    turn_number_shown = -1
    # what the discards allowed were worked out from: the engine's discard_allowance reads the
    # cards in play, who is alive, whose turn it is and its bonus discards (and the teams and
    # the cards' effects, which never change), so it is asked again only when one of them changed
    allowance_of: tuple[int, int] | None = None

    def observe(kind: str | None) -> np.ndarray:
        nonlocal hand_shown, discard_shown, limbo_shown, known_shown, look_shown
        nonlocal active_shown, top_shown, looked_shown, phase_shown, named_shown, kind_shown
        nonlocal alive_shown, skips_shown, extra_shown, turn_number_shown, allowance_of
        g = game
        hands = g.hands
        hand_shown = _show(mv, hand_at, hand_shown, hands[seat])
        discard = g.discard
        discard_shown = _show(mv, discard_at, discard_shown, discard)
        if limbo_shown or g.limbo:
            limbo_shown = _show(mv, limbo_at, limbo_shown, g.limbo)
        known = g.known[seat]
        if known or known_shown:
            pile = set(g.draw_pile) if len(known) > 1 else g.draw_pile
            known_shown = _show(mv, known_at, known_shown, [c for c in known if c in pile])
        look = g.current_look(seat)
        if look or look_shown:
            look_shown = _show(mv, looking_at, look_shown, look["cards"] if look else [])
        for s, cards in enumerate(g.in_play):
            if cards != in_play_shown[s]:
                in_play_shown[s] = _show(mv, in_play_at[s], in_play_shown[s], cards)
                allowance_of = None

        slot = active_slot[g.turn]
        if slot != active_shown:
            active_shown = _move(mv, active_shown, slot)
        slot = top_at + discard[-1] if discard else None
        if slot != top_shown:
            top_shown = _move(mv, top_shown, slot)
        slot = looked_slot[look["hand_of"]] if look else None
        if slot != looked_shown:
            looked_shown = _move(mv, looked_shown, slot)
        slot = phase_slot.get(g.phase)
        if slot != phase_shown:
            phase_shown = _move(mv, phase_shown, slot)
        slot = named_slot.get(g.named_colour())
        if slot != named_shown:
            named_shown = _move(mv, named_shown, slot)
        slot = kind_slot.get(kind, other_kind) if kind is not None else None
        if slot != kind_shown:
            kind_shown = _move(mv, kind_shown, slot)

        if g.alive != alive_shown:
            for slot, a in zip(alive_slot, g.alive):
                mv[slot] = 1.0 if a else 0.0
            alive_shown = g.alive[:]
            allowance_of = None
        if g.skips != skips_shown or g.extra != extra_shown:
            for slot, n in zip(skips_slot, g.skips):
                mv[slot] = small[n] if 0 <= n <= SMALL_CAP else min(n / SMALL_CAP, 1.0)
            for slot, n in zip(extra_slot, g.extra):
                mv[slot] = small[n] if 0 <= n <= SMALL_CAP else min(n / SMALL_CAP, 1.0)
            skips_shown, extra_shown = g.skips[:], g.extra[:]
        for slot, hand in zip(size_slot, hands):
            mv[slot] = count[len(hand)]
        n = g.discards_made
        mv[made_at] = small[n] if 0 <= n <= SMALL_CAP else min(n / SMALL_CAP, 1.0)
        if allowance_of != (g.turn, g.bonus_discards):
            allowance_of = (g.turn, g.bonus_discards)
            n = g.discard_allowance(g.turn)
            mv[allowed_at] = small[n] if 0 <= n <= SMALL_CAP else min(n / SMALL_CAP, 1.0)
        mv[played_at] = 1.0 if g.played else 0.0
        if g.turn_number != turn_number_shown:
            turn_number_shown = g.turn_number
            mv[turn_number_at] = min(turn_number_shown / TURN_CAP, 1.0)
        mv[draw_at] = count[len(g.draw_pile)]
        mv[discard_size_at] = count[len(discard)]
        return obs.copy()

    return observe


def observer_for(encoding: Encoding, game: Any) -> Observer:
    """The :class:`Observer` of ``game`` (its rule set's kind)."""
    return Observer(encoding, game)
