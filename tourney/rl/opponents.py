"""The opponents of :class:`tourney.rl.single.SingleSeatEnv`: what may take a seat, refused
with a message that says what is accepted, and in-process policies as entrants.

An opponent is a built-in bot's name, a protocol bot's command, an
:class:`~tourney.bots.entrants.EntrantSpec`, an in-process policy (``policy(observation, mask) ->
action``) or :class:`Snapshots`, earlier copies of the learner for self-play.
"""

from __future__ import annotations

import copy
import inspect
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import bots
from tourney.bots.base import Entrant
from tourney.bots.entrants import EntrantSpec
from tourney.bots.protocol import FaultCode, ProtocolError
from tourney.bots.spec import command_problem
from tourney.rl.aec import IllegalAction
from tourney.rl.encoding import EncodingError

#: a policy: ``policy(observation, mask) -> action``
Policy = Callable[[np.ndarray, np.ndarray], Any]


class Snapshots:
    """Earlier copies of the learner, as one opponent (self-play): each game, the seat plays one
    of them, drawn uniformly from the game's seed.

    >>> pool = Snapshots(lambda observation, mask: int(mask.argmax()))
    >>> pool.add(lambda observation, mask: int(mask.nonzero()[0][-1]))
    >>> len(pool)
    2

    The pool stores deep copies (of the policies it is made with, and of those :meth:`add` is
    given unless ``copy=False``), so that training the learner on afterwards does not change a
    snapshot: a torch module, an sb3 policy or an object holding numpy weights is copied whole.
    (A plain function is never copied by Python: close it over arrays that are not trained
    further.) ``keep`` keeps only the newest copies. Several seats may share one pool; a pool may
    grow while the environment runs (the next game sees it).
    """

    def __init__(self, *policies: Policy, keep: int | None = None):
        if keep is not None and keep < 1:
            raise ValueError(f"keep must be at least 1, not {keep}")
        self.keep = keep
        self.policies: list[Policy] = []
        for policy in policies:
            self.add(policy)

    def add(self, policy: Policy, copy: bool = True) -> None:
        """Add ``policy`` (a deep copy of it, unless ``copy=False``) as the newest snapshot."""
        problem = _policy_problem(policy)
        if problem is not None:
            raise ValueError(f"snapshot {policy!r}: {problem}")
        self.policies.append(_copy_policy(policy) if copy else policy)
        if self.keep is not None:
            del self.policies[:-self.keep]

    def pick(self, rng: random.Random) -> Policy:
        return self.policies[rng.randrange(len(self.policies))]

    def __len__(self) -> int:
        return len(self.policies)

    def __repr__(self) -> str:
        return f"Snapshots({len(self.policies)} policies, keep={self.keep})"


def _copy_policy(policy: Policy) -> Policy:
    return copy.deepcopy(policy)


def _policy_problem(policy: Any) -> str | None:
    """Why ``policy`` cannot be called as ``policy(observation, mask)``; None if it can."""
    if not callable(policy):
        return "not callable"
    try:
        signature = inspect.signature(policy)
    except (TypeError, ValueError):  # some built-in callables have none: trust them
        return None
    try:
        signature.bind(None, None)
    except TypeError:
        return f"a policy is called as policy(observation, mask), and this one takes {signature}"
    return None


def accepted() -> str:
    """What an opponent may be, in one sentence (said when one is refused)."""
    return (f"an opponent is a built-in bot's name ({', '.join(map(repr, bots.BOT_NAMES))}), a protocol bot's "
            "command (a list of strings, such as ['{python}', 'bot.py']), an EntrantSpec, an in-process policy "
            "(a callable policy(observation, mask) -> action) or Snapshots (earlier copies of the learner)")


def opponent_problem(opponent: Any) -> str | None:
    """Why ``opponent`` cannot take a seat; None when it can (see the module docstring)."""
    if isinstance(opponent, Snapshots):
        if not opponent.policies:
            return "Snapshots holds no policy yet: add the learner's first copy before making the environment"
        return None
    if isinstance(opponent, EntrantSpec):
        if (opponent.builtin is None) == (opponent.command is None):
            return "an EntrantSpec needs exactly one of builtin and command"
        if opponent.builtin is not None and opponent.builtin not in bots.BOT_NAMES:
            return f"{opponent.builtin!r} is no built-in bot (known: {', '.join(bots.BOT_NAMES)})"
        return _program_problem(opponent.command, opponent.cwd)
    if isinstance(opponent, str):
        if opponent not in bots.BOT_NAMES:
            return f"{opponent!r} is no built-in bot (known: {', '.join(bots.BOT_NAMES)})"
        return None
    if isinstance(opponent, list | tuple):
        if not opponent or not all(isinstance(a, str) and a for a in opponent):
            return "a command is a non-empty list of non-empty strings"
        return _program_problem(opponent, None)
    if callable(opponent):
        return _policy_problem(opponent)
    return f"{type(opponent).__name__} is none of these"


def _program_problem(command: Any, cwd: str | None) -> str | None:
    """Why a protocol bot's program cannot start (checked when the environment is made, not when
    its first game finds the seat empty); None when it can, or when there is no command."""
    if command is None:
        return None
    problem = command_problem(command, cwd or ".")
    return None if problem is None else problem[1]


def opponent_spec(opponent: Any, seat: int) -> EntrantSpec:
    """The :class:`EntrantSpec` of an opponent named by a built-in bot's name, a command or a spec."""
    if isinstance(opponent, EntrantSpec):
        return opponent
    if isinstance(opponent, str):
        return EntrantSpec(f"{opponent}_{seat}", builtin=opponent)
    if isinstance(opponent, list | tuple) and opponent and all(isinstance(a, str) for a in opponent):
        return EntrantSpec(f"bot_{seat}", command=tuple(opponent))
    raise ValueError(f"opponent {opponent!r}: {accepted()}")


class PolicyEntrant(Entrant):
    """An in-process policy in a seat: asked with that seat's observation and action mask."""

    def __init__(self, name: str, policy: Policy, env: Any):
        """``env``: the SingleSeatEnv whose seat this is (its encoding, observer and ``illegal``)."""
        super().__init__(EntrantSpec(name, builtin="policy"), seed=0)
        self.policy = policy
        self.env = env
        self.started = True

    def begin_game(self, message: dict) -> None:
        return None

    def decide(self, game, seat: int, request_id: int) -> str:
        env = self.env
        pending = game.pending
        mask = env.encoding.mask(pending.options)
        action = self.policy(env._observer_now().observe(seat, pending.kind), mask)
        try:
            return env.encoding.option(int(action), pending.options)
        except (EncodingError, TypeError, ValueError) as exc:
            if env.illegal == "raise":
                raise IllegalAction(f"the policy in seat {seat} answered {action!r}: {exc}") from None
            raise ProtocolError(FaultCode.ILLEGAL, f"policy answered {action!r}, not offered") from None
