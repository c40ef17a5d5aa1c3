"""``tourney init``: write a starter config and the starter bot it names (never overwrites)."""

from __future__ import annotations

from pathlib import Path

import typer

from tourney.app import app
from tourney.botkit.skeleton import write_skeleton
from tourney.commands.common import EXIT_CODES
from tourney.config import STARTER_BOT, starter_text
from tourney.errors import UserError


@app.command(epilog="Example: tourney init && tourney run tourney.toml\n\n" + EXIT_CODES)
def init(
    path: Path = typer.Argument(Path("tourney.toml"), help="Where to write the config."),
) -> None:
    """Write a starter event config (a round robin of two built-in bots and a bot of your own) and,
    beside it, that bot: the folder my-bot/ that tourney new-bot would write.

    The config runs as it is, from any folder (tourney run tourney.toml). An existing file, or a
    my-bot/ folder that is not empty, is never overwritten (exit code 2; nothing written).
    """
    bot = path.parent / STARTER_BOT
    if path.exists():
        raise UserError(f"{path}: already exists; not overwritten")
    if bot.exists() and (not bot.is_dir() or any(bot.iterdir())):
        raise UserError(f"{bot}: already exists and is not an empty folder; nothing written")
    try:
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(starter_text())
    except FileExistsError:
        raise UserError(f"{path}: already exists; not overwritten") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        write_skeleton(STARTER_BOT, "python", bot)
    except UserError:
        path.unlink()  # all or nothing: a config naming a bot that is not there would not run
        raise
    typer.echo(f"wrote {path} and {bot}/ (your bot: {bot / 'bot.py'}); run it: tourney run {path}", err=True)
