"""``tourney export-bot NAME POLICY``: a trained policy (an MLP as a .npz archive) as a protocol
bot folder that needs only Python and numpy."""

from __future__ import annotations

from pathlib import Path

import typer

from tourney.app import app
from tourney.commands.common import EXIT_CODES


@app.command("export-bot", epilog="Example: tourney export-bot wise policy.npz && cd wise && "
             "tourney check -- {python} bot.py\n\n" + EXIT_CODES)
def export_bot(
    name: str = typer.Argument(..., help="The bot's name (a letter, then letters, digits, - or _)."),
    policy: Path = typer.Argument(..., help="The trained policy: an MLP saved as .npz (tourney/rl/mlp.py has "
                                            "the format; tourney.rl.export.save_mlp writes it from any weights)."),
    folder: Path = typer.Option(None, "--dir", help="Where to write it (default: ./NAME); must not exist or be "
                                                    "empty."),
) -> None:
    """Write a protocol bot that plays POLICY: the bot, the weights, the forward pass (numpy), the
    observation encoding it was trained on and the protocol helper, all copied into one folder
    (docs/tutorial.md, "From a trained policy to a bot"). Its sizes are checked against the
    encoding of the policy's rule set and players first. Nothing is ever overwritten (exit code 2).
    """
    from tourney.rl.export import export_bot as write  # numpy loads only for this command

    written = write(name, policy, folder)
    for path in written:
        typer.echo(f"wrote {path}", err=True)
    typer.echo(f"next: cd {written[0].parent} && tourney check -- {{python}} bot.py", err=True)
