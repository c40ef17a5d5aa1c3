"""What the process boundary costs per decision, and what each speed-up of protocol 1.1 buys.

Measures, in one run (every arm interleaved in each repeat, so drifts in the machine's load hit
all alike; the best of the repeats is kept, since noise only ever adds time):
  (a) a game between two in-process random bots (engine.bots), per decision;
  (b) the same games through the referee with two subprocess examples/bots/random_bot.py bots
      (one process per bot for the whole series, as in an event), per decision. random_bot.py
      speaks 1.1: lean requests (option ids, view changes only) and orjson where installed;
  (b0)... the ways in, one at a time: a random bot that speaks 1.0 (whole view and labels, stdlib
      json), then with ``option_ids`` alone, ``view_delta`` alone, both, both with orjson in the
      bot; and (b) with the referee on stdlib json instead of orjson;
  (c) a bare JSON-lines echo round trip over a pipe of a typical request of the path measured:
      the parent encodes it, the child (with the bot's JSON library) parses it and writes it
      back, the parent parses the echo;
      For (b), the referee's own CPU time per decision is printed too (``time.process_time``), a
      steadier figure than wall time when other processes load the machine;
  (d) (b) again with both bots in their sandboxes (tourney/bots/sandbox.py), and the start-up time
      (process start and handshake) of random_bot.py with and without its sandbox;
  (f) the floor of this design: the bytes the referee wrote to the two bots of (b) in the same
      games (recorded once), written again as they were, with one poll and one read of each
      answer; no engine, no view, no JSON, no checks. A referee must also run the engine, which is
      (a) less a random choice, so none beats (b) = a + f: ``overhead_ratio`` >= f / c and
      ``decisions_per_s`` <= 1 / (a + f). Also with one bot answering both seats, which shows
      what alternating between two processes costs;
  (g) a bare referee: the games, the seat's view and its change, the lean request and the answer
      over the pipes of (f), without the entrant's deadlines, presence checks, logs and records;
      (b) - (g) is what the referee's bookkeeping costs, (g) - (a) - (f) the view, its change and
      the JSON.

The floor's figures come on the lines before the last two. The line before last gives
``decisions_per_s=<float>`` for (b). The last line is
``overhead_ratio=<float>`` = (b - a) / c (bots unsandboxed, c of (b)'s own requests and JSON
library), ``sandbox_startup_ms=<float>`` (the median start-up with the sandbox minus the median
without) and ``sandboxed_overhead_ratio=<float>`` (the overhead ratio of (d)).

Usage: python bench/protocol.py [--games N] [--repeat R]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
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

REFEREE_JSON = (protocol.dumps, protocol.loads)

RANDOM_BOT = str(ROOT / "examples" / "bots" / "random_bot.py")
ECHO = {
    "json": (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    sys.stdout.write(json.dumps(json.loads(line)) + '\\n')\n"
        "    sys.stdout.flush()\n"
    ),
    "orjson": (
        "import orjson, sys\n"
        "out = sys.stdout.buffer\n"
        "for line in sys.stdin.buffer:\n"
        "    out.write(orjson.dumps(orjson.loads(line)) + b'\\n')\n"
        "    out.flush()\n"
    ),
}
#: a random bot with each speed-up as a switch: ``BOT FEATURES(comma-separated or -) JSON``
ARM_BOT = """
import json, random, sys
features = [] if sys.argv[1] == "-" else sys.argv[1].split(",")
if sys.argv[2] == "orjson":
    import orjson
    loads, dumps = orjson.loads, orjson.dumps
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    nl = b"\\n"
else:
    loads, dumps = json.loads, json.dumps
    inp, out = sys.stdin, sys.stdout
    nl = "\\n"
rng = random.Random(0)
for line in inp:
    m = loads(line)
    t = m["type"]
    if t == "request":
        o = rng.choice(m["options"])
        out.write(dumps({"type": "answer", "id": m["id"], "option": o if isinstance(o, str) else o["id"]}) + nl)
        out.flush()
    elif t == "hello":
        v = "1.1" if features else "1.0"
        h = {"type": "hello", "protocol": "tourney-bot", "version": v, "name": "arm", "features": features}
        out.write(dumps(h) + nl)
        out.flush()
    elif t == "goodbye":
        break
