"""A ladder's life: made, versions submitted and checked, tables played, standings, the settle
phase (docs/ladder.md). Everything here is callable without the CLI; ``tourney ladder`` is a
thin layer over it.

Games are played by the event runner (:class:`tourney.events.runner.Runner`, the database's
only writer), one batch of tables at a time: after each batch the ratings are refitted from
the last fit and the matchmaker picks the next batch. Every game is committed as it ends, and
a table is only a ``series`` row until its game is stored, so a ``kill -9`` loses at most the
games being played, and the next ``run`` plays the tables left (or drops those of a version
disabled meanwhile) and goes on.

On a cluster a run plans one batch ahead (``ahead``), so that the workers never wait for the
refit: batch k+1 is chosen while batch k plays, from the fit of every batch before k, with the
tables of batch k counted as scheduled (as the earlier tables of one batch are). Which games
each refit reads is fixed by the batches, not by when games arrive, so the same seeds give the
same tables and games however the workers run. The settle phase does not plan ahead: its
stopping rule reads the fit of every game played, and a batch chosen one fit behind could be
played for nothing.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import engine
from engine.bots import BOT_NAMES
from tourney import seeding
from tourney.bots import sandbox
from tourney.club.league import default_author
from tourney.config import ConfigError, check_command, resolve_entrant
from tourney.errors import UserError
from tourney.events.play import SeriesTask
from tourney.events.runner import Runner
from tourney.ladder import limits, vetting
from tourney.ladder.matchmaking import Matchmaker, Pool
from tourney.ladder.ratings import Ratings
from tourney.results import ladder as rows
from tourney.results import logs, reads, store

#: tables of a run whose seat orders the next tables are balanced against (a window, so that a
#: run of weeks costs the same each batch)
SEAT_MEMORY = 2000
#: a ladder's settings and their defaults (``tourney ladder new`` options)
DEFAULTS = {
    "same_author": False,      # may an author's versions meet at a table
    "keep_versions": False,    # does an author's new version leave the earlier ones in play
    "min_share": 0.25,         # each active version's least share of the mean games, while running
    "check_games": vetting.CHECK_GAMES,
    "limits": {},              # bot limits (docs/protocol.md), "sandbox" among them
    "keep_logs": logs.LADDER_KEEP,  # each version's last games with stderr in full ("all": every game)
}
#: on a Dask cluster: tables per batch, and tables per Dask task (the scheduler's ~13 ms a task,
#: bench/scale.py, and the pause of a worker between two tasks, spread over a group;
#: bench/ladder.py --cluster measures what is left)
CLUSTER_BATCH = 128
CLUSTER_GROUP = 32
AUTHOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
NAME = AUTHOR


class LadderError(UserError):
    """A ladder command that cannot be done as asked (one clear line, exit 2)."""


def event_name(name: str) -> str:
    """The name of the event that holds a ladder's games."""
    return f"ladder:{name}"


def new_ladder(db, name: str, rule_set: str, players: int, options: dict | None = None,
               seed: int | None = None, **settings) -> dict:
    """Make a ladder (tables of ``players``, 2 to 8) and return it."""
    if not NAME.match(name):
        raise LadderError(f"ladder name {name!r}: use letters, digits, '.', '_' or '-' (up to 40), "
                          "starting with a letter or digit")
    if not 2 <= players <= 8:
        raise LadderError(f"--players must be 2 to 8, not {players}")
    unknown = set(settings) - set(DEFAULTS)
    if unknown:
        raise LadderError(f"unknown ladder setting(s): {', '.join(sorted(unknown))}")
    try:
        engine.validate_options(rule_set, options or {}, players)
    except (engine.OptionsError, KeyError, ValueError) as exc:
        raise LadderError(str(exc).strip("'\"")) from None
    if rows.find(db, name) is not None:
        raise LadderError(f"a ladder called {name!r} already exists in this database")
    if store.find_event(db, event_name(name)) is not None:
        raise LadderError(f"the database already holds an event called {event_name(name)!r}")
    chosen = {**DEFAULTS, **{k: v for k, v in settings.items() if v is not None}}
    chosen["limits"] = {**limits.LIMITS, **limits.check(chosen["limits"])}
    event = {"name": event_name(name), "format": "league", "rule_set": rule_set, "options": options or {},
             "seed": seed if seed is not None else random.SystemRandom().randrange(2**31),
             "players": players, "games": 1, "rounds": 1, "ladder": name}
    rows.create(db, name, event, chosen, {"event": event, "ladder": chosen}, secret=seeding.new_secret())
    return get(db, name)


