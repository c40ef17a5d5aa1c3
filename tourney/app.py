"""The Typer application object; command modules in ``tourney.commands`` register on it."""

import typer

app = typer.Typer(
    name="tourney",
    help="Run Crazier Eights games, matches, leagues and bot tournaments; keep and report results.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Run Crazier Eights games, matches, leagues and bot tournaments; keep and report results."""
