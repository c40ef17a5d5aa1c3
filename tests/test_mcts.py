"""The mcts built-in bot: deterministic from its seed, stronger than random and greedy on a small
seeded sample (the strength figures are bench/mcts.py's, docs/bots.md), and configurable as
``builtin = "mcts"`` with ``iterations`` and ``budget_ms``."""

import pytest

import engine
from engine.bots import MctsBot, make_bot
from tourney.bots.builtin import BuiltinEntrant
from tourney.config import ConfigError, entrant_spec, parse_config


def play(rule_set, names, seed, iterations=25):
    game = engine.new_game(rule_set, players=len(names), seed=seed)
    bots = [make_bot(n, seed * 10 + i, **({"iterations": iterations} if n == "mcts" else {}))
            for i, n in enumerate(names)]
    for bot in bots:
        bot.start(game.card_table())
    while (decision := game.pending) is not None:
        p = decision.player
        bot = bots[p]
        if isinstance(bot, MctsBot):
            option = bot.choose_in(game, p)
        else:
            option = bot.choose(decision, lambda p=p: game.view(p))
        game.apply(option)
    return game


def test_mcts_is_deterministic_from_its_seed():
    a = play("crazier-eights", ["mcts", "greedy"], seed=3, iterations=8)
    b = play("crazier-eights", ["mcts", "greedy"], seed=3, iterations=8)
    assert a.choices == b.choices
    # and the seed matters: another seed for the bot searches differently
    game = engine.new_game("crazier-eights", players=2, seed=3)
    while game.pending is not None and len(game.pending.options) < 3:
        game.apply(game.pending.options[0])
    seat = game.pending.player
    picks = {MctsBot(seed, iterations=8).choose_in(game.clone(), seat) for seed in range(12)}
    assert len(picks) > 1


@pytest.mark.parametrize("opponent, games, least", [("random", 2, 2), ("greedy", 4, 3)])
def test_mcts_beats_random_and_greedy_on_a_small_seeded_sample(opponent, games, least):
    wins = 0
    for seed in range(games):
        seats = ["mcts", opponent] if seed % 2 == 0 else [opponent, "mcts"]
        game = play("crazier-eights", seats, seed)
        wins += seats.index("mcts") in game.result.winners
    assert wins >= least


def test_a_config_sets_the_mcts_bots_iterations_and_budget():
    base = {"event": {"name": "e", "format": "single"}}
    cfg = parse_config({**base, "entrants": [
        {"name": "m", "builtin": "mcts", "iterations": 50, "budget_ms": 80}, {"name": "g", "builtin": "greedy"}]})
    spec = entrant_spec(cfg.entrants[0])
    assert spec.settings == {"iterations": 50, "budget_ms": 80}
    entrant = BuiltinEntrant(spec, seed=1)
    entrant.start()
    assert (entrant._bot.iterations, entrant._bot.budget_ms) == (50, 80)
    with pytest.raises(ConfigError, match=r"entrants\[1\] \(g\)\.iterations: only the mcts built-in bot"):
        parse_config({**base, "entrants": [
            {"name": "m", "builtin": "mcts"}, {"name": "g", "builtin": "greedy", "iterations": 5}]})


class _Position:
    """What engine.search.score reads of a game: its result, or its hands and who is still in."""

    def __init__(self, players, placements=None, sizes=None, alive=None):
        from types import SimpleNamespace

        self.players = players
        self.result = None if placements is None else SimpleNamespace(placements=placements)
        self.hands = [[0] * n for n in (sizes or [])]
        self.alive = alive or [True] * players

    def hand_players(self):
        return list(range(self.players))


def test_the_search_plays_for_its_seats_placement_score():
    from engine.search import score

    # a finished table of 4 placed 1, 2, 2, 4: the share of the others each seat finished above,
    # a shared place a half (the score tourney's verdicts at tables of many count)
    done = _Position(4, placements=[1, 2, 2, 4])
    assert [score(done, s) for s in range(4)] == pytest.approx([1.0, 0.5, 0.5, 0.0])
    assert [score(_Position(2, placements=[1, 1]), s) for s in range(2)] == [0.5, 0.5]  # nobody won
    # a game still on: each other seat still in is beaten with probability 1/(1+e^(mine-theirs))
    on = _Position(3, sizes=[2, 2, 5])
    assert score(on, 0) == pytest.approx((0.5 + 1 / (1 + 2.718281828 ** -3)) / 2, abs=1e-9)
    assert score(_Position(2, sizes=[3, 5]), 0) == pytest.approx(1 / (1 + 2.718281828 ** -2), abs=1e-9)
    # a seat out is beaten by every seat still in, and ties with another seat out
    out = _Position(3, sizes=[4, 0, 0], alive=[True, False, False])
    assert (score(out, 0), score(out, 1)) == (1.0, 0.25)
