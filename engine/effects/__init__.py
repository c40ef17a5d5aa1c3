"""Card effects: one small entry per card, registered by card name.

An :class:`Effect` holds everything one card does:

- ``resolve(game, frame)``: the step function of its event effect or triggered ability. Like every
  step it either changes the state and returns ``None`` or returns a ``Decision`` without changing
  anything; the answer comes back as ``frame["answer"]``. ``frame["p"]`` is the player who decides
  (the player of the event, or the controller when the ability triggered), ``frame["src"]`` the card.
- ``playable(game, player)``: False when an event needs a choice that does not exist (item 21).
- ``at_begin`` / ``at_end(game, controller, active)``: True when the ability triggers at the start
  or end of ``active``'s turn; evaluated once when the phase starts (the snapshot of item 12).
- static numbers read by the turn machine: extra discards, the Oberon cap, draw substitutions,
  and how many cards a protector may save from the turn's first destruction.

Cards with no entry are played as plain assets or events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Effect:
    resolve: Callable | None = None
    playable: Callable | None = None
    at_begin: Callable | None = None
    at_end: Callable | None = None
    extra_discards_all: int = 0  # every player, on their turn (Stream of Life)
    extra_discards_own: int = 0  # the controller, on their turn (Fountain of Youth, Holy Grail)
    opponents_discard_cap: int | None = None  # Oberon
    draw_more_to_opponents: int = 0  # Malevolent Minions
    draw_less_from_opponents: int = 0  # Castle
    draw_less_all: int = 0  # Guardian Angel: 2 fewer cards per copy, for everyone
    saves: int = 0  # Guardian Valkyrie 1, Lancelot 3


EFFECTS: dict[str, Effect] = {}


def register(name: str, **fields) -> Effect:
    effect = Effect(**fields)
    EFFECTS[name] = effect
    return effect


# Importing the card modules fills EFFECTS.
from engine.effects import (
    core,  # noqa: F401
    hands_and_draws,  # noqa: F401
    table_and_piles,  # noqa: F401
)
