"""``tourney ladder ...``: an open competition of submitted bots (docs/ladder.md).

Each subcommand parses, asks :mod:`tourney.ladder.service` and prints: data on stdout (a table,
or JSON with ``--json``; ``run`` and ``settle`` a line per game as it is stored), progress and
notes on stderr. Mistakes are one ``error:`` line (exit 2). ``run`` and ``settle`` stop on
Ctrl-C or SIGTERM (a service manager's stop) the same way, and say so (docs/cli.md).
"""

from __future__ import annotations

import json
import sys

import typer
from tabulate import tabulate

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, err, open_store, parse_options, stopping
from tourney.errors import CheckFailed, UserError
from tourney.results import logs

ladder_app = typer.Typer(
    name="ladder",
    help="Run a ladder: authors submit bots and new versions for weeks, games run all the time, "
         "and the leaderboard comes from maximum-likelihood ratings over every game.",
    epilog="Example: tourney ladder new spring --players 2 && tourney ladder submit spring ann -- "
           "{python} my_bot.py && tourney ladder run spring --games 200\n\n" + EXIT_CODES,
    no_args_is_help=True,
)
app.add_typer(ladder_app, name="ladder")


def _service():
    from tourney.ladder import service  # heavy at CLI start: numpy and the event runner load for ladder commands

    return service


def _limits_module():
    from tourney.ladder import limits  # as heavy as the service: the event runner's config loads

    return limits


def _db():
    return typer.Option(None, "--db", help=DB_HELP)


def _name():
    return typer.Argument(..., help="Name of the ladder.")


def _concurrency():
    return typer.Option(0, "--concurrency", "-j", min=0, help="Tables played at once (0: cores).")


#: the bots' limits, as ladder new and ladder set take them (docs/protocol.md, "Time and limits");
#: 0 lifts a limit that can be lifted
DECISION_TIMEOUT = typer.Option(None, "--decision-timeout", min=0.01, help="Seconds per decision.")
STARTUP_TIMEOUT = typer.Option(None, "--startup-timeout", min=0.01, help="Seconds for the handshake.")
TIME_BANK = typer.Option(None, "--time-bank", min=0.0, help="Extra seconds a bot may spend over a game (0: none).")
MEMORY_MB = typer.Option(None, "--memory-mb", min=0, help=(
    "Address space of a bot's process, MiB (RLIMIT_AS; default 1024; 0: no limit)."))
CPU_SECONDS = typer.Option(None, "--cpu-seconds", min=0, help=(
    "CPU seconds of a bot's process over its life (0: no limit, the default; set, no process is kept warm)."))
MAX_PROCESSES = typer.Option(None, "--max-processes", min=1, help=(
    "Processes and threads a sandboxed bot may have at once (default 128)."))
MAX_OPEN_FILES = typer.Option(None, "--max-open-files", min=16, help="Open files per process of a bot (default 256).")
SCRATCH_MB = typer.Option(None, "--scratch-mb", min=1, help="Size of a sandboxed bot's /tmp, MiB (default 64).")
RESTART = typer.Option(None, "--restart", help=(
    "A fresh bot process: never (reuse a warm one while the bot allows it; the default), series, or game."))
MAX_GAMES_PER_PROCESS = typer.Option(None, "--max-games-per-process", min=0, help=(
    "Replace a bot's process, between games, after it has begun this many games (0: never, the default)."))
MAX_RSS_MB = typer.Option(None, "--max-rss-mb", min=0, help=(
    "Replace a bot's process, between games, when it holds more memory than this, MiB (default 512; 0: never)."))
LIMIT = typer.Option(None, "--limit", help="Any other key of an event's [limits], key=value (e.g. grace=2).")


def _limits(pairs: list[str] | None, **named) -> dict:
    """The limits given: the named options and ``--limit`` pairs (0 lifts a limit that can be lifted)."""
    lift = _limits_module().LIFTABLE
    given = {**{k: v for k, v in named.items() if v is not None}, **parse_options(pairs, "--limit")}
    return {k: None if v == 0 and k in lift else v for k, v in given.items()}


def _limit_value(value) -> str:
    return "none" if value is None else str(value)


