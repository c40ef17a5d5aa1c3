"""``tourney run CONFIG``: run (or resume) the event a config defines.

Also holds the small helpers the event commands share (database option, errors, output).
Exit codes: 0 ok, 1 unexpected error, 2 bad usage or config (nothing written), 130
interrupted (finished games are kept; run again to resume).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from tourney.app import app

DB_HELP = "Database file (default: $TOURNEY_DB, else results/tourney.db)."
EXIT_CODES = "Exit codes: 0 ok, 1 unexpected error, 2 bad usage or config, 130 interrupted."


def err(message: str) -> None:
    typer.echo(message, err=True)


def fail(message: str, code: int = 2):
    """Print ``error: message`` on stderr and exit (2 = bad usage or config)."""
    err(f"error: {message}")
    raise typer.Exit(code)


def out_json(data) -> None:
    typer.echo(json.dumps(data, indent=2, sort_keys=False))


def open_store(db: str | None, create: bool = True):
    from tourney import store

    try:
        return store.open_db(db, create=create)
    except store.StoreError as exc:
        fail(str(exc))


def show_progress(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


def standings_table(summary: dict) -> str:
    from tabulate import tabulate

    # a legs column only where a match's legs are runs of deals (docs/formats.md, "Legs")
    legs = any(x["kind"] == "match" and x["legs"] != x["games"] for x in summary["series"])
    rows = [
        [s["rank"], s["entrant"], s["series_played"], s["series_won"], s["series_drawn"],
         s["series_lost"], *([s["legs_won"]] if legs else []), s["games_played"], s["games_won"],
         s["points"], s["faults"]]
        for s in summary["standings"]
    ]
    headers = ["rank", "entrant", "series", "won", "drawn", "lost", *(["legs won"] if legs else []),
               "games", "game wins", "points", "faults"]
    return tabulate(rows, headers=headers, tablefmt="simple")


def keep_from_bots(db, cfg) -> None:
    """Hide the database, the config and every entrant's folder from the sandboxed bots (each
    still sees its own folder): docs/protocol.md, "Fair play"."""
    import os

    from tourney import sandbox

    files = [row[2] for row in db.execute("pragma database_list").fetchall() if row[2]]
    if os.path.isfile(cfg.path):
        files.append(cfg.path)
    folders = [e["cwd"] for e in cfg.resolved_entrants() if e.get("cwd")]
    sandbox.keep_private(*files, *folders)


def execute(db, cfg, source: str, *, restart=False, concurrency=0, json_out=False, quiet=False,
            on_line=None, on_game=None, expect_resume=False):
    """Prepare and run an event, printing series results (stdout) and progress (stderr).
    Returns the summary dict (:func:`tourney.formats.event_summary`)."""
    from tourney import formats, store

    try:
        event_id, resumed = formats.prepare_event(db, cfg, source, restart=restart)
    except store.StoreError as exc:
        fail(str(exc))
    tasks = formats.pending_tasks(db, event_id, cfg)
    total = len(store.series_rows(db, event_id))
    keep_from_bots(db, cfg)
    if resumed:
        done_games = db.execute("select count(*) from games where event_id = ?",
                                [event_id]).fetchone()[0]
        if not quiet:
            err(f"resuming event {cfg.event['name']!r}: {total - len(tasks)} of {total} series "
                f"and {done_games} games already stored")
    elif expect_resume and not quiet:
        err(f"nothing to resume: event {cfg.event['name']!r} starts now")

    printed: set[int] = set()

    def on_series(s, result):
        printed.add(s["idx"])
        if not json_out and not quiet:
            typer.echo(formats.series_line(s, result))

    progress = None
    task_id = None
    if show_progress(quiet) and tasks:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[games]} games"),
                            console=Console(stderr=True), transient=True,
                            auto_refresh=False)  # no thread: worker processes are forked
        task_id = progress.add_task(cfg.event["name"], total=total,
                                    completed=total - len(tasks), games=0)
    games_seen = 0

    def on_game_cb(s, payload):
        nonlocal games_seen
        games_seen += 1
        if progress is not None and task_id is not None:
            progress.update(task_id, games=games_seen, refresh=True)
        if on_game is not None:
            on_game(s, payload)

    def on_series_cb(s, result):
        if progress is not None and task_id is not None:
            progress.advance(task_id)
            progress.refresh()
        on_series(s, result)

    runner = formats.Runner(db, event_id, tasks, concurrency or cfg.concurrency,
                            on_game=on_game_cb, on_series=on_series_cb,
                            on_warn=lambda t: err(f"warning: {t}"), on_line=on_line)
    try:
        if progress is not None:
            with progress:
                runner.run()
        else:
            runner.run()
    except KeyboardInterrupt:
        err(f"interrupted: finished games are stored; resume with: tourney run {source} --resume")
        raise typer.Exit(130) from None
    store.finish_event(db, event_id)
    summary = formats.event_summary(db, event_id)
    if not json_out and not quiet:  # series finished by an earlier run
        for item in summary["series"]:
            if item["series"] not in printed and item["status"] == "finished":
                typer.echo(stored_series_line(item))
    return summary


def stored_series_line(item: dict) -> str:
    """The line of a series from the summary (same wording as ``formats.series_line``)."""
    from tourney.formats import series_line

    row = {"idx": item["series"], "kind": item["kind"],
           "entrants": [{"name": e["entrant"]} for e in item["entrants"]]}
    winner = next((e["seat"] for e in item["entrants"] if e["entrant"] == item["winner"]), None)
    result = {"winner": winner, "games_played": item["games"], "legs_played": item["legs"],
              "seats": [{"seat": e["seat"], "wins": e["wins"], "points": e["points"],
                         "placement": e["placement"]} for e in item["entrants"]]}
    return series_line(row, result)


@app.command(epilog="Example: tourney run configs/demo.toml --concurrency 2\n\n" + EXIT_CODES)
def run(
    config: Path = typer.Argument(..., help="Event config (TOML), e.g. configs/demo.toml."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    resume: bool = typer.Option(
        False, "--resume", help="Resume an interrupted run (re-running the same config does too)."
    ),
    restart: bool = typer.Option(
        False, "--restart", help="Discard the event's stored results and run it again."
    ),
    concurrency: int = typer.Option(
        0, "--concurrency", "-j", min=0, help="Series played at once (0: config, else cores)."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress and no series lines."),
) -> None:
    """Run the event defined in CONFIG and print every series' result and a results table.

    Games run in parallel (one series per worker process; only this process writes the
    database). Every finished game is stored at once; an interrupted run resumes where it
    stopped when run again, with the same seeds, and gives the same results.
    """
    from tourney.config import ConfigError, load_config

    if resume and restart:
        fail("use just one of --resume and --restart")
    try:
        cfg = load_config(config)
    except ConfigError as exc:
        fail(str(exc))
    database = open_store(db)
    summary = execute(database, cfg, str(config), restart=restart, concurrency=concurrency,
                      json_out=json_out, quiet=quiet, expect_resume=resume)
    if json_out:
        out_json(summary)
    else:
        typer.echo("")
        typer.echo(f"event {summary['event']} ({summary['format']}, {summary['rule_set']}, "
                   f"seed {summary['seed']}): {summary['games']} games")
        typer.echo(standings_table(summary))


def parse_options(items: list[str] | None) -> dict:
    """``--option key=value`` pairs; values are read as TOML (``3``, ``true``, ``"zero"``) and
    fall back to plain strings."""
    import tomllib

    options = {}
    for item in items or []:
        if "=" not in item:
            fail(f"--option {item!r}: expected key=value")
        key, value = item.split("=", 1)
        try:
            options[key.strip()] = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            options[key.strip()] = value
    return options


def cli_event(fmt: str, words: list[str], *, seed: int, rule_set: str, options: dict,
              games: int, max_games: int | None, config: Path | None, name: str | None):
    """An :class:`tourney.config.EventConfig` for ``play`` / ``match`` from command-line words."""
    import datetime
    import os

    from tourney import config as cfgmod

    known = {}
    limits: dict = {}
    base_dir = os.getcwd()
    try:
        if config is not None:
            loaded = cfgmod.load_config(config)
            base_dir = loaded.base_dir
            known = {e["name"]: e for e in loaded.entrants}
        taken: set[str] = set()
        specs = [cfgmod.entrant_from_arg(w, taken, known) for w in words]
        for s in specs:
            if s.get("command"):
                s.setdefault("limits", dict(limits))
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%f")
        raw = {
            "name": name or f"{'play' if fmt == 'single' else fmt}-{stamp}",
            "format": fmt,
            "rule_set": rule_set,
            "options": options,
            "seed": seed,
            "games": games,
            "entrants": [s["name"] for s in specs],
        }
        if max_games is not None:
            raw["max_games"] = max_games
        event, _ = cfgmod.check_event("command line", raw, [s["name"] for s in specs])
    except cfgmod.ConfigError as exc:
        fail(str(exc))
    return cfgmod.EventConfig(path="command line", event=event, entrants=specs, concurrency=1,
                              base_dir=base_dir)
