"""Balanced seating at tables of three or more: who sits directly after whom, and in which seat.

At a table of k >= 3 the clockwise order matters (sitting directly after a strong player costs a
weak one about 0.14 of a place at tables of four), so every format that seats more than two
chooses the order of its tables here. Formats keep choosing *who* meets; this module chooses
only the *order*. Two counts describe a schedule:

- ``c(A, B)``: the games in which B sat directly after A (B's seat is A's plus one, round the
  table);
- ``s(A, j)``: the games in which A sat in seat j.

Its **direction imbalance** is ``I = Σ over unordered pairs |c(A,B) - c(B,A)| / Σ c`` (0: every
pair sat both ways equally often; 1: always the same way), reported with the largest
``|c(A,B) - c(B,A)|`` and the **seat spread** (over entrants, the most games in one seat less
the fewest in another). A pair that met once cannot be balanced, and with k odd and an odd number
of games at a table exact balance is impossible, so 0 is not always reachable.

How orders are chosen (docs/formats.md, "Seating", cites where each idea comes from):

- :func:`seat_table`: one table given what was played before (a :class:`Ledger`): among the
  (k-1)! cyclic orders (sampled for k > 6), the one that adds least to ``Σ|c - c'|``, then least
  to ``Σ c²`` (spread the neighbours), then a seeded lot; then the rotation that evens seats.
- :func:`plan`: a schedule known in full (a round robin): :func:`seat_table` for every table,
  then a seeded annealing over single tables' orders on ``10·Σ|c - c'| + Σ s²``, as VTES
  seating tools do for predator-prey relations.
- :func:`williams_sequence`: orders of one table over its games (a league, duplicate sets):
  Williams' carry-over designs, read as cyclic orders; every even prefix is balanced.
- :func:`duplicate_orders`: the cyclic order of each duplicate set, balanced for any number of
  sets.
- :func:`balance`: the report of a list of seatings.

Everything here is pure and deterministic from the ``random.Random`` passed in (formats seed it
from the event seed), so a resumed event seats its tables exactly as an uninterrupted one.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

#: tables up to this size try every cyclic order; larger ones (7: 720, 8: 5040) a sample
ENUMERATE_UP_TO = 6
#: orders tried per table when they are sampled
SAMPLED_ORDERS = 300
#: weight of one unit of direction imbalance against one unit of Σ c² in :func:`plan`
DIRECTION_WEIGHT = 10
#: annealing runs :func:`plan` makes at most, while none has balanced the schedule
ATTEMPTS = 4


@dataclass
class Ledger:
    """The running counts of a schedule: ``follows[(a, b)]`` games in which ``b`` sat directly
    after ``a``, ``seats[(a, j)]`` games in which ``a`` sat in seat ``j`` (tables of three or
    more only: at a table of two each follows the other)."""

    follows: Counter = field(default_factory=Counter)
    seats: Counter = field(default_factory=Counter)

    def add(self, seating: Sequence[Hashable], times: int = 1) -> None:
        """Count one game (``times`` games, or -1 to take one back) seated as ``seating``."""
        k = len(seating)
        if k < 3:
            return
        for j, a in enumerate(seating):
            self.follows[(a, seating[(j + 1) % k])] += times
            self.seats[(a, j)] += times

    @classmethod
    def of(cls, seatings: Iterable[Sequence[Hashable]]) -> Ledger:
        ledger = cls()
        for s in seatings:
            ledger.add(s)
        return ledger


def _pairs(order: Sequence) -> list[tuple]:
    k = len(order)
    return [(order[j], order[(j + 1) % k]) for j in range(k)]


def _candidates(table: Sequence, rng: random.Random) -> list[tuple]:
    """Cyclic orders of ``table`` (its first entrant first): all of them up to
    :data:`ENUMERATE_UP_TO` seats, else the given order and a seeded sample."""
    first, rest = table[0], list(table[1:])
    if len(table) <= ENUMERATE_UP_TO:
        return [(first, *p) for p in itertools.permutations(rest)]
    out = [tuple(table)]
    for _ in range(SAMPLED_ORDERS - 1):
        rng.shuffle(rest)
        out.append((first, *rest))
    return out


def _direction_cost(order: Sequence, follows: Counter) -> tuple[int, int]:
    """What seating ``order`` adds to ``Σ|c - c'|`` and to ``Σ c²``."""
    imbalance = spread = 0
    for a, b in _pairs(order):
        imbalance += 1 if follows[(a, b)] >= follows[(b, a)] else -1
        spread += 2 * follows[(a, b)] + 1
    return imbalance, spread


