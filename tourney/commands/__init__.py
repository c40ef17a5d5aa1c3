"""Command modules. Each module registers its commands on ``tourney.app.app`` when imported.

Importing this package registers every command (what ``tourney --help`` lists, and what the tests
invoke), except when the console script has said it runs one command (``tourney.app.load_only``):
it then imports that command's module alone, and a run does not pay for importing the others
(tourney.cli). Add one import line per module below, and the command's line to
``tourney.app.COMMAND_MODULES``.
"""

from tourney import app as _app


def register_all() -> None:
    """Import every command module (each registers its commands when first imported)."""
    from tourney.commands import (  # heavy at CLI start: a run imports its command's module alone
        check,  # noqa: F401
        club,  # noqa: F401
        demo,  # noqa: F401
        events,  # noqa: F401
        export_bot,  # noqa: F401
        fairplay,  # noqa: F401
        games,  # noqa: F401
        init,  # noqa: F401
        ladder,  # noqa: F401
        match,  # noqa: F401
        new_bot,  # noqa: F401
        play,  # noqa: F401
        replay,  # noqa: F401
        report,  # noqa: F401
        run,  # noqa: F401
        serve,  # noqa: F401
        sprt,  # noqa: F401
        standings,  # noqa: F401
        upgrade,  # noqa: F401
    )


if _app.load_only is None:
    register_all()
