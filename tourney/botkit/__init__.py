"""The bot author's kit: a protocol helper per language and ``tourney new-bot`` skeletons.

- :mod:`tourney.botkit.kit`: the Python helper (``from tourney.botkit import run``): you write
  ``choose(view, options)``, it speaks the protocol. Standard library only, one file, so a bot
  folder carries a copy of it;
- ``files/``: the JavaScript (``botkit.js``) and C (``botkit.h``) helpers and the skeletons'
  templates;
- :mod:`tourney.botkit.skeleton`: writes a new bot's folder (``tourney new-bot``).
"""

from tourney.botkit.kit import Game, game, log, run

__all__ = ["Game", "game", "log", "run"]