def best_rotation(order: Sequence, seats: Counter, rng: random.Random) -> list:
    """``order`` rotated so its entrants land in the seats they have held least (least added
    ``Σ s²``; a seeded lot between equals)."""
    k = len(order)
    scored = [(sum(seats[(order[(j + r) % k], j)] for j in range(k)), rng.random(), r) for r in range(k)]
    r = min(scored)[2]
    return [order[(j + r) % k] for j in range(k)]


def seat_table(table: Sequence, ledger: Ledger, rng: random.Random) -> list:
    """The seating of one table (entrants in seat order) given the games counted in ``ledger``:
    the cyclic order that adds least direction imbalance, then least ``Σ c²``, then a seeded
    lot; rotated by :func:`best_rotation`. Tables of one or two come back as given."""
    if len(table) < 3:
        return list(table)
    scored = [(*_direction_cost(o, ledger.follows), rng.random(), o) for o in _candidates(table, rng)]
    return best_rotation(min(scored)[3], ledger.seats, rng)


def seat_tables(tables: Iterable[Sequence], ledger: Ledger, rng: random.Random) -> list[list]:
    """:func:`seat_table` for each table in turn, counting each in ``ledger`` as it is seated."""
    out = []
    for t in tables:
        seated = seat_table(t, ledger, rng)
        ledger.add(seated)
        out.append(seated)
    return out


def _direction(follows: Counter, pairs: Iterable[tuple]) -> int:
    """``DIRECTION_WEIGHT·Σ|c - c'| + Σ (c² + c'²)`` over the unordered ``pairs``."""
    return sum(DIRECTION_WEIGHT * abs(follows[(a, b)] - follows[(b, a)]) + follows[(a, b)] ** 2
               + follows[(b, a)] ** 2 for a, b in pairs)


def _unordered(order: Sequence) -> set[tuple]:
    return {(a, b) if a <= b else (b, a) for a, b in _pairs(order)}


def _rotate_all(seated: list[list], rng: random.Random, sweeps: int = 200) -> None:
    """Re-choose every table's rotation (which changes seats, never who follows whom) to lower
    ``Σ s²``: a seeded annealing over single tables' rotations, then rotations changed one table
    at a time while that helps. Tables keep their rotation when nothing is gained."""
    seats: Counter = Counter()
    big = [i for i, t in enumerate(seated) if len(t) >= 3]
    for i in big:
        seats.update((a, j) for j, a in enumerate(seated[i]))

    def added(t: list, r: int) -> int:  # what seating t rotated by r adds to Σ s²
        k = len(t)
        return sum(2 * seats[(t[(j + r) % k], j)] + 1 for j in range(k))

    def rotate(i: int, r: int) -> None:
        t = seated[i]
        seats.subtract((a, j) for j, a in enumerate(t))
        seated[i] = t = [t[(j + r) % len(t)] for j in range(len(t))]
        seats.update((a, j) for j, a in enumerate(t))

    steps = min(sweeps * len(big), 40_000)
    for step in range(steps):
        temperature = 3.0 * (1 - step / steps) + 0.05
        i = big[rng.randrange(len(big))]
        t = seated[i]
        r = rng.randrange(1, len(t))
        seats.subtract((a, j) for j, a in enumerate(t))
        delta = added(t, r) - added(t, 0)
        seats.update((a, j) for j, a in enumerate(t))
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            rotate(i, r)
    improved = True
    while improved:
        improved = False
        for i in big:
            t = seated[i]
            seats.subtract((a, j) for j, a in enumerate(t))
            cost = [added(t, r) for r in range(len(t))]
            seats.update((a, j) for j, a in enumerate(t))
            r = min(range(len(t)), key=lambda r: (cost[r], r != 0))
            if r:
                rotate(i, r)
                improved = True


