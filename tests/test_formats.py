"""Formats: schedules, series rules, seeds, parallel runs, replays of stored games."""

import json
from collections import Counter
from pathlib import Path

from tourney import seating, seeding
from tourney.config import parse_config
from tourney.events import runner
from tourney.events.play import SeriesTask, run_series
from tourney.events.schedule import schedule
from tourney.events.series import SeriesState
from tourney.events.summary import event_summary
from tourney.results import store

ROOT = Path(__file__).resolve().parent.parent


def event(**kw):
    base = {"name": "t", "format": "round-robin", "seed": 9, "games": 3}
    base.update(kw)
    return base


def entrants(*names):
    return [{"name": n, "builtin": "greedy" if i % 2 else "random"} for i, n in enumerate(names)]


def test_round_robin_pairs_once_per_round():
    cfg = parse_config({"event": event(rounds=2), "entrants": entrants("a", "b", "c", "d")})
    plan = schedule(cfg.event)
    assert len(plan) == 12
    pairs = Counter(frozenset(s["entrants"]) for s in plan)
    assert set(pairs.values()) == {2}
    assert plan[0]["entrants"] == ["a", "b"] and plan[6]["entrants"] == ["b", "a"]
    assert len({s["seed"] for s in plan}) == 12


def test_round_robin_tables_rotate_seats():
    cfg = parse_config({"event": event(players=3, games=2), "entrants": entrants(*"abcde")})
    plan = schedule(cfg.event)
    assert all(s["kind"] == "league" and len(s["entrants"]) == 3 for s in plan)
    for name in "abcde":
        assert sum(name in s["entrants"] for s in plan) == 3  # same number of tables
    # the orders round the tables: the least direction imbalance five tables of three allow (an
    # exhaustive search over every order and rotation finds none below 7/15: the five pairs two
    # apart meet once, and so can only sit one way)
    assert seating.balance([s["entrants"] for s in plan])["imbalance"] == round(7 / 15, 4)


def test_seeds_are_documented_hashes():
    assert seeding.game_seed(1, 2, 3) == seeding.derive("game", 1, 2, 3)
    assert seeding.game_seed(1, 2, 3) != seeding.game_seed(1, 3, 2)
    assert 0 <= seeding.series_seed(5, 0) < 2**63


def g(winners, placements, points=None):
    return {"winners": winners, "placements": placements, "points": points or [0, 0]}


def test_match_loser_goes_first_and_draws_count_for_neither():
    st = SeriesState("match", 2, seed=1, games_target=3, max_games=7)
    st.next_first_player()  # game 1: drawn from the series seed (the next test)
    st.add(g([0], [1, 2]))
    assert st.next_first_player() == 1  # the loser
    st.add(g([], [1, 1]))  # no winner: counts for neither
    assert st.wins == [1, 0] and not st.over()
    st.next_first_player()
    st.add(g([1], [2, 1]))
    assert st.next_first_player() == 0
    st.add(g([0], [1, 2]))
    assert st.over()
    r = st.result()
    assert r["outcome"] == "win" and r["winner"] == 0 and r["games_played"] == 4


def test_first_player_of_a_match_is_a_fair_draw_from_the_series_seed():
    def first(seed):
        return SeriesState("match", 2, seed=seed, games_target=3).next_first_player()

    draws = [first(seed) for seed in range(400)]
    assert draws == [first(seed) for seed in range(400)]  # the same seed, the same draw
    # fair: seat 0 begins 200 times in 400 on average (sd 10); 160 to 240 is four sd each side
    assert set(draws) == {0, 1} and 160 <= draws.count(0) <= 240


def test_match_capped_is_drawn():
    st = SeriesState("match", 2, seed=1, games_target=3, max_games=4)
    for _ in range(4):
        st.next_first_player()
        st.add(g([], [1, 1]))
    assert st.over()
    assert st.result()["outcome"] == "draw" and st.result()["winner"] is None


def test_league_most_points_goes_first_and_fewest_ranks_first():
    st = SeriesState("league", 3, seed=4, games_target=2)
    st.next_first_player()
    st.add({"winners": [1], "placements": [2, 1, 3], "points": [3, 0, 5]})
    first = st.next_first_player()
    # the order round the table changes (game 2 seats slots 2, 1, 0), and the slot with most
    # points starts wherever it now sits
    assert st.seating() == [2, 1, 0] and first == 0
    st.add({"winners": [0], "placements": [1, 2, 2], "points": [0, 4, 4]})  # by seat
    assert st.over()
    r = st.result()  # by slot
    assert [s["points"] for s in r["seats"]] == [3 + 4, 0 + 4, 5 + 0]
    assert [s["placement"] for s in r["seats"]] == [3, 1, 2] and r["winner"] == 1


