"""The referee with subprocess bots: faults, restarts, stderr, clean-up (issue 4, points 5-9, 12).

Every test that starts processes checks afterwards, through /proc, that no process of any bot's
process group is left and that no child of ours is a zombie.
"""

import json
import os
import random
import sys
from pathlib import Path

import pytest
from helpers import all_pids, leftovers, random_spec

import engine
from tourney.bots.entrants import (
    STDERR_CAP_BYTES,
    EntrantError,
    EntrantSpec,
    Limits,
    open_entrant,
)
from tourney.bots.protocol import FAULT_CODES
from tourney.bots.referee import GameRecord, play_game, replay
from tourney.bots.sandbox import Policy
from tourney.results import store

ROOT = Path(__file__).resolve().parent.parent
FAULT_BOT = str(ROOT / "tests" / "bots" / "fault_bot.py")
RANDOM_BOT = str(ROOT / "examples" / "bots" / "random_bot.py")
FAST = Limits(startup_timeout=2.0, decision_timeout=0.5, grace=0.3)
#: for bots that keep state in pytest's private (0700) temporary folders, out of a sandboxed
#: bot's reach: these tests are about the referee, tests/test_fairplay.py about the sandbox
UNSANDBOXED = Policy("off")


def fault_spec(mode, at=2, limits=FAST, name=None):
    return EntrantSpec(name or mode, command=("{python}", FAULT_BOT, mode, str(at)), limits=limits)


def play_series(spec_a, spec_b, games=2, **kw):
    """Play ``games`` games between two entrants; return records and both entrants (closed)."""
    with open_entrant(spec_a, seed=1) as a, open_entrant(spec_b, seed=2) as b:
        records = [play_game([a, b], seed=10 + g, first_player=0, **kw) for g in range(games)]
    return records, a, b


# --- fault bots: each fault gives the recorded reason, the other bot wins, nothing is left ------

FAULTS = [
    ("crash", "crash"),
    ("hang", "timeout"),
    ("garbage", "malformed"),
    ("not_object", "malformed"),
    ("illegal", "illegal"),
    ("wrong_id", "wrong_id"),
    ("giant_line", "oversize"),
    ("exit_after_hello", "crash"),
]


@pytest.mark.parametrize("mode,code", FAULTS)
def test_fault_loses_the_game_and_bot_is_restarted(mode, code):
    records, bad, good = play_series(fault_spec(mode), random_spec(), games=2)
    for record in records:
        assert record.faults == {0: code}
        assert record.result.winners == [1]
        assert 0 not in record.result.winners
        assert 0 in record.result.eliminated  # it left like a player who loses the game
        assert any(line.startswith(f"fault: {mode} (seat 0) {code}") for line in record.log)
    # one process per game: the faulty bot was restarted for the second game
    assert len(bad.pids) == 2
    assert len(good.pids) == 1
    assert leftovers(all_pids(bad, good)) == []


@pytest.mark.parametrize("mode,code", [("slow_start", "startup"), ("bad_version", "version"),
                                       ("no_hello", "startup")])
def test_startup_fault_forfeits_every_game(mode, code):
    limits = Limits(startup_timeout=0.5, decision_timeout=0.5, grace=0.3)
    records, bad, good = play_series(fault_spec(mode, limits=limits), random_spec(), games=3)
    for record in records:
        assert record.faults == {0: code}
        assert record.result.winners == [1]
        assert record.decisions == 0  # forfeited at once: no decision was asked
    # docs/protocol.md, section 5: the first start is tried again for the next game, and the
    # failed restart forfeits the rest at once (no third process)
    assert len(bad.pids) == 2
    assert bad.failed is not None and bad.failed.code == code
    assert leftovers(all_pids(bad, good)) == []


def test_a_failed_first_start_costs_only_its_game(tmp_path):
    # a bot that prints a line before its hello the first time only, then plays properly
    marker = tmp_path / "started-once"
    script = tmp_path / "shy.py"
    script.write_text(
        "import pathlib, sys, runpy\n"
        f"marker = pathlib.Path({str(marker)!r})\n"
        "if not marker.exists():\n"
        "    marker.touch()\n"
        "    print('good morning', flush=True)\n"
        f"sys.argv = [{FAULT_BOT!r}, 'legal']\n"
        f"runpy.run_path({FAULT_BOT!r}, run_name='__main__')\n"
    )
    spec = EntrantSpec("shy", command=("{python}", str(script)), limits=FAST, sandbox=UNSANDBOXED)
    records, shy, good = play_series(spec, random_spec(), games=3)
    assert [r.faults for r in records] == [{0: "startup"}, {}, {}]
    assert records[0].decisions == 0 and records[1].decisions > 0
    assert shy.failed is None
    assert len(shy.pids) == 2  # the failed start, then one process for the rest of the series
    assert leftovers(all_pids(shy, good)) == []


