"""The network value function of the luck adjustment (tourney/luck/network.py): its value by hand,
the fast per-candidate path against the plain one, and that each draw's correction has mean zero
and the adjusted scores keep the raw means whatever the network's weights."""

from __future__ import annotations

import itertools
import math
import random
import statistics

import pytest
from enginekit import cid, position

import engine
from tourney.luck.adjust import adjust, network_draw_luck
from tourney.luck.chance import Before, Stock, draws_of_step
from tourney.luck.network import (
    INPUTS,
    MINE,
    OTHERS,
    RIVAL,
    SIZE,
    TO_MOVE,
    TOP,
    Network,
    Snapshot,
    card_index,
    network_for,
    seat_inputs,
)
from tourney.luck.selfplay import play


def random_network(seed: int, hidden: int = 4, scale: float = 0.5) -> Network:
    rng = random.Random(seed)
    return Network([[rng.gauss(0, scale) for _ in range(hidden)] for _ in range(INPUTS)],
                   [rng.gauss(0, scale) for _ in range(hidden)], [rng.gauss(0, 1) for _ in range(hidden)],
                   rng.gauss(0, 0.1))


def test_a_tiny_network_by_hand():
    snap = Snapshot(hands=[[0, 5], [7]], in_play=[[], []], top=3, named=-1, moving=0, alive=[True, True])
    expected = [MINE + 0, MINE + 5, OTHERS + 7, TOP + 3, SIZE + 2, RIVAL + 1, TO_MOVE]
    assert sorted(seat_inputs(snap, 0)) == sorted(expected)
    w1 = [[0.0, 0.0] for _ in range(INPUTS)]
    w1[MINE + 0] = [1.0, -1.0]
    w1[TOP + 3] = [0.5, 0.5]
    w1[TO_MOVE] = [0.0, 2.0]
    w1[OTHERS + 5] = [-3.0, 0.0]  # seat 1 sees card 5 in the other hand: the first unit goes dead
    net = Network(w1, [0.1, -0.2], [2.0, -1.0], 0.3)
    # seat 0: pre = (0.1 + 1 + 0.5, -0.2 - 1 + 0.5 + 2) = (1.6, 1.3); out = σ(0.3 + 3.2 - 1.3)
    # seat 1: pre = (0.1 + 0.5 - 3, -0.2 + 0.5) = (-2.4, 0.3); the ReLU drops the first: σ(0.3 - 0.3)
    assert net.values(snap) == pytest.approx([1 / (1 + math.exp(-2.2)), 0.5], abs=1e-12)


def test_the_value_after_each_candidate_is_the_value_of_the_position_with_that_card():
    net = random_network(3)
    snap = Snapshot(hands=[[0, 5, 9], [7, 11]], in_play=[[20], []], top=3, named=1, moving=1, alive=[True, True])
    cards = [2, 13, 40, -1]
    fast = net.draw_values(snap, 1, cards)
    for j, c in enumerate(cards):
        hands = [list(snap.hands[0]), snap.hands[1] + [c]]
        plain = net.values(Snapshot(hands, snap.in_play, snap.top, snap.named, snap.moving, snap.alive))
        assert [fast[p][j] for p in range(2)] == pytest.approx(plain, abs=1e-12)


def test_every_order_of_the_unseen_cards_gives_a_mean_network_correction_of_zero():
    # One draw from a three-card stock under each of its six orders: each card is the one drawn in
    # two of them, and the correction's expectation is over exactly those three, so the
    # corrections cancel exactly for any network (here random weights), seat by seat.
    net = random_network(7)
    names = ["Death", "Study", "Trade"]
    totals = [0.0, 0.0]
    seen = set()
    for order in itertools.permutations(names):
        game = position([["Sleep", "Castle"], ["Merlin", "Oberon"]], draw=list(order), discard=["Tempest"])
        stock = Stock.after_deal(game)
        before, snap = Before.of(game), Snapshot.of(game)
        game.apply("end")  # player 1's turn begins with a draw
        draws = draws_of_step(stock, before, game)
        assert len(draws) == 1
        luck = network_draw_luck(net, snap, draws[0], card_index(game))
        assert luck[0] != 0.0 and luck[1] != 0.0  # the network tells these cards apart
        seen.add(game.deck[draws[0].card])
        totals = [t + x for t, x in zip(totals, luck)]
    assert len(seen) == 3
    assert totals == pytest.approx([0.0, 0.0], abs=1e-12)


def test_a_network_correction_follows_the_card_drawn():
    net = random_network(8)
    game = position([["Sleep", "Castle"], ["Merlin", "Oberon"]], draw=["Death", "Study", "Trade"], discard=["Tempest"])
    stock = Stock.after_deal(game)
    before, snap = Before.of(game), Snapshot.of(game)
    game.apply("end")
    (draw,) = draws_of_step(stock, before, game)
    index = card_index(game)
    values = net.draw_values(snap, 1, [index[c] for c in draw.candidates])
    drawn = draw.candidates.index(cid(game, "Death"))
    expected = [row[drawn] - statistics.fmean(row) for row in values]
    assert network_draw_luck(net, snap, draw, index) == pytest.approx(expected, abs=1e-12)


def test_network_adjusted_scores_keep_the_raw_sum_and_are_reproducible():
    net = random_network(11)
    start, choices, game = play("crazier-eights", ["greedy", "random", "greedy"], 11, 2, 11)
    a = adjust(start, choices, network=net)
    b = adjust(start, choices, network=net)
    assert a == b and a.events > 0
    assert sum(a.adjusted) == pytest.approx(sum(a.raw), abs=1e-9)
    assert a.adjusted != a.raw


def test_network_adjusted_and_raw_means_agree_on_real_games():
    # Any network gives an unbiased adjustment; a random one adds noise, so this checks the
    # structure (exact expectations, the deal's random deals), not the fit.
    net = random_network(13, scale=0.2)
    diffs = []
    for seed in range(60):
        names = ["greedy", "greedy30"] if seed % 2 else ["greedy30", "greedy"]
        start, choices, _ = play("crazier-eights", names, 900_000 + seed, seed % 2, seed)
        result = adjust(start, choices, network=net, deals=8)
        diffs.append(result.adjusted[0] - result.raw[0])
    z = statistics.fmean(diffs) / (statistics.stdev(diffs) / math.sqrt(len(diffs)))
    assert abs(z) < 4


def test_rule_sets_without_a_network_use_the_linear_weights():
    assert network_for("crazy-eights", 2) is None
    start, choices, _ = play("crazy-eights", ["greedy", "random"], 5, 0, 5)
    assert adjust(start, choices) == adjust(start, choices, network=False)
    assert engine.new_game(**start).players == 2
