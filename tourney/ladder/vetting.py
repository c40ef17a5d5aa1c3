"""Checking a new version before it plays, and disabling one that goes bad while it plays.

A new version is checked by ``tourney check`` itself, run as a child process with the ladder's
rule set, limits and sandbox: the handshake, then seeded games against a built-in bot. Its
report is the reason an author reads when the version is refused (the same words and advice
``tourney check`` gives them at home), and a bot that hangs or floods its output cannot take
the ladder's process with it.

While it plays, a version that faults (crashes, times out, breaks the protocol) in
:data:`FAULTS_TO_DISABLE` of its last :data:`FAULT_WINDOW` games is disabled, with the fault and
its detail as the reason; its games stay, and the others play on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import tourney

#: seeded games of the check (seats swapped each game)
CHECK_GAMES = 2
#: a version is disabled when it faulted in this many ...
FAULTS_TO_DISABLE = 3
#: ... of its last this many games
FAULT_WINDOW = 5
#: the most lines of ``tourney check``'s report kept as a reason
REASON_LINES = 12
#: where ``tourney check``'s report starts quoting the bot's stderr (tourney/commands/check.py)
STDERR_MARK = "the bot's stderr ends with:"


def check_command(spec: dict, rule_set: str, seed: int, games: int = CHECK_GAMES) -> list[str]:
    """The ``tourney check`` command line that checks a resolved entrant ``spec``."""
    limits = spec.get("limits") or {}
    argv = [sys.executable, "-m", "tourney", "check", "--rule-set", rule_set, "--seed", str(seed),
            "--games", str(games), "--sandbox", str(limits.get("sandbox", "auto"))]
    if spec.get("cwd"):
        argv += ["--cwd", spec["cwd"]]
    for key in ("startup_timeout", "decision_timeout"):
        if key in limits:
            argv += [f"--{key.replace('_', '-')}", str(limits[key])]
    for key, value in sorted(limits.items()):  # the others (memory, processes, ...) as in play
        if key not in ("sandbox", "startup_timeout", "decision_timeout", "restart", "max_games", "max_rss_mb"):
            argv += ["--limit", f"{key}={json.dumps(value)}"]
    for key in ("network", "writable"):
        if spec.get(key):
            argv.append(f"--{key}")
    return [*argv, "--", *spec["command"]]


def check(spec: dict, rule_set: str, seed: int, games: int = CHECK_GAMES,
          timeout: float = 300.0) -> tuple[bool, str]:
    """Check a version: ``(passed, report)``; ``report`` is what ``tourney check`` said (its
    failing lines and their advice when it failed). A built-in bot passes without a check."""
    if spec.get("builtin"):
        return True, "a built-in bot"
    env = dict(os.environ)
    here = str(Path(tourney.__file__).resolve().parent.parent)  # the same tourney, wherever it is
    env["PYTHONPATH"] = os.pathsep.join([here, *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    try:
        done = subprocess.run(check_command(spec, rule_set, seed, games), capture_output=True, text=True,
                              env=env, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False, f"the check did not finish within {timeout:g} s"
    if done.returncode == 0:
        return True, "the bot follows the protocol"
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    failing = [line for line in lines if not line.startswith(("ok ", "--  "))]
    return False, "\n".join((failing or lines)[:REASON_LINES]) or f"tourney check exited with {done.returncode}"


def public_reason(reason: str | None) -> str | None:
    """A reason as everyone may read it: without the bot's stderr that a check's report quotes
    (its author reads that on their own page, docs/web.md)."""
    if not reason or STDERR_MARK not in reason:
        return reason
    kept = reason[:reason.index(STDERR_MARK)].rstrip()
    return (kept + "\n" if kept else "") + "(the bot's stderr: shown to its author only)"


def going_bad(recent: list[tuple[int, str | None, str | None]]) -> str | None:
    """Why a version should be disabled, from its latest games newest first (``(game_id, fault
    code or None, detail)`` each), or None while it behaves."""
    window = recent[:FAULT_WINDOW]
    faulted = [(g, code, detail) for g, code, detail in window if code]
    if len(faulted) < FAULTS_TO_DISABLE:
        return None
    codes = Counter(code for _, code, _ in faulted)
    game, code, detail = faulted[0]
    first = (detail or "").strip().splitlines()[0] if (detail or "").strip() else ""
    return (f"faulted in {len(faulted)} of its last {len(window)} games ("
            + ", ".join(f"{c} {n}" for c, n in codes.most_common()) + f"); last in game {game}: {code}"
            + (f": {first}" if first else "")
            + f"; see: tourney replay {game} --stderr")
