"""Collusion detection: the stratified tests against published values and brute force, their
error rate by simulation, the signals on hand-built games, a planted pair caught and an honest
field left alone, and ``tourney fairplay`` / the report's section on a stored event."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import random
import textwrap
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from engine.common import Decision
from tourney.app import app
from tourney.results.fairplay import Aim, GameFacts, analyse, observe, pair_tables
from tourney.stats.collusion import (
    exact_distribution,
    exact_p_value,
    holm,
    hypergeometric,
    mantel_haenszel,
    stratified_test,
)

ROOT = Path(__file__).resolve().parents[1]

# R's mantelhaen.test example (Agresti, penicillin and rabbits): five strata of
# (immediate: cured, died; delayed: cured, died).
RABBITS = [(0, 6, 0, 5), (3, 3, 0, 6), (6, 0, 2, 4), (5, 1, 6, 0), (2, 0, 5, 0)]


# --------------------------------------------------------------------------- the statistics


def test_the_rabbits_example_matches_r():
    # R: mantelhaen.test(Rabbits) gives X-squared = 3.9286, p-value = 0.04747;
    # mantelhaen.test(Rabbits, exact = TRUE, alternative = "greater") gives p-value = 0.01997
    z, p = mantel_haenszel(RABBITS, "two-sided")
    assert z * z == pytest.approx(3.9286, abs=1e-4)
    assert p == pytest.approx(0.04747, abs=1e-5)
    assert exact_p_value(RABBITS, "greater") == pytest.approx(0.01997, abs=1e-5)
    result = stratified_test(RABBITS, "greater")
    assert (result.observed, result.expected, result.method) == (14, 11.0, "exact")


def test_fishers_tea_tasting():
    # Fisher's lady tasting tea: 3 of 4 cups right; P(3 or more right) = 17/70, P(3 or fewer) = 69/70
    assert exact_p_value([(3, 1, 1, 3)], "greater") == pytest.approx(17 / 70, rel=1e-12)
    assert exact_p_value([(3, 1, 1, 3)], "less") == pytest.approx(69 / 70, rel=1e-12)
    low, pmf = hypergeometric((3, 1, 1, 3))
    assert low == 0 and pmf == pytest.approx([1 / 70, 16 / 70, 36 / 70, 16 / 70, 1 / 70])


def _brute_force_tail(tables, alternative) -> Fraction:
    """P(Σa ≤ or ≥ observed), enumerating every combination of the strata's a's with exact
    binomial coefficients (no logarithms, no pruning)."""
    supports = []
    for a, b, c, d in tables:
        n, k, total = a + b, a + c, a + b + c + d
        supports.append([(x, Fraction(math.comb(k, x) * math.comb(total - k, n - x), math.comb(total, n)))
                         for x in range(max(0, n + k - total), min(n, k) + 1)])
    observed = sum(t[0] for t in tables)
    tail = Fraction(0)
    for combo in itertools.product(*supports):
        s = sum(x for x, _ in combo)
        if (s <= observed) if alternative == "less" else (s >= observed):
            tail += math.prod((p for _, p in combo), start=Fraction(1))
    return tail


table = st.tuples(*[st.integers(0, 5)] * 4)


@given(st.lists(table, min_size=1, max_size=3), st.sampled_from(["less", "greater"]))
def test_the_exact_test_equals_brute_force_enumeration(tables, alternative):
    informative = [t for t in tables if (t[0] + t[1]) and (t[2] + t[3]) and (t[0] + t[2]) and (t[1] + t[3])]
    expected = float(_brute_force_tail(informative, alternative)) if informative else 1.0
    assert exact_p_value(tables, alternative) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_the_distribution_sums_to_one_and_tables_hold_counts():
    low, pmf = exact_distribution(RABBITS)
    assert sum(pmf) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        stratified_test([(1, -1, 0, 2)], "less")
    with pytest.raises(ValueError):
        stratified_test(RABBITS, "two-sided")


def test_mantel_haenszel_takes_over_for_large_tables_and_agrees_with_the_exact_test():
    big = [(300, 700, 310, 690), (120, 380, 160, 340), (400, 100, 390, 110)]
    result = stratified_test(big, "less")
    assert result.method == "mantel-haenszel"
    assert result.p_value == pytest.approx(exact_p_value(big, "less"), rel=0.1)
    assert stratified_test([(0, 5, 0, 7)], "less").method == "none"


def test_holm_by_hand():
    # sorted 0.01, 0.02, 0.03, 0.04, 0.05 times 5, 4, 3, 2, 1 = 0.05, 0.08, 0.09, 0.08, 0.05,
    # made non-decreasing: 0.05, 0.08, 0.09, 0.09, 0.09
    assert holm([0.03, 0.01, 0.05, 0.02, 0.04]) == pytest.approx([0.09, 0.05, 0.09, 0.08, 0.09])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


def test_the_false_rejection_rate_under_the_null_stays_below_alpha_by_simulation():
    """Honest units: in every stratum partner and other units are hit with the same chance."""
    rng = random.Random(7)
    runs, rejected = 400, 0
    for _ in range(runs):
        tables = []
        for _stratum in range(4):
            chance, n_partner, n_other = rng.choice([0.2, 0.5, 0.7]), rng.randint(2, 15), rng.randint(5, 40)
            a = sum(rng.random() < chance for _ in range(n_partner))
            c = sum(rng.random() < chance for _ in range(n_other))
            tables.append((a, n_partner - a, c, n_other - c))
        rejected += stratified_test(tables, "less").p_value < 0.05
    # a conditional exact test is conservative: at most 5% (+ 2.5 binomial standard errors)
    assert rejected / runs <= 0.05 + 2.5 * math.sqrt(0.05 * 0.95 / runs)


# --------------------------------------------------------------------------- the signals


def _step(player, kind, options, source, hands, alive=None):
    game = SimpleNamespace(pending=Decision(player, kind, options, "", source),
                           hands=hands, alive=alive or [True] * len(hands))
    return game


def test_observe_keeps_aimed_choices_between_opponents_only():
    hands = [[1] * 3, [1] * 5, [1] * 2, [1] * 2]
    steps = [
        (_step(0, "player", ["player:1", "player:2", "player:3", "player:0"], "Visionary Dream", hands), "player:2"),
        (_step(0, "players", ["player:1", "player:2", "player:3", "done"], "Worldly Wisdom", hands), "done"),
        (_step(1, "player", ["player:0", "player:2"], "Trade", hands), "player:2"),
        (_step(1, "player", ["player:1", "player:2"], "Tempest", hands), "player:1"),  # not hostile
        (_step(2, "player", ["player:0", "player:1", "player:3"], "Sleep", hands, [True, False, True, False]),
         "player:0"),  # seats 1 and 3 are out: one opponent left, nothing to compare
        (_step(3, "player", ["player:0", "player:1", "player:2"], "Sleep", hands), "forfeit:3:timeout"),
    ]
    aims = observe(steps)
    assert aims == [
        Aim(0, "hostile", "Visionary Dream", ((1, 5), (2, 2), (3, 2)), 2, 4),
        Aim(0, "hostile", "Worldly Wisdom", ((1, 5), (2, 2), (3, 2)), None, 4),
        Aim(1, "trade", "Trade", ((0, 3), (2, 2)), 2, 4),
    ]
    # teammates are not opponents
    teamed = observe(steps[:1], teams=[[0, 2], [1, 3]])
    assert teamed == [Aim(0, "hostile", "Visionary Dream", ((1, 5), (3, 2)), None, 4)]
    # series points before the game go with each candidate
    scored = observe(steps[:1], scores=[10, 4, 7, 4])
    assert scored == [Aim(0, "hostile", "Visionary Dream", ((1, 5), (2, 2), (3, 2)), 2, 4, (4, 7, 4))]


def test_observe_aims_card_destruction_and_taking_at_the_card_s_controller():
    hands = [[1] * 3, [1] * 5, [1] * 2, [1] * 2]
    in_play = [[40], [41, 42], [], [43]]

    def step(kind, options, source):
        game = _step(0, kind, options, source, hands)
        game.in_play = in_play
        return game

    aims = observe([
        (step("destroy", ["card:40", "card:41", "card:42", "card:43"], "Devious Dragon"), "card:43"),
        (step("card", ["card:41", "card:43"], "Bewitch"), "card:41"),
        (step("destroy", ["card:41", "card:42"], "Allosaurus"), "card:42"),  # one opponent: no choice
        (step("destroy", ["card:40", "card:41"], "Death"), "card:40"),  # one opponent besides itself
        (step("player", ["player:1", "player:2", "player:3"], "Mirror Universe"), "player:1"),  # untested
        (step("player", ["player:0", "player:1", "player:2", "player:3"], "Hurricane"), "player:3"),
    ])
    assert aims == [
        Aim(0, "hostile", "Devious Dragon", ((1, 5), (3, 2)), 3, 4),
        Aim(0, "hostile", "Bewitch", ((1, 5), (3, 2)), 1, 4),
        Aim(0, "hostile", "Hurricane", ((1, 5), (2, 2), (3, 2)), 3, 4),
    ]


def test_a_target_s_standing_counts_fewer_tied_tied_ahead_place_seat_and_score():
    aim = Aim(0, "hostile", "Sleep", ((1, 5), (2, 2), (3, 2)), 2, 4)
    # (card, candidates, fewer cards, as many, as many ahead, place offered, seat after the actor)
    assert aim.standing(1) == ("Sleep", 3, 2, 0, 0, 0, 1)
    assert aim.standing(2) == ("Sleep", 3, 0, 1, 0, 1, 2)
    assert aim.standing(3) == ("Sleep", 3, 0, 1, 1, 2, 3)
    # the actor in seat 2 of five, the candidates offered from seat 4 on; series points 9, 3, 3
    aim = Aim(2, "hostile", "Sleep", ((4, 6), (0, 6), (1, 2)), 0, 5, (9, 3, 3))
    assert aim.standing(4) == ("Sleep", 3, 1, 1, 0, 0, 2, 2, 0)
    assert aim.standing(0) == ("Sleep", 3, 1, 1, 1, 1, 3, 0, 1)
    assert aim.standing(1) == ("Sleep", 3, 0, 0, 0, 2, 4, 0, 1)


def test_pair_tables_by_hand():
    # X (seat 0) and Y (seat 1) at a table of four with O and P; X aims twice, sparing Y
    aims = [Aim(0, "hostile", "Sleep", ((1, 2), (2, 2)), 2), Aim(0, "hostile", "Sleep", ((1, 2), (2, 2)), 2)]
    together = GameFacts(("X", "Y", "O", "P"), (1, 2, 3, 4), aims)
    apart = GameFacts(("X", "O", "P", "Q"), (3, 1, 2, 4))
    tables = pair_tables([together, apart], "X", "Y")
    # the first aim gives its partner unit (Y at standing ("Sleep", 2, 0, 1, 0), missed), the
    # second its other units (O at ("Sleep", 2, 0, 1, 1), hit)
    assert sorted(tables["soft_play"]) == [(0, 0, 1, 0), (0, 1, 0, 0)]
    assert tables["trades"] == []
    # placements are against the next seat only: X's is Y (no unit) with Y, O (lost) without;
    # Y's is O (won, with X at the table)
    assert sorted(tables["placements"]) == [(0, 0, 0, 1), (1, 0, 0, 0)]


def test_an_honest_chooser_is_flagged_at_most_alpha_of_the_time_by_simulation():
    """One pick among three opponents, by hand size only, never by who they are: the units of one
    choice are tied together (one hit at most), which the alternation must keep from the test."""
    rng = random.Random(3)
    runs, rejected = 300, 0
    for _ in range(runs):
        aims = []
        for _choice in range(rng.choice([40, 120])):
            sizes = [rng.randint(1, 5) for _ in range(3)]
            chosen = rng.choices([1, 2, 3], weights=[1 / n for n in sizes])[0]
            aims.append(Aim(0, "hostile", "Sleep", tuple(zip([1, 2, 3], sizes)), chosen))
        game = GameFacts(("X", "Y", "O", "P"), (1, 2, 3, 4), aims)
        rejected += stratified_test(pair_tables([game], "X", "Y")["soft_play"], "less").p_value < 0.05
    assert rejected / runs <= 0.05 + 2.5 * math.sqrt(0.05 * 0.95 / runs)


def test_honest_and_deterministic_aim_by_standing_is_no_evidence():
    """A bot that always hits the opponent with fewest cards gives strata that cannot tell."""
    games = []
    for g in range(40):
        names = ("X", "Y", "O") if g % 2 else ("X", "O", "Y")
        sizes = [(1, 3 + g % 3), (2, 4)]
        chosen = min(sizes, key=lambda s: (s[1], s[0]))[0]
        games.append(GameFacts(names, (1, 2, 3), [Aim(0, "hostile", "Sleep", tuple(sizes), chosen)]))
    soft = analyse(games)["pairs"]
    assert all(p["signals"]["soft_play"]["method"] == "none" for p in soft)


def test_an_honest_partner_s_style_shows_in_placements_but_flags_no_pair():
    """The placement rows differ by the partner's identity, so an honest partner whose play changes
    the table (here X beats O 45 times in 60 with Y in, 30 in 60 without: Y might be a weak random
    bot) is significant, and was flagged before; placements are now reported, never flagging."""
    won, lost = (1, 2, 3, 4), (2, 1, 3, 4)
    games = [GameFacts(("X", "O", "Y", "Q"), won if g < 45 else lost) for g in range(60)]
    games += [GameFacts(("X", "O", "Q", "R"), won if g < 30 else lost) for g in range(60)]
    data = analyse(games)
    pair = next(p for p in data["pairs"] if p["entrants"] == ["X", "Y"])
    placements = pair["signals"]["placements"]
    assert (placements["observed"], placements["partner_units"], placements["other_units"]) == (45, 60, 60)
    assert placements["expected"] == 37.5  # 60 of the 120 units, 75 wins
    assert placements["p_adjusted"] < 0.05
    assert pair["flagged"] == [] and data["flagged"] == [] and data["tests"] == 0


def test_the_placement_opponent_is_always_the_next_seat():
    """Before, the unit was the next seat that is not the partner, so the partner sitting after X
    moved X's opponent one seat further on (a different seat relation with and without it). X's
    results against the seat after next are lopsided here, against the next seat even; X gets no
    unit when Y sits next, so only like seat relations are compared."""
    won, lost = (1, 2, 3, 4), (2, 3, 1, 4)  # lost: O (seat 2) ahead of X
    together = [GameFacts(("X", "Y", "O", "Q"), won if g < 50 else lost) for g in range(60)]
    apart = [GameFacts(("X", "O", "Q", "R"), (1, 2, 3, 4) if g < 30 else (2, 1, 3, 4)) for g in range(60)]
    tables = pair_tables(together + apart, "X", "Y")["placements"]
    assert sorted(tables) == [(0, 0, 30, 30), (50, 10, 0, 0)]  # (X, O) without Y; (Y, O) with X
    # the old unit put X against O two seats on with Y in (50 of 60 won) beside one seat on
    # without (30 of 60): a seat effect read as feeding
    assert stratified_test([(50, 10, 30, 30)], "greater").p_value < 0.001
    placements = analyse(together + apart)["pairs"]
    pair = next(p for p in placements if p["entrants"] == ["X", "Y"])
    assert pair["signals"]["placements"]["method"] == "none"


# --------------------------------------------------------------------------- planted and honest


def _bench():
    spec = importlib.util.spec_from_file_location("bench_collusion", ROOT / "bench" / "collusion.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_planted_pair_is_flagged_and_an_honest_field_is_not():
    bench = _bench()
    planted = analyse(bench.play_event(120, 3, planted=True))
    assert planted["flagged"] == [sorted(bench.PLANTED)]
    pair = planted["pairs"][0]
    assert pair["entrants"] == sorted(bench.PLANTED) and "soft_play" in pair["flagged"]
    assert pair["signals"]["soft_play"]["observed"] == 0  # they never aim at each other
    honest = analyse(bench.play_event(120, 3, planted=False))
    assert honest["flagged"] == []


# --------------------------------------------------------------------------- the command


ENTRANTS = "".join(f'\n[[entrants]]\nname = "{n}"\nbuiltin = "{b}"\n'
                   for n, b in [("g1", "greedy"), ("g2", "greedy"), ("r1", "random"), ("r2", "random"),
                                ("g3", "greedy")])


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fairplay")
    db = str(tmp / "t.db")
    config = tmp / "rr.toml"
    config.write_text(textwrap.dedent("""\
        [event]
        name = "tables"
        format = "round-robin"
        rule_set = "crazier-eights"
        seed = 11
        players = 4
        games = 4
        public_seeds = true
        """) + ENTRANTS)
    two = tmp / "two.toml"
    two.write_text('[event]\nname = "twos"\nformat = "round-robin"\nseed = 1\ngames = 1\n' + ENTRANTS)
    runner = CliRunner()
    for path in (two, config):
        result = runner.invoke(app, ["run", str(path), "-q", "--db", db])
        assert result.exit_code == 0, result.output
    return runner, db


def test_fairplay_json_validates_and_counts_every_pair(stored):
    runner, db = stored
    result = runner.invoke(app, ["fairplay", "tables", "--json", "--db", db])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    schema = json.loads((ROOT / "docs" / "schemas" / "fairplay.schema.json").read_text())
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(data)) == []
    assert data["event"] == "tables" and data["games"] == 20 and data["correction"] == "holm"
    assert len(data["pairs"]) == 10  # five entrants, every pair shares a table
    # each pair sits together at 3 of the 5 tables of four games each
    assert {p["games_together"] for p in data["pairs"]} == {12}
    from tourney.results import fairplay, store
    from tourney.results.standings import find_event

    store_db = store.open_db(db)
    games = list(fairplay.event_games(store_db, find_event(store_db, "tables")["id"]))
    assert sum(len(g.aims) for g in games) > 0  # the replays found aimed choices
    # (20 games are too few for a stratum to hold the partner and another opponent: no unit counts)
    assert all(p["signals"]["soft_play"]["method"] in ("none", "exact") for p in data["pairs"])
    # "tests" counts the family that flags: the choice tests (placements are adjusted apart)
    assert data["tests"] == sum(p["signals"][s]["p_adjusted"] is not None
                                for p in data["pairs"] for s in ("soft_play", "trades"))
    assert all(set(p["flagged"]) <= {"soft_play", "trades"} for p in data["pairs"])


def test_fairplay_table_and_errors(stored):
    runner, db = stored
    result = runner.invoke(app, ["fairplay", "--db", db])  # the latest event run from a config
    assert result.exit_code == 0, result.output
    assert "Fair play: tables" in result.stdout and "lower p is more suspicious" in result.stdout
    missing = runner.invoke(app, ["fairplay", "nope", "--db", db])
    assert missing.exit_code == 2 and "no event named 'nope'" in missing.stderr
    bad = runner.invoke(app, ["fairplay", "tables", "--alpha", "1.5", "--db", db])
    assert bad.exit_code == 2 and "alpha" in bad.stderr


def test_the_report_has_a_fair_play_section_for_tables_of_three_or_more(stored):
    runner, db = stored
    table = runner.invoke(app, ["report", "tables", "--db", db])
    assert table.exit_code == 0 and "Fair play: 10 pairs" in table.stdout
    data = json.loads(runner.invoke(app, ["report", "tables", "-f", "json", "--db", db]).stdout)
    assert data["fairplay"]["kind"] == "fairplay" and len(data["fairplay"]["pairs"]) == 10
    twos = json.loads(runner.invoke(app, ["report", "twos", "-f", "json", "--db", db]).stdout)
    assert twos["fairplay"] is None
    assert "Fair play" not in runner.invoke(app, ["report", "twos", "--db", db]).stdout


def test_the_report_leaves_a_large_event_to_tourney_fairplay(stored, monkeypatch):
    from tourney.results import fairplay

    runner, db = stored
    monkeypatch.setattr(fairplay, "REPORT_GAME_LIMIT", 10)
    table = runner.invoke(app, ["report", "tables", "--db", db])
    assert table.exit_code == 0
    assert "Fair play: not checked here (20 games: more than the report replays (10); " \
           "run tourney fairplay tables)." in table.stdout


def test_mantel_haenszel_one_sided_tails_point_the_right_way():
    # Σa = 14 against 11 expected: z = (3 - ½)/√Var, whose square is R's chi-square 3.9286
    z, greater = mantel_haenszel(RABBITS, "greater")
    _, less = mantel_haenszel(RABBITS, "less")
    assert z == pytest.approx(math.sqrt(3.9286), rel=1e-4)
    assert greater == pytest.approx(0.04747 / 2, abs=1e-5) and less == pytest.approx(1 - 0.04747 / 2, abs=1e-5)
    far = [(90, 10, 10, 90)]
    assert mantel_haenszel(far, "less")[1] > 0.999999 and mantel_haenszel(far, "greater")[1] < 1e-12


# --------------------------------------------------------------------------- honest aims by position


def test_aiming_at_the_next_seat_is_no_evidence_and_sparing_the_partner_still_is():
    """The issue's case: X always aims at the next seat. With fixed seats (X, O, P, Y round the
    table) Y, seated before X, is never hit, which the old strata read as X sparing Y. Now the
    relative seat is a stratum: at fixed seats Y and O stand in different strata and nothing can be
    told; where the order varies, the next-seat aim is no evidence, while an X that aims at the
    next seat unless it is Y is flagged."""
    orders = [("X", "O", "P", "Y"), ("X", "Y", "O", "P"), ("X", "P", "Y", "O")]

    def games(varied, spares):
        out = []
        for g in range(90):
            names = orders[g % 3] if varied else orders[0]
            sizes = ((1, 3 + g % 3), (2, 4), (3, 2 + g % 4))
            target = 2 if spares and names[1] == "Y" else 1
            out.append(GameFacts(names, (1, 2, 3, 4), [Aim(0, "hostile", "Sleep", sizes, target, 4)]))
        return out

    fixed = analyse(games(varied=False, spares=False))
    assert fixed["flagged"] == []
    pair = next(p for p in fixed["pairs"] if p["entrants"] == ["X", "Y"])
    assert pair["signals"]["soft_play"]["method"] == "none"
    assert analyse(games(varied=True, spares=False))["flagged"] == []
    assert analyse(games(varied=True, spares=True))["flagged"] == [["X", "Y"]]


@pytest.mark.parametrize("seed", [5, 6])
def test_honest_bots_aiming_by_seat_score_hand_or_at_random_are_not_flagged(seed):
    """The bench's honest event: next-seat, series-leader, random and fewest-cards (greedy) aims at
    balanced tables. bench/seating.py measures the rate over many events (fairplay_false_alarm)."""
    bench = _bench()
    games = bench.play_event(96, seed, planted=False)
    aims = [a for g in games for a in g.aims]
    assert {a.source for a in aims} & {"Devious Dragon", "Death", "Bewitch"}  # card choices are seen
    assert any(a.scores for a in aims)  # series scores are seen
    assert analyse(games)["flagged"] == []


def test_a_vanishing_p_value_reads_below_the_floor_in_text_and_json():
    """X never aims at Y in 400 choices where Y is one of two like targets: p is about 2^-200."""
    games = [GameFacts(("X", "Y", "O"), (1, 2, 3), [Aim(0, "hostile", "Sleep", ((1, 3), (2, 3)), 2, 3)])
             for _ in range(400)]
    games += [GameFacts(("X", "O", "Y"), (1, 2, 3), [Aim(0, "hostile", "Sleep", ((1, 3), (2, 3)), 1, 3)])
              for _ in range(400)]
    data = analyse(games)
    pair = data["pairs"][0]
    assert pair["entrants"] == ["X", "Y"] and data["flagged"] == [["X", "Y"]]
    soft = pair["signals"]["soft_play"]
    assert soft["p_value"] == "< 1e-16" and soft["p_adjusted"] == "< 1e-16" and pair["p_min"] == "< 1e-16"
    schema = json.loads((ROOT / "docs" / "schemas" / "fairplay.schema.json").read_text())
    doc = {"version": 1, "kind": "fairplay", "event": "e", "rule_set": "crazier-eights", "players": 3, **data}
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(json.loads(json.dumps(doc)))) == []
    from tourney.results.fairplay import render_table

    text = render_table(doc)
    assert "< 1e-16 (0 vs " in text and "soft_play p=< 1e-16" in text and " 0 (" not in text


def test_an_event_of_tables_of_two_gets_a_notice_and_no_pairs(stored):
    runner, db = stored
    result = runner.invoke(app, ["fairplay", "twos", "--db", db])
    assert result.exit_code == 0
    assert result.stdout.startswith("Fair play: twos: no game of this event seated three or more players")
    assert " + " not in result.stdout  # no pair listed
    data = json.loads(runner.invoke(app, ["fairplay", "twos", "--json", "--db", db]).stdout)
    assert data["pairs"] == [] and data["flagged"] == [] and "three or more" in data["notice"]
