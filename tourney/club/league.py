"""The club league over the database: members, games, corrections, withdrawals, standings."""

from __future__ import annotations

import getpass
import json
import os
import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlite_utils import Database

from tourney.club import RULE_SETS, ClubError
from tourney.club.entries import Entry, parse_value
from tourney.club.scoring import ELIMINATED_SCORES, score_game
from tourney.results.store import write_lock

#: the closed set of actions of a league's history (``club_log.action``)
ACTIONS = ("create", "enter", "correct", "withdraw", "join")




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


@dataclass
class Member:
    id: int
    roster: int
    name: str
    start_points: int
    joined_after: int
    withdrawn_after: int | None


@dataclass
class Game:
    number: int
    version: int
    entries: list[dict]
    first_member_id: int | None
    first_how: str | None


@dataclass
class Leader:
    """Who goes (or should have gone) first in a game: most points so far, ties at random."""

    game: int
    member_id: int
    name: str
    tied: list[str] = field(default_factory=list)
    points: int = 0

    @property
    def random(self) -> bool:
        return len(self.tied) > 1

    def describe(self) -> str:
        if self.random:
            return (f"{self.name} (tie on {self.points} points between {', '.join(self.tied)}, "
                    f"settled at random from the league's seed)")
        return f"{self.name} (most points: {self.points})"

    def to_dict(self) -> dict:
        return {"game": self.game, "entrant": self.name, "points": self.points,
                "tied": self.tied, "random": self.random}


