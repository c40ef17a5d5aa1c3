"""A ladder as a service that runs for weeks (docs/ladder.md, "Running a ladder for a term"):
the warm processes of a version that leaves play leave the workers with it, in every way of
playing (one process, a local pool, a cluster)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import RANDOM_BOT, processes_with

from tourney.ladder import limits as ladder_limits
from tourney.ladder import service
from tourney.results import ladder as rows
from tourney.results import store


def live(marker: str) -> int:
    """How many live (not ended) processes run the bot file ``marker``."""
    return len(processes_with(marker, also=marker, zombies=False))


def counting_run(tmp_path: Path, leave: str, sandbox: str = "off", **kwargs) -> list[tuple[bool, int]]:
    """A ladder of two program bots (``ann_v1``, ``bo_v1``, each a copy of the example random
    bot, kept warm) and a built-in one. After its fourth game ann's v1 leaves play (``leave``:
    ``retired`` by a v2, ``withdrawn`` by the organiser (``ladder retire``), or ``disabled``).
    Returns, at each choice of a batch, whether v1 had left play by its end (a v2 is checked at
    its start), and v1's live processes when it began."""
    tmp_path.chmod(0o755)  # a sandboxed bot runs as nobody when the tests run as root
    bots = {}
    for name in ("ann_v1", "ann_v2", "bo_v1"):
        bots[name] = tmp_path / f"{name}.py"
        bots[name].write_text(Path(RANDOM_BOT).read_text())
    db = store.open_db(tmp_path / "l.db")
    service.new_ladder(db, "s", "crazier-eights", 2, seed=5, limits={"sandbox": sandbox})
    ann1 = service.submit(db, "s", "ann", ["{python}", str(bots["ann_v1"])])
    service.submit(db, "s", "bo", ["{python}", str(bots["bo_v1"])])
    service.submit(db, "s", "cy", builtin="greedy")
    seen: list[tuple[bool, int]] = []

    def left() -> bool:
        return rows.version(db, ann1["id"])["status"] != "active"

    class Counting(service.LadderRun):
        def next_tasks(self, count, top=None):
            before = live(str(bots["ann_v1"]))  # its full path: no other run's process
            tasks = super().next_tasks(count, top)
            seen.append((left(), before))
            return tasks

    def on_game(names, payload):
        if runner.played == 4:
            if leave == "retired":
                service.submit(db, "s", "ann", ["{python}", str(bots["ann_v2"])], check=False)
            elif leave == "withdrawn":
                service.retire(db, "s", ann1["entrant"], "too slow for the term", by="org")
            else:  # as the run does it when a version keeps faulting
                rows.set_version_status(db, ann1["id"], "disabled", "faulted in 3 of its last 3 games")

    runner = Counting(db, "s", batch=4, on_game=on_game, **kwargs)
    runner.play(games=16)
    assert rows.version(db, ann1["id"])["status"] == ("retired" if leave == "withdrawn" else leave)
    assert live(str(bots["ann_v1"])) == 0
    return seen


def assert_left_within_one_batch(seen: list[tuple[bool, int]]) -> None:
    # the choice of a batch that first finds v1 gone finds its warm processes still there (what
    # is counted could be counted) and says them goodbye; when the next batch is chosen (the
    # batch in play then is over), none is left
    found = [k for k, (gone, _) in enumerate(seen) if gone]
    assert len(found) >= 2 and seen[found[0]][1] > 0, seen
    assert all(before == 0 for _, before in seen[found[0] + 1:]), seen


@pytest.mark.parametrize("concurrency,leave,sandbox", [(1, "retired", "off"), (2, "retired", "off"),
                                                      (2, "disabled", "off"), (2, "retired", "on"),
                                                      (1, "withdrawn", "off"), (2, "withdrawn", "on")])
def test_a_version_that_leaves_play_leaves_the_workers(tmp_path, concurrency, leave, sandbox):
    if sandbox == "on":
        from tourney.bots import sandbox as isolation

        if isolation.problem():
            pytest.skip(f"no bot sandbox here: {isolation.problem()}")
    seen = counting_run(tmp_path, leave, sandbox, concurrency=concurrency)
    assert_left_within_one_batch(seen)


