"""Running an event from the command line: progress on stderr, series lines and the results
table on stdout (shared by ``tourney run``, ``play`` and ``match``)."""

from __future__ import annotations

import os
import sys

import typer

from tourney import formats
from tourney.bots import sandbox
from tourney.commands.common import err, open_store, parse_options, show_progress, stopping
from tourney.config import HUMAN, event_from_words
from tourney.results import logs, reads, store


def keep_from_bots(db, cfg) -> None:
    """Hide the database, the config and every entrant's folder from the sandboxed bots (each
    still sees its own folder): docs/protocol.md, "Fair play"."""
    files = reads.database_files(db)
    if os.path.isfile(cfg.path):
        files.append(cfg.path)
    folders = [e["cwd"] for e in cfg.resolved_entrants() if e.get("cwd")]
    sandbox.keep_private(*files, *folders)


def fault_lines(series: dict, payload: dict) -> list[tuple[str, tuple[str, str, bool]]]:
    """One stderr line per fault of a finished game (entrant, game, code, the detail's first
    line), each with its (entrant, code, whether it was a forfeit: a fault that came after the
    game was decided cost nothing, docs/protocol.md section 5)."""
    names = [e["name"] for e in series["entrants"]]
    details = payload.get("faults") or {}
    out = []
    for seat in payload["seats"]:
        code = seat.get("fault")
        if not code:
            continue
        name = names[seat["seat"]]
        forfeit = seat.get("forfeit") is not False
        detail = str(details.get(seat["seat"], details.get(str(seat["seat"]), ""))).strip()
        first = detail.splitlines()[0] if detail else ""
        game = f"game {payload['game_id']}" if payload.get("game_id") is not None else f"game {payload['idx'] + 1}"
        late = "" if forfeit else " (after the game was decided: not a forfeit)"
        out.append((f"fault: {name} in {game}: {code}" + (f": {first}" if first else "") + late,
                    (name, code, forfeit)))
    return out


def fault_summary(event: str, faults: dict[str, dict[str, int]], forfeits: dict[str, int]) -> list[str]:
    """The end-of-run lines: per entrant its faults (every breach of the protocol, by code) and
    its forfeits (the games those faults cost it), and the commands that show the details."""
    if not faults:
        return []
    lines = ["faults in this run:"]
    for name, codes in sorted(faults.items()):
        total, lost = sum(codes.values()), forfeits.get(name, 0)
        lines.append(f"  {name}: {total} fault{'s' if total != 1 else ''} ("
                     + ", ".join(f"{c} {n}" for c, n in sorted(codes.items())) + "), "
                     + f"{lost} game{'s' if lost != 1 else ''} forfeited"
                     + f"; see: tourney games --event {event} --entrant {name}, then tourney replay GAME --stderr")
    return lines


#: the warm-bot options of tourney sprt and match (docs/protocol.md, "Warm bots")
RESTART = typer.Option(None, "--restart", help=(
    "A fresh bot process: never (reuse a warm one while the bot allows it; the default), "
    "series, or game (the strict choice)."))
MAX_GAMES_PER_PROCESS = typer.Option(None, "--max-games-per-process", min=1, help=(
    "Replace a bot's process, between games, after it has begun this many games."))
MAX_RSS_MB = typer.Option(None, "--max-rss-mb", min=1, help=(
    "Replace a bot's process, between games, when it holds more memory than this (MiB)."))


def reuse_settings(restart: str | None, max_games: int | None, max_rss_mb: int | None) -> dict:
    """The warm-bot settings given on the command line, checked (a bad value: a usage error)."""
    if restart is not None and restart not in ("never", "series", "game"):
        raise typer.BadParameter(f"--restart must be never, series or game, not {restart!r}")
    return {"restart": restart, "max_games": max_games, "max_rss_mb": max_rss_mb}


#: the options every event of command-line words takes (tourney play, match): one declaration each
SEED = typer.Option(1, help="Event seed (game seeds derive from it).")
PUBLIC_SEEDS = typer.Option(False, "--public-seeds",
                            help="Seeds anyone can recompute from --seed (no event secret).")
