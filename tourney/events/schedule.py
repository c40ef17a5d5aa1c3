"""Schedules: the series an event starts with, as its format plans them
(:mod:`tourney.formats`: a round robin or a gauntlet up front, the first round of a Swiss or
knockout, the first batch of an SPRT, one series for the formats of one table)."""

from __future__ import annotations

from tourney import formats


def schedule(event: dict, secret: str | None = None) -> list[dict]:
    """The event's first series in order: ``{"idx", "round", "kind", "seed", "games_target",
    "max_games", "entrants": [names in seat order]}`` (a table of one is a bye)."""
    return formats.get(event["format"]).first_series(event, secret)
