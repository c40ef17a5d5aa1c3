"""Bot limits that the operating system enforces (memory) and the stderr cap, end to end.

Each test starts real bot processes through the referee and checks the recorded outcome and that
no process is left behind (helpers shared with tests/test_referee.py).
"""

import os

from helpers import FAULT_BOT, all_pids, leftovers, random_spec

from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.process import CappedText, StderrPump
from tourney.bots.referee import play_game
from tourney.config import entrant_spec, parse_config

LIMITS = {"startup_timeout": 5.0, "decision_timeout": 5.0, "grace": 0.3}


def hog(memory_mb):
    return EntrantSpec("hog", command=("{python}", FAULT_BOT, "hog", "1"),
                       limits=Limits(memory_mb=memory_mb, **LIMITS))


def play_one(spec):
    with open_entrant(spec, seed=1) as bot, open_entrant(random_spec(), seed=2) as other:
        record = play_game([bot, other], seed=3, first_player=0)
    assert leftovers(all_pids(bot, other)) == []
    return record


def test_a_bot_over_its_memory_limit_fails_and_forfeits():
    record = play_one(hog(memory_mb=256))
    assert record.faults == {0: "crash"}
    assert "MemoryError" in record.stderr[0]
    assert record.result.winners == [1]


def test_the_same_bot_within_a_larger_limit_plays_on():
    record = play_one(hog(memory_mb=2048))
    assert record.faults == {}
    assert "holding 512 MiB" in record.stderr[0]


def test_stderr_cap_is_a_limit_set_in_the_config():
    cfg = parse_config({
        "event": {"name": "e", "format": "single"},
        "limits": {"max_stderr_bytes": 4096},
        "entrants": [{"name": "flood", "command": ["{python}", FAULT_BOT, "stderr_flood", "99999"]},
                     {"name": "g", "builtin": "greedy"}],
    })
    spec = entrant_spec(cfg.resolved_entrants()[0])
    assert spec.limits.max_stderr_bytes == 4096
    with open_entrant(spec, seed=1) as flood, \
            open_entrant(entrant_spec(cfg.resolved_entrants()[1]), seed=2) as greedy:
        record = play_game([flood, greedy], seed=4, first_player=0)
    assert record.faults == {}
    text = record.stderr[0]
    note = text[text.index("\n[..."):text.index("dropped ...]\n") + len("dropped ...]\n")]
    assert len(text) - len(note) == 4096  # 1 KiB from the start and 3 KiB from the end
    assert text.startswith("x" * 1023 + "\n")
    assert leftovers(all_pids(flood)) == []


def test_what_a_bot_wrote_before_the_game_ended_is_kept_however_late_the_pump_runs():
    # the pump thread is never started here, as if a loaded machine had not yet scheduled it:
    # settling reads what is waiting in the pipe itself, in order, and leaves the rest
    read_end, write_end = os.pipe()
    try:
        sink = CappedText(1 << 16)
        pump = StderrPump(read_end, sink)
        os.write(write_end, b"FINDINGS {}\n")
        os.write(write_end, b"second line\n")
        pump.settle()
        assert sink.take() == "FINDINGS {}\nsecond line\n"
        pump.settle()  # nothing waiting: it returns at once
        assert sink.take() == ""
        os.close(write_end)
        write_end = -1
        pump.settle()  # the end of the stream ends the pump
        assert pump.ended
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
