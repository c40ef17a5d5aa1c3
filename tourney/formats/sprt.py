"""The SPRT event: a candidate against a baseline, batch after batch, until the sequential test
answers (:mod:`tourney.formats.sequential` has the batches and the test)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, model_validator

from tourney.formats import sequential as sprt
from tourney.formats.base import EventSettings, Format, FormatName, Problem, Unit, UnitSettings


class SprtSettings(UnitSettings):
    elo0: float = Field(sprt.DEFAULTS["elo0"],
                        description="H0: the candidate is at most this much better (logistic Elo).")
    elo1: float = Field(sprt.DEFAULTS["elo1"],
                        description="H1: the candidate is at least this much better; above elo0.")
    alpha: float = Field(sprt.DEFAULTS["alpha"], gt=0, lt=0.5,
                         description="Chance of accepting H1 when H0 holds.")
    beta: float = Field(sprt.DEFAULTS["beta"], gt=0, lt=0.5,
                        description="Chance of accepting H0 when H1 holds.")
    max_games: int = Field(sprt.DEFAULTS["max_games"], ge=2, description=(  # type: ignore[assignment]
        "Play at most this many games, then stop undecided (inconclusive); the last batch is cut to "
        "fit (with duplicate = true to whole pairs, at tables of K to whole sets of 2K games)."))
    games_per_series: int = Field(int(sprt.DEFAULTS["games_per_series"]), description=(
        "Single games each series plays with the same two bot processes: 1, 2, 4 or 8 (the test "
        "is still updated every 8 games; `tourney sprt` defaults to 2); ignored with duplicate = true."))
    expected = {**UnitSettings.expected, "games_per_series": "1, 2, 4 or 8", "alpha": "a probability between 0 and 0.5",
                "beta": "a probability between 0 and 0.5", "max_games": "at least 2 games"}

    @model_validator(mode="after")
    def _band(self) -> SprtSettings:
        if self.games_per_series not in sprt.SERIES_GAMES:
            raise Problem("event.games_per_series",
                          f"games_per_series is 1, 2, 4 or 8, got {self.games_per_series}")
        if not self.elo0 < self.elo1:
            raise Problem("event.elo1", f"elo1 must be above elo0, got elo0 = {self.elo0:g}, elo1 = {self.elo1:g}")
        return self


class Sprt(Format):
    """Two entrants, the candidate first; batches of single games (seats alternating) or, with
    ``duplicate = true``, mirror pairs. At tables of ``players`` = K from 3 to 8: the candidate,
    the baseline and the K-1 of the field, in batches of substitution sets."""

    name = FormatName.SPRT
    settings: ClassVar[type[EventSettings]] = SprtSettings
    units = (Unit.SINGLE,)
    reports = ("sprt",)
    caps_games = True
    summary = "Candidate against baseline in batches until the SPRT accepts H0 or H1, or `max_games`."

    def check(self, raw: dict, entrant_names: list[str], owners: dict[str, list[str]]) -> tuple[dict, int]:
        event, concurrency = super().check(raw, entrant_names, owners)
        if event["players"] > 2:
            event["duplicate"] = True  # a substitution set is always played on duplicate deals
            games = 2 * event["players"]
            if event["sprt"]["max_games"] < games:
                raise Problem("event.max_games", f"a set at tables of {event['players']} is {games} games: "
                              f"max_games must allow one, got {event['sprt']['max_games']}")
        return event, concurrency

    def check_entrants(self, names: list[str], defined: list[str]) -> list[str]:
        names = super().check_entrants(names, defined)
        if len(names) > 9:
            raise Problem("event.entrants", "an sprt event tests a candidate against one baseline at a "
                          f"table of at most 8: at most 9 entrants, got {len(names)}")
        return names

    def default_players(self, n: int) -> int:
        return 2 if n == 2 else n - 1

    def check_players(self, players: int, n: int) -> None:
        if players == 2 and n != 2:
            raise Problem("event.entrants", "an sprt event tests a candidate against one "
                          f"baseline: 2 entrants, got {n}")
        if players > 2 and n != players + 1:
            raise Problem("event.entrants", f"an sprt event at tables of {players} lists the candidate, the "
                          f"baseline and the {players - 1} others of the field: {players + 1} entrants, got {n}")

    def seed_index(self, event: dict, idx: int) -> int | None:
        return sprt.seed_index(event, idx) if sprt.at_table(event) else None

    def extra(self, s: EventSettings, names: list[str]) -> dict:
        assert isinstance(s, SprtSettings)
        more = {} if s.games_per_series == 1 else {"games_per_series": s.games_per_series}
        # stored only when not 1, so that an event stored before the setting keeps its hash
        return {"sprt": {"elo0": float(s.elo0), "elo1": float(s.elo1), "alpha": float(s.alpha),
                         "beta": float(s.beta), "max_games": s.max_games, **more}}

    def first_series(self, event: dict, secret: str | None = None) -> list[dict]:
        return sprt.batch(event, 0, secret, sprt.settings(event)["max_games"])

    def next_series(self, db, event_id: int, event: dict, rows: list[dict],
                    secret: str | None) -> list[dict]:
        left = sprt.games_left(event, sprt.test_of(db, event_id, event))
        return sprt.batch(event, len(rows), secret, left) if left else []

    def next_series_ahead(self, event: dict, rows: list[dict], secret: str | None) -> list[dict]:
        return sprt.batch_ahead(event, rows, secret)

    def between_rounds(self, db, event_id: int, event: dict) -> str | None:
        # where the test stands, while it goes on: the verdict is the command's own last line
        if not sprt.games_left(event, sprt.test_of(db, event_id, event)):
            return None
        return sprt.line(sprt.report(db, event_id, event))

    def report(self, db, event_id: int, event: dict, rows: list[dict]) -> dict:
        return {"sprt": sprt.report(db, event_id, event)}

    def report_lines(self, report: dict) -> list[str]:
        return [sprt.line(report["sprt"])] if "sprt" in report else []
