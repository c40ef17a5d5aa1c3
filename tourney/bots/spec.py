"""What an entrant is, as plain data: how to run it (:class:`EntrantSpec`) and its limits.

These types sit at the bottom of ``tourney.bots`` so that configuration code above can build
them without importing any process machinery.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tourney.bots.resources import OPEN_FILES, PROCESSES, SCRATCH_MB, Resources
from tourney.bots.sandbox import Policy

__all__ = ["RESTARTS", "STDERR_CAP_BYTES", "EntrantSpec", "Limits", "Reuse"]

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
    - ``max_processes``: processes and threads the bot may have at once (RLIMIT_NPROC, counted
      for it alone; in a sandbox only).
    - ``max_open_files``: files (pipes, sockets) each of its processes may hold open
      (RLIMIT_NOFILE).
    - ``scratch_mb``: the size of its scratch space ``/tmp`` in MiB (in a sandbox only).
    """

    startup_timeout: float = 10.0
    decision_timeout: float = 5.0
    time_bank: float | None = None
    max_line_bytes: int = 1 << 20
    memory_mb: int | None = None
    cpu_seconds: int | None = None
    grace: float = 1.0
    max_stderr_bytes: int = STDERR_CAP_BYTES
    max_processes: int = PROCESSES
    max_open_files: int = OPEN_FILES
    scratch_mb: int = SCRATCH_MB

    def to_dict(self) -> dict:
        return asdict(self)

    def resources(self) -> Resources:
        """What the bot's sandbox holds it to."""
        return Resources(processes=self.max_processes, open_files=self.max_open_files,
                         scratch_bytes=self.scratch_mb << 20)


#: when a bot gets a fresh process (docs/protocol.md, "Warm bots"): ``never`` reuses a process
#: for as long as the bot allows it (protocol 1.2 ``reuse``), ``series`` starts one per series,
#: ``game`` one per game
RESTARTS = ("never", "series", "game")


@dataclass(frozen=True)
class Reuse:
    """How long one process of a bot lives, on the referee's side (not sent to the bot).

    - ``restart``: one of :data:`RESTARTS`; ``never`` (the default) reuses a warm process for
      game after game, series after series, when the bot says it can (protocol 1.2).
    - ``max_games``: a process that has begun this many games is replaced between games.
    - ``max_rss_mb``: a process (with its children) found holding more resident memory than
      this between two games is replaced before the next one.
    """

    restart: str = "never"
    max_games: int | None = None
    max_rss_mb: int | None = None


@dataclass(frozen=True)
class EntrantSpec:
    """How to run an entrant: exactly one of ``builtin`` and ``command``.

    ``command`` is an argv tuple; ``"{python}"`` anywhere in it is replaced by the interpreter
    running tourney (``sys.executable``). ``cwd`` is the bot's working directory (default: the
    current one). ``env`` is added to a minimal environment (PATH, HOME, locale, TZ, TMPDIR and
    ``PYTHONUNBUFFERED=1``); nothing else of the referee's environment is passed on.
    ``sandbox`` is how the bot is isolated (:mod:`tourney.bots.sandbox`; by default wherever the
    platform allows). ``reuse`` says how long one of its processes lives (:class:`Reuse`).
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
    reuse: Reuse = Reuse()


def not_executable(program: str) -> str:
    """Why a bot program cannot be started, and the two ways to fix it."""
    runner = {".js": "node", ".py": "{python}", ".rb": "ruby", ".sh": "sh"}.get(Path(program).suffix)
    how = f', or run it with its interpreter: ["{runner}", "{program}"]' if runner else ""
    return f"{program} is not executable: make it so (chmod +x {program}){how}"


def command_problem(command: Sequence[str], cwd: str | os.PathLike) -> tuple[str, str] | None:
    """Why the bot program ``command`` (an argv; ``"{python}"`` stands for the interpreter running
    tourney) cannot be started in ``cwd``: the part at fault (``"cwd"`` or ``"command"``) and the
    reason; None when the folder, the program and a Python script it names all exist.

    >>> command_problem(["{python}", "no-such-bot.py"], ".")[1]  # doctest: +ELLIPSIS
    'script not found: .../no-such-bot.py'
    """
    folder = Path(cwd).resolve()
    if not folder.is_dir():
        return "cwd", f"no such directory: {folder}"
    argv = [arg.replace("{python}", sys.executable) for arg in command]
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(program) if os.path.isabs(program) else folder / program
        if not path.exists():
            return "command", f"program not found: {command[0]}"
        if not path.is_file() or not os.access(path, os.X_OK):
            return "command", not_executable(command[0])
    elif shutil.which(program) is None:
        return "command", f"program not found on PATH: {program}"
    if len(argv) > 1 and argv[1].endswith(".py") and "python" in Path(program).name:
        script = Path(argv[1]) if os.path.isabs(argv[1]) else folder / argv[1]
        if not script.exists():
            return "command", f"script not found: {script}"
    return None
