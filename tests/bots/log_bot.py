"""A warm bot (protocol 1.2, ``reuse``) that logs its starts and its games to a file, for tests
that count bot processes or wait for a game to begin.

Usage: log_bot.py LOG NAME [GATE_INDEX]

It appends ``start NAME PID`` to LOG when it says hello and ``game NAME PID INDEX`` at every
game_start (INDEX: the series' index), each line written at once under a lock. With GATE_INDEX,
a game of series 0 waits at its game_start until LOG shows a game of a series at or after
GATE_INDEX (an event the test makes happen, not the clock). It answers the first option.
"""

import fcntl
import json
import os
import sys
import time

LOG, NAME = sys.argv[1], sys.argv[2]
GATE = int(sys.argv[3]) if len(sys.argv) > 3 else None


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def log(line):
    with open(LOG, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write(line + "\n")


def gate_open():
    with open(LOG) as f:
        return any(line.startswith("game ") and int(line.split()[3]) >= GATE for line in f)


def main():
    name = NAME
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            log(f"start {name} {os.getpid()}")
            send({"type": "hello", "protocol": "tourney-bot", "version": "1.2", "name": "log",
                  "features": [f for f in ("option_ids", "reuse") if f in message.get("features", [])]})
        elif kind == "game_start":
            index = message.get("series", {}).get("index")
            log(f"game {name} {os.getpid()} {index}")
            while GATE is not None and index == 0 and not gate_open():
                time.sleep(0.01)
        elif kind == "request":
            option = message["options"][0]
            send({"type": "answer", "id": message["id"], "option": option if isinstance(option, str) else option["id"]})
        elif kind == "goodbye":
            return


if __name__ == "__main__":
    main()
