"""The formats of one table: a single game, a best-of-N match and a points league, all the
event's entrants seated together."""

from __future__ import annotations

from typing import ClassVar

from tourney.formats.base import EventSettings, Format, FormatName, Problem, Unit


class OneTable(Format):
    """Every entrant at one table, one series; the unit is the format itself."""

    settings: ClassVar[type[EventSettings]] = EventSettings

    def default_players(self, n: int) -> int:
        return n

    def check_players(self, players: int, n: int) -> None:
        if players != n:
            raise Problem("event.players",
                          f"a {self.name} seats all its {n} entrants at one table, but players = {players}")
        if n > 8:
            raise Problem("event.entrants", f"at most 8 entrants at one table, got {n}")

    def unit_of(self, s: EventSettings, players: int) -> Unit:
        return Unit(str(self.name))


class Single(OneTable):
    name = FormatName.SINGLE
    summary = "One game between all the entrants (what `tourney play` stores)."


class Match(OneTable):
    name = FormatName.MATCH
    summary = "A best-of-N match between all the entrants (what `tourney match` stores)."


class League(OneTable):
    name = FormatName.LEAGUE
    summary = "A points league: every entrant at one table for `games` games, fewest points first."
