"""Elo against the field or a reference, head-to-head records and rank ranges, checked against
numbers worked out by hand from the closed-form formulas (docs/evaluation.md)."""

import math

import pytest

from tourney.errors import UserError
from tourney.results.comparisons import comparisons, field_scores

Z = 1.959964


def elo(score):
    return -400 * math.log10(1 / score - 1)


def two_player(a_wins, b_wins, draws=0):
    games = [[("A", 1), ("B", 2)]] * a_wins + [[("A", 2), ("B", 1)]] * b_wins + [[("A", 1), ("B", 1)]] * draws
    return comparisons(["A", "B"], games)


def test_field_elo_of_three_wins_and_a_loss():
    # A's game scores 1, 1, 1, 0: mean 3/4, variance 3/4·1/4 = 3/16, SE = √(3/16 / 4) = 0.21651
    got = two_player(3, 1)["elo"]["A"]
    se = math.sqrt(3 / 16 / 4)
    assert got["score"] == pytest.approx(0.75)
    assert got["elo"] == pytest.approx(400 * math.log10(3), abs=1e-3)  # 190.849
    assert got["elo_low"] == pytest.approx(elo(0.75 - Z * se), abs=1e-3)  # score 0.32565 -> -127.1
    assert got["elo_high"] is None  # 0.75 + 0.42435 is past 1: the upper bound is +inf
    assert got["los"] == pytest.approx(0.5 * (1 + math.erf((0.25 / se) / math.sqrt(2))), abs=1e-4)  # 0.8759
    assert got["games"] == 4


def test_a_draw_scores_half_and_the_sides_mirror():
    # A: 1, 0, ½, ½ -> mean ½, Elo 0; B is A's mirror
    got = two_player(1, 1, draws=2)
    assert got["elo"]["A"]["score"] == pytest.approx(0.5) and got["elo"]["A"]["elo"] == pytest.approx(0)
    assert got["elo"]["B"]["elo_low"] == pytest.approx(-got["elo"]["A"]["elo_high"])
    (pair,) = got["pairwise"]
    assert (pair["first"], pair["second"], pair["wins"], pair["draws"], pair["losses"]) == ("A", "B", 1, 2, 1)
    assert pair["draw_ratio"] == pytest.approx(0.5)


def test_a_table_of_three_scores_the_share_of_opponents_beaten():
    games = [[("A", 1), ("B", 2), ("C", 3)],   # A beats both: 1; B beats C: ½; C: 0
             [("A", 2), ("B", 1), ("C", 2)]]   # A ties C, loses to B: ¼; B: 1; C: ¼
    scores = field_scores(games)
    assert scores["A"] == {1.0: 1, 0.25: 1}
    assert scores["B"] == {0.5: 1, 1.0: 1}
    assert scores["C"] == {0.0: 1, 0.25: 1}
    got = comparisons(["A", "B", "C"], games)["elo"]
    assert got["A"]["score"] == pytest.approx(0.625) and got["B"]["score"] == pytest.approx(0.75)


def test_rank_ranges_separate_only_clear_head_to_head_results():
    clear = two_player(6, 0)  # 6-0: equals would do that ½⁶ = 1.6% of the time, under 2.5%
    assert clear["rank_range"] == {"A": "1", "B": "2"}
    close = two_player(6, 4)   # 6-4: score 0.6 ± 0.30, the interval holds 0 Elo
    assert close["rank_range"] == {"A": "1-2", "B": "1-2"}


def test_elo_against_a_named_reference_is_the_head_to_head_record():
    games = [[("A", 1), ("B", 2)]] * 3 + [[("A", 2), ("B", 1)]] + [[("C", 1), ("B", 2)]] * 2
    got = comparisons(["A", "B", "C"], games, reference="B")
    assert got["reference"] == "B" and got["elo"]["B"] is None
    assert got["elo"]["A"]["score"] == pytest.approx(0.75) and got["elo"]["A"]["games"] == 4
    assert got["elo"]["C"]["score"] == 1 and got["elo"]["C"]["elo"] is None  # 2-0: +inf, JSON null
    with pytest.raises(UserError, match="--reference 'Z' is not an entrant"):
        comparisons(["A", "B"], games, reference="Z")


def test_no_games_gives_no_numbers():
    got = comparisons(["A", "B"], [])
    assert got["elo"]["A"]["elo"] is None and got["elo"]["A"]["games"] == 0
    assert got["rank_range"] == {"A": "1-2", "B": "1-2"} and got["pairwise"] == []


