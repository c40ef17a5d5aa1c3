"""Train a tiny linear policy against the greedy bot, save it, and test it as a protocol bot.

    python -m tourney.rl.train --minutes 3            # train for three minutes
    python -m tourney.rl.train --episodes 50 --sprt-games 20 --db t.db   # a quick run

1. Training: REINFORCE (policy gradient with a running-mean baseline) on a linear policy over
   tourney.rl's observation encoding (:mod:`tourney.rl.linear`), in the single-seat Gymnasium
   environment, one learned seat against the built-in greedy bot, the learner's seat drawn from
   each game's seed. Only numpy and the standard library.
2. The policy is saved as JSON (``results/train/policy.json`` under the current folder, beside
   tourney's results database, or ``--out``), and as an MLP of one layer (policy.npz beside it,
   tourney/rl/mlp.py's format).
3. ``tourney export-bot`` turns policy.npz into a bot folder (policy_bot/ beside it: the bot, the
   weights, the forward pass, the encoding, the helper; numpy only). ``tourney check`` checks it
   and ``tourney sprt`` runs it against greedy; this prints the verdict.

Part of the installed package, so it runs from any folder; it writes only under the current
folder (or where ``--out`` says). Needs the rl extra's packages (gymnasium, pettingzoo).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from tourney.rl.export import save_mlp
from tourney.rl.linear import LinearPolicy
from tourney.rl.single import SingleSeatEnv

#: where the policy (and the bot and config made from it) go unless --out says otherwise: under
#: the folder it is run from, wherever tourney is installed, beside the results database (in a
#: checkout, results/ is what git ignores)
DEFAULT_OUT = Path("results") / "train" / "policy.json"


def softmax(z):
    z = z - z.max()
    e = np.exp(z)
    return e / e.sum()


def train(policy: LinearPolicy, env: SingleSeatEnv, *, episodes: int | None, minutes: float | None,
          lr: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    baseline, wins, played = 0.0, 0, 0
    deadline = time.monotonic() + 60 * minutes if minutes else None
    while (episodes is None or played < episodes) and (deadline is None or time.monotonic() < deadline):
        obs, info = env.reset(seed=seed + played)
        steps = []
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            x = obs["observation"]
            p = softmax(policy.scores(x, legal))
            pick = rng.choice(len(legal), p=p)
            steps.append((x, legal, p, pick))
            obs, reward, terminated, truncated, info = env.step(int(legal[pick]))
            done = terminated or truncated
        advantage = reward - baseline
        baseline += 0.02 * (reward - baseline)
        for x, legal, p, pick in steps:  # d log p(pick) / d score = onehot - p
            g = -p
            g[pick] += 1.0
            g *= lr * advantage
            policy.weights[legal] += np.outer(g, x).astype(np.float32)
            policy.bias[legal] += g.astype(np.float32)
        played += 1
        wins += reward > 0
        if played % 200 == 0:
            print(f"episode {played}: win rate so far {wins / played:.3f}", file=sys.stderr)
    return {"episodes": played, "win_rate": wins / max(played, 1)}


def evaluate(policy: LinearPolicy, env: SingleSeatEnv, games: int, seed: int) -> float:
    """Win rate of the policy's best options (no sampling) on fresh deals."""
    wins = 0
    for g in range(games):
        obs, info = env.reset(seed=seed + g)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            action = legal[int(np.argmax(policy.scores(obs["observation"], legal)))]
            obs, reward, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        wins += reward > 0
    return wins / max(games, 1)


