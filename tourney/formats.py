"""Formats: single game, best-of-N match, points league, round robin; scheduling and running.

An event is a list of **series** (its schedule, see :func:`schedule`). A series is the unit
given to a worker: its entrants' processes live for the series, and the seating of game k
depends on game k-1. Only the main process writes the database: a worker sends every finished
game back (with the series' result when that game ended the series) and the main process
commits it in one transaction (:func:`tourney.store.record_game`).

Series rules (:class:`SeriesState`):

- **single**: one game; the first player is drawn from the series seed.
- **match** (best of N, N odd): the first to win N//2+1 games wins. A game without a winner counts
  for neither and another game is played; after ``max_games`` games without a decision the
  series is drawn. Game 1's first player is drawn from the series seed; after that the loser of
  the previous game goes first (with more than two players: the worst placed; several
  equally placed, or a game without a winner: drawn among them from the series seed).
- **league** (points): ``games`` games; every player scores the game's points (``Result.points``:
  one per card in hand, the winner zero, eliminated players as rulings.md item 13 / the rule
  set's ``eliminated_score`` option says); fewest total points ranks first. The player with
  the most points so far goes first in the next game; ties (and game 1, where all have 0) are
  broken with the series RNG.
- **legs**: where the rule set plays a game as a run of deals (crazy-eights to a target,
  super-crazy-eights' fifteen deals), a match counts such legs instead of single deals, a single
  game is one leg, and a league with ``games = 0`` is one leg (:class:`SeriesState`,
  docs/formats.md "Legs").

Entrants keep one seat for the whole series (seat = position in the series' entrant list); who
plays first changes, and each game stores ``first_player`` and its ``turn_order``.

**Resume.** Finished games are in the database. A series left unfinished is given to a worker
with its finished games; the worker opens its entrants (same seeds as before) and plays the
finished games again, unrecorded, so that bots that learn or keep an RNG across a series are in
the same state as in an uninterrupted run, then plays on. The stored games stay authoritative
(a re-played game that differs is reported as a warning).
"""

from __future__ import annotations

import itertools
import os
import queue as _queue
import random
import signal
import sys
from contextlib import ExitStack
from dataclasses import dataclass, field

from tourney import seeding, store

# ---------------------------------------------------------------------------------------------
# Schedules
# ---------------------------------------------------------------------------------------------


def schedule(event: dict) -> list[dict]:
    """The event's series in order: ``{"idx", "round", "kind", "seed", "games_target",
    "max_games", "entrants": [names in seat order]}``.

    Round robin, tables of 2: every pair plays one series per round (seats swapped in odd
    rounds). Tables of k > 2 with n entrants: n tables per round, table i seats entrants
    i, i+1, ..., i+k-1 (mod n) in seats 0..k-1, so everyone plays k series per round, once in
    every seat.
    """
    names = list(event["entrants"])
    unit = event["unit"]
    target = event["games"]
    plans: list[tuple[int, list[str]]] = []
    if event["format"] != "round-robin":
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
            "seed": seeding.series_seed(event["seed"], idx),
            "games_target": target,
            "max_games": event.get("max_games"),
            "entrants": table,
        }
        for idx, (rnd, table) in enumerate(plans)
    ]


# ---------------------------------------------------------------------------------------------
# Series rules
# ---------------------------------------------------------------------------------------------


#: a leg that never reaches its end (crazy-eights' high scoring with blocked deals scores nothing)
#: is stopped after this many deals and decided on its totals
MAX_DEALS_PER_LEG = 1000


