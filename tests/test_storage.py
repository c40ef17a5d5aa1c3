"""Bounded storage (issue 42): the keep-logs policy, the ladder's kept stage sums, ``tourney
compact`` and ``tourney backup``. Games are real games of the engine's bots, stored through the
store's API into a ladder's event (as its runner stores them), so that every one replays."""

from __future__ import annotations

import json
import re
import sqlite3
import threading

import pytest
from helpers import ROOT

import engine
from engine.bots import make_bot
from tourney.ladder import page as ladder_page
from tourney.ladder import service
from tourney.results import ladder as rows
from tourney.results import logs, maintenance, store
from tourney.stats.mle import stages_of

#: what each bot wrote to stderr in a game: long enough to be cut
NOISE = "x" * 3000


def played(seed: int) -> dict:
    game = engine.new_game("crazier-eights", players=2, seed=seed, first_player=seed % 2)
    bots = [make_bot("greedy", seed), make_bot("random", seed)]
    while (d := game.pending) is not None:
        game.apply(bots[d.player].choose(d, lambda s=d.player: game.view(s)))
    r = game.result
    return {"seed": seed, "first": seed % 2, "choices": list(game.choices), "winners": r.winners,
            "reason": r.reason, "points": r.points, "placements": r.placements}


SAMPLES = [played(seed) for seed in range(6)]


def payload(g: dict, entrant_ids: list[int], fault_seat: int | None) -> dict:
    first = g["first"]
    return {
        "idx": 0, "rule_set": "crazier-eights", "options": {}, "seed": g["seed"], "players": 2,
        "first_player": first, "turn_order": [first, 1 - first], "teams": None, "winners": g["winners"],
        "reason": g["reason"], "detail": "", "decisions": len(g["choices"]), "seconds": 0.0,
        "choices": g["choices"], "stderr": {0: f"seat0 {NOISE}", 1: f"seat1 {NOISE}"},
        "faults": {} if fault_seat is None else {fault_seat: "timeout: no answer in 1 s"},
        "seats": [{"seat": s, "entrant_id": entrant_ids[s], "points": g["points"][s],
                   "placement": g["placements"][s], "eliminated": 0,
                   "fault": "timeout" if s == fault_seat else None} for s in range(2)],
    }


def name_of(db, entrant_id: int) -> str:
    return db.execute("select name from entrants where id = ?", [entrant_id]).fetchone()[0]


def fill(db, name: str = "spring", games: int = 30, keep_logs="all") -> dict:
    """A ladder of three built-in versions with ``games`` stored games, each bot writing
    :data:`NOISE` to stderr; every 7th game has a fault at seat 1."""
    service.new_ladder(db, name, "crazier-eights", 2, seed=1, keep_logs=keep_logs)
    ladder = service.get(db, name)
    for author in ("ann", "bo", "cy"):
        v = rows.add_version(db, ladder, author, {"builtin": "random"})
        rows.set_version_status(db, v["id"], "active")
    ids = [v["entrant_id"] for v in rows.versions(db, ladder["id"])]
    for k in range(games):
        table = [ids[k % 3], ids[(k + 1) % 3]]
        store.add_series(db, ladder["event_id"], [{"idx": k, "round": 0, "kind": "league", "seed": k,
                                                   "games_target": 1, "entrants": [
                                                       name_of(db, e) for e in table]}])
        sid = db.execute("select id from series where event_id = ? and idx = ?", [ladder["event_id"], k]).fetchone()[0]
        store.record_game(db, ladder["event_id"], sid, payload(SAMPLES[k % len(SAMPLES)], table,
                                                               1 if k % 7 == 3 else None))
    return service.get(db, name)


