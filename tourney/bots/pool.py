"""Warm bots: processes kept running from series to series, so a verdict pays for games and not
for start-ups (docs/protocol.md, "Warm bots").

A :class:`WarmPool` belongs to one worker (a local worker process, a Dask worker, or the main
process when it plays alone) for the life of an event. :meth:`WarmPool.prestart` starts processes
ahead of their series without greeting them; :meth:`WarmPool.take` gives a series an idle warm
process of an entrant, else one started ahead (greeted now, with the seed that series gives: the
seeding table of docs/formats.md), else a new entrant; :meth:`WarmPool.release`
takes them back when the series is over: a process whose bot said in its hello that it can play
games of different series (protocol 1.2 ``reuse``) and whose ``restart`` setting is ``never``
waits, idle, for the next series; any other is sent ``goodbye`` (all at once, then waited for).

A process is only ever in one place: idle in the pool, or taken by one series, which plays one
game at a time. So it never sits at two tables at once. Between two games
:meth:`WarmPool.between_games` replaces a process that reached its ``max_games`` or holds more
than ``max_rss_mb`` of memory, and says so: the note goes into the next game's record.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Sequence

from tourney.bots.base import Entrant
from tourney.bots.factory import open_entrant
from tourney.bots.protocol import REUSE
from tourney.bots.spec import EntrantSpec
from tourney.bots.subprocess_entrant import SubprocessEntrant

__all__ = ["WarmPool", "close_together", "tree_rss_mb"]


def close_together(entrants: Sequence[Entrant]) -> None:
    """Close entrants side by side: goodbye to all of them first, then wait for each (their
    exits overlap instead of adding up)."""
    for e in entrants:
        try:
            e.say_goodbye()
        except Exception:  # pragma: no cover - closing goes on for the others
            pass
    for e in entrants:
        try:
            e.close()
        except Exception:  # pragma: no cover
            pass


def tree_rss_mb(pid: int) -> float:
    """Resident memory (MiB) of process ``pid`` and all its descendants (Linux ``/proc``; 0
    elsewhere). A sandboxed bot runs under bubblewrap, so the bot itself is a descendant."""
    total_kb = 0
    todo = [pid]
    seen: set[int] = set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/status", encoding="ascii", errors="replace") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total_kb += int(line.split()[1])
                        break
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as f:
                    todo += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            continue
    return total_kb / 1024


def _key(spec: EntrantSpec) -> str:
    return repr(spec)  # every field: an entrant with other limits or another command is another bot


class WarmPool:
    """The warm processes of one worker, by entrant; thread-safe (a Dask worker plays series in
    threads)."""

    def __init__(self):
        self.idle: dict[str, list[SubprocessEntrant]] = {}
        #: processes started ahead of their series, not greeted yet: the series that takes one
        #: sends its hello, with that series' seed, so even a bot that plays one series per
        #: process (protocol 1.0) uses the start it was given
        self.launched: dict[str, list[SubprocessEntrant]] = {}
        self.cold: set[str] = set()  # entrants whose bots did not choose reuse: per series
        self.lock = threading.RLock()  # re-entered by a worker that must quit at once (kill)
        self.started = 0  # processes started ahead of their series
        self.out = 0  # entrants taken by series and not given back yet
        self.last_used = time.monotonic()
        self.gone: set[str] = set()  # entrants that left play (retire): never kept again

    # which processes may be kept ------------------------------------------------------------
    def keeps(self, spec: EntrantSpec) -> bool:
        """Whether a process of ``spec`` may outlive its series: a command bot whose
        ``restart`` is ``never``, without a CPU limit (a limit over the process's life would
        then span series), whose bot has not shown that it cannot play many series."""
        return (spec.command is not None and spec.reuse.restart == "never"
                and spec.limits.cpu_seconds is None and _key(spec) not in self.cold
                and _key(spec) not in self.gone)

    # start and end ------------------------------------------------------------------------------
    def prestart(self, wanted: list[tuple[EntrantSpec, int]]) -> None:
        """Start ``count`` processes of each ``(spec, count)`` (less those already idle or
        started) ahead of their series, all at once, so that their start-ups overlap with each
        other and with the event's setting up. They are not greeted here: the hello, which
        carries the seed of the series the process is for (docs/formats.md, "Seeding"), waits
        for the series that takes it (:meth:`take`). A bot that then turns out not to play many
        series in one process plays that one series, and gets a process per series after it; one
        that cannot start forfeits its first game (``startup``), as any bot."""
        new: list[SubprocessEntrant] = []
        with self.lock:
            for spec, count in wanted:
                if not self.keeps(spec):
                    continue
                key = _key(spec)
                have = len(self.idle.get(key, [])) + len(self.launched.get(key, []))
                for _ in range(count - have):
                    self.started += 1
                    entrant = open_entrant(spec, seed=0)  # its seed is set by take()
                    assert isinstance(entrant, SubprocessEntrant)
                    new.append(entrant)
                    self.launched.setdefault(key, []).append(entrant)
        for e in new:
            e.launch()

    def take(self, spec: EntrantSpec, seed: int, fits: Callable[[SubprocessEntrant], bool] | None = None
             ) -> Entrant:
        """An idle warm process of ``spec`` (that ``fits``, if given), else a process of it
        started ahead and not greeted yet, else a new entrant; whichever it is, ``seed`` is the
        seed of its hello if it still has one to get (now, or when it is started again between
        games: ``max_games``, ``max_rss_mb``, a process that left)."""
        key = _key(spec)
        with self.lock:
            self.last_used = time.monotonic()
            self.out += 1
            idle = self.idle.get(key, [])
            for i, e in enumerate(idle):
                if fits is None or fits(e):
                    e = idle.pop(i)
                    e.seed = seed
                    return e
            launched = self.launched.get(key, [])
            if launched:  # fresh: usable even by a bot that plays one series per process
                e = launched.pop(0)
                e.seed = seed
                return e
        return open_entrant(spec, seed=seed)

    def release(self, entrants: list[Entrant]) -> None:
        """Entrants whose series is over: kept idle where they may be, else closed together."""
        closing = []
        with self.lock:
            self.last_used = time.monotonic()
            self.out -= len(entrants)
            for e in entrants:
                if self._keep(e):
                    assert isinstance(e, SubprocessEntrant)
                    self.idle.setdefault(_key(e.spec), []).append(e)
                else:
                    closing.append(e)
        close_together(closing)

    def _keep(self, e: Entrant) -> bool:
        if not isinstance(e, SubprocessEntrant) or e.closed or e.failed is not None:
            return False
        if not self.keeps(e.spec):
            return False
        if REUSE not in e.features:  # a 1.0 or 1.1 bot: one series per process, as ever
            if e.bot_version is not None:
                self.cold.add(_key(e.spec))
            return False
        # a bot that left after its last game is kept too: it forfeits its next one (a record)
        return e.running or e._left is not None

    def retire(self, specs: Sequence[EntrantSpec]) -> int:
        """Entrants that left play (a ladder's retired or disabled version): goodbye to their
        idle processes now, all at once, and to those out in a series when it gives them back.
        Those started ahead and never greeted go now too: no series of theirs will take them.
        Returns how many were said goodbye now."""
        with self.lock:
            keys = {_key(spec) for spec in specs}
            self.gone |= keys
            leaving = [e for key in keys for group in (self.idle, self.launched) for e in group.pop(key, [])]
        close_together(leaving)
        return len(leaving)

    def close(self) -> None:
        """Goodbye to every idle process, all at once, and an end to those started ahead and
        never used (the event is over)."""
        with self.lock:
            idle = [e for groups in (self.idle, self.launched) for group in groups.values() for e in group]
            self.idle.clear()
            self.launched.clear()
        close_together(idle)

    def kill(self) -> None:
        """Kill every idle process's group at once, without goodbye: the worker must quit now.

        Called from a signal handler, between any two steps of the worker's main thread, so it
        takes no lock (the interrupted thread may hold the pool's) and only makes system calls;
        a list being changed at that moment is read again."""
        for _ in range(3):
            try:
                pids = [e.pid for groups in (self.idle, self.launched) for group in list(groups.values())
                        for e in list(group)]
                break
            except RuntimeError:  # pragma: no cover - changed while read
                continue
        else:  # pragma: no cover
            return
        for pid in pids:
            if pid is not None:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass

    def holds(self) -> set[str]:
        """The entrant names of the idle processes (where to send a series: the worker that
        holds warm processes of its entrants)."""
        with self.lock:
            return {e.name for group in self.idle.values() for e in group}

    # between games ------------------------------------------------------------------------------
    @staticmethod
    def between_games(entrant: Entrant) -> str | None:
        """Before a game: replace the process if it reached ``max_games`` or its memory is above
        ``max_rss_mb`` (never during a game); the note for the game's record, or None."""
        if not isinstance(entrant, SubprocessEntrant) or not entrant.running:
            return None
        reuse = entrant.spec.reuse
        why = None
        if reuse.max_games is not None and entrant.games_in_process >= reuse.max_games:
            why = f"the previous one had begun {entrant.games_in_process} games (max_games {reuse.max_games})"
        elif reuse.max_rss_mb is not None and entrant.pid is not None:
            rss = tree_rss_mb(entrant.pid)
            if rss > reuse.max_rss_mb:
                why = f"the previous one held {rss:.0f} MiB (max_rss_mb {reuse.max_rss_mb})"
        if why is None:
            return None
        entrant.recycle()
        return f"[tourney] a new process for this game: {why}\n"
