"""Running on a Dask cluster: a real scheduler and two real worker processes on 127.0.0.1.

The cluster's games must be exactly the games of a local run of the same config, also when a
worker is killed in the middle of a series; a worker that cannot start an entrant stops the run
before anything is stored.
"""

import json
import os
import re
import signal
import sqlite3
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

import dask  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import tourney.commands  # noqa: E402,F401
from tourney.app import app  # noqa: E402
from tourney.config import parse_config  # noqa: E402
from tourney.events import runner  # noqa: E402
from tourney.events.cluster import ClusterError  # noqa: E402
from tourney.results import store  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cluster():
    # a worker's death fails its task at once, so the main process resumes the series itself
    # (docs/scale.md); the scheduler runs in this process and reads the setting when it starts
    with (dask.config.set({"distributed.scheduler.allowed-failures": 0}),
          distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None) as c):
        yield c.scheduler_address


def raw_config(name, fmt="round-robin", games=2, players=3, **extra):
    return {
        # public seeds: a cluster run and a local run are two events, compared game by game
        "event": {"name": name, "format": fmt, "seed": 11, "games": games, "players": players,
                  "public_seeds": True, **extra},
        "entrants": [
            {"name": "greedy", "builtin": "greedy"},
            {"name": "random", "builtin": "random"},
            {"name": "py-random", "command": ["{python}", "examples/bots/random_bot.py"]},
        ],
    }


def games_of(path):
    """Per (series, game): everything stored that does not depend on where or when it ran."""
    con = sqlite3.connect(path)
    rows = con.execute(
        "select s.idx, g.idx, g.leg, g.seed, g.first_player, g.turn_order, g.winners, g.reason, "
        "r.choices_z, r.forfeits, (select group_concat(st.entrant_id || ':' || st.points || ':' || "
        "st.placement || ':' || coalesce(st.fault, ''), ' ') from seats st where st.game_id = g.id) "
        "from games g join series s on s.id = g.series_id join replays r on r.game_id = g.id "
        "order by s.idx, g.idx").fetchall()
    series = con.execute("select idx, status, outcome, winner_id, games_played from series "
                         "order by idx").fetchall()
    con.close()
    return rows, series


def reap_dead_children():
    """LocalCluster's workers are children of this process, and the bots of a killed worker are
    handed to it too: wait for those that have exited, so that no zombie is left behind."""
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            try:
                os.waitpid(int(entry.name), 0)
            except ChildProcessError:
                pass


def run_locally(raw, path):
    cfg = parse_config(raw, base_dir=str(ROOT))
    db = store.open_db(path)
    event_id, _ = runner.prepare_event(db, cfg, "test")
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1).run()
    db.conn.close()


def test_a_cluster_run_stores_the_games_of_a_local_run(cluster, tmp_path, monkeypatch):
    raw = raw_config("same")
    run_locally(raw, tmp_path / "local.db")
    config = tmp_path / "same.toml"
    import tomli_w

    raw["entrants"][2]["cwd"] = str(ROOT)
    config.write_text(tomli_w.dumps(raw))
    monkeypatch.setenv("TOURNEY_CLUSTER", cluster)  # the environment names the cluster
    result = CliRunner().invoke(app, ["run", str(config), "--db", str(tmp_path / "c.db"), "-q"])
    assert result.exit_code == 0, result.output
    local, on_cluster = games_of(tmp_path / "local.db"), games_of(tmp_path / "c.db")
    assert len(local[0]) == 3 * 2 and all(s[1] == "finished" for s in local[1])
    assert on_cluster == local


def test_a_worker_killed_mid_series_changes_nothing(cluster, tmp_path):
    raw = raw_config("killed", fmt="league", games=40, players=3)
    run_locally(raw, tmp_path / "local.db")

    cfg = parse_config(raw, base_dir=str(ROOT))
    db = store.open_db(tmp_path / "c.db")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    spy = distributed.Client(cluster, set_as_default=False)
    pids = spy.run(os.getpid)
    killed: list[str] = []
    warnings: list[str] = []

    def on_game(series_row, payload):
        if payload["idx"] == 10 and not killed:  # the series is a quarter through
            busy = [w for w, keys in spy.processing().items() if keys]
            killed.append(busy[0])
            os.kill(pids[busy[0]], signal.SIGKILL)

    try:
        runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1, on_game=on_game,
                      on_warn=warnings.append, cluster=cluster).run()
    finally:
        spy.close()
        reap_dead_children()
    db.conn.close()
    assert killed and any("worker died" in w for w in warnings), warnings
    local, on_cluster = games_of(tmp_path / "local.db"), games_of(tmp_path / "c.db")
    assert len(local[0]) == 40 and on_cluster == local