def plan(tables: Sequence[Sequence], rng: random.Random, sweeps: int = 1000) -> list[list]:
    """Seatings of a schedule known in full, in the given order of tables: greedy
    (:func:`seat_tables`); then a seeded annealing of the cyclic orders alone (a move re-orders
    one table: two entrants swapped, or the order reversed) on ``10·Σ|c - c'| + Σ c²``,
    ``sweeps`` proposals per table (at most 10,000 a run; it stops once balanced; up to
    :data:`ATTEMPTS` runs while none balances), as VTES seating tools anneal predator-prey
    relations; last, every table's rotation chosen again to even the
    seats (:func:`_rotate_all`)."""
    ledger = Ledger()
    seated = seat_tables(tables, ledger, rng)
    big = [i for i, t in enumerate(seated) if len(t) >= 3]
    if not big:
        return seated
    steps = min(sweeps * len(big), 40_000 // ATTEMPTS)
    best: tuple[int, list[list]] | None = None
    for _ in range(ATTEMPTS):  # a fresh run from the greedy seating while one falls short
        found = _anneal([list(t) for t in seated], big, Ledger.of(seated).follows, rng, steps)
        if best is None or found[0] < best[0]:
            best = found
        if best[0] == 0:
            break
    assert best is not None
    seated = best[1]
    _rotate_all(seated, rng)
    return seated


def _anneal(seated: list[list], big: list[int], follows: Counter, rng: random.Random,
            steps: int) -> tuple[int, list[list]]:
    """One annealing run of :func:`plan` over the tables ``big``: the best ``Σ|c - c'|`` seen
    and its seatings."""
    best: tuple[int, list[list]] | None = None
    for step in range(steps):
        temperature = 8.0 * (1 - step / steps) + 0.05
        i = big[rng.randrange(len(big))]
        old = seated[i]
        new = list(old)
        if rng.random() < 0.25:
            new = [new[0], *new[:0:-1]]
        else:
            a, b = rng.sample(range(len(new)), 2)
            new[a], new[b] = new[b], new[a]
        pairs = _unordered(old) | _unordered(new)
        before = _direction(follows, pairs)
        follows.subtract(_pairs(old))
        follows.update(_pairs(new))
        delta = _direction(follows, pairs) - before
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            seated[i] = new
        else:
            follows.subtract(_pairs(new))
            follows.update(_pairs(old))
        if step % 64 == 0 or step == steps - 1:
            score = sum(abs(follows[(a, b)] - follows[(b, a)])
                        for a, b in {(a, b) if a <= b else (b, a) for a, b in follows})
            if best is None or score < best[0]:
                best = (score, [list(t) for t in seated])
            if score == 0:
                break  # balanced: spreading neighbours further is not worth the wait
    assert best is not None
    return best


# -- one table over many games --------------------------------------------------------------


def williams_rows(k: int) -> list[list[int]]:
    """The rows of a Williams design for ``k`` treatments (two squares when ``k`` is odd): row i
    is ``0, 1, k-1, 2, k-2, ...`` plus i (mod k); for odd k the reversed rows follow."""
    first, lo, hi = [0], 1, k - 1
    while len(first) < k:
        first.append(lo)
        lo += 1
        if len(first) < k:
            first.append(hi)
            hi -= 1
    rows = [[(x + i) % k for x in first] for i in range(k)]
    if k % 2:
        rows += [r[::-1] for r in rows]
    return rows


@cache
def williams_sequence(k: int) -> tuple[tuple[int, ...], ...]:
    """Seatings of slots ``0..k-1`` for successive games at one table, each game's seat-to-slot
    list: the rows of a Williams design, each followed by its mirror (row i + k/2 for even k,
    the reversed row for odd k), relabelled so the first game seats slot j in seat j. Read as
    cyclic orders, every slot follows every other equally often over the whole sequence and
    both ways over every even prefix; every slot holds every seat once (twice for odd k)."""
    rows = williams_rows(k)
    if k % 2 == 0:
        ordered = [r for i in range(k // 2) for r in (rows[i], rows[i + k // 2])]
    else:
        ordered = [r for i in range(k) for r in (rows[i], rows[i + k])]
    relabel = {v: j for j, v in enumerate(ordered[0])}
    return tuple(tuple(relabel[v] for v in r) for r in ordered)


def _reverse_cyclic(order: Sequence[int]) -> tuple[int, ...]:
    return (order[0], *order[:0:-1])


def _canonical(order: Sequence[int]) -> tuple[int, ...]:
    """A cyclic order as stored for duplicate sets: starting with slot 0, except the reverse of
    the identity, which reads ``k-1, ..., 0`` (the seating duplicate sets always used)."""
    k = len(order)
    r = list(order).index(0)
    out = tuple(order[r:]) + tuple(order[:r])
    return tuple(range(k - 1, -1, -1)) if out == _reverse_cyclic(tuple(range(k))) else out


def _imbalance_of(orders: Iterable[Sequence[int]]) -> tuple[int, int]:
    c: Counter = Counter()
    for o in orders:
        c.update(_pairs(o))
    return (sum(abs(c[(a, b)] - c[(b, a)]) for a, b in {tuple(sorted(p)) for p in c}),
            sum(v * v for v in c.values()))


@cache
def _best_triple(k: int) -> tuple[tuple[int, ...], ...]:
    """Three cyclic orders of ``k`` slots, the first the identity, with the least ``Σ|c - c'|``
    (then ``Σ c²``): exhaustive up to six slots, a seeded local search beyond."""
    ident = tuple(range(k))
    others = [(0, *p) for p in itertools.permutations(range(1, k))]
    if k <= ENUMERATE_UP_TO:  # ties go to the triple whose first two sets balance each other
        best = min((_imbalance_of((ident, a, b))[0], _imbalance_of((ident, a))[0],
                    _imbalance_of((ident, a, b))[1], a, b) for a, b in itertools.product(others, repeat=2))
        return ident, best[3], best[4]
    rng = random.Random(f"duplicate-triple/{k}")
    trio = [ident, _reverse_cyclic(ident), rng.choice(others)]
    score = _imbalance_of(trio)
    for _ in range(4000):
        i = rng.choice((1, 2))
        trial = list(trio)
        trial[i] = rng.choice(others)
        s = _imbalance_of(trial)
        if s <= score:
            trio, score = trial, s
    return tuple(trio)


def duplicate_orders(k: int, sets: int) -> list[tuple[int, ...]]:
    """The cyclic order of slots for each of ``sets`` duplicate sets at a table of ``k`` (a set
    plays every rotation of its order). An even count takes Williams rows in mirrored pairs
    (exact balance; every neighbour equally often when it is a multiple of k, or 2k for odd k);
    an odd count ends with the least-imbalanced triple of orders (exhaustive search; for k = 5
    ``Σ|c - c'|`` 3 against rotate-and-reverse's 5, for k = 6 exactly 0), or is the one order
    when it is 1. Sets 0 and 1 of an even count are the identity and its reverse."""
    if k < 3:  # two seats: every order is its own reverse; alternate the seat of slot 0
        return [tuple(range(k)) if t % 2 == 0 else tuple(range(k))[::-1] for t in range(max(sets, 2))]
    if sets < 1:
        return [tuple(range(k))]
    seq = williams_sequence(k)
    paired = sets if sets % 2 == 0 or sets == 1 else sets - 3
    out = [_canonical(seq[i % len(seq)]) for i in range(paired)]
    if sets % 2 and sets > 1:
        out += [_canonical(o) for o in _best_triple(k)]
    return out


# -- the report -----------------------------------------------------------------------------


def balance(seatings: Iterable[Sequence[Hashable]]) -> dict:
    """The seat balance of a list of games, each given as its entrants in seat order (games of
    fewer than three seats are not counted): :func:`balance_of` their :class:`Ledger`."""
    ledger = Ledger()
    games = 0
    widest: dict[Hashable, int] = {}
    for s in seatings:
        if len(s) < 3:
            continue
        games += 1
        ledger.add(s)
        for a in s:
            widest[a] = max(widest.get(a, 0), len(s))
    return balance_of(ledger, games, widest)


def balance_of(ledger: Ledger, games: int, widest: dict[Hashable, int]) -> dict:
    """The seat balance of ``games`` games at tables of three or more counted in ``ledger``
    (``widest``: each entrant's largest table): ``{"games", "imbalance", "max_difference",
    "one_way_pairs", "seat_spread"}``. ``imbalance`` is ``Σ|c(A,B) - c(B,A)| / Σ c`` (None
    without a game of three or more), ``max_difference`` the largest ``|c(A,B) - c(B,A)|``,
    ``one_way_pairs`` the pairs that sat next to each other in one direction only, and
    ``seat_spread`` the largest difference between an entrant's most and least held seat
    (seats of its tables' sizes)."""
    f = ledger.follows
    pairs = {tuple(sorted(p, key=str)) for p in f if f[p]}
    diffs = [abs(f[(a, b)] - f[(b, a)]) for a, b in pairs]
    total = sum(f.values())
    spread = max((max(ledger.seats[(a, j)] for j in range(w)) - min(ledger.seats[(a, j)] for j in range(w))
                  for a, w in widest.items()), default=0)
    return {
        "games": games,
        "imbalance": round(sum(diffs) / total, 4) if total else None,
        "max_difference": max(diffs, default=0),
        "one_way_pairs": sum(1 for (a, b) in pairs if not (f[(a, b)] and f[(b, a)])),
        "seat_spread": spread,
    }