@dataclass
class SeriesState:
    """The running state of one series: whose turn to start, when it is over, its result.

    Deterministic from ``seed`` and the games added, so a resumed series continues exactly.

    A **leg** is one game of the rule set as its rules define a game: a single deal, or for a
    rule set with series rules (``series_over``: crazy-eights to 100 points, super-crazy-eights
    fifteen deals) a run of deals until the rule set says it is over. Matches and single games
    count legs; a league counts deals (``games_target`` of them), or plays one leg when
    ``games_target`` is 0. Every deal is one stored game.
    """

    kind: str
    players: int
    seed: int
    games_target: int
    max_games: int | None = None
    rule_set: str | None = None
    options: dict | None = None
    wins: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    games: list[dict] = field(default_factory=list)

    def __post_init__(self):
        self.rng = random.Random(self.seed)
        self.wins = [0] * self.players
        self.points = [0] * self.players
        if self.kind == "match" and self.max_games is None:
            self.max_games = 2 * self.games_target + 1
        #: the rule set's module when legs are runs of deals, else None (a leg is one deal)
        self.module = None
        if self.rule_set and not (self.kind == "league" and self.games_target > 0):
            import engine

            module = engine.rule_set_module(self.rule_set)
            if hasattr(module, "series_over"):
                self.module = module
        self.legs: list[dict] = []  # finished legs: {"winners", "placements", "points", "deals"}
        self.leg_points = [0] * self.players
        self.leg_deals = 0
        self.dealer = None  # who dealt the first deal of the current leg

    # -- the next game ----------------------------------------------------------------------

    def game_options(self) -> dict:
        """The options of the next game (a deal-dependent rule set changes them per deal)."""
        base = dict(self.options or {})
        if self.module is not None and hasattr(self.module, "options_for_deal"):
            return self.module.options_for_deal(base, self.leg_deals + 1)
        return base

    def _draw(self, seats: list[int]) -> int:
        return seats[0] if len(seats) == 1 else seats[self.rng.randrange(len(seats))]

    def _losers(self, last: dict) -> list[int]:
        """Who goes first after ``last`` (a game or a leg): the worst placed, or everyone when
        nobody won."""
        if not last["winners"]:
            return list(range(self.players))
        worst = max(last["placements"])
        return [s for s in range(self.players) if last["placements"][s] == worst]

    def next_first_player(self) -> int:
        """Who plays first in the next game (uses the series RNG only when there is a tie)."""
        if self.module is not None:
            return self._next_first_player_in_leg()
        if not self.games or self.kind == "single":
            return self._draw(list(range(self.players)))
        if self.kind == "league":
            top = max(self.points)
            return self._draw([s for s in range(self.players) if self.points[s] == top])
        return self._draw(self._losers(self.games[-1]))

    def _next_first_player_in_leg(self) -> int:
        module, n = self.module, self.players
        if self.leg_deals == 0:  # a new leg: choose its first dealer
            if not self.legs:
                self.dealer = self._draw(list(range(n)))
            else:  # the loser of the previous leg plays first, as after a game of a match
                first = self._draw(self._losers(self.legs[-1]))
                self.dealer = next(d for d in range(n)
                                   if module.first_player_for_deal(1, d, n) == first)
        return module.first_player_for_deal(self.leg_deals + 1, self.dealer, n)

    def leg_index(self) -> int:
        """The 0-based leg the next game belongs to."""
        return len(self.legs) if self.module is not None else len(self.games)

    # -- counting -----------------------------------------------------------------------------

    def needed(self) -> int:
        return self.games_target // 2 + 1

    def over(self) -> bool:
        if self.kind == "match":
            played = len(self.legs) if self.module is not None else len(self.games)
            return max(self.wins) >= self.needed() or played >= self.max_games
        if self.module is not None:
            return len(self.legs) >= 1
        return len(self.games) >= self.games_target

    def _placements(self, totals: list[int]) -> list[int]:
        """Places by totals: lower first, or higher first with the rule set's high scoring."""
        key = list(totals)
        if self.module is not None and (self.options or {}).get("scoring") == "high":
            key = [-k for k in key]
        return [1 + sum(1 for o in key if o < k) for k in key]

    def add(self, game: dict) -> None:
        """Count a finished game: ``{"winners": [seats], "points": [...], "placements": [...]}``."""
        self.games.append(game)
        if self.module is None:
            for s in game["winners"]:
                self.wins[s] += 1
            for s in range(self.players):
                self.points[s] += game["points"][s]
            return
        scores = list(game["points"])
        if hasattr(self.module, "deal_scores"):
            scores = self.module.deal_scores(
                {"winners": list(game["winners"]), "reason": game.get("reason", ""),
                 "points": list(game["points"]), "placements": list(game["placements"]),
                 "eliminated": [], "detail": ""}, self.options or {})
        for s in range(self.players):
            self.points[s] += scores[s]
            self.leg_points[s] += scores[s]
        self.leg_deals += 1
        if self.kind == "league":  # a league's wins are deals won
            for s in game["winners"]:
                self.wins[s] += 1
        if (self.module.series_over(list(self.leg_points), self.options or {}, self.leg_deals)
                or self.leg_deals >= MAX_DEALS_PER_LEG):
            self._end_leg()

    def _end_leg(self) -> None:
        best = self.module.series_winner(list(self.leg_points), self.options or {})
        winners = best if len(best) == 1 else []  # a shared best total: the leg is drawn
        if self.kind != "league":
            for s in winners:
                self.wins[s] += 1
        self.legs.append({"winners": winners, "placements": self._placements(self.leg_points),
                          "points": list(self.leg_points), "deals": self.leg_deals})
        self.leg_points = [0] * self.players
        self.leg_deals = 0

    # -- reporting ------------------------------------------------------------------------------

    def info(self) -> dict:
        """The ``series`` object of a bot's game_start message (docs/protocol.md 3.3)."""
        info = {"kind": self.kind, "game": len(self.games) + 1, "scores": list(self.points),
                "wins": list(self.wins)}
        if self.kind == "single" and self.module is None:
            info["of"] = 1
        elif self.kind == "league" and self.games_target:
            info["of"] = self.games_target
        elif self.kind == "match":
            info["best_of"] = self.games_target
        if self.module is not None:
            info.update(leg=len(self.legs) + 1, deal=self.leg_deals + 1,
                        leg_scores=list(self.leg_points))
        return info

    def tally(self) -> dict:
        """Where the series stands after the last game added, for progress lines: ``wins``,
        ``points``; with legs also ``leg`` (1-based leg of that game), ``leg_scores`` (that
        leg's totals), ``leg_over`` and ``leg_winners`` (empty while running or when drawn)."""
        t = {"wins": list(self.wins), "points": list(self.points)}
        if self.module is not None:
            ended = self.leg_deals == 0 and bool(self.legs)
            last = self.legs[-1] if ended else None
            t.update(leg=len(self.legs) + (0 if ended else 1),
                     leg_scores=list(last["points"] if last else self.leg_points),
                     leg_over=ended, leg_winners=list(last["winners"]) if last else [])
        return t

    def result(self) -> dict:
        """``{"outcome": "win"|"draw", "winner": seat|None, "games_played", "legs_played",
        "seats": [{"seat", "wins", "points", "placement"}]}``."""
        n = self.players
        winner = None
        if self.kind == "league":
            placements = self._placements(self.points)
            best = [s for s in range(n) if placements[s] == 1]
            winner = best[0] if len(best) == 1 else None
        elif self.kind == "match":
            reached = [s for s in range(n) if self.wins[s] >= self.needed()]
            winner = reached[0] if reached else None
            placements = [1 + sum(1 for o in self.wins if o > w) for w in self.wins]
            if winner is None:
                placements = [1] * n  # a drawn match: shared first place
        else:  # single: the one game, or the one leg
            units = self.legs if self.module is not None else self.games
            last = units[-1] if units else None
            w = last["winners"] if last else []
            winner = w[0] if len(w) == 1 else None
            placements = list(last["placements"]) if last else [1] * n
        return {
            "outcome": "win" if winner is not None else "draw",
            "winner": winner,
            "games_played": len(self.games),
            "legs_played": len(self.legs) if self.module is not None else len(self.games),
            "seats": [
                {"seat": s, "wins": self.wins[s], "points": self.points[s],
                 "placement": placements[s]}
                for s in range(n)
            ],
        }


