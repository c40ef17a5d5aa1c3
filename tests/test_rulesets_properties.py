"""Properties of the standard-deck rule sets, over random games with random options:
card conservation at every step, no view leaks, every game ends, save -> load -> continue
identical, and replays reproduce the game, forfeits at random moments included.

(The Crazier Eights rule set has its own property tests; these cover crazy-eights and
super-crazy-eights, and `RULE_SETS` is the place to add another.)
"""

import json
import random

from enginekit import play_with_forfeits
from hypothesis import given
from hypothesis import strategies as st

import engine

RULE_SETS = ("crazy-eights", "super-crazy-eights")

#: a game longer than this many decisions counts as not terminating
MAX_DECISIONS = 20_000


@st.composite
def setups(draw):
    rule_set = draw(st.sampled_from(RULE_SETS))
    if rule_set == "crazy-eights":
        players = draw(st.integers(2, 7))
        options = {
            "special_cards": draw(st.booleans()),
            "draw_limit": draw(st.sampled_from([0, 3, 5])),
            "last_card": draw(st.booleans()),
            "two_stacking": draw(st.booleans()),
            "eight_on_two": draw(st.booleans()),
            "special_starter": draw(st.booleans()),
            "ignore_last_special": draw(st.booleans()),
            "two_player_seven": draw(st.booleans()),
            "scoring": draw(st.sampled_from(["low", "high"])),
        }
    else:
        players = draw(st.integers(2, 6))
        options = {"deal": draw(st.integers(1, 15)), "dummies": draw(st.booleans())}
    return {
        "rule_set": rule_set,
        "players": players,
        "seed": draw(st.integers(0, 2**32 - 1)),
        "options": options,
    }


def choose(rng, options, eagerness):
    """A random bot that plays rather than draws with probability ``eagerness`` (pure uniform
    random play makes Super Crazy Eights deals very long, which only slows the tests)."""
    plays = [o for o in options if o.startswith("play:")]
    if plays and rng.random() < eagerness:
        return rng.choice(plays)
    return rng.choice(options)


def zones(game):
    cards = [c for hand in game.hands for c in hand] + game.draw_pile + game.discard
    return sorted(cards)


def check_view(game, player):
    view = game.view(player)
    json.dumps(view)
    hidden = set(game.draw_pile)
    for h, hand in enumerate(game.hands):
        if game.controller[h] != player and not game.dummy[h]:
            hidden.update(hand)
    shown = set(view["hand"]) | set(view["discard_pile"])
    if view["top"] is not None:
        shown.add(view["top"])
    for entry in view.get("hands", []):
        shown.update(entry.get("cards", []))
    for cards in view.get("dummies", {}).values():
        shown.update(cards)
    assert not shown & hidden, "a view shows a hidden card"
    own = [h for h in range(len(game.hands)) if game.controller[h] == player and not game.dummy[h]]
    assert sorted(view["hand"]) == sorted(c for h in own for c in game.hands[h])
    for event in view["events"]:
        if "cards" in event:
            # drawn cards are shown only to the drawer, or to all when a dummy drew them
            assert event["player"] == player or event.get("hand") in ("north", "east")


def play_out(game, rng, eagerness, on_step=None):
    steps = 0
    while game.pending is not None:
        assert steps < MAX_DECISIONS, "the game does not end"
        if on_step:
            on_step(game)
        game.apply(choose(rng, game.pending.options, eagerness))
        steps += 1
    return steps


@given(setups(), st.integers(0, 2**16), st.floats(0.5, 1.0))
def test_conservation_views_and_termination(setup, bot_seed, eagerness):
    game = engine.new_game(**setup)
    deck = list(range(len(game.card_table())))
    rng = random.Random(bot_seed)

    def check(g):
        assert zones(g) == deck
        for p in range(g.players):
            check_view(g, p)
        assert g.pending.player in range(g.players)
        assert g.pending.options and len(set(g.pending.options)) == len(g.pending.options)
        for o in g.pending.options:
            assert isinstance(g.label(o), str)

    play_out(game, rng, eagerness, check)
    assert zones(game) == deck
    r = game.result
    assert r is not None and len(r.points) == game.players and len(r.placements) == game.players
    assert r.winners and all(r.placements[w] == 1 for w in r.winners)
    for p in range(game.players):
        check_view(game, p)
    for event in game.events:
        assert isinstance(game.describe(event), str)


@given(setups(), st.integers(0, 2**16), st.floats(0.5, 1.0), st.integers(0, 60))
def test_save_load_continue_identical(setup, bot_seed, eagerness, cut):
    game = engine.new_game(**setup)
    rng = random.Random(bot_seed)
    for _ in range(cut):
        if game.pending is None:
            break
        game.apply(choose(rng, game.pending.options, eagerness))
    saved = json.loads(json.dumps(game.to_dict()))
    loaded = engine.load_game(saved)
    assert loaded.to_dict() == game.to_dict()
    assert loaded.pending == game.pending
    state = rng.getstate()
    play_out(game, rng, eagerness)
    rng.setstate(state)
    play_out(loaded, rng, eagerness)
    assert loaded.to_dict() == game.to_dict()
    again = engine.replay(setup, game.choices)
    assert again.to_dict() == game.to_dict()


@given(setups(), st.integers(0, 2**16), st.integers(0, 40), st.data())
def test_forfeits_end_or_continue_cleanly(setup, bot_seed, cut, data):
    game = engine.new_game(**setup)
    rng = random.Random(bot_seed)
    deck = list(range(len(game.card_table())))
    for _ in range(cut):
        if game.pending is None:
            return
        game.apply(choose(rng, game.pending.options, 0.8))
    if game.pending is None:
        return
    loser = data.draw(st.integers(0, game.players - 1))
    game.forfeit(loser, "test")
    play_out(game, rng, 0.8, lambda g: check_view(g, loser))
    assert zones(game) == deck
    r = game.result
    assert loser in r.eliminated and loser not in r.winners
    assert r.placements[loser] > min(r.placements)


@given(setups(), st.integers(0, 2**16), st.integers(0, 60))
def test_random_forfeits_replay_and_save_load_identically(setup, bot_seed, cut):
    game = engine.new_game(**setup)
    games, forfeits = play_with_forfeits(
        game, random.Random(bot_seed), lambda rng, options: choose(rng, options, 0.8), cut
    )
    game.forfeit(0, "late")  # after the end: not a choice
    assert [c for c in game.choices if c.startswith("forfeit:")] == forfeits
    assert all(g.to_dict() == game.to_dict() for g in games)
    assert engine.replay(setup, game.choices).to_dict() == game.to_dict()


@given(setups(), st.integers(0, 2**16))
def test_illegal_options_change_nothing(setup, bot_seed):
    game = engine.new_game(**setup)
    rng = random.Random(bot_seed)
    for _ in range(rng.randrange(30)):
        if game.pending is None:
            break
        game.apply(choose(rng, game.pending.options, 0.8))
    before = json.dumps(game.to_dict(), sort_keys=True)
    for bad in ("play:999", "suit:moon", "count:all", "last_card", "draw", "pass", "play:0"):
        if game.pending is not None and bad in game.pending.options:
            continue
        try:
            game.apply(bad)
        except engine.IllegalOption:
            pass
        else:
            raise AssertionError(f"{bad} was accepted")
    assert json.dumps(game.to_dict(), sort_keys=True) == before
