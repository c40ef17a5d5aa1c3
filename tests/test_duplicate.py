"""Duplicate deals: every deal is played once per cyclic rotation of the seating, with the same
cards, by bots that never saw it; the set is stored, counted and resumed as a whole."""

import json
from pathlib import Path

import pytest

import engine
from tourney import seeding
from tourney.config import parse_config
from tourney.events import runner
from tourney.events.play import SeriesTask, run_series
from tourney.events.series import SeriesState
from tourney.events.summary import event_summary
from tourney.results import store

ROOT = Path(__file__).resolve().parent.parent
TARGET = {"series": "target", "target": 100}


def entrants(*names):
    return [{"name": n, "builtin": "greedy" if i % 2 else "random"} for i, n in enumerate(names)]


def run_event(raw, db=None):
    cfg = parse_config(raw, base_dir=str(ROOT))
    db = db or store.open_db(":memory:")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1).run()
    store.finish_event(db, event_id)
    return db, event_id


def stored_games(db, event_id):
    """Every game with its seats' entrants and the hands dealt to each seat."""
    out = []
    for g in db.query("select * from games where event_id = ? order by id", [event_id]):
        replay = store.load_replay(db, g["id"])
        assert replay is not None
        start = store.replay_start(replay)
        seats = [r["name"] for r in db.query(
            "select e.name from seats st join entrants e on e.id = st.entrant_id "
            "where st.game_id = ? order by st.seat", [g["id"]])]
        out.append({"set": g["duplicate_set"], "rotation": g["rotation"], "leg": g["leg"],
                    "idx": g["idx"], "seats": seats, "first_player": g["first_player"],
                    "hands": engine.new_game(**start).to_dict()["hands"],
                    "options": json.loads(replay["options"])})
    return out


# -- the seating and the set rules, by hand ------------------------------------------------------


def test_rotations_seat_every_slot_once_in_every_seat_and_reverse_in_odd_sets():
    st = SeriesState("single", 3, seed=1, games_target=1, duplicate=True)
    seatings = []
    for _ in range(3):
        seatings.append(st.seating())
        st.next_first_player()
        st.add({"winners": [0], "points": [0, 3, 4], "placements": [1, 2, 3]})
    assert seatings == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    assert st.over() and len(st.sets) == 1
    st2 = SeriesState("match", 3, seed=1, games_target=3, duplicate=True)
    for _ in range(3):
        st2.next_first_player()
        st2.add({"winners": [0], "points": [0, 3, 4], "placements": [1, 2, 3]})
    assert st2.seating() == [2, 1, 0]  # set 2 turns the base order round


def test_a_set_level_on_games_goes_to_the_fewest_points():
    # seat 0 always wins: each entrant wins once with the same hand, so the set is level on
    # games; the points held at the end decide it (fewest first)
    st = SeriesState("single", 2, seed=3, games_target=1, duplicate=True)
    first = st.next_first_player()
    st.add({"winners": [0], "points": [0, 5], "placements": [1, 2]})  # slot 0 wins, slot 1 holds 5
    assert st.next_first_player() == first  # the same first seat in every rotation
    st.add({"winners": [0], "points": [0, 2], "placements": [1, 2]})  # slot 1 wins, slot 0 holds 2
    assert st.over()
    r = st.result()
    assert r["winner"] == 0 and [s["wins"] for s in r["seats"]] == [1, 1]
    assert [s["points"] for s in r["seats"]] == [2, 5] and r["sets_played"] == 1
    st = SeriesState("single", 2, seed=3, games_target=1, duplicate=True)
    for _ in range(2):
        st.next_first_player()
        st.add({"winners": [0], "points": [0, 4], "placements": [1, 2]})
    assert st.result()["outcome"] == "draw" and st.sets[0]["placements"] == [1, 1]


