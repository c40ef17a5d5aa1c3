"""The Swiss: a fixed number of rounds, each paired from the scores so far
(:mod:`tourney.formats.rounds` has the pairing and the tie-breaks)."""

from __future__ import annotations

import math
import random
from typing import ClassVar

from pydantic import Field, field_validator

from tourney import seating, seeding
from tourney.formats import rounds
from tourney.formats.base import (
    EventSettings,
    Format,
    FormatName,
    Problem,
    RoundsSettings,
    Unit,
    series_item,
)


class SwissSettings(RoundsSettings):
    rounds: int | None = Field(None, ge=1, le=1000, description=(  # type: ignore[assignment]
        "Rounds to play (default: ceil(log2 n) for n entrants, enough to separate the field)."))
    bye_score: float = Field(1.0, json_schema_extra={"enum": [1, 0.5, 0]}, description=(
        "What a bye scores, the odd entrant out of a round: 1, 0.5 or 0."))
    expected = {**RoundsSettings.expected, "bye_score": "1, 0.5 or 0"}

    @field_validator("bye_score")
    @classmethod
    def _bye(cls, value: float) -> float:
        if value not in (1.0, 0.5, 0.0):
            raise ValueError("not a bye score")
        return value


class Swiss(Format):
    name = FormatName.SWISS
    settings: ClassVar[type[EventSettings]] = SwissSettings
    units = (Unit.MATCH, Unit.LEAGUE, Unit.SINGLE)
    reports = ("swiss",)
    summary = ("Rounds paired by score (Monrad with backtracking, no rematches where possible); "
               "ranked by score, Buchholz Cut-1, Sonneborn-Berger.")

    def check_players(self, players: int, n: int) -> None:
        if players > n:
            raise Problem("event.players", f"tables of {players} need at least {players} entrants")

    def rounds_of(self, s: EventSettings, n: int) -> int:
        given = getattr(s, "rounds", None)
        return given if given is not None else max(1, math.ceil(math.log2(n)))

    def extra(self, s: EventSettings, names: list[str]) -> dict:
        assert isinstance(s, SwissSettings)
        return {"bye_score": float(s.bye_score)}

    def _round(self, event: dict, history: list[rounds.Played]) -> list[list[str]]:
        names = list(event["entrants"])
        if event["players"] > 2:
            # the ranking decides who meets, never the order round the table (tourney.seating)
            tables = rounds.swiss_tables(names, history, event["players"])
            ledger = seating.Ledger.of(p.entrants for p in history if not p.bye)
            rnd = len({p.round for p in history})
            return seating.seat_tables(tables, ledger, random.Random(seeding.derive("seating", event["seed"], rnd)))
        tables, bye = rounds.swiss_round(names, history)
        return tables + ([[bye]] if bye else [])

    def tables(self, event: dict) -> list[tuple[int, list[str]]]:
        return [(0, t) for t in self._round(event, [])]

    def next_series(self, db, event_id: int, event: dict, rows: list[dict],
                    secret: str | None) -> list[dict]:
        rnd = max(s["round"] for s in rows) + 1
        if rnd >= event["rounds"]:
            return []
        tables = self._round(event, rounds.played_from_rows(rows))
        return [series_item(event, len(rows) + i, rnd, t, secret) for i, t in enumerate(tables)]

    def report(self, db, event_id: int, event: dict, rows: list[dict]) -> dict:
        return {"swiss": rounds.swiss_standings(list(event["entrants"]), rounds.played_from_rows(rows),
                                                event["seed"])}

    def report_lines(self, report: dict) -> list[str]:
        return rounds.swiss_lines(report["swiss"]) if "swiss" in report else []
