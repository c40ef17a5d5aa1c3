"""The operating-system side of a bot process: its environment, limits, stderr, exit and reaping.

Nothing here speaks the protocol; :mod:`tourney.bots.subprocess_entrant` does.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

from tourney.bots import sandbox
from tourney.bots.spec import STDERR_CAP_BYTES

#: without a pidfd (not Linux), how often a silent bot is checked for having exited (ms)
EXIT_CHECK_MS = 50
#: environment variables passed on from the referee's environment (all others are dropped)
PASSED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SYSTEMROOT")


#: the signals that end a referee on request; held back while a bot is being started
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextlib.contextmanager
def ending_signals_held() -> Iterator[None]:
    """Hold SIGTERM and SIGINT back for the block, then deliver any that came.

    A bot is ours to end only once the referee holds its process (and the keeper knows its
    group). A signal handled between the fork and that moment would end the referee and leave
    the new bot running for good, so starting a bot is made one step for the signals that end
    a run. Python runs signal handlers in the main thread only; elsewhere this does nothing.
    The signal mask is not used, because a bot would inherit it and could not be terminated
    (and a signal sent to the process would reach another thread anyway).

    Python runs a handler between two steps of the main thread, so one may run, and raise, in
    the middle of the swapping itself: a signal that came before the block ends it before it
    runs; one that came during it is noted and raised again once every handler is back; and
    whatever a handler raises meanwhile is kept until then, so no handler is left swapped and
    no noted signal is dropped.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    kept: dict[int, Any] = {}
    try:
        for sig in ENDING_SIGNALS:
            handler = signal.getsignal(sig)
            # a handler not set from Python (getsignal gives None) could not be put back: left alone
            if handler is not None:
                kept[sig] = handler  # first: signal.signal may run (and raise) before it swaps
                signal.signal(sig, lambda number, _frame: came.append(number))
        yield
    finally:
        _put_back(kept, came)


def _put_back(kept: dict[int, Any], came: list[int]) -> None:
    """Put every handler of ``kept`` back, then raise every signal of ``came`` again; what a
    handler raises on the way is raised at the end (the first of it)."""
    raised: BaseException | None = None
    while True:  # signal.signal runs the handlers of signals that came, before it swaps
        try:
            for sig, handler in kept.items():  # done again after an interruption: it changes nothing then
                signal.signal(sig, handler)
            break
        except BaseException as exc:  # a handler's: raised once every handler is back
            raised = raised or exc
    while came:
        try:
            signal.raise_signal(came.pop(0))
        except BaseException as exc:  # a handler's: raised at the end
            raised = raised or exc
    if raised is not None:
        raise raised


class StderrPump(threading.Thread):
    """Drains a bot's stderr continuously into a capped buffer (head + tail).

    The pipe is read without blocking, under a lock, so that :meth:`settle` can drain what is
    waiting itself, in order with the pump's own reads, instead of waiting for the pump thread
    to be scheduled (which a loaded machine may delay for longer than any fixed wait).
    """

    #: the most :meth:`settle` reads at once: a bot that writes without pause cannot hold it up
    SETTLE_MAX_BYTES = 1 << 20

    def __init__(self, fd: int, sink: CappedText):
        super().__init__(daemon=True, name="bot-stderr")
        self.fd = fd
        self.sink = sink
        self.reading = threading.Lock()
        self.ended = False
        os.set_blocking(fd, False)

    def run(self) -> None:
        waiting = select.poll()
        waiting.register(self.fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        while not self.ended:
            try:
                events = waiting.poll()
            except InterruptedError:  # pragma: no cover - poll retries by itself since 3.5
                continue
            if any(mask & select.POLLNVAL for _, mask in events):
                return
            self._read()

    def _read(self, most: int = -1) -> None:
        """Read what is waiting in the pipe (up to ``most`` bytes, or all); at the end of the
        stream, mark the pump ended."""
        got = 0
        with self.reading:
            while not self.ended and (most < 0 or got < most):
                try:
                    chunk = os.read(self.fd, 65536)
                except BlockingIOError:
                    return
                except OSError:
                    self.ended = True
                    return
                if not chunk:
                    self.ended = True
                    return
                got += len(chunk)
                self.sink.add(chunk)

    def settle(self) -> None:
        """Read what is already waiting in the pipe, so that what a bot wrote before a game
        ended is kept with that game."""
        self._read(self.SETTLE_MAX_BYTES)


class CappedText:
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


def minimal_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    env.update({str(k): str(v) for k, v in extra.items()})
    return env


def find_program(program: str, cwd: str | None, path: str) -> str | None:
    """Where ``program`` is, as ``Popen`` would look for it: a path (relative to ``cwd``) if it
    holds a slash, else a search of ``path``."""
    if os.sep in program:
        full = os.path.join(cwd or ".", program)
        return full if os.path.exists(full) else None
    return shutil.which(program, path=path)


def with_limits(argv: list[str], memory_mb: int | None, cpu_seconds: int | None) -> list[str]:
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


def open_pidfd(pid: int) -> int | None:
    """A file descriptor that becomes readable when process ``pid`` exits (Linux 5.3 and
    later), or None where the platform has none."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def reap_group(pgid: int) -> None:
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
def referee_name() -> str:
    try:
        from importlib.metadata import version  # read once, only for a bot's hello

        return f"tourney {version('tourney')}"
    except Exception:  # pragma: no cover
        return "tourney"