def test_league_ties_broken_by_series_seed():
    firsts = set()
    for seed in range(20):
        st = SeriesState("league", 4, seed=seed, games_target=1)
        a = st.next_first_player()
        again = SeriesState("league", 4, seed=seed, games_target=1).next_first_player()
        assert a == again
        firsts.add(a)
    assert len(firsts) > 1


def run_event(raw, concurrency, db=None):
    cfg = parse_config(raw, base_dir=str(ROOT))
    db = db or store.open_db(":memory:")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), concurrency).run()
    store.finish_event(db, event_id)
    return db, event_id


def games_of(db):
    rows = db.query(
        "select s.idx as sidx, g.idx, g.seed, g.first_player, g.winners, r.choices_z from games g "
        "join series s on s.id = g.series_id join replays r on r.game_id = g.id")
    return sorted((r["sidx"], r["idx"], r["seed"], r["first_player"], r["winners"], r["choices_z"])
                  for r in rows)


def test_identical_games_at_any_concurrency():
    raw = {
        "event": event(players=3, games=2, seed=3, public_seeds=True),  # two events, alike
        "entrants": entrants("a", "b", "c") + [
            {"name": "py", "command": ["{python}", "examples/bots/random_bot.py"]}],
    }
    db1, e1 = run_event(raw, 1)
    db2, e2 = run_event(raw, 2)
    assert games_of(db1) == games_of(db2)
    assert len(games_of(db1)) == 8
    s1, s2 = event_summary(db1, e1), event_summary(db2, e2)
    assert s1["standings"] == s2["standings"]
    # seeds follow the documented derivation
    for sidx, gidx, seed, *_ in games_of(db1):
        assert seed == seeding.game_seed(3, sidx, gidx)


def test_league_stores_order_played_and_points():
    raw = {"event": {"name": "l", "format": "league", "seed": 2, "games": 4},
           "entrants": entrants("a", "b", "c", "d")}
    db, event_id = run_event(raw, 1)
    totals: dict[int, int] = {}
    seatings = []
    for gm in db.query("select * from games order by idx"):
        order = json.loads(gm["turn_order"])
        assert order[0] == gm["first_player"] and sorted(order) == [0, 1, 2, 3]
        seats = list(db.query("select * from seats where game_id = ? order by seat", [gm["id"]]))
        seatings.append([st["entrant_id"] for st in seats])
        if gm["idx"] > 0:  # the entrant with most points starts, wherever it sits this game
            assert totals[seats[gm["first_player"]]["entrant_id"]] == max(totals.values())
        for st in seats:
            totals[st["entrant_id"]] = totals.get(st["entrant_id"], 0) + st["points"]
            assert bool(st["first"]) == (st["seat"] == gm["first_player"])
    series = store.series_rows(db, event_id)[0]
    assert {e["entrant_id"]: e["points"] for e in series["entrants"]} == totals
    # the order round the table changes every game: over 4 games each sits after each as often
    # as before it, and in every seat once
    assert len({tuple(s) for s in seatings}) == 4
    assert seating.balance(seatings) | {"games": 4} == {
        "games": 4, "imbalance": 0.0, "max_difference": 0, "one_way_pairs": 0, "seat_spread": 0}


def test_stored_games_replay_exactly_even_with_faults():
    fault_bot = str(ROOT / "tests" / "bots" / "fault_bot.py")
    raw = {"event": {"name": "f", "format": "match", "seed": 5, "games": 3},
           "entrants": [{"name": "crashy", "command": ["{python}", fault_bot, "crash", "3"]},
                        {"name": "g", "builtin": "greedy"}]}
    db, _ = run_event(raw, 1)
    faults = list(db.query("select * from seats where fault is not null"))
    assert faults, "the fault bot should have faulted"
    for row in db.query("select g.id, g.winners, g.reason from games g"):
        game = store.replay_game(store.load_replay(db, row["id"]))
        assert game.result is not None
        assert list(game.result.winners) == json.loads(row["winners"])
        assert game.result.reason == row["reason"]


def test_rule_set_series_as_league_unit():
    raw = {"event": {"name": "s", "format": "league", "rule_set": "super-crazy-eights",
                     "seed": 1, "games": 0},
           "entrants": entrants("a", "b", "c")}
    db, event_id = run_event(raw, 1)
    rows = list(db.query("select o.options, g.first_player from games g join replays r on "
                         "r.game_id = g.id join option_sets o on o.id = r.options_id order by g.idx"))
    assert len(rows) == 15  # fifteen deals
    assert [json.loads(r["options"])["deal"] for r in rows] == list(range(1, 16))
    firsts = [r["first_player"] for r in rows]
    assert all((b - a) % 3 == 1 for a, b in zip(firsts, firsts[1:]))  # the deal passes left
    series = store.series_rows(db, event_id)[0]
    assert series["status"] == "finished" and series["games_played"] == 15


