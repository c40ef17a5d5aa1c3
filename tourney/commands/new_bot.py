"""``tourney new-bot NAME``: write a new bot's folder (Python, JavaScript or C) that passes
``tourney check`` as it is."""

from __future__ import annotations

from pathlib import Path

import typer

from tourney.app import app
from tourney.botkit.skeleton import write_skeleton
from tourney.commands.common import EXIT_CODES


@app.command("new-bot", epilog="Example: tourney new-bot wily --lang python && cd wily && "
             "tourney check -- {python} bot.py\n\n" + EXIT_CODES)
def new_bot(
    name: str = typer.Argument(..., help="The bot's name (a letter, then letters, digits, - or _)."),
    lang: str = typer.Option("python", "--lang", help="python, javascript or c."),
    folder: Path = typer.Option(None, "--dir", help="Where to write it (default: ./NAME); must not exist "
                                                    "or be empty."),
) -> None:
    """Write a bot that plays a random legal option, with one marked place for your strategy, the
    protocol helper of its language, a README with the commands to check it and play it, and an
    event against the built-in bots (gauntlet.toml). Nothing is ever overwritten (exit code 2).
    """
    written = write_skeleton(name, lang, folder)
    for path in written:
        typer.echo(f"wrote {path}", err=True)
    where = written[0].parent
    first = "make && tourney check -- ./bot" if lang == "c" else \
        f"tourney check -- {'{python} bot.py' if lang == 'python' else 'node bot.js'}"
    typer.echo(f"next: cd {where} && {first}   (then read {where / 'README.md'})", err=True)
