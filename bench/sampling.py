"""What the hidden-card sampler knows from a seat's history, and whether it is true: seeded games of
random play, the deciding seat's facts checked against the true game at every ``--every``-th decision.

    python bench/sampling.py [--rule-set crazier-eights] [--players 2] [--games 100] [--every 7]

At each checked decision the deciding seat's :func:`engine.sampling.unseen` is compared with the
true game: every pinned card where it is said to be, every labelled draw-pile place holding a card
of its reshuffle, every hidden hand holding as many cards of each reshuffle as said (``wrong``
counts the decisions where one fails: it must be 0). ``reshuffled`` is the share of decisions after
a reshuffle, ``kept`` the share of those where some reshuffle's cards are still told apart from the
rest, and ``bits`` the mean of log2(worlds without the history / worlds with it): how much the
facts read from the history (which reshuffle a card came from, a card seen on the draw pile and
drawn since, a card given by Trade, a buried eight) narrow the worlds the sampler draws from.

The last line is ``decisions=<int> reshuffled=<float> kept=<float> bits=<float> wrong=<int>
ms_mean=<float> rule_set=<name> players=<n>`` (``ms_mean``: CPU ms per ``unseen`` call).
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.knowledge import walk_history
from engine.sampling import information, unseen


def log2_worlds(spec: dict) -> float:
    """log2 of the number of consistent worlds: per kind of card, its cards over its places, a
    hand's places unordered; a hand's pool (the cards it put back on the draw pile) summed over
    the kinds its draw-pile places may hold."""
    hands = spec["hands"]
    pinned_in = Counter(where for zone, where in spec["pinned"].values() if zone == "hand")
    kinds: Counter = Counter(spec["labels"].values())
    total = sum(hands.values()) - sum(pinned_in.values()) + spec["draw_pile"] - sum(
        1 for zone, _ in spec["pinned"].values() if zone == "pile")
    kinds[0] = total - sum(kinds.values())
    bits = sum(math.lgamma(n + 1) for n in kinds.values())
    for h, size in hands.items():
        free = size - pinned_in[h]
        mix = Counter(spec["hand_labels"].get(h, {}))
        mix[0] = free + len(spec["pools"].get(h, ())) - sum(mix.values())
        put_back = len(spec["pools"].get(h, ()))
        ways = 0.0
        kinds_here = sorted(mix)
        for split in itertools.product(*(range(min(mix[k], put_back) + 1) for k in kinds_here)):
            if sum(split) == put_back:  # so many of each kind on the pile, in any order there
                ways += math.exp(math.lgamma(put_back + 1) - sum(
                    math.lgamma(a + 1) + math.lgamma(mix[k] - a + 1) for k, a in zip(kinds_here, split, strict=True)))
        bits += math.log(ways)
    return bits / math.log(2)


def wrong(game, spec: dict) -> bool:
    for card, (zone, where) in spec["pinned"].items():
        if (card not in game.hands[where]) if zone == "hand" else game.draw_pile[-1 - where] != card:
            return True
    labels = spec["labels"]
    for depth, k in spec["pile_labels"].items():
        if labels.get(game.draw_pile[-1 - depth]) != k:
            return True
    return any(
        dict(Counter(labels[c] for c in held if c in labels)) != spec["hand_labels"].get(h, {})
        for h in spec["hands"]
        for held in [game.hands[h] + [game.draw_pile[-1 - depth] for depth in spec["pools"].get(h, ())]]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule-set", default="crazier-eights", choices=sorted(engine.RULE_SETS))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--every", type=int, default=7)
    args = parser.parse_args()
    decisions = after = kept = bad = 0
    bits: list[float] = []
    times: list[float] = []
    for seed in range(args.games):
        game = engine.new_game(args.rule_set, players=args.players, seed=seed)
        rng = random.Random(seed)
        n = 0
        while game.pending is not None:
            if n % args.every == 0:
                info = information(game, game.pending.player)
                start = time.process_time()
                spec = unseen(info)
                times.append(time.process_time() - start)
                decisions += 1
                bad += wrong(game, spec)
                bits.append(log2_worlds(unseen(dict(info, history=[]))) - log2_worlds(spec))
                if walk_history(info).reshuffles:
                    after += 1
                    kept += bool(spec["labels"])
            game.apply(rng.choice(game.pending.options))
            n += 1
    print(
        f"decisions={decisions} reshuffled={after / max(decisions, 1):.3f} kept={kept / max(after, 1):.3f} "
        f"bits={statistics.fmean(bits):.2f} wrong={bad} ms_mean={1000 * statistics.fmean(times):.2f} "
        f"rule_set={args.rule_set} players={args.players}"
    )


if __name__ == "__main__":
    main()
