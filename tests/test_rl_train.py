"""examples/train (issue 24, point 4): the training script runs end to end (tiny), and the
protocol bot plays exactly what the policy picks from the learner's own encoding."""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

import numpy as np

import engine
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game

ROOT = Path(__file__).resolve().parent.parent
TRAIN = ROOT / "examples" / "train"
sys.path.insert(0, str(TRAIN))

from policy import LinearPolicy  # noqa: E402

from tourney.rl.encoding import Encoding  # noqa: E402
from tourney.rl.export import FILES  # noqa: E402


def test_train_script_trains_saves_and_reports_an_sprt_verdict(tmp_path):
    tmp_path.chmod(0o755)  # bots run as nobody when the tests run as root: the policy must be readable
    out = tmp_path / "policy.json"
    done = subprocess.run(
        [sys.executable, str(TRAIN / "train.py"), "--episodes", "6", "--eval", "2", "--sprt-games", "4",
         "--out", str(out), "--db", str(tmp_path / "t.db")],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "trained 6 games" in done.stdout
    verdict = [line for line in done.stdout.splitlines() if line.startswith("sprt against greedy: verdict=")]
    assert verdict and verdict[0].split("verdict=")[1].split()[0] in ("H0", "H1", "inconclusive")
    assert f"exported the bot to {tmp_path / 'policy_bot'}" in done.stdout
    assert sorted(p.name for p in (tmp_path / "policy_bot").iterdir()) == sorted(FILES)
    policy = LinearPolicy.load(out)
    assert policy.weights.any()  # six games of learning moved some weights
    assert policy.rule_set == "crazier-eights" and policy.encoding == Encoding(52, 2)


def test_policy_bot_plays_the_policys_choice_for_every_request(tmp_path):
    rng = np.random.default_rng(3)
    policy = LinearPolicy(Encoding(52, 2), "crazier-eights")
    policy.weights[:] = rng.normal(size=policy.weights.shape)
    policy.bias[:] = rng.normal(size=policy.bias.shape)
    tmp_path.chmod(0o755)  # bots run as nobody when the tests run as root
    path = tmp_path / "policy.json"
    policy.save(path)
    policy = LinearPolicy.load(path)  # what the bot reads (rounded to five decimals)
    spec = EntrantSpec("linear", command=("{python}", str(TRAIN / "policy_bot.py"), str(path)), cwd=str(ROOT),
                       limits=Limits(decision_timeout=10.0))
    with open_entrant(spec, seed=1) as bot, open_entrant(EntrantSpec("greedy", builtin="greedy"), 2) as greedy:
        record = play_game([bot, greedy], seed=9)
    assert record.faults == {}
    game = engine.new_game(**record.start())
    checked = 0
    for choice in record.choices:
        decision = game.pending
        if decision.player == 0:
            assert choice == policy.best(game.view(0), decision.kind, decision.options)
            checked += 1
        game.apply(choice)
    assert checked > 5
