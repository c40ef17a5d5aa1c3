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
"""

from __future__ import annotations

import functools
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import IO, Any

from tourney.bots import protocol, sandbox
from tourney.bots.protocol import FAULT_CODES, ProtocolError
from tourney.bots.sandbox import Policy

__all__ = [
    "FAULT_CODES",
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

#: the default of ``Limits.max_stderr_bytes``: the most stderr kept per bot per game
STDERR_CAP_BYTES = 64 * 1024
#: slack added by the referee to every deadline, for the pipe and the scheduler (seconds)
TIME_MARGIN = 0.05
#: without a pidfd (not Linux), how often a silent bot is checked for having exited (ms)
EXIT_CHECK_MS = 50
#: environment variables passed on from the referee's environment (all others are dropped)
PASSED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SYSTEMROOT")


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
    command: tuple[str, ...] | None = None
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    limits: Limits = Limits()
    sandbox: Policy = Policy()


class EntrantError(Exception):
    """An entrant that cannot play: ``code`` is a fault code (``startup`` or ``version``)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


def open_entrant(spec: EntrantSpec, seed: int = 0) -> Entrant:
    """An entrant for ``spec``, not started yet. ``seed`` seeds a built-in bot's RNG and is sent
    to a subprocess bot in the hello (for its own reproducible randomness)."""
    if (spec.builtin is None) == (spec.command is None):
        raise ValueError(f"entrant {spec.name!r}: give exactly one of builtin and command")
    if spec.builtin == "human":
        from tourney.bots.human import HumanEntrant

        return HumanEntrant(spec, seed)
    if spec.builtin is not None:
        return BuiltinEntrant(spec, seed)
    if not spec.command:
        raise ValueError(f"entrant {spec.name!r}: the command is empty")
    return SubprocessEntrant(spec, seed)


