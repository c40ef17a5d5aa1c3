"""A warm bot (protocol 1.2, ``reuse``) that remembers every deal it has seen, to check that no
process is ever dealt the same deal twice.

Usage: memory_bot.py [leave_after_game | crash_in_game2]

A deal is known by what the protocol tells the bot about where it is: the series' ``index``,
and, in a duplicate series, the set its game belongs to (``series.game``, counted from 1, with
``players`` games a set). At every game_start it writes ``pid P deal D`` to stderr, and
``REPEAT deal D`` when this process has seen that deal before. It answers the first option.
With ``leave_after_game`` it exits (status 0) when it reads its first game_end; with
``crash_in_game2`` it exits (status 3) at its first request of the second game this process plays.
"""

import json
import os
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    seen = set()
    games = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send({"type": "hello", "protocol": "tourney-bot", "version": "1.2", "name": "memory",
                  "features": [f for f in ("option_ids", "reuse") if f in message.get("features", [])]})
        elif kind == "game_start":
            series = message.get("series", {})
            deal = (series.get("index"), (series.get("game", 1) - 1) // message["players"])
            games += 1
            if deal in seen:
                sys.stderr.write(f"REPEAT deal {deal}\n")
            seen.add(deal)
            sys.stderr.write(f"pid {os.getpid()} deal {deal}\n")
            sys.stderr.flush()
        elif kind == "request":
            if games == 2 and sys.argv[1:] == ["crash_in_game2"]:
                os._exit(3)
            option = message["options"][0]
            send({"type": "answer", "id": message["id"], "option": option if isinstance(option, str) else option["id"]})
        elif kind == "goodbye" or (kind == "game_end" and sys.argv[1:] == ["leave_after_game"]):
            return


if __name__ == "__main__":
    main()