def test_the_database_tallies_match_the_games_they_come_from():
    from pathlib import Path

    from tourney.config import parse_config
    from tourney.events import runner
    from tourney.results import ratings, store
    from tourney.results.comparisons import event_comparisons

    raw = {"event": {"name": "three", "format": "round-robin", "players": 3, "seed": 4, "games": 2,
                     "unit": "league"},
           "entrants": [{"name": n, "builtin": b} for n, b in
                        (("g1", "greedy"), ("r1", "random"), ("g2", "greedy"), ("r2", "random"))]}
    cfg = parse_config(raw, base_dir=str(Path(__file__).parent.parent))
    db = store.open_db(":memory:")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1).run()
    names = ["g1", "r1", "g2", "r2"]
    games = ratings.event_games(db, event_id)
    assert len(games) == 8 and all(len(g) == 3 for g in games)
    assert event_comparisons(db, event_id, names) == comparisons(names, games)
    assert event_comparisons(db, event_id, names, "r1") == comparisons(names, games, "r1")


def test_mirror_pairs_decide_a_head_to_head_with_the_pentanomial_model():
    from tourney.results.comparisons import compare
    from tourney.stats.pairwise import PairRecord

    # 12 pairs: 2 split (one game each: pair score ½), 10 won twice (1): mean (2·½ + 10)/12 = 11/12,
    # Elo = 400·log10(11) = 416.557; the variance across pairs is what the interval uses
    records = [PairRecord("A", "B", 22, 0, 2)]
    got = compare(["A", "B"], records, {}, pairs={("A", "B"): [0, 0, 2, 0, 10]})
    (pair,) = got["pairwise"]
    assert pair["model"] == "pentanomial" and pair["pairs"] == [0, 0, 2, 0, 10]
    assert pair["score"] == pytest.approx(11 / 12, abs=1e-4)
    assert pair["elo"] == pytest.approx(400 * math.log10(11), abs=1e-3)
    mirrored = compare(["A", "B"], records, {}, reference="A", pairs={("A", "B"): [0, 0, 2, 0, 10]})
    assert mirrored["elo"]["B"]["elo"] == pytest.approx(-400 * math.log10(11), abs=1e-3)


def test_a_duplicate_event_counts_its_complete_mirror_pairs():
    from pathlib import Path

    from tourney.config import parse_config
    from tourney.events import runner
    from tourney.results import store
    from tourney.results.comparisons import mirror_pairs

    raw = {"event": {"name": "dup", "format": "league", "seed": 2, "games": 5, "duplicate": True},
           "entrants": [{"name": "g", "builtin": "greedy"}, {"name": "r", "builtin": "random"}]}
    cfg = parse_config(raw, base_dir=str(Path(__file__).parent.parent))
    db = store.open_db(":memory:")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1).run()
    counts = mirror_pairs(db, event_id)
    assert list(counts) == [("g", "r")] and sum(counts[("g", "r")]) == 5
    assert db.execute("select count(*) from games").fetchone()[0] == 10


# ---------------------------------------------------------------------------------------------
# The tallies the writer keeps (results/tallies.py) equal a recount from the games table
# ---------------------------------------------------------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NAMES = ["A", "B", "C", "D"]


def _tally_event(db, duplicate=False):
    from tourney.results import store

    event = {"name": "t", "format": "round-robin", "rule_set": "crazier-eights", "seed": 1,
             "players": 2, "games": 100}
    schedule = [{"idx": i, "kind": "league", "seed": i, "games_target": 100, "entrants": NAMES}
                for i in range(3)]
    event_id = store.create_event(db, event, [{"name": n, "builtin": "random"} for n in NAMES],
                                  schedule, {}, "test")
    return event_id, store.series_rows(db, event_id)


def _payload(idx, seats, duplicate_set):
    return {"idx": idx, "leg": idx, "duplicate_set": duplicate_set, "rotation": None,
            "rule_set": "crazier-eights", "options": {}, "seed": idx, "players": len(seats),
            "first_player": 0, "turn_order": list(range(len(seats))), "teams": None,
            "winners": [i for i, s in enumerate(seats) if s["placement"] == 1], "reason": "t",
            "choices": [], "seats": [{"seat": i, **s} for i, s in enumerate(seats)]}


