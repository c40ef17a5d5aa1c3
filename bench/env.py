"""The learning environment's stepping cost against the bare engine (issue 24, point 3).

    python bench/env.py [--rule-set crazier-eights] [--players 2] [--games 200] [--rounds 5]

Four arms play the same seeded random games, interleaved round by round (so a loaded machine
slows them alike); each arm's figure is its best round, timed in this process's CPU time (the
arms are single-threaded and do no I/O, so on an idle machine that is the wall time, and on a
shared one it leaves out the time other programs hold the cores):

- ``engine``: the bare engine, as bench/engine.py plays it: ``game.apply(random option)``;
- ``engine+view``: the same, plus the acting seat's ``game.view`` (what any bot is given);
- ``env``: the PettingZoo AEC environment, as a learner drives it: ``env.last()`` (the seat's
  observation and the action mask), a random legal action from the mask (``mask.nonzero()``:
  the cheapest numpy way, so that the figure is the environment's rather than the random
  policy's; ``np.flatnonzero`` alone costs a third of a classic engine step more),
  ``env.step(action)``;
- ``floor``: the same loop on :class:`FloorEnv`, the least any PettingZoo AEC environment with
  these spaces does per step: a copy of one fixed observation array, a fresh action mask of the
  pending options, the agent's reward and flags, and the action mapped to its option and applied.
  It encodes no state at all, so no encoding, however clever, makes the environment cheaper.

``overhead`` is how much longer an environment step takes than a bare engine step
(env time / engine time - 1); the aim is at most 0.5. ``floor_overhead`` is the floor's: if it
is above 0.5, the aim is out of reach with this API for that rule set. The last line is
``env_steps_per_s=<float> engine_steps_per_s=<float> overhead=<float>``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from pettingzoo import AECEnv

import engine
from tourney.rl.aec import EightsEnv, agent_name, start_agents
from tourney.rl.encoding import Encoding


class FloorEnv(AECEnv):
    """The floor of an AEC environment of the eights family: EightsEnv's spaces and contract for a
    learner that plays games to their end (no truncation, no rewards, no log), with a constant
    observation. It passes PettingZoo's api_test (tests/test_rl.py), so it is a real one. Where in
    doubt it does less (no range check of the action, no int() of it): a floor errs low."""

    metadata = {"render_modes": [], "name": "eights_floor_v0", "is_parallelizable": False}

    def __init__(self, rule_set: str, players: int):
        super().__init__()
        self.rule_set, self.players = rule_set, players
        self.encoding = Encoding.for_game(engine.new_game(rule_set, players=players, seed=0))
        self.possible_agents = [agent_name(s) for s in range(players)]
        spaces = EightsEnv(rule_set, players)  # the same spaces
        self.observation_spaces = {a: spaces.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: spaces.action_space(a) for a in self.possible_agents}
        self._observation = np.zeros(self.encoding.size, np.float32)  # never written: no state encoded
        self._option_of = self.encoding.option_ids
        self._action_of = {o: a for a, o in enumerate(self._option_of)}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.game = engine.new_game(self.rule_set, players=self.players, seed=seed)
        start_agents(self, self.game.pending.player)

    def observe(self, agent: str) -> dict:
        pending = self.game.pending
        mask = np.zeros(len(self._option_of), np.int8)
        if pending is not None and self.possible_agents[pending.player] == agent:
            ids = self._action_of
            for o in pending.options:
                mask[ids[o]] = 1
        return {"observation": self._observation.copy(), "action_mask": mask}

    def step(self, action) -> None:
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        game = self.game
        option = self._option_of[action]
        if option not in game.pending.options:
            raise ValueError(f"action {action} is not offered")
        game.apply(option)
        pending = game.pending
        if pending is None:
            for a in self.agents:
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[pending.player]


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


def env_arm(env: EightsEnv | FloorEnv, seeds: range) -> tuple[int, float]:
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
    envs = {"env": EightsEnv(args.rule_set, args.players), "floor": FloorEnv(args.rule_set, args.players)}
    arms = ("engine", "engine+view", "env", "floor")
    best = dict.fromkeys(arms, 0.0)
    for r in range(args.rounds):
        seeds = range(r * args.games, (r + 1) * args.games)
        for arm in (arms if r % 2 == 0 else arms[::-1]):
            if arm in envs:
                steps, seconds = env_arm(envs[arm], seeds)
            else:
                steps, seconds = engine_arm(args.rule_set, args.players, seeds, arm == "engine+view")
            best[arm] = max(best[arm], steps / seconds)
    overhead = best["engine"] / best["env"] - 1
    print(f"rule_set={args.rule_set} players={args.players} games={args.games} rounds={args.rounds} "
          f"engine_view_steps_per_s={best['engine+view']:.0f} "
          f"env_overhead_over_engine_view={best['engine+view'] / best['env'] - 1:.2f}")
    print(f"floor_steps_per_s={best['floor']:.0f} floor_overhead={best['engine'] / best['floor'] - 1:.2f}")
    print(f"env_steps_per_s={best['env']:.0f} engine_steps_per_s={best['engine']:.0f} overhead={overhead:.2f}")


if __name__ == "__main__":
    main()