# ---------------------------------------------------------------------------------------------
# Playing a series (in a worker or in process)
# ---------------------------------------------------------------------------------------------


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


def run_series(task: SeriesTask, emit, on_line=None) -> None:
    """Play a series; ``emit(("game", idx, payload, result_or_None))`` after every new game and
    ``emit(("warn", idx, text))`` for a re-played stored game that came out differently."""
    from tourney.config import entrant_spec
    from tourney.entrants import open_entrant
    from tourney.referee import play_game

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
        _OPEN[:] = entrants
        for gi, stored in enumerate(task.done):  # bring the bots to where they were
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


# --- worker processes -------------------------------------------------------------------------

_QUEUE = None
#: entrants open in this worker process (closed if the main process dies or terminates us)
_OPEN: list = []


def _abandon(code: int) -> None:
    """Close this worker's bots (their process groups are killed) and exit at once."""
    for entrant in list(_OPEN):
        try:
            entrant.close()
        except Exception:
            pass
    os._exit(code)


def _watch_main(main_pid: int) -> None:
    import time

    while True:
        time.sleep(0.2)
        try:
            os.kill(main_pid, 0)
        except ProcessLookupError:
            _abandon(137)
        except PermissionError:  # pragma: no cover - pid reused by another user
            _abandon(137)


