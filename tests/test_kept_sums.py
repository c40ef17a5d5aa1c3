"""The sums an event page reads are kept by the writer, and equal what the stored rows give when
counted again (docs/scale.md, "Kept sums"): each entrant's series totals and legs won
(``entrant_totals``, with each finished series or bye) and the seat balance's counts
(``follow_tallies`` and ``seat_tallies``, with each game of three seats or more). An event page
then costs the same at 10^6 games as at 10^3."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tourney.results import schema, seat_balance, store

NAMES = ["A", "B", "C", "D", "E"]

#: the standings view as first written: series totals summed over every finished series
SUMMED_VIEW = schema.EVENT_STANDINGS.replace(schema._GAME_TOTALS_SUMMED, schema.GAME_TOTALS_KEPT)


def summed_rows(db, event_id: int) -> list[dict]:
    db.execute(f"CREATE TEMP VIEW IF NOT EXISTS summed_standings AS {SUMMED_VIEW}")
    return [dict(r) for r in db.query("SELECT * FROM summed_standings WHERE event_id = ? ORDER BY entrant_id",
                                      [event_id])]


def kept_rows(db, event_id: int) -> list[dict]:
    return [dict(r) for r in db.query("SELECT * FROM event_standings WHERE event_id = ? ORDER BY entrant_id",
                                      [event_id])]


def _event(db, kinds: list[str]) -> tuple[int, list[dict]]:
    event = {"name": "k", "format": "round-robin", "rule_set": "crazier-eights", "seed": 1, "players": 4,
             "games": 3}
    schedule = [{"idx": i, "kind": kind, "seed": i, "games_target": 3,
                 "entrants": NAMES[:1] if kind == "bye" else NAMES[i % 2:i % 2 + 4], "bye": [1.0, 0.5, 0.0][i % 3]}
                for i, kind in enumerate(kinds)]
    event_id = store.create_event(db, event, [{"name": n, "builtin": "random"} for n in NAMES], schedule, {}, "test")
    return event_id, store.series_rows(db, event_id)


def _payload(idx: int, seats: list[dict]) -> dict:
    return {"idx": idx, "leg": idx, "rule_set": "crazier-eights", "options": {}, "seed": idx,
            "players": len(seats), "first_player": 0, "turn_order": list(range(len(seats))), "teams": None,
            "winners": [i for i, s in enumerate(seats) if s["placement"] == 1], "reason": "t", "choices": [],
            "seats": [{"seat": i, **s} for i, s in enumerate(seats)]}


fault_st = st.one_of(st.none(), st.tuples(st.sampled_from(["crash", "timeout", "illegal"]), st.booleans()))
table_st = st.tuples(
    st.integers(0, 5),  # which series
    # (seat of the series, place, fault and whether it cost the game)
    st.lists(st.tuples(st.integers(0, 3), st.integers(1, 4), fault_st), min_size=1, max_size=4),
    st.one_of(st.none(), st.tuples(st.sampled_from(["win", "draw"]), st.integers(0, 3))),  # ends the series?
)


@given(kinds=st.lists(st.sampled_from(["match", "league", "bye"]), min_size=6, max_size=6),
       games=st.lists(table_st, max_size=25), batch=st.integers(1, 4))
def test_the_kept_sums_equal_the_stored_rows_counted_again(kinds, games, batch):
    """Any series (matches, leagues, byes worth a win, a draw or a loss), games at tables of one to
    four seats in any seat order, series ended with a winner or drawn (the shared first place
    drawn), in batches of any size."""
    db = store.open_db(":memory:")
    event_id, series = _event(db, kinds)
    played = {s["id"]: 0 for s in series}
    ended: set[int] = set()
    items = []
    for k, seats, end in games:
        s = series[k]
        if s["kind"] == "bye" or s["id"] in ended:
            continue
        entrants = s["entrants"]
        rows = [{"entrant_id": entrants[j % len(entrants)]["entrant_id"], "placement": place, "points": place,
                 "fault": fault and fault[0], "forfeit": fault and fault[1]} for j, place, fault in seats]
        result = None
        if end is not None:
            ended.add(s["id"])
            outcome, winner = end
            ids = [e["entrant_id"] for e in entrants]
            result = {"outcome": outcome, "winner_id": ids[winner] if outcome == "win" else None,
                      "games_played": played[s["id"]] + 1,
                      "entrants": {i: {"wins": n, "points": 10 - n, "placement": 1 if outcome == "draw" and n < 2
                                       else 1 + (i != ids[winner])} for n, i in enumerate(ids)}}
        items.append((s["id"], _payload(played[s["id"]], rows), result))
        played[s["id"]] += 1
    while items:
        store.record_games(db, event_id, items[:batch])
        items = items[batch:]
    assert kept_rows(db, event_id) == summed_rows(db, event_id)
    assert seat_balance.kept(db, event_id) == seat_balance.recount(db, event_id)
    assert kept_faults(db, event_id) == summed_faults(db, event_id)
    assert series_counted(db, event_id)


def series_counted(db, event_id: int) -> bool:
    """The event's kept count of series is the number of its series rows."""
    kept = db.execute("SELECT series_count FROM events WHERE id = ?", [event_id]).fetchone()[0]
    return kept == db.execute("SELECT COUNT(*) FROM series WHERE event_id = ?", [event_id]).fetchone()[0] > 0