def test_a_duplicate_match_is_best_of_n_sets_and_a_set_is_atomic():
    st = SeriesState("match", 2, seed=2, games_target=3, duplicate=True)
    # slot 0 wins every game: seats 0, 1 in set 1, then 1, 0 in set 2 (its base order reversed)
    games = [([0], [0, 3]), ([1], [3, 0]), ([1], [1, 0]), ([0], [0, 1])]
    over = []
    for winners, points in games:
        st.next_first_player()
        st.add({"winners": winners, "points": points,
                "placements": [1, 2] if winners == [0] else [2, 1]})
        over.append(st.over())
    assert over == [False, False, False, True]
    r = st.result()
    assert r["winner"] == 0 and r["sets_played"] == 2 and [s["wins"] for s in r["seats"]] == [4, 0]


def test_play_all_plays_every_set_after_a_majority():
    st = SeriesState("match", 2, seed=2, games_target=3, duplicate=True, play_all=True)
    for _ in range(6):
        assert not st.over()
        st.next_first_player()
        seating = st.seating()
        winner_seat = seating.index(0)  # slot 0 wins every game
        st.add({"winners": [winner_seat], "points": [0, 0],
                "placements": [1 if s == winner_seat else 2 for s in range(2)]})
    assert st.over() and st.result()["sets_played"] == 3 and st.result()["winner"] == 0


# -- whole events in every rule set ----------------------------------------------------------------

CASES = [
    ("crazier-eights", {}, 2), ("crazier-eights", {}, 3),
    ("crazy-eights", {}, 2), ("crazy-eights", {}, 3),
    ("crazy-eights", TARGET, 2), ("crazy-eights", TARGET, 3),
    ("super-crazy-eights", {}, 2), ("super-crazy-eights", {}, 3),
]


@pytest.mark.parametrize(("rule_set", "options", "players"), CASES)
def test_every_rotation_deals_the_same_hands_to_each_seat(rule_set, options, players):
    names = list("abc"[:players])
    # public seeds: seed 11 is known to deal legs of several deals (a secret could deal a leg that
    # ends in one deal, and the multi-deal checks below would have nothing to check)
    raw = {"event": {"name": "d", "format": "single", "rule_set": rule_set, "seed": 11,
                     "options": options, "duplicate": True, "public_seeds": True},
           "entrants": entrants(*names)}
    db, event_id = run_event(raw)
    games = stored_games(db, event_id)
    assert {g["set"] for g in games} == {0}
    assert sorted({g["rotation"] for g in games}) == list(range(players))
    by_rotation = {r: [g for g in games if g["rotation"] == r] for r in range(players)}
    multi_deal = rule_set == "super-crazy-eights" or options == TARGET
    if not multi_deal:
        assert all(len(gs) == 1 for gs in by_rotation.values())
    else:  # a leg of several deals is duplicated as a whole
        assert any(len(gs) > 1 for gs in by_rotation.values())
        assert len({g["leg"] for g in games}) == players
    for deal in range(min(len(gs) for gs in by_rotation.values())):
        same_deal = [by_rotation[r][deal] for r in range(players)]
        hands = [g["hands"] for g in same_deal]
        assert all(h == hands[0] for h in hands)  # seat s holds the same cards in every rotation
        assert len({g["first_player"] for g in same_deal}) == 1
        assert len({json.dumps(g["options"], sort_keys=True) for g in same_deal}) == 1
        for seat in range(players):
            holders = [g["seats"][seat] for g in same_deal]
            assert sorted(holders) == names  # ... held by a different entrant each time
    if multi_deal and rule_set == "super-crazy-eights":
        assert all(len(gs) == 15 for gs in by_rotation.values())
    # the standings count the set's games as usual: every entrant played every game
    summary = event_summary(db, event_id)
    assert {r["games"] for r in summary["standings"]} == {len(games)}
    assert summary["duplicate"] is True and summary["series"][0]["sets"] == 1


