"""Playing one series with its entrants: in a worker process or in the main process.

A series is played game by game; every finished game is sent to ``emit`` as plain data for the
main process to store. A resumed series first plays its stored games again, unrecorded, so
that bots that keep state across a series are where they were.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field

from tourney import seeding
from tourney.events.series import SeriesState


def game_payload(record, idx: int, players: int, leg: int | None = None) -> dict:
    """The JSON-ready data of a finished game, for the main process to store; ``leg`` is the
    0-based leg the game belongs to (its own ``idx`` when a leg is one deal)."""
    result = record.result
    fp = record.first_player
    faults = {int(k): v for k, v in (record.faults or {}).items()}
    eliminated = set(result.eliminated or [])
    return {
        "idx": idx,
        "leg": idx if leg is None else leg,
        "rule_set": record.rule_set,
        "options": record.options or {},
        "seed": record.seed,
        "players": players,
        "first_player": fp,
        "turn_order": [(fp + i) % players for i in range(players)],
        "teams": record.teams,
        "winners": list(result.winners),
        "points": list(result.points),
        "placements": list(result.placements),
        "reason": result.reason,
        "detail": result.detail or "",
        "decisions": record.decisions,
        "seconds": round(record.seconds, 4),
        "choices": list(record.choices),
        "log": list(record.log or []),
        "stderr": {int(k): v for k, v in (record.stderr or {}).items()},
        "faults": {int(k): v for k, v in (getattr(record, "fault_details", None) or faults).items()},
        "seats": [
            {"seat": s, "points": result.points[s], "placement": result.placements[s],
             "eliminated": s in eliminated, "fault": _fault_code(faults.get(s))}
            for s in range(players)
        ],
    }


def _fault_code(value):
    if value is None:
        return None
    return str(value).split(":", 1)[0].strip() or str(value)


@dataclass
class SeriesTask:
    """Everything a worker needs to play (or finish) one series; plain, picklable data."""

    idx: int
    kind: str
    rule_set: str
    options: dict
    event_seed: int
    seed: int
    games_target: int
    max_games: int | None
    entrants: list[dict]  # resolved entrant specs in seat order
    done: list[dict] = field(default_factory=list)  # stored games (first_player, winners, ...)


def run_series(task: SeriesTask, emit, on_line=None, opened: list | None = None) -> None:
    """Play a series; ``emit(("game", idx, payload, result_or_None))`` after every new game and
    ``emit(("warn", idx, text))`` for a re-played stored game that came out differently.
    ``opened``, if given, is filled with the open entrants (a worker closes them if it must quit)."""
    from tourney.bots.entrants import open_entrant
    from tourney.bots.referee import play_game
    from tourney.config import HUMAN, entrant_spec

    n = len(task.entrants)
    state = SeriesState(task.kind, n, task.seed, task.games_target, task.max_games,
                        task.rule_set, task.options)
    plan = []
    for g in task.done:  # recompute the RNG draws of the stored games
        plan.append(state.next_first_player())
        state.add(g)
    if state.over():
        return
    replay_state = SeriesState(task.kind, n, task.seed, task.games_target, task.max_games,
                               task.rule_set, task.options)
    with ExitStack() as stack:
        entrants = [
            stack.enter_context(
                open_entrant(entrant_spec(spec), seed=seeding.entrant_seed(task.event_seed,
                                                                            task.idx, seat))
            )
            for seat, spec in enumerate(task.entrants)
        ]
        if opened is not None:
            opened[:] = entrants
        # bring the bots to where they were; a person remembers, and must not be asked again
        catch_up = [] if any(spec.get("builtin") == HUMAN for spec in task.entrants) else task.done
        for gi, stored in enumerate(catch_up):
            fp = stored["first_player"]
            record = play_game(
                entrants, rule_set=task.rule_set, options=replay_state.game_options(),
                seed=seeding.game_seed(task.event_seed, task.idx, gi), first_player=fp,
                series=replay_state.info(),
            )
            replay_state.add(stored)
            if list(record.result.winners) != list(stored["winners"]) or list(
                    record.result.points) != list(stored["points"]):
                emit(("warn", task.idx, f"re-played game {gi} differs from the stored one"))
        while not state.over():
            gi = len(state.games)
            fp = state.next_first_player()
            record = play_game(
                entrants, rule_set=task.rule_set, options=state.game_options(),
                seed=seeding.game_seed(task.event_seed, task.idx, gi), first_player=fp,
                series=state.info(), on_line=on_line,
            )
            payload = game_payload(record, gi, n, leg=state.leg_index())
            state.add(payload)
            payload["tally"] = state.tally()  # not stored: for progress lines
            emit(("game", task.idx, payload, state.result() if state.over() else None))