def test_a_version_that_leaves_play_leaves_the_cluster_workers(tmp_path):
    distributed = pytest.importorskip("distributed")
    import dask

    with (dask.config.set({"distributed.scheduler.allowed-failures": 0}),
          distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None) as cluster):
        # planning ahead (the cluster's default): tables of v1 may still be in play when it
        # leaves; their processes go when those tables end, within the batch
        seen = counting_run(tmp_path, "retired", cluster=cluster.scheduler_address, cluster_group=2)
    assert_left_within_one_batch(seen)


def test_the_organiser_retires_a_version_by_name_or_author_and_says_why(run, tmp_path):
    db = tmp_path / "r.db"
    assert run("ladder", "new", "r", "--seed", "1", "--db", str(db)).exit_code == 0
    for author in ("ann", "bo"):
        assert run("ladder", "submit", "r", author, "--builtin", "random", "--db", str(db)).exit_code == 0
    done = run("ladder", "retire", "r", "r/ann/v1", "--reason", "too slow", "--by", "org", "--db", str(db))
    assert done.exit_code == 0, done.output
    assert done.stdout.strip() == "r/ann/v1: retired"
    assert run("ladder", "retire", "r", "bo", "--reason", "left the course", "--db", str(db)).exit_code == 0
    database = store.open_db(db, readonly=True)
    versions = {v["entrant"]: v for v in rows.versions(database, rows.find(database, "r")["id"])}
    database.conn.close()
    assert versions["r/ann/v1"]["status"] == versions["r/bo/v1"]["status"] == "retired"
    assert versions["r/ann/v1"]["reason"] == "retired by the organiser (org): too slow"
    again = run("ladder", "retire", "r", "ann", "--reason", "twice", "--db", str(db), ok=False)
    assert again.exit_code == 2 and "no active version" in again.output and "r/ann/v1 retired" in again.output
    unknown = run("ladder", "retire", "r", "cy", "--reason", "?", "--db", str(db), ok=False)
    assert unknown.exit_code == 2 and "no version or author called 'cy'" in unknown.output


# -- limits: every limit an event has, a ladder has ---------------------------------------------

#: the example random bot, writing at every game_start its pid and the limits its hello carried
TELLING_BOT = Path(RANDOM_BOT).read_text().replace(
    'rng.seed(message.get("seed", 0))',
    'rng.seed(message.get("seed", 0))\n            told = message["limits"]', 1).replace(
    '            if "seed" in message:',
    '            sys.stderr.write("pid %d limits %s\\n" % (os.getpid(), json.dumps(told)))\n'
    '            sys.stderr.flush()\n            if "seed" in message:', 1).replace(
    "import random\n", "import json\nimport os\nimport random\n", 1)

#: a bot that asks for 1.5 GiB at every decision (refused at once under the default limit)
HOG_BOT = Path(RANDOM_BOT).read_text().replace(
    '        if kind == "request":',
    '        if kind == "request":\n            hog = bytearray(3 << 29)  # noqa: F841', 1)


def told(db, entrant: str) -> list[tuple[int, dict]]:
    """What the version's processes wrote at each game_start, game by game: (pid, limits)."""
    import json
    import re

    from tourney.results import reads

    out = []
    for (game_id, seat) in db.execute(
            "select st.game_id, st.seat from seats st join entrants e on e.id = st.entrant_id "
            "where e.name = ? order by st.game_id", [entrant]).fetchall():
        text = json.loads(reads.game_output(db, game_id)["stderr"]).get(str(seat), "")
        found = re.search(r"pid (\d+) limits (\{.*\})", text)
        assert found, text
        out.append((int(found[1]), json.loads(found[2])))
    return out


