"""The round robin: every entrant meets every other the same number of times."""

from __future__ import annotations

import itertools
import random
from typing import ClassVar

from tourney import seating, seeding
from tourney.formats.base import EventSettings, Format, FormatName, Problem, RoundsSettings


class RoundRobin(Format):
    """Tables of 2: every pair plays one series per round, seats swapped in odd rounds. Tables of
    k > 2 with n entrants: n tables per round, table i holding entrants i, i+1, ..., i+k-1
    (mod n), so everyone plays k series per round; the order round each table is planned for the
    whole event by :func:`tourney.seating.plan` (seeded from the event seed), so that each
    entrant sits after each other about as often as before it, and in every seat about equally."""

    name = FormatName.ROUND_ROBIN
    settings: ClassVar[type[EventSettings]] = RoundsSettings
    summary = "Every entrant meets every other (tables of 2) or every seat (larger tables), `rounds` times."

    def check_players(self, players: int, n: int) -> None:
        if players > n:
            raise Problem("event.players", f"tables of {players} need at least {players} entrants")

    def tables(self, event: dict) -> list[tuple[int, list[str]]]:
        names, k = list(event["entrants"]), event["players"]
        n = len(names)
        plans: list[tuple[int, list[str]]] = []
        for r in range(event["rounds"]):
            if k == 2:
                for i, j in itertools.combinations(range(n), 2):
                    plans.append((r, [names[i], names[j]] if r % 2 == 0 else [names[j], names[i]]))
            else:
                plans.extend((r, [names[(i + j) % n] for j in range(k)]) for i in range(n))
        if k > 2:
            seated = seating.plan([t for _, t in plans], random.Random(seeding.derive("seating", event["seed"])))
            plans = [(r, t) for (r, _), t in zip(plans, seated)]
        return plans
