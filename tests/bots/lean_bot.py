"""A bot that asks for protocol 1.1 features and rebuilds its view from the changes.

Usage: lean_bot.py FEATURES [VIEWS]   (comma-separated, or "-" for none: a 1.0 bot)

It answers the first option of every request. To the file VIEWS (default: stderr), before it
answers each request, it writes one line: the JSON of the view it holds (rebuilt from
``delta`` and ``gone`` under ``view_delta``, else the request's ``view``), so a test can
compare the rebuilt views with whole ones.
"""

import json
import sys

FEATURES = [] if sys.argv[1] == "-" else sys.argv[1].split(",")
# a file is read back whole by a test; stderr reaches the referee's log when its pump gets to it
VIEWS = open(sys.argv[2], "a") if len(sys.argv) > 2 else sys.stderr  # noqa: SIM115 - open for the bot's life


def main():
    view = {}
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            answer = {"type": "hello", "protocol": "tourney-bot", "version": "1.2", "name": "lean",
                      "features": FEATURES}
        elif kind == "game_start":
            view = {}
            continue
        elif kind == "request":
            if "delta" in msg:
                view.update(msg["delta"])
                for key in msg.get("gone", []):
                    del view[key]
            else:
                view = msg["view"]
            option = msg["options"][0]
            VIEWS.write(json.dumps(view, sort_keys=True) + "\n")
            VIEWS.flush()
            answer = {"type": "answer", "id": msg["id"], "option": option if isinstance(option, str) else option["id"]}
        elif kind == "goodbye":
            return
        else:
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
