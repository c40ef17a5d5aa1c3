"""Built-in bots: legal, deterministic from their seed, and greedy clearly beats random."""

import sys
from pathlib import Path

import engine
from engine.bots import make_bot

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from greedy import win_rate  # noqa: E402


def test_greedy_wins_at_least_60_percent_of_two_player_games_against_random():
    assert win_rate(300, 2) >= 0.6


def test_greedy_beats_three_random_bots_more_often_than_a_fair_share():
    assert win_rate(100, 4) > 0.4


def test_bots_are_deterministic_from_their_seed():
    def play():
        game = engine.new_game("crazier-eights", players=3, seed=5)
        bots = [make_bot(name, 7 + i) for i, name in enumerate(["greedy", "random", "greedy"])]
        for bot in bots:
            bot.start(game.card_table())
        while (d := game.pending) is not None:
            game.apply(bots[d.player].choose(d, lambda: game.view(d.player)))
        return game.choices

    assert play() == play()


def test_unknown_bot_name_is_a_clear_error():
    import pytest
    with pytest.raises(ValueError, match="unknown built-in bot 'clever'"):
        make_bot("clever")
