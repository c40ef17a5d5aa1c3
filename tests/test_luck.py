"""Luck-adjusted scores (tourney/luck): which draws are chance events, that each correction has
mean zero over the cards the stock may hold, that adjusted and raw means agree on real games,
the GSPRT on adjusted scores (hand-worked LLR, error rates by simulation), standings estimates by
hand, and the config and CLI switches."""

from __future__ import annotations

import itertools
import json
import math
import random
import statistics

import pytest
from enginekit import cid, position

import engine
from tourney.luck.adjust import DEALS, Position, adjust, adjusted_scores, draw_luck, luck_features
from tourney.luck.chance import Before, Stock, draws_of_step
from tourney.luck.selfplay import play
from tourney.luck.value import FEATURES, outcome, seat_features, weight_names, weights_for
from tourney.results.luck import entrant_luck, estimate
from tourney.stats.elo import elo_from_score
from tourney.stats.sprt import ScoreSprt, llr_normal, llr_scores


def step(game, stock, choice):
    """Apply ``choice``; return the chance draws it made and the position before it."""
    before, pos = Before.of(game), Position.of(game)
    game.apply(choice)
    return draws_of_step(stock, before, game), pos


# ---- which draws are chance events ----------------------------------------------------------

def test_a_plain_draw_is_a_chance_event_over_every_unseen_card():
    game = position([["Sleep", "Castle"], ["Merlin"]], draw=["Death", "Study", "Trade"], discard=["Tempest"])
    stock = Stock.after_deal(game)
    draws, _ = step(game, stock, "end")  # player 1's turn begins with a draw
    assert len(draws) == 1
    d = draws[0]
    assert d.player == 1 and d.card == cid(game, "Death")
    assert sorted(d.candidates) == sorted(cid(game, n) for n in ("Death", "Study", "Trade"))


def test_fortune_tellers_look_makes_the_top_card_known_so_drawing_it_is_not_luck():
    game = position([["Sleep", "Castle"], ["Merlin"]], draw=["Oberon", "Study", "Trade"], discard=["Tempest"],
                    in_play=[["Fortune Teller"], []])
    oberon = cid(game, "Oberon")
    assert oberon in game.known[0]  # the look happened as the decision came up
    stock = Stock.after_deal(game)
    assert oberon not in stock.block
    draws, _ = step(game, stock, "end")  # player 1 draws Oberon: seen before, so no chance
    assert game.hands[1][-1] == oberon and draws == []


def test_a_card_put_back_at_a_chosen_place_is_not_luck_but_the_one_under_it_is():
    # Elven Princess looks at Death and leaves it on top: the turn's draw takes a known card
    game = position([["Sleep"], ["Merlin"]], draw=["Death", "Study", "Trade"], discard=["Tempest"],
                    in_play=[["Elven Princess"], []], phase="begin")
    stock = Stock.after_deal(game)
    draws, _ = step(game, stock, "top")
    assert game.hands[0][-1] == cid(game, "Death") and draws == []
    # ... or puts it on the bottom: the draw takes Study, unseen, from Study and Trade only
    game = position([["Sleep"], ["Merlin"]], draw=["Death", "Study", "Trade"], discard=["Tempest"],
                    in_play=[["Elven Princess"], []], phase="begin")
    stock = Stock.after_deal(game)
    draws, _ = step(game, stock, "bottom")
    study, trade, death = (cid(game, n) for n in ("Study", "Trade", "Death"))
    assert [(d.card, sorted(d.candidates)) for d in draws] == [(study, sorted([study, trade]))]
    assert death not in stock.block  # at the bottom, where everybody can say it is


def test_a_revealed_top_card_is_not_luck():
    # Titania reveals the top card (not an asset: it stays on top); the next draw takes it
    game = position([["Sleep"], ["Merlin"]], draw=["Death", "Study", "Trade"], discard=["Tempest"],
                    in_play=[["Titania"], []], phase="begin")
    death = cid(game, "Death")
    stock = Stock.after_deal(game)
    assert death not in stock.block
    assert game.hands[0][-1] == death  # the turn's own draw, part of the position


def test_a_one_card_stock_after_a_reshuffle_is_known_so_no_luck():
    # the draw pile is empty and the discard pile holds Tempest on Study: the turn's draw reshuffles
    # everything but the top card into a stock of one card that everybody can name
    game = position([["Sleep", "Castle"], ["Merlin"]], draw=[], discard=["Tempest", "Study"])
    stock = Stock.after_deal(game)
    draws, _ = step(game, stock, "end")
    assert game.hands[1][-1] == cid(game, "Study") and draws == []


