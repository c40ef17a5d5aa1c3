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
from tourney.bots.pool import WarmPool
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
    decided: frozenset[int] = getattr(record, "decided_faults", frozenset())
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
             "eliminated": s in eliminated, "fault": _fault_code(faults.get(s)),
             # a fault that cost the seat its game; one after the game was decided did not
             "forfeit": None if s not in faults else s not in decided}
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
    #: the series whose deal and bot seeds this one plays with (None: its own); the two series of
    #: an SPRT's substitution set at a table of more than two share them
    seed_idx: int | None = None

    @property
    def seeds_of(self) -> int:
        return self.idx if self.seed_idx is None else self.seed_idx

    def state(self) -> SeriesState:
        return SeriesState(self.kind, len(self.entrants), self.seed, self.games_target,
                           self.max_games, self.rule_set, self.options,
                           duplicate=self.duplicate, play_all=self.play_all)


def run_series(task: SeriesTask, emit, on_line=None, opened: list | None = None,
               pool: WarmPool | None = None) -> None:
    """Play a series; ``emit(("game", idx, payload, result_or_None))`` after every new game and
    ``emit(("warn", idx, text))`` for a re-played stored game that came out differently.
    ``opened``, if given, is filled with the open entrants (a worker closes them if it must quit).
    ``pool`` holds the worker's warm bot processes (:mod:`tourney.bots.pool`): the series takes
    its bots from it and gives them back; without one, the bots live for this series only."""
    state = task.state()
    for g in task.done:  # recompute the RNG draws of the stored games
        state.next_first_player()
        state.add(g)
    if state.over():
        return
    own = pool is None
    if pool is None:
        pool = WarmPool()
    try:
        if task.duplicate:
            _run_duplicate(task, state, emit, on_line, opened, pool)
        else:
            _run_plain(task, state, emit, on_line, opened, pool)
    finally:
        if own:
            pool.close()


def bot_seeds(task: SeriesTask, gi: int) -> list[int]:
    """Each seat's bot seed for game ``gi`` of the series: sent in ``game_start`` to bots that
    reuse a process (protocol 1.2), so that a warm bot plays as a fresh one would."""
    return [seeding.game_entrant_seed(task.event_seed, task.seeds_of, seat, gi, task.secret)
            for seat in range(len(task.entrants))]


def _series_info(task: SeriesTask, state: SeriesState) -> dict:
    return {**state.info(), "index": task.idx}


def _prepare(entrants: list, seeds: list[int]) -> dict[int, str]:
    """Between games: replace the processes due for it (``max_games``, ``max_rss_mb``) and,
    with ``restart = "game"``, every process; the notes for the game's record, by seat."""
    notes = {}
    for seat, e in enumerate(entrants):
        spec = getattr(e, "spec", None)
        if spec is not None and spec.reuse.restart == "game" and spec.command is not None:
            if e.games_in_process:
                e.recycle()
            e.seed = seeds[seat]  # a fresh process per game: each greeted with the game's seed
            continue
        note = WarmPool.between_games(e)
        if note is not None:
            notes[seat] = note
    return notes


def _noted(record, notes: dict[int, str]):
    """The game's record with the pool's notes in front of each seat's stderr (stored with the
    game: a process is never replaced without a record)."""
    for seat, note in notes.items():
        record.stderr[seat] = note + record.stderr.get(seat, "")
    return record


def _run_plain(task: SeriesTask, state: SeriesState, emit, on_line, opened: list | None,
               pool: WarmPool) -> None:
    n = len(task.entrants)
    replay_state = task.state()
    entrants = []
    try:
        for seat, spec in enumerate(task.entrants):
            entrants.append(pool.take(entrant_spec(spec), seed=seeding.entrant_seed(
                task.event_seed, task.idx, seat, task.secret)))
        if opened is not None:
            opened[:] = entrants
        for e in entrants:
            e.launch()  # the bots not yet running start side by side
        # bring the bots to where they were; a person remembers, and must not be asked again
        catch_up = [] if any(spec.get("builtin") == HUMAN for spec in task.entrants) else task.done
        for gi, stored in enumerate(catch_up):
            fp = stored["first_player"]
            seeds = bot_seeds(task, gi)
            seated = [entrants[slot] for slot in replay_state.seating()]
            _prepare(seated, seeds)
            record = play_game(
                seated, rule_set=task.rule_set, options=replay_state.game_options(),
                seed=seeding.game_seed(task.event_seed, task.idx, gi, task.secret), first_player=fp,
                series=_series_info(task, replay_state), bot_seeds=seeds,
            )
            replay_state.add(stored)
            if list(record.result.winners) != list(stored["winners"]) or list(
                    record.result.points) != list(stored["points"]):
                emit(("warn", task.idx, f"re-played game {gi} differs from the stored one"))
        while not state.over():
            gi = len(state.games)
            fp = state.next_first_player()
            slots = state.seating()  # a league of three or more varies its order game by game
            seated = [entrants[slot] for slot in slots]
            seeds = bot_seeds(task, gi)
            notes = _prepare(seated, seeds)
            record = _noted(play_game(
                seated, rule_set=task.rule_set, options=state.game_options(),
                seed=seeding.game_seed(task.event_seed, task.idx, gi, task.secret), first_player=fp,
                series=_series_info(task, state), on_line=on_line, bot_seeds=seeds,
            ), notes)
            payload = game_payload(record, gi, n, leg=state.leg_index(), slots=slots)
            state.add(payload)
            payload["tally"] = state.tally()  # not stored: for progress lines
            emit(("game", task.idx, payload, state.result() if state.over() else None))
    finally:
        pool.release(entrants)


def _run_duplicate(task: SeriesTask, state: SeriesState, emit, on_line,
                   opened: list | None, pool: WarmPool) -> None:
    """Play on a duplicate series: each game with the set's deal and its rotation's seating. No
    process is ever dealt a deal it has seen: a warm process that played this deal from another
    seat is passed over, and a new one started if none is left (a bot that does not reuse
    processes gets one for this game alone, as ever)."""
    n = len(task.entrants)
    while not state.over():
        gi = len(state.games)
        fp = state.next_first_player()
        slots = state.seating()
        set_idx, deal = state.deal_key()
        deal_seed = seeding.deal_seed(task.event_seed, task.seeds_of, set_idx, deal, task.secret)
        seeds = bot_seeds(task, gi)

        def unseen(e, deal_seed=deal_seed) -> bool:
            return deal_seed not in e.deals_seen

        entrants = []
        try:
            for seat in range(n):
                spec = entrant_spec(task.entrants[slots[seat]])
                entrants.append(pool.take(spec, seed=seeds[seat], fits=unseen))
            if opened is not None:
                opened[:] = entrants
            for e in entrants:
                e.launch()
            notes = _prepare(entrants, seeds)
            for e in entrants:
                if hasattr(e, "deals_seen"):
                    e.deals_seen.add(deal_seed)
            record = _noted(play_game(
                entrants, rule_set=task.rule_set, options=state.game_options(),
                seed=deal_seed, first_player=fp, series=_series_info(task, state), on_line=on_line,
                bot_seeds=seeds,
            ), notes)
        finally:
            pool.release(entrants)
        payload = game_payload(record, gi, n, leg=state.leg_index(), slots=slots,
                               set_position=state.set_position())
        state.add(payload)
        payload["tally"] = state.tally()
        emit(("game", task.idx, payload, state.result() if state.over() else None))