def snapshot(db, ladder: dict) -> dict:
    """What must not change: the standings, every game's replay and readable log, the faults."""
    ids = [r[0] for r in db.execute("select id from games where event_id = ? order by id", [ladder["event_id"]])]
    return {"standings": service.standings(db, ladder["name"]),
            "replays": {i: dict(store.load_replay(db, i).items()) for i in ids},
            "logs": {i: store.game_log(db, i) for i in ids},
            "faults": dict(db.execute("select game_id, faults from game_logs where faults != '{}'")),
            "totals": db.execute("select event_id, entrant_id, games, wins, draws, losses, points, faults "
                                 "from entrant_totals order by entrant_id").fetchall()}


def stderr_of(db, game_id: int) -> dict:
    row = db.execute("select stderr from game_logs where game_id = ?", [game_id]).fetchone()
    return json.loads(row[0]) if row and row[0] else {}


def last_games(db, entrant_id: int, n: int) -> list[int]:
    return [r[0] for r in db.execute("select game_id from seats where entrant_id = ? order by game_id desc limit ?",
                                     [entrant_id, n])]


def test_the_policy_keeps_each_versions_last_games_and_the_faults(tmp_path):
    db = store.open_db(tmp_path / "t.db")
    ladder = fill(db, keep_logs=3)
    rows.tidy(db, ladder)
    keep = {}
    for gid, seat, entrant, fault in db.execute("select game_id, seat, entrant_id, fault from seats"):
        text = stderr_of(db, gid).get(str(seat), "")
        if gid in last_games(db, entrant, 3):
            assert text == f"seat{seat} {NOISE}"  # in full
        elif fault:
            assert text == f"seat{seat} {NOISE}"[-logs.FAULT_TAIL:]  # its end
        else:
            assert text == ""
        keep[(gid, seat)] = text
    # faults are kept whatever the window
    faulted = db.execute("select count(*) from seats where fault is not null").fetchone()[0]
    assert faulted == 4 and all(json.loads(f) for (f,) in db.execute(
        "select faults from game_logs where faults != '{}'"))
    assert len(list(db.execute("select 1 from game_logs where faults != '{}'"))) == faulted
    # applying it again changes nothing, and neither does a later batch to the games it kept
    rows.tidy(db, ladder)
    assert all(stderr_of(db, g).get(str(s), "") == t for (g, s), t in keep.items())


def test_the_runner_keeps_the_policy_and_the_stage_sums_after_each_batch(run):
    run("ladder", "new", "spring", "--seed", "3", "--keep-logs", "5")
    for author, bot in (("ann", "greedy"), ("bo", "random"), ("cy", "random")):
        run("ladder", "submit", "spring", author, "--builtin", bot)
    run("ladder", "run", "spring", "--games", "20", "-q", "-j", "1")
    with sqlite3.connect(run.db) as con:
        through, games, settings = con.execute("select stages_through, stages_games, settings from ladders").fetchone()
        assert (through, games) == con.execute("select max(id), count(*) from games").fetchone()
        assert json.loads(settings)["keep_logs"] == 5
        marks = [m for (m,) in con.execute("select logs_through from entrant_totals")]
        assert len(marks) == 3 and all(m > 0 for m in marks)  # each version's window has moved
    assert "--keep-logs must be" in run("ladder", "new", "x", "--keep-logs", "-2", ok=False).stderr


def test_kept_stage_sums_give_the_fit_of_every_game(tmp_path):
    db = store.open_db(tmp_path / "t.db")
    ladder = fill(db, games=40)
    from_games = service.standings(db, "spring")  # nothing folded yet: every game read
    rows.fold_stages(db, ladder["id"])
    assert db.execute("select stages_games from ladders").fetchone()[0] == 40
    assert service.standings(db, "spring") == from_games
    # half folded, half read after the mark: the same again
    middle = db.execute("select id from games order by id limit 1 offset 19").fetchone()[0]
    sums: dict = {}
    for _, seats in rows.games(db, ladder["event_id"], 0)[:20]:
        for chosen, group, w in stages_of(seats):
            key = (",".join(map(str, group)), chosen)
            sums[key] = sums.get(key, 0.0) + w
    with db.atomic():
        db.execute("delete from ladder_stages")
        db.execute("update ladders set stages_through = ?, stages_games = 20", [middle])
        db.conn.executemany("insert into ladder_stages values (?, ?, ?, ?)",
                            [(ladder["id"], m, c, w) for (m, c), w in sums.items()])
    assert service.standings(db, "spring") == from_games


