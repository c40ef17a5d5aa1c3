"""A club league's arithmetic over plain data: totals, who goes first, when the league is over,
and what changing one game does to the games after it.

No database here: :class:`Ledger` holds the league's rules, its members and its recorded
absences, and every method is a pure function of those and a list of :class:`Game`. The
``club_standings`` SQL view (:data:`tourney.results.schema.CLUB_STANDINGS`) is the definition the
standings tables read; :meth:`Ledger.totals` computes the same points for who goes first while a
change is previewed, and tests/test_club_ledger.py holds both to one table of cases.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from tourney.club.entries import Member
from tourney.club.scoring import absence_charge


@dataclass
class Game:
    """A game as it stands now: the entries of its newest version (none when void). Each entry is
    a dict with at least ``member_id``, ``name``, ``points``, ``winner`` and ``entry``."""

    number: int
    version: int
    entries: list[dict]
    first_member_id: int | None
    first_how: str | None
    round: int = 0
    table: int | None = None
    void: bool = False

    def copy(self) -> Game:
        return Game(self.number, self.version, [dict(r) for r in self.entries], self.first_member_id,
                    self.first_how, self.round, self.table, self.void)


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


@dataclass(frozen=True)
class Ledger:
    """A league's rules and roster, and the rounds members were recorded absent from
    (``absences``: round -> member ids)."""

    seed: int
    target: int | None
    absence: str
    absence_points: int | None
    withdrawal: str
    members: tuple[Member, ...]
    absences: dict[int, list[int]] = field(default_factory=dict)

    def charges(self, games: list[Game], upto: int) -> dict[int, int]:
        """member id -> points charged for rounds missed (absences; rounds after withdrawing under
        the ``penalty`` rule), counting the rounds whose first game is at most ``upto``.

        >>> ann, bob, cy = Member(1, 1, "Ann", 0, 0, None), Member(2, 2, "Bob", 0, 0, None), \
                Member(3, 3, "Cy", 0, 0, None)
        >>> g = Game(1, 1, [{"member_id": 1, "points": 0}, {"member_id": 2, "points": 5}], 1, "derived", round=1)
        >>> Ledger(1, None, "average", None, "penalty", (ann, bob, cy), {1: [3]}).charges([g], 1)
        {3: 3}
        """
        rounds: dict[int, tuple[int, list[int]]] = {}
        for g in games:
            if g.entries:
                first, points = rounds.get(g.round, (g.number, []))
                rounds[g.round] = (min(first, g.number), points + [r["points"] for r in g.entries])
        out: dict[int, int] = {}
        withdrawn = [m for m in self.members if m.withdrawn_after is not None]
        for rnd, (first, points) in rounds.items():
            if first > upto:
                continue
            charge = absence_charge(self.absence, self.absence_points, points)
            missing = list(self.absences.get(rnd, []))
            if self.withdrawal == "penalty":
                missing += [m.id for m in withdrawn if first > (m.withdrawn_after or 0)]
            for mid in missing:
                out[mid] = out.get(mid, 0) + charge
        return out

    def totals(self, games: list[Game], upto: int) -> dict[int, int]:
        """member id -> starting points, plus points of games 1..upto, plus charges for rounds missed."""
        tot = {m.id: m.start_points for m in self.members}
        for g in games:
            if g.number > upto:
                break
            for r in g.entries:
                tot[r["member_id"]] += r["points"]
        for mid, charge in self.charges(games, upto).items():
            tot[mid] += charge
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

    def finished(self, games: list[Game]) -> dict | None:
        """``{"after_game", "winners", "lowest_total"}`` once a total reached the target (lowest
        total among the last game's players wins), else None."""
        if self.target is None:
            return None
        for g in games:
            if not g.entries:
                continue
            tot = self.totals(games, g.number)
            if any(tot[r["member_id"]] >= self.target for r in g.entries):
                # lowest total among the players of the last game (withdrawn players cannot win)
                low = min(tot[r["member_id"]] for r in g.entries)
                return {"after_game": g.number, "winners": [r["name"] for r in g.entries if tot[r["member_id"]] == low],
                        "lowest_total": low}
        return None

    def consequences(self, games: list[Game], new_games: list[Game], number: int) -> tuple[list[dict], dict | None]:
        """What changing game ``number`` (``games`` -> ``new_games``) does to the games after it:
        who should have gone first in each (``leaders_changed``), and the end of a league played to
        a target (``finished_changed``, None when unchanged)."""
        changed = []
        members = {m.id: m for m in self.members}
        for g in games[number:]:
            if not g.entries:
                continue
            cands = [members[r["member_id"]] for r in g.entries]
            old = self.leader(g.number, cands, games)
            new = self.leader(g.number, cands, new_games)
            if old.member_id != new.member_id:
                first = members.get(g.first_member_id) if g.first_member_id is not None else None
                changed.append({"game": g.number, "was": old.name, "now": new.name,
                                "actually_first": first.name if first else None, "now_random": new.random})
        # games entered after the league was over are kept, but the change must say so
        end_was, end_now = self.finished(games), self.finished(new_games)
        finished_changed = None
        if not same_end(end_was, end_now):
            finished_changed = {"target": self.target, "was": end_was, "now": end_now,
                                "entered_after": [g.number for g in games[end_now["after_game"]:]] if end_now else []}
        return changed, finished_changed


def same_end(a: dict | None, b: dict | None) -> bool:
    """Whether two results of :meth:`Ledger.finished` end the league after the same game with the
    same winners (the lowest total alone may differ)."""
    if a is None or b is None:
        return a is b
    return (a["after_game"], a["winners"]) == (b["after_game"], b["winners"])


def start_points(rule: str, totals: list[int]) -> int | None:
    """A joining player's starting points from the active players' ``totals``: ``max`` (no
    advantage from games missed), ``average`` (rounded up), ``min``, ``zero`` or a whole number;
    None for an unknown rule.

    >>> [start_points(r, [4, 9, 10]) for r in ("max", "average", "min", "zero", "12", "most")]
    [10, 8, 4, 0, 12, None]
    """
    if rule == "max":
        return max(totals, default=0)
    if rule == "min":
        return min(totals, default=0)
    if rule == "average":
        return -(-sum(totals) // len(totals)) if totals else 0
    if rule == "zero":
        return 0
    if rule.isdigit() and rule.isascii():
        return int(rule)
    return None
