"""Every engine change replays identically: seeded games hash as recorded (scripts/replay_hash.py).

CI checks the first 100 games of each rule set and player count; ``python scripts/replay_hash.py``
checks all 1,000. A change that alters a replay on purpose records anew with ``--record`` and says
why in its commit.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("replay_hash", ROOT / "scripts" / "replay_hash.py")
assert _spec is not None and _spec.loader is not None
replay_hash = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay_hash)


def test_every_set_is_recorded():
    assert set(replay_hash.recorded()) == set(replay_hash.SETS)


@pytest.mark.parametrize("name", replay_hash.SETS)
def test_replays_hash_as_recorded(name):
    want = replay_hash.recorded()[name]
    got = replay_hash.set_hashes(name, replay_hash.QUICK_GAMES)
    assert got["full"] == want["quick"]


def test_the_hash_sees_a_changed_game():
    a = replay_hash.game_record("crazy-eights", 2, 5)
    assert a == replay_hash.game_record("crazy-eights", 2, 5)
    assert a != replay_hash.game_record("crazy-eights", 2, 6)
