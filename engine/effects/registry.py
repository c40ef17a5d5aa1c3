"""The registry of card effects: :class:`Effect` and :func:`register` (see :mod:`engine.effects`).

It lives apart from the package's ``__init__`` so that the card modules can register their
effects while the package imports them.
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
