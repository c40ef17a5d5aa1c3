"""A hash over seeded games of every rule set: the check that an engine change replays identically.

    python scripts/replay_hash.py            # play 1,000 games per set, compare with the record
    python scripts/replay_hash.py --record   # write tests/data/replay_hashes.json anew
    python scripts/replay_hash.py --games 100 --only crazy-eights/2

A *set* is a rule set and a player count. Each game of a set is seeded (seed = game number), played
to the end by the built-in random bots (one per seat, each seeded from the game's seed), and its
whole record goes into the hash: the choices, the result, the serialised final state
(``to_dict()``), the final view of every seat, and the view of the deciding seat at every tenth
decision. Every seventh game has one seat forfeit at its twentieth decision, so that the forfeit
path is hashed too. The record keeps two hashes per set: over its first 100 games (tests/
test_replay_hash.py checks those in CI) and over all 1,000 (this script checks those).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.bots import RandomBot  # noqa: E402

RECORD = ROOT / "tests" / "data" / "replay_hashes.json"
GAMES = 1000
QUICK_GAMES = 100

#: rule set -> player counts hashed
PLAYER_COUNTS = {
    "crazier-eights": (2, 3, 4, 5, 6, 7, 8),
    "crazy-eights": (2, 3, 4, 6),
    "super-crazy-eights": (2, 3, 4, 6),
}

SETS = tuple(f"{rule_set}/{n}" for rule_set, counts in PLAYER_COUNTS.items() for n in counts)


def _dump(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def game_record(rule_set: str, players: int, seed: int) -> bytes:
    """The bytes hashed for one seeded game (deterministic from its arguments)."""
    game = engine.new_game(rule_set, players=players, seed=seed)
    bots = [RandomBot(seed * 16 + seat) for seat in range(players)]
    h = hashlib.sha256()
    decisions = 0
    forfeit_at = 20 if seed % 7 == 3 else -1
    while (decision := game.pending) is not None:
        if decisions == forfeit_at:
            game.forfeit(seed % players, "replay-hash")
            forfeit_at = -1
            continue
        seat = decision.player
        if decisions % 10 == 0:
            h.update(_dump(game.view(seat)))
        game.apply(bots[seat].choose(decision, lambda seat=seat: game.view(seat)))
        decisions += 1
    h.update(_dump(game.choices))
    h.update(_dump(game.result.to_dict() if game.result is not None else None))
    h.update(_dump(game.to_dict()))
    for seat in range(players):
        h.update(_dump(game.view(seat)))
    return h.digest()


def set_hashes(name: str, games: int, quick: int = QUICK_GAMES) -> dict:
    """{"quick": hash over the first ``quick`` games, "full": hash over ``games`` games}."""
    rule_set, _, players = name.partition("/")
    h = hashlib.sha256()
    out = {}
    for seed in range(games):
        h.update(game_record(rule_set, int(players), seed))
        if seed + 1 == quick:
            out["quick"] = h.copy().hexdigest()
    out["full"] = h.hexdigest()
    out["games"] = games
    return out


def recorded() -> dict:
    return json.loads(RECORD.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=GAMES)
    parser.add_argument("--only", action="append", default=[], help="a set such as crazier-eights/2")
    parser.add_argument("--record", action="store_true", help=f"write {RECORD.relative_to(ROOT)}")
    args = parser.parse_args()
    names = args.only or list(SETS)
    record = recorded() if RECORD.exists() else {}
    fresh = {}
    bad = 0
    for name in names:
        got = set_hashes(name, args.games)
        fresh[name] = got
        want = record.get(name, {})
        key = "full" if args.games == want.get("games") else "quick" if args.games == QUICK_GAMES else None
        status = "recorded" if args.record else "no record"
        if not args.record and key is not None and key in want:
            status = "same" if want[key] == got[key] else "DIFFERENT"
            bad += status == "DIFFERENT"
        print(f"{name:24} {got['full'][:16]} {status}", flush=True)
    if args.record:
        record.update(fresh)
        RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"sets={len(names)} games={args.games} different={bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