class Entrant:
    """The interface the referee uses; see the module docstring.

    Public: ``name``, ``spec``, ``start()``, ``close()``, ``failed`` (an :class:`EntrantError`
    once the entrant cannot play any more), ``bot_name`` (the name the bot gave, if any), and
    the context-manager protocol (``with`` closes; it does not start).

    Used by the referee, once per game: ``begin_game(message)`` -> fault code or None;
    ``decide(game, seat, request_id)`` -> option id, or raises ``ProtocolError``;
    ``fault(code)`` after any fault; ``end_game(message)``; ``take_stderr()``.
    """

    def __init__(self, spec: EntrantSpec, seed: int):
        self.spec = spec
        self.name = spec.name
        self.seed = seed
        self.failed: EntrantError | None = None
        self.bot_name: str | None = None
        self.started = False
        self.closed = False

    # context manager -----------------------------------------------------------------------
    def __enter__(self) -> Entrant:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # overridden ----------------------------------------------------------------------------
    def start(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.closed = True

    def meet(self, names: list[str]) -> None:
        """The entrant names of the game's seats, before it begins (a person wants to know who
        they play against; bots are told only seat numbers)."""

    def begin_game(self, message: dict) -> EntrantError | ProtocolError | None:
        """Get ready for a game and send it ``message`` (``game_start``); an error (with
        ``code`` and ``message``) if this entrant cannot play it."""
        raise NotImplementedError

    def decide(self, game, seat: int, request_id: int) -> str:
        raise NotImplementedError

    def fault(self, code: str) -> None:
        """A fault in this game: never talk to this bot again in this game."""

    def end_game(self, message: dict) -> None:
        """The game is over (``message`` is the ``game_end`` message for this seat)."""

    def take_stderr(self) -> str:
        """The stderr captured since the last call (capped), as text."""
        return ""


class BuiltinEntrant(Entrant):
    """A bot of ``engine.bots`` playing in process."""

    def __init__(self, spec: EntrantSpec, seed: int):
        super().__init__(spec, seed)
        self._bot: Any = None

    def start(self) -> None:
        if self._bot is not None:
            return
        if self.failed is not None:
            raise self.failed
        try:
            from engine import bots
        except ImportError as exc:  # pragma: no cover - the engine ships with tourney
            self.failed = EntrantError("startup", f"engine.bots is not available: {exc}")
            raise self.failed from None
        if self.spec.builtin not in bots.BOT_NAMES:
            known = ", ".join(bots.BOT_NAMES)
            self.failed = EntrantError(
                "startup", f"unknown built-in bot {self.spec.builtin!r} (known: {known})"
            )
            raise self.failed
        self._bot = bots.make_bot(self.spec.builtin, self.seed)
        self.bot_name = self.spec.builtin
        self.started = True

    def begin_game(self, message: dict) -> EntrantError | None:
        if self._bot is None:
            try:
                self.start()
            except EntrantError as exc:
                return exc
        start = getattr(self._bot, "start", None)
        if start is not None:
            start(message["cards"])
        return None

    def decide(self, game, seat: int, request_id: int) -> str:
        decision = game.pending
        try:
            option = self._bot.choose(decision, lambda: game.view(seat))
        except Exception as exc:  # a bug in a built-in bot must not stop the event
            raise ProtocolError("crash", f"built-in bot raised {type(exc).__name__}: {exc}") from None
        if option not in decision.options:
            raise ProtocolError("illegal", f"built-in bot chose {option!r}, not offered")
        return option


class _StderrPump(threading.Thread):
    """Drains a bot's stderr continuously into a capped buffer (head + tail)."""

    def __init__(self, fd: int, sink: _CappedText):
        super().__init__(daemon=True, name="bot-stderr")
        self.fd = fd
        self.sink = sink

    def run(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.sink.add(chunk)


class _CappedText:
    """Bytes kept up to a cap: the first quarter and the last three quarters."""

    def __init__(self, cap: int = STDERR_CAP_BYTES):
        self.head_cap = cap // 4
        self.tail_cap = cap - self.head_cap
        self.lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        with self.lock:
            room = self.head_cap - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self.tail += chunk
                extra = len(self.tail) - self.tail_cap
                if extra > self.tail_cap:  # trim in big steps, not on every chunk
                    del self.tail[:extra]
                    self.dropped += extra

    def take(self) -> str:
        with self.lock:
            tail = self.tail
            extra = len(tail) - self.tail_cap
            dropped = self.dropped
            if extra > 0:
                tail = tail[extra:]
                dropped += extra
            text = self.head.decode("utf-8", "replace")
            if dropped:
                text += f"\n[... {dropped} bytes of stderr dropped ...]\n"
            text += bytes(tail).decode("utf-8", "replace")
            self._reset()
            return text


def _minimal_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    env.update({str(k): str(v) for k, v in extra.items()})
    return env


def _find_program(program: str, cwd: str | None, path: str) -> str | None:
    """Where ``program`` is, as ``Popen`` would look for it: a path (relative to ``cwd``) if it
    holds a slash, else a search of ``path``."""
    if os.sep in program:
        full = os.path.join(cwd or ".", program)
        return full if os.path.exists(full) else None
    return shutil.which(program, path=path)


def _with_limits(argv: list[str], memory_mb: int | None, cpu_seconds: int | None) -> list[str]:
    """``argv`` run under util-linux ``prlimit`` with the bot's resource limits. The limits are set
    by an exec'd program rather than a ``preexec_fn``, which is unsafe while the referee's threads
    run (the stderr readers, the exit watchers), and they hold for every process the bot starts."""
    if memory_mb is None and cpu_seconds is None:
        return argv
    limits = []
    if memory_mb is not None:
        limits.append(f"--as={int(memory_mb) * 1024 * 1024}")
    if cpu_seconds is not None:
        # soft limit: SIGXCPU (kills); hard limit one second later: SIGKILL
        limits.append(f"--cpu={int(cpu_seconds)}:{int(cpu_seconds) + 1}")
    return [PRLIMIT, *limits, "--", *argv]


#: util-linux prlimit (part of the base system on Linux; docs/protocol.md, "Limits")
PRLIMIT = shutil.which("prlimit") or "/usr/bin/prlimit"


class SubprocessEntrant(Entrant):
    """A bot run as a subprocess speaking the JSON-lines protocol.

    ``exit_how`` tells how the last process ended on ``close()`` or after a fault:
    ``"exited"`` (on its own), ``"terminated"`` (SIGTERM), ``"killed"`` (SIGKILL), with
    ``exit_status`` its exit status (negative: killed by that signal). ``wire_log``, if set to
    a list, receives ``(direction, bytes)`` for every line sent (``"out"``) and read (``"in"``).
    """

    def __init__(self, spec: EntrantSpec, seed: int):
        super().__init__(spec, seed)
        self.limits = spec.limits
        self.argv = [sys.executable if a == "{python}" else a.replace("{python}", sys.executable)
                     for a in spec.command or ()]
        self._proc: subprocess.Popen | None = None
        self._streams: tuple[IO[bytes], IO[bytes], IO[bytes]] | None = None  # stdin, out, err
        self._pump: _StderrPump | None = None
        self._stderr = _CappedText(spec.limits.max_stderr_bytes)
        self._buf = bytearray()
        self._scan = 0
        self._bank: float | None = None
        self.exit_how: str | None = None
        self.exit_status: int | None = None
        self.bot_version: str | None = None
        self.pids: list[int] = []  # every process started, for tests and diagnostics
        self._pidfd: int | None = None
        self._launch: sandbox.Launch | None = None
        #: whether the running (or last) process is isolated in a sandbox
        self.isolated = False
        self.wire_log: list | None = None

    # life cycle ------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._proc is not None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the process and do the handshake; raises :class:`EntrantError` on failure.

        A failed first start costs only the game it was for: the next game tries again. A
        failed restart sets ``failed``, and the entrant is not started again."""
        if self._proc is not None:
            return
        if self.failed is not None:
            raise self.failed
        if self.closed:
            raise EntrantError("startup", "the entrant is closed")
        first = not self.pids
        try:
            self._spawn()
            self._handshake()
        except EntrantError as exc:
            self._stop(graceful=False)
            if not first:  # docs/protocol.md, section 5: only a failed *restart* is final
                self.failed = exc
            raise
        self.started = True

    def _spawn(self) -> None:
        sandbox.become_subreaper()
        lim = self.limits
        env = _minimal_env(self.spec.env)
        if _find_program(self.argv[0], self.spec.cwd, env["PATH"]) is None:
            # said here: inside a sandbox it would only be a bwrap error on the bot's stderr
            raise EntrantError("startup", f"cannot start {self.argv[0]!r}: no such program")
        argv = _with_limits(list(self.argv), lim.memory_mb, lim.cpu_seconds)
        try:
            launch = sandbox.prepare(argv, self.spec.cwd, env, self.spec.sandbox)
        except sandbox.SandboxError as exc:
            raise EntrantError("startup", str(exc)) from None
        try:
            proc = subprocess.Popen(
                launch.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=launch.cwd,
                env=launch.env,
                start_new_session=True,  # its own session and process group
                close_fds=True,
                pass_fds=launch.pass_fds,
                bufsize=0,
            )
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            launch.cleanup()
            raise EntrantError("startup", f"cannot start {self.argv[0]!r}: {exc}") from None
        launch.started()
        self._launch = launch
        self.isolated = launch.isolated
        stdin, stdout, stderr = proc.stdin, proc.stdout, proc.stderr
        assert stdin is not None and stdout is not None and stderr is not None  # three pipes
        self._proc, self._streams = proc, (stdin, stdout, stderr)
        self.pids.append(proc.pid)
        self._buf = bytearray()
        self._scan = 0
        self._in_fd = stdin.fileno()
        self._out_fd = stdout.fileno()
        os.set_blocking(self._in_fd, False)
        os.set_blocking(self._out_fd, False)
        self._poll_in = select.poll()
        self._poll_in.register(self._out_fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        # the process's exit is watched too: a child of the bot may hold its stdout open
        self._pidfd = _open_pidfd(proc.pid)
        if self._pidfd is not None:
            self._poll_in.register(self._pidfd, select.POLLIN)
        self._poll_out = select.poll()
        self._poll_out.register(self._in_fd, select.POLLOUT | select.POLLERR)
        self._pump = _StderrPump(stderr.fileno(), self._stderr)
        self._pump.start()
        self.exit_how = self.exit_status = None

    def _handshake(self) -> None:
        lim = self.limits
        deadline = time.monotonic() + lim.startup_timeout
        hello = protocol.hello_message(lim.to_dict(), self.seed, _referee_name())
        try:
            self._send(protocol.dumps(hello), deadline)
            line = self._read_line(deadline)
        except ProtocolError as exc:
            if exc.code == "timeout":
                raise EntrantError(
                    "startup", f"no hello within the start-up timeout of {lim.startup_timeout:g} s"
                ) from None
            if exc.code == "crash":
                status = self._exit_status_soon()
                raise EntrantError(
                    "startup", f"the bot exited before its hello (exit status {status})"
                ) from None
            raise EntrantError("startup", f"during the handshake: {exc.message}") from None
        try:
            msg = protocol.parse_line(line)
            self.bot_name = protocol.check_hello(msg)
        except ProtocolError as exc:
            code = "version" if exc.code == "version" else "startup"
            raise EntrantError(code, exc.message) from None
        self.bot_version = msg.get("version")

    def close(self) -> None:
        """Goodbye, a grace period, then SIGTERM and SIGKILL to the process group; reaped."""
        if self._proc is not None:
            self._stop(graceful=True)
        self.closed = True

    def _exit_status_soon(self, wait: float = 0.2) -> int | None:
        """The exit status if the process ends within ``wait`` seconds (it is not reaped)."""
        if self._proc is None:
            return None
        if self._exited(wait):
            try:
                return self._proc.wait(timeout=0)
            except subprocess.TimeoutExpired:  # pragma: no cover
                return None
        return None

    def _exited(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the process to exit, without reaping it (the process
        group id stays reserved while the leader is an unreaped zombie)."""
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return True
        end = time.monotonic() + timeout
        delay = 0.0005
        while True:
            try:
                info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return True
            if info is not None:
                return True
            now = time.monotonic()
            if now >= end:
                return False
            time.sleep(min(delay, end - now))
            delay = min(delay * 2, 0.02)

    def _killpg(self, sig: int) -> None:
        if self._proc is None:
            return
        try:
            os.killpg(self._proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _stop(self, graceful: bool) -> None:
        """End the process and its whole group (or sandbox), reap it, collect the rest of its
        stderr."""
        proc = self._proc
        if proc is None:
            return
        launch = self._launch
        # the sandbox's first process, found while bwrap is surely alive and its parent
        inner = launch.sandbox_pid(proc.pid) if launch is not None else None
        how = "exited"
        if graceful:
            try:
                self._send(protocol.dumps(protocol.GOODBYE), time.monotonic() + self.limits.grace)
            except ProtocolError:
                pass
            self._close_stdin()
            if not self._exited(self.limits.grace):
                if inner is None:
                    self._killpg(signal.SIGTERM)
                    how = "terminated"
                if inner is not None or not self._exited(min(self.limits.grace, 0.5)):
                    how = "killed"
        else:
            self._close_stdin()
            if not self._exited(0):
                how = "killed"
        # whatever else is left goes too: in a sandbox, killing its first process ends every
        # process in it (setsid or not) before bwrap exits; else the bot's process group
        if inner is not None:
            try:
                os.kill(inner, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            # bwrap reaps it and exits; killed sooner, it would leave the reaping to us
            self._exited(5.0)
        self._killpg(signal.SIGKILL)
        try:
            status = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process stuck in the kernel
            status = None
        _reap_group(proc.pid)
        if inner is not None:
            sandbox.reap(inner)
        self.exit_how, self.exit_status = how, status
        assert self._streams is not None
        _, stdout, stderr = self._streams
        if self._pump is not None:
            self._pump.join(timeout=1.0)
            if not self._pump.is_alive():
                stderr.close()
            self._pump = None
        try:
            stdout.close()
        except OSError:  # pragma: no cover
            pass
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        if launch is not None:
            launch.cleanup()
            self._launch = None
        self._proc = self._streams = None

    def _close_stdin(self) -> None:
        if self._streams is None:
            return
        try:
            self._streams[0].close()
        except OSError:
            pass

    # wire ----------------------------------------------------------------------------------
    def _send(self, data: bytes, deadline: float) -> None:
        if self.wire_log is not None:
            self.wire_log.append(("out", data))
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._in_fd, view)
                view = view[n:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError, ValueError, OSError):
                raise ProtocolError("crash", "the bot closed its stdin (it has probably exited)") from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProtocolError("timeout", "the bot does not read its stdin")
            self._poll_out.poll(max(1, int(left * 1000) + 1))

    def _read_line(self, deadline: float) -> bytes:
        max_bytes = self.limits.max_line_bytes
        buf = self._buf
        gone = False
        while True:
            i = buf.find(b"\n", self._scan)
            if i >= 0:
                line = bytes(buf[:i])
                del buf[: i + 1]
                self._scan = 0
                if len(line) > max_bytes:
                    raise ProtocolError("oversize", f"a line of {len(line)} bytes (limit {max_bytes})")
                if not line.strip():
                    continue  # blank lines are ignored
                if self.wire_log is not None:
                    self.wire_log.append(("in", line))
                return line
            self._scan = len(buf)
            if len(buf) > max_bytes:
                raise ProtocolError("oversize", f"a line longer than {max_bytes} bytes")
            if gone:  # it exited, and all it wrote before exiting has been read
                raise ProtocolError("crash", "the bot exited")
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProtocolError("timeout", "no answer in time")
            wait_ms = max(1, int(left * 1000) + 1)
            if self._pidfd is None:  # no exit notice from the kernel: look now and then
                wait_ms = min(wait_ms, EXIT_CHECK_MS)
            ready = self._poll_in.poll(wait_ms)
            if self._pidfd is None:
                gone = self._exited(0)
            else:
                gone = any(fd == self._pidfd for fd, _ in ready)
            try:
                chunk = os.read(self._out_fd, 1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                raise ProtocolError("crash", "the bot closed its stdout (it has probably exited)")
            buf += chunk
            gone = False  # read on until the pipe is empty before calling it a crash

    # games -----------------------------------------------------------------------------------
    def begin_game(self, message: dict) -> EntrantError | ProtocolError | None:
        if self.failed is not None:
            return EntrantError(self.failed.code, f"could not be restarted: {self.failed.message}")
        if self._proc is None:
            try:
                self.start()
            except EntrantError as exc:
                return exc
        self._bank = self.limits.time_bank
        try:
            self._send(protocol.dumps(message), time.monotonic() + self.limits.decision_timeout)
        except ProtocolError as exc:
            return exc
        return None

    def decide(self, game, seat: int, request_id: int) -> str:
        decision = game.pending
        lim = self.limits
        bank = self._bank
        time_left = lim.decision_timeout + (bank or 0.0)
        label = game.label
        msg = protocol.request_message(
            request_id,
            decision.kind,
            decision.prompt,
            [(o, label(o)) for o in decision.options],
            game.view(seat),
            time_left,
            bank,
            getattr(decision, "source", None),
        )
        data = protocol.dumps(msg)
        start = time.monotonic()
        deadline = start + time_left + TIME_MARGIN
        try:
            self._send(data, deadline)
            line = self._read_line(deadline)
        except ProtocolError as exc:
            if exc.code == "timeout":
                raise ProtocolError(
                    "timeout", f"no answer to request {request_id} within {time_left:g} s"
                ) from None
            raise
        used = time.monotonic() - start
        if bank is not None and used > lim.decision_timeout:
            self._bank = max(0.0, bank - (used - lim.decision_timeout))
        answer = protocol.parse_line(line)
        return protocol.check_answer(answer, request_id, decision.options)

    def fault(self, code: str) -> None:
        self._stop(graceful=False)

    def end_game(self, message: dict) -> None:
        if self._proc is None:
            return
        try:
            self._send(protocol.dumps(message), time.monotonic() + self.limits.decision_timeout)
        except ProtocolError:
            # gone after its last decision: not a fault in a finished game; restart next game
            self._stop(graceful=False)

    def take_stderr(self) -> str:
        return self._stderr.take()


def _open_pidfd(pid: int) -> int | None:
    """A file descriptor that becomes readable when process ``pid`` exits (Linux 5.3 and
    later), or None where the platform has none."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _reap_group(pgid: int) -> None:
    """Reap what is left of process group ``pgid`` after SIGKILL (children adopted by us)."""
    end = time.monotonic() + 2.0
    while True:
        try:
            while os.waitpid(-pgid, os.WNOHANG)[0] != 0:
                pass
        except ChildProcessError:
            pass
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        if not sandbox.become_subreaper() or time.monotonic() > end:
            return
        time.sleep(0.002)


@functools.lru_cache(maxsize=1)
def _referee_name() -> str:
    try:
        from importlib.metadata import version

        return f"tourney {version('tourney')}"
    except Exception:  # pragma: no cover
        return "tourney"
