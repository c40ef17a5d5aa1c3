"""Schedules: the series an event is made of, in order (round robin, gauntlet, the first round
of a Swiss or knockout, and one series for the other formats)."""

from __future__ import annotations

import itertools

from tourney import seeding


def schedule(event: dict, secret: str | None = None) -> list[dict]:
    """The event's series in order: ``{"idx", "round", "kind", "seed", "games_target",
    "max_games", "entrants": [names in seat order]}``.

    Round robin, tables of 2: every pair plays one series per round (seats swapped in odd
    rounds). Tables of k > 2 with n entrants: n tables per round, table i seats entrants
    i, i+1, ..., i+k-1 (mod n) in seats 0..k-1, so everyone plays k series per round, once in
    every seat.

    Gauntlet: in every round each candidate plays each member of the pool (the other
    entrants), the candidate in seat 0 in even rounds. Swiss and knockout: only the first
    round (later ones depend on results: :mod:`tourney.events.rounds`); a table of one is a bye.
    """
    from tourney.events import rounds

    names = list(event["entrants"])
    fmt = event["format"]
    if fmt == "sprt":  # the first batch; the test adds the others (tourney.events.sprt)
        from tourney.events import sprt

        return sprt.batch(event, 0, secret)
    if fmt in ("swiss", "knockout"):
        return [rounds.series_item(event, idx, 0, table, secret)
                for idx, table in enumerate(rounds.first_round(event))]
    unit = event["unit"]
    target = event["games"]
    plans: list[tuple[int, list[str]]] = []
    if fmt == "gauntlet":
        pool = [n for n in names if n not in event["candidates"]]
        for r in range(event["rounds"]):
            for c in event["candidates"]:
                for p in pool:
                    plans.append((r, [c, p] if r % 2 == 0 else [p, c]))
    elif fmt != "round-robin":
        plans.append((0, names))
    else:
        n, k = len(names), event["players"]
        for r in range(event["rounds"]):
            if k == 2:
                for i, j in itertools.combinations(range(n), 2):
                    pair = [names[i], names[j]] if r % 2 == 0 else [names[j], names[i]]
                    plans.append((r, pair))
            else:
                for i in range(n):
                    plans.append((r, [names[(i + j) % n] for j in range(k)]))
    return [
        {
            "idx": idx,
            "round": rnd,
            "kind": unit,
            "seed": seeding.series_seed(event["seed"], idx, secret),
            "games_target": target,
            "max_games": event.get("max_games"),
            "entrants": table,
        }
        for idx, (rnd, table) in enumerate(plans)
    ]