def test_crazy_eights_to_target():
    raw = {"event": {"name": "c", "format": "league", "rule_set": "crazy-eights", "seed": 2,
                     "options": {"series": "target", "target": 100}},
           "entrants": entrants("a", "b")}
    db, event_id = run_event(raw, 1)
    series = store.series_rows(db, event_id)[0]
    assert max(e["points"] for e in series["entrants"]) >= 100
    totals_before_last = [0, 0]
    games = list(db.query("select id from games order by idx"))
    for gm in games[:-1]:
        for st in db.query("select * from seats where game_id = ?", [gm["id"]]):
            totals_before_last[st["seat"]] += st["points"]
    assert max(totals_before_last) < 100


# --- legs: a rule set's own series as the game of a match -----------------------------------------

TARGET = {"series": "target", "target": 100}


def deal(points, winner):
    return {"winners": [winner], "placements": [1 if s == winner else 2 for s in range(2)],
            "points": points, "reason": "out"}


def test_match_counts_legs_to_100_and_the_leg_loser_deals_next():
    st = SeriesState("match", 2, seed=3, games_target=3, rule_set="crazy-eights",
                             options=TARGET)
    first = st.next_first_player()
    assert st.info() == {"kind": "match", "game": 1, "scores": [0, 0], "wins": [0, 0],
                         "best_of": 3, "leg": 1, "deal": 1, "leg_scores": [0, 0]}
    st.add(deal([0, 60], 0))
    assert st.next_first_player() == 1 - first  # the deal passes to the left within a leg
    st.add(deal([0, 50], 0))  # 110: the leg is over, seat 0 has the lowest total
    assert st.wins == [1, 0] and len(st.legs) == 1 and not st.over()
    assert st.info()["leg"] == 2 and st.info()["deal"] == 1 and st.info()["leg_scores"] == [0, 0]
    assert st.next_first_player() == 1  # the loser of the leg plays first
    st.add(deal([70, 0], 1))
    st.next_first_player()
    st.add(deal([40, 0], 1))
    assert st.wins == [1, 1]
    st.next_first_player()
    st.add(deal([50, 50], 0))
    st.next_first_player()
    st.add(deal([60, 60], 1))  # 110 each: a shared lowest total, the leg counts for neither
    assert st.wins == [1, 1] and len(st.legs) == 3 and not st.over()
    assert st.legs[-1]["winners"] == [] and st.legs[-1]["deals"] == 2
    st.next_first_player()
    st.add(deal([100, 0], 1))
    assert st.over()
    r = st.result()
    assert (r["winner"], r["games_played"], r["legs_played"]) == (1, 7, 4)
    assert [s["wins"] for s in r["seats"]] == [1, 2] and [s["placement"] for s in r["seats"]] == [2, 1]
    assert [s["points"] for s in r["seats"]] == [320, 220]  # every deal's points, all legs


def test_match_cap_counts_legs():
    st = SeriesState("match", 2, seed=3, games_target=1, max_games=2,
                             rule_set="crazy-eights", options=TARGET)
    for _ in range(2):
        st.next_first_player()
        st.add(deal([100, 100], 0))  # a tied leg in one deal
    assert st.over() and len(st.games) == 2
    assert st.result()["outcome"] == "draw" and st.result()["legs_played"] == 2


def test_single_game_of_a_series_rule_set_is_one_leg():
    st = SeriesState("single", 2, seed=1, games_target=1, rule_set="crazy-eights",
                             options={**TARGET, "scoring": "high"})
    st.next_first_player()
    st.add(deal([0, 40], 0))  # high scoring: the player who went out collects 40
    assert not st.over()
    st.next_first_player()
    st.add(deal([70, 0], 1))
    st.next_first_player()
    st.add(deal([0, 65], 0))  # 105 against 70
    assert st.over()
    r = st.result()
    assert r["winner"] == 0 and [s["placement"] for s in r["seats"]] == [1, 2]
    assert [s["points"] for s in r["seats"]] == [105, 70]


def test_a_league_of_deals_is_not_played_in_legs():
    st = SeriesState("league", 2, seed=1, games_target=3, rule_set="super-crazy-eights")
    assert st.module is None and "leg" not in st.info() and st.info()["of"] == 3


