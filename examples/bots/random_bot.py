#!/usr/bin/env python3
"""A bot that answers every decision with a random legal option.

Copy this file to start your own bot. It speaks the tourney bot protocol (docs/protocol.md):
one JSON object per line on stdin (from the referee) and stdout (to the referee). Anything
you want to log goes to stderr, never to stdout.

It speaks version 1.2 and chooses the lean requests the referee offers in its hello (section 7.1):
option ids without labels (``option_ids``) and only what changed in the view (``view_delta``);
a random bot never reads the view. It also says it can play games of many series in one process
(``reuse``, section 7.2), and so seeds its random numbers from every ``game_start``. It uses orjson
when installed, else the standard library.

Try it:  tourney check -- python3 examples/bots/random_bot.py
"""

import random
import sys

try:  # orjson parses and writes JSON several times faster; the standard library does the same job
    from orjson import dumps, loads
except ImportError:
    import json

    loads = json.loads

    def dumps(obj):
        return json.dumps(obj).encode()


NAME = "random_bot"
PROTOCOL, VERSION = "tourney-bot", "1.2"
WANTED = ["option_ids", "view_delta", "reuse"]  # the features we use when the referee offers them


def main():
    rng = random.Random()
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:  # one message per line; the loop ends when the referee closes stdin
        message = loads(line)
        kind = message["type"]

        if kind == "request":  # a decision: answer with the request's id and one option id
            option = rng.choice(message["options"])
            if isinstance(option, dict):  # a 1.0 request: options are {"id", "label"} objects
                option = option["id"]
            out.write(b'{"type":"answer","id":%d,"option":%s}\n' % (message["id"], dumps(option)))
            out.flush()  # flush, so the referee sees the answer now

        elif kind == "hello":  # the referee introduces itself: answer with our name and version
            rng.seed(message.get("seed", 0))  # the referee's seed makes our games reproducible
            offered = message.get("features", [])  # a 1.0 referee offers none
            hello = {"type": "hello", "protocol": PROTOCOL, "version": VERSION, "name": NAME,
                     "features": [f for f in WANTED if f in offered]}
            out.write(dumps(hello) + b"\n")
            out.flush()

        elif kind == "game_start":  # no answer; with reuse it carries this game's own seed
            if "seed" in message:
                rng.seed(message["seed"])  # a warm process plays as a fresh one would

        elif kind == "goodbye":  # the event is over for this process: leave
            return

        # "game_end" needs no answer; a random bot ignores it.


if __name__ == "__main__":
    main()