def test_compact_keeps_standings_replays_and_faults_exact(tmp_path, run):
    db = store.open_db(run.db)
    ladder = fill(db, games=30)  # keeps every log
    before = snapshot(db, ladder)
    size_before = sum(len(e or "") for (e,) in db.execute("select stderr from game_logs"))
    db.conn.close()
    r = run("compact", "--ladder", "spring", "--keep-logs", "2", "--vacuum")
    said = re.search(r"ladder spring: 30 games; ([\d,]+) characters of stderr dropped, 0 older rows rewritten; "
                     r"database ([\d.]+) MB -> ([\d.]+) MB", r.stderr)
    assert said and int(said[1].replace(",", "")) > 0, r.stderr
    db = store.open_db(run.db)
    after = snapshot(db, ladder)
    assert after == before
    size_after = sum(len(e or "") for (e,) in db.execute("select stderr from game_logs"))
    assert size_after < size_before / 5
    assert float(said[3]) < float(said[2])
    # every game still replays to its stored result
    for gid, winners in db.execute("select id, winners from games"):
        row = store.load_replay(db, gid)
        assert store.replay_game(row).result.winners == json.loads(winners)
    r = run("compact", ok=False)
    assert r.exit_code == 2 and "--event NAME or --ladder NAME" in r.stderr


def test_compact_rewrites_rows_of_an_older_file(tmp_path):
    db = store.open_db(tmp_path / "t.db")
    ladder = fill(db, games=8)
    before = snapshot(db, ladder)
    # as a file written before m008_scale stored them: options and choices inline, a readable log
    for gid, in db.execute("select game_id from replays").fetchall():
        row = store.load_replay(db, gid)
        db.execute("update replays set options = ?, choices = ?, choices_z = null, options_id = null "
                   "where game_id = ?", [row["options"], row["choices"], gid])
        db.execute("update game_logs set log = 'old log' where game_id = ?", [gid])
    db.conn.commit()
    done = maintenance.compact(db, ladder["event_id"], None, ladder["id"])
    assert done["rows_rewritten"] == 8
    inline = "select count(*) from replays where choices is not null or options is not null"
    assert db.execute(inline).fetchone()[0] == 0
    assert db.execute("select count(*) from game_logs where log is not null").fetchone()[0] == 0
    assert snapshot(db, ladder) == before


def test_backup_beside_a_running_writer_is_a_whole_copy(tmp_path, run):
    db = store.open_db(run.db)
    ladder = fill(db, games=10)
    ids = [v["entrant_id"] for v in rows.versions(db, ladder["id"])][:2]
    db.conn.close()
    stop = threading.Event()
    written = []

    def writer() -> None:  # a ladder's runner: one game per commit, as fast as it can
        w = store.open_db(run.db)
        k = 100
        while not stop.is_set():
            store.add_series(w, ladder["event_id"], [{"idx": k, "round": 0, "kind": "league", "seed": k,
                                                      "games_target": 1, "entrants": [
                                                          name_of(w, e) for e in ids]}])
            sid = w.execute("select max(id) from series").fetchone()[0]
            store.record_game(w, ladder["event_id"], sid, payload(SAMPLES[k % 6], ids, None))
            written.append(k)
            k += 1
        w.conn.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while len(written) < 5:
            stop.wait(0.01)
        dest = tmp_path / "copies" / "monday.db"
        r = run("backup", run.db, str(dest))
        assert "backup of" in r.stderr
    finally:
        stop.set()
        thread.join()
    assert not (tmp_path / "copies" / "monday.db.part").exists()
    copy = sqlite3.connect(dest)
    games = copy.execute("select count(*) from games").fetchone()[0]
    assert 15 <= games <= 10 + len(written)
    # the copy is consistent: every stored game has its seats, replay and totals
    assert copy.execute("select count(*) from seats").fetchone()[0] == 2 * games
    assert copy.execute("select count(*) from replays").fetchone()[0] == games
    assert copy.execute("select sum(games) from entrant_totals").fetchone()[0] == 2 * games
    assert copy.execute("pragma journal_mode").fetchone()[0] == "delete"
    copy.close()
    # a restore is that file put in place: it opens and reads
    assert service.standings(store.open_db(dest), "spring")["games_played"] == games
    r = run("backup", run.db, str(dest), ok=False)
    assert r.exit_code == 2 and "already exists" in r.stderr


