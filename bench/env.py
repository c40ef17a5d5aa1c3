"""The learning environment's stepping cost against the bare engine (issue 24, point 3).

    python bench/env.py [--rule-set crazier-eights] [--players 2] [--games 200] [--rounds 5]

Three arms play the same seeded random games, interleaved round by round (so a loaded machine
slows them alike); each arm's figure is its best round, timed in this process's CPU time (the
arms are single-threaded and do no I/O, so on an idle machine that is the wall time, and on a
shared one it leaves out the time other programs hold the cores):

- ``engine``: the bare engine, as bench/engine.py plays it: ``game.apply(random option)``;
- ``engine+view``: the same, plus the acting seat's ``game.view`` (what any bot is given);
- ``env``: the PettingZoo AEC environment, as a learner drives it: ``env.last()`` (the seat's
  observation and the action mask), a random legal action from the mask (``mask.nonzero()``:
  the cheapest numpy way, so that the figure is the environment's rather than the random
  policy's; ``np.flatnonzero`` alone costs a third of a classic engine step more),
  ``env.step(action)``.

``overhead`` is how much longer an environment step takes than a bare engine step
(env time / engine time - 1); the aim is at most 0.5. The last line is
``env_steps_per_s=<float> engine_steps_per_s=<float> overhead=<float>``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from tourney.rl.aec import EightsEnv


def engine_arm(rule_set: str, players: int, seeds: range, with_view: bool) -> tuple[int, float]:
    steps = 0
    start = time.process_time()
    for seed in seeds:
        game = engine.new_game(rule_set, players=players, seed=seed)
        choice = random.Random(seed).choice
        while (decision := game.pending) is not None:
            if with_view:
                game.view(decision.player)
            game.apply(choice(decision.options))
            steps += 1
    return steps, time.process_time() - start


def env_arm(env: EightsEnv, seeds: range) -> tuple[int, float]:
    steps = 0
    start = time.process_time()
    for seed in seeds:
        env.reset(seed=seed)
        choice = random.Random(seed).choice
        while env.game.pending is not None:
            obs, _, _, _, _ = env.last()
            env.step(choice(obs["action_mask"].nonzero()[0]))
            steps += 1
    return steps, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule-set", default="crazier-eights")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200, help="games per arm and round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    env = EightsEnv(args.rule_set, args.players)
    best = {"engine": 0.0, "engine+view": 0.0, "env": 0.0}
    for r in range(args.rounds):
        seeds = range(r * args.games, (r + 1) * args.games)
        for arm in (("engine", "engine+view", "env") if r % 2 == 0 else ("env", "engine+view", "engine")):
            if arm == "env":
                steps, seconds = env_arm(env, seeds)
            else:
                steps, seconds = engine_arm(args.rule_set, args.players, seeds, arm == "engine+view")
            best[arm] = max(best[arm], steps / seconds)
    overhead = best["engine"] / best["env"] - 1
    print(f"rule_set={args.rule_set} players={args.players} games={args.games} rounds={args.rounds} "
          f"engine_view_steps_per_s={best['engine+view']:.0f} "
          f"env_overhead_over_engine_view={best['engine+view'] / best['env'] - 1:.2f}")
    print(f"env_steps_per_s={best['env']:.0f} engine_steps_per_s={best['engine']:.0f} overhead={overhead:.2f}")


if __name__ == "__main__":
    main()
