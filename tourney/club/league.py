"""The club league as a service: every change a secretary can make (games, corrections, voids,
club nights, roster changes, rules), each checked before anything is written.

Three parts, one job each: :mod:`tourney.club.ledger` does the arithmetic (totals, who goes first,
the end of the league, what a change does to later games) over plain data;
:mod:`tourney.club.tables` reads and writes the ``club_*`` tables; this module checks a change,
asks the ledger what it means and has the tables store it.

Every change reads and checks what it needs under the database's write lock
(:func:`tourney.results.store.write_lock`), so two secretaries typing at once never lose an entry
and never see a half-written one. Nothing is updated in place except names (a rename is logged):
a correction, a void or a restore is a new version of a game's result.
"""

from __future__ import annotations

import getpass
import json
import os
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from sqlite_utils import Database

from tourney.club import ClubError, roster
from tourney.club import night as _night
from tourney.club.entries import Entry, Member
from tourney.club.ledger import Game, Leader, Ledger
from tourney.club.scoring import check_rules, check_values
from tourney.club.tables import ClubTables
from tourney.results.store import write_lock

__all__ = ["ACTIONS", "Game", "Leader", "League", "Member", "default_author", "list_leagues", "now_utc"]

#: the closed set of actions of a league's history (``club_log.action``)
ACTIONS = ("create", "enter", "correct", "void", "restore", "withdraw", "join", "rename", "night", "set",
           "code", "revoke", "pending", "reject")


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def default_author() -> str:
    for var in ("TOURNEY_USER", "USER", "USERNAME"):
        if os.environ.get(var):
            return os.environ[var]
    try:
        return getpass.getuser()
    except Exception:  # pragma: no cover - no user database
        return "unknown"