def kept_faults(db, event_id: int) -> list[tuple]:
    return db.execute("SELECT entrant_id, fault, count, forfeits FROM fault_tallies WHERE event_id = ? "
                      "ORDER BY entrant_id, fault", [event_id]).fetchall()


def summed_faults(db, event_id: int) -> list[tuple]:
    return db.execute("SELECT entrant_id, fault, count, forfeits FROM entrant_faults WHERE event_id = ? "
                      "ORDER BY entrant_id, fault", [event_id]).fetchall()


def _run(db, path: Path, players: int, games: int, fmt: str = "league") -> int:
    from tourney.config import parse_config
    from tourney.events import runner

    raw = {"event": {"name": f"{fmt}-{players}", "format": fmt, "seed": 3, "games": games, "players": players},
           "entrants": [{"name": n, "builtin": b} for n, b in zip(NAMES, ["greedy", "random"] * 3)]}
    cfg = parse_config(raw, base_dir=str(path))
    event_id, _ = runner.prepare_event(db, cfg, "test")
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1).run()
    return event_id


def test_real_events_keep_the_sums_their_games_give(tmp_path):
    db = store.open_db(":memory:")
    four = _run(db, tmp_path, 4, 2, fmt="round-robin")
    duel = _run(db, tmp_path, 2, 3, fmt="round-robin")
    for event_id in (four, duel):
        assert kept_rows(db, event_id) == summed_rows(db, event_id)
        assert seat_balance.kept(db, event_id) == seat_balance.recount(db, event_id)
        assert series_counted(db, event_id)
    balance = seat_balance.seat_balance(db, four)
    assert balance == seat_balance.seating.balance(seat_balance.event_seatings(db, four))
    assert balance["games"] == db.execute("select count(*) from games where event_id = ?", [four]).fetchone()[0] > 0
    assert seat_balance.seat_balance(db, duel)["games"] == 0  # tables of two are not counted
    assert {r["series_played"] for r in kept_rows(db, duel)} == {len(NAMES) - 1}  # round robin of best-of-3s
    store.delete_event(db, four)  # a restart takes the kept counts with the games
    assert seat_balance.kept(db, four) == ({}, {})


def test_upgrading_a_file_fills_the_sums_the_writer_would_have_kept(tmp_path):
    path = tmp_path / "old.db"
    db = store.open_db(path)
    events = [_run(db, tmp_path, 4, 2, fmt="round-robin"), _run(db, tmp_path, 2, 3, fmt="round-robin")]
    faulty = db.execute("SELECT game_id, seat FROM seats LIMIT 2").fetchall()  # as if two seats had faulted
    for (game_id, seat), fault in zip(faulty, ["crash", "timeout"]):
        db.execute("UPDATE seats SET fault = ?, forfeit = 1 WHERE game_id = ? AND seat = ?", [fault, game_id, seat])
    before = {e: (kept_rows(db, e), seat_balance.kept(db, e), summed_faults(db, e)) for e in events}
    db.execute("ALTER TABLE events DROP COLUMN series_count")
    # the file as an older tourney left it: no kept series totals or seat counts, m020 not applied
    db.create_view("event_standings", SUMMED_VIEW, replace=True)
    for column in ("series_played", "series_won", "series_drawn", "series_lost", "legs_won"):
        db.execute(f"ALTER TABLE entrant_totals DROP COLUMN {column}")
    db.execute("DROP TABLE follow_tallies")
    db.execute("DROP TABLE seat_tallies")
    db.execute("DROP TABLE fault_tallies")
    db.execute("DROP INDEX idx_series_event_kind")
    db.execute("DROP INDEX idx_games_duplicate")
    db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm020_kept_series'")
    db.conn.commit()
    store.close_db(db)
    db = store.open_db(path)
    assert {e: (kept_rows(db, e), seat_balance.kept(db, e), kept_faults(db, e)) for e in events} == before
    assert any(r["series_played"] for e in events for r in kept_rows(db, e))
    assert sum(len(f) for _, _, f in before.values()) == 2
    assert all(series_counted(db, e) for e in events)
    store.close_db(db)


