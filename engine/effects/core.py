"""The first eleven cards, which prove the framework: draws and their substitutions, extra
discards, destruction, an alternate loss and turn order."""

from __future__ import annotations

from engine.effects.helpers import any_card_in_play, arg, choose_player, destroy_one_of, own_turn
from engine.effects.registry import register


def _angel_of_hope(game, f):
    ask = choose_player(game, f, "Angel of Hope: choose a player who draws a card")
    if ask:
        return ask
    game.stack.pop()
    game.draw(arg(f["answer"]), 1, cause=f["p"], source="Angel of Hope")


def _destroy_one(game, f):
    """Devious Dragon (mandatory, any card, itself included) and Death: destroy a card in play."""
    return destroy_one_of(game, f, game.all_in_play(), f"{f['name']}: choose a card in play to destroy")


def _thin_ice(game, f):
    game.stack.pop()
    game.lose([f["active"]], "Thin Ice")


def _four_or_more_at_own_turn(game, controller, active):
    return len(game.in_play[active]) >= 4


def _timeshift(game, f):
    game.stack.pop()
    game.extra[f["p"]] += 1


def _sleep(game, f):
    ask = choose_player(game, f, "Sleep: choose a player who skips their next turn")
    if ask:
        return ask
    game.stack.pop()
    game.skips[arg(f["answer"])] += 1


def _ferocity(game, f):
    game.stack.pop()
    game.bonus_discards += 1


register("Angel of Hope", at_begin=own_turn, resolve=_angel_of_hope)
register("Castle", draw_less_from_opponents=1)
register("Guardian Angel", draw_less_all=2)
register("Malevolent Minions", draw_more_to_opponents=1)
register("Stream of Life", extra_discards_all=1)
register("Ferocity", resolve=_ferocity)
register("Devious Dragon", at_begin=own_turn, resolve=_destroy_one)
register("Death", playable=any_card_in_play, resolve=_destroy_one)
register("Thin Ice", at_end=_four_or_more_at_own_turn, resolve=_thin_ice)
register("Timeshift", resolve=_timeshift)
register("Sleep", resolve=_sleep)