class League:
    """A club league read from the database; write methods check everything first."""

    def __init__(self, db: Database, name: str):
        rows = list(db.table("club_leagues").rows_where("name = ?", [name]))
        if not rows:
            raise ClubError(f"no club league named {name!r} (create it with: tourney club new NAME --players A,B,C)")
        self.db = db
        self.row = rows[0]
        self.id = self.row["id"]
        self.name = name
        self.rule_set = self.row["rule_set"]
        self.seed = self.row["seed"]
        self.target = self.row["target"]
        self.eliminated_score = self.row["eliminated_score"]

    # ---- creation

    @staticmethod
    def create(db: Database, name: str, players: list[str], *, rule_set: str = "crazier-eights",
               seed: int | None = None, target: int | None = None,
               eliminated_score: str = "snapshot", by: str | None = None) -> League:
        name = name.strip()
        if not name:
            raise ClubError("a league needs a name")
        if rule_set not in RULE_SETS:
            raise ClubError(f"unknown rule set {rule_set!r}; choose one of {', '.join(RULE_SETS)}")
        if eliminated_score not in ELIMINATED_SCORES:
            raise ClubError(f"unknown eliminated score {eliminated_score!r}; choose one of {', '.join(ELIMINATED_SCORES)}")
        if rule_set != "crazier-eights" and eliminated_score != "snapshot":
            raise ClubError(f"{rule_set} has no elimination; --eliminated-score does not apply")
        players = [p.strip() for p in players]
        if any(not p for p in players):
            raise ClubError("a player name cannot be empty")
        if len(players) < 2:
            raise ClubError("a league needs at least two players")
        dup = sorted({p for p in players if players.count(p) > 1})
        if dup:
            raise ClubError(f"player listed twice: {', '.join(dup)}")
        if target is not None and target <= 0:
            raise ClubError("the target score must be positive")
        if seed is None:
            seed = random.SystemRandom().randrange(1, 2**31)
        by = by or default_author()
        at = now_utc()
        with write_lock(db):
            # checked under the write lock: of two secretaries creating one name, the second is told
            if db.table("club_leagues").count_where("name = ?", [name]):
                raise ClubError(f"a club league named {name!r} already exists")
            lid = db.table("club_leagues").insert({
                "name": name, "rule_set": rule_set, "seed": seed, "target": target,
                "eliminated_score": eliminated_score, "created_at": at, "created_by": by,
            }).last_pk
            for i, p in enumerate(players, 1):
                db.table("club_members").insert({"league_id": lid, "roster": i, "name": p, "start_points": 0,
                                           "joined_after": 0, "withdrawn_after": None})
            db.table("club_log").insert({"league_id": lid, "at": at, "by": by, "action": "create", "game_number": None,
                                   "detail": json.dumps({"players": players, "rule_set": rule_set, "seed": seed,
                                                         "target": target, "eliminated_score": eliminated_score})})
        return League(db, name)

    # ---- reading

    def members(self) -> list[Member]:
        return [Member(r["id"], r["roster"], r["name"], r["start_points"], r["joined_after"], r["withdrawn_after"])
                for r in self.db.table("club_members").rows_where("league_id = ?", [self.id], order_by="roster")]

    def member(self, ref: str) -> Member:
        ref = ref.strip()
        ms = self.members()
        for m in ms:
            if m.name == ref:
                return m
        if re.fullmatch(r"#\d+", ref):
            for m in ms:
                if m.roster == int(ref[1:]):
                    return m
        raise ClubError(f"unknown player {ref!r} in league {self.name!r} (players: {', '.join(m.name for m in ms)})")

    def games(self) -> list[Game]:
        """Every game played, each with the entries of its newest version, in game order."""
        names = {m.id: m.name for m in self.members()}
        out = []
        for g in self.db.table("club_games").rows_where("league_id = ?", [self.id], order_by="number"):
            rows = list(self.db.query(
                "SELECT * FROM club_results_current WHERE league_id = ? AND game_number = ? ORDER BY id",
                [self.id, g["number"]]))
            for r in rows:
                r["name"] = names[r["member_id"]]
            out.append(Game(g["number"], rows[0]["version"] if rows else 0, rows, g["first_member_id"], g["first_how"]))
        return out

    def played(self) -> int:
        return self.db.table("club_games").count_where("league_id = ?", [self.id])

    def active_members(self, after: int | None = None) -> list[Member]:
        """Members who play the game after game ``after`` (default: the next game)."""
        n = self.played() if after is None else after
        return [m for m in self.members()
                if m.joined_after <= n and (m.withdrawn_after is None or m.withdrawn_after > n)]

    def totals(self, games: list[Game], upto: int) -> dict[int, int]:
        """member id -> starting points plus points of games 1..upto."""
        tot = {m.id: m.start_points for m in self.members()}
        for g in games:
            if g.number > upto:
                break
            for r in g.entries:
                tot[r["member_id"]] += r["points"]
        return tot

    def leader(self, number: int, candidates: list[Member], games: list[Game]) -> Leader:
        """Who goes first in game ``number``: the most points after the games before it; a tie is
        settled with ``random.Random(f"club:{seed}:{number}")`` choosing among the tied players in
        roster order (so the same league always settles the same tie the same way)."""
        tot = self.totals(games, number - 1)
        best = max(tot[m.id] for m in candidates)
        tied = sorted((m for m in candidates if tot[m.id] == best), key=lambda m: m.roster)
        pick = tied[0] if len(tied) == 1 else random.Random(f"club:{self.seed}:{number}").choice(tied)
        return Leader(number, pick.id, pick.name, [m.name for m in tied] if len(tied) > 1 else [], best)

    def next_leader(self) -> Leader | None:
        if self.finished() is not None:
            return None
        games = self.games()
        active = self.active_members()
        if len(active) < 2:
            return None
        return self.leader(len(games) + 1, active, games)

    def finished(self, games: list[Game] | None = None) -> dict | None:
        """``{"after_game", "winners"}`` once a total reached the target (lowest total wins), else None."""
        if self.target is None:
            return None
        games = self.games() if games is None else games
        for g in games:
            tot = self.totals(games, g.number)
            if any(tot[r["member_id"]] >= self.target for r in g.entries):
                # lowest total among the players of the last game (withdrawn players cannot win)
                playing = [r["member_id"] for r in g.entries]
                low = min(tot[i] for i in playing)
                return {"after_game": g.number, "winners": [r["name"] for r in g.entries if tot[r["member_id"]] == low],
                        "lowest_total": low}
        return None

    def standings(self) -> list[dict]:
        """The rows of the ``club_standings`` view for this league, best first."""
        rows = list(self.db.query(
            "SELECT rank, entrant, points, games, wins, average, start_points, withdrawn, joined_after, withdrawn_after "
            "FROM club_standings WHERE league_id = ? ORDER BY rank, roster", [self.id]))
        for r in rows:
            r["withdrawn"] = bool(r["withdrawn"])
        return rows

    def history(self) -> list[dict]:
        out = []
        for r in self.db.table("club_log").rows_where("league_id = ?", [self.id], order_by="id"):
            out.append({"at": r["at"], "by": r["by"], "action": r["action"], "game": r["game_number"],
                        "detail": json.loads(r["detail"]) if r["detail"] else {}})
        return out

    # ---- entering results

    def _parse(self, values: list[tuple[str, str]], expected: list[Member], base: dict[int, Entry] | None = None) -> list[Entry]:
        """Check names and values against the players ``expected`` in the game; ``base`` (for a
        correction) supplies the values not given."""
        exp_ids = {m.id for m in expected}
        given: dict[int, Entry] = {}
        for ref, text in values:
            m = self.member(ref)
            if m.id not in exp_ids:
                if m.withdrawn_after is not None:
                    raise ClubError(f"{m.name} withdrew after game {m.withdrawn_after} and does not play this game")
                raise ClubError(f"{m.name} did not play this game")
            if m.id in given:
                raise ClubError(f"{m.name} is given twice")
            cards, points, elim = parse_value(self.rule_set, m.name, text)
            given[m.id] = Entry(m.id, m.name, text.strip(), cards, elim, points if points is not None else 0)
        entries = []
        missing = []
        for m in expected:
            if m.id in given:
                entries.append(given[m.id])
            elif base is not None and m.id in base:
                entries.append(base[m.id])
            else:
                missing.append(m.name)
        if missing:
            raise ClubError(f"missing player{'s' if len(missing) > 1 else ''}: {', '.join(missing)} (every player of the game needs a value)")
        score_game(self.rule_set, self.eliminated_score, entries)
        return entries

    def _write_version(self, number: int, version: int, action: str, entries: list[Entry], by: str, at: str, note: str | None) -> None:
        self.db.table("club_versions").insert({"league_id": self.id, "game_number": number, "version": version,
                                         "action": action, "by": by, "at": at, "note": note})
        self.db.table("club_results").insert_all([{
            "league_id": self.id, "game_number": number, "version": version, "member_id": e.member_id,
            "entry": e.entry, "cards": e.cards, "eliminated": int(e.eliminated), "points": e.points,
            "winner": int(e.winner)} for e in entries])

    def add(self, values: list[tuple[str, str]], *, first: str | None = None, by: str | None = None,
            note: str | None = None) -> dict:
        """Enter the next game's result. ``first`` is who actually went first when it was not the
        derived leader; by default the derived leader is recorded.

        Everything is read and checked under the database's write lock, so two secretaries entering
        games at once each get their own game number and neither entry is lost."""
        with write_lock(self.db):
            return self._add(values, first=first, by=by or default_author(), note=note)

    def _add(self, values: list[tuple[str, str]], *, first: str | None, by: str, note: str | None) -> dict:
        done = self.finished()
        if done is not None:
            raise ClubError(f"league {self.name!r} is over: a total reached {self.target} after game {done['after_game']} "
                            f"({', '.join(done['winners'])} won)")
        games = self.games()
        number = len(games) + 1
        active = self.active_members()
        if len(active) < 2:
            raise ClubError("fewer than two active players: add players with: tourney club join")
        entries = self._parse(values, active)
        lead = self.leader(number, active, games)
        if first is not None:
            fm = self.member(first)
            if fm.id not in {m.id for m in active}:
                raise ClubError(f"{fm.name} did not play this game")
            first_id, how = fm.id, ("derived" if fm.id == lead.member_id else "entered")
        else:
            first_id, how = lead.member_id, ("random" if lead.random else "derived")
        at = now_utc()
        self.db.table("club_games").insert({"league_id": self.id, "number": number, "first_member_id": first_id,
                                            "first_how": how})
        self._write_version(number, 1, "enter", entries, by, at, note)
        self.db.table("club_log").insert({"league_id": self.id, "at": at, "by": by, "action": "enter", "game_number": number,
                                          "detail": json.dumps({"version": 1, "values": {e.name: e.entry for e in entries},
                                                                "points": {e.name: e.points for e in entries},
                                                                "first": self.member_name(first_id), "note": note})})
        return {"game": number, "version": 1, "points": {e.name: e.points for e in entries},
                "winners": [e.name for e in entries if e.winner], "first": self.member_name(first_id)}

    def member_name(self, member_id: int | None) -> str | None:
        for m in self.members():
            if m.id == member_id:
                return m.name
        return None

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
        games = self.games()
        if number < 1 or number > len(games):
            raise ClubError(f"no game {number} in league {self.name!r} ({len(games)} played)")
        game = games[number - 1]
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
        # who should have gone first in each later game, before and after the correction
        new_games = [Game(g.number, g.version, [dict(r) for r in g.entries], g.first_member_id, g.first_how) for g in games]
        for r in new_games[number - 1].entries:
            e = next(x for x in entries if x.member_id == r["member_id"])
            r.update(points=e.points, winner=int(e.winner), entry=e.entry)
        changed = []
        members = {m.id: m for m in self.members()}
        for g in games[number:]:
            cands = [members[r["member_id"]] for r in g.entries]
            old = self.leader(g.number, cands, games)
            new = self.leader(g.number, cands, new_games)
            if old.member_id != new.member_id:
                changed.append({"game": g.number, "was": old.name, "now": new.name,
                                "actually_first": self.member_name(g.first_member_id),
                                "now_random": new.random})
        # games entered after the league was over are kept, but the correction must say so
        end_was, end_now = self.finished(games), self.finished(new_games)
        finished_changed = None
        if not _same_end(end_was, end_now):
            finished_changed = {"target": self.target, "was": end_was, "now": end_now,
                                "entered_after": [g.number for g in games[end_now["after_game"]:]] if end_now else []}
        version = game.version + 1
        result = {"game": number, "version": version, "before": before, "after": after,
                  "before_values": before_entry, "after_values": after_entry,
                  "winners": [e.name for e in entries if e.winner],
                  "leaders_changed": changed, "finished_changed": finished_changed, "dry_run": dry_run}
        if dry_run:
            return result
        by = by or default_author()
        at = now_utc()
        with write_lock(self.db):
            self._write_version(number, version, "correct", entries, by, at, note)
            self.db.table("club_log").insert({"league_id": self.id, "at": at, "by": by, "action": "correct", "game_number": number,
                                        "detail": json.dumps({"version": version, "before": before_entry, "after": after_entry,
                                                              "points_before": before, "points_after": after,
                                                              "leaders_changed": changed,
                                                              "finished_changed": finished_changed, "note": note})})
        return result

    # ---- roster changes

    def withdraw(self, player: str, *, by: str | None = None) -> dict:
        m = self.member(player)
        if m.withdrawn_after is not None:
            raise ClubError(f"{m.name} already withdrew after game {m.withdrawn_after}")
        n = self.played()
        if len(self.active_members()) <= 2:
            raise ClubError(f"{m.name} cannot withdraw: the league would have fewer than two players")
        by = by or default_author()
        at = now_utc()
        with write_lock(self.db):
            self.db.table("club_members").update(m.id, {"withdrawn_after": n})
            self.db.table("club_log").insert({"league_id": self.id, "at": at, "by": by, "action": "withdraw", "game_number": None,
                                        "detail": json.dumps({"player": m.name, "after_game": n})})
        return {"player": m.name, "withdrawn_after": n}

    def join(self, player: str, *, start: str = "max", by: str | None = None) -> dict:
        """Add a player before the next game. Starting points: ``max`` (the highest total among
        active players: no advantage from games missed), ``average`` (rounded up), ``min``, ``zero``
        or a whole number."""
        player = player.strip()
        if not player:
            raise ClubError("a player name cannot be empty")
        if any(m.name == player for m in self.members()):
            raise ClubError(f"{player} is already in league {self.name!r}")
        if self.finished() is not None:
            raise ClubError(f"league {self.name!r} is over; nobody can join")
        games = self.games()
        n = len(games)
        tot = self.totals(games, n)
        active = [tot[m.id] for m in self.active_members()]
        if start == "max":
            pts = max(active, default=0)
        elif start == "min":
            pts = min(active, default=0)
        elif start == "average":
            pts = -(-sum(active) // len(active)) if active else 0
        elif start == "zero":
            pts = 0
        elif re.fullmatch(r"\d+", start):
            pts = int(start)
        else:
            raise ClubError(f"unknown starting score {start!r}; use max, average, min, zero or a whole number")
        by = by or default_author()
        at = now_utc()
        roster = max(m.roster for m in self.members()) + 1
        with write_lock(self.db):
            self.db.table("club_members").insert({"league_id": self.id, "roster": roster, "name": player, "start_points": pts,
                                            "joined_after": n, "withdrawn_after": None})
            self.db.table("club_log").insert({"league_id": self.id, "at": at, "by": by, "action": "join", "game_number": None,
                                        "detail": json.dumps({"player": player, "after_game": n, "start": start,
                                                              "start_points": pts})})
        return {"player": player, "joined_after": n, "start_points": pts, "start": start}

    # ---- everything at once (for --json, reports)

    def summary(self) -> dict:
        games = self.games()
        lead = self.next_leader()
        done = self.finished(games)
        return {
            "version": 2,
            "league": self.name,
            "rule_set": self.rule_set,
            "seed": self.seed,
            "target": self.target,
            "lower_points_better": True,
            "games_played": len(games),
            "finished": done,
            "standings": self.standings(),
            "next_first": lead.to_dict() if lead else None,
        }

    def cumulative(self) -> dict[str, list[int]]:
        """name -> total after each game (starting points at index 0), for charts."""
        games = self.games()
        out: dict[str, list[int]] = {}
        for m in self.members():
            series = []
            for k in range(len(games) + 1):
                if m.joined_after > k:
                    series.append(None)
                else:
                    series.append(self.totals(games, k)[m.id])
            out[m.name] = series
        return out


def _same_end(a: dict | None, b: dict | None) -> bool:
    """Whether two results of :meth:`League.finished` end the league after the same game with the
    same winners (the lowest total alone may differ)."""
    if a is None or b is None:
        return a is b
    return (a["after_game"], a["winners"]) == (b["after_game"], b["winners"])


def list_leagues(db: Database) -> list[dict]:
    if not db.table("club_leagues").exists():
        return []
    return list(db.query(
        "SELECT l.name, l.rule_set, l.target, l.seed, l.created_at, l.created_by, "
        "(SELECT COUNT(*) FROM club_games g WHERE g.league_id = l.id) AS games "
        "FROM club_leagues l ORDER BY l.name"))