def test_a_reshuffled_pile_is_a_block_of_its_own():
    # two cards go under one unseen card: drawing the old card is luck over the old card alone
    # (its candidates do not include the reshuffled ones), and a later draw from the new block is
    # luck over that block only
    game = position([["Sleep", "Castle"], ["Merlin"]], draw=["Death"], discard=["Tempest", "Study", "Trade"])
    stock = Stock.after_deal(game)
    death = cid(game, "Death")
    draws, _ = step(game, stock, "end")
    assert [(d.card, d.candidates) for d in draws] == [(death, [death])]


def test_draw_until_playable_is_a_sequence_of_events_each_over_the_cards_left():
    # classic Crazy Eights draws until a playable card comes: each card is its own event, the
    # candidates shrinking by the cards drawn before it
    seen = 0
    for seed in range(40):
        start, choices, _ = play("crazy-eights", ["random", "random"], seed, seed % 2, seed)
        game = engine.new_game(**start)
        stock = Stock.after_deal(game)
        for choice in choices:
            before = Before.of(game)
            engine.apply_choice(game, choice)
            draws = draws_of_step(stock, before, game)
            for a, b in itertools.pairwise(draws):
                assert set(b.candidates) == set(a.candidates) - {a.card}
                assert b.before[-1][0] == a.card
                seen += 1
        assert stock.irregular == 0
    assert seen > 0


def test_a_buried_starter_eight_is_not_luck():
    for seed in range(400):
        game = engine.new_game("crazy-eights", players=2, seed=seed)
        buried = [e["card"] for e in game.events if e.get("type") == "bury"]
        if buried:
            assert buried[0] in game.draw_pile and buried[0] not in Stock.after_deal(game).block
            return
    pytest.fail("no deal buried its starter")


# ---- each correction has mean zero ---------------------------------------------------------

def test_every_order_of_the_unseen_cards_gives_a_mean_correction_of_zero():
    # Replay one step under every order of a three-card stock: the corrections average to zero
    # exactly, whatever the weights (here random ones), because each card is the drawn one in a
    # third of the orders and the expectation is taken over exactly those three.
    names = ["Death", "Study", "Trade"]
    rng = random.Random(5)
    weights = [rng.uniform(-1, 1) for _ in FEATURES]
    totals = [0.0, 0.0]
    orders = list(itertools.permutations(names))
    for order in orders:
        game = position([["Sleep", "Castle"], ["Merlin", "Oberon"]], draw=list(order), discard=["Tempest"])
        stock = Stock.after_deal(game)
        draws, pos = step(game, stock, "end")
        for d in draws:
            _, delta = draw_luck(pos, d)
            value = sum(w * v for w, v in zip(weights, delta))
            totals[d.player] += value
            totals[1 - d.player] -= value
    assert len(orders) == 6
    assert totals == pytest.approx([0.0, 0.0], abs=1e-12)


def test_the_adjustment_sums_to_zero_over_the_seats_and_is_reproducible():
    start, choices, game = play("crazier-eights", ["greedy", "random", "greedy"], 11, 2, 11)
    a = adjust(start, choices)
    b = adjust(start, choices)
    assert a.adjusted == b.adjusted and a.events > 0
    assert sum(a.adjusted) == pytest.approx(sum(a.raw)) == pytest.approx(1.5)
    assert a.raw == outcome(game.result.placements)


def test_outcome_by_hand():
    assert outcome([1, 2]) == [1.0, 0.0]
    assert outcome([1, 1]) == [0.5, 0.5]
    # four seats, places 1, 2, 2, 4: 3/3, (1 + ½)/3, (1 + ½)/3, 0
    assert outcome([1, 2, 2, 4]) == pytest.approx([1.0, 0.5, 0.5, 0.0])


def test_a_crazier_card_feature_follows_the_card_not_its_place_in_the_deck():
    # two decks in different orders: "Death" has another id in each, the same card_i feature
    x = []
    for draw in (["Death", "Study", "Trade"], ["Study", "Trade", "Death"]):
        game = position([["Sleep", "Death"], ["Merlin"]], draw=draw, discard=["Tempest"])
        x.append(seat_features(game)[0])
    death = FEATURES.index(f"card_{[c.name for c in engine.cards.CARDS].index('Death')}")
    sleep = FEATURES.index(f"card_{[c.name for c in engine.cards.CARDS].index('Sleep')}")
    assert x[0][death] == x[1][death] == x[0][sleep] == 1.0
    assert sum(x[0][FEATURES.index("card_0"):]) == 2.0
    # the race features: one card against a rival's two, Sleep playable on Death (same suit)
    game = position([["Sleep"], ["Merlin", "Study"]], draw=["Trade"], discard=["Death"])
    row = dict(zip(FEATURES, seat_features(game)[0]))
    race = ("hand_inv", "can_play", "can_play_rival_inv", "can_play_rival_close")
    assert [row[name] for name in race] == [1.0, 1.0, 0.5, 1.0]
    assert row["can_play_behind"] == 0.0


