"""From a trained policy to a bot (tourney export-bot): the folder holds everything, passes
`tourney check` sandboxed, and its bot makes the trained model's choices, computed here by an
independent forward pass."""

import importlib.util
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")

import numpy as np
from typer.testing import CliRunner

import engine
from tourney.bots import sandbox
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy
from tourney.cli import app
from tourney.rl.encoding import Encoding
from tourney.rl.export import FILES, save_mlp
from tourney.rl.mlp import MLP, MLPError

ROOT = Path(__file__).resolve().parent.parent
SANDBOX = "on" if sandbox.problem() is None else "off"


def reference_choice(layers, activation, inputs, observation, mask):
    """The model's choice written out again: the layers in order, the activation between them,
    the best offered action (np.argmax takes the first of equals)."""
    x = np.asarray(observation, np.float64)
    if inputs == "action_mask+observation":
        x = np.concatenate([np.asarray(mask, np.float64), x])
    for i, (w, b) in enumerate(layers):
        x = x @ np.asarray(w, np.float64) + np.asarray(b, np.float64)
        if i < len(layers) - 1:
            x = {"relu": lambda v: np.where(v > 0, v, 0.0), "tanh": np.tanh, "identity": lambda v: v}[activation](x)
    offered = np.flatnonzero(mask)
    return int(offered[np.argmax(x[offered])])


def random_layers(encoding, hidden, seed, inputs="observation"):
    rng = np.random.default_rng(seed)
    sizes = [encoding.size + (encoding.actions if inputs != "observation" else 0), *hidden, encoding.actions]
    return [(rng.normal(scale=1 / np.sqrt(a), size=(a, b)).astype(np.float32), rng.normal(size=b).astype(np.float32))
            for a, b in zip(sizes, sizes[1:])]


def export(tmp_path, name, layers, **kwargs):
    tmp_path.chmod(0o755)  # bots run as nobody when the tests run as root
    policy = tmp_path / f"{name}.npz"
    save_mlp(policy, layers, **kwargs)
    result = CliRunner().invoke(app, ["export-bot", name, str(policy), "--dir", str(tmp_path / name)])
    assert result.exit_code == 0, result.output
    return tmp_path / name


def positions(rule_set, players, games, seed):
    """(view, kind, options) of every decision of seeded random games."""
    out = []
    for g in range(games):
        game = engine.new_game(rule_set, players=players, seed=seed + g)
        choice = random.Random(seed + g).choice
        while (pending := game.pending) is not None:
            out.append((game.view(pending.player), pending.kind, list(pending.options)))
            game.apply(choice(pending.options))
    return out


def load_exported(folder, module):
    spec = importlib.util.spec_from_file_location(f"exported_{module}_{folder.name}", folder / f"{module}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # (a dataclass looks its module up while it is made)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("activation, inputs, hidden", [
    ("relu", "observation", [64, 32]),
    ("tanh", "action_mask+observation", [64, 64]),   # Stable-Baselines3's MultiInputPolicy shape
    ("identity", "observation", []),                 # a linear policy
])
def test_the_exported_forward_pass_makes_the_models_choices_on_many_positions(tmp_path, activation, inputs, hidden):
    encoding = Encoding(52, 2)
    layers = random_layers(encoding, hidden, seed=len(hidden), inputs=inputs)
    folder = export(tmp_path, "wise", layers, activation=activation, inputs=inputs, rule_set="crazier-eights",
                    players=2)
    assert sorted(p.name for p in folder.iterdir()) == sorted(FILES)
    mlp = load_exported(folder, "mlp").MLP.load(folder / "policy.npz")
    copied = load_exported(folder, "encoding").Encoding(52, 2)
    checked = 0
    for view, kind, options in positions("crazier-eights", 2, games=6, seed=11):
        observation = copied.encode(view, kind)
        assert np.array_equal(observation, encoding.encode(view, kind))  # the copy is the trained-on encoding
        mask = copied.mask(options)
        assert mlp.act(observation, mask) == reference_choice(layers, activation, inputs, observation, mask)
        checked += len(options) > 1  # a real choice
    assert checked > 150


