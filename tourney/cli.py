"""Entry point of the ``tourney`` console script and of ``python -m tourney``.

A command's run imports that command's module alone (``tourney sprt`` needs neither the club's
web pages nor the report's tables): start-up is part of every verdict's time. The help of
``tourney`` itself, ``--version`` and a word that is no command load every command.
"""

import importlib
import sys

from tourney import app as _app


def command_module(argv: list[str]) -> str | None:
    """The module of tourney.commands that registers the command ``argv`` names, or None when
    ``argv`` starts with an option (``--help``, ``--version``) or names no command."""
    if not argv or argv[0].startswith("-"):
        return None
    return _app.COMMAND_MODULES.get(argv[0])


def main() -> None:
    module = command_module(sys.argv[1:])
    if module is not None and "tourney.commands" not in sys.modules:
        _app.load_only = module
    import tourney.commands  # after load_only: which commands the package registers

    if module is None:
        tourney.commands.register_all()
    else:
        importlib.import_module(f"tourney.commands.{module}")
    _app.app()


def __getattr__(name: str):
    """``from tourney.cli import app``: the application with every command registered."""
    if name == "app":
        import tourney.commands  # heavy at CLI start: every command, for whoever asks for the app

        tourney.commands.register_all()
        return _app.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    main()