def test_weights_cover_every_block_and_unknown_rule_sets_adjust_nothing():
    assert len(weights_for("crazier-eights", 2)) == len(weight_names()) == 3 * len(FEATURES)
    assert set(weights_for("no-such-rules", 2)) == {0.0}


@pytest.mark.parametrize("rule_set,players,games", [
    ("crazier-eights", 2, 160), ("crazy-eights", 2, 200), ("super-crazy-eights", 2, 200), ("crazy-eights", 4, 100),
])
def test_adjusted_and_raw_means_agree_on_real_games(rule_set, players, games):
    # Unequal bots, seeded: the mean of (adjusted - raw) for seat 0 and for the greedy bot is
    # within 3.5 standard errors of zero (bench/luck.py measures this on 10,000 games). The
    # weights are arbitrary (unbiasedness must not depend on them), large enough to matter.
    rng = random.Random(f"test luck {rule_set} {players}")
    weights = [rng.gauss(0, 0.1) for _ in weight_names()]
    seat0, greedy = [], []
    for seed in range(games):
        names = ["greedy" if rng.random() < 0.5 else "random" for _ in range(players)]
        names[rng.randrange(players)] = "greedy"
        start, choices, _ = play(rule_set, names, 10_000 + seed, rng.randrange(players), seed)
        luck = luck_features(start, choices, deals=DEALS // 2)
        assert luck.irregular == 0
        adj = adjusted_scores(luck, weights)
        seat0.append(adj[0] - luck.raw[0])
        g = [p for p in range(players) if names[p] == "greedy"]
        greedy.append(sum(adj[p] - luck.raw[p] for p in g) / len(g))
    for diffs in (seat0, greedy):
        z = statistics.fmean(diffs) / (statistics.stdev(diffs) / math.sqrt(len(diffs)))
        assert abs(z) < 3.5, z


# ---- the GSPRT on adjusted scores ------------------------------------------------------------

def test_llr_scores_is_the_normal_approximation_by_hand():
    # docs/evaluation.md 1.3: W=120 D=60 L=80, elo0=0, elo1=5 gives 0.7359 by the normal approximation
    scores = [1.0] * 120 + [0.5] * 60 + [0.0] * 80
    assert llr_scores(scores, 0, 5, prior_units=0) == pytest.approx(0.7359, abs=1e-4)
    assert llr_scores(scores, 0, 5, prior_units=0) == pytest.approx(llr_normal([80, 60, 120], 0, 5))
    # the prior: σ̂² = (260·0.186391 + 10·¼)/270 (docs/evaluation.md 1.1's σ²)
    pooled = (260 * 0.186391 + 2.5) / 270
    assert llr_scores(scores, 0, 5) == pytest.approx(0.7359 * 0.186391 / pooled, abs=1e-4)
    # by hand: s = 0.55, σ² = 0.0225 + ... for [0.4, 0.7] x 5 each: mean 0.55, σ² = 0.0225;
    # s0 = ½, s1 = 1/(1+10^(-1/8)) = 0.5719961; LLR = 10·0.0719961·(1.1 - 1.0719961)/(2·0.0225)
    s1 = 1 / (1 + 10 ** (-0.125))
    expected = 10 * (s1 - 0.5) * (1.1 - 0.5 - s1) / (2 * 0.0225)
    assert llr_scores([0.4, 0.7] * 5, 0, 50, prior_units=0) == pytest.approx(expected, rel=1e-9)
    assert llr_scores([0.4, 0.7] * 4, 0, 50) == 0.0  # fewer than MIN_UNITS: no verdict yet
    assert llr_scores([0.7], 0, 5, prior_units=0, min_units=0) == 0.0


def test_score_sprt_error_rates_match_alpha_and_beta_by_simulation():
    # Each unit scores a win (1) with probability s else a loss (0), plus a normal "luck" term of
    # mean 0 and sd 0.3 (adjusted scores are real numbers, the mean is still s). Over many runs
    # the share accepting H1 at s(elo0) estimates α, the share accepting H0 at s(elo1) β.
    elo0, elo1, runs = 0.0, 80.0, 600
    rng = random.Random("score sprt error rates")

    def run(score: float) -> str | None:
        test = ScoreSprt(elo0, elo1)
        for _ in range(100_000):
            test.add((1.0 if rng.random() < score else 0.0) + rng.gauss(0, 0.3))
            if test.verdict is not None:
                return test.verdict
        return None

    fp = sum(run(0.5) == "H1" for _ in range(runs)) / runs
    fn = sum(run(1 / (1 + 10 ** (-elo1 / 400))) == "H0" for _ in range(runs)) / runs
    for observed in (fp, fn):
        assert abs(observed - 0.05) <= 3 * math.sqrt(0.05 * 0.95 / runs), (fp, fn)


def test_score_sprt_running_llr_matches_the_formula():
    test = ScoreSprt(0, 80)
    for x in [1.1, -0.05, 0.8, 0.3, 1.0, 0.6]:
        test.add(x)
    assert test.units == 6 and test.llr == pytest.approx(llr_scores(test.scores, 0, 80))
    est = test.estimate()
    assert est.score == pytest.approx(statistics.fmean(test.scores)) and est.model == "luck-adjusted"
    with pytest.raises(ValueError):
        test.add(math.nan)


# ---- standings -----------------------------------------------------------------------------

def test_entrant_estimates_by_hand():
    games = [[("a", 1.0, 0.9), ("b", 0.0, 0.1)], [("a", 0.0, 0.4), ("b", 1.0, 0.6)],
             [("a", 1.0, 0.8), ("b", 0.0, 0.2)]]
    out = entrant_luck(games)
    a = out["a"]["adjusted"]
    # mean 0.7; variance of (0.9, 0.4, 0.8) with divisor n, as every estimate of tourney:
    # ((0.2)² + (0.3)² + (0.1)²)/3 = 0.14/3, se = √(0.14/3/3) = 0.124722 (n - 1 would give 0.152753)
    se = math.sqrt(0.14 / 9)
    assert se == pytest.approx(0.124722, abs=1e-6)
    assert a["score"] == pytest.approx(0.7) and a["se"] == pytest.approx(se, abs=1e-6)
    assert a["elo"] == pytest.approx(elo_from_score(0.7), abs=0.01)
    assert a["elo_low"] == pytest.approx(elo_from_score(0.7 - 1.959964 * se), abs=0.01)
    assert out["a"]["raw"]["score"] == pytest.approx(2 / 3) and out["b"]["games"] == 3
    assert estimate([])["score"] is None


def test_standings_and_the_sprt_use_the_same_n():
    """The standings' luck-adjusted interval and the SPRT's estimate of the same scores agree."""
    scores = [0.9, 0.4, 0.8, 0.55, 0.3]
    test = ScoreSprt(0, 80)
    for x in scores:
        test.add(x)
    standings = estimate(scores)
    assert standings["elo_low"] == pytest.approx(test.estimate().elo_low, abs=0.01)
    assert standings["elo_high"] == pytest.approx(test.estimate().elo_high, abs=0.01)


def test_config_takes_luck_adjusted_as_a_boolean(tmp_path):
    from tourney.config import ConfigError, load_config

    text = ('[event]\nname = "t"\nformat = "sprt"\nentrants = ["a", "b"]\nluck_adjusted = {}\n'
            '[[entrants]]\nname = "a"\nbuiltin = "greedy"\n[[entrants]]\nname = "b"\nbuiltin = "random"\n')
    good = tmp_path / "good.toml"
    good.write_text(text.format("true"))
    assert load_config(good).event["luck_adjusted"] is True
    bad = tmp_path / "bad.toml"
    bad.write_text(text.format('"yes"'))
    with pytest.raises(ConfigError, match="luck_adjusted"):
        load_config(bad)


def test_sprt_command_runs_on_luck_adjusted_scores_and_standings_show_them(tmp_path):
    from typer.testing import CliRunner

    from tourney.cli import app

    db = str(tmp_path / "t.db")
    result = CliRunner().invoke(app, ["sprt", "greedy", "random", "--luck-adjusted", "--elo1", "200",
                                      "--max-games", "24", "-j", "1", "--name", "lucky", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)["sprt"]
    assert data["model"] == "luck-adjusted" and data["luck_adjusted"] is True
    assert data["games"] >= 8 and data["estimate"]["model"] == "luck-adjusted"
    standings = CliRunner().invoke(app, ["standings", "lucky", "--db", db, "--json"])
    assert standings.exit_code == 0, standings.output
    table = json.loads(standings.output)
    # the why names what set it: the flag, not a config the user never wrote
    assert data["luck_adjusted_why"] == table["luck"]["why"] == "--luck-adjusted given on the command line"
    rows = {r["entrant"]: r["luck_adjusted"] for r in table["standings"]}
    assert rows["greedy"]["games"] == data["games"]
    # the two entrants' adjusted scores of each game add up to 1, so their means do too
    assert rows["greedy"]["score"] + rows["random"]["score"] == pytest.approx(1.0)