RULE_SET = typer.Option("crazier-eights", "--rule-set", help="Rule set to play.")
OPTION = typer.Option(None, "--option", "-o", help="Rule-set option key=value.")
CONFIG = typer.Option(None, "--config", help="Take entrant definitions from a config.")
NAME = typer.Option(None, "--name", help="Event name to store the result under (default: the command and the time).")


def play_words(fmt, words: list[str], *, db: str | None, seed: int, rule_set: str,
               option: list[str] | None, config, name: str | None, public_seeds: bool,
               log=None, on_game=None, **settings):
    """Play the event of ``tourney play`` / ``match``: entrants from command-line words, one
    series at a time in this process, nothing printed but what ``log`` (each log line; never
    when a person plays, whose seat must not see the others' hands) and ``on_game`` print.
    Returns (database, config, summary)."""
    cfg = event_from_words(fmt, words, seed=seed, rule_set=rule_set, options=parse_options(option),
                           config=config, name=name, public_seeds=public_seeds, **settings)
    database = open_store(db)
    on_line = log if log is not None and not has_human(cfg) else None
    summary = execute(database, cfg, store.COMMAND_LINE, concurrency=1, json_out=True, quiet=True,
                      on_line=on_line, on_game=on_game)
    return database, cfg, summary


def has_human(cfg) -> bool:
    """Whether a person plays in this event (the built-in entrant ``human``)."""
    return any(e.get("builtin") == HUMAN for e in cfg.entrants)


def progress_bar(name: str, total: int, completed: int, games: int):
    """A progress bar on stderr (series done, games stored, time left) and its task id."""
    from rich.console import Console  # heavy at CLI start: rich loads to draw progress
    from rich.progress import (  # heavy at CLI start: rich loads to draw progress
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("series, {task.fields[games]} games"), TimeElapsedColumn(),
                        TextColumn("elapsed,"), TimeRemainingColumn(), TextColumn("left"),
                        console=Console(stderr=True), transient=True,
                        redirect_stdout=False, redirect_stderr=False,  # stdout stays data only
                        auto_refresh=False)  # no thread: worker processes are forked
    return progress, progress.add_task(name, total=total, completed=completed, games=games)


class Screen:
    """What a run shows while it plays: series lines on stdout, faults and notes on stderr,
    and the progress bar (when there is one) kept below them."""

    def __init__(self, quiet: bool, json_out: bool):
        self.quiet, self.json_out = quiet, json_out
        self.progress = None
        self.task_id = None
        self.games = 0
        self.printed: set[int] = set()
        self.faults: dict[str, dict[str, int]] = {}  # entrant -> fault code -> faults
        self.forfeits: dict[str, int] = {}  # entrant -> games its faults cost it

    def start(self, name: str, total: int, pending: int, games: int) -> None:
        self.games = games
        if show_progress(self.quiet) and pending:
            self.progress, self.task_id = progress_bar(name, total, total - pending, games)

    def note(self, line: str) -> None:
        """A line on stderr, above the progress bar when there is one."""
        if self.progress is not None:
            self.progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            err(line)

    def game(self, s: dict, payload: dict) -> None:
        self.games += 1
        for line, (name, code, forfeit) in fault_lines(s, payload):
            self.faults.setdefault(name, {}).setdefault(code, 0)
            self.faults[name][code] += 1
            self.forfeits[name] = self.forfeits.get(name, 0) + forfeit
            self.note(line)
        if self.progress is not None:
            self.progress.update(self.task_id, games=self.games, refresh=True)

    def series(self, s: dict, result: dict) -> None:
        from tourney.events.summary import series_line  # heavy at CLI start: loads when an event runs

        self.printed.add(s["idx"])
        if self.progress is not None:
            self.progress.advance(self.task_id)
            self.progress.refresh()
        if self.json_out or self.quiet:
            return
        if self.progress is not None and sys.stdout.isatty():
            # stdout and the bar share the terminal: print above the bar, not into it
            self.progress.console.print(series_line(s, result), markup=False, highlight=False, soft_wrap=True)
        else:
            typer.echo(series_line(s, result))

    def total(self, total: int) -> None:
        if self.progress is not None:
            self.progress.update(self.task_id, total=total)


