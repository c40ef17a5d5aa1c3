"""``tourney upgrade``: bring a database written by an older tourney up to date."""

from __future__ import annotations

import typer

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, err
from tourney.results import schema, store


@app.command(epilog="Example: tourney upgrade --db old-results.db\n\n" + EXIT_CODES)
def upgrade(db: str = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Apply the schema changes a newer tourney needs (read commands refuse an older file rather
    than change it). Results are kept; running it again does nothing."""
    path = store.db_path(db)
    if not path.exists():
        raise store.StoreError(f"{path}: no such database")
    database = store.open_db(db)  # a writing open migrates
    err(f"{path}: up to date ({len(schema.MIGRATIONS.applied(database))} schema steps)")
