"""Determinised Monte-Carlo search: the ``mcts`` built-in bot's thinking.

At a decision with several options, each iteration samples a world the seat cannot tell from the
true one (:class:`engine.sampling.Determiniser`: only the seat's information is read), picks a
root option by UCB1, plays it, and plays the game on with a fast rollout policy for everybody:
shed cards (discard, play) rather than end the turn or draw, otherwise at random. The rollout
stops at the end of the game, or after ``depth`` decisions, where the position is scored by hand
sizes; the score is the seat's placement score (:func:`score`). The option with the best mean
score is chosen (ties: the most visited, then the first).

Everything random comes from the bot's own ``random.Random``, so a search of a fixed number of
``iterations`` is deterministic from the seed; ``budget_ms`` only caps the time a search may take
(a cap that bites makes the choice depend on the machine's speed).
"""

from __future__ import annotations

import math
import random
import time

from engine.cards import HOSTILE
from engine.common import Decision, Game
from engine.sampling import Determiniser

#: rollout length in decisions before a game still on is scored by hand sizes
DEPTH = 20

#: the options that get rid of a card, or keep a "last card" call from costing one (a rollout
#: prefers them)
_SHEDDING = ("discard:", "play:", "last_card")


def rollout_choice(game: Game, decision: Decision, rng: random.Random) -> str:
    """The rollout policy, for every player: quick rules of thumb read from the option ids alone
    (no view is built). Shed a card when possible (a discard before a play, an eight last), aim a
    hostile effect at someone else and a kind one at oneself, say yes to a "may", call "last
    card"; anything else at random."""
    options = decision.options
    if len(options) == 1:
        return options[0]
    kind = decision.kind
    if kind in ("player", "players"):
        me = f"player:{decision.player}"
        if decision.source in HOSTILE:
            others = [o for o in options if o.startswith("player:") and o != me]
            return rng.choice(others) if others else ("done" if "done" in options else rng.choice(options))
        return me if me in options else rng.choice(options)
    if kind == "yes_no":
        return "yes"
    discards = [o for o in options if o.startswith("discard:")]
    if discards:
        eights = _eights(game)
        plain = [o for o in discards if int(o[8:]) not in eights]
        return rng.choice(plain or discards)
    plays = [o for o in options if o.startswith(_SHEDDING)]
    if plays:
        return rng.choice(plays)
    return rng.choice(options)


def _eights(game) -> frozenset:
    """The wild cards of a game's deck (kept for last when shedding)."""
    eights = getattr(game, "_eights", None)  # Crazier Eights keeps them in its deck tables
    return eights if eights is not None else _EIGHTS_52


#: the eights of the standard 104-card deck (the eights family: rank = id % 13 + 1)
_EIGHTS_52 = frozenset(c for c in range(104) if c % 13 + 1 == 8)


def score(game: Game, seat: int) -> float:
    """The seat's placement score of a position in [0, 1]: the share of the other seats it finishes
    above, a shared place counting a half (1 for a win and 0 for a loss at two players). That is
    the score tourney's verdicts at tables of K test, so at any table the search plays for its
    seat's expected placement, not for the win alone. A game still on is scored the same way by
    hand sizes: another seat still in is beaten with probability a logistic of the difference in
    cards, a seat out is beaten by every seat still in (two seats out: a half)."""
    result = game.result
    players = game.players
    if players < 2:
        return 0.0
    others = [q for q in range(players) if q != seat]
    if result is not None:
        places = result.placements
        return sum(1.0 if places[seat] < places[q] else 0.5 if places[seat] == places[q] else 0.0
                   for q in others) / (players - 1)
    sizes = _seat_sizes(game)
    mine = sizes[seat]
    total = 0.0
    for q in others:
        if game.alive[seat] and game.alive[q]:
            total += 1.0 / (1.0 + math.exp(mine - sizes[q]))
        elif game.alive[seat] != game.alive[q]:
            total += 1.0 if game.alive[seat] else 0.0
        else:
            total += 0.5
    return total / (players - 1)


def _seat_sizes(game: Game) -> list[int]:
    sizes = [0] * game.players
    for h, seat in enumerate(game.hand_players()):
        sizes[seat] += len(game.hands[h])
    return sizes


def search(game: Game, seat: int, rng: random.Random, iterations: int, budget_ms: float | None = None,
           depth: int | None = None, exploration: float = 0.7) -> str:
    """The option of ``game``'s pending decision (``seat``'s) with the best mean rollout score."""
    options = list(game.pending.options)  # type: ignore[union-attr]
    depth = DEPTH if depth is None else depth
    if len(options) == 1:
        return options[0]
    worlds = Determiniser(game, seat)
    visits = [0] * len(options)
    totals = [0.0] * len(options)
    deadline = None if budget_ms is None else time.perf_counter() + budget_ms / 1000
    for i in range(iterations):
        if deadline is not None and i and time.perf_counter() > deadline:
            break
        if i < len(options):
            k = i  # every option once first
        else:
            log_n = math.log(i)
            k = max(range(len(options)),
                    key=lambda j: totals[j] / visits[j] + exploration * math.sqrt(log_n / visits[j]))
        world = worlds.sample(rng)
        world.apply(options[k])
        totals[k] += _rollout(world, seat, rng, depth)
        visits[k] += 1
    best = max(range(len(options)), key=lambda j: (totals[j] / visits[j] if visits[j] else -1.0, visits[j], -j))
    return options[best]


def _rollout(game: Game, seat: int, rng: random.Random, depth: int) -> float:
    choice = rollout_choice
    for _ in range(depth):
        decision = game.pending
        if decision is None:
            break
        game.apply(choice(game, decision, rng))
    return score(game, seat)