def test_every_limit_is_set_at_new_shown_and_reaches_the_bots(run, tmp_path):
    import re

    from tourney.config import entrant_spec

    bot = tmp_path / "telling_bot.py"
    bot.write_text(TELLING_BOT)
    run("ladder", "new", "spring", "--seed", "3", "--sandbox", "off", "--memory-mb", "900",
        "--cpu-seconds", "50", "--max-processes", "64", "--max-open-files", "100", "--scratch-mb", "32",
        "--time-bank", "3", "--decision-timeout", "4", "--startup-timeout", "8", "--limit", "grace=2",
        "--restart", "series", "--max-games-per-process", "5", "--max-rss-mb", "300")
    shown = run("ladder", "show", "spring").stdout
    for said in ("memory_mb 900", "cpu_seconds 50", "max_processes 64", "max_open_files 100", "scratch_mb 32",
                 "time_bank 3", "decision_timeout 4", "startup_timeout 8", "grace 2", "restart series",
                 "max_games 5", "max_rss_mb 300", "sandbox off"):
        assert said in shown, shown
    run("ladder", "submit", "spring", "ann", "--", sys.executable, str(bot))
    run("ladder", "submit", "spring", "bo", "--builtin", "random")
    run("ladder", "run", "spring", "--games", "2", "-q", "-j", "1")
    db = store.open_db(run.db)
    limits = told(db, "spring/ann/v1")[0][1]
    assert {k: limits[k] for k in ("memory_mb", "cpu_seconds", "max_processes", "max_open_files", "scratch_mb",
                                   "time_bank", "decision_timeout", "startup_timeout", "grace")} == {
        "memory_mb": 900, "cpu_seconds": 50, "max_processes": 64, "max_open_files": 100, "scratch_mb": 32,
        "time_bank": 3, "decision_timeout": 4, "startup_timeout": 8, "grace": 2}
    # the warm-bot settings are the version's (they are not told to the bot)
    ladder = service.get(db, "spring")
    spec = entrant_spec({**ladder_limits.version_spec(ladder, rows.versions(db, ladder["id"])[0]), "name": "x"})
    assert (spec.reuse.restart, spec.reuse.max_games, spec.reuse.max_rss_mb) == ("series", 5, 300)
    # a bad limit is one clear error, and changes nothing
    for args, text in [(("new", "x", "--limit", "bogus=1"), "limits.bogus: unknown limit"),
                       (("new", "x", "--limit", "max_processes=0"), "limits.max_processes"),
                       (("new", "x", "--restart", "often"), "limits.restart: expected 'never', 'series' or 'game'"),
                       (("set", "spring", "--limit", "grace"), "--limit 'grace': expected key=value"),
                       (("set", "spring"), "give a limit to change")]:
        r = run("ladder", *args, ok=False)
        assert r.exit_code == 2 and text in r.stderr and "Traceback" not in r.output, r.output
    assert "x" not in rows.names(db) and "changes" not in service.get(db, "spring")["settings"]
    # a change is said, recorded with who made it, and shown
    r = run("ladder", "set", "spring", "--memory-mb", "700", "--max-rss-mb", "0", "--by", "org")
    assert r.stdout.splitlines() == ["max_rss_mb: 300 -> none", "memory_mb: 900 -> 700"]
    shown = run("ladder", "show", "spring").stdout
    assert "memory_mb 700" in shown and "max_rss_mb none" in shown
    assert re.search(r"^\S+ org: max_rss_mb 300 -> none, memory_mb 900 -> 700$", shown, re.M), shown


def test_the_defaults_hold_strangers_code_to_a_memory_limit(run, tmp_path):
    shown = run("ladder", "new", "spring", "--seed", "3").stdout
    assert "memory_mb 1024" in shown and "max_rss_mb 512" in shown
    bot = tmp_path / "hog_bot.py"
    bot.write_text(HOG_BOT)
    run("ladder", "set", "spring", "--sandbox", "off")  # quicker here; the limit is the same inside
    # the check plays two games: the hog's first decision fails with MemoryError, a crash
    r = run("ladder", "submit", "spring", "hog", "--", sys.executable, str(bot), ok=False)
    assert r.exit_code == 3 and "crash" in r.stdout and "MemoryError" in r.stdout, r.stdout
    assert "timeout" not in r.stdout  # stopped by its limit at once, not by its decision timeout


