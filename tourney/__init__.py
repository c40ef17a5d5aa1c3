"""tourney: events, bots, results and reports around the eights rules engine.

The package never changes the rules: it seats entrants, asks them for decisions through the
engine's decision model, and keeps what happened. ``engine`` never imports ``tourney``.
"""

__version__ = "0.2.0"
