"""The gauntlet: candidates play a pool of the other entrants, and not each other."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from tourney.formats.base import EventSettings, Format, FormatName, Problem, RoundsSettings, Unit


class GauntletSettings(RoundsSettings):
    candidates: list[str] = Field(min_length=1, description=(
        "The entrants that play the pool: every other entrant of the event."))
    expected = {**RoundsSettings.expected, "candidates": "a non-empty list of entrant names"}


class Gauntlet(Format):
    """In every round each candidate plays each member of the pool, the candidate in seat 0 in
    even rounds."""

    name = FormatName.GAUNTLET
    settings: ClassVar[type[EventSettings]] = GauntletSettings
    units = (Unit.MATCH, Unit.LEAGUE, Unit.SINGLE)
    summary = "Each candidate plays each member of the pool (the other entrants), `rounds` times."

    def extra(self, s: EventSettings, names: list[str]) -> dict:
        assert isinstance(s, GauntletSettings)
        for c in s.candidates:
            if c not in names:
                raise Problem("event.candidates", f"{c!r} is not an entrant of the event")
        if len(set(s.candidates)) != len(s.candidates):
            raise Problem("event.candidates", "a candidate is listed twice")
        if len(s.candidates) == len(names):
            raise Problem("event.candidates", "every entrant is a candidate: the pool is empty")
        return {"candidates": list(s.candidates)}

    def tables(self, event: dict) -> list[tuple[int, list[str]]]:
        pool = [n for n in event["entrants"] if n not in event["candidates"]]
        return [(r, [c, p] if r % 2 == 0 else [p, c])
                for r in range(event["rounds"]) for c in event["candidates"] for p in pool]