"""


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


def subprocess_games(seeds, command=("{python}", RANDOM_BOT), mode: str = "off"):
    """(b): seconds per decision through the referee with two subprocess bots running
    ``command``, sandbox ``mode``; and every request sent to the first bot (bytes)."""
    specs = [EntrantSpec(f"r{p}", command=tuple(command), limits=Limits(), sandbox=Policy(mode))
             for p in range(2)]
    requests: list[bytes] = []
    with open_entrant(specs[0], 1) as a, open_entrant(specs[1], 2) as b:
        a.start()
        b.start()  # start-up is paid once per series; measure the games
        a.wire_log = []
        total = 0.0
        decisions = 0
        cpu = 0.0
        for seed in seeds:
            start, start_cpu = time.perf_counter(), time.process_time()
            record = play_game([a, b], seed=seed, first_player=0)
            total += time.perf_counter() - start
            cpu += time.process_time() - start_cpu
            decisions += record.decisions
            assert not record.faults, record.faults
            requests += [line for d, line in a.wire_log if d == "out" and line.startswith(b'{"type":"request"')]
            a.wire_log.clear()
        REFEREE_CPU.append(cpu / decisions)
    return total / decisions, decisions, requests


class _SeatLog:
    """A ``wire_log`` for the entrant in ``seat`` that writes into ``shared``, one log of every
    seat in the order of the game, each entry as ``(seat, direction, bytes)``."""

    def __init__(self, seat: int, shared: list):
        self.seat, self.shared = seat, shared

    def append(self, entry: tuple[str, bytes]) -> None:
        self.shared.append((self.seat, *entry))


def wire_script(seeds) -> list[tuple[int, bytes, bool]]:
    """The writes the referee makes to two random_bot.py bots in the games of ``seeds``, in order:
    ``(seat, bytes, answered)``, as one write each (a ``game_start`` goes out with the seat's
    first request, as the referee sends it), ``answered`` true for a request."""
    specs = [EntrantSpec(f"r{p}", command=("{python}", RANDOM_BOT), limits=Limits()) for p in range(2)]
    log: list = []
    with open_entrant(specs[0], 1) as a, open_entrant(specs[1], 2) as b:
        a.wire_log, b.wire_log = _SeatLog(0, log), _SeatLog(1, log)
        for seed in seeds:
            play_game([a, b], seed=seed, first_player=0)
    script, waiting = [], {0: b"", 1: b""}
    for seat, direction, data in log:
        if direction != "out":
            continue
        if data.startswith(b'{"type":"game_start"'):
            waiting[seat] += data
            continue
        script.append((seat, waiting[seat] + data, data.startswith(b'{"type":"request"')))
        waiting[seat] = b""
    return script


@contextlib.contextmanager
def bare_bots(count: int):
    """``count`` random_bot.py processes past their handshake, without the entrant around them:
    for each, ``(stdin fd, stdout fd, wait)``, ``wait(ms)`` a poll of its stdout."""
    procs = [subprocess.Popen([sys.executable, RANDOM_BOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              bufsize=0) for _ in range(count)]
    try:
        pipes = []
        hello = protocol.dumps(protocol.hello_message(Limits().to_dict(), 1, "bench"))
        for proc in procs:
            w, r = proc.stdin.fileno(), proc.stdout.fileno()
            poll = select.poll()
            poll.register(r, select.POLLIN)
            os.write(w, hello)
            poll.poll(10_000)
            read_answer(r, poll.poll)
            pipes.append((w, r, poll.poll))
        yield pipes
    finally:
        for proc in procs:
            proc.stdin.close()
            proc.wait()
            proc.stdout.close()


def read_answer(fd: int, wait) -> bytes:
    """The rest of a line from ``fd`` once ``wait`` has said it is readable."""
    chunk = os.read(fd, 1 << 16)
    while not chunk.endswith(b"\n"):  # rare: the line came in parts
        if not chunk:
            raise RuntimeError("a bot of the bench left")
        wait(10_000)
        chunk += os.read(fd, 1 << 16)
    return chunk


def floor(script: list[tuple[int, bytes, bool]], bots: int = 2) -> float:
    """(f): seconds per decision of a referee stripped to its pipe work: the prebuilt writes of
    ``script`` to ``bots`` random_bot.py processes (seat ``s`` to bot ``s % bots``), and for each
    request a poll and a read of the answer; no engine, no view, no JSON, no checks. Every
    referee of this design does at least this, and the engine's work on top of it."""
    decisions = sum(answered for _, _, answered in script)
    with bare_bots(bots) as pipes:
        start = time.perf_counter()
        for seat, data, answered in script:
            w, r, wait = pipes[seat % bots]
            os.write(w, data)
            if answered:
                wait(10_000)
                read_answer(r, wait)
        elapsed = time.perf_counter() - start
    return elapsed / decisions


