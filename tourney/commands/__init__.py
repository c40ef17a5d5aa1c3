"""Command modules. Each module registers its commands on ``tourney.app.app`` when imported.

Importing this package registers every command (what ``tourney --help`` lists, and what the tests
invoke), except when the console script has said it runs one command (``tourney.app.load_only``):
it then imports that command's module alone, and a run does not pay for importing the others
(tourney.cli). A new command's module gets its line in ``tourney.app.COMMAND_MODULES``.
"""

import importlib

from tourney import app as _app


def register_all() -> None:
    """Import every command module (each registers its commands when first imported), in the
    order of their names: the order ``tourney --help`` lists them in."""
    for module in sorted(set(_app.COMMAND_MODULES.values())):
        importlib.import_module(f"tourney.commands.{module}")


if _app.load_only is None:
    register_all()