def test_a_ladder_event_at_tables_of_four_is_rated_from_its_kept_stages():
    """The standings' fit of a ladder's event reads the stage sums its runner keeps and the games
    after them; it equals the fit of every game read one by one."""
    import random

    from tourney.ladder import service as ladders
    from tourney.results import ladder as ladder_rows
    from tourney.results import rating_fit
    from tourney.stats.mle import Games

    db = store.open_db(":memory:")
    ladder = ladders.new_ladder(db, "four", "crazier-eights", 4, seed=1)
    for author in "abcdef":
        ladder_rows.add_version(db, ladder, author, {"builtin": "random"})
    ids = {v["entrant"]: v["entrant_id"] for v in ladder_rows.versions(db, ladder["id"])}
    names = sorted(ids)
    rng = random.Random(5)
    schedule = [{"idx": k, "kind": "league", "seed": k, "games_target": 1, "entrants": rng.sample(names, 4)}
                for k in range(60)]
    store.add_series(db, ladder["event_id"], schedule)
    for k, s in enumerate(store.series_rows(db, ladder["event_id"])):
        places = [rng.choice([1, 2, 2, 3, 4]) for _ in s["entrants"]]  # ties among them
        store.record_game(db, ladder["event_id"], s["id"], _payload(0, [
            {"entrant_id": e["entrant_id"], "placement": p, "points": p} for e, p in zip(s["entrants"], places)]))
        if k == 40:
            ladder_rows.fold_stages(db, ladder["id"])  # kept sums for 41 games, 19 after them
    event = dict(db["events"].get(ladder["event_id"]))
    ranks = dict.fromkeys(names, 1)
    got = rating_fit.event_rating(db, event, names, ranks)["rows"]
    every = Games(width=4)
    rating_fit.add_counted(every, rating_fit._distinct_games(db, event["id"], {n: i for i, n in enumerate(names)}))
    expected = rating_fit.rate(names, every, ranks)["rows"]
    assert got == expected
    assert db.execute("SELECT stages_games FROM ladders WHERE id = ?", [ladder["id"]]).fetchone()[0] == 41
    store.add_series(db, ladder["event_id"], [{"idx": 60 + k, "kind": "league", "seed": k, "games_target": 1,
                                              "entrants": names[:4]} for k in range(3)])
    unplayed = [s["id"] for s in store.series_rows(db, ladder["event_id"]) if s["idx"] >= 60]
    ladder_rows.drop_unplayed(db, unplayed[:2])  # tables of a version disabled meanwhile
    assert series_counted(db, ladder["event_id"])
    assert db.execute("SELECT series_count FROM events WHERE id = ?", [ladder["event_id"]]).fetchone()[0] == 61


def test_a_ladder_event_s_rating_course_is_the_fits_its_runner_kept():
    from tourney.ladder import service as ladders
    from tourney.results import ladder as ladder_rows
    from tourney.results.standings import rating_course

    db = store.open_db(":memory:")
    ladder = ladders.new_ladder(db, "course", "crazier-eights", 2, seed=1)
    a, b, c = (ladder_rows.add_version(db, ladder, author, {"builtin": "random"}) for author in "abc")
    ladder_rows.save_fit(db, ladder["id"], 20, {a["entrant_id"]: [0.5, 0.25], b["entrant_id"]: [-0.5, 0.25]})
    ladder_rows.save_fit(db, ladder["id"], 40, {a["entrant_id"]: [0.4, 0.2], b["entrant_id"]: [-0.1, 0.2],
                                                c["entrant_id"]: [-0.3, 0.5]})
    course = rating_course(db, dict(db["events"].get(ladder["event_id"])))
    unit = 400 / 2.302585092994046  # the Elo scale: 400 per factor of ten in the odds
    z = 1.959963984540054
    assert course["games"] == course["rounds"] == [20, 40]
    assert course["series"]["course/a/v1"] == [
        [round(0.5 * unit, 2), round((0.5 - z * 0.25) * unit, 2), round((0.5 + z * 0.25) * unit, 2)],
        [round(0.4 * unit, 2), round((0.4 - z * 0.2) * unit, 2), round((0.4 + z * 0.2) * unit, 2)]]
    assert course["series"]["course/c/v1"] == [None, [round(-0.3 * unit, 2), round((-0.3 - z * 0.5) * unit, 2),
                                                      round((-0.3 + z * 0.5) * unit, 2)]]  # not in the first fit