def export(policy: LinearPolicy, policy_path: Path) -> Path:
    """The policy as a bot folder, by `tourney export-bot`: a linear policy is an MLP of one layer
    (scores = weights @ observation + bias, so the layer's w is weights transposed)."""
    npz, folder = policy_path.with_suffix(".npz"), policy_path.with_name(policy_path.stem + "_bot")
    save_mlp(npz, [(policy.weights.T, policy.bias)], activation="identity", rule_set=policy.rule_set,
             players=policy.encoding.players)
    if folder.is_dir():
        shutil.rmtree(folder)  # this script's own output of an earlier run
    done = subprocess.run([sys.executable, "-m", "tourney", "export-bot", "linear_policy", str(npz),
                           "--dir", str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"tourney export-bot failed:\n{done.stderr}")
    return folder


def sprt(folder: Path, games: int, db: str | None, seed: int) -> dict:
    """Play the exported bot in ``folder`` against greedy with `tourney sprt`; the test's JSON
    result. The entrant is defined in a small config written beside the folder."""
    config = folder.with_suffix(".toml")
    config.write_text(
        "# written by python -m tourney.rl.train: the trained policy as an entrant\n"
        '[event]\nname = "linear-policy-sprt"\nformat = "sprt"\nentrants = ["linear_policy", "greedy"]\n\n'
        "[[entrants]]\n"
        'name = "linear_policy"\n'
        'command = ["{python}", "bot.py"]\n'
        f"cwd = {json.dumps(str(folder.resolve()))}   # the bot folder tourney export-bot wrote\n\n"
        '[[entrants]]\nname = "greedy"\nbuiltin = "greedy"\n', encoding="utf-8")
    # first the protocol check (a bot that cannot start would only forfeit every game of the test)
    check = [sys.executable, "-m", "tourney", "check", "--games", "1", "--cwd", str(folder), "--", "{python}", "bot.py"]
    done = subprocess.run(check, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the policy bot fails tourney check:\n{done.stdout}{done.stderr}"
                         "(when tourney runs as root, bots run as nobody: the policy's folder must be "
                         "readable by others)")
    command = [sys.executable, "-m", "tourney", "sprt", "linear_policy", "greedy", "--config", str(config),
               "--duplicate", "--elo0", "0", "--elo1", "50", "--max-games", str(games), "--seed", str(seed),
               "--json"]
    if db:
        command += ["--db", db]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"tourney sprt failed ({done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout)["sprt"]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tourney.rl.train", description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=None, help="train this long (default: 3 minutes)")
    parser.add_argument("--episodes", type=int, default=None, help="train this many games instead")
    parser.add_argument("--rule-set", default="crazier-eights")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval", type=int, default=200, help="games to evaluate on afterwards (0: none)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the policy file; the bot and the SPRT's config go next to it "
                        "(default: results/train/policy.json under the current folder)")
    parser.add_argument("--sprt-games", type=int, default=400,
                        help="most games of the SPRT against greedy (0: no SPRT)")
    parser.add_argument("--db", default=None, help="database for the SPRT (default: tourney's)")
    args = parser.parse_args()
    if args.minutes is None and args.episodes is None:
        args.minutes = 3.0

    env = SingleSeatEnv(args.rule_set, ["greedy"], seat=None)
    policy = LinearPolicy(env.encoding, args.rule_set)
    stats = train(policy, env, episodes=args.episodes, minutes=args.minutes, lr=args.lr, seed=args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    policy.save(args.out)
    print(f"trained {stats['episodes']} games (win rate while learning {stats['win_rate']:.3f}); saved {args.out}")
    if args.eval:
        rate = evaluate(policy, env, args.eval, seed=10**6)
        print(f"evaluation: win rate {rate:.3f} over {args.eval} games against greedy")
    folder = export(policy, args.out)
    print(f"exported the bot to {folder} (tourney export-bot)")
    if args.sprt_games:
        result = sprt(folder, args.sprt_games, args.db, args.seed)
        estimate = result.get("estimate") or {}
        elo = "n/a" if estimate.get("elo") is None else f"{estimate['elo']:.0f}"
        if estimate.get("elo_pm") is not None:
            elo += f"+-{estimate['elo_pm']:.0f}"
        print(f"sprt against greedy: verdict={result['verdict']} games={result['games']} "
              f"llr={result['llr']:.2f} elo={elo}")


if __name__ == "__main__":
    main()