def get(db, name: str) -> dict:
    ladder = rows.find(db, name)
    if ladder is None:
        known = rows.names(db)
        raise LadderError(f"no ladder called {name!r}" + (f" (ladders: {', '.join(known)})" if known else
                                                          " (make one with: tourney ladder new)"))
    ladder["seed"] = reads.event_row(db, ladder["event_id"])["seed"]
    return ladder


# -- submitting --------------------------------------------------------------------------------


def submit(db, name: str, author: str, command: list[str] | None = None, path: str | None = None,
           check: bool = True, base_dir: str = ".", store_dir: str | None = None,
           builtin: str | None = None, limits: dict | None = None) -> dict:
    """Add a version of ``author``'s bot: a command (run in ``base_dir``), or a folder ``path``
    copied into the ladder's own store (a later change to the folder does not change the
    version), run with ``command`` inside it, or ``main.py`` / an executable ``bot`` there; or
    (the organiser's yardsticks) a ``builtin`` bot. Checked at once unless ``check`` is false
    (``run`` checks it first then). ``limits`` go over the ladder's (the web entry's uploads
    ask for ``{"sandbox": "on"}``). Returns the version."""
    ladder = get(db, name)
    if ladder["status"] != "open":
        raise LadderError(f"ladder {name!r} is closed to submissions (its settle phase has begun)")
    if not AUTHOR.match(author):
        raise LadderError(f"author {author!r}: use letters, digits, '.', '_' or '-' (up to 40), "
                          "starting with a letter or digit")
    if builtin is not None:
        if command or path:
            raise LadderError("give a built-in bot, or a command, or a folder: one of them")
        if builtin not in BOT_NAMES:
            raise LadderError(f"unknown built-in bot {builtin!r} (known: {', '.join(BOT_NAMES)})")
        version = rows.add_version(db, ladder, author, {"builtin": builtin})
        return vet(db, ladder, version) if check else version
    if not command and not path:
        raise LadderError("give the bot's command after --, or its folder with --path")
    limits = {**(ladder["settings"].get("limits") or {}), **(limits or {})}
    if path is not None:
        command, cwd = _copy_folder(db, ladder, author, path, command, store_dir)
    else:
        cwd = str(Path(base_dir).resolve())
    spec = {"command": list(command or []), "cwd": cwd, "env": {}, "limits": limits}
    try:
        check_command("submit", "command", {**spec, "name": author}, cwd)
    except ConfigError as exc:
        raise LadderError(str(exc).removeprefix("submit: ")) from None
    spec = resolve_entrant({**spec, "name": author}, cwd)
    spec.pop("name")
    argv = list(spec["command"])
    found = shutil.which(argv[0]) if os.sep not in argv[0] else None
    if found:  # what runs later, wherever the run starts
        spec["command"] = [found, *argv[1:]]
    version = rows.add_version(db, ladder, author, spec)
    return vet(db, ladder, version) if check else version


def _copy_folder(db, ladder: dict, author: str, path: str, command: list[str] | None,
                 store_dir: str | None) -> tuple[list[str], str]:
    source = Path(path)
    if not source.is_dir():
        raise LadderError(f"--path {path}: no such folder")
    number = 1 + max([v["version"] for v in rows.versions(db, ladder["id"]) if v["author"] == author] or [0])
    files = reads.database_files(db)
    root = Path(store_dir) if store_dir else (Path(files[0]).parent if files else Path("."))
    target = root / "ladders" / ladder["name"] / author / f"v{number}"
    if target.exists():
        shutil.rmtree(target)  # left by a submission that did not finish
    shutil.copytree(source, target, symlinks=True)
    if not command:
        if (target / "main.py").is_file():
            command = ["{python}", "main.py"]
        elif (target / "bot").is_file():
            command = ["./bot"]
        else:
            shutil.rmtree(target)
            raise LadderError(f"--path {path}: give the command after --, or put main.py or an "
                              "executable called bot in the folder")
    return command, str(target.resolve())


