"""Command modules. Each module registers its commands on ``tourney.app.app`` when imported.

Add one import line per module below.
"""

from tourney.commands import demo  # noqa: F401
from tourney.commands import club  # noqa: F401
from tourney.commands import standings  # noqa: F401
from tourney.commands import init  # noqa: F401
from tourney.commands import run  # noqa: F401
from tourney.commands import play  # noqa: F401
from tourney.commands import match  # noqa: F401
from tourney.commands import games  # noqa: F401
from tourney.commands import replay  # noqa: F401
from tourney.commands import report  # noqa: F401
from tourney.commands import check  # noqa: F401
