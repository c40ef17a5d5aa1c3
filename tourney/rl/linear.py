"""A linear policy over tourney.rl's observation encoding: what ``python -m tourney.rl.train``
learns and examples/train/policy_bot.py plays.

One weight row per action: an option's score is ``weights[action] . observation + bias[action]``
over the offered options only (the action mask), and the bot plays the best one. Training
samples from the softmax of the scores instead. Both sides encode with the same function,
:meth:`tourney.rl.encoding.Encoding.encode`, so the bot sees exactly what the learner saw.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tourney.rl.encoding import Encoding


class LinearPolicy:
    def __init__(self, encoding: Encoding, rule_set: str, weights=None, bias=None):
        self.encoding = encoding
        self.rule_set = rule_set
        self.weights = np.zeros((encoding.actions, encoding.size), np.float32) if weights is None else weights
        self.bias = np.zeros(encoding.actions, np.float32) if bias is None else bias

    def scores(self, observation, legal):
        return self.weights[legal] @ observation + self.bias[legal]

    def best(self, view: dict, kind: str, options: list[str]) -> str:
        """The option the policy rates highest (the first of equals, in the offered order)."""
        legal = [self.encoding.action(o) for o in options]
        observation = self.encoding.encode(view, kind)
        return options[int(np.argmax(self.scores(observation, legal)))]

    def save(self, path: str | Path) -> None:
        data = {"rule_set": self.rule_set, "cards": self.encoding.cards, "players": self.encoding.players,
                "bias": np.round(self.bias, 5).tolist(),
                # rows of actions never met stay zero: store only the others
                "weights": {str(a): np.round(row, 5).tolist()
                            for a, row in enumerate(self.weights) if row.any()}}
        Path(path).write_text(json.dumps(data), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> LinearPolicy:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        encoding = Encoding(data["cards"], data["players"])
        policy = cls(encoding, data["rule_set"], bias=np.asarray(data["bias"], np.float32))
        for action, row in data["weights"].items():
            policy.weights[int(action)] = row
        return policy