def vet(db, ladder: dict, version: dict) -> dict:
    """Check a pending version; it becomes active (retiring its author's earlier versions unless
    the ladder keeps them) or is refused with ``tourney check``'s report as the reason."""
    seed = seeding.derive("ladder check", ladder["seed"], version["id"])
    passed, report = vetting.check(limits.version_spec(ladder, version), ladder["rule_set"], seed % 2**31,
                                   ladder["settings"].get("check_games", vetting.CHECK_GAMES))
    if not passed:
        rows.set_version_status(db, version["id"], "rejected", report)
    else:
        rows.set_version_status(db, version["id"], "active", None)
        if not ladder["settings"].get("keep_versions"):
            rows.retire_others(db, ladder["id"], version["author"], version["id"],
                               f"replaced by v{version['version']}")
    return rows.version(db, version["id"])


def retire(db, name: str, which: str, reason: str, by: str | None = None) -> dict:
    """The organiser takes a version out of play: ``which`` is its name (``spring/ann/v2``) or
    its author (the author's active versions). It keeps its games and its place in the standings,
    as a version its author replaced does; a running ``ladder run`` says goodbye to its processes
    within a batch. Returns the last version retired."""
    ladder = get(db, name)
    versions = rows.versions(db, ladder["id"])
    chosen = [v for v in versions if which in (v["entrant"], v["author"])]
    if not chosen:
        raise LadderError(f"ladder {name!r} has no version or author called {which!r} "
                          "(tourney ladder standings lists them)")
    active = [v for v in chosen if v["status"] == "active"]
    if not active:
        raise LadderError(f"{which}: nothing to retire, no active version "
                          f"({', '.join(sorted({v['entrant'] + ' ' + v['status'] for v in chosen}))})")
    for v in active:
        rows.set_version_status(db, v["id"], "retired",
                                f"retired by the organiser ({by or default_author()}): {reason}")
    return rows.version(db, active[-1]["id"])


# -- playing -----------------------------------------------------------------------------------


class _Runner(Runner):
    """The event runner, told whether the ladder plans a batch ahead: a cluster then asks for
    the next batch while the last one plays (:mod:`tourney.events.cluster`)."""

    plans_ahead = False


