"""Planning a club night: the players present split into tables, each table seated in playing order.

Pure functions over plain data; :meth:`tourney.club.league.League.plan_night` stores the plan,
and :func:`still_open` and :func:`describe` read it back.
The rules (docs/standings.md, "Club nights"):

* table sizes are as equal as possible, larger tables first: 9 players at 2 tables sit 5 and 4;
* ``standings`` puts the best-ranked players together at table 1, the next at table 2, and so on;
  ``draw`` shuffles the players with ``random.Random("club-night:{seed}:{round}")``, so the same
  league draws the same tables for the same round;
* at each table the player with the most points goes first (a tie settled with
  ``random.Random("club:{seed}:{round}:{table}")`` among the tied players in roster order); the
  others follow in order of points, most first, roster order between equals.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from tourney.club import ClubError
from tourney.club.ledger import Game

#: how the players present are split into tables; the first is the default
SPLITS = ("standings", "draw")
#: the largest table when neither a number of tables nor a size is given
DEFAULT_SIZE = 4


@dataclass(frozen=True)
class Player:
    """A member present tonight, with what the plan needs to know."""

    member_id: int
    name: str
    roster: int
    points: int
    rank: int


def table_sizes(players: int, tables: int | None = None, size: int | None = None) -> list[int]:
    """How many sit at each table: ``tables`` tables, or as few tables as hold at most ``size`` each.

    >>> table_sizes(9, tables=2), table_sizes(9, size=4), table_sizes(8)
    ([5, 4], [3, 3, 3], [4, 4])
    """
    if tables is not None and size is not None:
        raise ClubError("give --tables or --size, not both")
    if size is not None and size < 2:
        raise ClubError("a table needs at least two players (--size 2 or more)")
    if tables is None:
        tables = -(-players // (size or DEFAULT_SIZE))
    if tables < 1:
        raise ClubError("a night needs at least one table")
    if players < 2 * tables:
        raise ClubError(f"{players} players present cannot fill {tables} tables of at least two")
    base, extra = divmod(players, tables)
    return [base + 1 if t < extra else base for t in range(tables)]


def split(players: list[Player], sizes: list[int], how: str, seed: int, round_no: int) -> list[list[Player]]:
    """The players of each table, before seating (see the module's rules)."""
    if how == "standings":
        order = sorted(players, key=lambda p: (p.rank, p.roster))
    elif how == "draw":
        order = sorted(players, key=lambda p: p.roster)
        random.Random(f"club-night:{seed}:{round_no}").shuffle(order)
    else:
        raise ClubError(f"unknown split {how!r}; choose one of {', '.join(SPLITS)}")
    out, start = [], 0
    for n in sizes:
        out.append(order[start:start + n])
        start += n
    return out


def seat(table: list[Player], seed: int, round_no: int, table_no: int) -> tuple[list[Player], list[str]]:
    """The table in playing order (first player first) and, when the first place was a tie, the
    names of the tied players."""
    most = max(p.points for p in table)
    tied = sorted((p for p in table if p.points == most), key=lambda p: p.roster)
    first = tied[0] if len(tied) == 1 else random.Random(f"club:{seed}:{round_no}:{table_no}").choice(tied)
    rest = sorted((p for p in table if p is not first), key=lambda p: (-p.points, p.roster))
    return [first, *rest], ([p.name for p in tied] if len(tied) > 1 else [])


def plan(players: list[Player], *, seed: int, round_no: int, how: str = "standings",
         tables: int | None = None, size: int | None = None) -> list[dict]:
    """The night's tables: ``[{"table", "seats": [member ids in playing order], "tied"}]``.

    >>> rows = [("A", 9, 4), ("B", 2, 1), ("C", 5, 2), ("D", 7, 3)]   # name, points, rank
    >>> ps = [Player(i, n, i, pts, r) for i, (n, pts, r) in enumerate(rows, 1)]
    >>> [t["seats"] for t in plan(ps, seed=1, round_no=3, tables=2)]
    [[3, 2], [1, 4]]
    """
    if len({p.member_id for p in players}) != len(players):
        raise ClubError("a player is listed twice")
    sizes = table_sizes(len(players), tables, size)
    out = []
    for t, group in enumerate(split(players, sizes, how, seed, round_no), 1):
        seated, tied = seat(group, seed, round_no, t)
        out.append({"table": t, "seats": [p.member_id for p in seated], "tied": tied})
    return out


def still_open(row: dict | None, games: list[Game]) -> dict | None:
    """The stored plan ``row`` (a ``club_nights`` row) while some of its tables have no
    (non-void) game and nothing was entered after its round, else None:
    ``{"round", "after_game", "split", "tables", "absent", "open"}``."""
    if row is None or any(g.round > row["round"] for g in games):
        return None
    tables = json.loads(row["tables"])
    entered = {g.table for g in games if g.round == row["round"] and not g.void}
    still = [t["table"] for t in tables if t["table"] not in entered]
    if not still:
        return None
    return {"round": row["round"], "after_game": row["after_game"], "split": row["split"],
            "tables": tables, "absent": json.loads(row["absent"]), "open": still}


def describe(night: dict, names: dict[int, str], totals: dict[int, int]) -> dict:
    """A plan with names and points, for printing: ``{"round", "split", "tables": [{"table",
    "seats": [{"seat", "entrant", "points"}], "first", "tied"}], "absent", "open"}``."""
    return {"round": night["round"], "split": night["split"],
            "tables": [{"table": t["table"], "first": names[t["seats"][0]], "tied": t["tied"],
                        "seats": [{"seat": k, "entrant": names[i], "points": totals[i]}
                                  for k, i in enumerate(t["seats"], 1)]} for t in night["tables"]],
            "absent": [names[i] for i in night["absent"]],
            "open": night.get("open", [t["table"] for t in night["tables"]])}
