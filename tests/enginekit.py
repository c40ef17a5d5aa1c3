"""Helpers for rules tests: build a position by card names, act by card names, read zones by names."""

from __future__ import annotations

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
