"""Every event's seat balance: who sat directly after whom, and in which seats, over its stored
games (docs/formats.md, "Seating"; :func:`tourney.seating.balance_of` sums it up).

The writer keeps the counts with each game of three seats or more, in the game's transaction
(``follow_tallies`` and ``seat_tallies``, migration ``m020_kept_series``), so that a page reads a
few rows per pair of entrants however many games the event has; :func:`recount` counts them
from the games again, and the tests compare the two.

Shown by ``tourney standings --json`` (``seat_balance``), under the report's standings and on the
event's page. Games of two seats are not counted (at a table of two each follows the other).
"""

from __future__ import annotations

import sqlite3
import textwrap
from collections import Counter
from collections.abc import Hashable, Sequence

from sqlite_utils import Database

from tourney import seating


def event_seatings(db: Database, event_id: int) -> list[list[int]]:
    """Each stored game of the event as its entrants' ids in seat order."""
    games: dict[int, list[int]] = {}
    for r in db.query("SELECT st.game_id, st.entrant_id FROM seats st JOIN games g ON g.id = st.game_id "
                      "WHERE g.event_id = ? ORDER BY st.game_id, st.seat", [event_id]):
        games.setdefault(r["game_id"], []).append(r["entrant_id"])
    return list(games.values())


def add(order: Sequence[Hashable], counts: tuple[Counter, Counter]) -> None:
    """Count one game, given as its entrants in seat order, into ``counts`` (follows: ``(a, b) ->
    games`` in which ``b`` sat directly after ``a``; seats: ``(a, seat) -> games``, with a 0 for
    each seat ``a`` did not hold at that table, so that its largest table is known). A game of
    fewer than three seats counts for nothing (at a table of two each follows the other)."""
    k = len(order)
    if k < 3:
        return
    follows, seats = counts
    for j, a in enumerate(order):
        follows[(a, order[(j + 1) % k])] += 1
        for seat in range(k):
            seats[(a, seat)] += int(seat == j)


def count(seatings: list[list[int]]) -> tuple[Counter, Counter]:
    """The counts of :func:`add` over many games."""
    counts: tuple[Counter, Counter] = (Counter(), Counter())
    for s in seatings:
        add(s, counts)
    return counts


def save(conn: sqlite3.Connection, event_id: int, counts: tuple[Counter, Counter]) -> None:
    """Add ``counts`` to the event's kept rows (inside the writer's transaction)."""
    follows, seats = counts
    conn.executemany("insert into follow_tallies (event_id, entrant_id, next_id, games) values (?, ?, ?, ?) "
                     "on conflict (event_id, entrant_id, next_id) do update set games = games + excluded.games",
                     [(event_id, a, b, n) for (a, b), n in follows.items()])
    conn.executemany("insert into seat_tallies (event_id, entrant_id, seat, games) values (?, ?, ?, ?) "
                     "on conflict (event_id, entrant_id, seat) do update set games = games + excluded.games",
                     [(event_id, a, seat, n) for (a, seat), n in seats.items()])


def delete(db: Database, event_id: int) -> None:
    for table in ("follow_tallies", "seat_tallies"):
        db.execute(f"delete from {table} where event_id = ?", [event_id])


def kept(db: Database, event_id: int) -> tuple[Counter, Counter]:
    """The event's kept counts, as :func:`count` gives them."""
    follows = Counter({(a, b): n for a, b, n in db.execute(
        "select entrant_id, next_id, games from follow_tallies where event_id = ?", [event_id])})
    seats = Counter({(a, seat): n for a, seat, n in db.execute(
        "select entrant_id, seat, games from seat_tallies where event_id = ?", [event_id])})
    return follows, seats


def recount(db: Database, event_id: int) -> tuple[Counter, Counter]:
    """The counts of every stored game of the event, read from the games (what the kept rows hold)."""
    return count(event_seatings(db, event_id))


def seat_balance(db: Database, event_id: int) -> dict:
    """The event's seat balance: ``{"games", "imbalance", "max_difference", "one_way_pairs",
    "seat_spread"}`` over its games at tables of three or more (:func:`tourney.seating.balance_of`;
    ``imbalance`` is None when it has none), read from the kept counts."""
    follows, seats = kept(db, event_id)
    widest: dict[Hashable, int] = {}
    for a, seat in seats:
        widest[a] = max(widest.get(a, 0), seat + 1)
    games = sum(n for (_, seat), n in seats.items() if seat == 0)  # one entrant holds seat 0 of each game
    return seating.balance_of(seating.Ledger(follows, seats), games, widest)


def report_lines(data: dict) -> list[str]:
    """The seat balance in a few lines that fit a terminal, for events with games at tables of three
    or more."""
    b = data.get("seat_balance")
    if not b or not b["games"]:
        return []
    return textwrap.wrap(
        f"Seat balance over {b['games']} games at tables of 3+ (0 is balanced): direction imbalance "
        f"{b['imbalance']:.3f}, largest one-way surplus {b['max_difference']}, pairs seated one way only "
        f"{b['one_way_pairs']}, seat spread {b['seat_spread']} (docs/formats.md, \"Seating\").", 79)