def test_a_change_is_recorded_and_a_running_ladder_plays_with_it_from_its_next_batch(tmp_path):
    bot = tmp_path / "telling_bot.py"
    bot.write_text(TELLING_BOT)
    db = store.open_db(tmp_path / "l.db")
    service.new_ladder(db, "s", "crazier-eights", 2, seed=5, limits={"sandbox": "off"})
    service.submit(db, "s", "ann", ["{python}", str(bot)])
    service.submit(db, "s", "bo", builtin="random")
    changed_after = []

    def on_game(names, payload):
        if runner.played == 2:
            ladder_limits.set_limits(db, service.get(db, "s"), {"memory_mb": 600, "max_games": 1}, by="organiser")
            changed_after.append(payload["game_id"])

    runner = service.LadderRun(db, "s", batch=2, concurrency=1, on_game=on_game)
    runner.play(games=6)
    seen = told(db, "s/ann/v1")
    assert [limits["memory_mb"] for _, limits in seen] == [1024] * 2 + [600] * 4
    # before: one warm process; after: a fresh process for every game (max_games 1)
    pids = [pid for pid, _ in seen]
    assert pids[0] == pids[1] and len(set(pids[2:])) == 4 and pids[1] not in pids[2:]
    change = service.get(db, "s")["settings"]["changes"]
    assert change[0]["by"] == "organiser" and change[0]["limits"] == {"memory_mb": [1024, 600],
                                                                       "max_games": [None, 1]}


# -- a service an organiser can run -------------------------------------------------------------


def test_game_lines_go_to_stdout_as_json_lines_with_json_and_nowhere_with_quiet(run):
    import json

    import jsonschema
    from helpers import ROOT

    run("ladder", "new", "spring", "--seed", "3")
    for author, bot in (("ann", "greedy"), ("bo", "random")):
        run("ladder", "submit", "spring", author, "--builtin", bot)
    r = run("ladder", "run", "spring", "--games", "3", "-j", "1")
    lines = r.stdout.splitlines()
    assert len(lines) == 3 and all(line.startswith("game ") and " > " in line for line in lines), r.stdout
    assert "game " not in r.stderr and "3 game(s) played" in r.stderr  # notes and the total: stderr
    assert run("ladder", "run", "spring", "--games", "2", "-j", "1", "-q").stdout == ""
    r = run("ladder", "run", "spring", "--games", "3", "-j", "1", "--json")
    schema = json.loads((ROOT / "docs" / "schemas" / "ladder-game.schema.json").read_text())
    games = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(games) == 3 and len({g["game_id"] for g in games}) == 3
    for game in games:
        jsonschema.validate(game, schema)
        assert [s["placement"] for s in game["seats"]] == [1, 2]
    # settle --json prints its outcome only: one document
    r = run("ladder", "settle", "spring", "--top", "2", "--games", "2", "-j", "1", "--json")
    assert json.loads(r.stdout)["games"] == 2


