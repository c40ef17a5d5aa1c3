"""The eights family's short path for a plain play (engine/eights_family.py, ``_plain_cards``)
plays exactly the game its general path plays: the same choices, events, final state and views,
whatever the options, the player count, and a forfeit in the middle."""

import json
import random

import pytest

import engine
from engine.eights_family import RANK, EightsGame

OPTIONS = [
    {},
    {"special_cards": True},
    {"special_cards": True, "eight_on_two": True, "two_stacking": False},
    {"draw_limit": 3, "queen_skip": True},
    {"last_card": True},
    {"ignore_last_special": False, "two_draw": True, "two_player_seven": True},
]


def _play_out(options, players, seed):
    """A seeded random game (one player forfeits at decision 25 in every third), as bytes to compare."""
    game = engine.new_game("crazy-eights", players=players, seed=seed, options=options)
    rng = random.Random(seed)
    record = []
    while (decision := game.pending) is not None:
        if len(game.choices) == 25 and seed % 3 == 0:
            game.forfeit(seed % players, "test")
            continue
        record.append(json.dumps(game.view(decision.player), sort_keys=True))
        game.apply(rng.choice(decision.options))
    record.append(json.dumps(game.to_dict(), sort_keys=True))
    return record


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("players", [2, 3, 6])
def test_the_short_path_plays_the_game_the_general_path_plays(monkeypatch, options, players):
    for seed in range(12):
        short = _play_out(options, players, seed)
        with monkeypatch.context() as m:
            m.setattr(EightsGame, "_plain_card_set", lambda self: frozenset())  # every play the long way
            general = _play_out(options, players, seed)
        assert short == general, f"seed {seed}"


def test_the_short_path_is_taken_by_plain_cards_only():
    game = engine.new_game("crazy-eights", players=2, seed=1)
    assert game._plain_cards and all(RANK[c] != 8 for c in game._plain_cards)
    special = engine.new_game("crazy-eights", players=2, seed=1, options={"special_cards": True})
    assert {RANK[c] for c in special._plain_cards} == {3, 4, 5, 6, 7, 9, 10, 11, 13}
    # a "last card" call or Super's ways of going out need the general path for every play
    assert not engine.new_game("crazy-eights", players=2, seed=1, options={"last_card": True})._plain_cards
    assert not engine.new_game("super-crazy-eights", players=3, seed=1)._plain_cards
