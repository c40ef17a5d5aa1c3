"""Warm bots (protocol 1.2 ``reuse``; docs/protocol.md, "Warm bots"): processes kept from series
to series in a worker's pool, the restart settings, clean replacements between games, and
duplicate deals that never meet a process twice."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from helpers import assert_reused_plays_as_fresh, leftovers
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney import seeding
from tourney.app import app
from tourney.bots.entrants import EntrantSpec, open_entrant
from tourney.bots.pool import WarmPool
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy
from tourney.bots.spec import Reuse
from tourney.config import ConfigError, entrant_spec, parse_config
from tourney.events.play import SeriesTask, run_series

ROOT = Path(__file__).resolve().parent.parent
MEMORY = str(ROOT / "tests" / "bots" / "memory_bot.py")
FAULT = str(ROOT / "tests" / "bots" / "fault_bot.py")
LIMITS = {"startup_timeout": 30.0, "decision_timeout": 30.0, "grace": 5.0, "sandbox": "off"}


def memory(name: str, **reuse) -> dict:
    return {"name": name, "command": [sys.executable, MEMORY], "cwd": str(ROOT), "env": {},
            "limits": {**LIMITS, **reuse}}


def task(idx: int, entrants: list[dict], games: int = 2, duplicate: bool = False,
         kind: str = "league") -> SeriesTask:
    return SeriesTask(idx=idx, kind=kind, rule_set="crazier-eights", options={}, event_seed=5,
                      seed=seeding.series_seed(5, idx), games_target=games, max_games=None,
                      entrants=entrants, duplicate=duplicate)


def play(tasks: list[SeriesTask], pool: WarmPool | None) -> list[dict]:
    games: list[dict] = []
    for t in tasks:
        run_series(t, lambda msg: games.append(msg[2]) if msg[0] == "game" else None, pool=pool)
    return games


def pids_by_seat(games: list[dict]) -> list[tuple[int, ...]]:
    """The bot process that played each seat of each game (the memory bot says so on stderr)."""
    return [tuple(int(re.search(r"pid (\d+)", g["stderr"][seat]).group(1)) for seat in range(g["players"]))
            for g in games]


def test_the_memory_bot_reports_a_deal_it_meets_again():
    # the control: the same deal (series index and set) given twice to one process is reported
    spec = EntrantSpec("m", command=("{python}", MEMORY), sandbox=Policy("off"))
    with open_entrant(spec, 1) as bot, open_entrant(EntrantSpec("r", builtin="random"), 2) as other:
        info = {"kind": "match", "game": 1, "index": 3}
        first = play_game([bot, other], seed=1, series=info)
        again = play_game([other, bot], seed=1, series=info)
    assert "REPEAT" not in first.stderr.get(0, "")
    assert "REPEAT deal (3, 0)" in again.stderr[1]


def test_a_warm_process_plays_series_after_series_and_one_pool_plays_the_same_games():
    pool = WarmPool()
    try:
        entrants = [memory("a"), memory("b")]
        warm = play([task(i, entrants if i % 2 == 0 else entrants[::-1]) for i in range(4)], pool)
        pids = pids_by_seat(warm)
        assert len({p for game in pids for p in game}) == 2  # one process per entrant, all along
        assert all(g["faults"] == {} for g in warm)
        kept = [e.pid for group in pool.idle.values() for e in group]
    finally:
        pool.close()
    assert leftovers(set(kept)) == []
    cold = play([task(i, entrants if i % 2 == 0 else entrants[::-1]) for i in range(4)], None)
    assert len({p for game in pids_by_seat(cold) for p in game}) == 8  # a process per series and entrant
    assert [g["choices"] for g in warm] == [g["choices"] for g in cold]


def test_restart_game_gives_every_game_fresh_processes_and_series_every_series():
    per_game = play([task(0, [memory("a", restart="game"), memory("b", restart="game")], games=3)],
                    WarmPool())
    assert len({p for game in pids_by_seat(per_game) for p in game}) == 6
    pool = WarmPool()
    per_series = play([task(i, [memory("a", restart="series"), memory("b", restart="series")])
                       for i in range(2)], pool)
    assert len({p for game in pids_by_seat(per_series) for p in game}) == 4
    assert pool.idle == {}  # nothing was kept


def test_max_games_replaces_the_process_between_games_and_says_so():
    pool = WarmPool()
    try:
        games = play([task(0, [memory("a", max_games=2), memory("b")], games=5)], pool)
    finally:
        pool.close()
    a = [pid for pid, _ in pids_by_seat(games)]
    assert a[0] == a[1] != a[2] == a[3] != a[4]  # two games per process
    assert all(g["faults"] == {} for g in games)
    noted = [i for i, g in enumerate(games) if "[tourney] a new process for this game" in g["stderr"][0]]
    assert noted == [2, 4] and "max_games 2" in games[2]["stderr"][0]


def test_max_rss_replaces_a_process_that_grew_between_games():
    pool = WarmPool()
    try:
        games = play([task(0, [memory("a", max_rss_mb=1), memory("b")], games=2)], pool)
    finally:
        pool.close()
    assert "max_rss_mb 1" in games[1]["stderr"][0]  # any Python holds more than 1 MiB


def test_duplicate_deals_never_meet_a_warm_process_twice():
    pool = WarmPool()
    try:
        entrants = [memory("a"), memory("b")]
        games = play([task(i, entrants, games=3, duplicate=True, kind="match") for i in range(2)], pool)
    finally:
        pool.close()
    assert len(games) >= 8
    assert not any("REPEAT" in text for g in games for text in g["stderr"].values())
    pids = pids_by_seat(games)
    # warm all the same: each entrant's games are shared by two processes (one per seat of a deal)
    assert len({p for game in pids for p in game}) == 4


def test_a_warm_bot_that_leaves_between_series_forfeits_its_next_game_and_is_replaced():
    leaver = {**memory("leaver"), "command": [sys.executable, MEMORY, "leave_after_game"]}
    pool = WarmPool()
    try:
        games = play([task(i, [leaver, memory("b")], games=1) for i in range(3)], pool)
    finally:
        pool.close()
    # it left after series 0's game: the rules had settled that game; it is not quietly
    # restarted but forfeits its next game, in series 1; series 2 gets a new process
    assert [g["faults"].keys() for g in games] == [set(), {0}, set()]
    assert "forfeit:0:crash" in games[1]["choices"] and games[1]["seats"][0]["fault"] == "crash"
    assert pids_by_seat([games[0]])[0][0] != pids_by_seat([games[2]])[0][0]


def test_a_bot_of_protocol_1_0_keeps_one_process_per_series():
    spec = {"name": "old", "command": [sys.executable, FAULT, "legal"], "cwd": str(ROOT), "env": {},
            "limits": LIMITS}
    pool = WarmPool()
    try:
        pool.prestart([(entrant_spec(spec), 1)])  # started ahead, found to be 1.0: goodbye at once
        assert pool.idle == {}
        games = play([task(i, [spec, memory("b")], games=1) for i in range(2)], pool)
    finally:
        pool.close()
    assert [g["faults"] for g in games] == [{}, {}]
    assert Reuse().restart == "never"


def test_a_process_started_ahead_and_never_taken_leaves_with_its_retired_entrant():
    # started ahead, it is not greeted (so not idle) until a series takes it: retire must find it
    # there too, and a later prestart must not start it again
    gone, kept = entrant_spec(memory("gone")), entrant_spec(memory("kept"))
    pool = WarmPool()
    try:
        pool.prestart([(gone, 1), (kept, 1)])
        [ahead] = pool.launched[repr(gone)]
        assert pool.idle == {} and ahead.running
        assert pool.retire([gone]) == 1
        assert ahead.closed and not ahead.running
        assert repr(gone) not in pool.launched and len(pool.launched[repr(kept)]) == 1
        pool.prestart([(gone, 1), (kept, 1)])
        assert repr(gone) not in pool.launched and len(pool.launched[repr(kept)]) == 1
    finally:
        pool.close()


def test_restart_settings_come_from_limits_and_an_entrant_may_override_them():
    cfg = parse_config({
        "event": {"name": "w", "format": "round-robin", "games": 1},
        "limits": {"restart": "series", "max_games": 50},
        "entrants": [{"name": "a", "command": ["x"]},
                     {"name": "b", "command": ["x"], "limits": {"restart": "game", "max_rss_mb": 300}}],
    }, check_commands=False)
    a, b = (entrant_spec(e) for e in cfg.resolved_entrants())
    assert a.reuse == Reuse("series", 50, None) and b.reuse == Reuse("game", 50, 300)
    assert "restart" not in a.limits.to_dict()  # the referee's business: not sent in the hello
    with pytest.raises(ConfigError, match="restart"):
        parse_config({"event": {"name": "w", "format": "round-robin", "games": 1},
                      "limits": {"restart": "sometimes"},
                      "entrants": [{"name": "a", "command": ["x"]}, {"name": "b", "command": ["x"]}]},
                     check_commands=False)


def test_sprt_names_its_restart_setting_and_refuses_a_bad_one(tmp_path):
    runner = CliRunner()
    bot = str(ROOT / "examples" / "bots" / "random_bot.py")
    done = runner.invoke(app, ["sprt", bot, "random", "--max-games", "16", "-j", "1", "--restart", "game",
                               "--db", str(tmp_path / "s.db"), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["sprt"]["restart"] == "game"
    bad = runner.invoke(app, ["sprt", bot, "random", "--restart", "sometimes", "--db", str(tmp_path / "t.db")])
    assert bad.exit_code == 2 and "never, series or game" in bad.output


@pytest.mark.parametrize("command", [
    ("{python}", "examples/bots/random_bot.py"),
    ("{python}", "examples/bots/smart_bot.py", "--noise", "0.3"),
    pytest.param(("node", "examples/bots/random_bot.js"),
                 marks=pytest.mark.skipif(shutil.which("node") is None, reason="no node")),
])
def test_the_example_bots_reuse_a_process_and_play_a_game_as_a_fresh_one_would(command):
    assert_reused_plays_as_fresh(EntrantSpec("x", command=command, cwd=str(ROOT)))


def test_a_warm_bot_that_crashes_forfeits_that_game_and_a_new_process_plays_on_warm():
    crasher = {**memory("crasher"), "command": [sys.executable, MEMORY, "crash_in_game2"]}
    pool = WarmPool()
    try:
        games = play([task(i, [crasher, memory("b")], games=2) for i in range(2)], pool)
    finally:
        pool.close()
    assert [set(g["faults"]) for g in games] == [set(), {0}, set(), {0}]  # each process's 2nd game
    assert "exit status 3" in games[1]["faults"][0]
    first, second = (int(re.search(r"pid (\d+)", games[i]["stderr"][0]).group(1)) for i in (0, 2))
    assert first != second  # replaced after its fault, and the new process went on to series 1