def _limits_line(limits: dict) -> str:
    return ", ".join(f"{k} {_limit_value(v)}" for k, v in sorted(limits.items()))


def _note(text: str) -> None:
    err(text)


def _progress(quiet: bool, json_lines: bool = False, ladder: str = ""):
    """What to print as each game is stored: a line on stdout (data, docs/cli.md), or with
    ``json_lines`` one JSON object (docs/schemas/ladder-game.schema.json); nothing if quiet."""
    if quiet:
        return None

    def on_game(names: list[str], payload: dict) -> None:
        order = sorted(range(len(names)), key=lambda s: payload["seats"][s]["placement"] or 0)
        if json_lines:
            seats = [{"entrant": names[s], "placement": payload["seats"][s]["placement"],
                      "points": payload["seats"][s]["points"], "fault": payload["seats"][s]["fault"]}
                     for s in order]
            typer.echo(json.dumps({"version": 1, "ladder": ladder, "game_id": payload.get("game_id"),
                                   "seats": seats}))
            return
        faults = [f"{names[s]}: {payload['seats'][s]['fault']}" for s in order if payload["seats"][s]["fault"]]
        typer.echo(f"game {payload.get('game_id')}: " + " > ".join(names[s] for s in order)
                   + (f" (fault {', '.join(faults)})" if faults else ""))
    return on_game


def _stopped(received: list[int]) -> typer.Exit:
    """Say how the run stopped; the exit to raise (130 after Ctrl-C, 143 after SIGTERM)."""
    why = "SIGTERM" if received else "Ctrl-C"
    err(f"stopped ({why}): every finished game is stored; the tables in play were abandoned and "
        "are played first when the same command runs again")
    return typer.Exit(143 if received else 130)


@ladder_app.command("new", epilog="Example: tourney ladder new spring --rule-set crazier-eights --players 4\n\n"
                    + EXIT_CODES)
def new(
    name: str = _name(),
    rule_set: str = typer.Option("crazier-eights", "--rule-set", help="Rule set to play."),
    players: int = typer.Option(2, "--players", help="Players at each table: 2 to 8."),
    option: list[str] = typer.Option(None, "--option", "-o", help="Rule-set option key=value."),
    seed: int = typer.Option(None, help="Ladder seed (default: a random one)."),
    same_author: bool = typer.Option(False, "--same-author", help="Let an author's versions meet at a table."),
    keep_versions: bool = typer.Option(False, "--keep-versions",
                                       help="Keep an author's earlier versions in play when a new one comes."),
    min_share: float = typer.Option(0.25, "--min-share", min=0.0, max=1.0,
                                    help="Least share of the mean games each active version plays."),
    decision_timeout: float = DECISION_TIMEOUT,
    startup_timeout: float = STARTUP_TIMEOUT,
    time_bank: float = TIME_BANK,
    memory_mb: int = MEMORY_MB,
    cpu_seconds: int = CPU_SECONDS,
    max_processes: int = MAX_PROCESSES,
    max_open_files: int = MAX_OPEN_FILES,
    scratch_mb: int = SCRATCH_MB,
    sandbox: str = typer.Option("auto", "--sandbox", help="Isolate the bots: auto, on or off."),
    keep_logs: str = typer.Option("20", "--keep-logs", help="Each version's last N games keep its stderr in "
                                  "full ('all': every game); faulted games keep their fault and stderr's end."),
    restart: str = RESTART,
    max_games_per_process: int = MAX_GAMES_PER_PROCESS,
    max_rss_mb: int = MAX_RSS_MB,
    limit: list[str] = LIMIT,
    db: str = _db(),
) -> None:
    """Make a ladder: tables of --players, games of --rule-set.

    The bots' limits are an event's [limits] (docs/protocol.md), with safe defaults for
    strangers' code (docs/ladder.md, "Limits"); tourney ladder set changes them later."""
    service = _service()
    if sandbox not in ("auto", "on", "off"):
        raise service.LadderError(f"--sandbox must be auto, on or off, not {sandbox!r}")
    try:
        keep = logs.parse_keep(keep_logs)
    except ValueError as exc:
        raise service.LadderError(f"--{exc}") from None
    limits = _limits(limit, decision_timeout=decision_timeout, startup_timeout=startup_timeout,
                     time_bank=time_bank, memory_mb=memory_mb, cpu_seconds=cpu_seconds,
                     max_processes=max_processes, max_open_files=max_open_files, scratch_mb=scratch_mb,
                     sandbox=sandbox, restart=restart, max_games=max_games_per_process, max_rss_mb=max_rss_mb)
    ladder = service.new_ladder(open_store(db), name, rule_set, players, parse_options(option), seed,
                                same_author=same_author, keep_versions=keep_versions, min_share=min_share,
                                limits=limits, keep_logs=keep if keep is not None else "all")
    typer.echo(f"ladder {ladder['name']}: {ladder['rule_set']}, tables of {ladder['players']}; "
               f"submit with: tourney ladder submit {ladder['name']} AUTHOR -- COMMAND...")
    typer.echo(f"limits: {_limits_line(_limits_module().limits_of(ladder))}")