def test_exit_is_a_crash_even_while_a_child_holds_stdout():
    # the bot exits at its second request, but a child it started keeps the pipe open, so no
    # end of file comes: the exit itself must be noticed (else: a timeout after 10 s)
    slow = Limits(startup_timeout=2.0, decision_timeout=10.0, grace=0.3)
    records, bad, good = play_series(fault_spec("orphan_stdout", limits=slow), random_spec(), 1)
    assert records[0].faults == {0: "crash"}
    assert "exit status 0" in records[0].fault_details[0]
    assert leftovers(all_pids(bad, good)) == []


@pytest.mark.parametrize("version", ["1", "1.x", "1.0.3", "x.1", "1.", ".1", "１.0"])
def test_a_version_not_major_dot_minor_is_a_version_fault(version):
    records, bad, good = play_series(fault_spec(f"version={version}"), random_spec(), games=1)
    assert records[0].faults == {0: "version"}
    assert "MAJOR.MINOR" in records[0].fault_details[0]


def test_version_refusal_says_why():
    with open_entrant(fault_spec("bad_version")) as bot, pytest.raises(EntrantError) as info:
        bot.start()
    assert info.value.code == "version"
    assert "2.0" in info.value.message and "1.0" in info.value.message
    assert leftovers(all_pids(bot)) == []


def test_restart_that_fails_forfeits_the_rest(tmp_path):
    # a bot that works once, then cannot start again (its script removes itself)
    script = tmp_path / "once.py"
    script.write_text(
        "import os, sys, runpy\n"
        f"os.remove(sys.argv[0])\n"
        f"sys.argv = [{FAULT_BOT!r}, 'crash', '2']\n"
        f"runpy.run_path({FAULT_BOT!r}, run_name='__main__')\n"
    )
    spec = EntrantSpec("once", command=("{python}", str(script)), limits=FAST, sandbox=UNSANDBOXED)
    records, bad, good = play_series(spec, random_spec(), games=3)
    assert [r.faults for r in records] == [{0: "crash"}, {0: "startup"}, {0: "startup"}]
    assert records[1].decisions == 0 and records[2].decisions == 0
    assert len(bad.pids) == 2  # the first run, and one failed restart; no third attempt
    assert leftovers(all_pids(bad, good)) == []


def test_crash_keeps_stderr_and_exit_status():
    records, bad, good = play_series(fault_spec("crash"), random_spec(), games=1)
    record = records[0]
    assert "crashing on purpose" in record.stderr[0]
    assert "exit status 3" in record.fault_details[0]


def test_stderr_flood_does_not_block_and_is_capped():
    # 2 MiB of stderr per decision, while playing legally: no fault, stderr kept but capped
    records, flood, good = play_series(fault_spec("stderr_flood", at=10**6), random_spec(), games=2)
    for record in records:
        assert record.faults == {}
        assert record.decisions > 0
        text = record.stderr[0]
        assert len(text) <= STDERR_CAP_BYTES + 200
        assert "bytes of stderr dropped" in text
        assert text.startswith("xxx")
    assert leftovers(all_pids(flood, good)) == []


def test_goodbye_ignored_then_terminated_then_killed():
    # the bot ignores goodbye, stdin EOF and SIGTERM: close() must still end it
    records, stubborn, good = play_series(fault_spec("ignore_goodbye", at=10**6), random_spec(), 1)
    assert records[0].faults == {}
    assert stubborn.exit_how == "killed"
    assert good.exit_how == "exited"  # the well-behaved bot left on its own after goodbye
    assert leftovers(all_pids(stubborn, good)) == []


def test_children_of_a_bot_are_killed_with_it():
    records, parent, good = play_series(fault_spec("spawn_child", at=10**6), random_spec(), 1)
    assert records[0].faults == {}
    assert leftovers(all_pids(parent, good)) == []


def test_hang_with_child_process_leaves_nothing():
    # a hanging bot whose process group also holds a sleeping child
    script_limits = Limits(startup_timeout=2.0, decision_timeout=0.3, grace=0.2)
    spec = EntrantSpec(
        "hang_child",
        command=("{python}", "-c",
                 "import subprocess, sys, runpy;"
                 "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1000)']);"
                 f"sys.argv = [{FAULT_BOT!r}, 'hang', '1'];"
                 f"runpy.run_path({FAULT_BOT!r}, run_name='__main__')"),
        limits=script_limits,
    )
    records, bad, good = play_series(spec, random_spec(), games=2)
    assert [r.faults for r in records] == [{0: "timeout"}, {0: "timeout"}]
    assert leftovers(all_pids(bad, good)) == []