def _worker_init(q, main_pid: int) -> None:
    import threading

    global _QUEUE
    _QUEUE = q
    # the main process may be killed (kill -9): do not play on, do not leave bots behind
    threading.Thread(target=_watch_main, args=(main_pid,), daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: _abandon(143))
    # Ctrl-C reaches the main process, which terminates the workers (SIGTERM above)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_run(task: SeriesTask) -> int:
    run_series(task, _QUEUE.put)
    return task.idx


# ---------------------------------------------------------------------------------------------
# Running an event (main process: the only writer)
# ---------------------------------------------------------------------------------------------


class EventConflict(store.StoreError):
    """The database holds an event of this name with a different config."""


def prepare_event(db, cfg, source: str, restart: bool = False) -> tuple[int, bool]:
    """The event's id, creating it (and its schedule) if new; returns (id, resumed)."""
    canonical = cfg.canonical()
    row = store.find_event(db, cfg.event["name"])
    if row is not None and restart:
        store.delete_event(db, row["id"])
        row = None
    if row is not None:
        if row["config_hash"] != store.config_hash(canonical):
            raise EventConflict(
                f"event {cfg.event['name']!r} is already in {db_name(db)} with a different "
                "config; use --restart to discard its results, or give the event a new name"
            )
        return row["id"], True
    event = dict(cfg.event)
    event_id = store.create_event(db, event, cfg.entrants, schedule(event), canonical, source)
    return event_id, False


def db_name(db) -> str:
    try:
        return db.execute("pragma database_list").fetchone()[2] or ":memory:"
    except Exception:
        return "the database"


def pending_tasks(db, event_id: int, cfg) -> list[SeriesTask]:
    """The unfinished series of an event as tasks (with their stored games)."""
    specs = {s["name"]: s for s in cfg.resolved_entrants()}
    ev = cfg.event
    tasks = []
    for s in store.series_rows(db, event_id):
        if s["status"] == "finished":
            continue
        done = []
        for g in store.series_games(db, s["id"]):
            done.append({
                "idx": g["idx"],
                "first_player": g["first_player"],
                "winners": g["winners"],
                "points": [st["points"] for st in g["seats"]],
                "placements": [st["placement"] for st in g["seats"]],
                "reason": g["reason"],
            })
        tasks.append(SeriesTask(
            idx=s["idx"], kind=s["kind"], rule_set=ev["rule_set"], options=ev["options"],
            event_seed=ev["seed"], seed=s["seed"], games_target=s["games_target"],
            max_games=ev.get("max_games"),
            entrants=[specs[e["name"]] for e in s["entrants"]], done=done,
        ))
    return tasks


def default_concurrency() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover
        return max(1, os.cpu_count() or 1)


