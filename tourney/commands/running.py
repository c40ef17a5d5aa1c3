"""Running an event from the command line: progress on stderr, series lines and the results
table on stdout (shared by ``tourney run``, ``play`` and ``match``)."""

from __future__ import annotations

import typer

from tourney.commands.common import err, show_progress


def keep_from_bots(db, cfg) -> None:
    """Hide the database, the config and every entrant's folder from the sandboxed bots (each
    still sees its own folder): docs/protocol.md, "Fair play"."""
    import os

    from tourney.bots import sandbox

    files = [row[2] for row in db.execute("pragma database_list").fetchall() if row[2]]
    if os.path.isfile(cfg.path):
        files.append(cfg.path)
    folders = [e["cwd"] for e in cfg.resolved_entrants() if e.get("cwd")]
    sandbox.keep_private(*files, *folders)


def execute(db, cfg, source: str, *, restart=False, concurrency=0, json_out=False, quiet=False,
            on_line=None, on_game=None, expect_resume=False, cluster=None):
    """Prepare and run an event, printing series results (stdout) and progress (stderr).
    Returns the summary dict (:func:`tourney.events.summary.event_summary`)."""
    from tourney.events import runner
    from tourney.events import summary as summaries
    from tourney.results import store

    event_id, resumed = runner.prepare_event(db, cfg, source, restart=restart)
    # a Swiss or knockout stopped between rounds goes on with its next round
    tasks = runner.pending_tasks(db, event_id, cfg) or runner.next_round_tasks(db, event_id, cfg)
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
            typer.echo(summaries.series_line(s, result))

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

    def more():  # the next round of a Swiss or knockout
        new = runner.next_round_tasks(db, event_id, cfg)
        if progress is not None and task_id is not None and new:
            progress.update(task_id, total=len(store.series_rows(db, event_id)))
        return new

    event_runner = runner.Runner(db, event_id, tasks, concurrency or cfg.concurrency,
                            on_game=on_game_cb, on_series=on_series_cb,
                            on_warn=lambda t: err(f"warning: {t}"), on_line=on_line, more=more,
                            cluster=cluster)
    try:
        if progress is not None:
            with progress:
                event_runner.run()
        else:
            event_runner.run()
    except KeyboardInterrupt:
        err(f"interrupted: finished games are stored; resume with: tourney run {source} --resume")
        raise typer.Exit(130) from None
    store.finish_event(db, event_id)
    summary = summaries.event_summary(db, event_id)
    if not json_out and not quiet:  # series finished by an earlier run
        for item in summary["series"]:
            if item["series"] not in printed and item["status"] == "finished":
                typer.echo(summaries.stored_series_line(item))
    return summary


