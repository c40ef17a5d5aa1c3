"""What the process boundary costs per decision.

Measures, in one run:
  (a) a game between two in-process random bots (engine.bots), per decision;
  (b) the same games through the referee with two subprocess examples/bots/random_bot.py bots
      (one process per bot for the whole series, as in an event), per decision;
  (c) a bare JSON-lines echo round trip over a pipe: the parent encodes a message of the size
      of a typical request, the child (stdlib json, like random_bot.py) parses it and writes
      it back, the parent parses the echo.

The last line is ``overhead_ratio=<float>`` = (b - a) / c; the line before it gives
``decisions_per_s=<float>`` for (b).

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
from tourney import protocol  # noqa: E402
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant  # noqa: E402
from tourney.bots.referee import play_game  # noqa: E402

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
            game.apply(bots[d.player].choose(d, lambda: game.view(d.player)))
            decisions += 1
        total += time.perf_counter() - start
    return total / decisions, decisions


def subprocess_games(seeds) -> tuple[float, int, list[int]]:
    """(b): seconds per decision through the referee with two subprocess random bots; and the
    size of every request sent."""
    specs = [EntrantSpec(f"r{p}", command=("{python}", RANDOM_BOT), limits=Limits())
             for p in range(2)]
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
        game.apply(bot.choose(d, lambda: game.view(d.player)))
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
    args = parser.parse_args()
    seeds = range(1, args.games + 1)

    a_runs, b_runs, c_runs = [], [], []
    for _ in range(args.repeat):
        a, decisions_a = in_process(seeds)
        b, decisions_b, sizes = subprocess_games(seeds)
        typical = int(statistics.median(sizes))
        message = typical_request(typical)
        c = echo_round_trip(message, rounds=max(2000, decisions_b // 2))
        a_runs.append(a)
        b_runs.append(b)
        c_runs.append(c)
    a, b, c = (min(r) for r in (a_runs, b_runs, c_runs))
    size = len(protocol.dumps(message))
    print(f"json library: {protocol.JSON_LIBRARY} (referee); json (bots)")
    print(f"games: {args.games} per run, best of {args.repeat} runs; decisions per run: {decisions_b}")
    print(f"request size: median {typical} B, max {max(sizes)} B; echo message {size} B")
    print(f"(a) in-process random bots:     {a * 1e6:8.1f} us/decision")
    print(f"(b) subprocess random_bot.py:   {b * 1e6:8.1f} us/decision")
    print(f"(c) JSON-lines echo round trip: {c * 1e6:8.1f} us")
    print(f"decisions_per_s={1 / b:.0f}")
    print(f"overhead_ratio={(b - a) / c:.3f}")


if __name__ == "__main__":
    main()