class Runner:
    """Runs the pending series of an event and stores every finished game as it arrives.

    Callbacks: ``on_game(series_row, payload)``, ``on_series(series_row, result)``,
    ``on_warn(text)``; ``on_line`` (in-process runs only) gets every log line as it is made.
    """

    def __init__(self, db, event_id: int, tasks: list[SeriesTask], concurrency: int,
                 on_game=None, on_series=None, on_warn=None, on_line=None):
        self.db = db
        self.event_id = event_id
        self.tasks = tasks
        self.concurrency = concurrency or default_concurrency()
        self.on_game = on_game
        self.on_series = on_series
        self.on_warn = on_warn
        self.on_line = on_line
        self.series = {s["idx"]: s for s in store.series_rows(db, event_id)}
        self.finished = 0

    def handle(self, msg) -> None:
        if msg[0] == "warn":
            if self.on_warn:
                self.on_warn(f"series {msg[1]}: {msg[2]}")
            return
        _, idx, payload, result = msg
        s = self.series[idx]
        ids = [e["entrant_id"] for e in s["entrants"]]
        for seat in payload["seats"]:
            seat["entrant_id"] = ids[seat["seat"]]
        stored_result = None
        if result is not None:
            stored_result = {
                "outcome": result["outcome"],
                "winner_id": None if result["winner"] is None else ids[result["winner"]],
                "games_played": result["games_played"],
                "entrants": {ids[r["seat"]]: r for r in result["seats"]},
            }
        store.record_game(self.db, self.event_id, s["id"], payload, stored_result)
        if self.on_game:
            self.on_game(s, payload)
        if result is not None:
            self.finished += 1
            if self.on_series:
                self.on_series(s, result)

    def run(self) -> None:
        if not self.tasks:
            return
        workers = min(self.concurrency, len(self.tasks))
        if workers <= 1:
            for task in self.tasks:
                run_series(task, self.handle, on_line=self.on_line)
            return
        self._run_pool(workers)

    def _run_pool(self, workers: int) -> None:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        if sys.platform.startswith("linux"):
            # fork (measured: speed-up 1.8 on two cores against 1.6 for forkserver, whose start
            # and imports cost ~0.3 s); the main process has no threads when the pool forks
            # (workers are forked at the first submit, the progress bar does not use a thread)
            ctx = mp.get_context(os.environ.get("TOURNEY_MP", "fork"))
            if ctx.get_start_method() == "forkserver":
                # workers fork from a server that has imported the engine and the referee
                ctx.set_forkserver_preload(["tourney.formats", "tourney.referee",
                                            "tourney.entrants", "tourney.config",
                                            "engine.crazier", "engine.bots"])
        else:  # pragma: no cover
            ctx = mp.get_context("spawn")
        q = ctx.Queue()
        expected = len(self.tasks)
        pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_init,
                                   initargs=(q, os.getpid()))
        try:
            futures = [pool.submit(_worker_run, t) for t in self.tasks]
            target = self.finished + expected
            returned = 0
            while self.finished < target:
                try:
                    msg = q.get(timeout=0.2)
                except _queue.Empty:
                    for f in futures:
                        if f.done() and f.exception() is not None:
                            raise f.exception()
                    done = sum(1 for f in futures if f.done())
                    if done == len(futures) and returned == done:
                        break  # every worker returned and nothing more arrived
                    returned = done
                    continue
                self.handle(msg)
        except BaseException:
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                try:
                    p.terminate()
                except Exception:
                    pass
            raise
        pool.shutdown(wait=True)


# ---------------------------------------------------------------------------------------------
# Summaries (read from the database)
# ---------------------------------------------------------------------------------------------


