"""Elo, CI, LOS and draw ratio; pairwise results from placements; rank ranges.

Expected numbers are worked by hand in the comments, or come from a published example that is
cited: fastchess's unit tests (Disservin/fastchess, app/tests/elo_test.cpp) and the worked table
in docs/evaluation.md, whose numbers were computed independently and agree with fishtest.
"""

import json
import math
from statistics import NormalDist

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tourney.stats.elo import (
    Z95,
    StatsError,
    check_pairs_match_games,
    elo_from_score,
    pentanomial,
    pentanomial_counts,
    score_from_elo,
    trinomial,
    wdl_counts,
)
from tourney.stats.pairwise import PairRecord, pairwise_records, probability_stronger
from tourney.stats.separation import Rated, rank_ranges, rank_ranges_from, se_from_half_width

# ---- conversions -----------------------------------------------------------------------------


def test_conversions_at_hand_computed_points():
    assert pytest.approx(1.959964, abs=1e-6) == Z95
    assert score_from_elo(0) == 0.5
    # 400 Elo ahead: 1/(1 + 10^-1) = 10/11
    assert score_from_elo(400) == pytest.approx(10 / 11)
    assert score_from_elo(-400) == pytest.approx(1 / 11)
    # a 75% score: -400·log10(1/0.75 - 1) = -400·log10(1/3) = 190.8485
    assert elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-4)
    assert elo_from_score(0.0) == -math.inf and elo_from_score(1.0) == math.inf


@given(st.floats(-2000, 2000))
def test_elo_and_score_are_inverse(elo):
    assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo, abs=1e-6)


# ---- trinomial -------------------------------------------------------------------------------


def test_trinomial_worked_example():
    # W=120 D=60 L=80, N=260: s = (120 + 30)/260 = 15/26 = 0.576923
    # σ² = (12/26)(11/26)² + (6/26)(2/26)² + (8/26)(15/26)² = (1452 + 24 + 1800)/17576 = 0.186391
    # SE = √(0.186391/260) = 0.026775; score CI = 0.576923 ± 1.959964·0.026775 = [0.524446, 0.629401]
    # Elo = -400·log10(11/15) = 53.879; Elo CI = [17.000, 92.009], ± = (92.009 - 17.000)/2 = 37.504
    # LOS = Φ(0.076923/0.026775) = Φ(2.8730) = 99.797 %; nElo = 0.076923/√0.186391 · 347.4356 = 61.904
    # (table in docs/evaluation.md, "Trinomial")
    e = trinomial(120, 60, 80)
    assert (e.model, e.units, e.games) == ("trinomial", 260, 260)
    assert e.score == pytest.approx(0.576923, abs=1e-6)
    assert e.sd ** 2 == pytest.approx(0.186391, abs=1e-6)
    assert (e.score_low, e.score_high) == pytest.approx((0.524446, 0.629401), abs=1e-6)
    assert e.elo == pytest.approx(53.879, abs=1e-3)
    assert (e.elo_low, e.elo_high) == pytest.approx((17.000, 92.009), abs=1e-3)
    assert e.elo_pm == pytest.approx(37.504, abs=1e-3)
    assert e.los == pytest.approx(0.99797, abs=1e-5)
    assert e.nelo == pytest.approx(61.904, abs=1e-3)
    assert e.draw_ratio == pytest.approx(60 / 260)
    assert e.variance_ratio is None


@pytest.mark.parametrize(("wins", "losses", "draws", "nelo", "nelo_pm", "los"), [
    (76, 89, 123, -20.76, 40.13, 0.1553),   # fastchess elo_test.cpp "EloWDL 1"
    (136, 96, 111, 49.77, 36.77, 0.9960),    # "EloWDL 2"
    (34, 356, 0, -508.44, 34.48, None),      # "EloWDL 3" (LOS not checked there)
])
def test_trinomial_against_fastchess_tests(wins, losses, draws, nelo, nelo_pm, los):
    e = trinomial(wins, draws, losses)
    assert e.nelo == pytest.approx(nelo, abs=0.01)
    assert e.nelo_pm == pytest.approx(nelo_pm, abs=0.01)
    if los is not None:
        assert e.los == pytest.approx(los, abs=5e-5)


