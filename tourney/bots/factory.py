"""Opening an entrant from its spec: the one place that knows every kind of entrant."""

from __future__ import annotations

from tourney.bots.base import Entrant
from tourney.bots.builtin import BuiltinEntrant
from tourney.bots.human import HUMAN, HumanEntrant
from tourney.bots.spec import EntrantSpec
from tourney.bots.subprocess_entrant import SubprocessEntrant

__all__ = ["open_entrant"]


def open_entrant(spec: EntrantSpec, seed: int = 0) -> Entrant:
    """An entrant for ``spec``, not started yet. ``seed`` seeds a built-in bot's RNG and is sent
    to a subprocess bot in the hello (for its own reproducible randomness)."""
    if (spec.builtin is None) == (spec.command is None):
        raise ValueError(f"entrant {spec.name!r}: give exactly one of builtin and command")
    if spec.builtin == HUMAN:
        return HumanEntrant(spec, seed)
    if spec.builtin is not None:
        return BuiltinEntrant(spec, seed)
    if not spec.command:
        raise ValueError(f"entrant {spec.name!r}: the command is empty")
    return SubprocessEntrant(spec, seed)