def test_games_json_shows_the_set_and_rotation(tmp_path):
    from typer.testing import CliRunner

    import tourney.commands  # noqa: F401
    from tourney.app import app

    path = tmp_path / "t.db"
    raw = {"event": {"name": "d", "format": "match", "seed": 5, "games": 1, "duplicate": True},
           "entrants": entrants("a", "b")}
    run_event(raw, store.open_db(path))
    r = CliRunner().invoke(app, ["games", "--db", str(path), "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["games"]
    assert [(g["duplicate_set"], g["rotation"]) for g in rows][:2] == [(0, 0), (0, 1)]
    assert rows[0]["seed"] == rows[1]["seed"]
    assert [s["entrant"] for s in rows[0]["seats"]] == ["a", "b"]
    assert [s["entrant"] for s in rows[1]["seats"]] == ["b", "a"]
    table = CliRunner().invoke(app, ["games", "--db", str(path)]).stdout
    assert "set/rotation" in table and " 0/1 " in table


def test_every_duplicate_game_gets_fresh_bots(monkeypatch):
    from tourney.bots import pool as play_module  # where run_series's pool looks open_entrant up

    opened = []
    real = play_module.open_entrant

    def spy(spec, seed=0):
        entrant = real(spec, seed)
        opened.append(entrant)
        return entrant

    monkeypatch.setattr(play_module, "open_entrant", spy)
    task = SeriesTask(idx=0, kind="match", rule_set="crazier-eights", options={}, event_seed=3,
                      seed=seeding.series_seed(3, 0), games_target=3, max_games=None,
                      entrants=entrants("a", "b", "c"), duplicate=True)
    games = []
    run_series(task, lambda msg: games.append(msg[2]))
    assert len(games) % 3 == 0
    assert len(opened) == 3 * len(games) and len(set(map(id, opened))) == len(opened)
    assert all(e.closed for e in opened)


# -- resume ------------------------------------------------------------------------------------------


def payload_key(g):
    return (g["idx"], g["leg"], g["duplicate_set"], g["rotation"], g["slots"], g["seed"],
            g["first_player"], g["winners"], g["points"])


@pytest.mark.parametrize(("rule_set", "options"), [("crazier-eights", {}),
                                                   ("crazy-eights", TARGET)])
def test_a_set_cut_half_way_is_finished_exactly(rule_set, options):
    def task(done=()):
        return SeriesTask(idx=0, kind="match", rule_set=rule_set, options=options,
                          event_seed=8, seed=seeding.series_seed(8, 0), games_target=3,
                          max_games=None, entrants=entrants("a", "b", "c"), duplicate=True,
                          done=list(done))

    whole = []
    run_series(task(), whole.append)
    games = [m[2] for m in whole]
    cut = next(i for i, g in enumerate(games) if g["rotation"] == 1)  # inside the first set
    rest = []
    run_series(task(games[:cut]), rest.append)
    assert [payload_key(m[2]) for m in rest] == [payload_key(g) for g in games[cut:]]
    assert rest[-1][3] == whole[-1][3]


class Stop(Exception):
    pass


def test_an_interrupted_duplicate_event_resumes_to_the_same_games():
    raw = {"event": {"name": "d", "format": "round-robin", "seed": 21, "games": 3,
                     "duplicate": True, "public_seeds": True},  # two databases, dealt alike
           "entrants": entrants("a", "b", "c")}
    whole_db, whole_id = run_event(raw)

    cfg = parse_config(raw, base_dir=str(ROOT))
    db = store.open_db(":memory:")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    first = runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1)
    stored = []

    def handle(msg):  # store two games, then die half-way through a set of three
        if len(stored) == 2:
            raise Stop
        first.handle(msg)
        stored.append(msg)

    with pytest.raises(Stop):
        run_series(first.tasks[0], handle)
    assert stored[-1][2]["rotation"] == 1 and stored[-1][3] is None
    tasks = runner.pending_tasks(db, event_id, cfg)
    assert len(tasks[0].done) == 2
    runner.Runner(db, event_id, tasks, 1).run()

    def rows(d):
        return [tuple(r) for r in d.execute(
            "select s.idx, g.idx, g.duplicate_set, g.rotation, g.seed, g.first_player, g.winners "
            "from games g join series s on s.id = g.series_id order by s.idx, g.idx")]

    assert rows(db) == rows(whole_db)
    assert db.execute("select count(*) from games").fetchone()[0] == len(rows(whole_db))
    sets = db.execute("select count(*) from (select distinct series_id, duplicate_set, rotation "
                      "from games)").fetchone()[0]
    assert sets == len(rows(whole_db))  # no rotation stored twice
