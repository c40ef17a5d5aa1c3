"""``tourney check``: start one bot, do the handshake, play seeded games, say plainly what is wrong."""

from __future__ import annotations

import dataclasses
import os
import shutil

import typer

from engine import OptionsError, validate_options
from tourney.app import app
from tourney.bots.sandbox import MODES, NOBODY, Policy, problem
from tourney.bots.spec import EntrantSpec, Limits
from tourney.commands.common import EXIT_CODES, parse_options
from tourney.config import check_limits
from tourney.errors import CheckFailed, UserError

ADVICE = {
    "crash": "Your bot exited (or closed stdout) during a game. Look at its stderr below for a "
             "traceback; a bot must keep reading stdin until it gets goodbye or end of file.",
    "timeout": "Your bot did not answer in time. Did you flush stdout after writing the answer? "
               "(Python: print(..., flush=True) or sys.stdout.flush(); C: fflush(stdout).)",
    "malformed": "Your bot printed a line that is not a valid message. Print only protocol JSON "
                 "lines on stdout, one object per line; send logs and debug output to stderr.",
    "illegal": "Your bot answered with an option id that was not offered. Answer with the \"id\" "
               "of one of the request's \"options\", exactly as sent.",
    "wrong_id": "Your bot answered with another request's id. Copy the request's \"id\" into the "
                "answer, and write exactly one answer per request (no answers to game_start or "
                "game_end).",
    "oversize": "Your bot printed a line longer than the line limit. Messages are one short line.",
    "startup": "Your bot did not complete the handshake: read the referee's hello line, then "
               "print {\"type\":\"hello\",\"protocol\":\"tourney-bot\",\"version\":\"1.0\","
               "\"name\":\"...\"} on one line and flush.",
    "version": "Your bot speaks another protocol or major version, or asks for features the referee "
               "does not offer; this referee speaks tourney-bot 1.x (any minor version is accepted).",
}


#: said when a failing bot had used up one of its limits (docs/protocol.md, "Time and limits")
LIMIT_ADVICE = ("It had reached one of its limits (processes, open files, scratch space): the call that "
                "would pass it failed. Free what it no longer needs (close files, wait for child processes, "
                "delete scratch files), or ask the event for more (limits.max_processes, max_open_files, "
                "scratch_mb).")


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join("    " + line for line in text.rstrip().splitlines()[-lines:])


