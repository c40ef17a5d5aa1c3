"""``tourney init``: write a starter config (never overwrites)."""

from __future__ import annotations

from pathlib import Path

import typer

from tourney.app import app
from tourney.commands.common import EXIT_CODES
from tourney.config import starter_text
from tourney.errors import UserError


@app.command(epilog="Example: tourney init my-event.toml && tourney run my-event.toml\n\n"
             + EXIT_CODES)
def init(
    path: Path = typer.Argument(Path("tourney.toml"), help="Where to write the config."),
) -> None:
    """Write a starter event config (a round robin of built-in bots and one bot program).

    An existing file is never overwritten (exit code 2).
    """
    try:
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(starter_text())
    except FileExistsError:
        raise UserError(f"{path}: already exists; not overwritten") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot write ({exc.strerror})") from None
    typer.echo(f"wrote {path}", err=True)
