"""Entrants: built-in bots and subprocess bots behind one small interface.

The tournament layer describes an entrant with an :class:`EntrantSpec`, opens it with
:func:`open_entrant` and hands it to :func:`tourney.referee.play_game` for every game of a
series (a match or a league table)::

    spec = EntrantSpec("rando", command=("{python}", "examples/bots/random_bot.py"))
    with open_entrant(spec, seed=7) as rando, open_entrant(EntrantSpec("g", builtin="greedy")) as g:
        rando.start()                       # optional: raises EntrantError early
        record = play_game([rando, g], seed=1)

A subprocess entrant is **one process per series**, started from its command with a minimal
environment in its own process group, spoken to in JSON lines (``docs/protocol.md``). When it
faults in a game the referee forfeits its seat and calls :meth:`Entrant.fault`, which kills the
process at once; the entrant restarts itself (with a new handshake) at the next game. If that
restart fails, :attr:`Entrant.failed` is set and every later game is forfeited at once with code
``"startup"`` (or ``"version"``). ``start()`` is optional: ``play_game`` starts an entrant that
has not been started yet, and forfeits its seat if that fails.

:meth:`Entrant.close` (also run on leaving the ``with`` block) sends ``goodbye``, waits
``limits.grace`` seconds for the bot to exit on its own, then sends SIGTERM and SIGKILL to the
whole process group and reaps the process: nothing is left behind.

A built-in entrant (``builtin="random"`` or ``"greedy"``) calls ``engine.bots`` in process,
without JSON and without time limits.

This module gathers the public names; each job has its own module: :mod:`~tourney.bots.spec`
(``EntrantSpec``, ``Limits``), :mod:`~tourney.bots.base` (``Entrant``, ``EntrantError``),
:mod:`~tourney.bots.builtin`, :mod:`~tourney.bots.subprocess_entrant`, :mod:`~tourney.bots.process`
(the operating-system side of a bot process), :mod:`~tourney.bots.human` and
:mod:`~tourney.bots.factory` (``open_entrant``, which knows every kind).
"""


from tourney.bots.base import Entrant, EntrantError
from tourney.bots.builtin import BuiltinEntrant
from tourney.bots.factory import open_entrant
from tourney.bots.protocol import FAULT_CODES, FaultCode
from tourney.bots.sandbox import Policy
from tourney.bots.spec import STDERR_CAP_BYTES, EntrantSpec, Limits
from tourney.bots.subprocess_entrant import SubprocessEntrant

__all__ = [
    "FAULT_CODES",
    "FaultCode",
    "STDERR_CAP_BYTES",
    "BuiltinEntrant",
    "Entrant",
    "EntrantError",
    "EntrantSpec",
    "Limits",
    "Policy",
    "SubprocessEntrant",
    "open_entrant",
]
