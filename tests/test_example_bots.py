"""The example bots play full games against the referee, and ``tourney check`` judges bots
(issue 4, points 10 and 11)."""

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.bots import protocol
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"
FAULT_BOT = str(ROOT / "tests" / "bots" / "fault_bot.py")
LIMITS = Limits(decision_timeout=5.0, grace=1.0)

EXAMPLES = [
    ("random_bot.py", ("{python}", str(BOTS / "random_bot.py"))),
    ("smart_bot.py", ("{python}", str(BOTS / "smart_bot.py"))),
    pytest.param("random_bot.js", ("node", str(BOTS / "random_bot.js")),
                 marks=pytest.mark.skipif(shutil.which("node") is None, reason="no node")),
]


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("name,command", EXAMPLES)
def test_example_bot_plays_full_games(name, command):
    spec = EntrantSpec(name, command=command, limits=LIMITS)
    with open_entrant(spec, seed=5) as bot, \
            open_entrant(EntrantSpec("random", builtin="random"), seed=6) as other:
        records = []
        for g in range(4):
            seats = [bot, other] if g % 2 == 0 else [other, bot]
            bot.wire_log = []
            record = play_game(seats, seed=g)
            asked = sum(1 for d, line in bot.wire_log if d == "out" and b'"type":"request"' in line)
            records.append((asked, record))
    for asked, record in records:  # in every game, in either seat, the bot answered its requests
        assert record.faults == {} and record.result is not None
        assert 0 < asked <= record.decisions
    assert len(bot.pids) == 1  # one process for the whole series
    assert bot.exit_how == "exited"  # it left on its own after goodbye
    assert not group_alive(bot.pids[0])


def test_smart_bot_beats_random():
    spec = EntrantSpec("smart", command=("{python}", str(BOTS / "smart_bot.py")), limits=LIMITS)
    wins = 0
    with open_entrant(spec) as smart, open_entrant(EntrantSpec("r", builtin="random"), 1) as rnd:
        for g in range(20):
            seats = [smart, rnd] if g % 2 == 0 else [rnd, smart]
            record = play_game(seats, seed=1000 + g)
            wins += seats.index(smart) in record.result.winners
    assert wins >= 14  # it wins about 95% of games; 14 of 20 leaves a wide margin


runner = CliRunner()


def test_check_passes_a_good_bot():
    result = runner.invoke(app, ["check", "--games", "2", "--", "{python}",
                                 str(BOTS / "random_bot.py")])
    assert result.exit_code == 0, result.output
    assert "ok   handshake" in result.output
    assert "the bot follows the protocol" in result.output


@pytest.mark.parametrize("mode,expected", [
    ("garbage", "malformed"),
    ("hang", "flush stdout"),
    ("bad_version", "FAIL handshake: version"),
    ("ignore_goodbye", "FAIL goodbye"),
])
def test_check_explains_a_faulty_bot(mode, expected):
    args = ["check", "--games", "1", "--decision-timeout", "0.3", "--", "{python}", FAULT_BOT,
            mode, "2" if mode != "ignore_goodbye" else "100000"]
    result = runner.invoke(app, args)
    assert result.exit_code == 3, result.output
    assert expected in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("version", ["1", "1.x", "1.0.3"])
def test_check_refuses_a_version_not_major_dot_minor(version):
    result = runner.invoke(app, ["check", "--games", "1", "--", "{python}", FAULT_BOT,
                                 f"version={version}"])
    assert result.exit_code == 3, result.output
    assert "FAIL handshake: version" in result.output
    assert f'"MAJOR.MINOR" such as "{protocol.VERSION}", got {version!r}' in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args", [
    ["check"],
    ["check", "--", "/no/such/bot"],
    ["check", "--cwd", "/no/such/dir", "--", "{python}", "x.py"],
    ["check", "--opponent", "genius", "--", "{python}", "x.py"],
])
def test_check_bad_usage_is_one_line_and_exit_2(args):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
