#!/usr/bin/env python3
"""A trained linear policy as a protocol bot that imports tourney (``tourney export-bot`` makes
one that needs numpy alone): tourney check -- {python} examples/train/policy_bot.py POLICY.json

It reads the policy file named as its first argument (default: results/train/policy.json in the
working folder, where ``python -m tourney.rl.train`` saves it), encodes every request with tourney.rl's
Encoding, the function the policy was trained with, and answers the offered option the policy
rates highest. In the sandbox it imports the installed tourney read-only (docs/tutorial.md).
"""

import sys
from pathlib import Path

sys.dont_write_bytecode = True  # a sandboxed bot writes only its scratch directory

from tourney.botkit import game, log, run  # noqa: E402
from tourney.rl.linear import LinearPolicy  # noqa: E402

policy = LinearPolicy.load(sys.argv[1] if len(sys.argv) > 1 else Path("results") / "train" / "policy.json")


def choose(view, options):
    if game.rule_set != policy.rule_set or len(game.cards) != policy.encoding.cards \
            or game.players != policy.encoding.players:
        log(f"policy trained for {policy.rule_set} with {policy.encoding.players} players: "
            "answering the first option")
        return options[0]  # a game the policy was not trained for: still a legal answer
    return policy.best(view, game.kind, options)


if __name__ == "__main__":
    run(choose, name="linear_policy")
