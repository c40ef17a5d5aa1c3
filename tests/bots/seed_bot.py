"""A bot that plays at random from the seeds it is given, and writes down every seed it gets.

Usage: seed_bot.py hello|game LOG

``hello``: protocol 1.0; seeds its generator from ``hello.seed`` once, and plays every game of its
process from it (a process per series, as 1.0 bots have). ``game``: protocol 1.2 with ``reuse``;
seeds its generator from every ``game_start.seed`` (a warm process plays as a fresh one would).

It appends ``PID hello SEED`` and ``PID game SEED`` to the file LOG for every seed it receives,
and writes ``pid PID`` to stderr at every game_start (so a stored game says which process played
it). Run it unsandboxed: it writes outside its folder.
"""

import json
import os
import random
import sys

MODE, LOG = sys.argv[1], sys.argv[2]


def note(kind, seed):
    with open(LOG, "a") as f:
        f.write(f"{os.getpid()} {kind} {seed}\n")


def main():
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            note("hello", message["seed"])
            rng.seed(message["seed"])
            hello = {"type": "hello", "protocol": "tourney-bot", "name": f"seed-{MODE}",
                     "version": "1.0" if MODE == "hello" else "1.2"}
            if MODE == "game":
                hello["features"] = ["reuse"]
            print(json.dumps(hello), flush=True)
        elif kind == "game_start":
            if "seed" in message:
                note("game", message["seed"])
                if MODE == "game":
                    rng.seed(message["seed"])
            print(f"pid {os.getpid()}", file=sys.stderr, flush=True)
        elif kind == "request":
            option = rng.choice(message["options"])
            if isinstance(option, dict):
                option = option["id"]
            print(json.dumps({"type": "answer", "id": message["id"], "option": option}), flush=True)
        elif kind == "goodbye":
            return


if __name__ == "__main__":
    main()
