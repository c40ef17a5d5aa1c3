"""The Typer application object; command modules in ``tourney.commands`` register on it.

Errors are mapped to exit codes here, once for every command (:mod:`tourney.errors`): a
:class:`~tourney.errors.TourneyError` (or an engine input error) becomes one ``error:`` line on
stderr and its exit code; anything else is a bug and keeps its traceback. A Ctrl-C that a
command does not handle itself is ``interrupted`` and exit code 130.
"""

from __future__ import annotations

import inspect
import sys

import typer
from typer.core import TyperGroup

from tourney import __version__
from tourney.errors import exit_code_for, exit_codes_help


def flowing(text: str | None) -> str | None:
    """``text`` with each paragraph on one line: docstrings are wrapped for the source, and a
    line break left in them would reach the terminal as a break in mid-sentence at any width
    (Rich keeps single line breaks). Paragraphs stay apart (a blank line); a paragraph that
    starts with ``\\b`` (click's "keep as written") is kept as it is."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split()) for p in paragraphs)


def flow_help(command) -> None:
    """Make the help of ``command``, its options and its subcommands flowing text (:func:`flowing`)."""
    for attr in ("help", "short_help", "epilog"):
        setattr(command, attr, flowing(getattr(command, attr, None)))
    for param in command.params:
        if getattr(param, "help", None):
            param.help = flowing(param.help)
    for sub in getattr(command, "commands", {}).values():
        flow_help(sub)


#: every command (and command group) -> the module of tourney.commands that registers it; a new
#: command adds its line here (tests/test_cli_start.py checks the table against the commands)
COMMAND_MODULES = {
    "check": "check", "club": "club", "demo": "demo", "events": "events", "export-bot": "export_bot",
    "fairplay": "fairplay", "games": "games", "init": "init", "ladder": "ladder", "match": "match",
    "new-bot": "new_bot", "play": "play", "replay": "replay", "report": "report", "run": "run",
    "serve": "serve", "sprt": "sprt", "standings": "standings", "upgrade": "upgrade",
    "compact": "storage", "backup": "storage",
}
#: every command's line in ``tourney --help``: one line each (at 80 columns), as git and cargo
#: list theirs; the detail stays in the command's own help (tests/test_cli_help.py checks both)
SUMMARIES = {
    "backup": "Copy a results database, even while it is written",
    "check": "Check that a bot follows the protocol",
    "club": "Keep the scores of a club league played with real cards",
    "compact": "Cut an old event's or ladder's stored logs",
    "demo": "Play one seeded game between built-in bots and print it",
    "events": "List or delete the stored events",
    "export-bot": "Turn a trained policy into a bot folder",
    "fairplay": "Test the entrants of an event for collusion",
    "games": "List the stored games",
    "init": "Write a starter event and a bot of your own to run",
    "ladder": "Run a ladder: submitted bots, games all the time",
    "match": "Play a best-of-N match",
    "new-bot": "Write a new bot to start from (Python, JavaScript or C)",
    "play": "Play one game and print its log",
    "replay": "Replay a stored game decision by decision",
    "report": "Report an event's standings as text, csv, json, html or a site",
    "run": "Run the event a config defines",
    "serve": "Serve the results as web pages",
    "sprt": "Play two bots until the SPRT tells which is stronger",
    "standings": "Show an event's standings",
    "upgrade": "Bring an older results database up to date",
}
#: set by the console script (tourney.cli) to the one command module it runs, before importing
#: it: importing tourney.commands then registers that command only. None: every command.
load_only: str | None = None


class _Group(TyperGroup):
    """The root command group: runs a command and maps the errors it lets escape; every help
    text in it flows (:func:`flow_help`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        flow_help(self)
        for name, command in self.commands.items():
            command.short_help = SUMMARIES.get(name, command.short_help)

    def invoke(self, ctx):
        store = sys.modules.get("tourney.results.store")  # not imported here: start-up time
        before = store.open_writers() if store is not None else set()
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # Ctrl-C where a command does not say more: exit 130, as documented
            typer.echo("interrupted", err=True)
            raise typer.Exit(130) from None
        except Exception as exc:
            code = exit_code_for(exc)
            if code is None:
                raise
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code) from None
        finally:
            # however the command ended (done, a user error, Ctrl-C, a bot's crash), the results
            # file it wrote is whole: its WAL folded back and removed (docs/formats.md)
            store = sys.modules.get("tourney.results.store")
            if store is not None:
                store.close_writers(keep=before)


app = typer.Typer(
    name="tourney",
    cls=_Group,
    help="Run Crazier Eights games, matches, leagues and bot tournaments; keep and report results.",
    epilog=("New here? Start with tourney init (an event and a bot of your own, ready to run) or tourney"
            " new-bot NAME (a bot to write, with the commands to check and play it; docs/tutorial.md).\n\n"
            "Example, in an empty folder: tourney init && tourney run tourney.toml\n\n"
            "Each command's own help has the detail: tourney COMMAND --help\n\n" + exit_codes_help()),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"tourney {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                 help="Print tourney's version and exit."),
) -> None:
    """Run Crazier Eights games, matches, leagues and bot tournaments; keep and report results."""
