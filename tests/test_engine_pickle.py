"""Every engine state of every rule set pickles, unpickles and clones to an equal game that plays
on identically: checked at random moments of seeded random games (process pools, vector
environments and search copy states this way)."""

import pickle
import random

from hypothesis import given
from hypothesis import strategies as st

import engine


def _play(game, rng, steps):
    for _ in range(steps):
        if game.pending is None:
            break
        game.apply(rng.choice(game.pending.options))


def _same_game(a, b):
    assert a.to_dict() == b.to_dict()
    assert a.pending == b.pending
    assert a.result == b.result


setups = st.fixed_dictionaries({
    "rule_set": st.sampled_from(sorted(engine.RULE_SETS)),
    "players": st.integers(2, 5),
    "seed": st.integers(0, 2**32 - 1),
    "moment": st.integers(0, 400),
    "after": st.integers(0, 2**32 - 1),
})


@given(setups)
def test_a_game_at_any_moment_pickles_and_clones_to_an_equal_game_that_plays_on_alike(s):
    game = engine.new_game(s["rule_set"], players=s["players"], seed=s["seed"])
    _play(game, random.Random(s["seed"]), s["moment"])
    copies = [pickle.loads(pickle.dumps(game, protocol)) for protocol in (2, pickle.HIGHEST_PROTOCOL)]
    copies.append(game.clone())
    for copy in copies:
        assert copy is not game
        _same_game(copy, game)
    # the copies are independent: playing them on leaves the original as it was
    before = game.to_dict()
    for copy in copies:
        _play(copy, random.Random(s["after"]), 10_000)
        assert copy.result is not None
    assert game.to_dict() == before
    _play(game, random.Random(s["after"]), 10_000)
    for copy in copies:
        _same_game(copy, game)


def test_a_crazier_game_with_put_backs_and_chosen_players_pickles():
    # the effects once made by closures (Pleasant Memories' chosen players, Study's put-back)
    game = engine.load_game({
        "rule_set": "crazier-eights", "players": 3,
        "hands": [["Pleasant Memories", "Castle", "Castle"], ["Castle", "Castle"], ["Castle", "Castle"]],
        "draw_pile": ["Castle"] * 8, "discard_pile": ["Visionary Dream"],
    })
    game.apply("play:0")  # Pleasant Memories, the first card named
    assert game.pending.kind == "players", game.pending
    game.apply(game.pending.options[0])
    copy = pickle.loads(pickle.dumps(game))
    _same_game(copy, game)
    copy.apply("done")
    game.apply("done")
    _same_game(copy, game)
