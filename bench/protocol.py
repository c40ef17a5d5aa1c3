"""What the process boundary costs per decision.

Measures, in one run:
  (a) a game between two in-process random bots (engine.bots), per decision;
  (b) the same games through the referee with two subprocess examples/bots/random_bot.py bots
      (one process per bot for the whole series, as in an event), per decision;
  (c) a bare JSON-lines echo round trip over a pipe: the parent encodes a message of the size
      of a typical request, the child (stdlib json, like random_bot.py) parses it and writes
      it back, the parent parses the echo.

  (d) (b) again with both bots in their sandboxes (tourney/bots/sandbox.py), and the start-up time
      (process start and handshake) of random_bot.py with and without its sandbox.

The line before last gives ``decisions_per_s=<float>`` for (b). The last line is
``overhead_ratio=<float>`` = (b - a) / c (bots unsandboxed), ``sandbox_startup_ms=<float>`` (the
median start-up with the sandbox minus the median without) and
``sandboxed_overhead_ratio=<float>`` (the overhead ratio of (d)).

Usage: python bench/protocol.py [--games N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.bots import make_bot  # noqa: E402
from tourney.bots import protocol  # noqa: E402
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant  # noqa: E402
from tourney.bots.referee import play_game  # noqa: E402
from tourney.bots.sandbox import Policy  # noqa: E402

RANDOM_BOT = str(ROOT / "examples" / "bots" / "random_bot.py")
ECHO = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    sys.stdout.write(json.dumps(json.loads(line)) + '\\n')\n"
    "    sys.stdout.flush()\n"
)


def in_process(seeds) -> tuple[float, int]:
    """(a): seconds per decision of games between two in-process random bots."""
    total = 0.0
    decisions = 0
    for seed in seeds:
        start = time.perf_counter()
        game = engine.new_game("crazier-eights", players=2, seed=seed, first_player=0)
        bots = [make_bot("random", seed * 2 + p) for p in range(2)]
        for bot in bots:
            bot.start(game.card_table())
        while game.pending is not None:
            d = game.pending
            game.apply(bots[d.player].choose(d, lambda g=game, p=d.player: g.view(p)))
            decisions += 1
        total += time.perf_counter() - start
    return total / decisions, decisions


def subprocess_games(seeds, mode: str = "off") -> tuple[float, int, list[int]]:
    """(b): seconds per decision through the referee with two subprocess random bots, sandbox
    ``mode``; and the size of every request sent."""
    specs = [EntrantSpec(f"r{p}", command=("{python}", RANDOM_BOT), limits=Limits(),
                         sandbox=Policy(mode)) for p in range(2)]
    sizes: list[int] = []
    with open_entrant(specs[0], 1) as a, open_entrant(specs[1], 2) as b:
        a.start()
        b.start()  # start-up is paid once per series; measure the games
        a.wire_log = []
        total = 0.0
        decisions = 0
        for seed in seeds:
            start = time.perf_counter()
            record = play_game([a, b], seed=seed, first_player=0)
            total += time.perf_counter() - start
            decisions += record.decisions
            assert not record.faults, record.faults
            sizes += [len(line) for d, line in a.wire_log
                      if d == "out" and line.startswith(b'{"type":"request"')]
            a.wire_log.clear()
    return total / decisions, decisions, sizes


def startup_seconds(mode: str) -> float:
    """Seconds from starting random_bot.py (sandbox ``mode``) to reading its hello."""
    spec = EntrantSpec("r", command=("{python}", RANDOM_BOT), sandbox=Policy(mode))
    with open_entrant(spec, 1) as bot:
        start = time.perf_counter()
        bot.start()
        return time.perf_counter() - start


def typical_request(size: int) -> dict:
    """A real request of about ``size`` bytes, from a seeded game."""
    game = engine.new_game("crazier-eights", players=2, seed=3, first_player=0)
    bot = make_bot("random", 1)
    best = None
    while game.pending is not None:
        d = game.pending
        msg = protocol.request_message(1, d.kind, d.prompt, [(o, game.label(o)) for o in d.options],
                                       game.view(d.player), 5.0)
        n = len(protocol.dumps(msg))
        if best is None or abs(n - size) < abs(best[0] - size):
            best = (n, msg)
        game.apply(bot.choose(d, lambda p=d.player: game.view(p)))
    return best[1]


def echo_round_trip(message: dict, rounds: int) -> float:
    """(c): seconds per JSON-lines echo round trip of ``message`` over a pipe."""
    proc = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, bufsize=0)
    out_fd, in_fd = proc.stdin.fileno(), proc.stdout.fileno()
    reader = os.fdopen(in_fd, "rb", buffering=1 << 16, closefd=False)
    try:
        for _ in range(50):  # warm up
            os.write(out_fd, protocol.dumps(message))
            protocol.loads(reader.readline())
        start = time.perf_counter()
        for _ in range(rounds):
            os.write(out_fd, protocol.dumps(message))
            echoed = protocol.loads(reader.readline())
        elapsed = time.perf_counter() - start
        assert echoed == message
    finally:
        proc.stdin.close()
        proc.wait()
    return elapsed / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per measurement")
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs; the best (lowest) of each measurement is reported, since "
                             "noise from other processes only ever adds time")
    parser.add_argument("--starts", type=int, default=20, help="bot start-ups timed per mode")
    args = parser.parse_args()
    seeds = range(1, args.games + 1)

    a_runs, b_runs, c_runs, d_runs = [], [], [], []
    for _ in range(args.repeat):
        a, decisions_a = in_process(seeds)
        b, decisions_b, sizes = subprocess_games(seeds)
        d, _, _ = subprocess_games(seeds, "on")
        typical = int(statistics.median(sizes))
        message = typical_request(typical)
        c = echo_round_trip(message, rounds=max(2000, decisions_b // 2))
        a_runs.append(a)
        b_runs.append(b)
        c_runs.append(c)
        d_runs.append(d)
    a, b, c, d = (min(r) for r in (a_runs, b_runs, c_runs, d_runs))
    plain, boxed = [], []
    for _ in range(args.starts):  # interleaved, so drifts in the machine's load hit both alike
        plain.append(startup_seconds("off"))
        boxed.append(startup_seconds("on"))
    start_plain, start_boxed = statistics.median(plain), statistics.median(boxed)
    size = len(protocol.dumps(message))
    print(f"json library: {protocol.JSON_LIBRARY} (referee); json (bots)")
    print(f"games: {args.games} per run, best of {args.repeat} runs; decisions per run: {decisions_b}")
    print(f"request size: median {typical} B, max {max(sizes)} B; echo message {size} B")
    print(f"(a) in-process random bots:     {a * 1e6:8.1f} us/decision")
    print(f"(b) subprocess random_bot.py:   {b * 1e6:8.1f} us/decision")
    print(f"(c) JSON-lines echo round trip: {c * 1e6:8.1f} us")
    print(f"(d) (b) with both bots sandboxed: {d * 1e6:6.1f} us/decision")
    print(f"start-up of random_bot.py, median of {args.starts}: {start_plain * 1e3:.1f} ms plain, "
          f"{start_boxed * 1e3:.1f} ms sandboxed")
    print(f"decisions_per_s={1 / b:.0f}")
    print(f"overhead_ratio={(b - a) / c:.3f} sandbox_startup_ms={(start_boxed - start_plain) * 1e3:.1f} "
          f"sandboxed_overhead_ratio={(d - a) / c:.3f}")


if __name__ == "__main__":
    main()
