"""The rules engine of the eights family: pure Python, no I/O, deterministic from a seed.

>>> import engine
>>> game = engine.new_game("crazier-eights", players=2, seed=7)
>>> game.pending.kind
'main'
>>> game.apply(game.pending.options[-1])   # "end": end the turn without discarding

Every rule set's game keeps the contract :class:`engine.Game` (a ``typing.Protocol``, in
:mod:`engine.common`).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from engine.common import (
    FORFEIT,
    Decision,
    EngineError,
    Game,
    IllegalOption,
    OptionsError,
    PositionError,
    Result,
    apply_choice,
)

#: rule-set name -> module implementing it (``new_game``, ``load``, ``OPTIONS``)
RULE_SETS = {
    "crazier-eights": "engine.crazier",
    "crazy-eights": "engine.crazy_eights",
    "super-crazy-eights": "engine.super_crazy_eights",
}

__all__ = [
    "COMPILED",
    "FORFEIT",
    "RULE_SETS",
    "Decision",
    "EngineError",
    "Game",
    "IllegalOption",
    "OptionsError",
    "PositionError",
    "Result",
    "apply_choice",
    "new_game",
    "load_game",
    "replay",
    "rule_set_module",
    "validate_options",
]


def compiled_modules() -> dict[str, Path]:
    """The engine's modules that run as C extensions of the optional compiled build (setup.py,
    docs/scale.md), each with its extension file; empty in the pure-Python build. Found without
    importing them: Python imports an extension before the ``.py`` of the same name."""
    found = {}
    for source in sorted(Path(__file__).parent.glob("*.py")):
        spec = None if source.stem.startswith("__") else importlib.util.find_spec(f"{__name__}.{source.stem}")
        if spec is not None and spec.origin and spec.origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            found[spec.name] = Path(spec.origin)
    return found


def _warn_if_stale(modules: dict[str, Path]) -> None:
    # An extension older than its source runs the old code: the edit would be silently ignored.
    stale = [name for name, ext in modules.items() if Path(__file__).parent.joinpath(
        name.rpartition(".")[2] + ".py").stat().st_mtime > ext.stat().st_mtime]
    if stale:
        warnings.warn(
            f"the compiled engine is older than the source of {', '.join(stale)}: it runs the old code "
            "(rebuild: TOURNEY_COMPILE=1 python3 -m pip install -e . ; back to pure Python: "
            "python3 scripts/compiled_engine.py --remove)",
            RuntimeWarning,
            stacklevel=2,
        )


_COMPILED_MODULES = compiled_modules()
_warn_if_stale(_COMPILED_MODULES)
#: True when the compiled build of the classic rule sets runs (see :func:`compiled_modules`)
COMPILED = bool(_COMPILED_MODULES)


def rule_set_module(name: str):
    """The module of rule set ``name``; an unknown name is an :class:`OptionsError`."""
    try:
        module_name = RULE_SETS[name]
    except KeyError:
        known = ", ".join(sorted(RULE_SETS))
        raise OptionsError(f"unknown rule set {name!r} (known: {known})") from None
    # sys.modules first: import_module costs about a microsecond even for a module imported already
    return sys.modules.get(module_name) or importlib.import_module(module_name)


def validate_options(rule_set: str, options: dict | None, players: int | None = None) -> dict:
    """Check ``options`` for ``rule_set`` and return them completed with the defaults."""
    return rule_set_module(rule_set).validate_options(options or {}, players)


def new_game(
    rule_set: str = "crazier-eights",
    players: int = 2,
    seed: int = 0,
    options: dict | None = None,
    first_player: int | None = None,
    teams: list[list[int]] | None = None,
) -> Game:
    """Shuffle, deal and start a game; ``first_player`` None means drawn from the seed."""
    module = rule_set_module(rule_set)
    return module.new_game(
        players=players, seed=seed, options=options or {}, first_player=first_player, teams=teams
    )


def load_game(data: dict) -> Game:
    """Load a game saved with ``game.to_dict()`` (or a hand-written position)."""
    return rule_set_module(data.get("rule_set", "crazier-eights")).load(data)


def replay(start, choices: list[str]) -> Game:
    """Re-create a game from its start and its ``game.choices``.

    ``start`` is either a dict of ``new_game`` keyword arguments (``rule_set``, ``players``,
    ``seed``, ``options``, ``first_player``, ``teams``) or a saved game / position dict (one
    that has ``"hands"``). ``choices`` are applied in order by :func:`apply_choice`: option ids,
    and the forfeits the game recorded as ``"forfeit:<player>:<reason>"``.
    """
    if "hands" in start:
        game = load_game(start)
    else:
        game = new_game(**start)
    for choice in choices:
        apply_choice(game, choice)
    return game


if TYPE_CHECKING:  # mypy checks that every rule set's game keeps the contract
    from engine.crazier import Game as _CrazierGame
    from engine.crazy_eights import CrazyEightsGame
    from engine.super_crazy_eights import SuperCrazyEightsGame

    _GAMES: tuple[type[Game], ...] = (_CrazierGame, CrazyEightsGame, SuperCrazyEightsGame)