def execute(db, cfg, source: str, *, restart=False, concurrency=0, json_out=False, quiet=False,
            on_line=None, on_game=None, expect_resume=False, cluster=None, standings=True):
    """Prepare and run an event, printing series results (stdout) and progress (stderr).
    Returns the summary dict (:func:`tourney.events.summary.event_summary`; without the
    standings when ``standings`` is false)."""
    from tourney.events import runner  # heavy at CLI start: loads when an event runs
    from tourney.events import summary as summaries  # heavy at CLI start: loads when an event runs

    event_id, resumed = runner.prepare_event(db, cfg, source, restart=restart)
    # a Swiss or knockout stopped between rounds goes on with its next round
    tasks = runner.pending_tasks(db, event_id, cfg) or runner.next_round_tasks(db, event_id, cfg)
    total = len(store.series_rows(db, event_id))
    keep_from_bots(db, cfg)
    done_games = reads.event_game_count(db, event_id)
    if resumed and not quiet:
        err(f"resuming event {cfg.event['name']!r}: {total - len(tasks)} of {total} series "
            f"and {done_games} games already stored")
    elif expect_resume and not quiet:
        err(f"nothing to resume: event {cfg.event['name']!r} starts now")
    if has_human(cfg):  # one terminal, one game at a time, and no progress bar over the table
        concurrency, quiet = 1, True
    screen = Screen(quiet, json_out)
    screen.start(cfg.event["name"], total, len(tasks), done_games)
    fmt = formats.get(cfg.event["format"])

    def on_game_cb(s, payload):
        screen.game(s, payload)
        if on_game is not None:
            on_game(s, payload)

    def more():  # the next round of a Swiss or knockout, the next batch of an SPRT
        line = None if quiet else fmt.between_rounds(db, event_id, cfg.event)
        if line:  # where the test stands, batch by batch
            screen.note(line)
        new = runner.next_round_tasks(db, event_id, cfg)
        if new:
            screen.total(len(store.series_rows(db, event_id)))
        return new

    event_runner = runner.Runner(db, event_id, tasks, concurrency or cfg.concurrency,
                                 on_game=on_game_cb, on_series=screen.series,
                                 on_warn=lambda t: screen.note(f"warning: {t}"), on_line=on_line,
                                 more=more, cluster=cluster,
                                 ahead=lambda: runner.ahead_tasks(db, event_id, cfg))
    with stopping() as received:
        try:
            if screen.progress is not None:
                with screen.progress:
                    event_runner.run()
            else:
                event_runner.run()
        except KeyboardInterrupt:
            _interrupted(source, received)
        except Exception:
            if received:  # a worker that died of the same SIGTERM, seen first: still a stop
                _interrupted(source, received)
            raise
    store.finish_event(db, event_id)
    keep = logs.parse_keep(cfg.storage.get("keep_logs", "all"))
    if keep is not None:  # [storage] keep_logs: the event's stderr cut once it has ended
        with db.atomic():
            logs.apply(db.conn, event_id, keep)
    for line in fault_summary(cfg.event["name"], screen.faults, screen.forfeits):
        err(line)
    summary = summaries.event_summary(db, event_id, standings=standings)
    if not json_out and not quiet:  # series finished by an earlier run
        for item in summary["series"]:
            if item["series"] not in screen.printed and item["status"] == "finished":
                typer.echo(summaries.stored_series_line(item))
    return summary


def _interrupted(source: str, received: list[int]) -> None:
    """Say how the run stopped, and exit 130 after Ctrl-C, 143 after SIGTERM."""
    tail = "" if source == store.COMMAND_LINE else f"; resume with: tourney run {source} --resume"
    err(f"interrupted{' (SIGTERM)' if received else ''}: finished games are stored{tail}")
    raise typer.Exit(143 if received else 130) from None