def test_a_bot_missing_on_the_workers_stops_the_run_before_it_starts(cluster, tmp_path):
    raw = raw_config("ghost", games=1)
    raw["entrants"][2] = {"name": "ghost", "command": ["{python}", str(tmp_path / "gone.py")]}
    cfg = parse_config(raw, base_dir=str(ROOT), check_commands=False)
    db = store.open_db(tmp_path / "c.db")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    with pytest.raises(ClusterError) as info:
        runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1,
                      cluster=cluster).run()
    message = str(info.value)
    assert message.startswith("worker tcp://127.0.0.1:") and "\n" not in message
    assert f"entrant 'ghost': script not found: {tmp_path / 'gone.py'}" in message
    assert db["games"].count == 0


def test_an_unreachable_scheduler_is_one_error_line(tmp_path, monkeypatch):
    monkeypatch.setattr("tourney.events.cluster.CONNECT_TIMEOUT", "1s")
    config = tmp_path / "e.toml"
    config.write_text('[event]\nname = "e"\nformat = "single"\ncluster = "tcp://127.0.0.1:9"\n'
                      '[[entrants]]\nname = "a"\nbuiltin = "random"\n'
                      '[[entrants]]\nname = "b"\nbuiltin = "random"\n')
    result = CliRunner().invoke(app, ["run", str(config), "--db", str(tmp_path / "x.db"), "-q"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: cannot reach the Dask scheduler at tcp://127.0.0.1:9"), result.output


def test_an_interrupted_cluster_run_resumes_to_the_games_of_a_local_run(cluster, tmp_path):
    raw = raw_config("stopped", fmt="league", games=12, players=3)
    run_locally(raw, tmp_path / "local.db")
    cfg = parse_config(raw, base_dir=str(ROOT))
    db = store.open_db(tmp_path / "c.db")
    event_id, _ = runner.prepare_event(db, cfg, "test")

    def ctrl_c(series_row, payload):
        if payload["idx"] == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1, on_game=ctrl_c,
                      cluster=cluster).run()
    stored = db["games"].count
    assert 0 < stored < 12
    resumed, resumed_flag = runner.prepare_event(db, cfg, "test")
    assert resumed == event_id and resumed_flag
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1, cluster=cluster).run()
    db.conn.close()
    local, on_cluster = games_of(tmp_path / "local.db"), games_of(tmp_path / "c.db")
    assert len(local[0]) == 12 and on_cluster == local


def test_a_ladder_plays_its_tables_in_groups_on_the_cluster(cluster, tmp_path):
    """A ladder's one-game tables go to the workers several per Dask task; every game is stored
    once and every table is finished."""
    from tourney.ladder import service

    db = store.open_db(tmp_path / "l.db")
    service.new_ladder(db, "c", "crazier-eights", 2, seed=3)
    for author, bot in (("ann", "greedy"), ("bo", "random"), ("cy", "random")):
        service.submit(db, "c", author, builtin=bot)
    done = service.LadderRun(db, "c", cluster=cluster, batch=24, cluster_group=8).play(games=48)
    assert done["games"] == 48
    assert db.execute("select count(*) from games").fetchone()[0] == 48
    assert db.execute("select count(*) from series where status != 'finished'").fetchone()[0] == 0
    assert db.execute("select count(*) from (select series_id from games group by series_id "
                      "having count(*) > 1)").fetchone()[0] == 0


