"""Routing on the local pool: with more command entrants than are started ahead
(tourney.events.runner.WARM_PRESTART_MAX), a free worker takes the series whose entrants' warm
processes it holds, so fewer bot processes are started. tests/bots/log_bot.py writes a line to
the test's log at every start of a bot process."""

from __future__ import annotations

import collections
import itertools
import sys
from pathlib import Path

from tourney.config import parse_config
from tourney.events import runner
from tourney.results import store

ROOT = Path(__file__).resolve().parent.parent
LOG_BOT = str(ROOT / "tests" / "bots" / "log_bot.py")
NAMES = [f"b{i}" for i in range(12)]


def round_robin(tmp_path: Path):
    log = tmp_path / "log"
    log.touch()
    entrants = [{"name": name, "command": [sys.executable, LOG_BOT, str(log), name],
                 "limits": {"sandbox": "off", "startup_timeout": 60.0, "decision_timeout": 60.0}}
                for name in NAMES]
    cfg = parse_config({"event": {"name": "rr", "format": "round-robin", "games": 1, "seed": 4},
                        "entrants": entrants}, base_dir=str(ROOT))
    db = store.open_db(str(tmp_path / "rr.db"))
    event_id, _ = runner.prepare_event(db, cfg, "test")
    return log, cfg, db, event_id


def starts(log: Path) -> collections.Counter:
    return collections.Counter(line.split()[1] for line in log.read_text().splitlines() if line.startswith("start"))


def test_a_round_robin_of_twelve_command_bots_starts_each_at_most_once_per_worker(tmp_path):
    log, cfg, db, event_id = round_robin(tmp_path)
    tasks = runner.pending_tasks(db, event_id, cfg)
    assert len(tasks) == 66 and len(NAMES) > runner.WARM_PRESTART_MAX  # nothing started ahead
    runner.Runner(db, event_id, tasks, 2).run()
    assert db.execute("select count(*) from games").fetchone()[0] == 66
    count = starts(log)
    assert set(count) == set(NAMES) and max(count.values()) <= 2  # warm from its first series on


def test_series_go_to_the_worker_that_holds_their_bots(tmp_path):
    # two groups of six that never meet, their series interleaved in the schedule (a, b, a, b..):
    # taken in order, both workers soon hold all twelve bots (22 to 24 starts, measured).
    # Routed, the first series of each group goes to one worker and the group's later series
    # follow its bots; a worker starts the other group's bots only once its own group is played
    # out, and only one worker can: at most 12 + 6 starts, whatever the workers' speeds.
    log, cfg, db, event_id = round_robin(tmp_path)
    by_pair = {tuple(sorted(s["name"] for s in t.entrants)): t for t in runner.pending_tasks(db, event_id, cfg)}
    groups = [list(itertools.combinations(NAMES[:6], 2)), list(itertools.combinations(NAMES[6:], 2))]
    tasks = [by_pair[tuple(sorted(pair))] for pairs in zip(*groups) for pair in pairs]
    runner.Runner(db, event_id, tasks, 2).run()
    assert db.execute("select count(*) from games").fetchone()[0] == 30
    count = starts(log)
    assert max(count.values()) <= 2 and sum(count.values()) <= 18, count
