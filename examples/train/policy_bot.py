#!/usr/bin/env python3
"""The trained linear policy as a protocol bot: tourney check -- python3 examples/train/policy_bot.py

It reads results/train/policy.json, where train.py saves it (or the file named as its first
argument), encodes every
request with tourney.rl's Encoding, the function the policy was trained with, and answers the
offered option the policy rates highest. Run it from the project root (it imports tourney from
this checkout; in a sandbox it may read only its own folder and the working directory).
"""

import sys
from pathlib import Path

sys.dont_write_bytecode = True  # a sandboxed bot writes only its scratch directory
sys.path.insert(0, str(Path(__file__).resolve().parent))

from policy import LinearPolicy  # noqa: E402

from tourney.botkit import game, log, run  # noqa: E402

policy = LinearPolicy.load(sys.argv[1] if len(sys.argv) > 1 else
                           Path(__file__).resolve().parents[2] / "results" / "train" / "policy.json")


def choose(view, options):
    if game.rule_set != policy.rule_set or len(game.cards) != policy.encoding.cards \
            or game.players != policy.encoding.players:
        log(f"policy trained for {policy.rule_set} with {policy.encoding.players} players: "
            "answering the first option")
        return options[0]  # a game the policy was not trained for: still a legal answer
    return policy.best(view, game.kind, options)


if __name__ == "__main__":
    run(choose, name="linear_policy")
