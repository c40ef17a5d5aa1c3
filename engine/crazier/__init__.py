"""Crazier Eights: the turn machine.

The game is a *decision machine*. Its state is plain data: zones (hands, draw pile, discard pile,
cards in play, limbo for cards in transit), turn counters, the RNG, and a stack of small frames
(dicts) describing the work in progress. :meth:`Game._advance` runs the top frame's step function
until one of them asks a player something; that question is :attr:`Game.pending`. Applying an
option stores the answer in the top frame and runs again.

Step functions follow one rule that makes every state serialisable and replays exact: a step
either changes the state and returns ``None``, or returns a :class:`Decision` *without* changing
anything. So a loaded game re-derives its pending decision by simply running the top frame.

One shortcut keeps that point: where nothing a step did could make the machine's checks between
steps (a hand emptied, the game over) find something new, the step runs on into the frame it
leaves on top, in the same call: the main phase asks its next decision after a play or discard,
the end of a turn runs into the next turn's main phase, a triggered ability or a played event
starts at once, and a colour or an event's end goes back to the main decision. The decision such
a step returns is the one running the top frame would give, so a loaded game asks the same.
(It saves a round of the machine per step; crazier-eights makes about two steps a decision.)

Card effects live in :mod:`engine.effects`, one small entry per card; timing rules (trigger
order, snapshots, destruction windows, draw substitutions) live here, once, in these modules:

- :mod:`engine.crazier.options`: the rule-set options, teams, interned option ids;
- :mod:`engine.crazier.state`: the saved state, field by field, and its saved form;
- :mod:`engine.crazier.table`: the zones and the moves between them, what may be discarded or played;
- :mod:`engine.crazier.steps`: the step functions (turn stages, main phase, orders, destruction);
- :mod:`engine.crazier.game`: the contract, the machine, the turn order, winning and losing.

This module deals a new game and loads a saved one.
"""

from __future__ import annotations

import random

from engine.cards import CARDS
from engine.common import OptionsError, PositionError, shuffle
from engine.crazier.game import Game
from engine.crazier.options import FORMAT_VERSION, OPTIONS, RULE_SET, _team_ids, validate_options
from engine.crazier.state import State
from engine.crazier.steps import STEPS

__all__ = ["FORMAT_VERSION", "OPTIONS", "RULE_SET", "STEPS", "Game", "State", "load", "new_game", "validate_options"]


_NAMES = [card.name for card in CARDS]


def new_game(players=2, seed=0, options=None, first_player=None, teams=None) -> Game:
    """Shuffle, deal seven each, turn the top card of the draw pile onto the discard pile."""
    opts = validate_options(options or {}, players)
    decks = 1 if players <= 4 else 2
    deck = _NAMES * decks + [dict(p) for p in opts["promo_cards"]]
    rng = random.Random(seed)
    if first_player is None:
        first_player = rng.randrange(players)
    elif not 0 <= first_player < players:
        raise OptionsError(f"first player must be a seat from 0 to {players - 1}")
    order = list(range(len(deck)))
    shuffle(rng, order)
    game = Game(players, seed, opts, deck, _team_ids(players, teams), rng)
    game.turn_number = 0  # _start_turn counts the first turn
    size = opts["hand_size"]
    if size * players >= len(deck):
        raise OptionsError("not enough cards to deal that hand size")
    # Deal from the "top" (end) of the shuffled pile, one card at a time round the table.
    for _ in range(size):
        for p in range(players):
            game.hands[p].append(order.pop())
    game.discard.append(order.pop())
    game.draw_pile = order
    game._start_turn(first_player)
    game.stack.append({"do": "turn", "stage": "begin"})
    game._advance()
    return game


def load(data: dict) -> Game:
    """A game from ``Game.to_dict()`` output or from a hand-written position (docs/positions.md)."""
    try:
        return Game._from_dict(data)
    except PositionError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise PositionError(f"cannot load crazier-eights position: {exc!r}") from None

