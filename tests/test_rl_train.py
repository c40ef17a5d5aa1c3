"""``python -m tourney.rl.train`` (issue 24, point 4; issue 43, point 1): the training runs end to
end (tiny) from an empty folder with tourney installed from its wheel, writing only under that
folder, and examples/train/policy_bot.py plays exactly what the policy picks from the learner's
own encoding."""

import subprocess
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

import numpy as np
from installed import installed_tourney

import engine
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game
from tourney.rl.encoding import Encoding
from tourney.rl.export import FILES
from tourney.rl.linear import LinearPolicy

ROOT = Path(__file__).resolve().parent.parent
TRAIN = ROOT / "examples" / "train"


def test_training_runs_from_an_empty_folder_and_writes_only_there(tmp_path):
    tourney = installed_tourney()
    folder = tmp_path / "mine"
    folder.mkdir()
    folder.chmod(0o755)  # bots run as nobody when the tests run as root: the policy must be readable
    checkout_before = sorted(p.name for p in ROOT.iterdir())
    done = subprocess.run(
        ["python", "-m", "tourney.rl.train", "--episodes", "6", "--eval", "2", "--sprt-games", "4"],
        cwd=folder, env=tourney.env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "trained 6 games" in done.stdout
    verdict = [line for line in done.stdout.splitlines() if line.startswith("sprt against greedy: verdict=")]
    assert verdict and verdict[0].split("verdict=")[1].split()[0] in ("H0", "H1", "inconclusive")
    out = folder / "results" / "train"
    assert f"exported the bot to {Path('results') / 'train' / 'policy_bot'}" in done.stdout
    assert sorted(p.name for p in (out / "policy_bot").iterdir()) == sorted(FILES)
    # under the folder it ran in, and nowhere else: the policy, its bot, the SPRT's config and results
    assert sorted(p.name for p in folder.iterdir()) == ["results"]
    # the results database (with its -wal and -shm while those are left behind) and the training's own
    assert sorted(p.name for p in (folder / "results").iterdir() if not p.name.startswith("tourney.db-")) == \
        ["tourney.db", "train"]
    assert sorted(p.name for p in out.iterdir()) == ["policy.json", "policy.npz", "policy_bot", "policy_bot.toml"]
    assert sorted(p.name for p in ROOT.iterdir()) == checkout_before
    policy = LinearPolicy.load(out / "policy.json")
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