def test_a_small_sample_whose_interval_passes_a_full_score():
    # W=3 D=1 L=0: s = 3.5/4 = 0.875; σ² = ¾·0.125² + ¼·0.375² = 0.046875; SE = √(0.046875/4) = 0.108253
    # upper end 0.875 + 1.959964·0.108253 = 1.0872 > 1: clamped to 1, Elo +inf
    # lower end 0.875 - 0.212172 = 0.662828: Elo = -400·log10(1/0.662828 - 1) = 117.419
    e = trinomial(3, 1, 0)
    assert e.score_high == 1.0 and e.elo_high == math.inf and e.elo_pm == math.inf
    assert e.score_low == pytest.approx(0.662828, abs=1e-6)
    assert e.elo_low == pytest.approx(117.419, abs=1e-3)
    d = e.to_dict()
    assert d["elo_high"] is None and d["elo_pm"] is None and d["elo_low"] == pytest.approx(117.419, abs=1e-3)
    json.dumps(d, allow_nan=False)


def test_one_win_one_loss_says_nothing():
    # s = ½, σ² = ¼, SE = √(1/8) = 0.353553; ½ ± 0.692952 covers all of [0, 1]
    e = trinomial(1, 0, 1)
    assert e.elo == 0 and e.los == 0.5
    assert (e.score_low, e.score_high) == (0.0, 1.0)
    assert (e.elo_low, e.elo_high) == (-math.inf, math.inf)


def test_no_games_leaves_every_statistic_undefined():
    e = trinomial(0, 0, 0)
    assert (e.units, e.games) == (0, 0)
    assert all(e.to_dict()[k] is None for k in ("score", "score_low", "elo", "elo_low", "elo_high", "elo_pm",
                                                "los", "nelo", "draw_ratio", "sd"))


@pytest.mark.parametrize(("wins", "draws", "losses", "score", "elo"), [
    (5, 0, 0, 1.0, math.inf), (0, 0, 5, 0.0, -math.inf), (0, 5, 0, 0.5, 0.0)])
def test_identical_results_give_a_score_but_no_interval(wins, draws, losses, score, elo):
    e = trinomial(wins, draws, losses)
    assert e.score == score and e.elo == elo and e.sd == 0
    assert e.score_low is e.score_high is e.elo_low is e.elo_high is e.los is e.nelo is None
    assert e.draw_ratio == draws / 5
    json.dumps(e.to_dict(), allow_nan=False)


def test_bad_counts_are_one_line_errors():
    with pytest.raises(StatsError, match="must not be negative"):
        trinomial(1, -1, 0)
    with pytest.raises(StatsError, match="needs 5 counts"):
        pentanomial([1, 2, 3])
    with pytest.raises(StatsError, match="1, 0.5 or 0"):
        wdl_counts([1, 0.25])


wdl = st.tuples(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300))


@given(wdl)
def test_the_interval_contains_the_estimate(counts):
    e = trinomial(*counts)
    assume(e.score_low is not None)
    assert e.score_low <= e.score <= e.score_high
    assert e.elo_low <= e.elo <= e.elo_high
    assert 0 <= e.los <= 1


@given(wdl)
def test_swapping_sides_mirrors_everything(counts):
    wins, draws, losses = counts
    a, b = trinomial(wins, draws, losses), trinomial(losses, draws, wins)
    assume(a.los is not None)
    assert b.score == pytest.approx(1 - a.score)
    assert b.elo == pytest.approx(-a.elo)
    assert b.los == pytest.approx(1 - a.los)
    assert (b.elo_low, b.elo_high) == pytest.approx((-a.elo_high, -a.elo_low))


@given(wdl)
def test_los_grows_with_wins(counts):
    wins, draws, losses = counts
    before, after = trinomial(wins, draws, losses), trinomial(wins + 1, draws, losses)
    assume(before.los is not None)
    assert after.los >= before.los - 1e-12


# ---- pentanomial -----------------------------------------------------------------------------


