"""Protocol 1.1: the features a bot chooses in its hello, 1.0 bots unchanged, and what happens
when a bot leaves the table without being asked (docs/protocol.md, sections 5 and 7.1)."""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

import pytest

import engine
from tourney.bots import protocol
from tourney.bots.builtin import BuiltinEntrant
from tourney.bots.entrants import EntrantError, EntrantSpec, Limits, open_entrant
from tourney.bots.protocol import FaultCode, ProtocolError
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
LIMITS = Limits(decision_timeout=5.0, grace=0.5)


def lean_spec(features: str, *views: str) -> EntrantSpec:
    return EntrantSpec(f"lean {features}", command=("{python}", str(BOTS / "lean_bot.py"), features, *views),
                       limits=LIMITS, sandbox=Policy("off"))


def fault_spec(mode: str, at: int = 1, *more: str) -> EntrantSpec:
    return EntrantSpec(mode, command=("{python}", str(BOTS / "fault_bot.py"), mode, str(at), *more),
                       limits=LIMITS, sandbox=Policy("off"))


# --- view_delta: the changes alone rebuild the whole view ---------------------------------------


@pytest.mark.parametrize("rule_set", ["crazier-eights", "crazy-eights", "super-crazy-eights"])
def test_a_view_rebuilt_from_deltas_equals_the_whole_view(rule_set):
    for seed in range(12):
        game = engine.new_game(rule_set, players=3, seed=seed)
        rng = random.Random(seed)
        held: dict[int, dict] = {p: {} for p in range(3)}
        previous: dict[int, dict] = {p: {} for p in range(3)}
        for _ in range(3000):  # a deal of random play may run long: a long stretch is enough
            if game.pending is None:
                break
            seat = game.pending.player
            view = game.view(seat)
            delta, gone = protocol.view_delta(view, previous[seat])
            held[seat].update(delta)
            for key in gone:
                del held[seat][key]
            assert held[seat] == view
            previous[seat] = view
            game.apply(rng.choice(game.pending.options))


def test_a_key_that_disappears_is_listed_as_gone():
    delta, gone = protocol.view_delta({"hand": [3]}, {"hand": [3], "looking_at": {"hand_of": 1}})
    assert delta == {} and gone == ["looking_at"]


def requests_seen(entrant) -> list[dict]:
    return [protocol.loads(line) for d, line in entrant.wire_log if d == "out" and b'"request"' in line[:20]]


@pytest.mark.parametrize("features", ["view_delta", "option_ids", "option_ids,view_delta"])
def test_a_lean_bot_holds_the_same_views_and_plays_the_same_game(features, tmp_path):
    """The same seeded game, once with a 1.0 bot and once with a bot that chose ``features``: the
    same choices, and the views it rebuilt are the whole views the 1.0 bot was sent."""
    games = {}
    for chosen in ("-", features):
        views = tmp_path / f"views{len(games)}.jsonl"
        with open_entrant(lean_spec(chosen, str(views)), 1) as bot, \
                open_entrant(EntrantSpec("g", builtin="greedy"), 2) as other:
            bot.start()
            bot.wire_log = []
            records = [play_game([bot, other], seed=seed, first_player=0) for seed in (4, 5)]
            rebuilt = [json.loads(line) for line in views.read_text().splitlines()]
            games[chosen] = (records, rebuilt, requests_seen(bot))
            assert bot.features == frozenset(f for f in chosen.split(",") if f != "-")
    (full_records, full_views, full_requests), (lean_records, lean_views, lean_requests) = games.values()
    assert [r.choices for r in lean_records] == [r.choices for r in full_records]
    assert not any(r.faults for r in lean_records)
    assert lean_views == full_views and len(full_views) == len(full_requests) > 10
    assert all("view" in r and "delta" not in r for r in full_requests)
    if "view_delta" in features:
        assert all("delta" in r and "view" not in r for r in lean_requests)
        later = [r for r in lean_requests if r["delta"] != {}][1:]
        assert any(len(r["delta"]) < len(full_requests[0]["view"]) for r in later)
    if "option_ids" in features:
        assert all(isinstance(o, str) for r in lean_requests for o in r["options"])
        assert not any("prompt" in r for r in lean_requests)
    else:
        assert all(set(o) == {"id", "label"} for r in lean_requests for o in r["options"])
    size = sum(map(len, (protocol.dumps(r) for r in lean_requests)))
    assert size < sum(map(len, (protocol.dumps(r) for r in full_requests)))


def test_the_referee_offers_its_features_in_hello():
    hello = protocol.hello_message({}, 1, "t")
    assert hello["version"] == "1.2" and hello["features"] == ["view_delta", "option_ids", "reuse"]


