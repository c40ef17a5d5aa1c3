"""Reading and writing the ``club_*`` tables: the only SQL of the club package.

:class:`ClubTables` knows the columns; it checks nothing (that is :class:`tourney.club.league.League`'s
job) and takes no locks (the league holds the write lock around each change). Rows come back as
plain dicts or :mod:`tourney.club.ledger` dataclasses.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from sqlite_utils import Database

from tourney.club.entries import Entry, Member
from tourney.club.ledger import Game


class ClubTables:
    """The ``club_*`` tables of one database (every method takes the league's id)."""

    def __init__(self, db: Database):
        self.db = db

    @contextmanager
    def rolled_back(self) -> Iterator[None]:
        """A savepoint undone on leaving: what is written inside is checked, never kept."""
        self.db.execute("SAVEPOINT club_check")
        try:
            yield
        finally:
            self.db.execute("ROLLBACK TO club_check")
            self.db.execute("RELEASE club_check")

    # ---- leagues

    def league_named(self, name: str) -> dict | None:
        rows = list(self.db.table("club_leagues").rows_where("name = ?", [name]))
        return rows[0] if rows else None

    def league(self, league_id: int) -> dict | None:
        rows = list(self.db.table("club_leagues").rows_where("id = ?", [league_id]))
        return rows[0] if rows else None

    def name_taken(self, name: str) -> bool:
        return bool(self.db.table("club_leagues").count_where("name = ?", [name]))

    def insert_league(self, row: dict, players: list[str]) -> int:
        lid = self.db.table("club_leagues").insert(row).last_pk
        self.db.table("club_members").insert_all([
            {"league_id": lid, "roster": i, "name": p, "start_points": 0, "joined_after": 0,
             "withdrawn_after": None} for i, p in enumerate(players, 1)])
        assert lid is not None
        return int(lid)

    def update_league(self, league_id: int, change: dict) -> None:
        self.db.table("club_leagues").update(league_id, change)

    def list_leagues(self) -> list[dict]:
        if not self.db.table("club_leagues").exists():
            return []
        return list(self.db.query(
            "SELECT l.name, l.rule_set, l.target, l.seed, l.created_at, l.created_by, "
            "(SELECT COUNT(*) FROM club_games g WHERE g.league_id = l.id) AS games "
            "FROM club_leagues l ORDER BY l.name"))

    # ---- members

    def members(self, league_id: int) -> list[Member]:
        return [Member(r["id"], r["roster"], r["name"], r["start_points"], r["joined_after"], r["withdrawn_after"])
                for r in self.db.table("club_members").rows_where("league_id = ?", [league_id], order_by="roster")]

    def insert_member(self, league_id: int, roster: int, name: str, start_points: int, joined_after: int) -> None:
        self.db.table("club_members").insert({"league_id": league_id, "roster": roster, "name": name,
                                              "start_points": start_points, "joined_after": joined_after,
                                              "withdrawn_after": None})

    def update_member(self, member_id: int, change: dict) -> None:
        self.db.table("club_members").update(member_id, change)

    # ---- games and their versions

    def games(self, league_id: int, names: dict[int, str]) -> list[Game]:
        """Every game entered, each with the entries of its newest version, in game order."""
        rows = self.db.query(
            "SELECT g.*, v.version, v.action FROM club_games g JOIN club_versions v "
            "ON v.league_id = g.league_id AND v.game_number = g.number AND v.version = "
            "(SELECT MAX(w.version) FROM club_versions w WHERE w.league_id = g.league_id AND w.game_number = g.number) "
            "WHERE g.league_id = ? ORDER BY g.number", [league_id])
        results: dict[int, list[dict]] = {}
        for r in self.db.query("SELECT * FROM club_results_current WHERE league_id = ? ORDER BY id", [league_id]):
            r["name"] = names[r["member_id"]]
            results.setdefault(r["game_number"], []).append(r)
        return [Game(g["number"], g["version"], results.get(g["number"], []), g["first_member_id"], g["first_how"],
                     g["round"], g["table_no"], g["action"] == "void") for g in rows]

    def played(self, league_id: int) -> int:
        return self.db.table("club_games").count_where("league_id = ?", [league_id])

    def next_round(self, league_id: int) -> int:
        rounds = [r["n"] for r in self.db.query(
            "SELECT MAX(round) AS n FROM club_games WHERE league_id = ? "
            "UNION ALL SELECT MAX(round) FROM club_nights WHERE league_id = ?", [league_id, league_id])]
        return max((n for n in rounds if n is not None), default=0) + 1

    def insert_game(self, league_id: int, number: int, first_id: int, how: str, round_no: int,
                    table: int | None) -> None:
        self.db.table("club_games").insert({"league_id": league_id, "number": number, "first_member_id": first_id,
                                            "first_how": how, "round": round_no, "table_no": table})

    def write_version(self, league_id: int, number: int, version: int, action: str, entries: list[Entry],
                      by: str, at: str, note: str | None) -> None:
        self.db.table("club_versions").insert({"league_id": league_id, "game_number": number, "version": version,
                                               "action": action, "by": by, "at": at, "note": note})
        self.db.table("club_results").insert_all([{
            "league_id": league_id, "game_number": number, "version": version, "member_id": e.member_id,
            "entry": e.entry, "cards": e.cards, "eliminated": int(e.eliminated), "points": e.points,
            "winner": int(e.winner)} for e in entries])

    def versions(self, league_id: int) -> dict[tuple[int, int], dict]:
        """(game number, version) -> its ``club_versions`` row (who, when, why)."""
        return {(r["game_number"], r["version"]): r
                for r in self.db.table("club_versions").rows_where("league_id = ?", [league_id])}

    def last_counted_result(self, league_id: int, number: int) -> list[dict]:
        """The result rows of game ``number``'s newest version that was not a void."""
        return list(self.db.query(
            "SELECT * FROM club_results WHERE league_id = ? AND game_number = ? AND version = "
            "(SELECT MAX(v.version) FROM club_versions v WHERE v.league_id = ? AND v.game_number = ? "
            "AND v.action != 'void') ORDER BY id", [league_id, number, league_id, number]))

    # ---- absences and nights

    def absences(self, league_id: int) -> dict[int, list[int]]:
        """round -> member ids recorded absent from it."""
        out: dict[int, list[int]] = {}
        for r in self.db.table("club_absences").rows_where("league_id = ?", [league_id], order_by="id"):
            out.setdefault(r["round"], []).append(r["member_id"])
        return out

    def insert_absences(self, league_id: int, round_no: int, member_ids: list[int]) -> None:
        self.db.table("club_absences").insert_all(
            [{"league_id": league_id, "round": round_no, "member_id": i} for i in member_ids])

    def latest_night(self, league_id: int) -> dict | None:
        rows = list(self.db.query("SELECT * FROM club_nights WHERE league_id = ? ORDER BY round DESC LIMIT 1",
                                  [league_id]))
        return rows[0] if rows else None

    def replace_night(self, league_id: int, round_no: int, row: dict, absent_ids: list[int]) -> None:
        """Store the plan of round ``round_no`` (and its absences), dropping an earlier plan of it."""
        self.db.execute("DELETE FROM club_nights WHERE league_id = ? AND round = ?", [league_id, round_no])
        self.db.execute("DELETE FROM club_absences WHERE league_id = ? AND round = ?", [league_id, round_no])
        self.db.table("club_nights").insert({"league_id": league_id, "round": round_no, **row})
        self.insert_absences(league_id, round_no, absent_ids)

    # ---- standings and history

    def standings(self, league_id: int) -> list[dict]:
        """The rows of the ``club_standings`` view for this league, best first."""
        rows = list(self.db.query(
            "SELECT rank, entrant, points, games, wins, average, absences, absent_points, missed, prorated, "
            "start_points, withdrawn, joined_after, withdrawn_after "
            "FROM club_standings WHERE league_id = ? ORDER BY rank, roster", [league_id]))
        for r in rows:
            r["withdrawn"] = bool(r["withdrawn"])
        return rows

    def log(self, league_id: int, action: str, by: str, at: str, detail: dict, game: int | None = None,
            source: str | None = None) -> None:
        row = {"league_id": league_id, "at": at, "by": by, "action": action, "game_number": game,
               "detail": json.dumps(detail)}
        if source is not None:
            row["source"] = source
        self.db.table("club_log").insert(row)

    def history(self, league_id: int) -> list[dict]:
        has_source = "source" in self.db.table("club_log").columns_dict
        return [{"at": r["at"], "by": r["by"], "action": r["action"], "game": r["game_number"],
                 "source": (r.get("source") if has_source else None) or "cli",
                 "detail": json.loads(r["detail"]) if r["detail"] else {}}
                for r in self.db.table("club_log").rows_where("league_id = ?", [league_id], order_by="id")]

    # ---- league codes and web requests (m012_club_codes)

    def insert_code(self, row: dict) -> int:
        cid = self.db.table("club_codes").insert(row).last_pk
        assert cid is not None
        return int(cid)

    def codes(self, league_id: int) -> list[dict]:
        return list(self.db.table("club_codes").rows_where("league_id = ?", [league_id], order_by="id"))

    def codes_by_lookup(self, league_id: int, lookup: str | None) -> list[dict]:
        """The league's codes with public part ``lookup`` (None: the older codes, which have none)."""
        if lookup is None:
            return list(self.db.table("club_codes").rows_where("league_id = ? AND lookup IS NULL", [league_id],
                                                               order_by="id"))
        return list(self.db.table("club_codes").rows_where("league_id = ? AND lookup = ?", [league_id, lookup],
                                                           order_by="id"))

    def code(self, code_id: int) -> dict | None:
        rows = list(self.db.table("club_codes").rows_where("id = ?", [code_id]))
        return rows[0] if rows else None

    def any_live_code(self, now: str) -> bool:
        if not self.db.table("club_codes").exists():
            return False
        return bool(self.db.table("club_codes").count_where(
            "revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)", [now]))

    def update_code(self, code_id: int, change: dict) -> None:
        self.db.table("club_codes").update(code_id, change)

    def request(self, key: str) -> dict | None:
        """A web form already stored under idempotency key ``key``."""
        rows = list(self.db.table("club_requests").rows_where("key = ?", [key]))
        return rows[0] if rows else None

    def remember_request(self, key: str, league_id: int, code_id: int | None, at: str, action: str,
                         result: dict) -> None:
        self.db.table("club_requests").insert({"key": key, "league_id": league_id, "code_id": code_id, "at": at,
                                               "action": action, "result": json.dumps(result)})

    def insert_pending(self, row: dict) -> int:
        pid = self.db.table("club_pending").insert(row).last_pk
        assert pid is not None
        return int(pid)

    def pending(self, league_id: int) -> list[dict]:
        return list(self.db.table("club_pending").rows_where("league_id = ? AND status = 'waiting'", [league_id],
                                                             order_by="id"))

    def update_pending(self, pending_id: int, change: dict) -> None:
        self.db.table("club_pending").update(pending_id, change)
