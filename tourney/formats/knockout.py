"""The knockout: a bracket of matches, the winner of each tie going through
(:mod:`tourney.formats.rounds` has the bracket)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from tourney.formats import rounds
from tourney.formats.base import EventSettings, Format, FormatName, Unit, UnitSettings, series_item


class KnockoutSettings(UnitSettings):
    seeding: Literal["config", "rating"] = Field("config", description=(
        "How the bracket is seeded: \"config\" (the entrants' order) or \"rating\" (by the "
        "ratings already stored in the database)."))


class Knockout(Format):
    name = FormatName.KNOCKOUT
    settings: ClassVar[type[EventSettings]] = KnockoutSettings
    units = (Unit.MATCH,)
    reports = ("bracket",)
    summary = ("A bracket of the next power of two, byes to the top seeds; each tie is a match "
               "and its winner goes through.")

    def extra(self, s: EventSettings, names: list[str]) -> dict:
        assert isinstance(s, KnockoutSettings)
        return {"seeding": s.seeding}

    def prepare(self, db, event: dict) -> dict:
        if event.get("seeding") != "rating":
            return event
        return {**event, "entrants": rounds.rating_order(db, event["entrants"])}

    def tables(self, event: dict) -> list[tuple[int, list[str]]]:
        return [(0, t) for t in rounds.first_bracket_round(list(event["entrants"]))]

    def next_series(self, db, event_id: int, event: dict, rows: list[dict],
                    secret: str | None) -> list[dict]:
        last = max(s["round"] for s in rows)
        ties = [s for s in rows if s["round"] == last]
        if len(ties) == 1:
            return []  # the final is played
        seeds = rounds.seeds_from_rows(rows)
        low = rounds.low_points_win(event)
        through = [rounds.advancer(s, seeds, low) for s in ties]
        return [series_item(event, len(rows) + i, last + 1, through[2 * i:2 * i + 2], secret)
                for i in range((len(through) + 1) // 2)]

    def report(self, db, event_id: int, event: dict, rows: list[dict]) -> dict:
        return {"bracket": rounds.bracket(rows, event)} if rows else {}

    def report_lines(self, report: dict) -> list[str]:
        return rounds.bracket_lines(report["bracket"]) if "bracket" in report else []
