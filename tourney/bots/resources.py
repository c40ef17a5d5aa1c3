"""What a sandboxed bot may use at most, and how to tell which limit a failing bot had reached.

The limits are the kernel's own (RLIMIT_NPROC, RLIMIT_NOFILE) and the size of the sandbox's
tmpfs; the kernel refuses the call that would pass one (EAGAIN, EMFILE, ENOSPC). A bot that
then fails is charged the usual fault (crash, timeout); :func:`used_up` reads, at that moment,
which limit it had run into, so that the fault can say so.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

__all__ = ["OPEN_FILES", "PROCESSES", "SCRATCH_MB", "Resources", "used_up"]

#: the defaults: room for any runtime's threads (Node.js, a JVM, numpy's BLAS on a big machine),
#: files and a scratch space, far below what would trouble the machine or the other bots
PROCESSES = 128
OPEN_FILES = 256
SCRATCH_MB = 64

#: free scratch space below which the scratch space counts as used up (the last pages)
SCRATCH_SLACK = 64 * 1024

#: how long to wait at most for forks still under way to show their processes, and how long the
#: count must stay the same to be taken as final (see :func:`_settled_tasks`)
SETTLE_S = 1.0
STEADY_S = 0.1


@dataclass(frozen=True)
class Resources:
    """What a sandboxed bot may use at most (docs/protocol.md, "Limits"): ``processes`` (its
    processes and threads together, RLIMIT_NPROC, counted for it alone), ``open_files`` (per
    process, RLIMIT_NOFILE) and ``scratch_bytes`` (the size of its ``/tmp``). None: no limit of
    tourney's own (the machine's). Reaching one makes the call that would pass it fail (EAGAIN,
    EMFILE, ENOSPC); a bot that then fails has the limit named in its fault."""

    processes: int | None = PROCESSES
    open_files: int | None = OPEN_FILES
    scratch_bytes: int = SCRATCH_MB << 20


def used_up(resources: Resources, inner: int | None, scratch_fd: int | None) -> str | None:
    """Which of ``resources`` the bot has used up, in words, or None: counted in the sandbox whose
    first process is ``inner`` while it runs (processes and threads, open files per process), and
    read from ``scratch_fd``, the sandbox's /tmp held open (so it can be told after the bot has
    ended)."""
    said = []
    if inner is not None:
        # close to the limit counts: the sandbox's first process counts too where the bot has a
        # user namespace of its own, and forks refused are counted while they are refused
        limit = resources.processes
        near = None if limit is None else limit - max(2, limit // 10)
        tasks = _settled_tasks(inner, near)
        if near is not None and sum(tasks.values()) >= near:
            said.append(f"its processes and threads ({sum(tasks.values())}, limits.max_processes "
                        f"= {resources.processes})")
        if resources.open_files is not None and any(_open_files(p) >= resources.open_files for p in tasks):
            said.append(f"its open files (limits.max_open_files = {resources.open_files} per process)")
    if scratch_fd is not None:
        try:
            fs = os.fstatvfs(scratch_fd)
        except OSError:
            pass
        else:
            if fs.f_bavail * fs.f_frsize < SCRATCH_SLACK:
                said.append(f"its scratch space /tmp (limits.scratch_mb = "
                            f"{resources.scratch_bytes / (1 << 20):g})")
    return "it had used up " + " and ".join(said) if said else None


def _settled_tasks(pid: int, near: int | None) -> dict[int, int]:
    """The processes below ``pid`` as :func:`_tasks_below` finds them, once forks still under way
    have shown theirs. The kernel counts a fork against the limit as it begins, and the new
    process can be seen only as it ends; so the moment a fork is refused, a swarm of forking
    processes may show well short of the limit (117 of 128 was seen on a busy machine). Each
    task has at most one fork under way, so a count below half of ``near`` cannot be near the
    limit and is taken at once; otherwise the count is read again until it reaches ``near`` or
    stays the same for :data:`STEADY_S`, for at most :data:`SETTLE_S`."""
    tasks = _tasks_below(pid)
    if near is None or 2 * sum(tasks.values()) < near:
        return tasks
    start = steady_since = time.monotonic()
    while sum(tasks.values()) < near:
        now = time.monotonic()
        if now - steady_since >= STEADY_S or now - start >= SETTLE_S:
            break
        time.sleep(0.01)
        again = _tasks_below(pid)
        if sum(again.values()) != sum(tasks.values()):
            steady_since = time.monotonic()
        tasks = again
    return tasks


def _tasks_below(pid: int) -> dict[int, int]:
    """The processes descended from ``pid`` (not itself), each with its number of threads."""
    found: dict[int, int] = {}
    todo = [pid]
    while todo and len(found) < 100_000:
        parent = todo.pop()
        children = []
        try:
            for tid in os.listdir(f"/proc/{parent}/task"):  # each thread has its own children
                with open(f"/proc/{parent}/task/{tid}/children") as f:
                    children += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            pass
        for child in children:
            if child not in found:
                try:
                    found[child] = len(os.listdir(f"/proc/{child}/task"))
                except OSError:
                    continue
                todo.append(child)
    return found


def _open_files(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0
