"""``tourney events``: list the stored events; ``tourney events delete NAME`` removes one."""

from __future__ import annotations

import sys

import typer
from tabulate import tabulate

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, err, open_store, out_json
from tourney.errors import UserError
from tourney.results import store

events_app = typer.Typer(
    name="events",
    help="List the events stored in the database (tourney events delete NAME removes one).",
    epilog="Examples: tourney events  |  tourney events --json  |  tourney events delete old-test\n\n"
           + EXIT_CODES,
    invoke_without_command=True,
)
app.add_typer(events_app, name="events")


@events_app.callback()
def events(
    ctx: typer.Context,
    db: str = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the events as JSON."),
) -> None:
    """List every event, oldest first: name, format, rule set, stored games, state and when it was
    created. Events of ``tourney play`` and ``tourney match`` have the source "command line".

    JSON shape: {"events": [{"name", "format", "rule_set", "games", "status", "source", "created_at"}]}.
    """
    if ctx.invoked_subcommand is not None:
        return
    rows = store.list_events(open_store(db, readonly=True))
    if json_out:
        out_json({"events": rows})
        return
    typer.echo(tabulate([[r["name"], r["format"], r["rule_set"], r["games"], r["status"], r["source"],
                          r["created_at"]] for r in rows],
                        headers=["event", "format", "rule set", "games", "state", "source", "created"],
                        disable_numparse=True))


@events_app.command("delete", epilog="Example: tourney events delete old-test --yes\n\n" + EXIT_CODES)
def delete(
    name: str = typer.Argument(..., help="The event to remove, with all its series and games."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Remove one event and everything stored for it (series, games, replays, logs). Entrants stay."""
    database = open_store(db)
    event = store.find_event(database, name)
    if event is None:
        raise UserError(f"no event named {name!r} (tourney events lists them)")
    games = database["games"].count_where("event_id = ?", [event["id"]])
    if not yes:
        if not sys.stdin.isatty():
            raise UserError("not deleting without confirmation; add --yes")
        if not typer.confirm(f"delete event {name!r} and its {games} games?", err=True):
            raise UserError("nothing deleted")
    store.delete_event(database, event["id"])
    err(f"deleted event {name!r} ({games} games)")
