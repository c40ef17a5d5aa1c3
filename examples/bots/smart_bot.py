#!/usr/bin/env python3
"""A Crazier Eights bot that reads its view: stronger than random, still short.

Standard library only. Its idea: whoever empties their hand first wins, so get rid of cards
every turn, keep eights (wild) for when nothing else fits, name the colour we hold most of,
and aim hostile effects at the opponent closest to winning.

It keeps the game's card table (from game_start) to know each card's name, rank and suits.
It speaks protocol 1.2 (docs/protocol.md, section 7): it asks for option ids without labels
and for the view's changes only, and keeps the whole view itself; and it plays games of many
series in one process (``reuse``), seeding its random numbers from each ``game_start``. It parses JSON with orjson
when installed, else with the standard library.

Run it: tourney check -- python3 examples/bots/smart_bot.py

Options, for experiments (bench/verdict.py): ``--noise P`` plays a random legal option with
probability P (a weaker bot of known, close strength); ``--features none`` asks for 1.0 requests;
``--json json`` parses with the standard library even where orjson is installed.
"""

import random
import sys


def flag(name, default):
    """The value after ``name`` on the command line, else ``default``."""
    args = sys.argv[1:]
    return args[args.index(name) + 1] if name in args[:-1] else default


NOISE = float(flag("--noise", "0"))
FEATURES = ["view_delta", "option_ids", "reuse"] if flag("--features", "lean") != "none" else []

try:  # several times faster; the standard library does the same job
    if flag("--json", "orjson") != "orjson":
        raise ImportError
    from orjson import dumps, loads
except ImportError:
    import json

    loads = json.loads

    def dumps(obj):
        return json.dumps(obj).encode()

NAME = "smart_bot"

# Effects that hurt the player they target (make them draw, skip, look at their hand, ...).
HOSTILE = {
    "Angel of Hope", "Pleasant Memories", "Worldly Wisdom", "Forbidden Knowledge",
    "Visionary Dream", "Sleep", "Trade", "Mirror Universe", "Queen Guinevere", "Tempest",
    "Hurricane",
}


class Bot:
    def __init__(self):
        self.cards = {}  # card id -> {"name", "rank", "suits", "type"}
        self.rng = random.Random(0)

    def card(self, cid):
        return self.cards.get(cid, {})

    def suits_in_hand(self, hand):
        counts = {}
        for c in hand:
            for s in self.card(c).get("suits", ()):
                counts[s] = counts.get(s, 0) + 1
        return counts

    def choose(self, req, view):
        options = [o if isinstance(o, str) else o["id"] for o in req["options"]]
        if len(options) == 1:
            return options[0]
        if NOISE and self.rng.random() < NOISE:
            return self.rng.choice(options)
        handler = getattr(self, "on_" + req["kind"], None)
        choice = handler(options, view, req) if handler else None
        return choice if choice in options else options[0]

    # the main phase: discard, then play, then end -------------------------------------------
    def on_main(self, options, view, req):
        hand = view["hand"]
        counts = self.suits_in_hand(hand)
        discards = [o for o in options if o.startswith("discard:")]
        if discards:
            def value(o):
                info = self.card(int(o.split(":")[1]))
                eight = info.get("rank") == "8"
                follow = sum(counts.get(s, 0) for s in info.get("suits", ()))
                return (not eight, follow)  # keep eights; then keep our colours flowing
            return max(discards, key=value)
        plays = [o for o in options if o.startswith("play:")]
        me = view["player"]
        mine = len(view.get("in_play", [[]] * (me + 1))[me])
        good = []
        for o in plays:
            info = self.card(int(o.split(":")[1]))
            if info.get("name") == "Thin Ice" or (info.get("type") == "asset" and mine >= 3):
                continue  # four cards in play can make us lose
            good.append((info.get("type") == "event", info.get("name") in HOSTILE, o))
        if good:
            return max(good)[2]
        return "end" if "end" in options else options[-1]

    # answers asked by card effects -----------------------------------------------------------
    def on_colour(self, options, view, req):
        counts = self.suits_in_hand(view["hand"])
        return max(options, key=lambda o: counts.get(o.split(":")[1], 0))

    def on_player(self, options, view, req):
        me = view["player"]
        friends = {me}
        for team in view.get("teams") or []:
            if me in team:
                friends = set(team)
        seats = [int(o.split(":")[1]) for o in options]
        if req.get("source") in HOSTILE:
            foes = [p for p in seats if p not in friends] or seats
            return f"player:{min(foes, key=lambda p: view['hand_sizes'][p])}"
        return f"player:{me}" if me in seats else options[0]

    def on_destroy(self, options, view, req):
        mine = set(view["in_play"][view["player"]])
        theirs = [o for o in options if o.startswith("card:") and int(o[5:]) not in mine]
        return theirs[0] if theirs else options[-1]

    def on_save(self, options, view, req):
        mine = set(view["in_play"][view["player"]])
        own = [o for o in options if o.startswith("card:") and int(o[5:]) in mine]
        return own[0] if own else ("done" if "done" in options else options[0])


def main():
    bot = Bot()
    view = {}  # the view, kept up to date from each request's changes
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        msg = loads(line)
        kind = msg["type"]
        if kind == "request":
            if "delta" in msg:  # view_delta: only what changed since our previous request
                view.update(msg["delta"])
                for key in msg.get("gone", ()):
                    del view[key]
            else:  # a referee that offers no features sends the whole view
                view = msg["view"]
            answer = {"type": "answer", "id": msg["id"], "option": bot.choose(msg, view)}
        elif kind == "game_start":
            bot.cards = {int(k): v for k, v in msg["cards"].items()}
            view = {}
            if "seed" in msg:  # 1.2 reuse: this game's own seed, so a warm process plays as a fresh one
                bot.rng.seed(msg["seed"])
            continue
        elif kind == "hello":
            bot.rng.seed(msg.get("seed", 0))
            wanted = [f for f in FEATURES if f in msg.get("features", ())]
            answer = {"type": "hello", "protocol": "tourney-bot", "version": "1.2", "name": NAME,
                      "features": wanted}
        elif kind == "goodbye":
            return
        else:
            continue  # game_end and anything new: nothing to answer
        out.write(dumps(answer) + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