class LadderRun:
    """Plays a ladder's tables in batches (see the module docstring). ``on_game(entrants,
    payload)`` after each stored game; ``on_note(text)`` for checks, disabled versions and
    tables dropped. ``ahead``: plan one batch ahead (default: on a cluster)."""

    def __init__(self, db, name: str, concurrency: int = 0, cluster: str | None = None,
                 on_game: Callable | None = None, on_note: Callable[[str], None] | None = None,
                 batch: int | None = None, rng: random.Random | None = None,
                 cluster_group: int = CLUSTER_GROUP, ahead: bool | None = None):
        self.db = db
        self.ladder = get(db, name)
        self.concurrency = concurrency
        self.cluster = cluster
        self.on_game = on_game
        self.on_note = on_note or (lambda text: None)
        self.batch = batch or (CLUSTER_BATCH if cluster else None)
        self.cluster_group = cluster_group
        self.rng = rng or random.Random()
        self.played = 0
        self.secret = store.event_secret(db, self.ladder["event_id"])
        self.ratings: Ratings | None = None
        self._saved_at = 0
        self.ahead = cluster is not None if ahead is None else ahead
        self._planning_ahead = False  # in this play(): not in the settle phase
        #: tables given to the runner in this play()
        self._handed = 0
        #: the batch given last while planning ahead (its tables as entrant ids, by series idx):
        #: its games wait outside the fit until the next batch is chosen
        self._open: dict[int, list[int]] = {}
        #: games stored and not yet in the fit: (series idx, seats), added in idx order
        self._withheld: list[tuple[int, list[tuple[int, float]]]] = []
        #: the seat orders of this run's tables (entrant ids), the newest SEAT_MEMORY of them:
        #: a new table's order is balanced against them (tourney.seating)
        self._seated: list[list[int]] = []

    # the pieces

    def check_pending(self) -> None:
        for v in rows.versions(self.db, self.ladder["id"]):
            if v["status"] == "pending":
                self.on_note(f"checking {v['entrant']} ...")
                done = vet(self.db, self.ladder, v)
                self.on_note(f"{done['entrant']}: {done['status']}" + (f": {done['reason']}" if done["reason"] else ""))

    def _versions(self) -> list[dict]:
        return rows.versions(self.db, self.ladder["id"])

    def _task(self, idx: int, seed: int, specs: list[dict]) -> SeriesTask:
        ev = self.ladder
        return SeriesTask(idx=idx, kind="league", rule_set=ev["rule_set"], options=ev["options"],
                          event_seed=ev["seed"], seed=seed, games_target=1, max_games=None,
                          entrants=specs, secret=self.secret)

    def _spec(self, v: dict) -> dict:
        return {**limits.version_spec(self.ladder, v), "name": v["entrant"]}

    def leftover_tasks(self) -> list[SeriesTask]:
        """Tables made by an earlier run but not played: kept if every version at them still
        plays, else dropped."""
        by_entrant = {v["entrant_id"]: v for v in self._versions()}
        keep, drop = [], []
        for s in rows.pending_series(self.db, self.ladder["event_id"]):
            vs = [by_entrant.get(e) for e in s["entrant_ids"]]
            if all(v is not None and v["status"] == "active" for v in vs):
                seed = seeding.series_seed(self.ladder["seed"], s["idx"], self.secret)
                keep.append(self._task(s["idx"], seed, [self._spec(v) for v in vs if v is not None]))
            else:
                drop.append(s["id"])
        if drop:
            rows.drop_unplayed(self.db, drop)
            self.on_note(f"dropped {len(drop)} unplayed table(s) of versions no longer playing")
        return keep

    def next_tasks(self, count: int, top: int | None = None) -> list[SeriesTask]:
        """Refit, then choose and store the next ``count`` tables; [] when none can be played
        (too few active versions, or in the settle phase, the top N settled)."""
        assert self.ratings is not None
        if any(v["status"] == "pending" for v in self._versions()):
            self.check_pending()  # submitted while this run plays: checked before they play
        versions = self._versions()
        self.ladder["settings"] = get(self.db, self.ladder["name"])["settings"]  # changed by ladder set
        self.ratings.track(versions)
        self._release(keep=set(self._open))
        rows.tidy(self.db, self.ladder)
        fit = self.ratings.refit()
        self._save_fit()
        active = [v for v in versions if v["status"] == "active"]
        if len(active) < self.ladder["players"]:
            self.on_note(f"{len(active)} active version(s): a table needs {self.ladder['players']}")
            return []
        index = self.ratings.index
        by_index = {index[v["entrant_id"]]: v for v in versions}
        counts = rows.game_counts(self.db, self.ladder["event_id"])
        for _, seats in self._withheld:  # stored, but not in the fit yet: counted as scheduled
            for entrant_id, _ in seats:
                counts[entrant_id] -= 1
        n = fit.n
        pool = Pool(theta=fit.theta, cov=fit.cov, active=[index[v["entrant_id"]] for v in active],
                    authors=[by_index[i]["author"] if i in by_index else "" for i in range(n)],
                    games=[counts.get(by_index[i]["entrant_id"], 0) if i in by_index else 0 for i in range(n)],
                    players=self.ladder["players"], same_author=bool(self.ladder["settings"].get("same_author")),
                    min_share=float(self.ladder["settings"].get("min_share", DEFAULTS["min_share"])), top=top,
                    seatings=[[index[e] for e in t] for t in self._seated if all(e in index for e in t)])
        maker = Matchmaker(pool, self.rng)
        if top is not None and maker.settled():
            return []
        maker.scheduled([[index[e] for e in ids] for ids in self._open.values()])
        tables = maker.tables(count)
        self._seated = (self._seated + [[by_index[i]["entrant_id"] for i in t] for t in tables])[-SEAT_MEMORY:]
        start = rows.next_series_idx(self.db, self.ladder["event_id"])
        items, tasks = [], []
        for k, table in enumerate(tables):
            idx = start + k
            seed = seeding.series_seed(self.ladder["seed"], idx, self.secret)
            vs = [by_index[i] for i in table]
            items.append({"idx": idx, "round": 0, "kind": "league", "seed": seed, "games_target": 1,
                          "entrants": [v["entrant"] for v in vs]})
            tasks.append(self._task(idx, seed, [self._spec(v) for v in vs]))
        store.add_series(self.db, self.ladder["event_id"], items)
        return self._hand_out(tasks)

    def _hand_out(self, tasks: list[SeriesTask]) -> list[SeriesTask]:
        """Give ``tasks`` to the runner: while planning ahead, they are the open batch."""
        self._handed += len(tasks)
        if self._planning_ahead:
            ids = {v["entrant"]: v["entrant_id"] for v in self._versions()}
            self._open = {t.idx: [ids[e["name"]] for e in t.entrants] for t in tasks}
        return tasks

    def _release(self, keep: set[int]) -> None:
        """Put the games withheld from the fit into it, in table order, but those of the
        tables ``keep``."""
        assert self.ratings is not None
        now = sorted((g for g in self._withheld if g[0] not in keep), key=lambda g: g[0])
        self._withheld = [g for g in self._withheld if g[0] in keep]
        for _, seats in now:
            self.ratings.add(seats)

    def _save_fit(self, force: bool = False) -> None:
        assert self.ratings is not None and self.ratings.fit is not None
        games = self.ratings.fit.games
        if force or games - self._saved_at >= max(20, games // 20):
            self.ratings.save()
            self._saved_at = games

    def _game(self, series: dict, payload: dict) -> None:
        assert self.ratings is not None
        ids = [e["entrant_id"] for e in series["entrants"]]
        # into the fit at the next refit, in table order (the order games arrive in is the
        # workers' timing; the fit's rows, and so its last bits, would follow it)
        self._withheld.append((series["idx"], [(seat["entrant_id"], seat["placement"] if seat["placement"]
                                                is not None else seat["points"]) for seat in payload["seats"]]))
        self.ratings.last_game = max(self.ratings.last_game, payload.get("game_id") or 0)
        self.played += 1
        for seat in payload["seats"]:
            if seat.get("fault"):
                self._maybe_disable(seat["entrant_id"])
        if self.on_game:
            self.on_game([e["name"] for e in series["entrants"]], payload)
        del ids

    def _maybe_disable(self, entrant_id: int) -> None:
        version = next((v for v in self._versions() if v["entrant_id"] == entrant_id), None)
        if version is None or version["status"] != "active":
            return
        recent = rows.seat_faults(self.db, self.ladder["event_id"], entrant_id, vetting.FAULT_WINDOW)
        reason = vetting.going_bad(recent)
        if reason:
            rows.set_version_status(self.db, version["id"], "disabled", reason)
            self.on_note(f"disabled {version['entrant']}: {reason}")

    # the whole run

    def play(self, games: int | None = None, hours: float | None = None, top: int | None = None) -> dict:
        """Play until ``games`` more games are stored, ``hours`` have passed or (``top``: the
        settle phase) the top N are settled; returns what happened."""
        files = reads.database_files(self.db)
        sandbox.keep_private(*files, *{v["spec"].get("cwd") for v in self._versions()
                                       if v["spec"].get("cwd") and "/ladders/" in v["spec"]["cwd"]})
        self.check_pending()
        self.ratings = Ratings(self.db, self.ladder)
        deadline = None if hours is None else time.monotonic() + hours * 3600
        size = self.batch or max(4, 2 * (self.concurrency or 2))
        self._planning_ahead = self.ahead and top is None
        self._handed, self._open, self._withheld = 0, {}, []

        def budget() -> int:  # every table given is played (or the run stops)
            left = size if games is None else min(size, games - self._handed)
            if deadline is not None and time.monotonic() >= deadline:
                return 0
            return max(left, 0)

        def more() -> list[SeriesTask]:
            count = budget()
            return self.next_tasks(count, top) if count else []

        tasks = self.leftover_tasks()
        if games is not None:
            tasks = tasks[:games]
        tasks = self._hand_out(tasks) if tasks else more()
        if tasks:
            runner = _Runner(self.db, self.ladder["event_id"], tasks, self.concurrency, on_game=self._game,
                             on_warn=self.on_note, more=more, cluster=self.cluster, cluster_group=self.cluster_group,
                             keep=lambda: [self._spec(v) for v in self._versions() if v["status"] == "active"])
            runner.plans_ahead = self._planning_ahead
            runner.run()
        self._release(keep=set())
        self.ratings.load()
        self.ratings.refit()
        self._save_fit(force=True)
        rows.tidy(self.db, self.ladder)
        return {"games": self.played}


def run(db, name: str, games: int | None = None, hours: float | None = None, **kwargs) -> dict:
    """Play the ladder (see :class:`LadderRun`); refused once its settle phase has begun."""
    ladder = get(db, name)
    if ladder["status"] != "open":
        raise LadderError(f"ladder {name!r} is in its settle phase: continue it with tourney ladder settle {name}")
    return LadderRun(db, name, **kwargs).play(games=games, hours=hours)


def settle(db, name: str, top: int = 10, games: int | None = None, hours: float | None = None,
           **kwargs) -> dict:
    """The final phase: submissions close, and tables are played until every pair of neighbours
    in the top ``top`` is separated at 95% or the budget is spent. Returns ``{"games",
    "settled", "neighbours"}`` (each neighbour pair with its difference and whether it is
    separated: the pairs that stayed tied are those that are not)."""
    if top < 2:
        raise LadderError(f"--top must be at least 2, not {top}")
    ladder = get(db, name)
    if ladder["status"] == "open":
        rows.set_status(db, ladder["id"], "closed")
    rows.update_settings(db, ladder["id"], {**ladder["settings"], "settle_top": top})
    runner = LadderRun(db, name, **kwargs)
    done = runner.play(games=games, hours=hours, top=top)
    assert runner.ratings is not None
    board = runner.ratings.leaderboard(runner._versions(),
                                       rows.game_counts(db, ladder["event_id"]))
    pairs = runner.ratings.neighbours(board, top)
    return {**done, "settled": all(p["separated"] for p in pairs), "top": top, "neighbours": pairs}


# -- reading -----------------------------------------------------------------------------------


def standings(db, name: str, top: int | None = None) -> dict:
    """The leaderboard (``tourney ladder standings --json``: docs/schemas/ladder.schema.json)."""
    ladder = get(db, name)
    ratings = Ratings(db, ladder)
    ratings.refit()
    versions = rows.versions(db, ladder["id"])
    counts = rows.game_counts(db, ladder["event_id"])
    board = ratings.leaderboard(versions, counts)
    rated = {r["entrant"] for r in board}
    return {
        "version": 1, "kind": "ladder", "ladder": name, "rule_set": ladder["rule_set"],
        "players": ladder["players"], "status": ladder["status"],
        "model": "bradley-terry" if ladder["players"] == 2 else "plackett-luce",
        "games_played": ratings.games.count,
        "standings": board,
        "neighbours": ratings.neighbours(board, top),
        "unrated": [{"entrant": v["entrant"], "author": v["author"], "version": v["version"],
                     "status": v["status"], "reason": v["reason"]}
                    for v in versions if v["entrant"] not in rated],
    }