def bare_referee(seeds) -> float:
    """(g): seconds per decision of a bare referee: the real games, views, lean requests (the
    same bytes as the referee's, without ``game_start`` and ``game_end``) and answers, over the
    pipes of (f); without deadlines, presence checks, faults, logs or records. What the
    referee's own bookkeeping costs is (b) minus this."""
    features = frozenset(protocol.FEATURES)
    time_left = Limits().decision_timeout
    decisions = 0
    with bare_bots(2) as pipes:
        start = time.perf_counter()
        for seed in seeds:
            game = engine.new_game("crazier-eights", players=2, seed=seed, first_player=0)
            previous: list[dict] = [{}, {}]
            request_id = 0
            while game.pending is not None:
                d = game.pending
                request_id += 1
                view = game.view(d.player)
                msg = protocol.lean_request_message(request_id, d.kind, d.prompt, d.options, game.label, time_left,
                                                    None, d.source, features, view, previous[d.player])
                previous[d.player] = view
                w, r, wait = pipes[d.player]
                os.write(w, protocol.dumps(msg))
                wait(10_000)
                game.apply(protocol.read_answer(read_answer(r, wait)[:-1], request_id, d.options))
            decisions += request_id
        elapsed = time.perf_counter() - start
    return elapsed / decisions


#: the referee's CPU time per decision of each subprocess run (``time.process_time``: this
#: process alone, system calls included), steadier than wall time on a loaded machine
REFEREE_CPU: list[float] = []


