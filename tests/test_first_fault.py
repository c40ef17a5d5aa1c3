"""The first fault decides: while one seat is asked, the referee watches every other seat's
process, notes when each leaves, and the earliest fault decides the game (docs/protocol.md,
"Leaving the table")."""

from __future__ import annotations

from pathlib import Path

from helpers import all_pids, leftovers

from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy

BOTS = Path(__file__).resolve().parent / "bots"


def bot(mode: str, *args: str, decision_timeout: float = 5.0) -> EntrantSpec:
    limits = Limits(startup_timeout=10.0, decision_timeout=decision_timeout, grace=0.3)
    return EntrantSpec(mode, command=("{python}", str(BOTS / "fault_bot.py"), mode, *args),
                       limits=limits, sandbox=Policy("off"))


def test_a_bot_that_leaves_after_its_answer_loses_to_an_opponent_that_then_times_out():
    # seat 0 answers its first request, waits 0.3 s (the referee has turned to seat 1 by then)
    # and exits; seat 1 never answers and runs out of its 2 s afterwards. The exit came first.
    with open_entrant(bot("leave_after", "1", "0.3"), 1) as leaver, \
            open_entrant(bot("hang", "1", decision_timeout=2.0), 2) as sleeper:
        record = play_game([leaver, sleeper], seed=7, first_player=0)
        assert record.faults[0] == "crash"
        assert record.result.winners == [1] and 0 in record.result.eliminated
        assert "after seat 1 was asked" in record.fault_details[0]
        # the forfeit of the seat that left first is the game's record; the later timeout is
        # noted (its process is replaced) but the game was already decided
        assert record.choices[-1] == "forfeit:0:crash"
        assert record.faults.get(1) in (None, "timeout")
        pids = all_pids(leaver, sleeper)
    assert leftovers(pids) == []


def test_a_timeout_before_the_opponent_leaves_decides_the_game_for_the_one_that_left_later():
    # the reverse order: seat 1 runs out of its 0.5 s first; seat 0, which answered, exits only
    # 2 s after its answer: the game is seat 0's, and its leaving costs it the next game
    with open_entrant(bot("leave_after", "1", "2"), 1) as leaver, \
            open_entrant(bot("hang", "1", decision_timeout=0.5), 2) as sleeper:
        first = play_game([leaver, sleeper], seed=7, first_player=0)
        assert first.faults == {1: "timeout"} and first.result.winners == [0]
        assert leaver._exited(10.0)  # it leaves, after the game was decided
        second = play_game([leaver, sleeper], seed=8, first_player=0)
        assert second.faults.get(0) == "crash" and second.choices[0] == "forfeit:0:crash"
        pids = all_pids(leaver, sleeper)
    assert leftovers(pids) == []