class League:
    """A club league read from the database; write methods check everything first."""

    def __init__(self, db: Database, name: str, *, source: str | None = None):
        self.tables = ClubTables(db)
        row = self.tables.league_named(name)
        if row is None:
            raise ClubError(f"no club league named {name!r} (create it with: tourney club new NAME --players A,B,C)")
        self.db = db
        #: where this league's changes come from, kept in its history (None: the CLI)
        self.source = source
        self._load(row)

    def _load(self, row: dict) -> None:
        self.row = row
        self.id = self.row["id"]
        self.name = row["name"]
        self.rule_set = self.row["rule_set"]
        self.seed = self.row["seed"]
        self.target = self.row["target"]
        self.eliminated_score = self.row["eliminated_score"]
        self.absence = self.row["absence"]
        self.absence_points = self.row["absence_points"]
        self.withdrawal = self.row["withdrawal"]
        self.double_entry = bool(self.row.get("double_entry"))

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """The write lock, and the league re-read under it (another secretary may have just
        renamed or changed it). Inside a transaction the caller already holds (the web's
        once-only submissions, :mod:`tourney.web.club_entry`) the lock is the caller's."""
        if self.db.conn.in_transaction:
            self.reload()
            yield
            return
        with write_lock(self.db):
            self.reload()
            yield

    def writing(self):
        """The write lock with the league re-read under it, for changes made outside this class
        (league codes, :mod:`tourney.club.codes`)."""
        return self._writing()

    def log_change(self, action: str, by: str, detail: dict, game: int | None = None, at: str | None = None) -> None:
        """Add one line to the league's history (``action`` is one of :data:`ACTIONS`)."""
        if action not in ACTIONS:
            raise ValueError(f"unknown club action {action!r}")
        self._log(action, by, at or now_utc(), detail, game)

    def reload(self) -> None:
        row = self.tables.league(self.id)
        if row is None:
            raise ClubError(f"club league {self.name!r} no longer exists")
        self._load(row)

    def _log(self, action: str, by: str, at: str, detail: dict, game: int | None = None) -> None:
        self.tables.log(self.id, action, by, at, detail, game, self.source)

    def ledger(self) -> Ledger:
        """The league's rules, roster and absences as plain data, for the arithmetic."""
        return Ledger(self.seed, self.target, self.absence, self.absence_points, self.withdrawal,
                      tuple(self.members()), self.absences())

    # ---- creation

    @staticmethod
    def create(db: Database, name: str, players: list[str], *, rule_set: str = "crazier-eights",
               seed: int | None = None, target: int | None = None,
               eliminated_score: str = "snapshot", absence: str = "average", withdrawal: str = "penalty",
               by: str | None = None) -> League:
        name = name.strip()
        if not name:
            raise ClubError("a league needs a name")
        absence_rule, absence_points = check_rules(rule_set, eliminated_score, absence, withdrawal, target)
        players = roster.check_players(players)
        if seed is None:
            seed = random.SystemRandom().randrange(1, 2**31)
        by = by or default_author()
        at = now_utc()
        tables = ClubTables(db)
        with write_lock(db):
            # checked under the write lock: of two secretaries creating one name, the second is told
            if tables.name_taken(name):
                raise ClubError(f"a club league named {name!r} already exists")
            lid = tables.insert_league({
                "name": name, "rule_set": rule_set, "seed": seed, "target": target,
                "eliminated_score": eliminated_score, "created_at": at, "created_by": by,
                "absence": absence_rule, "absence_points": absence_points, "withdrawal": withdrawal,
            }, players)
            tables.log(lid, "create", by, at, {"players": players, "rule_set": rule_set, "seed": seed,
                                               "target": target, "eliminated_score": eliminated_score,
                                               "absence": absence, "withdrawal": withdrawal})
        return League(db, name)

    # ---- reading

    def members(self) -> list[Member]:
        return self.tables.members(self.id)

    def member(self, ref: str) -> Member:
        """A member by name, or by roster number written ``#2``."""
        ref = ref.strip()
        ms = self.members()
        for m in ms:
            if m.name == ref:
                return m
        if re.fullmatch(r"#[0-9]+", ref):
            for m in ms:
                if m.roster == int(ref[1:]):
                    return m
        raise ClubError(f"unknown player {ref!r} in league {self.name!r} (players: {', '.join(m.name for m in ms)})")

    def names(self) -> dict[int, str]:
        return {m.id: m.name for m in self.members()}

    def games(self) -> list[Game]:
        """Every game entered, each with the entries of its newest version, in game order."""
        return self.tables.games(self.id, self.names())

    def played(self) -> int:
        """Games entered so far (void ones too: a game keeps its number)."""
        return self.tables.played(self.id)

    def active_members(self, after: int | None = None) -> list[Member]:
        """Members who play the game after game ``after`` (default: the next game)."""
        n = self.played() if after is None else after
        return [m for m in self.members()
                if m.joined_after <= n and (m.withdrawn_after is None or m.withdrawn_after > n)]

    def absences(self) -> dict[int, list[int]]:
        """round -> member ids recorded absent from it."""
        return self.tables.absences(self.id)

    def charges(self, games: list[Game], upto: int) -> dict[int, int]:
        """member id -> points charged for rounds missed (:meth:`Ledger.charges`)."""
        return self.ledger().charges(games, upto)

    def totals(self, games: list[Game], upto: int) -> dict[int, int]:
        """member id -> total after game ``upto`` (:meth:`Ledger.totals`)."""
        return self.ledger().totals(games, upto)

    def leader(self, number: int, candidates: list[Member], games: list[Game]) -> Leader:
        """Who goes first in game ``number`` (:meth:`Ledger.leader`)."""
        return self.ledger().leader(number, candidates, games)

    def next_leader(self) -> Leader | None:
        if self.finished() is not None or self.open_night() is not None:
            return None
        games = self.games()
        active = self.active_members()
        if len(active) < 2:
            return None
        return self.leader(len(games) + 1, active, games)

    def finished(self, games: list[Game] | None = None) -> dict | None:
        """``{"after_game", "winners"}`` once a total reached the target (lowest total wins), else None."""
        return self.ledger().finished(self.games() if games is None else games)

    def standings(self) -> list[dict]:
        """The rows of the ``club_standings`` view for this league, best first."""
        return self.tables.standings(self.id)

    def history(self) -> list[dict]:
        """The league's changes, oldest first: ``{"at", "by", "action", "game", "source", "detail"}``
        (``source``: ``cli``, or ``web`` and the code that wrote it)."""
        return self.tables.history(self.id)

    def game_list(self) -> list[dict]:
        """Every game's current result (after corrections; void games marked), for ``club games``."""
        absences = self.absences()
        names = self.names()
        notes = self.tables.versions(self.id)
        out = []
        for g in self.games():
            v = notes[(g.number, g.version)]
            out.append({
                "game": g.number, "round": g.round, "table": g.table, "version": g.version, "void": g.void,
                "first": names.get(g.first_member_id) if g.first_member_id else None,
                "results": [{"entrant": r["name"], "entry": r["entry"], "points": r["points"],
                             "winner": bool(r["winner"])} for r in g.entries],
                "absent": [names[i] for i in absences.get(g.round, [])],
                "by": v["by"], "at": v["at"], "note": v["note"],
            })
        return out

    # ---- entering results

    def _parse(self, values: list[tuple[str, str]], expected: list[Member],
               base: dict[int, Entry] | None = None) -> list[Entry]:
        """Check names and values against the players ``expected`` in the game
        (:func:`tourney.club.scoring.check_values`)."""
        return check_values(self.rule_set, self.eliminated_score, values, expected, self.member, base)

    def _write_version(self, number: int, version: int, action: str, entries: list[Entry], by: str, at: str,
                       note: str | None) -> None:
        self.tables.write_version(self.id, number, version, action, entries, by, at, note)

    def next_round(self) -> int:
        return self.tables.next_round(self.id)

    def add(self, values: list[tuple[str, str]], *, first: str | None = None, absent: list[str] | None = None,
            table: int | None = None, by: str | None = None, note: str | None = None) -> dict:
        """Enter the next game's result. ``first`` is who actually went first when it was not the
        derived leader; by default the derived leader is recorded. ``absent`` members sit this
        game out (charged by the league's absence rule); on a club night ``table`` says whose
        game it is, and the plan fixed who plays and who went first.

        Everything is read and checked under the database's write lock, so two secretaries entering
        games at once each get their own game number and neither entry is lost."""
        with self._writing():
            return self._add(values, first=first, absent=absent or [], table=table,
                             by=by or default_author(), note=note)

    def _add(self, values: list[tuple[str, str]], *, first: str | None, absent: list[str], table: int | None,
             by: str, note: str | None) -> dict:
        games = self.games()
        number = len(games) + 1
        night = self.open_night(games)
        done = self.finished(games)
        # a round under way at several tables is finished even when one table reaches the target
        if done is not None and night is None:
            raise ClubError(f"league {self.name!r} is over: a total reached {self.target} after game "
                            f"{done['after_game']} ({', '.join(done['winners'])} won)")
        if night is not None:
            if absent:
                raise ClubError(f"tonight's absences were fixed by the table plan of round {night['round']}")
            if table is None:
                raise ClubError(f"round {night['round']} is planned at tables: give --table "
                                f"({', '.join(str(t) for t in night['open'])} still to enter)")
            seats = next((t["seats"] for t in night["tables"] if t["table"] == table), None)
            if seats is None:
                raise ClubError(f"round {night['round']} has no table {table} "
                                f"(tables 1 to {len(night['tables'])})")
            if table not in night["open"]:
                raise ClubError(f"table {table} of round {night['round']} is already entered "
                                f"(see tourney club games {self.name})")
            members = {m.id: m for m in self.members()}
            playing = [members[i] for i in seats]
            round_no, absent_ids = night["round"], []
            lead = Leader(number, seats[0], members[seats[0]].name,
                          next(t["tied"] for t in night["tables"] if t["table"] == table))
        else:
            if table is not None:
                raise ClubError(f"no club night is planned; plan one with: tourney club night {self.name}")
            active = self.active_members()
            absent_ids = self._absent_ids(absent, active)
            playing = [m for m in active if m.id not in absent_ids]
            if len(playing) < 2:
                raise ClubError("fewer than two players in this game: add players with: tourney club join")
            round_no = self.next_round()
            lead = self.leader(number, playing, games)
        entries = self._parse(values, playing)
        if first is not None:
            fm = self.member(first)
            if fm.id not in {m.id for m in playing}:
                raise ClubError(f"{fm.name} did not play this game")
            first_id, how = fm.id, ("derived" if fm.id == lead.member_id else "entered")
        else:
            first_id, how = lead.member_id, ("random" if lead.random else "derived")
        at = now_utc()
        self.tables.insert_game(self.id, number, first_id, how, round_no, table)
        self.tables.insert_absences(self.id, round_no, absent_ids)
        self._write_version(number, 1, "enter", entries, by, at, note)
        names = self.names()
        self._log("enter", by, at, {"version": 1, "values": {e.name: e.entry for e in entries},
                                    "points": {e.name: e.points for e in entries}, "first": names[first_id],
                                    "absent": [names[i] for i in absent_ids], "round": round_no, "table": table,
                                    "note": note}, number)
        return {"game": number, "version": 1, "round": round_no, "table": table,
                "points": {e.name: e.points for e in entries}, "winners": [e.name for e in entries if e.winner],
                "first": names[first_id], "absent": [names[i] for i in absent_ids]}

    def _absent_ids(self, absent: list[str], active: list[Member]) -> list[int]:
        out: list[int] = []
        active_ids = {m.id for m in active}
        for ref in absent:
            m = self.member(ref)
            if m.id not in active_ids:
                raise ClubError(f"{m.name} is not playing in the league now (withdrawn or not yet joined); "
                                f"only active players can be absent")
            if m.id in out:
                raise ClubError(f"{m.name} is listed absent twice")
            out.append(m.id)
        return out

    def member_name(self, member_id: int | None) -> str | None:
        return self.names().get(member_id) if member_id is not None else None

    def _game(self, games: list[Game], number: int) -> Game:
        if number < 1 or number > len(games):
            raise ClubError(f"no game {number} in league {self.name!r} ({len(games)} entered)")
        return games[number - 1]

    def _consequences(self, games: list[Game], new_games: list[Game], number: int) -> tuple[list, dict | None]:
        return self.ledger().consequences(games, new_games, number)

    def correct(self, number: int, values: list[tuple[str, str]], *, by: str | None = None,
                note: str | None = None, dry_run: bool = False) -> dict:
        """Store a corrected result of game ``number`` as a new version (the old one is kept).

        Returns a preview dict (``before``, ``after``, ``leaders_changed``...); writes only when
        ``dry_run`` is false. ``finished_changed`` is None unless the correction changes after
        which game a total first reaches the target, or who wins then: it then holds the target,
        ``finished()`` before (``was``) and after (``now``) the correction, and the games
        ``entered_after`` the new finishing game (nothing is deleted; they still count in the
        totals).
        """
        return self._versioned(self._correct, number, values, by or default_author(), note, dry_run=dry_run)

    def _correct(self, number: int, values: list[tuple[str, str]], by: str, note: str | None, dry_run: bool) -> dict:
        games = self.games()
        game = self._game(games, number)
        if game.void:
            raise ClubError(f"game {number} is void; restore it first: tourney club restore {self.name} {number}")
        if not values:
            raise ClubError("nothing to correct: give the corrected values, e.g. --cards B=4")
        played_ids = [r["member_id"] for r in game.entries]
        expected = sorted((m for m in self.members() if m.id in played_ids), key=lambda m: played_ids.index(m.id))
        base = {r["member_id"]: Entry(r["member_id"], r["name"], r["entry"], r["cards"], bool(r["eliminated"]),
                                      r["points"], bool(r["winner"])) for r in game.entries}
        entries = self._parse(values, expected, base)
        before = {r["name"]: r["points"] for r in game.entries}
        after = {e.name: e.points for e in entries}
        before_entry = {r["name"]: r["entry"] for r in game.entries}
        after_entry = {e.name: e.entry for e in entries}
        if before_entry == after_entry:
            raise ClubError(f"game {number} already has exactly these values; nothing to correct")
        new_games = [g.copy() for g in games]
        for r in new_games[number - 1].entries:
            e = next(x for x in entries if x.member_id == r["member_id"])
            r.update(points=e.points, winner=int(e.winner), entry=e.entry)
        changed, finished_changed = self._consequences(games, new_games, number)
        version = game.version + 1
        result = {"game": number, "version": version, "before": before, "after": after,
                  "before_values": before_entry, "after_values": after_entry,
                  "winners": [e.name for e in entries if e.winner],
                  "leaders_changed": changed, "finished_changed": finished_changed, "dry_run": dry_run}
        if dry_run:
            return result
        at = now_utc()
        self._write_version(number, version, "correct", entries, by, at, note)
        self._log("correct", by, at, {"version": version, "before": before_entry, "after": after_entry,
                                      "points_before": before, "points_after": after, "leaders_changed": changed,
                                      "finished_changed": finished_changed, "note": note}, number)
        return result

    def void(self, number: int, *, by: str | None = None, note: str | None = None, dry_run: bool = False) -> dict:
        """Void game ``number`` (entered by mistake): a new version with no result, so the game no
        longer counts; the entered result stays in the history and :meth:`restore` brings it back.
        Returns the same kind of preview as :meth:`correct`; writes only when ``dry_run`` is false."""
        return self._versioned(self._void_or_restore, number, "void", by or default_author(), note,
                               dry_run=dry_run)

    def restore(self, number: int, *, by: str | None = None, note: str | None = None, dry_run: bool = False) -> dict:
        """Undo the void of game ``number``: a new version with the result it had before."""
        return self._versioned(self._void_or_restore, number, "restore", by or default_author(), note,
                               dry_run=dry_run)

    def _versioned(self, change, *args, dry_run: bool) -> dict:
        """``change(*args, dry_run)``: a preview reads without the lock; a change holds it."""
        if dry_run:
            return change(*args, True)
        with self._writing():
            return change(*args, False)

    def _void_or_restore(self, number: int, action: str, by: str, note: str | None, dry_run: bool) -> dict:
        games = self.games()
        game = self._game(games, number)
        new_games = [g.copy() for g in games]
        target = new_games[number - 1]
        if action == "void":
            if game.void:
                raise ClubError(f"game {number} is already void (tourney club restore {self.name} {number} undoes it)")
            target.entries, target.void = [], True
            rows: list[dict] = []
        else:
            if not game.void:
                raise ClubError(f"game {number} is not void; nothing to restore")
            if game.table is not None:
                taken = [g.number for g in games if g.round == game.round and g.table == game.table and not g.void]
                if taken:
                    raise ClubError(f"table {game.table} of round {game.round} now has game {taken[0]}; "
                                    f"void that one first")
            names = self.names()
            rows = self.tables.last_counted_result(self.id, number)
            for r in rows:
                r["name"] = names[r["member_id"]]
            target.entries, target.void = rows, False
        changed, finished_changed = self._consequences(games, new_games, number)
        shown = game.entries if action == "void" else rows
        version = game.version + 1
        result = {"game": number, "version": version, "action": action,
                  "points": {r["name"]: r["points"] for r in shown},
                  "values": {r["name"]: r["entry"] for r in shown},
                  "leaders_changed": changed, "finished_changed": finished_changed, "dry_run": dry_run}
        if dry_run:
            return result
        at = now_utc()
        entries = [Entry(r["member_id"], r["name"], r["entry"], r["cards"], bool(r["eliminated"]), r["points"],
                         bool(r["winner"])) for r in rows]
        self._write_version(number, version, action, entries, by, at, note)
        self._log(action, by, at, {"version": version, "values": result["values"], "points": result["points"],
                                   "leaders_changed": changed, "finished_changed": finished_changed,
                                   "note": note}, number)
        return result

    # ---- club nights

    def open_night(self, games: list[Game] | None = None) -> dict | None:
        """The latest night's plan while some of its tables have no (non-void) game and nothing
        was entered after it: ``{"round", "after_game", "split", "tables", "absent", "open"}``."""
        return _night.still_open(self.tables.latest_night(self.id), self.games() if games is None else games)

    def plan_night(self, *, absent: list[str] | None = None, present: list[str] | None = None,
                   split: str = "standings", tables: int | None = None, size: int | None = None,
                   by: str | None = None) -> dict:
        """Split the players present into tables for the next round and store the plan; the
        games are then entered table by table (``add(..., table=T)``). A plan with no game
        entered yet is replaced by a new one."""
        with self._writing():
            return self._plan_night(absent or [], present, split, tables, size, by or default_author())

    def _plan_night(self, absent: list[str], present: list[str] | None, split: str, tables: int | None,
                    size: int | None, by: str) -> dict:
        if self.finished() is not None:
            raise ClubError(f"league {self.name!r} is over; no more nights")
        games = self.games()
        night = self.open_night(games)
        replaced = None
        if night is not None:
            if len(night["open"]) < len(night["tables"]):
                raise ClubError(f"round {night['round']} is under way: enter table "
                                f"{', '.join(map(str, night['open']))} first (or void its games to re-plan)")
            replaced = night["round"]
        active = self.active_members()
        if present is not None and absent:
            raise ClubError("give --present or --absent, not both")
        if present is not None:
            here = {self.member(p).id for p in present}
            strangers = [m.name for m in self.members() if m.id in here and m not in active]
            if strangers:
                raise ClubError(f"not playing in the league now: {', '.join(strangers)}")
            absent_ids = [m.id for m in active if m.id not in here]
        else:
            absent_ids = self._absent_ids(absent, active)
        tot = self.totals(games, len(games))
        ranks = {r["entrant"]: r["rank"] for r in self.standings()}
        players = [_night.Player(m.id, m.name, m.roster, tot[m.id], ranks[m.name])
                   for m in active if m.id not in absent_ids]
        if len(players) < 2:
            raise ClubError("fewer than two players present")
        round_no = replaced or self.next_round()
        plan = _night.plan(players, seed=self.seed, round_no=round_no, how=split, tables=tables, size=size)
        at = now_utc()
        self.tables.replace_night(self.id, round_no, {"after_game": len(games), "split": split,
                                                      "tables": json.dumps(plan), "absent": json.dumps(absent_ids),
                                                      "at": at, "by": by}, absent_ids)
        out = self.describe_night({"round": round_no, "split": split, "tables": plan, "absent": absent_ids}, tot)
        self._log("night", by, at, {"round": round_no, "split": split, "replaced": replaced is not None,
                                    "tables": [[s["entrant"] for s in t["seats"]] for t in out["tables"]],
                                    "absent": out["absent"]})
        return out

    def describe_night(self, night: dict, totals: dict[int, int] | None = None) -> dict:
        """A plan with names and points, for printing: ``{"round", "split", "tables": [{"table",
        "seats": [{"seat", "entrant", "points"}], "first", "tied"}], "absent"}``."""
        tot = totals if totals is not None else self.totals(self.games(), self.played())
        return _night.describe(night, self.names(), tot)

    # ---- roster changes (tourney/club/roster.py)

    def withdraw(self, player: str, *, by: str | None = None) -> dict:
        """Withdraw ``player`` from the following games; their results stay in the standings."""
        with self._writing():
            return roster.withdraw(self, player, by or default_author())

    def join(self, player: str, *, start: str = "max", by: str | None = None) -> dict:
        """Add a player before the next game (:func:`tourney.club.roster.join`)."""
        with self._writing():
            return roster.join(self, player, start, by or default_author())

    def rename(self, new_name: str, *, player: str | None = None, by: str | None = None) -> dict:
        """Rename the league, or one of its players (:func:`tourney.club.roster.rename`)."""
        with self._writing():
            return roster.rename(self, new_name, player, by or default_author())

    def set_rules(self, *, absence: str | None = None, withdrawal: str | None = None,
                  double_entry: bool | None = None, by: str | None = None) -> dict:
        """Change the league's absence or withdrawal rule, or its double entry
        (:func:`tourney.club.roster.set_rules`)."""
        with self._writing():
            return roster.set_rules(self, absence, withdrawal, double_entry, by or default_author())

    def absence_text(self) -> str:
        """The absence rule as ``--absence`` takes it (a fixed penalty as its number)."""
        return self.absence if self.absence != "fixed" else str(self.absence_points)

    # ---- everything at once (for --json, reports)

    def summary(self) -> dict:
        games = self.games()
        lead = self.next_leader()
        done = self.finished(games)
        night = self.open_night(games)
        return {
            "version": 2,
            "league": self.name,
            "rule_set": self.rule_set,
            "seed": self.seed,
            "target": self.target,
            "absence": self.absence_text(),
            "withdrawal": self.withdrawal,
            "lower_points_better": True,
            "games_played": len(games),
            "finished": done,
            "standings": self.standings(),
            "next_first": lead.to_dict() if lead else None,
            "night": self.describe_night(night) if night else None,
        }

    def cumulative(self) -> dict[str, list[int | None]]:
        """name -> total after each game (starting points at index 0), for charts."""
        games = self.games()
        ledger = self.ledger()
        out: dict[str, list[int | None]] = {}
        totals = [ledger.totals(games, k) for k in range(len(games) + 1)]
        for m in self.members():
            out[m.name] = [None if m.joined_after > k else totals[k][m.id] for k in range(len(games) + 1)]
        return out


def list_leagues(db: Database) -> list[dict]:
    """Every club league in the database: name, rule set, target, seed, created, games entered."""
    return ClubTables(db).list_leagues()
