"""Command modules. Each module registers its commands on ``tourney.app.app`` when imported.

Add one import line per module below.
"""

from tourney.commands import (
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