seat_st = st.fixed_dictionaries({
    "entrant": st.sampled_from(NAMES),
    "placement": st.one_of(st.none(), st.integers(1, 3)),
    "points": st.one_of(st.none(), st.integers(0, 20)),
})
game_st = st.tuples(st.integers(0, 2), st.lists(seat_st, min_size=1, max_size=4),
                    st.one_of(st.none(), st.integers(0, 3)))


@given(games=st.lists(game_st, max_size=30), batches=st.lists(st.integers(1, 5), min_size=1))
def test_the_kept_tallies_equal_a_recount_after_any_games(games, batches):
    """Any games (two or more seats, an entrant twice at a table, seats without a placement,
    duplicate sets of one, two or three games), stored in batches of any size."""
    from tourney.results import store, tallies

    db = store.open_db(":memory:")
    event_id, series = _tally_event(db)
    ids = {s["id"]: 0 for s in series}
    items = []
    for k, entrant_ids, dup in games:
        s = series[k]
        names = {e["name"]: e["entrant_id"] for e in s["entrants"]}
        seats = [{"entrant_id": names[x["entrant"]], "placement": x["placement"],
                  "points": x["points"]} for x in entrant_ids]
        items.append((s["id"], _payload(ids[s["id"]], seats, dup), None))
        ids[s["id"]] += 1
    sizes = iter(batches * (len(items) + 1))
    while items:
        n = next(sizes)
        store.record_games(db, event_id, items[:n])
        items = items[n:]
    assert tallies.kept(db, event_id) == tallies.recount(db, event_id)


def _run_duplicate(db, stop_after=None):
    from pathlib import Path

    from tourney.config import parse_config
    from tourney.events import runner

    raw = {"event": {"name": "dup", "format": "league", "seed": 2, "games": 6, "duplicate": True},
           "entrants": [{"name": "g", "builtin": "greedy"}, {"name": "r", "builtin": "random"}]}
    cfg = parse_config(raw, base_dir=str(Path(__file__).parent.parent))
    event_id, _ = runner.prepare_event(db, cfg, "test")
    stored = []

    def on_game(series, payload):
        stored.append(payload)
        if len(stored) == stop_after:
            raise KeyboardInterrupt

    try:
        runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1, on_game=on_game).run()
    except KeyboardInterrupt:
        pass
    return event_id, cfg


def test_the_kept_tallies_survive_an_interruption_in_a_mirror_pair_and_a_resume():
    from tourney.results import store, tallies
    from tourney.results.comparisons import mirror_pairs

    db = store.open_db(":memory:")
    event_id, _ = _run_duplicate(db, stop_after=5)  # the third pair is cut after its first game
    assert db.execute("select count(*) from games").fetchone()[0] == 5
    assert tallies.kept(db, event_id) == tallies.recount(db, event_id)
    assert sum(mirror_pairs(db, event_id)[("g", "r")]) == 2
    event_id, _ = _run_duplicate(db)  # resumed: the pair is completed, nothing counted twice
    assert db.execute("select count(*) from games").fetchone()[0] == 12
    assert tallies.kept(db, event_id) == tallies.recount(db, event_id)
    assert sum(mirror_pairs(db, event_id)[("g", "r")]) == 6


def test_a_restart_discards_the_kept_tallies_with_the_games(tmp_path):
    from tourney.results import store, tallies

    db = store.open_db(":memory:")
    event_id, _ = _run_duplicate(db)
    store.delete_event(db, event_id)
    assert db.execute("select count(*) from pair_tallies").fetchone()[0] == 0
    assert db.execute("select count(*) from field_tallies").fetchone()[0] == 0
    event_id, _ = _run_duplicate(db, stop_after=3)
    assert tallies.kept(db, event_id) == tallies.recount(db, event_id)


def test_upgrading_a_file_fills_the_tallies_the_writer_would_have_kept(tmp_path):
    from tourney.results import store, tallies

    path = str(tmp_path / "old.db")
    db = store.open_db(path)
    event_id, _ = _run_duplicate(db)
    kept = tallies.kept(db, event_id)
    # the file as an older tourney left it: no tallies, migration m010 not applied
    db.execute("drop table pair_tallies")
    db.execute("drop table field_tallies")
    db.execute("delete from _sqlite_migrations where name = 'm010_pair_tallies'")
    db.conn.commit()
    db.conn.close()
    db = store.open_db(path)
    pairs = kept[0]
    assert len(pairs) == 2 and all(sum(row[3:]) == 6 for row in pairs.values())
    assert tallies.kept(db, event_id) == kept