@ladder_app.command("set", epilog="Example: tourney ladder set spring --memory-mb 512 --max-rss-mb 256\n\n"
                    + EXIT_CODES)
def set_(
    name: str = _name(),
    decision_timeout: float = DECISION_TIMEOUT,
    startup_timeout: float = STARTUP_TIMEOUT,
    time_bank: float = TIME_BANK,
    memory_mb: int = MEMORY_MB,
    cpu_seconds: int = CPU_SECONDS,
    max_processes: int = MAX_PROCESSES,
    max_open_files: int = MAX_OPEN_FILES,
    scratch_mb: int = SCRATCH_MB,
    sandbox: str = typer.Option(None, "--sandbox", help="Isolate the bots: auto, on or off."),
    restart: str = RESTART,
    max_games_per_process: int = MAX_GAMES_PER_PROCESS,
    max_rss_mb: int = MAX_RSS_MB,
    limit: list[str] = LIMIT,
    by: str = typer.Option(None, "--by", help="Who changes them (default: $TOURNEY_USER or the login name)."),
    db: str = _db(),
) -> None:
    """Change the bots' limits of a ladder; the change is recorded (tourney ladder show).

    It applies to every version, from the next batch of a running tourney ladder run (whose
    warm processes of the old limits are said goodbye)."""
    service = _service()
    if sandbox is not None and sandbox not in ("auto", "on", "off"):
        raise service.LadderError(f"--sandbox must be auto, on or off, not {sandbox!r}")
    changes = _limits(limit, decision_timeout=decision_timeout, startup_timeout=startup_timeout,
                      time_bank=time_bank, memory_mb=memory_mb, cpu_seconds=cpu_seconds,
                      max_processes=max_processes, max_open_files=max_open_files, scratch_mb=scratch_mb,
                      sandbox=sandbox, restart=restart, max_games=max_games_per_process, max_rss_mb=max_rss_mb)
    database = open_store(db)
    settings = _limits_module().set_limits(database, service.get(database, name), changes, by=by)
    for key, (was, now) in sorted(settings["changes"][-1]["limits"].items()):
        typer.echo(f"{key}: {_limit_value(was)} -> {_limit_value(now)}")
    err("a running tourney ladder run plays with them from its next batch")


@ladder_app.command("show", epilog="Example: tourney ladder show spring\n\n" + EXIT_CODES)
def show(name: str = _name(), db: str = _db(),
         json_out: bool = typer.Option(False, "--json", help="Print JSON (docs/schemas/ladder-show.schema.json).")
         ) -> None:
    """A ladder's settings: its rule set, its bots' limits as they are now, and every change made
    to them (when, by whom, from what to what)."""
    service = _service()
    ladder = service.get(open_store(db, readonly=True), name)
    settings = ladder["settings"]
    if json_out:
        typer.echo(json.dumps({
            "version": 1, "ladder": ladder["name"], "rule_set": ladder["rule_set"], "players": ladder["players"],
            "status": ladder["status"], "same_author": bool(settings.get("same_author")),
            "keep_versions": bool(settings.get("keep_versions")), "min_share": settings.get("min_share"),
            "limits": _limits_module().limits_in_force(ladder), "changes": settings.get("changes", [])}, indent=2))
        return
    typer.echo(f"ladder {ladder['name']}: {ladder['rule_set']}, tables of {ladder['players']}; {ladder['status']}")
    typer.echo(f"same_author: {str(bool(settings.get('same_author'))).lower()}; keep_versions: "
               f"{str(bool(settings.get('keep_versions'))).lower()}; min_share: {settings.get('min_share')}")
    typer.echo(f"limits: {_limits_line(_limits_module().limits_in_force(ladder))}")
    for change in settings.get("changes", []):
        typer.echo(f"{change['at']} {change['by']}: " + ", ".join(
            f"{k} {_limit_value(a)} -> {_limit_value(b)}" for k, (a, b) in sorted(change["limits"].items())))


