"""The standings' rating (tourney.results.rating_fit): the fit checked against values worked out
independently (by hand, or by maximising the likelihood written out from its definition), the
duplicate sets' dispersion by hand, and every official rank inside its own 95% range."""

import math
import os

import numpy as np
import pytest
from helpers import build_event, g
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.report import render_table
from tourney.results import rating_fit
from tourney.results.standings import event_standings
from tourney.results.store import open_db
from tourney.stats.mle import ELO_PER_UNIT, PRIOR, Games, fit

LAMBDA = PRIOR


@pytest.fixture
def db(tmp_path):
    return open_db(str(tmp_path / "t.db"))


def bisect(f, lo, hi):
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(lo) * f(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def two_player_event(db, a_wins, b_wins):
    a_won = ("single", ["A", "B"], [g([0], [0, 3], [1, 2])], ("win", "A"))
    b_won = ("single", ["A", "B"], [g([1], [3, 0], [2, 1])], ("win", "B"))
    return build_event(db, "bt", "single", ["A", "B"], [a_won] * a_wins + [b_won] * b_wins)


def by_hand(wins, games):
    """Bradley-Terry with the prior λ for two players, worked by hand. By symmetry the fit is
    θ_A = -θ_B = t, where the gradient for A vanishes: wins - games·σ(2t) - λt = 0. The
    information along d = (1, -1) is 2·games·p(1-p) + λ, so var(θ_A - θ_B) = 2 / that, and A's
    rating against the field's mean, (θ_A - θ_B)/2, has a quarter of it."""
    t = bisect(lambda t: wins - games * sigmoid(2 * t) - LAMBDA * t, -20, 20)
    p = sigmoid(2 * t)
    se = math.sqrt(2 / (2 * games * p * (1 - p) + LAMBDA)) / 2
    return t * ELO_PER_UNIT, 1.959963984540054 * se * ELO_PER_UNIT


def test_bradley_terry_three_wins_to_one_matches_the_hand_calculation(db):
    rows = {r["entrant"]: r for r in event_standings(db, two_player_event(db, 3, 1))["standings"]}
    rating, pm = by_hand(3, 4)
    assert rows["A"]["fit"]["rating"] == pytest.approx(rating, abs=0.06)
    assert rows["A"]["fit"]["rating_pm"] == pytest.approx(pm, abs=0.06)
    assert rows["B"]["fit"]["rating"] == pytest.approx(-rating, abs=0.06)
    # without the prior this would be ln 3 apart (about 191 Elo); the prior pulls in only a little
    assert 2 * rating == pytest.approx(math.log(3) * ELO_PER_UNIT, rel=0.05)
    assert rows["A"]["rank_range"] == "1-2" and rows["B"]["rank_range"] == "1-2"


def test_an_undefeated_entrant_gets_a_finite_rating_with_its_interval(db):
    data = event_standings(db, two_player_event(db, 6, 0))
    rows = {r["entrant"]: r for r in data["standings"]}
    rating, pm = by_hand(6, 6)
    assert math.isfinite(rows["A"]["fit"]["rating"]) and rows["A"]["fit"]["rating"] == pytest.approx(rating, abs=0.06)
    assert rows["A"]["fit"]["rating_pm"] == pytest.approx(pm, abs=0.06)
    assert rows["A"]["fit"]["rating_low"] < rows["A"]["fit"]["rating"] < rows["A"]["fit"]["rating_high"]
    assert data["rating_model"]["model"] == "bradley-terry" and data["rating_model"]["prior"] == LAMBDA


def test_a_reference_entrant_measures_every_rating_from_it(db):
    ev = two_player_event(db, 3, 1)
    rows = {r["entrant"]: r for r in event_standings(db, ev, reference="B")["standings"]}
    rating, _ = by_hand(3, 4)
    assert rows["B"]["fit"]["rating"] == 0 and rows["A"]["fit"]["rating"] == pytest.approx(2 * rating, abs=0.1)


def pl_objective(theta, games):
    """The Plackett-Luce log-likelihood written out from its definition, with the normal prior:
    each game's placements as choices, best first, each from those not yet placed."""
    total = 0.0
    for seats in games:
        left = sorted(seats, key=lambda s: s[1])
        while len(left) > 1:
            chosen = left[0][0]
            total += theta[chosen] - math.log(sum(math.exp(theta[i]) for i, _ in left))
            left = left[1:]
    return total - LAMBDA / 2 * float(theta @ theta)


def test_plackett_luce_matches_a_direct_maximisation_of_its_likelihood(db):
    orders = [("A", "B", "C"), ("A", "C", "B"), ("B", "A", "C"), ("A", "B", "C"), ("C", "A", "B"),
              ("B", "C", "A"), ("A", "B", "C")]
    series = []
    for order in orders:
        table = ["A", "B", "C"]
        placements = [order.index(n) + 1 for n in table]
        points = [3 * (p - 1) for p in placements]
        series.append(("single", table, [g([placements.index(1)], points, placements)], ("win", order[0])))
    ev = build_event(db, "pl", "single", ["A", "B", "C"], series)
    data = event_standings(db, ev)
    assert data["rating_model"]["model"] == "plackett-luce"
    rows = {r["entrant"]: r for r in data["standings"]}
    games = [[(i, order.index(n) + 1) for i, n in enumerate("ABC")] for order in orders]
    # gradient ascent with numerical derivatives: nothing of tourney.stats.mle
    theta = np.zeros(3)
    h = 1e-5
    for _ in range(4000):
        grad = np.array([(pl_objective(theta + h * e, games) - pl_objective(theta - h * e, games)) / (2 * h)
                         for e in np.eye(3)])
        theta = theta + 0.5 * grad
    h = 1e-4
    hess = np.array([[(pl_objective(theta + h * (a + b), games) - pl_objective(theta + h * (a - b), games)
                       - pl_objective(theta - h * (a - b), games) + pl_objective(theta - h * (a + b), games))
                      / (4 * h * h) for b in np.eye(3)] for a in np.eye(3)])
    cov = np.linalg.inv(-hess)
    centre = np.eye(3) - np.full((3, 3), 1 / 3)
    centred, ccov = centre @ theta, centre @ cov @ centre.T
    for i, name in enumerate("ABC"):
        assert rows[name]["fit"]["rating"] == pytest.approx(centred[i] * ELO_PER_UNIT, abs=0.2)
        assert rows[name]["fit"]["se"] == pytest.approx(math.sqrt(ccov[i, i]), rel=0.01)


def fitted(n, games):
    kept = Games()
    for game in games:
        kept.add(game)
    return fit(n, kept)


def test_dispersion_of_sets_that_always_split_by_hand():
    # four sets, each split one game apiece: equal ratings (p = ½), every set's score 2s - 2p = 0,
    # so the sets' own dispersion is 0, shrunk with 4 sets at 1: (4·0 + 4) / (4 + 4) = ½
    sets = [[[(0, 1), (1, 2)], [(0, 2), (1, 1)]] for _ in range(4)]
    result = fitted(2, [game for s in sets for game in s])
    assert rating_fit.dispersion(result, sets) == pytest.approx(0.5)
    assert rating_fit.pair_dispersion(result, {(0, 1): [0, 0, 4, 0, 0]}) == pytest.approx(0.5)


def test_dispersion_of_sets_won_outright_by_hand():
    # two sets won 2-0 by each side: p = ½, each set's score ±1 (squared: 1), its information
    # 2·¼ = ½: raw dispersion 4 / (4·½) = 2, shrunk: (4·2 + 4) / 8 = 1.5
    sets = [[[(0, 1), (1, 2)], [(0, 1), (1, 2)]]] * 2 + [[[(0, 2), (1, 1)], [(0, 2), (1, 1)]]] * 2
    result = fitted(2, [game for s in sets for game in s])
    assert rating_fit.dispersion(result, sets) == pytest.approx(1.5)
    assert rating_fit.pair_dispersion(result, {(0, 1): [2, 0, 0, 0, 2]}) == pytest.approx(1.5)


@given(st.data())
def test_every_official_rank_lies_in_its_range_whatever_the_games(data):
    n = data.draw(st.integers(2, 6))
    k = data.draw(st.integers(2, min(4, n)))
    games = Games(width=k)
    for _ in range(data.draw(st.integers(0, 40))):
        table = data.draw(st.permutations(range(n)))[:k]
        places = data.draw(st.lists(st.integers(1, k), min_size=k, max_size=k))
        games.add(list(zip(table, places)))
    names = [f"e{i}" for i in range(n)]
    official = data.draw(st.lists(st.integers(1, n), min_size=n, max_size=n))
    ranks = {name: 1 + sum(o < official[i] for o in official) for i, name in enumerate(names)}
    out = rating_fit.rate(names, games, ranks)
    for name in names:
        best, _, worst = out["rank_range"][name].partition("-")
        assert int(best) <= ranks[name] <= int(worst or best)


# -- every format: the official rank inside its range; the gauntlet ranks by shares -----------

def entrants(*names):
    return "".join(f'\n[[entrants]]\nname = "{n}"\nbuiltin = "{n.rstrip("2")}"\n' for n in names)

FORMATS = {
    "single": 'format = "single"\nplayers = 4',
    "match": 'format = "match"\ngames = 3',
    "league": 'format = "league"\nplayers = 4\ngames = 3',
    "round-robin-2": 'format = "round-robin"\ngames = 1',
    "round-robin-4": 'format = "round-robin"\nplayers = 4\ngames = 2\nrounds = 2',
    "gauntlet": 'format = "gauntlet"\ncandidates = ["greedy"]\ngames = 3\nrounds = 2',
    "gauntlet-duplicate": 'format = "gauntlet"\ncandidates = ["random"]\ngames = 1\nduplicate = true\nunit = "single"',
    "round-robin-4-duplicate": 'format = "round-robin"\nplayers = 4\nunit = "league"\ngames = 4\nduplicate = true',
    "swiss": 'format = "swiss"\nrounds = 2\ngames = 1',
    "knockout": 'format = "knockout"\ngames = 1',
    "sprt": 'format = "sprt"\nmax_games = 16\nduplicate = true\nentrants = ["greedy", "random"]',
}


@pytest.mark.parametrize("name", list(FORMATS))
def test_in_every_format_the_rank_lies_within_its_range(tmp_path, name):
    who = ("greedy", "random") if name in ("match", "sprt") else ("greedy", "random", "greedy2", "random2")
    config = tmp_path / "e.toml"
    config.write_text(f'[event]\nname = "{name}"\nrule_set = "crazier-eights"\nseed = 3\n{FORMATS[name]}\n'
                      + entrants(*who))
    db = str(tmp_path / "r.db")
    result = CliRunner().invoke(app, ["run", str(config), "--db", db])
    assert result.exit_code == 0, result.output
    store = open_db(db)
    data = event_standings(store, next(store["events"].rows_where("name = ?", [name])))
    assert data["standings"]
    for r in data["standings"]:
        best, _, worst = r["rank_range"].partition("-")
        assert int(best) <= r["rank"] <= int(worst or best), (name, r["entrant"], r["rank"], r["rank_range"])
        assert r["fit"] is None or math.isfinite(r["fit"]["rating"])
    assert data["rating_model"]["unit"] == ("duplicate set" if "duplicate" in FORMATS[name] else "game")
    # the default table fits a 100-column terminal, and says nothing is infinite
    table = render_table(data)
    assert max(len(line) for line in table.splitlines()) <= 100 and "inf" not in table


def gauntlet_series(candidate_vs):
    """A gauntlet of wily (the candidate) against random and greedy, two best-of-3 series each:
    ``candidate_vs`` maps each pool member to wily's results (True: wily won the series 2-0)."""
    out = []
    for member, results in candidate_vs.items():
        for won in results:
            games = [g([0], [0, 3], [1, 2])] * 2 if won else [g([1], [3, 0], [2, 1])] * 2
            out.append(("match", ["wily", member], games, ("win", "wily" if won else member)))
    return out


@pytest.mark.parametrize("random_results", [(True, True), (True, False), (False, False)])
def test_a_gauntlet_puts_a_pool_member_that_beat_the_candidate_above_it(db, random_results):
    # the case: wily beats random twice (series 2-0-2 over four series) and loses both
    # series to greedy (2-0-0 over two): counting series won put wily first
    ev = build_event(db, "wg", "gauntlet", ["wily", "random", "greedy"],
                     gauntlet_series({"random": random_results, "greedy": (False, False)}))
    data = event_standings(db, ev)
    rows = {r["entrant"]: r for r in data["standings"]}
    assert data["ranking"] == "share"
    assert rows["greedy"]["rank"] < rows["wily"]["rank"]
    assert rows["greedy"]["series_score"] == 1.0
    assert rows["wily"]["series_score"] == sum(random_results) / 4


def test_the_tutorial_gauntlet_ranks_greedy_above_wily_when_greedy_won_their_series(tmp_path):
    folder = tmp_path / "bots"
    folder.mkdir()
    runner = CliRunner()
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        assert runner.invoke(app, ["new-bot", "wily", "--lang", "python"]).exit_code == 0
    finally:
        os.chdir(cwd)
    toml = (folder / "wily" / "gauntlet.toml").read_text()
    db = str(tmp_path / "g.db")
    for seed in (1, 2, 3):
        name = f"wily-{seed}"
        text = toml.replace("seed = 1", f"seed = {seed}").replace('"wily-gauntlet"', f'"{name}"')
        config = folder / "wily" / f"g{seed}.toml"
        config.write_text(text)
        result = runner.invoke(app, ["run", str(config), "--db", db])
        assert result.exit_code == 0, result.output
        store = open_db(db)
        event = next(store["events"].rows_where("name = ?", [name]))
        data = event_standings(store, event)
        rows = {r["entrant"]: r for r in data["standings"]}
        greedy_won = list(store.query(
            "SELECT e.name AS winner FROM series s JOIN entrants e ON e.id = s.winner_id "
            "JOIN series_entrants se ON se.series_id = s.id JOIN entrants p ON p.id = se.entrant_id "
            "WHERE s.event_id = ? AND p.name = 'greedy'", [event["id"]]))
        if greedy_won and all(s["winner"] == "greedy" for s in greedy_won):
            assert rows["greedy"]["rank"] < rows["wily"]["rank"], (seed, data["standings"])
        for r in data["standings"]:
            best, _, worst = r["rank_range"].partition("-")
            assert int(best) <= r["rank"] <= int(worst or best)


def test_rank_range_pairs_are_sorted_by_the_official_order_not_the_fit():
    # A placed above B in every game, but the official order (points, say) puts B first: the fit
    # separates them the other way, so neither is told apart and both ranges span 1-2
    games = Games()
    for _ in range(30):
        games.add([(0, 1), (1, 2)])
    out = rating_fit.rate(["A", "B"], games, {"A": 2, "B": 1})
    assert out["rank_range"] == {"A": "1-2", "B": "1-2"}
    out = rating_fit.rate(["A", "B"], games, {"A": 1, "B": 2})
    assert out["rank_range"] == {"A": "1", "B": "2"}