def test_process_per_series_not_per_game():
    records, a, b = play_series(random_spec(), random_spec(), games=4)
    assert all(r.faults == {} for r in records)
    assert len(a.pids) == 1 and len(b.pids) == 1
    assert a.exit_how == "exited" and b.exit_how == "exited"
    assert leftovers(all_pids(a, b)) == []


def test_two_bots_fault_the_game_still_ends():
    # seat 0 begins and faults at its first request, then seat 1 at its first: seat 2 is left
    with open_entrant(fault_spec("garbage", at=1), 1) as a, \
            open_entrant(fault_spec("illegal", at=1), 2) as b, open_entrant(random_spec(), 3) as c:
        record = play_game([a, b, c], seed=1, first_player=0)
    assert record.faults == {0: "malformed", 1: "illegal"}
    assert (record.result.winners, record.result.eliminated) == ([2], [0, 1])
    assert record.result.reason == "last_standing"
    assert leftovers(all_pids(a, b, c)) == []


def test_command_not_found_is_startup():
    spec = EntrantSpec("nothing", command=("/nonexistent/bot",), limits=FAST)
    with open_entrant(spec) as bot, open_entrant(EntrantSpec("g", builtin="greedy")) as g:
        record = play_game([bot, g], seed=1)
    assert record.faults == {0: "startup"}
    assert "cannot start" in record.fault_details[0]


def test_time_bank_is_reported_and_used():
    limits = Limits(decision_timeout=0.5, time_bank=3.0, grace=0.3)
    with open_entrant(random_spec(limits)) as a, open_entrant(EntrantSpec("g", builtin="random")) as b:
        a.wire_log = []
        record = play_game([a, b], seed=4)
    assert record.faults == {}
    requests = [line for d, line in a.wire_log if d == "out" and b'"type":"request"' in line]
    assert requests
    assert all(b'"time_bank":' in r for r in requests)
    assert b'"time_left":3.5' in requests[0]


def test_time_beyond_the_decision_timeout_is_debited_from_the_bank():
    # docs/protocol.md: time a bot takes beyond decision_timeout comes out of its bank, and
    # time_left is decision_timeout plus what is left. The bot takes 0.8 s over every answer:
    # its first request allows 0.2 + 1.0 s, so it answers; that answer costs the bank at least
    # 0.6 s, so the second request allows at most 0.2 + 0.4 s, and the same 0.8 s is a timeout.
    limits = Limits(startup_timeout=2.0, decision_timeout=0.2, time_bank=1.0, grace=0.3)
    spec = EntrantSpec("slow", command=("{python}", FAULT_BOT, "slow", "1", "0.8"), limits=limits)
    with open_entrant(spec, seed=1) as slow, open_entrant(random_spec(), seed=2) as other:
        slow.wire_log = []
        record = play_game([slow, other], seed=3, first_player=0)
    requests = [json.loads(line) for d, line in slow.wire_log if d == "out" and b'"request"' in line]
    assert [r["id"] for r in requests] == [1, 2]
    assert (requests[0]["time_bank"], requests[0]["time_left"]) == (1.0, 1.2)
    assert requests[1]["time_bank"] <= 0.4
    assert requests[1]["time_left"] == pytest.approx(0.2 + requests[1]["time_bank"], abs=2e-3)
    assert record.faults == {0: "timeout"}
    detail = record.fault_details[0]
    assert detail.startswith("no answer to request 2 within ")
    assert float(detail.split()[-2]) <= 0.6
    assert leftovers(all_pids(slow, other)) == []


def test_hang_uses_the_time_bank_then_times_out():
    limits = Limits(decision_timeout=0.2, time_bank=0.3, grace=0.2)
    records, bad, good = play_series(fault_spec("hang", at=1, limits=limits), random_spec(), 1)
    assert records[0].faults == {0: "timeout"}
    assert "no answer to request 1 within 0.5 s" in records[0].fault_details[0]


def test_cpu_and_memory_limits_apply():
    # a bot that burns CPU before its hello is killed by RLIMIT_CPU (a startup fault)
    limits = Limits(startup_timeout=10.0, cpu_seconds=1, memory_mb=2048)
    spec = EntrantSpec("burner", command=("{python}", "-c", "while True: pass"), limits=limits)
    with open_entrant(spec) as bot, pytest.raises(EntrantError) as info:
        bot.start()
    assert info.value.code == "startup"
    assert "exited before its hello" in info.value.message
    assert leftovers(all_pids(bot)) == []