@ladder_app.command("submit", epilog="Example: tourney ladder submit spring ann -- {python} my_bot.py\n\n"
                    + EXIT_CODES)
def submit(
    name: str = _name(),
    author: str = typer.Argument(..., help="Who submits (letters, digits, '.', '_', '-')."),
    command: list[str] = typer.Argument(None, metavar="[-- COMMAND...]",
                                        help="The bot's command line; {python} is the Python running tourney."),
    path: str = typer.Option(None, "--path", help="The bot's folder, copied into the ladder's store; "
                                                  "it runs main.py or ./bot there unless a command is given."),
    builtin: str = typer.Option(None, "--builtin", help="A built-in bot instead (a yardstick for the field)."),
    no_check: bool = typer.Option(False, "--no-check", help="Check it at the next run instead of now."),
    db: str = _db(),
    json_out: bool = typer.Option(False, "--json",
                                  help="Print the version as JSON (docs/schemas/ladder-version.schema.json)."),
) -> None:
    """Add a version of AUTHOR's bot, checked first.

    The check is tourney check's: the handshake and seeded games. An author's earlier versions
    keep their games and leave play (unless the ladder keeps them: ladder new --keep-versions).

    Exit status: 0 accepted (or queued with --no-check), 3 refused by its check, 2 bad usage."""


    service = _service()
    version = service.submit(open_store(db), name, author, command or None, path, check=not no_check,
                             builtin=builtin)
    if json_out:
        typer.echo(json.dumps({k: version[k] for k in ("entrant", "author", "version", "status", "reason")},
                              indent=2))
    else:
        typer.echo(f"{version['entrant']}: {version['status']}")
        if version["reason"] and version["status"] == "rejected":
            typer.echo(version["reason"])
    if version["status"] == "rejected":
        raise CheckFailed(f"{version['entrant']} was refused by its check")


@ladder_app.command("retire", epilog="Example: tourney ladder retire spring spring/ann/v2 --reason "
                    "\"plays too slowly for the term\"\n\n" + EXIT_CODES)
def retire(
    name: str = _name(),
    version: str = typer.Argument(..., help="The version (spring/ann/v2), or an author: their active versions."),
    reason: str = typer.Option(..., "--reason", help="Why: shown with the version in the standings."),
    by: str = typer.Option(None, "--by", help="Who retires it (default: $TOURNEY_USER or the login name)."),
    db: str = _db(),
) -> None:
    """Take a version out of play; it keeps its games and its place in the standings.

    A running tourney ladder run says goodbye to its processes within a batch."""
    service = _service()
    done = service.retire(open_store(db), name, version, reason, by)
    typer.echo(f"{done['entrant']}: {done['status']}")
    err("a running tourney ladder run lets its processes go within a batch")


