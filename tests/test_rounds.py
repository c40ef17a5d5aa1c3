"""Gauntlet, Swiss and knockout: schedules, pairings made from results, byes, tie-breaks, the
bracket; resume rebuilds the same rounds. And matches played in full (play_all / --all)."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import tourney.commands  # noqa: F401
from tourney.app import app
from tourney.config import ConfigError, parse_config
from tourney.events import runner
from tourney.events.schedule import schedule
from tourney.events.series import SeriesState
from tourney.formats import rounds
from tourney.formats.rounds import Played
from tourney.results import store

ROOT = Path(__file__).resolve().parent.parent
NAMES = list("abcde")


def entrants(*names):
    return [{"name": n, "builtin": "greedy" if i % 2 else "random"} for i, n in enumerate(names)]


def won(rnd, winner, loser, seats=None):
    """A finished pair: ``seats`` gives the seat order (default winner first)."""
    order = seats or [winner, loser]
    return Played(rnd, order, [1.0 if n == winner else 0.0 for n in order])


def bye(rnd, name):
    return Played(rnd, [name], [1.0], bye=True)


# -- Swiss ----------------------------------------------------------------------------------------


def test_swiss_five_entrants_three_rounds_by_hand():
    # round 1: ranking = config order; pairs 1-2, 3-4, the last entrant sits out
    tables, sits_out = rounds.swiss_round(NAMES, [])
    assert tables == [["a", "b"], ["c", "d"]] and sits_out == "e"
    history = [won(0, "a", "b"), won(0, "d", "c", seats=["c", "d"]), bye(0, "e")]
    # round 2: a, d, e on 1 point, b, c on 0; c is the lowest without a bye;
    # d has had seat 0 less than a, so d takes it
    tables, sits_out = rounds.swiss_round(NAMES, history)
    assert tables == [["d", "a"], ["e", "b"]] and sits_out == "c"
    history += [won(1, "a", "d", seats=["d", "a"]), won(1, "b", "e", seats=["e", "b"]),
                bye(1, "c")]
    # round 3: a 2; b, c, d, e 1 each. d is the lowest without a bye. a-b is a rematch, a-c
    # leaves b-e (a rematch): backtracking gives a-e and b-c
    tables, sits_out = rounds.swiss_round(NAMES, history)
    assert tables == [["a", "e"], ["b", "c"]] and sits_out == "d"
    history += [won(2, "a", "e"), won(2, "c", "b", seats=["b", "c"]), bye(2, "d")]
    # final table: a 3; c, d 2; b, e 1. Buchholz Cut-1: d (2+3+0-0 = 5) before c (2+0+1-0 = 3);
    # b (3+1+2-1 = 5) before e (0+1+3-0 = 4). Sonneborn-Berger: a beat b, d, e: 1+2+1 = 4
    table = rounds.swiss_standings(NAMES, history, event_seed=1)
    assert [r["entrant"] for r in table] == ["a", "d", "c", "b", "e"]
    by = {r["entrant"]: r for r in table}
    assert [by[n]["score"] for n in "adcbe"] == [3, 2, 2, 1, 1]
    assert [by[n]["buchholz_cut1"] for n in "adcbe"] == [3, 5, 3, 5, 4]
    assert [by[n]["sonneborn_berger"] for n in "adcbe"] == [4, 2, 1, 1, 0]


def test_swiss_allows_a_rematch_only_when_none_can_be_avoided():
    names = ["a", "b"]
    history = [won(0, "a", "b")]
    tables, sits_out = rounds.swiss_round(names, history)
    assert tables == [["b", "a"]] and sits_out is None  # b has had seat 0 less


def test_swiss_tables_of_three_cut_the_ranking_and_swap_away_repeats():
    names = list("abcdefg")
    # 7 entrants in tables of 3: three tables of 3, 2 and 2 (no byes)
    assert rounds.swiss_tables(names, [], 3) == [["a", "b", "c"], ["d", "e"], ["f", "g"]]
    history = [Played(0, ["a", "b", "c"], rounds.placement_scores([1, 2, 3])),
               won(0, "d", "e"), won(0, "g", "f", seats=["f", "g"])]
    # scores a, d, g 1; b 1/2; c, e, f 0: cut [a d g] [b c] [e f]; b and c met already, and
    # swapping b with e (the first swap that removes the repeat) gives [c e] and [b f]
    assert rounds.swiss_tables(names, history, 3) == [["a", "d", "g"], ["c", "e"], ["b", "f"]]


def test_when_every_pairing_is_a_rematch_the_last_round_is_not_repeated():
    # four entrants after three rounds have all met; round 4 repeats round 1 or 2, never 3
    names = list("abcd")
    history = [won(0, "a", "b"), won(0, "c", "d"), won(1, "a", "c"), won(1, "b", "d"),
               won(2, "a", "d"), won(2, "b", "c")]
    tables, _ = rounds.swiss_round(names, history)
    # ranking a 3, b 2, c 1, d 0: a-b and c-d (round 1's pairs) are the first that work
    assert tables == [["b", "a"], ["d", "c"]]
    last = {frozenset(("a", "d")), frozenset(("b", "c"))}
    assert not any(frozenset(t) in last for t in tables)


def test_a_drawn_pair_scores_half_each_and_a_bye_its_value():
    assert rounds.placement_scores([1, 1]) == [0.5, 0.5]
    assert rounds.placement_scores([1, 2, 2]) == [1.0, 0.25, 0.25]
    assert rounds.scores(["a"], [Played(0, ["a"], [0.5], bye=True)]) == {"a": 0.5}


def swiss_raw(name="sw", **kw):
    # public seeds: the tests compare events played in separate databases, which a secret would
    # deal differently (docs/formats.md, "The event's secret")
    event = {"name": name, "format": "swiss", "seed": 5, "games": 1, "rounds": 3, "public_seeds": True}
    event.update(kw)
    return {"event": event, "entrants": entrants(*NAMES)}


def play(db, cfg, event_id, with_rounds=True):
    more = (lambda: runner.next_round_tasks(db, event_id, cfg)) if with_rounds else None
    tasks = runner.pending_tasks(db, event_id, cfg) or (
        runner.next_round_tasks(db, event_id, cfg) if with_rounds else [])
    runner.Runner(db, event_id, tasks, 1, more=more).run()


def tables_of(db, event_id):
    return [(s["round"], s["kind"], [e["name"] for e in s["entrants"]])
            for s in store.series_rows(db, event_id)]


def test_swiss_event_pairs_from_results_and_resumes_to_the_same_rounds():
    cfg = parse_config(swiss_raw(), base_dir=str(ROOT))
    db = store.open_db(":memory:")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    play(db, cfg, event_id)
    whole = tables_of(db, event_id)
    assert sorted({r for r, _, _ in whole}) == [0, 1, 2]
    byes = [t[0] for _, kind, t in whole if kind == "bye"]
    assert len(byes) == 3 and len(set(byes)) == 3  # one per round, never twice
    pairs = [frozenset(t) for _, kind, t in whole if kind != "bye"]
    assert len(pairs) == 6 and len(set(pairs)) == 6  # no rematch
    rows = store.series_rows(db, event_id)
    for rnd in (1, 2):  # every round is the pairing of the results before it
        before = rounds.played_from_rows([s for s in rows if s["round"] < rnd])
        tables, sits_out = rounds.swiss_round(NAMES, before)
        assert [t for r, k, t in whole if r == rnd and k != "bye"] == tables
        assert [t for r, k, t in whole if r == rnd and k == "bye"] == [[sits_out]]

    # interrupted after round 1: a second run creates rounds 2 and 3 from the stored results
    db2 = store.open_db(":memory:")
    event_id2, _ = runner.prepare_event(db2, cfg, "test")
    play(db2, cfg, event_id2, with_rounds=False)
    assert {r for r, _, _ in tables_of(db2, event_id2)} == {0}
    play(db2, cfg, event_id2)
    assert tables_of(db2, event_id2) == whole


def test_swiss_bye_value_is_stored_with_the_bye():
    cfg = parse_config(swiss_raw(name="half", bye_score=0.5, rounds=1), base_dir=str(ROOT))
    db = store.open_db(":memory:")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    row = next(s for s in store.series_rows(db, event_id) if s["kind"] == "bye")
    assert row["outcome"] == "draw" and row["winner_id"] is None and row["status"] == "finished"
    assert rounds.played_from_rows([row])[0].scores == [0.5]


# -- knockout --------------------------------------------------------------------------------------


def test_bracket_order_keeps_the_top_seeds_apart():
    assert rounds.bracket_order(2) == [1, 2]
    assert rounds.bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


def test_knockout_of_five_gives_byes_to_the_top_three():
    assert rounds.first_bracket_round(NAMES) == [["a"], ["d", "e"], ["b"], ["c"]]


def test_a_drawn_tie_goes_to_legs_then_points_then_seed():
    def tie(wins, points, winner=None):
        return {"winner_id": winner, "entrants": [
            {"entrant_id": 1, "name": "x", "wins": wins[0], "points": points[0]},
            {"entrant_id": 2, "name": "y", "wins": wins[1], "points": points[1]}]}

    seeds = {"x": 4, "y": 5}
    assert rounds.advancer(tie([1, 1], [9, 3], winner=1), seeds) == "x"
    assert rounds.advancer(tie([1, 2], [0, 9]), seeds) == "y"
    assert rounds.advancer(tie([1, 1], [9, 3]), seeds) == "y"
    assert rounds.advancer(tie([1, 1], [9, 3]), seeds, low_points_win=False) == "x"
    assert rounds.advancer(tie([1, 1], [3, 3]), seeds) == "x"  # the better seed


def test_knockout_event_plays_the_bracket_to_a_final():
    raw = {"event": {"name": "ko", "format": "knockout", "seed": 2, "games": 1},
           "entrants": entrants(*NAMES)}
    cfg = parse_config(raw, base_dir=str(ROOT))
    db = store.open_db(":memory:")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    play(db, cfg, event_id)
    rows = store.series_rows(db, event_id)
    tree = rounds.bracket(rows, cfg.event)
    assert [len(r) for r in tree] == [4, 2, 1]
    assert [t["entrants"] for t in tree[0]] == [[["a", 1]], [["d", 4], ["e", 5]], [["b", 2]],
                                               [["c", 3]]]
    second = tree[1]
    assert second[0]["entrants"][0] == ["a", 1] and second[0]["entrants"][1][0] == tree[0][1]["winner"]
    assert [e[0] for e in second[1]["entrants"]] == ["b", "c"]
    assert [e[0] for e in tree[2][0]["entrants"]] == [second[0]["winner"], second[1]["winner"]]
    assert all(t["winner"] for r in tree for t in r)
    lines = rounds.bracket_lines(tree)
    assert lines[0] == "round 1" and lines[1] == "  (1) a (bye) -> a" and "final" in lines


def test_knockout_seeded_by_rating_puts_the_best_rated_first():
    db = store.open_db(":memory:")
    # an earlier event in the same file: c wins every game it plays
    raw = {"event": {"name": "before", "format": "league", "seed": 1, "games": 1},
           "entrants": entrants("a", "b", "c")}
    cfg = parse_config(raw, base_dir=str(ROOT))
    event_id, _ = runner.prepare_event(db, cfg, "test")
    series = store.series_rows(db, event_id)[0]
    ids = [e["entrant_id"] for e in series["entrants"]]
    store.record_game(db, event_id, series["id"], {
        "idx": 0, "rule_set": "crazier-eights", "options": {}, "seed": 1, "players": 3,
        "first_player": 0, "turn_order": [0, 1, 2], "teams": None, "winners": [2],
        "reason": "empty_hand", "choices": [], "log": [],
        "seats": [{"seat": s, "entrant_id": ids[s], "points": [4, 2, 0][s],
                   "placement": [3, 2, 1][s]} for s in range(3)]})
    assert rounds.rating_order(db, ["d", "a", "b", "c"]) == ["c", "b", "a", "d"]


# -- gauntlet ------------------------------------------------------------------------------------


def test_gauntlet_candidates_meet_every_pool_member_each_round():
    raw = {"event": {"name": "g", "format": "gauntlet", "candidates": ["x"], "rounds": 2,
                     "games": 3}, "entrants": entrants("x", "a", "b", "c")}
    plan = schedule(parse_config(raw).event)
    assert [s["entrants"] for s in plan] == [["x", "a"], ["x", "b"], ["x", "c"],
                                             ["a", "x"], ["b", "x"], ["c", "x"]]
    assert [s["round"] for s in plan] == [0, 0, 0, 1, 1, 1]
    assert {s["kind"] for s in plan} == {"match"}


@pytest.mark.parametrize(("change", "message"), [
    ({"format": "gauntlet"}, "missing field 'candidates'"),
    ({"format": "gauntlet", "candidates": ["a", "b", "c"]}, "the pool is empty"),
    ({"format": "gauntlet", "candidates": ["z"]}, "'z' is not an entrant"),
    ({"format": "swiss", "players": 4}, "tables of 4 need at least 4 entrants"),
    ({"format": "knockout", "players": 3}, "a knockout plays tables of 2"),
    ({"format": "swiss", "bye_score": 2}, "expected 1, 0.5 or 0"),
    ({"format": "knockout", "unit": "league"}, "a knockout takes unit 'match'"),
    ({"format": "knockout", "seeding": "luck"}, "expected 'config' or 'rating'"),
    ({"format": "league", "play_all": True}, "only matches take 'play_all'"),
    ({"format": "match", "duplicate": "yes"}, "expected true or false"),
    ({"format": "round-robin", "candidates": ["a"]}, "only a gauntlet takes 'candidates'"),
])
def test_format_mistakes_are_one_clear_line(change, message):
    event = {"name": "x", "format": "match", "games": 1}
    event.update(change)
    with pytest.raises(ConfigError) as info:
        parse_config({"event": event, "entrants": entrants("a", "b", "c")})
    assert message in str(info.value) and "\n" not in str(info.value)


# -- matches played in full ---------------------------------------------------------------------


def test_play_all_plays_on_after_a_majority():
    st = SeriesState("match", 2, seed=1, games_target=5, play_all=True)
    for _ in range(5):
        assert not st.over()
        st.next_first_player()
        st.add({"winners": [0], "placements": [1, 2], "points": [0, 3]})
    assert st.over() and st.result()["winner"] == 0 and st.result()["games_played"] == 5
    plain = SeriesState("match", 2, seed=1, games_target=5)
    for _ in range(3):
        plain.next_first_player()
        plain.add({"winners": [0], "placements": [1, 2], "points": [0, 3]})
    assert plain.over()


def invoke(*args):
    return CliRunner().invoke(app, list(args))


def test_match_all_plays_n_games(tmp_path):
    db = str(tmp_path / "t.db")
    r = invoke("match", "greedy", "random", "--best-of", "5", "--all", "--seed", "8", "--public-seeds",
               "--db", db, "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    games = doc["games"]
    # seed 8: greedy has its majority after three games, and all five are played (no more)
    assert len(games) == 5 and all(g["winners"] == ["greedy"] for g in games)
    assert [e["wins"] for e in doc["entrants"]] == [5, 0] and doc["winner"] == "greedy"
    plain = invoke("match", "greedy", "random", "--best-of", "5", "--seed", "8", "--public-seeds", "--db", db,
                   "--json")
    assert len(json.loads(plain.stdout)["games"]) == 3


def test_match_duplicate_plays_mirror_games(tmp_path):
    db = str(tmp_path / "t.db")
    r = invoke("match", "greedy", "random", "--best-of", "1", "--duplicate", "--seed", "3",
               "--db", db, "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    games = doc["games"]
    assert len(games) == 2 * doc["sets"]
    for a, b in zip(games[::2], games[1::2]):
        assert a["seed"] == b["seed"] and a["first_player"] == b["first_player"]
        assert (a["duplicate_set"], a["rotation"], b["rotation"]) == (b["duplicate_set"], 0, 1)


def test_run_and_report_print_the_bracket(tmp_path):
    config = tmp_path / "ko.toml"
    config.write_text('[event]\nname = "ko"\nformat = "knockout"\nseed = 2\ngames = 1\n'
                      + "".join(f'[[entrants]]\nname = "{n}"\nbuiltin = "greedy"\n' for n in NAMES))
    db = str(tmp_path / "t.db")
    r = invoke("run", str(config), "--db", db, "-j", "1")
    assert r.exit_code == 0, r.output
    assert "series 0: a: bye" in r.stdout
    assert "round 1\n  (1) a (bye) -> a\n  (4) d v (5) e -> " in r.stdout and "\nfinal\n" in r.stdout
    doc = json.loads(invoke("run", str(config), "--db", db, "--json").stdout)
    assert [len(rnd) for rnd in doc["bracket"]] == [4, 2, 1]
    report = invoke("report", "ko", "--db", db)
    assert report.exit_code == 0, report.output
    assert "  (1) a (bye) -> a" in report.stdout and "final" in report.stdout


# -- invariants --------------------------------------------------------------------------------------


@given(st.integers(2, 5).map(lambda h: 2 * h), st.data())
def test_swiss_pairs_everyone_once_without_rematches_while_the_field_allows(n, data):
    # after r < n/2 rounds every entrant has met r others, so the ones it has not met are at
    # least n/2: a pairing without rematches exists (Dirac), and the search must find it
    names = [f"e{i}" for i in range(n)]
    history: list[Played] = []
    for rnd in range(n // 2):
        tables, sits_out = rounds.swiss_round(names, history)
        assert sits_out is None and sorted(x for t in tables for x in t) == sorted(names)
        assert all(len(t) == 2 for t in tables)
        met = {frozenset(p.entrants) for p in history}
        assert not any(frozenset(t) in met for t in tables)
        for a, b in tables:
            outcome = data.draw(st.sampled_from(["a", "b", "draw"]))
            history.append(Played(rnd, [a, b], {"a": [1.0, 0.0], "b": [0.0, 1.0],
                                                "draw": [0.5, 0.5]}[outcome]))


@given(st.integers(3, 9), st.integers(1, 4), st.data())
def test_swiss_byes_go_to_a_new_entrant_each_round(half, rounds_played, data):
    n = 2 * half - 1  # odd
    names = [f"e{i}" for i in range(n)]
    history: list[Played] = []
    byes = []
    for rnd in range(min(rounds_played, n)):
        tables, sits_out = rounds.swiss_round(names, history)
        assert sits_out is not None and sits_out not in byes
        assert sorted([sits_out, *(x for t in tables for x in t)]) == sorted(names)
        byes.append(sits_out)
        history.append(Played(rnd, [sits_out], [1.0], bye=True))
        for a, b in tables:
            win = data.draw(st.booleans())
            history.append(Played(rnd, [a, b], [1.0, 0.0] if win else [0.0, 1.0]))


@given(st.integers(2, 8), st.integers(0, 5))
def test_a_duplicate_set_seats_every_entrant_once_in_every_seat(k, sets_before):
    state = SeriesState("league", k, seed=1, games_target=sets_before + 1, duplicate=True)
    result = {"winners": [0], "points": [0] * k, "placements": [1] + [2] * (k - 1)}
    for _ in range(sets_before * k):
        state.next_first_player()
        state.add(result)
    seatings = []
    for _ in range(k):
        seatings.append(state.seating())
        state.next_first_player()
        state.add(result)
    for seat in range(k):
        assert sorted(s[seat] for s in seatings) == list(range(k))
    assert all(sorted(s) == list(range(k)) for s in seatings)
    assert len(state.sets) == sets_before + 1 and state.over()


def test_a_duplicate_swiss_gives_the_same_rounds_and_games_at_any_concurrency():
    cfg = parse_config(swiss_raw(name="dj", duplicate=True, rounds=2), base_dir=str(ROOT))

    def run(concurrency):
        db = store.open_db(":memory:")
        event_id, _ = runner.prepare_event(db, cfg, "test")
        runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), concurrency,
                      more=lambda: runner.next_round_tasks(db, event_id, cfg)).run()
        games = [tuple(r) for r in db.execute(
            "select s.idx, g.idx, g.duplicate_set, g.rotation, g.seed, g.winners from games g "
            "join series s on s.id = g.series_id order by s.idx, g.idx")]
        return tables_of(db, event_id), games

    one, two = run(1), run(2)
    assert one == two and {r for r, _, _ in one[0]} == {0, 1}
