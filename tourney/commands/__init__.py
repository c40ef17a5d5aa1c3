"""Command modules. Each module registers its commands on ``tourney.app.app`` when imported.

Add one import line per module below.
"""

from tourney.commands import demo  # noqa: F401
from tourney.commands import club  # noqa: F401