def test_the_exported_bot_passes_check_sandboxed_and_plays_the_models_choices(tmp_path):
    encoding = Encoding(52, 2)
    layers = random_layers(encoding, [32], seed=5)
    folder = export(tmp_path, "wise", layers, activation="relu", rule_set="crazier-eights", players=2)
    # tourney check, sandboxed (the bot imports nothing of tourney: no PYTHONPATH reaches it)
    done = subprocess.run([sys.executable, "-m", "tourney", "check", "--games", "2", "--sandbox", SANDBOX, "--",
                           "{python}", "bot.py"], cwd=folder, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the bot calls itself 'wise'" in done.stdout and "the bot follows the protocol" in done.stdout
    if SANDBOX == "on":
        assert "ok   sandbox: the bot runs isolated" in done.stdout
    # every decision of a real game against greedy is the model's choice
    spec = EntrantSpec("wise", command=("{python}", "bot.py"), cwd=str(folder), sandbox=Policy(SANDBOX),
                       limits=Limits(decision_timeout=10.0))
    checked = 0
    with open_entrant(spec, seed=1) as bot, open_entrant(EntrantSpec("greedy", builtin="greedy"), 2) as greedy:
        for seed in (3, 4):
            record = play_game([bot, greedy] if seed % 2 else [greedy, bot], seed=seed)
            assert record.faults == {}
            seat = 0 if seed % 2 else 1
            game = engine.new_game(**record.start())
            for choice in record.choices:
                pending = game.pending
                if pending.player == seat:
                    observation = encoding.encode(game.view(seat), pending.kind)
                    mask = encoding.mask(pending.options)
                    expected = reference_choice(layers, "relu", "observation", observation, mask)
                    assert choice == encoding.option(expected, pending.options)
                    checked += 1
                game.apply(choice)
    assert checked > 10


def test_a_policy_that_does_not_fit_is_refused_and_nothing_is_written(tmp_path):
    encoding = Encoding(52, 2)
    runner = CliRunner()
    good = tmp_path / "good.npz"
    save_mlp(good, random_layers(encoding, [8], seed=1), rule_set="crazier-eights", players=2)
    # sized for two players, declared for three
    wrong = tmp_path / "wrong.npz"
    mlp = MLP.load(good)
    mlp.players = 3
    mlp.save(wrong)
    result = runner.invoke(app, ["export-bot", "wise", str(wrong), "--dir", str(tmp_path / "a")])
    assert result.exit_code == 2 and "first layer takes" in result.output and not (tmp_path / "a").exists()
    (tmp_path / "junk.npz").write_bytes(b"not an archive")
    result = runner.invoke(app, ["export-bot", "wise", str(tmp_path / "junk.npz"), "--dir", str(tmp_path / "b")])
    assert result.exit_code == 2 and "not a numpy .npz archive" in result.output
    result = runner.invoke(app, ["export-bot", "wise", str(tmp_path / "none.npz")])
    assert result.exit_code == 2 and "no such policy file" in result.output
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    result = runner.invoke(app, ["export-bot", "wise", str(good), "--dir", str(tmp_path / "full")])
    assert result.exit_code == 2 and "nothing written" in result.output
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["keep.txt"]
    with pytest.raises(MLPError, match="last layer gives"):
        save_mlp(tmp_path / "x.npz", random_layers(encoding, [8], seed=1)[:1] + [(np.zeros((8, 5)), np.zeros(5))],
                 rule_set="crazier-eights", players=2)


def test_an_mlp_is_an_in_process_opponent_too():
    pytest.importorskip("gymnasium")
    from tourney.rl.single import SingleSeatEnv

    encoding = Encoding(52, 2)
    mlp = MLP(random_layers(encoding, [16], seed=2), rule_set="crazy-eights", players=2, cards=52)
    env = SingleSeatEnv("crazy-eights", [mlp])
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
