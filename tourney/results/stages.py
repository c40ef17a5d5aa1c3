"""A ladder's games as its fit reads them, kept in the database (``ladder_stages``, migration
``m017_ladder_storage``), so that its page and ``tourney ladder standings`` read a few hundred
rows whatever the number of games.

The maximum-likelihood fit of a ladder (:mod:`tourney.stats.mle`) reads each game as a few
*stages*, who was chosen from which entrants with what weight, and only their sums by distinct
stage: those sums are all the fit needs. :func:`fold` adds the games stored since the last fold
to the kept sums (``ladders.stages_through`` is the last game folded, ``stages_games`` how many
games the sums hold) in one transaction, so the sums and their mark never disagree, whatever is
killed when. A reader takes the sums and the few games after the mark in one snapshot
(:func:`read`); the ladder's runner folds after each batch.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

#: one stage: the chosen entrant's id, the ids of those it was chosen from (sorted), its weight
Stage = tuple[int, tuple[int, ...], float]


def games_after(conn: sqlite3.Connection, event_id: int, after_game: int) -> list[tuple[int, list[tuple[int, float]]]]:
    """The event's games with id above ``after_game``, in game order, as ``(game_id, [(entrant_id,
    placement), ...])`` (a game without placements is ranked by its points, fewer first)."""
    out: list[tuple[int, list[tuple[int, float]]]] = []
    current = None
    for game_id, entrant_id, placement, points in conn.execute(
            "select st.game_id, st.entrant_id, st.placement, st.points from seats st "
            "join games g on g.id = st.game_id where g.event_id = ? and g.id > ? order by g.id, st.seat",
            [event_id, after_game]):
        if game_id != current:
            out.append((game_id, []))
            current = game_id
        out[-1][1].append((entrant_id, placement if placement is not None else (points or 0)))
    return out


def _members(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(","))


def kept(conn: sqlite3.Connection, ladder_id: int) -> tuple[list[Stage], int, int]:
    """The kept sums: ``(stages, games, through)``: the stages with their summed weights, how
    many games they hold, and the id of the last of those games."""
    through, games = conn.execute("select stages_through, stages_games from ladders where id = ?",
                                  [ladder_id]).fetchone()
    rows = [(chosen, _members(members), weight) for members, chosen, weight in conn.execute(
        "select members, chosen, weight from ladder_stages where ladder_id = ?", [ladder_id])]
    return rows, games, through


def fold(conn: sqlite3.Connection, ladder_id: int) -> set[int]:
    """Add the ladder's games stored since the last fold to its kept sums, in one transaction
    (a savepoint inside a caller's); returns the entrants that played in them."""
    # commands that only open the database import the schema, and with it this module: they do without numpy
    from tourney.stats.mle import stages_of  # heavy: numpy

    conn.execute("savepoint fold_stages")
    try:
        event_id, through = conn.execute("select event_id, stages_through from ladders where id = ?",
                                         [ladder_id]).fetchone()
        new = games_after(conn, event_id, through)
        if new:
            sums: dict[tuple[str, int], float] = defaultdict(float)
            for _, seats in new:
                for chosen, group, weight in stages_of(seats):
                    sums[(",".join(map(str, group)), chosen)] += weight
            conn.executemany(
                "insert into ladder_stages (ladder_id, members, chosen, weight) values (?, ?, ?, ?) "
                "on conflict (ladder_id, members, chosen) do update set weight = weight + excluded.weight",
                [(ladder_id, members, chosen, weight) for (members, chosen), weight in sums.items()])
            conn.execute("update ladders set stages_through = ?, stages_games = stages_games + ? where id = ?",
                         [new[-1][0], len(new), ladder_id])
    except BaseException:
        conn.execute("rollback to fold_stages")
        conn.execute("release fold_stages")
        raise
    conn.execute("release fold_stages")
    return {entrant for _, seats in new for entrant, _ in seats}


def recount(conn: sqlite3.Connection, ladder_id: int) -> None:
    """Drop the kept sums and fold every game again (``tourney compact``; a check that they hold)."""
    conn.execute("savepoint recount_stages")
    try:
        conn.execute("delete from ladder_stages where ladder_id = ?", [ladder_id])
        conn.execute("update ladders set stages_through = 0, stages_games = 0 where id = ?", [ladder_id])
        fold(conn, ladder_id)
    except BaseException:
        conn.execute("rollback to recount_stages")
        conn.execute("release recount_stages")
        raise
    conn.execute("release recount_stages")