@pytest.mark.parametrize("features", [["no_such_feature"], "view_delta", [1]])
def test_a_feature_not_offered_is_refused_with_version(features):
    msg = {"type": "hello", "protocol": "tourney-bot", "version": "1.1", "name": "x", "features": features}
    with pytest.raises(ProtocolError) as info:
        protocol.check_hello(msg)
    assert info.value.code == FaultCode.VERSION and "features" in info.value.message


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl is not installed")
def test_a_perl_bot_of_protocol_1_0_plays_unchanged():
    spec = EntrantSpec("perl", command=("perl", str(BOTS / "perl_bot.pl")), limits=LIMITS)
    with open_entrant(spec, 1) as perl, open_entrant(EntrantSpec("r", builtin="random"), 2) as other:
        records = [play_game([perl, other], seed=seed) for seed in range(3)]
        assert perl.bot_version == "1.0" and perl.features == frozenset()
    assert all(r.faults == {} for r in records)
    assert all(r.decisions > 0 for r in records)


def test_the_fault_code_is_a_string_enum():
    assert FaultCode.CRASH == "crash" and json.dumps({"f": FaultCode.WRONG_ID}) == '{"f": "wrong_id"}'
    assert tuple(c.value for c in FaultCode) == protocol.FAULT_CODES
    assert EntrantError("startup", "x").code is FaultCode.STARTUP


# --- leaving the table: during a game, and after it --------------------------------------------


class WaitsFor(BuiltinEntrant):
    """A built-in bot that, at its first decision, waits until ``other`` has exited; then plays
    on (``then="play"``) or forfeits (``then="forfeit"``)."""

    def __init__(self, other, then: str):
        super().__init__(EntrantSpec("waiter", builtin="greedy"), 3)
        self.other, self.then, self.waited = other, then, False

    def decide(self, game, seat, request_id):
        if not self.waited:
            self.waited = True
            assert self.other._exited(10.0), "the other bot did not leave"
            if self.then == "forfeit":
                raise ProtocolError(FaultCode.TIMEOUT, "gives up on purpose")
        return super().decide(game, seat, request_id)


@pytest.mark.parametrize("mode", ["leave_after", "close_stdin_after"])
def test_a_bot_that_leaves_during_a_game_while_others_decide_forfeits_it(mode):
    with open_entrant(fault_spec(mode, at=1), 1) as leaver:
        waiter = WaitsFor(leaver, "play")
        if mode == "close_stdin_after":  # it stays alive: wait for its stdin to close instead
            waiter.other = type("Closed", (), {"_exited": lambda self, t: wait_closed(leaver, t)})()
        record = play_game([leaver, waiter], seed=7, first_player=0)
        assert record.faults == {0: "crash"}
        assert 0 not in record.result.winners and 0 in record.result.eliminated
        assert "closed its stdin" in record.fault_details[0] if mode == "close_stdin_after" \
            else "exited" in record.fault_details[0]
        play_game([leaver, open_entrant(EntrantSpec("r", builtin="random"), 4)], seed=8)
        assert len(leaver.pids) == 2  # a new process for the next game


def wait_closed(entrant, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if entrant.gone() is not None:
            return True
        time.sleep(0.01)
    return False


def test_a_bot_gone_before_the_other_seat_gives_up_loses_that_game():
    """It answered its last request and left; the other seat then forfeited. The first fault
    decides: its leaving came first, so it loses that game, and it is started afresh for the
    next one."""
    with open_entrant(fault_spec("leave_after", 1, "1.0"), 1) as leaver:
        first = play_game([leaver, WaitsFor(leaver, "forfeit")], seed=7, first_player=0)
        assert first.faults[0] == "crash" and first.result.winners == [1]
        assert first.choices[-1] == "forfeit:0:crash"
        other = open_entrant(EntrantSpec("r", builtin="random"), 4)
        second = play_game([leaver, other], seed=8, first_player=0)
        assert second.decisions > 0 and not second.choices[0].startswith("forfeit")
        assert len(leaver.pids) == 2  # restarted for the next game (where it leaves again)


def test_a_bot_that_leaves_after_game_end_forfeits_the_next_game_of_the_series():
    with open_entrant(fault_spec("leave_after_game"), 1) as leaver, \
            open_entrant(EntrantSpec("r", builtin="random"), 2) as other:
        records = [play_game([leaver, other], seed=seed, first_player=0) for seed in (1, 2, 3)]
    assert records[0].faults == {}
    assert records[1].faults == {0: "crash"}  # gone when game two began: a crash in game two
    assert records[2].faults == {}  # restarted for game three (and it left after that one too)
    assert len(leaver.pids) == 2


def test_leaving_after_the_last_game_before_goodbye_costs_nothing():
    with open_entrant(fault_spec("leave_after_game"), 1) as leaver, \
            open_entrant(EntrantSpec("r", builtin="random"), 2) as other:
        record = play_game([leaver, other], seed=1, first_player=0)
    assert record.faults == {}
    assert leaver.exit_how == "exited" and leaver.exit_status == 0
