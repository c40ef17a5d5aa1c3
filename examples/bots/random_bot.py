#!/usr/bin/env python3
"""A bot that answers every decision with a random legal option.

Copy this file to start your own bot. It speaks the tourney bot protocol (docs/protocol.md):
one JSON object per line on stdin (from the referee) and stdout (to the referee). Anything
you want to log goes to stderr, never to stdout.

Try it:  tourney check -- python3 examples/bots/random_bot.py
"""

import json
import random
import sys

NAME = "random_bot"
PROTOCOL, VERSION = "tourney-bot", "1.0"


def send(message):
    """Write one message as one line, and flush so the referee sees it now."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    rng = random.Random()
    for line in sys.stdin:  # one message per line; the loop ends when the referee closes stdin
        message = json.loads(line)
        kind = message["type"]

        if kind == "hello":  # the referee introduces itself: answer with our name and version
            rng.seed(message.get("seed", 0))  # the referee's seed makes our games reproducible
            send({"type": "hello", "protocol": PROTOCOL, "version": VERSION, "name": NAME})

        elif kind == "request":  # a decision: answer with the request's id and one option id
            option = rng.choice(message["options"])
            send({"type": "answer", "id": message["id"], "option": option["id"]})

        elif kind == "goodbye":  # the series is over: leave
            return

        # "game_start" and "game_end" need no answer; a random bot ignores them.


if __name__ == "__main__":
    main()