def median_request(requests: list[bytes]) -> dict:
    """The request of median size."""
    ordered = sorted(requests, key=len)
    return protocol.loads(ordered[len(ordered) // 2])


def startup_seconds(mode: str) -> float:
    """Seconds from starting random_bot.py (sandbox ``mode``) to reading its hello."""
    spec = EntrantSpec("r", command=("{python}", RANDOM_BOT), sandbox=Policy(mode))
    with open_entrant(spec, 1) as bot:
        start = time.perf_counter()
        bot.start()
        return time.perf_counter() - start


def echo_round_trip(message: dict, rounds: int, library: str = "json") -> float:
    """(c): seconds per JSON-lines echo round trip of ``message`` over a pipe, the child using
    JSON ``library``."""
    proc = subprocess.Popen([sys.executable, "-c", ECHO[library]], stdin=subprocess.PIPE,
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


def referee_json(library: str) -> None:
    """Switch the referee's JSON library (stdlib ``json`` or ``orjson``), for one arm."""
    if library == "json":
        protocol.dumps = lambda obj: (json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
        protocol.loads = json.loads
    else:
        protocol.dumps, protocol.loads = REFEREE_JSON


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per measurement")
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs; the best (lowest) of each measurement is reported, since "
                             "noise from other processes only ever adds time")
    parser.add_argument("--starts", type=int, default=20, help="bot start-ups timed per mode")
    args = parser.parse_args()
    seeds = range(1, args.games + 1)
    bot_json = "orjson" if importlib.util.find_spec("orjson") else "json"
    arm_file = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)  # noqa: SIM115 - removed below
    arm_file.write(ARM_BOT)
    arm_file.close()
    arms = {  # name: (bot command, referee JSON library)
        "1.0, json in the bot": ("-", "json"),
        "1.1 option_ids, json": ("option_ids", "json"),
        "1.1 view_delta, json": ("view_delta", "json"),
        "1.1 both, json": ("option_ids,view_delta", "json"),
        f"1.1 both, {bot_json}": ("option_ids,view_delta", bot_json),
    }
    runs: dict[str, list[float]] = {name: [] for name in
                                    ["a", "b", "b_referee_cpu", "b_stdlib_referee", "d", *arms,
                                     "c", "c10", "f", "f1", "g"]}
    script = wire_script(seeds)
    for _ in range(args.repeat):
        a, _ = in_process(seeds)
        runs["a"].append(a)
        runs["f"].append(floor(script))
        runs["f1"].append(floor(script, bots=1))
        runs["g"].append(bare_referee(seeds))
        b, decisions_b, requests = subprocess_games(seeds)
        runs["b"].append(b)
        runs["b_referee_cpu"].append(REFEREE_CPU[-1])
        referee_json("json")
        runs["b_stdlib_referee"].append(subprocess_games(seeds)[0])
        referee_json(protocol.JSON_LIBRARY)
        runs["d"].append(subprocess_games(seeds, mode="on")[0])
        for name, (features, library) in arms.items():
            t, _, arm_requests = subprocess_games(seeds, ("{python}", arm_file.name, features, library))
            runs[name].append(t)
            if features == "-":
                old_requests = arm_requests
        message = median_request(requests)
        runs["c"].append(echo_round_trip(message, max(2000, decisions_b // 2), bot_json))
        runs["c10"].append(echo_round_trip(median_request(old_requests), max(2000, decisions_b // 2)))
    os.unlink(arm_file.name)
    best = {name: min(r) for name, r in runs.items()}
    a, b, c, d = best["a"], best["b"], best["c"], best["d"]
    plain, boxed = [], []
    for _ in range(args.starts):  # interleaved, so drifts in the machine's load hit both alike
        plain.append(startup_seconds("off"))
        boxed.append(startup_seconds("on"))
    start_plain, start_boxed = statistics.median(plain), statistics.median(boxed)
    sizes = [len(r) for r in requests]
    old_sizes = [len(r) for r in old_requests]
    print(f"json library: {protocol.JSON_LIBRARY} (referee); {bot_json} (random_bot.py)")
    print(f"games: {args.games} per run, best of {args.repeat} interleaved runs; decisions per run: {decisions_b}")
    print(f"request size: 1.0 median {int(statistics.median(old_sizes))} B (max {max(old_sizes)} B); "
          f"1.1 lean median {int(statistics.median(sizes))} B (max {max(sizes)} B)")
    print(f"(a) in-process random bots:     {a * 1e6:8.1f} us/decision")
    for name in arms:
        print(f"(b) arm {name:24s} {best[name] * 1e6:8.1f} us/decision  {1 / best[name]:8.0f} decisions/s")
    print(f"(b) random_bot.py (1.1, lean):  {b * 1e6:8.1f} us/decision")
    print(f"(b) ... with the referee on stdlib json: {best['b_stdlib_referee'] * 1e6:6.1f} us/decision")
    print(f"(b) the referee's own CPU time (random_bot.py): {best['b_referee_cpu'] * 1e6:6.1f} us/decision")
    print(f"(c) echo round trip, 1.1 lean request ({bot_json} child): {c * 1e6:6.1f} us; "
          f"1.0 request (json child): {best['c10'] * 1e6:6.1f} us")
    print(f"overhead ratio of the 1.0 path (1.0 bot, its own echo): "
          f"{(best['1.0, json in the bot'] - a) / best['c10']:.3f}")
    print(f"(d) (b) with both bots sandboxed: {d * 1e6:6.1f} us/decision")
    print(f"start-up of random_bot.py, median of {args.starts}: {start_plain * 1e3:.1f} ms plain, "
          f"{start_boxed * 1e3:.1f} ms sandboxed")
    f, f1 = best["f"], best["f1"]
    print(f"(f) floor, a referee stripped to its pipe work (prebuilt requests; write, poll, read; no engine): "
          f"{f * 1e6:.1f} us/decision with the two bots, {f1 * 1e6:.1f} us with one bot answering both seats")
    print(f"(g) a bare referee (the games, views, lean requests, answers; no deadlines, checks or logs): "
          f"{best['g'] * 1e6:.1f} us/decision, overhead ratio {(best['g'] - a) / c:.3f}")
    print(f"floor: overhead_ratio >= f/c = {f / c:.3f} (one bot {f1 / c:.3f}); "
          f"decisions_per_s <= 1/(a+f) = {1 / (a + f):.0f} (one bot {1 / (a + f1):.0f})")
    print(f"decisions_per_s={1 / b:.0f}")
    print(f"overhead_ratio={(b - a) / c:.3f} sandbox_startup_ms={(start_boxed - start_plain) * 1e3:.1f} "
          f"sandboxed_overhead_ratio={(d - a) / c:.3f}")


if __name__ == "__main__":
    main()