@ladder_app.command("run", epilog="Example: tourney ladder run spring --hours 8 -j 2\n\n" + EXIT_CODES)
def run(
    name: str = _name(),
    games: int = typer.Option(None, "--games", min=1, help="Stop after this many games."),
    hours: float = typer.Option(None, "--hours", min=0.0, help="Stop after this many hours."),
    cluster: str = typer.Option(None, "--cluster", help="Play on the Dask cluster at this address."),
    concurrency: int = _concurrency(),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No line per game."),
    json_lines: bool = typer.Option(False, "--json", help=(
        "Each game as one JSON object on its own line (docs/schemas/ladder-game.schema.json).")),
    db: str = _db(),
) -> None:
    """Play tables until stopped (Ctrl-C or SIGTERM) or the budget is spent.

    Every game is stored as it ends and printed on stdout (a line, or a JSON line with --json);
    notes (checks, disabled versions) go to stderr. Running the command again resumes. New
    versions are checked first."""
    service = _service()
    database = open_store(db)
    with stopping() as received:
        try:
            done = service.run(database, name, games=games, hours=hours, concurrency=concurrency,
                               cluster=cluster, on_game=_progress(quiet, json_lines, name), on_note=_note)
        except KeyboardInterrupt:
            raise _stopped(received) from None
        except Exception:
            if received:  # a worker that died of the same SIGTERM, seen first: still a stop
                raise _stopped(received) from None
            raise
    err(f"{done['games']} game(s) played")


def _board_table(data: dict) -> str:
    rows = [[r["rank"], r["rank_range"], r["entrant"], r["status"], r["games"], f"{r['rating']:+.0f}",
             f"{r['rating_low']:+.0f} .. {r['rating_high']:+.0f}"] for r in data["standings"]]
    return tabulate(rows, headers=["rank", "range", "version", "status", "games", "rating (higher better)",
                                   "95% interval"], disable_numparse=True)


@ladder_app.command("standings", epilog="Example: tourney ladder standings spring --json\n\n" + EXIT_CODES)
def standings(
    name: str = _name(),
    top: int = typer.Option(None, "--top", min=2, help="Show the neighbours' separation in the top N only."),
    db: str = _db(),
    json_out: bool = typer.Option(False, "--json", help="Print JSON (docs/schemas/ladder.schema.json)."),
) -> None:
    """The leaderboard, with 95% intervals and rank ranges.

    A rating is on the Elo scale, against the mean of the versions that have played; the rank
    range is the ranks the results allow (docs/evaluation.md)."""
    data = _service().standings(open_store(db, readonly=True), name, top)
    if json_out:
        typer.echo(json.dumps(data, indent=2))
        return
    typer.echo(f"ladder {data['ladder']}: {data['rule_set']}, tables of {data['players']}, "
               f"{data['games_played']} games, {data['model']} ratings; {data['status']}")
    typer.echo(_board_table(data))
    for pair in data["neighbours"]:
        if not pair["separated"]:
            typer.echo(f"not yet separated: {pair['upper']} and {pair['lower']} "
                       f"({pair['difference_low']:+.0f} .. {pair['difference_high']:+.0f})")
    for v in data["unrated"]:
        typer.echo(f"{v['entrant']}: {v['status']}" + (f": {v['reason'].splitlines()[0]}" if v["reason"] else ""))


@ladder_app.command("settle", epilog="Example: tourney ladder settle spring --top 10 --games 5000\n\n" + EXIT_CODES)
def settle(
    name: str = _name(),
    top: int = typer.Option(10, "--top", min=2, help="Settle the order of the top N."),
    games: int = typer.Option(None, "--games", min=1, help="Stop after this many games."),
    hours: float = typer.Option(None, "--hours", min=0.0, help="Stop after this many hours."),
    cluster: str = typer.Option(None, "--cluster", help="Play on the Dask cluster at this address."),
    concurrency: int = _concurrency(),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No line per game."),
    db: str = _db(),
    json_out: bool = typer.Option(False, "--json",
                                  help="Print the outcome as JSON (docs/schemas/ladder-settle.schema.json)."),
) -> None:
    """The final phase: settle the order of the top N.

    Submissions close, and tables are played until every pair of neighbours in the top N is
    separated at 95% or the budget is spent. Says which pairs stayed tied. A line per game goes
    to stdout as it is stored, but with --json (the outcome only) or --quiet."""
    service = _service()
    with stopping() as received:
        try:
            done = service.settle(open_store(db), name, top, games=games, hours=hours, concurrency=concurrency,
                                  cluster=cluster, on_game=_progress(quiet or json_out), on_note=_note)
        except KeyboardInterrupt:
            raise _stopped(received) from None
        except Exception:
            if received:
                raise _stopped(received) from None
            raise
    if json_out:
        typer.echo(json.dumps(done, indent=2))
        return
    tied = [p for p in done["neighbours"] if not p["separated"]]
    typer.echo(f"{done['games']} game(s) played; the top {top} is "
               + ("settled" if not tied else f"not settled: {len(tied)} pair(s) stayed tied"))
    for p in tied:
        typer.echo(f"  tied: {p['upper']} and {p['lower']} ({p['difference_low']:+.0f} .. "
                   f"{p['difference_high']:+.0f})")
    sys.stdout.flush()


