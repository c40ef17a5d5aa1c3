"""A keeper that ends every bot's process group when its referee dies, however it dies.

A bot runs in a process group of its own (``start_new_session``), and a sandboxed one under
``bwrap --die-with-parent``. That is not enough when the referee is killed outright (SIGKILL)
while a sandbox is starting: bwrap dies with it, but bwrap's child, cloned into the new
namespaces, only asks to die with its parent once bwrap has finished setting it up. Killed
before that, it waits forever for a set-up signal that never comes (issue 22, point 9).

So each referee process starts one keeper the first time it starts a bot: a small POSIX shell
loop, in a session of its own so that killing the referee's process group spares it, reading
``+PGID`` and ``-PGID`` lines on its stdin as bots start and stop. Its stdin is a pipe whose
only writer is the referee, so the referee's death (any death) is end of file for the keeper,
which then kills every group still listed, the half-built sandbox's included (that child has
not yet left bwrap's group), and exits.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.util
import os
import shutil
import subprocess
import threading

__all__ = ["forget", "release", "watch"]

#: the keeper's loop: only shell built-ins, so it costs one small process per referee
SCRIPT = r"""
trap '' INT TERM HUP
groups=' '
while read -r change; do
  case $change in
    +*) groups="$groups${change#+} " ;;
    -*) kept=' '
        for g in $groups; do [ "$g" = "${change#-}" ] || kept="$kept$g "; done
        groups=$kept ;;
  esac
done
for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
"""

_lock = threading.Lock()
_pipe: int | None = None  # our end of the keeper's stdin
_owner: int | None = None  # the process that started it (a forked child needs its own)
_process: subprocess.Popen | None = None


def _keeper() -> int | None:
    global _pipe, _owner, _process
    if _owner == os.getpid():
        return _pipe
    _pipe, _owner, _process = None, os.getpid(), None  # after a fork the parent's keeper is not ours
    shell = shutil.which("sh")
    if shell is None:  # pragma: no cover - every POSIX system has one
        return None
    read_end, write_end = os.pipe()
    try:
        _process = subprocess.Popen([shell, "-c", SCRIPT], stdin=read_end, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    except OSError:  # pragma: no cover
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    _pipe = write_end
    if multiprocessing.parent_process() is not None:  # a pool worker: its exit skips atexit
        multiprocessing.util.Finalize(None, release, exitpriority=0)
    return _pipe


def release() -> None:
    """End this process's keeper on a normal exit (its bots are all closed by then) and reap
    it, so that it is nobody else's zombie. Runs at exit; a worker that dies otherwise leaves
    its keeper to do its job."""
    global _pipe, _owner, _process
    with _lock:
        if _owner != os.getpid() or _pipe is None:
            return
        os.close(_pipe)
        try:
            if _process is not None:
                _process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        _pipe, _owner, _process = None, None, None


def _tell(line: str) -> None:
    with _lock:
        fd = _keeper()
        if fd is None:
            return
        try:
            os.write(fd, line.encode())
        except OSError:  # the keeper is gone: nothing to be done here
            pass


def watch(pgid: int) -> None:
    """Process group ``pgid`` (a bot just started) is killed if this process dies first."""
    _tell(f"+{pgid}\n")


def forget(pgid: int) -> None:
    """Process group ``pgid`` is ending by our hand; call it while its leader is not yet reaped,
    so that the number cannot have been given to another group."""
    _tell(f"-{pgid}\n")


def _after_fork_in_child() -> None:
    global _pipe, _owner, _process
    if _pipe is not None:
        try:
            os.close(_pipe)  # the parent's keeper must see end of file when the parent dies
        except OSError:  # pragma: no cover
            pass
    _pipe, _owner, _process = None, None, None


os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(release)