@app.command(epilog="Example: tourney check -- python3 examples/bots/random_bot.py\n\n" + EXIT_CODES)
def check(
    command: list[str] = typer.Argument(
        None, metavar="COMMAND...",
        help="The bot's command line (after --). {python} means the interpreter running tourney."),
    cwd: str = typer.Option(None, help="Working directory of the bot."),
    seed: int = typer.Option(1, help="Seed of the first game."),
    games: int = typer.Option(2, min=1, help="Games to play against a built-in bot."),
    opponent: str = typer.Option("random", help="Built-in opponent: random or greedy."),
    rule_set: str = typer.Option("crazier-eights", "--rule-set", help="Rule set to play."),
    startup_timeout: float = typer.Option(10.0, min=0.01, help="Seconds allowed for the handshake."),
    decision_timeout: float = typer.Option(5.0, min=0.01, help="Seconds allowed per decision."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print every game's log."),
    sandbox: str = typer.Option("auto", help="Isolate the bot: auto, on or off (docs/protocol.md, "
                                             "\"Fair play\")."),
    network: bool = typer.Option(False, "--network", help="Let the sandboxed bot use the network."),
    writable: bool = typer.Option(False, "--writable", help="Let the sandboxed bot write its folder."),
    limit: list[str] = typer.Option(None, "--limit", help=(
        "Another bot limit, key=value (docs/protocol.md, \"Time and limits\"), e.g. memory_mb=1024.")),
) -> None:
    """Check a bot: start it, do the handshake, play seeded games against a built-in bot, and
    tell you plainly what is wrong, if anything.

    Exit status: 0 the bot behaved, 3 it broke the protocol, 2 bad usage.
    """
    from tourney.bots.entrants import SubprocessEntrant, open_entrant  # heavy at CLI start: loads for check

    _refuse_bad_usage(command, cwd, opponent, sandbox, rule_set)
    fields = {f.name for f in dataclasses.fields(Limits)}
    extra = {k: v for k, v in check_limits("", "limits", parse_options(limit, "--limit")).items() if k in fields}
    limits = Limits(**{"startup_timeout": startup_timeout, "decision_timeout": decision_timeout, **extra})
    spec = EntrantSpec("bot", command=tuple(command), cwd=cwd, limits=limits,
                       sandbox=Policy(sandbox, network=network, writable=writable))
    bot = SubprocessEntrant(spec, seed)
    with bot, open_entrant(EntrantSpec(opponent, builtin=opponent), seed=seed + 1) as other:
        _handshake(bot, sandbox)
        problems, last_fault = _play(bot, other, rule_set, seed, games, verbose)
    problems += _goodbye(bot, last_fault, limits.grace)
    if problems:
        raise CheckFailed(f"{problems} problem(s) found")
    typer.echo("the bot follows the protocol")


def _refuse_bad_usage(command: list[str] | None, cwd: str | None, opponent: str, sandbox: str,
                      rule_set: str) -> None:
    """A :class:`UserError` for anything wrong before a bot is started."""
    if not command:
        raise UserError("give the bot's command after --, e.g. tourney check -- python3 my_bot.py")
    if cwd is not None and not os.path.isdir(cwd):
        raise UserError(f"--cwd {cwd!r} is not a directory")
    exe = command[0]
    if exe != "{python}" and shutil.which(exe, path=os.environ.get("PATH")) is None and not (
        os.path.isfile(os.path.join(cwd or ".", exe)) and os.sep in exe
    ):
        raise UserError(f"cannot find the program {exe!r}")
    if opponent not in ("random", "greedy"):
        raise UserError(f"--opponent must be random or greedy, not {opponent!r}")
    if sandbox not in MODES:
        raise UserError(f"--sandbox must be auto, on or off, not {sandbox!r}")
    try:
        validate_options(rule_set, {}, 2)
    except OptionsError as exc:
        raise UserError(str(exc)) from None


def _handshake(bot, sandbox: str) -> None:
    """Start the bot and say how the handshake and the sandbox went; CheckFailed if it failed."""
    from tourney.bots.entrants import EntrantError  # heavy at CLI start: loads for check

    try:
        bot.start()
    except EntrantError as exc:
        typer.echo(f"FAIL handshake: {exc.code}: {exc.message}")
        typer.echo(f"  {ADVICE[exc.code]}")
        _stderr_tail(bot.take_stderr())
        raise CheckFailed("the handshake failed") from None
    typer.echo(f"ok   handshake: the bot calls itself {bot.bot_name!r}, protocol version {bot.bot_version}")
    if bot.isolated:
        lim = bot.limits
        typer.echo(f"ok   sandbox: the bot runs isolated (system calls filtered, a user of its own; at most "
                   f"{lim.max_processes} processes and threads, {lim.max_open_files} open files per process, "
                   f"{lim.scratch_mb} MiB in /tmp)")
        if bot.spec.sandbox.writable and bot.uid is not None:
            typer.echo(f"ok   folder: the bot may write its folder; what it writes there belongs to uid {bot.uid}, "
                       f"group nogroup ({NOBODY}), mode 600: the same uid at every start on this folder")
    elif sandbox == "off":
        typer.echo("--   sandbox: off, as asked")
    else:
        typer.echo(f"--   sandbox: none here ({problem()})")


def _play(bot, other, rule_set: str, seed: int, games: int, verbose: bool) -> tuple[int, str | None]:
    """Play the seeded games, seats swapped each game; (games with a fault, the last game's fault)."""
    from tourney.bots.protocol import FAULT_MEANINGS  # with the bot machinery: loads for check only
    from tourney.bots.referee import play_game  # heavy at CLI start: loads for check

    problems, code = 0, None
    for g in range(games):
        seats = [bot, other] if g % 2 == 0 else [other, bot]
        me = seats.index(bot)
        record = play_game(seats, rule_set=rule_set, seed=seed + g, series={"game": g + 1, "of": games})
        if verbose:
            for line in record.log:
                typer.echo(f"     {line}")
        code = record.faults.get(me)
        where = f"game {g + 1} (seed {seed + g}, seat {me})"
        if code is None:
            won = "won" if me in record.result.winners else "lost"
            typer.echo(f"ok   {where}: played to the end, {won}, {record.result.points[me]} points")
            continue
        problems += 1
        detail = record.fault_details.get(me, FAULT_MEANINGS[code])
        typer.echo(f"FAIL {where}: {code}: {detail}")
        typer.echo(f"  {ADVICE[code]}")
        if "it had used up" in detail:
            typer.echo(f"  {LIMIT_ADVICE}")
        _stderr_tail(record.stderr.get(me, ""))
    return problems, code


def _goodbye(bot, last_fault: str | None, grace: float) -> int:
    """Say whether the bot exited on its own after goodbye; 1 if it did not, else 0."""
    if last_fault is not None:
        typer.echo("--   goodbye: not checked (the bot had faulted in the last game)")
    elif bot.exit_how == "exited":
        typer.echo("ok   goodbye: the bot exited on its own")
    else:
        typer.echo(f"FAIL goodbye: the bot did not exit within {grace:g} s of goodbye and "
                   f"was {bot.exit_how}. Exit when you read goodbye or reach end of stdin.")
        return 1
    return 0


def _stderr_tail(text: str) -> None:
    if text.strip():
        typer.echo("  the bot's stderr ends with:\n" + _tail(text))