# ---- author codes: who may submit from the browser (tourney serve --ladder-entry, docs/web.md)

code_app = typer.Typer(name="code", help="Author codes: what an author types to submit from the browser.",
                       epilog="Example: tourney ladder code new spring ann --expires 30d\n\n" + EXIT_CODES,
                       no_args_is_help=True)
ladder_app.add_typer(code_app, name="code")


def _codes():
    from tourney.ladder import codes  # heavy at CLI start: the ladder service loads for ladder commands

    return codes


@code_app.command("new", epilog="Example: tourney ladder code new spring ann --expires 30d\n\n" + EXIT_CODES)
def code_new(
    name: str = _name(),
    author: str = typer.Argument(..., help="The author this code submits for (letters, digits, '.', '_', '-')."),
    expires: str = typer.Option(None, "--expires", help="Stop working after this long: 90m, 6h, 30d (default: never)."),
    by: str = typer.Option(None, "--by", help="Who makes it (default: $TOURNEY_USER or the login name)."),
    db: str = _db(),
    json_out: bool = typer.Option(False, "--json",
                                  help="Print the code and its row as JSON (docs/schemas/ladder-code.schema.json)."),
) -> None:
    """Make a code that lets AUTHOR submit versions from the browser (shown once; only its hash is kept)."""
    code, row = _codes().new_code(open_store(db), name, author, expires=expires, by=by)
    if json_out:
        typer.echo(json.dumps({"version": 1, "ladder": name, "code": code, **row}, indent=2))
        return
    typer.echo(f"code {row['id']} of ladder {name} for author {author}: {code}")
    if row["expires_at"]:
        typer.echo(f"expires {row['expires_at']}")
    err("the code is shown once and stored only as a hash; tourney ladder code revoke stops it")


@code_app.command("list", epilog="Example: tourney ladder code list spring\n\n" + EXIT_CODES)
def code_list(name: str = _name(), db: str = _db(),
              json_out: bool = typer.Option(False, "--json",
                                            help="Print JSON (docs/schemas/ladder-codes.schema.json).")) -> None:
    """List a ladder's author codes (never the codes themselves): author, made, expires, last used, status."""
    found = _codes().list_codes(open_store(db), name)
    if json_out:
        typer.echo(json.dumps({"version": 1, "ladder": name, "codes": found}, indent=2))
        return
    typer.echo(tabulate([[r["id"], r["author"], r["created_at"], r["created_by"], r["expires_at"] or "never",
                          r["used_at"] or "", r["status"]] for r in found],
                        headers=["id", "author", "made (UTC)", "by", "expires", "last used", "status"],
                        disable_numparse=True))


@code_app.command("revoke", epilog="Example: tourney ladder code revoke spring 3  |  "
                  "tourney ladder code revoke spring --author ann\n\n" + EXIT_CODES)
def code_revoke(
    name: str = _name(),
    code_id: int = typer.Argument(None, help="The code's id (see ladder code list)."),
    author: str = typer.Option(None, "--author", help="Revoke every live code of this author."),
    every: bool = typer.Option(False, "--all", help="Revoke every live code of the ladder."),
    by: str = typer.Option(None, "--by", help="Who revokes (default: $TOURNEY_USER or the login name)."),
    db: str = _db(),
) -> None:
    """Stop a code working at once: a browser signed in with it can no longer submit or read stderr."""
    if sum(x is not None and x is not False for x in (code_id, author, every or None)) != 1:
        raise UserError("give a code's id, --author AUTHOR or --all")
    done = _codes().revoke(open_store(db), name, code_id, author=author, every=every, by=by)
    for r in done:
        typer.echo(f"revoked code {r['id']} ({r['author']})")
    if not done:
        typer.echo("no live code to revoke")
