"""Small helpers every command shares: the database option, JSON output, ``--option`` parsing.

Commands stay thin: they parse, call a library module, and print. Errors are raised as
:class:`tourney.errors.UserError` and mapped to one ``error:`` line and an exit code in one place
(:mod:`tourney.app`).
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import tomllib
from collections.abc import Iterator

import typer

from tourney.errors import UserError, exit_codes_help
from tourney.results import store

DB_HELP = "Database file (default: $TOURNEY_DB, else results/tourney.db)."
#: the epilog line every command's help ends with (the one table: tourney.errors.EXIT_CODES)
EXIT_CODES = exit_codes_help()


def err(message: str) -> None:
    """A message, warning or progress line: stderr, so stdout stays data."""
    typer.echo(message, err=True)


def out_json(data) -> None:
    typer.echo(json.dumps(data, indent=2, sort_keys=False))


def open_store(db: str | None, *, readonly: bool = False):
    """The results database of ``--db`` (read-only for commands that only read)."""
    return store.open_db(db, readonly=readonly)


def show_progress(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


def parse_options(items: list[str] | None, flag: str = "--option") -> dict:
    """``--option key=value`` pairs (or those of ``flag``); values are read as TOML (``3``,
    ``true``, ``"zero"``) and fall back to plain strings."""
    options = {}
    for item in items or []:
        if "=" not in item:
            raise UserError(f"{flag} {item!r}: expected key=value")
        key, value = item.split("=", 1)
        try:
            options[key.strip()] = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            options[key.strip()] = value
    return options




class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: the run stops as on Ctrl-C (a KeyboardInterrupt, so that every layer that
    cleans up after Ctrl-C, the worker pool, the cluster's stop, the bots, does so here too)."""


@contextlib.contextmanager
def stopping() -> Iterator[list[int]]:
    """While a command plays (``run``, ``ladder run``, ...): SIGTERM (a service manager's, or
    ``kill``) stops it as Ctrl-C does; the first one only, so that cleaning up is not interrupted
    again. Yields the signals received: a caller exits 143 when there is one, 130 otherwise."""
    received: list[int] = []

    def on_term(signum, frame) -> None:
        if not received:
            received.append(signum)
            raise Terminated

    before = signal.signal(signal.SIGTERM, on_term)
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, before)
