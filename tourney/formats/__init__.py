"""Event formats, one class each: the keys it takes, its first series, its next round, and what
its report adds.

    >>> from tourney.formats import read_event, get
    >>> event, _ = read_event({"name": "m", "format": "match"}, ["a", "b"])
    >>> event["unit"], event["games"], event["max_games"]
    ('match', 3, 7)
    >>> [s["entrants"] for s in get(event["format"]).first_series(event)]
    [['a', 'b']]
    >>> read_event({"name": "m", "format": "match", "games": 4}, ["a", "b"])
    Traceback (most recent call last):
    tourney.formats.base.Problem: event.games: a match is best of an odd number of games, got 4

:func:`read_event` reads an ``[event]`` table; :func:`get` gives the format of a stored event
(``event["format"]``). A new format is one module here with a :class:`~tourney.formats.base.Format`
subclass, listed in :data:`FORMATS`.
"""

from __future__ import annotations

import json

from tourney.formats.base import EventSettings, Format, FormatName, Problem, Unit, problem_of
from tourney.formats.gauntlet import Gauntlet
from tourney.formats.knockout import Knockout
from tourney.formats.round_robin import RoundRobin
from tourney.formats.sprt import Sprt
from tourney.formats.swiss import Swiss
from tourney.formats.table import League, Match, Single
from tourney.results import store

#: every format by name, in the order the docs list them
FORMATS: dict[FormatName, Format] = {f.name: f for f in (
    Single(), Match(), League(), RoundRobin(), Gauntlet(), Swiss(), Knockout(), Sprt())}

#: keys that only some formats take, and which
OWNERS: dict[str, list[str]] = {}
for _fmt in FORMATS.values():
    for _key in _fmt.settings.model_fields:
        OWNERS.setdefault(_key, []).append(str(_fmt.name))
OWNERS = {k: v for k, v in OWNERS.items() if len(v) < len(FORMATS)}


def get(name: str) -> Format:
    """The format called ``name`` (a :class:`FormatName` or its string)."""
    return FORMATS[FormatName(name)]


def read_event(raw, entrant_names: list[str]) -> tuple[dict, int]:
    """The normalised ``[event]`` table (the dict stored and hashed) and its concurrency;
    raises :class:`Problem` naming the key and what it allows."""
    if not isinstance(raw, dict):
        raise Problem("event", "expected a table [event]")
    if "format" not in raw:
        raise Problem("event", "missing field 'format'")
    name = raw["format"]
    if not isinstance(name, str) or name not in FORMATS:
        raise Problem("event.format", f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    return get(name).check(raw, entrant_names, OWNERS)


def stored_report(db, event_name: str) -> dict:
    """What the format of a stored event adds to its reports (a Swiss table, a bracket, an
    SPRT's verdict); {} for formats that add nothing, or an unknown event."""
    ev = store.find_event(db, event_name)
    if ev is None or not ev["config"]:
        return {}
    event = json.loads(ev["config"]).get("event")
    if not event:
        return {}
    return get(event["format"]).report(db, ev["id"], event, store.series_rows(db, ev["id"]))


def report_lines(data: dict) -> list[str]:
    """The text lines of whatever format additions ``data`` holds (after a standings table)."""
    return [line for f in FORMATS.values() for line in f.report_lines(data)]


__all__ = ["FORMATS", "EventSettings", "Format", "FormatName", "Problem", "Unit", "read_event", "get",
           "problem_of", "report_lines", "stored_report"]
