"""In-process games between the engine's built-in bots: the fitting data of ``scripts/fit_luck.py``
and the games of ``bench/luck.py`` and the tests. ``"greedy30"`` is the greedy bot playing a
uniformly random option 30% of the time (a bot of close but lower strength)."""

from __future__ import annotations

import random
from typing import Any

import engine
from engine.bots import make_bot

BOTS = ("random", "greedy", "greedy30")


class NoisyBot:
    """The greedy bot, but a random option with probability ``noise``."""

    def __init__(self, seed: int, noise: float = 0.3):
        self.greedy = make_bot("greedy", seed)
        self.rng = random.Random(seed * 7919 + 1)
        self.noise = noise

    def start(self, card_table: dict) -> None:
        self.greedy.start(card_table)

    def choose(self, decision, view) -> str:
        if self.rng.random() < self.noise:
            return self.rng.choice(decision.options)
        return self.greedy.choose(decision, view)


def bot(name: str, seed: int):
    if name == "greedy30":
        return NoisyBot(seed)
    return make_bot(name, seed)


def play(rule_set: str, names: list[str], seed: int, first_player: int, bot_seed: int,
         on_step=None) -> tuple[dict, list[str], Any]:
    """Play one game, seat p held by bot ``names[p]``; returns (start, choices, finished game).
    ``on_step(game)`` is called at every decision before it is answered."""
    start = {"rule_set": rule_set, "players": len(names), "seed": seed, "first_player": first_player}
    game = engine.new_game(rule_set, players=len(names), seed=seed, first_player=first_player)
    bots = [bot(n, bot_seed * 31 + p) for p, n in enumerate(names)]
    for b in bots:
        b.start(game.card_table())
    while (decision := game.pending) is not None:
        if on_step is not None:
            on_step(game)
        p = decision.player
        game.apply(bots[p].choose(decision, lambda g=game, s=p: g.view(s)))
    return start, list(game.choices), game