@pytest.mark.parametrize("text, keep", [("all", None), ("0", 0), ("20", 20)])
def test_keep_logs_values(text, keep):
    assert logs.parse_keep(text) == keep


NOISY_BOT = (ROOT / "examples" / "bots" / "random_bot.py").read_text().replace(
    '            if "seed" in message:',
    '            sys.stderr.write("NOISE\\n")\n            sys.stderr.flush()\n            if "seed" in message:', 1)


def test_an_events_storage_table_cuts_stderr_when_it_ends(tmp_path, run):
    (tmp_path / "bot").mkdir()  # apart from the database, which the sandbox hides
    (tmp_path / "bot" / "noisy.py").write_text(NOISY_BOT)
    config = tmp_path / "e.toml"
    config.write_text(
        '[event]\nname = "cup"\nformat = "league"\nplayers = 2\ngames = 6\nseed = 1\n\n'
        '[storage]\nkeep_logs = 2\n\n'
        '[[entrants]]\nname = "noisy"\ncommand = ["{python}", "noisy.py"]\ncwd = "bot"\n\n'
        '[[entrants]]\nname = "house"\nbuiltin = "greedy"\n')
    run("run", str(config), "-q")
    with sqlite3.connect(run.db) as con:
        kept = [g for (g,) in con.execute("select game_id from game_logs where stderr like '%NOISE%'")]
        last = [g for (g,) in con.execute("select id from games order by id desc limit 2")]
    assert sorted(kept) == sorted(last)
    before = json.loads(run("standings", "cup", "--json").stdout)
    r = run("compact", "--event", "cup", "--keep-logs", "0")
    assert "event cup: 6 games" in r.stderr
    with sqlite3.connect(run.db) as con:
        assert con.execute("select count(*) from game_logs where stderr like '%NOISE%'").fetchone()[0] == 0
    assert json.loads(run("standings", "cup", "--json").stdout) == before
    bad = tmp_path / "bad.toml"
    bad.write_text(config.read_text().replace("keep_logs = 2", "keep_logs = -1"))
    r = run("run", str(bad), ok=False)
    assert r.exit_code == 2 and "storage.keep_logs" in r.stderr


def test_the_page_charts_a_hundred_fits_at_most_and_ranks_as_pair_by_pair(tmp_path):
    db = store.open_db(tmp_path / "t.db")
    ladder = fill(db, games=30)
    for k in range(250):
        rows.save_fit(db, ladder["id"], k + 1, {e: [k / 100, 0.1] for e in (1, 2, 3)})
    history = rows.fit_history(db, ladder["id"], points=100)
    assert len(history) == 100 and history[0][0] == 1 and history[-1][0] == 250
    assert [g for g, _, _ in history] == sorted({g for g, _, _ in history})
    assert len(rows.fit_history(db, ladder["id"])) == 250
    page = ladder_page.page(db, ladder["id"])
    assert len(page["course"]["games"]) == 100
    # the rank ranges of the page (every pair at once) are those of separated(), pair by pair
    from tourney.ladder.ratings import Ratings
    from tourney.stats.separation import rank_ranges_from

    fit = Ratings(db, ladder).refit()
    order = sorted(range(fit.n), key=lambda i: (-fit.theta[i], i))
    slow = rank_ranges_from([str(i) for i in order], lambda a, b: fit.separated(int(a), int(b)))
    assert fit.rank_ranges() == {int(r.entrant): r for r in slow}
