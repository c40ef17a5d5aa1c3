"""Helpers for rules tests: build a position by card names, act by card names, read zones by
names; play a random game with random forfeits."""

from __future__ import annotations

import json

import engine


def position(hands, draw=(), discard=("Castle",), in_play=None, turn=0, phase="main", **extra):
    """A hand-written crazier-eights position (zones top first, cards by name)."""
    data = {
        "rule_set": "crazier-eights",
        "players": len(hands),
        "seed": extra.pop("seed", 1),
        "hands": [list(h) for h in hands],
        "draw_pile": list(draw),
        "discard_pile": list(discard),
        "in_play": [list(c) for c in (in_play or [[] for _ in hands])],
        "turn": turn,
        "phase": phase,
    }
    data.update(extra)
    return engine.load_game(data)


def names(game, cards):
    return [game.card_name(c) for c in cards]


def hand(game, p):
    return names(game, game.hands[p])


def table(game, p):
    return names(game, game.in_play[p])


def discard_top_first(game):
    return names(game, game.discard[::-1])


def draw_top_first(game):
    return names(game, game.draw_pile[::-1])


def cid(game, name, zone=None):
    """The id of the first card called ``name`` (in ``zone``, a list of ids, if given)."""
    pool = zone if zone is not None else range(len(game.deck))
    for c in pool:
        if game.card_name(c) == name:
            return c
    raise AssertionError(f"{name} not found")


def option_for(game, verb, name):
    """The pending option ``verb:<id>`` for the card called ``name``."""
    for o in game.pending.options:
        v, _, arg = o.partition(":")
        if v == verb and arg and game.card_name(int(arg)) == name:
            return o
    raise AssertionError(f"no {verb} option for {name} in {game.pending.options}")


def do(game, verb, name=None):
    """Apply ``verb`` (e.g. "play", "discard", "card") on the card called ``name``, or a plain id."""
    game.apply(option_for(game, verb, name) if name is not None else verb)


def play_with_forfeits(game, rng, choose, cut: int):
    """Play ``game`` to its end, answering with ``choose(rng, options)``, while now and then (3%
    of the steps) a random seat faults, perhaps one already out. At step ``cut`` a copy is saved
    and loaded, and plays on alongside. Returns the games (``game``, and the copy if ``game``
    lasted that long) and the records the forfeits should have left in ``game.choices``."""
    games = [game]
    forfeits = []
    steps = 0
    while game.pending is not None:
        assert steps < 20_000, "the game does not end"
        if steps == cut:
            games.append(engine.load_game(json.loads(json.dumps(game.to_dict()))))
        if rng.random() < 0.03:
            seat, code = rng.randrange(game.players), rng.choice(["timeout", "crash", "illegal"])
            forfeits.append(f"forfeit:{seat}:{code}")
            for g in games:
                g.forfeit(seat, code)
        else:
            option = choose(rng, game.pending.options)
            for g in games:
                g.apply(option)
        steps += 1
    return games, forfeits