def test_crazy_eights_match_to_100_end_to_end():
    raw = {"event": {"name": "m", "format": "match", "rule_set": "crazy-eights", "seed": 4,
                     "games": 3, "options": TARGET},
           "entrants": entrants("a", "b")}
    db, event_id = run_event(raw, 1)
    series = store.series_rows(db, event_id)[0]
    legs: dict[int, list] = {}
    for gm in store.series_games(db, series["id"]):
        legs.setdefault(gm["leg"], []).append([st["points"] for st in gm["seats"]])
    assert sorted(legs) == list(range(len(legs))) and len(legs) >= 2
    wins = [0, 0]
    for deals in legs.values():
        totals = [sum(d[s] for d in deals) for s in range(2)]
        before = [sum(d[s] for d in deals[:-1]) for s in range(2)]
        assert max(totals) >= 100 > max(before)  # each leg ends when a total reaches 100
        if totals[0] != totals[1]:
            wins[totals.index(min(totals))] += 1
    assert [e["wins"] for e in series["entrants"]] == wins
    assert max(wins) == 2 and series["status"] == "finished"
    assert series["winner_id"] == series["entrants"][wins.index(2)]["entrant_id"]
    summary = event_summary(db, event_id)
    assert summary["series"][0]["legs"] == len(legs)
    by_name = {r["entrant"]: r for r in summary["standings"]}
    assert [by_name[e["name"]]["series"]["legs_won"] for e in series["entrants"]] == wins
    assert summary["standings"][0]["series"]["legs_won"] == 2


def test_super_crazy_eights_match_leg_is_fifteen_deals():
    raw = {"event": {"name": "s", "format": "match", "rule_set": "super-crazy-eights", "seed": 7,
                     "games": 1},
           "entrants": entrants("a", "b", "c")}
    db, event_id = run_event(raw, 1)
    rows = list(db.query("select g.leg, o.options from games g join replays r on r.game_id = g.id "
                         "join option_sets o on o.id = r.options_id order by g.idx"))
    deals = [json.loads(r["options"])["deal"] for r in rows]
    assert deals[:15] == list(range(1, 16)) and {r["leg"] for r in rows[:15]} == {0}
    assert len(rows) % 15 == 0  # only whole legs (a tied leg is played again)
    series = store.series_rows(db, event_id)[0]
    assert series["status"] == "finished"


def test_bots_are_told_the_leg_and_deal(monkeypatch):
    from tourney.events import play as play_module  # where run_series looks play_game up

    seen = []
    real = play_module.play_game

    def spy(entrants, **kw):
        seen.append(kw["series"])
        return real(entrants, **kw)

    monkeypatch.setattr(play_module, "play_game", spy)
    task = SeriesTask(idx=0, kind="match", rule_set="crazy-eights", options=TARGET,
                              event_seed=4, seed=seeding.series_seed(4, 0), games_target=3,
                              max_games=None, entrants=entrants("a", "b"))
    games = []
    run_series(task, lambda msg: games.append(msg[2]))
    assert [s["game"] for s in seen] == list(range(1, len(games) + 1))
    assert [s["leg"] - 1 for s in seen] == [g["leg"] for g in games]
    for s, g in zip(seen, games):
        deals_before = [h for h in games if h["leg"] == g["leg"] and h["idx"] < g["idx"]]
        assert s["deal"] == len(deals_before) + 1
        assert s["leg_scores"] == [sum(h["points"][p] for h in deals_before) for p in range(2)]
        assert s["best_of"] == 3 and s["kind"] == "match"


def test_a_series_resumed_in_the_middle_of_a_leg_continues_exactly():
    def task(seed, done=()):
        return SeriesTask(idx=0, kind="match", rule_set="crazy-eights", options=TARGET,
                                  event_seed=seed, seed=seeding.series_seed(seed, 0),
                                  games_target=3, max_games=None, entrants=entrants("a", "b"),
                                  done=list(done))

    def key(g):
        return (g["idx"], g["leg"], g["first_player"], g["seed"], g["winners"], g["points"])

    # the first event seed whose match has a later leg of several deals: cut inside that leg,
    # so the resumed series must rebuild the leg's dealer (the previous leg's loser) and totals
    for seed in range(50):
        whole = []
        run_series(task(seed), whole.append)
        games = [m[2] for m in whole]
        legs = [g["leg"] for g in games]
        cuts = [i for i in range(1, len(games)) if legs[i] == legs[i - 1] and legs[i] > 0]
        if cuts:
            break
    assert cuts, "no seed gave a later leg of several deals"
    rest = []
    run_series(task(seed, games[:cuts[0]]), rest.append)
    assert [key(m[2]) for m in rest] == [key(g) for g in games[cuts[0]:]]
    assert rest[-1][3] == whole[-1][3]  # the same series result