def test_minimal_environment_and_cwd(tmp_path):
    os.environ["TOURNEY_SECRET_FOR_TEST"] = "leak"
    code = (
        "import os, json, sys\n"
        "sys.stderr.write(json.dumps({'cwd': os.getcwd(), 'env': sorted(os.environ)}))\n"
        "sys.stderr.flush()\n"
        "exec(open(sys.argv[1]).read())\n"
    )
    spec = EntrantSpec("env", command=("{python}", "-c", code, RANDOM_BOT), cwd=str(tmp_path),
                       env={"MY_BOT_LEVEL": "3"}, limits=FAST)
    try:
        with open_entrant(spec) as a, open_entrant(EntrantSpec("g", builtin="greedy")) as g:
            record = play_game([a, g], seed=2)
    finally:
        del os.environ["TOURNEY_SECRET_FOR_TEST"]
    seen = json.loads(record.stderr[0].splitlines()[0])
    assert seen["cwd"] == str(tmp_path)
    assert "MY_BOT_LEVEL" in seen["env"] and "PYTHONUNBUFFERED" in seen["env"]
    assert "TOURNEY_SECRET_FOR_TEST" not in seen["env"]


# --- the referee's bookkeeping ------------------------------------------------------------------


def test_record_replays_with_and_without_faults():
    records, _, _ = play_series(fault_spec("illegal", at=3), random_spec(), games=1)
    records += play_series(random_spec(), random_spec(), games=1)[0]
    for record in records:
        assert isinstance(record, GameRecord)
        assert engine.replay(record.start(), record.choices).result == record.result
        assert replay(record.start(), record.choices).result == record.result  # the old name
    assert any(c.startswith("forfeit:0:illegal") for c in records[0].choices)


def test_stored_choices_without_forfeit_records_replay_with_the_forfeits_column():
    # rows stored before the choices recorded forfeits list them as [n, seat, code] instead
    start = {"rule_set": "crazier-eights", "players": 3, "seed": 4, "first_player": 0}
    game = engine.new_game(**start)
    rng = random.Random(1)
    for _ in range(10):
        game.apply(rng.choice(game.pending.options))
    game.forfeit(1, "timeout")
    assert game.result is None
    while game.pending is not None:
        game.apply(rng.choice(game.pending.options))
    options = [c for c in game.choices if not c.startswith("forfeit:")]
    row = {**start, "options": "{}", "teams": None, "choices": json.dumps(options),
           "forfeits": json.dumps([[10, 1, "timeout"]])}
    assert store.replay_game(row).to_dict() == game.to_dict()


def test_builtin_entrants_and_on_line():
    lines = []
    with open_entrant(EntrantSpec("r", builtin="random"), 3) as a, \
            open_entrant(EntrantSpec("g", builtin="greedy"), 4) as b:
        record = play_game([a, b], seed=9, series={"game": 1, "of": 1}, on_line=lines.append)
    assert record.faults == {} and record.decisions > 0
    assert lines == record.log
    assert lines[0] == f"game: crazier-eights, seed 9; seat 0 r, seat 1 g; {'rg'[record.first_player]} begins"
    assert lines[-1].startswith("result:")
    assert record.stderr == {}


def test_unknown_builtin_forfeits():
    with open_entrant(EntrantSpec("x", builtin="nobody")) as a, \
            open_entrant(EntrantSpec("g", builtin="greedy")) as b:
        record = play_game([a, b], seed=1)
    assert record.faults == {0: "startup"}
    assert record.choices == ["forfeit:0:startup"]  # the engine's record of the forfeit
    assert engine.replay(record.start(), record.choices).result == record.result


def test_same_subprocess_entrant_twice_is_refused():
    with open_entrant(random_spec()) as a, pytest.raises(ValueError, match="'random_bot' is seated twice"):
        play_game([a, a], seed=1)


def test_spec_needs_exactly_one_of_builtin_and_command():
    with pytest.raises(ValueError, match="'both': give exactly one of builtin and command"):
        open_entrant(EntrantSpec("both", builtin="random", command=("x",)))
    with pytest.raises(ValueError, match="'none': give exactly one of builtin and command"):
        open_entrant(EntrantSpec("none"))
    with pytest.raises(ValueError, match="'empty': the command is empty"):
        open_entrant(EntrantSpec("empty", command=()))


def test_fault_codes_are_the_fixed_set():
    assert FAULT_CODES == ("crash", "timeout", "malformed", "illegal", "wrong_id", "oversize",
                           "startup", "version")


def test_the_example_in_the_referee_docstring_holds():
    import doctest

    from tourney.bots import referee

    assert doctest.testmod(referee) == (0, 5)  # (failed, attempted): all five examples ran


def test_python_placeholder_is_the_running_interpreter():
    bot = open_entrant(random_spec())
    assert bot.argv[0] == sys.executable
