"""What an entrant is, as plain data: how to run it (:class:`EntrantSpec`) and its limits.

These types sit at the bottom of ``tourney.bots`` so that configuration code above can build
them without importing any process machinery.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from tourney.bots.sandbox import Policy

__all__ = ["STDERR_CAP_BYTES", "EntrantSpec", "Limits"]

#: the default of ``Limits.max_stderr_bytes``: the most stderr kept per bot per game
STDERR_CAP_BYTES = 64 * 1024


@dataclass(frozen=True)
class Limits:
    """Limits for a bot, all in seconds except where noted.

    - ``startup_timeout``: from starting the process to reading its hello.
    - ``decision_timeout``: per decision, from writing the request to reading the answer.
    - ``time_bank``: per game; time a bot uses beyond ``decision_timeout`` is taken from it, and a
      request's ``time_left`` is ``decision_timeout`` plus what is left of the bank. None: no bank.
    - ``max_line_bytes``: the longest line a bot may print (1 MiB).
    - ``memory_mb``: address-space limit (RLIMIT_AS) of the bot process, or None. Runtimes that
      reserve much virtual memory up front (Node.js, the JVM) need a generous value.
    - ``cpu_seconds``: CPU-time limit (RLIMIT_CPU) of the bot process over its life, or None.
    - ``grace``: after ``goodbye``, how long the bot may take to exit before it is terminated.
    - ``max_stderr_bytes``: the most of a bot's stderr kept per game (the first quarter and the
      last three quarters; the middle is dropped with a note). A bot may write more: it is read
      and discarded, so it never blocks on a full pipe.
    """

    startup_timeout: float = 10.0
    decision_timeout: float = 5.0
    time_bank: float | None = None
    max_line_bytes: int = 1 << 20
    memory_mb: int | None = None
    cpu_seconds: int | None = None
    grace: float = 1.0
    max_stderr_bytes: int = STDERR_CAP_BYTES

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class EntrantSpec:
    """How to run an entrant: exactly one of ``builtin`` and ``command``.

    ``command`` is an argv tuple; ``"{python}"`` anywhere in it is replaced by the interpreter
    running tourney (``sys.executable``). ``cwd`` is the bot's working directory (default: the
    current one). ``env`` is added to a minimal environment (PATH, HOME, locale, TZ, TMPDIR and
    ``PYTHONUNBUFFERED=1``); nothing else of the referee's environment is passed on.
    ``sandbox`` is how the bot is isolated (:mod:`tourney.bots.sandbox`; by default wherever the
    platform allows).
    """

    name: str
    builtin: str | None = None
    #: a built-in bot's own settings (the mcts bot's iterations and budget_ms)
    settings: dict = field(default_factory=dict)
    command: tuple[str, ...] | None = None
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    limits: Limits = Limits()
    sandbox: Policy = Policy()

