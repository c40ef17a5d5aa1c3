"""Our engine beside two outside anchors, measured interleaved in one run.

    pip install -e '.[anchors]'      # rlcard and open_spiel (optional: a missing anchor is skipped)
    python bench/anchors.py [--rounds 10] [--seconds 0.5] [--players 2] [--baseline DIR] [--cpu]

Four arms, all random play driven by the same kind of loop (pick a legal option uniformly with a
seeded ``random.Random``, apply it, repeat until the game ends):

- ``crazier``: our crazier-eights;            anchor ``uno``: RLCard's pure-Python UNO game
  (``rlcard.games.uno``: its round stepped directly, without building states for the RL agent);
- ``crazy``: our classic crazy-eights;        anchor ``openspiel``: OpenSpiel's C++ ``crazy_eights``
  stepped from Python (its chance nodes, the deal and each card drawn, are sampled uniformly as
  they are uniform, and are not counted as decisions).

``--baseline DIR`` adds our two games as they are in ``DIR/engine`` (another commit's engine,
imported beside ours) and prints the speed-up. The arms take turns in short rounds
(``--seconds`` each) so that a loaded machine slows them alike; ``--cpu`` times them by this
process's CPU time instead of the wall clock, leaving out the time other programs hold the cores.
A first line says which build of our engine runs: pure Python, or the optional compiled build
(setup.py; a ``--baseline`` copy is always pure Python, its ``.py`` files only).
Each line gives an arm's decisions per second over all its rounds; the last line is
``crazier_per_s=<float> uno_per_s=<float> crazier_vs_uno=<float> crazy_per_s=<float>
openspiel_per_s=<float> crazy_vs_openspiel=<float>`` (``nan`` where an anchor is not installed).
"""

from __future__ import annotations

import argparse
import importlib
import math
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine

#: an arm plays whole games from a seed and returns the decisions made
Arm = Callable[[int], int]


def ours(rule_set: str, players: int, package=engine) -> Arm:
    def play(seed: int) -> int:
        game = package.new_game(rule_set, players=players, seed=seed)
        choice = random.Random(seed).choice
        decisions = 0
        while (decision := game.pending) is not None:
            game.apply(choice(decision.options))
            decisions += 1
        return decisions

    return play


def uno(players: int) -> Arm | None:
    try:
        import numpy as np
        from rlcard.games.uno.game import UnoGame
    except ImportError:
        return None

    def play(seed: int) -> int:
        game = UnoGame(num_players=players)
        game.np_random = np.random.RandomState(seed)
        game.init_game()
        choice = random.Random(seed).choice
        # The round itself, not game.step(): step() also builds the next player's state (a view),
        # which our loop does not ask for either; this makes the anchor as fast as it can be.
        rnd, seated = game.round, game.players
        decisions = 0
        while not rnd.is_over:
            rnd.proceed_round(seated, choice(rnd.get_legal_actions(seated, rnd.current_player)))
            decisions += 1
        return decisions

    return play


def openspiel(players: int) -> Arm | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("crazy_eights", {"players": players})

    def play(seed: int) -> int:
        state = game.new_initial_state()
        rng = random.Random(seed)
        choice = rng.choice
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():  # the deal and the draws: uniform over the unseen cards
                state.apply_action(choice(state.legal_actions()))
            else:
                state.apply_action(choice(state.legal_actions()))
                decisions += 1
        return decisions

    return play


def load_baseline(tree: str):
    """Another copy of the engine, ``DIR/engine`` (e.g. an older commit's, made with
    ``git archive REV engine | tar -x -C DIR``), imported beside ours as ``engine_baseline``: its
    sources are copied to a temporary folder with the package's name changed, so both run in this
    process, interleaved like the other arms."""
    target = Path(tempfile.mkdtemp(prefix="anchors-")) / "engine_baseline"
    for source in Path(tree, "engine").rglob("*.py"):
        copy = target / source.relative_to(Path(tree, "engine"))
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(re.sub(r"\bengine\b", "engine_baseline", source.read_text()))
    sys.path.insert(0, str(target.parent))
    return importlib.import_module("engine_baseline")


def measure(arms: dict[str, Arm], rounds: int, seconds: float, clock=time.perf_counter) -> dict[str, float]:
    """Decisions per second of each arm, the arms taking turns for ``rounds`` rounds."""
    totals = {name: [0, 0.0] for name in arms}
    seeds = dict.fromkeys(arms, 0)
    for _ in range(rounds):
        for name, play in arms.items():
            decisions = 0
            start = clock()
            while (elapsed := clock() - start) < seconds:
                decisions += play(seeds[name])
                seeds[name] += 1
            totals[name][0] += decisions
            totals[name][1] += elapsed
    return {name: d / t for name, (d, t) in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--baseline", metavar="DIR", help="also measure DIR/engine (e.g. as before a change)")
    parser.add_argument("--cpu", action="store_true", help="time by CPU time (steadier on a busy machine)")
    args = parser.parse_args()
    arms: dict[str, Arm] = {
        "crazier": ours("crazier-eights", args.players),
        "crazy": ours("crazy-eights", args.players),
    }
    if args.baseline:
        before = load_baseline(args.baseline)
        arms["crazier_base"] = ours("crazier-eights", args.players, before)
        arms["crazy_base"] = ours("crazy-eights", args.players, before)
    for name, make in (("uno", uno), ("openspiel", openspiel)):
        arm = make(args.players)
        if arm is None:
            print(f"{name}: not installed, skipped (pip install -e '.[anchors]')")
        else:
            arms[name] = arm
    print(f"engine: {'compiled (mypyc, setup.py)' if engine.COMPILED else 'pure Python'}")
    for play in arms.values():
        play(0)  # imports and first-time set-up stay out of the measurement
    rates = measure(arms, args.rounds, args.seconds, time.process_time if args.cpu else time.perf_counter)
    for name, rate in rates.items():
        print(f"{name:10} {rate:12.0f} decisions/s")
    nan = math.nan
    crazier, crazy = rates["crazier"], rates["crazy"]
    if args.baseline:
        print(f"speed-up against {args.baseline}: crazier {crazier / rates['crazier_base']:.2f}x, "
              f"crazy {crazy / rates['crazy_base']:.2f}x")
    uno_rate, os_rate = rates.get("uno", nan), rates.get("openspiel", nan)
    print(
        f"crazier_per_s={crazier:.0f} uno_per_s={uno_rate:.0f} crazier_vs_uno={crazier / uno_rate:.2f} "
        f"crazy_per_s={crazy:.0f} openspiel_per_s={os_rate:.0f} crazy_vs_openspiel={crazy / os_rate:.2f}"
    )


if __name__ == "__main__":
    main()
