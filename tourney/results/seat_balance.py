"""Every event's seat balance: who sat directly after whom, and in which seats, over its stored
games (:func:`tourney.seating.balance` does the counting; docs/formats.md, "Seating").

Shown by ``tourney standings --json`` (``seat_balance``), under the report's standings and on the
event's page. Games of two seats are not counted (at a table of two each follows the other).
"""

from __future__ import annotations

import textwrap

from sqlite_utils import Database

from tourney import seating


def event_seatings(db: Database, event_id: int) -> list[list[int]]:
    """Each stored game of the event as its entrants' ids in seat order."""
    games: dict[int, list[int]] = {}
    for r in db.query("SELECT st.game_id, st.entrant_id FROM seats st JOIN games g ON g.id = st.game_id "
                      "WHERE g.event_id = ? ORDER BY st.game_id, st.seat", [event_id]):
        games.setdefault(r["game_id"], []).append(r["entrant_id"])
    return list(games.values())


def seat_balance(db: Database, event_id: int) -> dict:
    """The event's seat balance: ``{"games", "imbalance", "max_difference", "one_way_pairs",
    "seat_spread"}`` over its games at tables of three or more (:func:`tourney.seating.balance`;
    ``imbalance`` is None when it has none)."""
    return seating.balance(event_seatings(db, event_id))


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