def test_pentanomial_worked_example():
    # The same 260 games as 130 pairs: LL 5, LD 25, WL 45 + DD 5, WD 25, WW 25.
    # s = (25·¼ + 50·½ + 25·¾ + 25·1)/130 = 75/130 = 0.576923 (the same score as the games)
    # σ²_pair = Σ pᵢ(aᵢ - s)² = 0.075814; SE = √(0.075814/130) = 0.024149
    # Elo CI = [20.586, 88.187], ± 33.800; LOS 99.928 %; nElo = 0.076923/√(2·0.075814) · 347.4356 = 68.634
    # variance ratio = 0.186391/(2·0.075814) = 1.229 (table in docs/evaluation.md, "Pentanomial")
    e = pentanomial([5, 25, 50, 25, 25], wdl=(120, 60, 80))
    assert (e.model, e.units, e.games) == ("pentanomial", 130, 260)
    assert e.score == pytest.approx(0.576923, abs=1e-6)
    assert e.sd ** 2 == pytest.approx(0.075814, abs=1e-6)
    assert (e.elo_low, e.elo_high) == pytest.approx((20.586, 88.187), abs=1e-3)
    assert e.elo_pm == pytest.approx(33.800, abs=1e-3)
    assert e.los == pytest.approx(0.99928, abs=1e-5)
    assert e.nelo == pytest.approx(68.634, abs=1e-3)
    assert e.variance_ratio == pytest.approx(1.229, abs=1e-3)
    assert e.draw_ratio == pytest.approx(60 / 260)
    # the pairs narrow the interval the trinomial model gives for the same games (±37.504)
    assert e.elo_pm < trinomial(120, 60, 80).elo_pm


@pytest.mark.parametrize(("ll", "ld", "wl", "dd", "wd", "ww", "elo", "pm", "nelo", "nelo_pm"), [
    # fastchess elo_test.cpp "EloPentanomial 1..3" (fastchess lists WL and DD apart)
    (34, 54, 31, 32, 64, 75, 55.58, 27.65, 57.94, 28.28),
    (332, 433, 457, 41, 333, 334, -8.64, 10.33, -9.17, 10.96),
    (7895, 8757, 5485, 200, 568, 9999, -21.04, 2.95, -19.01, 2.65),
])
def test_pentanomial_against_fastchess_tests(ll, ld, wl, dd, wd, ww, elo, pm, nelo, nelo_pm):
    e = pentanomial([ll, ld, wl + dd, wd, ww])
    assert (e.elo, e.elo_pm, e.nelo, e.nelo_pm) == pytest.approx((elo, pm, nelo, nelo_pm), abs=0.01)
    assert e.draw_ratio is None  # pair counts alone cannot tell WL from DD


def test_pair_counts_from_game_scores():
    pairs = [(0, 0), (0, 0.5), (0.5, 0), (1, 0), (0.5, 0.5), (1, 0.5), (1, 1), (1, 1)]
    assert pentanomial_counts(pairs) == (1, 2, 2, 1, 2)
    assert wdl_counts(s for pair in pairs for s in pair) == (6, 5, 5)
    check_pairs_match_games((1, 2, 2, 1, 2), (6, 5, 5))


def test_pair_counts_accept_every_split_of_the_middle_class():
    # pairs (1, 2, 2, 1, 2) with x of the two middle pairs WL and the rest DD:
    # W = x + 1 + 2·2, D = 2 + 2·(2 - x) + 1, L = 2·1 + 2 + x
    for x, games in enumerate([(5, 7, 4), (6, 5, 5), (7, 3, 6)]):
        check_pairs_match_games((1, 2, 2, 1, 2), games)
        assert games == (x + 5, 7 - 2 * x, 4 + x)


@pytest.mark.parametrize("wdl_", [(6, 5, 4), (7, 4, 5), (8, 1, 7)])
def test_pair_counts_that_contradict_the_games_are_refused(wdl_):
    # 15 games for 8 pairs; W = 7 means x = 2 and D = 3, not 4; W = 8 would need x = 3 > 2
    with pytest.raises(StatsError, match="do not match the pair counts"):
        pentanomial([1, 2, 2, 1, 2], wdl=wdl_)


def test_all_split_pairs_give_no_interval():
    e = pentanomial([0, 0, 7, 0, 0], wdl=(7, 0, 7))
    assert e.score == 0.5 and e.elo == 0 and e.los is None and e.variance_ratio is None


# ---- pairwise results from placements --------------------------------------------------------


def test_pairwise_from_the_three_player_test_set():
    # docs/evaluation.md, "Tables of more than two": cards left, lower is better
    #   game 1: A 0, B 7, C 3  -> A beats B and C, C beats B
    #   game 2: A 5, B 2, C 0  -> C beats A and B, B beats A
    #   game 3: A 1, B 0, C 6  -> B beats A and C, A beats C
    # A-B: won g1, lost g2 and g3 (B beats A 2-1 although A leads on matchpoints);
    # A-C: won g1 and g3, lost g2; B-C: lost g1 and g2, won g3
    games = [[("A", 0), ("B", 7), ("C", 3)], [("A", 5), ("B", 2), ("C", 0)], [("A", 1), ("B", 0), ("C", 6)]]
    assert pairwise_records(games) == [PairRecord("A", "B", 1, 0, 2), PairRecord("A", "C", 2, 0, 1),
                                       PairRecord("B", "C", 1, 0, 2)]
    # seat order does not matter
    assert pairwise_records([list(reversed(g)) for g in games]) == pairwise_records(games)