def event_summary(db, event_id: int) -> dict:
    """The ``tourney run --json`` document (see docs/formats.md)."""
    ev = dict(db["events"].get(event_id))
    unit = _json(ev["config"])["event"].get("unit", "match")
    series_out = []
    per: dict[str, dict] = {}
    for pos, row in enumerate(db.query(
            "select e.name from event_entrants ee join entrants e on e.id = ee.entrant_id "
            "where ee.event_id = ? order by ee.position", [event_id])):
        per[row["name"]] = {"entrant": row["name"], "series_played": 0, "series_won": 0,
                            "series_drawn": 0, "series_lost": 0, "legs_won": 0,
                            "games_played": 0, "games_won": 0, "points": 0, "faults": 0}
    legs = {r["series_id"]: r["legs"] for r in db.query(
        "select series_id, count(distinct leg) as legs from games where event_id = ? "
        "group by series_id", [event_id])}
    for s in store.series_rows(db, event_id):
        winner = None
        for e in s["entrants"]:
            if e["entrant_id"] == s["winner_id"]:
                winner = e["name"]
        series_out.append({
            "series": s["idx"],
            "round": s["round"],
            "kind": s["kind"],
            "status": s["status"],
            "outcome": s["outcome"],
            "winner": winner,
            "games": s["games_played"],
            "legs": legs.get(s["id"], 0),
            "entrants": [
                {"entrant": e["name"], "seat": e["seat"], "wins": e["wins"],
                 "points": e["points"], "placement": e["placement"]}
                for e in s["entrants"]
            ],
        })
        if s["status"] != "finished":
            continue
        for e in s["entrants"]:
            p = per[e["name"]]
            p["series_played"] += 1
            if s["kind"] == "match":
                p["legs_won"] += e["wins"]
            if s["outcome"] == "draw" and e["placement"] == 1:
                p["series_drawn"] += 1
            elif winner == e["name"]:
                p["series_won"] += 1
            else:
                p["series_lost"] += 1
    for r in db.query(
            "select e.name, count(*) as games, sum(st.winner) as won, sum(st.points) as points, "
            "sum(st.fault is not null) as faults from seats st join games g on g.id = st.game_id "
            "join entrants e on e.id = st.entrant_id where g.event_id = ? group by e.name",
            [event_id]):
        p = per[r["name"]]
        p.update(games_played=r["games"], games_won=r["won"] or 0, points=r["points"] or 0,
                 faults=r["faults"] or 0)
    rows = list(per.values())
    if unit == "league":
        def key(p):
            return (p["points"], -p["games_won"])
    else:
        def key(p):
            return (-(p["series_won"] + 0.5 * p["series_drawn"]), -p["legs_won"],
                    -p["games_won"], p["points"])
    keys = [key(p) for p in rows]
    for p, k in zip(rows, keys):
        p["rank"] = 1 + sum(1 for o in keys if o < k)
    rows.sort(key=lambda p: (p["rank"], p["entrant"]))
    games = db.execute("select count(*) from games where event_id = ?", [event_id]).fetchone()[0]
    return {
        "event": ev["name"],
        "format": ev["format"],
        "rule_set": ev["rule_set"],
        "seed": ev["seed"],
        "status": ev["status"],
        "games": games,
        "series": series_out,
        "standings": [{"rank": p.pop("rank"), **p} for p in rows],
    }


def _json(text):
    import json

    return json.loads(text) if text else {}


def series_line(s: dict, result: dict) -> str:
    """One readable line for a finished series (row from store.series_rows + SeriesState.result)."""
    names = [e["name"] for e in s["entrants"]]
    seats = result["seats"]
    if s["kind"] == "league":
        body = ", ".join(f"{names[r['seat']]} {r['points']}" for r in
                         sorted(seats, key=lambda r: (r["placement"], r["seat"])))
        body = f"points {body}"
    elif s["kind"] == "match":
        body = " - ".join(f"{names[r['seat']]} {r['wins']}" for r in seats)
    else:
        body = " vs ".join(names)
    if result["winner"] is None:
        tail = "drawn"
    else:
        tail = f"winner {names[result['winner']]}"
    played = f"{result['games_played']} games"
    legs = result.get("legs_played", result["games_played"])
    if legs != result["games_played"]:
        played = f"{legs} leg{'s' if legs != 1 else ''}, {result['games_played']} deals"
    return f"series {s['idx']}: {body} ({played}): {tail}"