def test_the_workers_keep_warm_bots_for_the_run_and_say_goodbye_at_its_end(cluster, tmp_path):
    memory = str(ROOT / "tests" / "bots" / "memory_bot.py")
    raw = raw_config("warm", games=1, players=2)
    raw["entrants"] = [{"name": f"m{i}", "command": ["{python}", memory], "cwd": str(ROOT),
                        "limits": {"sandbox": "off"}} for i in range(3)] + [{"name": "greedy", "builtin": "greedy"}]
    cfg = parse_config(raw, base_dir=str(ROOT))
    db = store.open_db(tmp_path / "c.db")
    event_id, _ = runner.prepare_event(db, cfg, "test")
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1, cluster=cluster).run()
    pids: dict[str, set[str]] = {}
    for name, seat, stderr in db.execute(
            "select e.name, s.seat, l.stderr from game_logs l join games g on g.id = l.game_id join seats s "
            "on s.game_id = g.id join entrants e on e.id = s.entrant_id where e.name like 'm%'"):
        text = json.loads(stderr).get(str(seat), "")
        pids.setdefault(name, set()).update(re.findall(r"pid (\d+)", text))
    db.conn.close()
    # three series each, on two workers: at most one warm process per worker and entrant
    assert set(pids) == {"m0", "m1", "m2"} and all(1 <= len(p) <= 2 for p in pids.values())
    left = [pid for pid in (int(p) for ps in pids.values() for p in ps) if Path(f"/proc/{pid}").exists()
            and b"memory_bot" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert left == []  # said goodbye on every worker at the run's end


def ladder_db(path, seed=3):
    """A ladder of four built-in versions, made once per seed and copied: every copy has the
    same secret, so the same seeds (a ladder's secret is drawn when it is made)."""
    import shutil

    from tourney.ladder import service

    made = path.parent / f"ladder-{seed}.db"
    if not made.exists():
        db = store.open_db(made)
        service.new_ladder(db, "c", "crazier-eights", 2, seed=seed)
        for author, bot in (("ann", "greedy"), ("bo", "random"), ("cy", "random"), ("di", "greedy")):
            service.submit(db, "c", author, builtin=bot)
        db.conn.close()
    shutil.copy(made, path)
    return store.open_db(path)


def ladder_tables(path):
    """Each table of the ladder (idx, its entrants in seat order) and its game."""
    con = sqlite3.connect(path)
    tables = con.execute("select s.idx, group_concat(se.entrant_id, ' ') from series s join series_entrants se "
                         "on se.series_id = s.id group by s.id order by s.idx").fetchall()
    con.close()
    return tables, games_of(path)


def test_a_ladder_planning_ahead_on_the_cluster_plays_the_tables_and_games_of_a_local_run(cluster, tmp_path):
    """On a cluster the next batch is chosen while the last one plays, from the fit of the
    batches before it: which games each refit reads is fixed by the batches, so the tables (and
    games) are those of a local run that plans the same way, however the workers' games arrive."""
    import random

    from tourney.ladder import service

    db = ladder_db(tmp_path / "local.db")
    service.LadderRun(db, "c", concurrency=1, batch=16, ahead=True, rng=random.Random(4)).play(games=64)
    db.conn.close()
    db = ladder_db(tmp_path / "c.db")
    runner = service.LadderRun(db, "c", cluster=cluster, batch=16, cluster_group=4, rng=random.Random(4))
    assert runner.ahead  # the default on a cluster
    assert runner.play(games=64)["games"] == 64
    db.conn.close()
    local, on_cluster = ladder_tables(tmp_path / "local.db"), ladder_tables(tmp_path / "c.db")
    assert len(local[0]) == 64 and on_cluster == local
    # not the tables of a run that refits after every batch: planning ahead changed the plan
    db = ladder_db(tmp_path / "barrier.db")
    service.LadderRun(db, "c", concurrency=1, batch=16, ahead=False, rng=random.Random(4)).play(games=64)
    db.conn.close()
    assert ladder_tables(tmp_path / "barrier.db")[0] != local[0]


def play_killing_a_worker_with_a_group(cluster, path) -> list[str]:
    """Play 96 tables of the ladder at ``path`` on the cluster in groups of 12, killing a worker
    that holds a group during the second batch; the run's notes."""
    import random

    from tourney.ladder import service

    db = ladder_db(path, seed=8)
    spy = distributed.Client(cluster, set_as_default=False)
    pids = spy.run(os.getpid)
    killed: list[str] = []
    notes: list[str] = []

    def on_game(names, payload):
        if len(killed) == 0 and payload.get("game_id", 0) >= 30:  # in the second batch
            busy = [w for w, keys in spy.processing().items() if any("group" in str(k) for k in keys)]
            if busy:
                killed.append(busy[0])
                os.kill(pids[busy[0]], signal.SIGKILL)

    try:
        runner = service.LadderRun(db, "c", cluster=cluster, batch=24, cluster_group=12, rng=random.Random(2),
                                   on_game=on_game, on_note=notes.append)
        assert runner.play(games=96)["games"] == 96
    finally:
        spy.close()
        reap_dead_children()
        db.conn.close()
    assert killed, "no worker was holding a group"
    return notes


def test_a_worker_killed_in_a_group_of_tables_loses_no_game_and_counts_none_twice(cluster, tmp_path):
    """A worker is killed while it holds a group of tables: the group's tables not stored yet are
    played on the other worker, each stored once, and the note names the worker's death. A kill
    can land just after the group ended and its result was gathered, with nothing left to lose;
    such a run must still store every game once, and the kill is then tried again on a new copy
    of the ladder (the group's games come back within 0.25 s, so that is rare)."""
    import random

    from tourney.ladder import service

    db = ladder_db(tmp_path / "local.db", seed=8)
    service.LadderRun(db, "c", concurrency=1, batch=24, ahead=True, rng=random.Random(2)).play(games=96)
    db.conn.close()
    local = ladder_tables(tmp_path / "local.db")
    assert len(local[1][0]) == 96

    deaths: list[str] = []
    for attempt in range(3):
        notes = play_killing_a_worker_with_a_group(cluster, tmp_path / f"c{attempt}.db")
        assert not any("stopped early" in n for n in notes), notes  # a worker's death is named as such
        assert ladder_tables(tmp_path / f"c{attempt}.db") == local  # each table's one game, stored once
        deaths = [n for n in notes if "worker died" in n]
        if deaths:
            break
    assert deaths, "three kills in a row each landed after their group had ended"


def test_ctrl_c_stops_a_ladder_planning_ahead_and_the_next_run_plays_the_tables_left(cluster, tmp_path):
    from tourney.ladder import service

    db = ladder_db(tmp_path / "c.db")

    def ctrl_c(names, payload):
        if payload.get("game_id") == 20:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        service.LadderRun(db, "c", cluster=cluster, batch=16, cluster_group=4, on_game=ctrl_c).play(games=64)
    stored = db["games"].count
    left = db.execute("select count(*) from series where status = 'pending'").fetchone()[0]
    assert stored >= 20 and left > 0  # the batches planned ahead are kept as tables to play
    assert db.execute("select count(*) from seats").fetchone()[0] == 2 * stored
    done = service.LadderRun(db, "c", cluster=cluster, batch=16, cluster_group=4).play(games=left + 8)
    assert done["games"] == left + 8 and db["games"].count == stored + left + 8
    assert db.execute("select count(*) from series where status != 'finished'").fetchone()[0] == 0
    assert db.execute("select count(*) from (select series_id from games group by series_id "
                      "having count(*) > 1)").fetchone()[0] == 0


def test_the_settle_phase_on_the_cluster_plays_one_batch_at_a_time(cluster, tmp_path):
    """Settling does not plan ahead (its stopping rule reads every game): the cluster asks for a
    batch only once the last one is stored, and every table is played once."""
    import random

    from tourney.ladder import service

    db = ladder_db(tmp_path / "s.db")
    asked: list[int] = []  # games stored each time a batch was asked for
    runner = service.LadderRun(db, "c", cluster=cluster, batch=12, cluster_group=4, rng=random.Random(5))
    choose = runner.next_tasks

    def counted(count, top=None):
        asked.append(db["games"].count)
        return choose(count, top)

    runner.next_tasks = counted  # type: ignore[method-assign]
    done = runner.play(games=36, top=3)
    assert 0 < done["games"] <= 36 and db["games"].count == done["games"]
    assert asked[:3] == [0, 12, 24][:len(asked[:3])]  # each batch after the last one is stored
    assert db.execute("select count(*) from series where status != 'finished'").fetchone()[0] == 0


def test_an_sprt_at_a_table_of_three_plays_the_same_sets_on_the_cluster(cluster, tmp_path):
    # substitution sets: both series of a set share their seeds wherever they are played; a
    # program in the field exercises the workers' warm bots, which must never meet a deal twice
    args = ["sprt", "greedy", "random", "--players", "3", "--field", f"{ROOT / 'examples/bots/random_bot.py'},greedy",
            "--elo1", "150", "--max-games", "96", "--public-seeds", "--name", "t3", "--json"]
    local = CliRunner().invoke(app, [*args, "-j", "1", "--db", str(tmp_path / "local.db")])
    on_cluster = CliRunner().invoke(app, [*args, "--cluster", cluster, "--db", str(tmp_path / "c.db")])
    assert local.exit_code == 0 and on_cluster.exit_code == 0, local.output + on_cluster.output
    assert json.loads(on_cluster.stdout)["sprt"] == json.loads(local.stdout)["sprt"]
    assert games_of(tmp_path / "c.db") == games_of(tmp_path / "local.db")
