"""Playing one series with its entrants: in a worker process or in the main process.

A series is played game by game; every finished game is sent to ``emit`` as plain data for the
main process to store. A resumed series first plays its stored games again, unrecorded, so
that bots that keep state across a series are where they were.

In duplicate mode (:class:`~tourney.events.series.SeriesState`, ``duplicate``) every game is
played by bots opened for that game alone, so no bot can carry what it saw of a deal into the
deal's other rotations; for the same reason a resumed duplicate series needs no re-play.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field

from tourney import seeding
from tourney.bots.entrants import open_entrant
from tourney.bots.referee import play_game
from tourney.config import HUMAN, entrant_spec
from tourney.events.series import SeriesState


def game_payload(record, idx: int, players: int, leg: int | None = None,
                 slots: list[int] | None = None, set_position: tuple[int, int] | None = None
                 ) -> dict:
    """The JSON-ready data of a finished game, for the main process to store; ``leg`` is the
    0-based leg the game belongs to (its own ``idx`` when a leg is one deal), ``slots`` the
    series slot sitting in each seat (default: slot = seat), ``set_position`` the duplicate
    set and rotation of the game (None outside duplicate mode)."""
    result = record.result
    fp = record.first_player
    faults = {int(k): v for k, v in (record.faults or {}).items()}
    eliminated = set(result.eliminated or [])
    return {
        "idx": idx,
        "leg": idx if leg is None else leg,
        "slots": list(range(players)) if slots is None else list(slots),
        "duplicate_set": None if set_position is None else set_position[0],
        "rotation": None if set_position is None else set_position[1],
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


def side_by_side(stack: ExitStack, entrants: list) -> None:
    """Start the subprocess bots of a series together, and when ``stack`` closes, say goodbye
    to them all before waiting for any to exit: their start-ups and exits overlap instead of
    adding up (bench/verdict.py: a series of one game is mostly starting and ending two bots).
    Each bot is still greeted, waited for and ended as :meth:`SubprocessEntrant.close` says."""
    for e in entrants:
        e.launch()

    def goodbye_all() -> None:
        for e in entrants:
            e.say_goodbye()

    stack.callback(goodbye_all)  # runs first: the entrants' own closes were entered before


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
    secret: str | None = None  # the event's secret (tourney.seeding); None: public seeds
    duplicate: bool = False
    play_all: bool = False

    def state(self) -> SeriesState:
        return SeriesState(self.kind, len(self.entrants), self.seed, self.games_target,
                           self.max_games, self.rule_set, self.options,
                           duplicate=self.duplicate, play_all=self.play_all)


def run_series(task: SeriesTask, emit, on_line=None, opened: list | None = None) -> None:
    """Play a series; ``emit(("game", idx, payload, result_or_None))`` after every new game and
    ``emit(("warn", idx, text))`` for a re-played stored game that came out differently.
    ``opened``, if given, is filled with the open entrants (a worker closes them if it must quit)."""
    state = task.state()
    for g in task.done:  # recompute the RNG draws of the stored games
        state.next_first_player()
        state.add(g)
    if state.over():
        return
    if task.duplicate:
        _run_duplicate(task, state, emit, on_line, opened)
        return
    n = len(task.entrants)
    replay_state = task.state()
    with ExitStack() as stack:
        entrants = [
            stack.enter_context(
                open_entrant(entrant_spec(spec), seed=seeding.entrant_seed(task.event_seed,
                                                                            task.idx, seat, task.secret))
            )
            for seat, spec in enumerate(task.entrants)
        ]
        if opened is not None:
            opened[:] = entrants
        side_by_side(stack, entrants)
        # bring the bots to where they were; a person remembers, and must not be asked again
        catch_up = [] if any(spec.get("builtin") == HUMAN for spec in task.entrants) else task.done
        for gi, stored in enumerate(catch_up):
            fp = stored["first_player"]
            record = play_game(
                entrants, rule_set=task.rule_set, options=replay_state.game_options(),
                seed=seeding.game_seed(task.event_seed, task.idx, gi, task.secret), first_player=fp,
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
                seed=seeding.game_seed(task.event_seed, task.idx, gi, task.secret), first_player=fp,
                series=state.info(), on_line=on_line,
            )
            payload = game_payload(record, gi, n, leg=state.leg_index())
            state.add(payload)
            payload["tally"] = state.tally()  # not stored: for progress lines
            emit(("game", task.idx, payload, state.result() if state.over() else None))


def _run_duplicate(task: SeriesTask, state: SeriesState, emit, on_line,
                   opened: list | None) -> None:
    """Play on a duplicate series: each game with the set's deal, its rotation's seating and
    bots opened for that game only (a bot never sees a deal it will meet again)."""
    n = len(task.entrants)
    while not state.over():
        gi = len(state.games)
        fp = state.next_first_player()
        slots = state.seating()
        set_idx, deal = state.deal_key()
        with ExitStack() as stack:
            entrants = [
                stack.enter_context(open_entrant(
                    entrant_spec(task.entrants[slots[seat]]),
                    seed=seeding.game_entrant_seed(task.event_seed, task.idx, seat, gi, task.secret)))
                for seat in range(n)
            ]
            if opened is not None:
                opened[:] = entrants
            side_by_side(stack, entrants)
            record = play_game(
                entrants, rule_set=task.rule_set, options=state.game_options(),
                seed=seeding.deal_seed(task.event_seed, task.idx, set_idx, deal, task.secret),
                first_player=fp, series=state.info(), on_line=on_line,
            )
        payload = game_payload(record, gi, n, leg=state.leg_index(), slots=slots,
                               set_position=state.set_position())
        state.add(payload)
        payload["tally"] = state.tally()
        emit(("game", task.idx, payload, state.result() if state.over() else None))