@pytest.mark.parametrize("concurrency, group", [("1", False), ("2", False), ("2", True)])
def test_sigterm_stops_a_running_ladder_as_ctrl_c_does_and_says_so(tmp_path, concurrency, group):
    """SIGTERM to the runner alone (systemd's KillMode=mixed), or to its whole process group at
    once (the default, KillMode=control-group: the workers get it too)."""
    import os
    import sqlite3
    import subprocess

    from helpers import ROOT, leftovers, terminate_while_playing

    db = str(tmp_path / "t.db")
    env = {**os.environ, "TOURNEY_DB": db, "PYTHONPATH": str(ROOT)}
    tourney = [sys.executable, "-m", "tourney"]
    bots = []
    for name in ("ann", "bo"):
        bots.append(tmp_path / f"{name}_sigterm_bot.py")
        bots[-1].write_text(Path(RANDOM_BOT).read_text())
    subprocess.run([*tourney, "ladder", "new", "spring", "--seed", "9", "--sandbox", "off"], env=env, check=True,
                   capture_output=True)
    for bot in bots:
        subprocess.run([*tourney, "ladder", "submit", "spring", bot.name.split("_")[0], "--", sys.executable,
                        str(bot)], env=env, check=True, capture_output=True)
    subprocess.run([*tourney, "ladder", "submit", "spring", "cy", "--builtin", "random"], env=env, check=True,
                   capture_output=True)
    with open(tmp_path / "out", "w") as out:
        pid, code, said = terminate_while_playing([*tourney, "ladder", "run", "spring", "-j", concurrency], env,
                                                  Path(db), 4, group, tmp_path, stdout=out)
    assert code == 143, said
    assert "stopped (SIGTERM): every finished game is stored" in said and "Traceback" not in said
    # no bot of the run is left, nor any process of its session
    assert all(processes_with(str(bot), also=str(bot), zombies=False) == [] for bot in bots)
    assert [p for p in leftovers({pid}) if p[3] == pid] == []  # (zombies adopted earlier aside)
    con = sqlite3.connect(db)
    stored = con.execute("select count(*) from games").fetchone()[0]
    assert con.execute("select count(*) from seats").fetchone()[0] == 2 * stored
    assert con.execute("select count(*) from series where status = 'finished'").fetchone()[0] == stored
    con.close()
    printed = [line for line in (tmp_path / "out").read_text().splitlines() if line.startswith("game ")]
    assert stored - 1 <= len(printed) <= stored  # each stored game printed (but one stored as the signal came)
    done = subprocess.run([*tourney, "ladder", "run", "spring", "--games", "2", "-q", "-j", "1"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0 and "2 game(s) played" in done.stderr, done.stderr


@pytest.mark.parametrize("trusted, second_client_held_up", [(None, False), ("none", True), ("10.9.8.7", True)])
def test_the_rate_limit_counts_the_client_the_trusted_proxy_names(tmp_path, trusted, second_client_held_up):
    """Behind a reverse proxy every request comes from the proxy: the rate limit on codes counts
    the client its X-Forwarded-For names when the proxy is trusted (by default one on this
    machine), and the connecting address otherwise, whatever the header says."""
    import http.client
    import re
    from urllib.parse import urlencode

    from helpers import start_serve, stop_serve

    from tourney.club import codes
    from tourney.club.league import League
    from tourney.web.club_access import MAX_FAILURES

    path = tmp_path / "club.db"
    league = League.create(store.open_db(path), "thu", ["Ann", "Bob"], seed=3, by="sec")
    codes.new_code(league, by="sec")
    proc, url = start_serve(path, "--club-entry", *(["--trusted-proxy", trusted] if trusted else []))
    try:
        host, port = url.removeprefix("http://").split(":")
        con = http.client.HTTPConnection(host, int(port), timeout=60)
        con.request("GET", f"/league/{league.id}")
        page = con.getresponse()
        cookie = page.getheader("set-cookie").split(";")[0]
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page.read().decode())[1]

        def wrong_code(client: str) -> int:
            con.request("POST", f"/league/{league.id}/code", urlencode({"csrf": csrf, "code": "AAAA-AAAA-AAAA"}),
                        {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded",
                         "X-Forwarded-For": client})
            response = con.getresponse()
            response.read()
            return response.status

        assert [wrong_code("203.0.113.7") for _ in range(MAX_FAILURES + 1)] == [403] * MAX_FAILURES + [429]
        assert wrong_code("203.0.113.8") == (429 if second_client_held_up else 403)
    finally:
        stop_serve(proc)


def test_a_trusted_proxy_that_is_not_an_address_is_one_error_line(run):
    for value, text in [("*", "would let every client choose"), ("proxy.local", "not an IP address")]:
        r = run("serve", "--trusted-proxy", value, ok=False)
        assert r.exit_code == 2 and text in r.stderr and "Traceback" not in r.output, r.output
