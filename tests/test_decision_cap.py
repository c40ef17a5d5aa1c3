"""P18: a deal that nobody goes out of ends at ``engine.common.DECISION_CAP`` choices.

Nothing in the rules ends a Super Crazy Eights deal whose players keep drawing from a stock rebuilt
from the play pile, nor a Crazier Eights game whose players draw one and discard one a turn. The
bots below do exactly that; the deal ends at the cap with reason ``decision_cap`` and the scoring of
docs/rulings.md P18. Classic Crazy Eights has no rebuilt stock, so every deal ends on its own.
"""

from __future__ import annotations

import pytest

import engine
from engine.common import CAPPED, DECISION_CAP


def draw_first(decision) -> str:
    """Draw whenever drawing is allowed, else play the first card, else the last option."""
    options = decision.options
    if "draw" in options:
        return "draw"
    plays = [o for o in options if o.startswith("play:")]
    return plays[0] if plays else options[-1]


def discard_first(decision) -> str:
    """Crazier Eights: discard the first card allowed, never play one, then end the turn."""
    discards = [o for o in decision.options if o.startswith("discard:")]
    return discards[0] if discards else decision.options[-1]


def last_option(decision) -> str:
    return decision.options[-1]


def play_out(game, bot) -> int:
    decisions = 0
    while (decision := game.pending) is not None:
        game.apply(bot(decision))
        decisions += 1
        assert decisions <= DECISION_CAP
    return decisions


def test_a_super_crazy_eights_deal_of_drawers_ends_at_the_cap():
    game = engine.new_game("super-crazy-eights", players=3, seed=0)
    assert play_out(game, draw_first) == DECISION_CAP
    result = game.result
    assert result.reason == CAPPED and len(game.choices) == DECISION_CAP
    # every hand counts (rule 9), the lowest total wins, as in a blocked deal
    from engine.super_crazy_eights import card_points

    totals = [sum(card_points(c) for c in hand) for hand in game.hands]
    assert result.points == totals
    assert result.winners == [p for p in range(3) if totals[p] == min(totals)]
    assert game.events[-1]["type"] == "end" and game.events[-1]["reason"] == CAPPED
    assert engine.replay({"rule_set": "super-crazy-eights", "players": 3, "seed": 0}, game.choices).result == result


def test_a_crazier_eights_game_of_discard_and_draw_ends_at_the_cap():
    game = engine.new_game("crazier-eights", players=2, seed=0)
    assert play_out(game, discard_first) == DECISION_CAP
    result = game.result
    assert result.reason == CAPPED
    sizes = [len(h) for h in game.hands]
    # CR §3's ending: the fewest cards in hand wins (ties share, impossible_draw_tie)
    assert result.winners == [p for p in range(2) if sizes[p] == min(sizes)]
    assert result.points == [0 if p in result.winners else sizes[p] for p in range(2)]


@pytest.mark.parametrize("rule_set", ["crazier-eights", "crazy-eights", "super-crazy-eights"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_bot_that_always_takes_the_last_option_ends_every_deal(rule_set, players):
    for seed in range(5):
        game = engine.new_game(rule_set, players=players, seed=seed)
        decisions = play_out(game, last_option)
        assert game.result is not None and decisions < DECISION_CAP
        assert game.result.reason != CAPPED


@pytest.mark.parametrize("players", [2, 3, 4])
def test_classic_crazy_eights_ends_without_the_cap_for_drawers(players):
    # no rebuilt stock: draws empty the stock, then everyone passes and the deal is blocked
    for seed in range(5):
        game = engine.new_game("crazy-eights", players=players, seed=seed)
        assert play_out(game, draw_first) < 200
        assert game.result.reason in ("out", "blocked")


def test_a_saved_game_one_choice_before_the_cap_ends_on_loading_and_answering():
    game = engine.new_game("super-crazy-eights", players=3, seed=0)
    for _ in range(DECISION_CAP - 1):
        game.apply(draw_first(game.pending))
    copy = engine.load_game(game.to_dict())
    assert copy.pending is not None
    copy.apply(draw_first(copy.pending))
    assert copy.result is not None and copy.result.reason == CAPPED
