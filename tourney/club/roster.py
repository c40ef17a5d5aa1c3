"""Changes to a league's roster and rules: players withdrawing, joining and renamed, the league
renamed, its absence, withdrawal and double-entry settings.

Each function is called by the :class:`~tourney.club.league.League` method of the same name with
the write lock held and the league freshly read; it checks, writes through the league's
:class:`~tourney.club.tables.ClubTables` and logs the change. What a function needs of the
league is :class:`RosterLeague`, declared here: this module sits below the league and never
imports it (the league passes itself).
"""

from __future__ import annotations

from typing import Protocol

from tourney.club import ClubError
from tourney.club.entries import Member
from tourney.club.ledger import Game, start_points
from tourney.club.scoring import check_withdrawal, parse_absence
from tourney.club.tables import ClubTables


class RosterLeague(Protocol):
    """What a roster change reads and writes of a league (:class:`tourney.club.league.League`)."""

    id: int
    name: str
    withdrawal: str
    double_entry: bool
    tables: ClubTables

    def member(self, ref: str) -> Member: ...
    def members(self) -> list[Member]: ...
    def active_members(self, after: int | None = None) -> list[Member]: ...
    def games(self) -> list[Game]: ...
    def played(self) -> int: ...
    def totals(self, games: list[Game], upto: int) -> dict[int, int]: ...
    def finished(self, games: list[Game] | None = None) -> dict | None: ...
    def open_night(self, games: list[Game] | None = None) -> dict | None: ...
    def absence_text(self) -> str: ...
    def log_change(self, action: str, by: str, detail: dict, game: int | None = None,
                   at: str | None = None) -> None: ...
    def reload(self) -> None: ...


def check_players(players: list[str]) -> list[str]:
    """A new league's roster, names stripped: at least two, none empty, none twice.

    >>> check_players([" Ann", "Bob "])
    ['Ann', 'Bob']
    """
    players = [p.strip() for p in players]
    if any(not p for p in players):
        raise ClubError("a player name cannot be empty")
    if len(players) < 2:
        raise ClubError("a league needs at least two players")
    dup = sorted({p for p in players if players.count(p) > 1})
    if dup:
        raise ClubError(f"player listed twice: {', '.join(dup)}")
    return players


def withdraw(league: RosterLeague, player: str, by: str) -> dict:
    m = league.member(player)
    if m.withdrawn_after is not None:
        raise ClubError(f"{m.name} already withdrew after game {m.withdrawn_after}")
    if league.open_night() is not None:
        raise ClubError("a club night round is under way; withdraw after its tables are entered")
    n = league.played()
    if len(league.active_members()) <= 2:
        raise ClubError(f"{m.name} cannot withdraw: the league would have fewer than two players")
    league.tables.update_member(m.id, {"withdrawn_after": n})
    league.log_change("withdraw", by, {"player": m.name, "after_game": n})
    return {"player": m.name, "withdrawn_after": n}


def join(league: RosterLeague, player: str, start: str, by: str) -> dict:
    """Add a player before the next game. Starting points: ``max`` (the highest total among
    active players: no advantage from games missed), ``average`` (rounded up), ``min``, ``zero``
    or a whole number."""
    player = player.strip()
    if not player:
        raise ClubError("a player name cannot be empty")
    if any(m.name == player for m in league.members()):
        raise ClubError(f"{player} is already in league {league.name!r}")
    if league.finished() is not None:
        raise ClubError(f"league {league.name!r} is over; nobody can join")
    if league.open_night() is not None:
        raise ClubError("a club night round is under way; join after its tables are entered")
    games = league.games()
    n = len(games)
    tot = league.totals(games, n)
    pts = start_points(start, [tot[m.id] for m in league.active_members()])
    if pts is None:
        raise ClubError(f"unknown starting score {start!r}; use max, average, min, zero or a whole number")
    roster = max(m.roster for m in league.members()) + 1
    league.tables.insert_member(league.id, roster, player, pts, n)
    league.log_change("join", by, {"player": player, "after_game": n, "start": start, "start_points": pts})
    return {"player": player, "joined_after": n, "start_points": pts, "start": start}


def rename(league: RosterLeague, new_name: str, player: str | None, by: str) -> dict:
    """Rename the league, or one of its players (``player``); results and history are kept
    (the history shows names as they were when each change was made, and the rename itself)."""
    new_name = new_name.strip()
    if not new_name:
        raise ClubError("a name cannot be empty")
    if player is None:
        old = league.name
        if new_name == old:
            raise ClubError(f"the league is already named {old!r}")
        if league.tables.name_taken(new_name):
            raise ClubError(f"a club league named {new_name!r} already exists")
        league.tables.update_league(league.id, {"name": new_name})
        detail = {"league": old, "to": new_name}
    else:
        m = league.member(player)
        old = m.name
        if new_name == old:
            raise ClubError(f"{old} is already named so")
        if any(x.name == new_name for x in league.members()):
            raise ClubError(f"{new_name} is already in league {league.name!r}")
        league.tables.update_member(m.id, {"name": new_name})
        detail = {"player": old, "to": new_name}
    league.log_change("rename", by, detail)
    league.reload()
    return detail


def set_rules(league: RosterLeague, absence: str | None, withdrawal: str | None, double_entry: bool | None,
              by: str) -> dict:
    """Change the league's absence or withdrawal rule (the standings are recomputed from every
    game with the new rule, games already played included), or whether a game entered on the
    web counts only once a second person confirms it; returns ``{setting: {"was", "now"}}``."""
    change: dict = {}
    if absence is not None:
        rule, points = parse_absence(absence)
        change["absence"] = {"was": league.absence_text(), "now": rule if rule != "fixed" else str(points)}
        league.tables.update_league(league.id, {"absence": rule, "absence_points": points})
    if withdrawal is not None:
        check_withdrawal(withdrawal)
        change["withdrawal"] = {"was": league.withdrawal, "now": withdrawal}
        league.tables.update_league(league.id, {"withdrawal": withdrawal})
    if double_entry is not None:
        change["double_entry"] = {"was": "on" if league.double_entry else "off", "now": "on" if double_entry else "off"}
        league.tables.update_league(league.id, {"double_entry": int(double_entry)})
    change = {k: v for k, v in change.items() if v["was"] != v["now"]}
    if not change:
        raise ClubError("nothing to change: give a new --absence or --withdrawal rule, or --double-entry")
    league.log_change("set", by, change)
    league.reload()
    return change
