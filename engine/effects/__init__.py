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

# Importing the card modules fills EFFECTS.
from engine.effects import (
    core,  # noqa: F401
    hands_and_draws,  # noqa: F401
    table_and_piles,  # noqa: F401
)
from engine.effects.registry import EFFECTS, Effect, register

__all__ = ["EFFECTS", "Effect", "register"]