def test_shared_placements_are_draws_and_absent_pairs_are_left_out():
    games = [[("X", 1), ("Y", 1), ("Z", 3)], [("X", 2), ("Y", 1)]]
    records = pairwise_records(games)
    assert records == [PairRecord("X", "Y", 0, 1, 1), PairRecord("X", "Z", 1, 0, 0), PairRecord("Y", "Z", 1, 0, 0)]
    assert records[0].estimate().draw_ratio == 0.5 and records[0].estimate().score == 0.25
    assert records[0].to_dict() == {"first": "X", "second": "Y", "wins": 0, "draws": 1, "losses": 1}


def test_an_entrant_seated_twice_is_refused():
    with pytest.raises(StatsError, match="game 1 seats the same entrant twice"):
        pairwise_records([[("A", 1), ("A", 2)]])


def test_probability_stronger_by_hand():
    # (30 - 26)/√(3² + 4²) = 4/5 = 0.8; Φ(0.8) = 0.788145 (normal table)
    assert probability_stronger(30, 3, 26, 4) == pytest.approx(0.788145, abs=1e-6)
    assert probability_stronger(26, 4, 30, 3) == pytest.approx(1 - 0.788145, abs=1e-6)
    assert probability_stronger(25, 0, 25, 0) == 0.5 and probability_stronger(26, 0, 25, 0) == 1.0


# ---- separation ------------------------------------------------------------------------------


def test_rank_ranges_by_hand():
    # A-B: 10 < 1.96·√(10² + 10²) = 27.72, not separated; A-C 100 and B-C 90 are
    ranges = rank_ranges([Rated("C", 1500, 10), Rated("B", 1590, 10), Rated("A", 1600, 10)])
    assert [(r.entrant, r.label, r.inseparable) for r in ranges] == [
        ("A", "1-2", ("B",)), ("B", "1-2", ("A",)), ("C", "3", ())]
    assert ranges[0].to_dict() == {"entrant": "A", "best": 1, "worst": 2, "label": "1-2", "inseparable": ["B"]}


def test_overlapping_intervals_can_still_be_separated():
    # 100 ± 19.6 and 70 ± 19.6 overlap on [80.4, 89.6], yet the difference 30 exceeds
    # 1.96·√(10² + 10²) = 27.72, so the two are told apart
    ranges = rank_ranges([Rated("A", 100, 10), Rated("B", 70, 10)])
    assert [r.label for r in ranges] == ["1", "2"]
    assert [r.label for r in rank_ranges([Rated("A", 100, 10), Rated("B", 75, 10)])] == ["1-2", "1-2"]


def test_rank_ranges_from_a_head_to_head_relation():
    # only A over C is significant: A may be 1st or 2nd, B anywhere, C 2nd or 3rd
    ranges = rank_ranges_from(["A", "B", "C"], lambda a, b: (a, b) == ("A", "C"))
    assert [r.label for r in ranges] == ["1-2", "1-3", "2-3"]


def test_se_from_a_printed_interval():
    assert se_from_half_width(19.599640) == pytest.approx(10, abs=1e-6)


@given(st.lists(st.tuples(st.floats(-500, 500), st.floats(0.1, 100)), min_size=1, max_size=8))
def test_rank_ranges_are_consistent(rows):
    ranges = rank_ranges([Rated(f"e{i}", v, se) for i, (v, se) in enumerate(rows)])
    n = len(rows)
    for position, r in enumerate(ranges, 1):
        assert 1 <= r.best <= position <= r.worst <= n
        assert r.worst - r.best == len(r.inseparable)  # the range is the entrant and its ties
    # separability is symmetric
    for r in ranges:
        for other in r.inseparable:
            assert r.entrant in next(o for o in ranges if o.entrant == other).inseparable


def test_los_matches_the_normal_distribution():
    # LOS for W=10 D=0 L=5: s = 2/3, σ² = (2/3)(1/3) = 2/9, SE = √(2/135) = 0.121716
    # z = (1/6)/0.121716 = 1.369306; Φ(1.369306) = 0.914548
    assert trinomial(10, 0, 5).los == pytest.approx(NormalDist().cdf(1.369306), abs=1e-6)
    assert trinomial(10, 0, 5).los == pytest.approx(0.914548, abs=1e-6)
