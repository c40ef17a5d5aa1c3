"""A random bot that a test can stop at a chosen request, to interrupt a run at a known moment.

Usage: gate_bot.py GATE_DIR

It answers like examples/bots/random_bot.py (a random legal option from an RNG seeded by the
hello), so its games are the same with or without the gate. Every bot process of a run counts
its requests in GATE_DIR/requests (shared, under a lock). If GATE_DIR/block_at holds a number N,
the process that makes request N of the count writes GATE_DIR/waiting and never answers: the run
cannot finish until the test, which waits for that file, interrupts it. The bot then leaves at
the referee's goodbye or when its stdin closes.
"""

import fcntl
import json
import random
import sys
from pathlib import Path

GATE = Path(sys.argv[1])


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def count_request() -> int:
    """Add one to the shared request count and return it."""
    with open(GATE / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        counter = GATE / "requests"
        n = int(counter.read_text()) + 1 if counter.exists() else 1
        counter.write_text(str(n))
        return n


def blocked_at(n: int) -> bool:
    block = GATE / "block_at"
    return block.exists() and int(block.read_text()) == n


def main():
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            rng.seed(message.get("seed", 0))
            send({"type": "hello", "protocol": "tourney-bot", "version": "1.0", "name": "gate_bot"})
        elif kind == "request":
            option = rng.choice(message["options"])
            if blocked_at(count_request()):
                (GATE / "waiting").write_text("")
                sys.stdin.readline()  # nothing comes before our answer but goodbye or end of file
                return
            send({"type": "answer", "id": message["id"], "option": option["id"]})
        elif kind == "goodbye":
            return


if __name__ == "__main__":
    main()
