"""One conformance test for every rule set: the engine contract (``engine.Game``, docs/engine.md).

The same checks run against each rule set and several table sizes, the way OpenSpiel runs one
simulation test over all its games: random play to the end, a save and load in the middle that
continues identically, illegal options refused without a change, views that hold no other
player's hidden hand, forfeits, and replays from the choices.
"""

from __future__ import annotations

import json
import random

import pytest

import engine

CASES = [
    ("crazier-eights", 2), ("crazier-eights", 4), ("crazier-eights", 7),
    ("crazy-eights", 2), ("crazy-eights", 5),
    ("super-crazy-eights", 2), ("super-crazy-eights", 4),
]
SEEDS = range(6)


def _play(game, rng: random.Random, limit: int = 100_000) -> int:
    """Random play to the end; the number of decisions."""
    decisions = 0
    while (decision := game.pending) is not None:
        assert decisions < limit, "the game did not end"
        game.apply(rng.choice(decision.options))
        decisions += 1
    return decisions


def _hidden_hands(game, seat: int) -> list[list[int]]:
    """The hands ``seat`` may not see: other seats' concealed hands (dummies are face up)."""
    dummies = getattr(game, "dummy", None) or [False] * len(game.hands)
    owners = game.hand_players()
    return [h for i, h in enumerate(game.hands) if owners[i] != seat and not dummies[i]]


def _contains_list(data, cards: list[int]) -> bool:
    """Whether ``cards`` (in this order or sorted) appears as a list anywhere in ``data``."""
    if isinstance(data, dict):
        return any(_contains_list(v, cards) for v in data.values())
    if isinstance(data, list):
        if data and (data == cards or data == sorted(cards)):
            return True
        return any(_contains_list(v, cards) for v in data)
    return False


@pytest.mark.parametrize(("rule_set", "players"), CASES)
def test_every_game_keeps_the_contract(rule_set, players):
    for seed in SEEDS:
        game = engine.new_game(rule_set, players=players, seed=seed)
        assert isinstance(game, engine.Game)
        assert game.rule_set == rule_set and game.players == players and game.seed == seed
        assert len(game.hand_players()) == len(game.hands) and len(game.in_play) == players
        rng = random.Random(seed)
        decisions = 0
        while (decision := game.pending) is not None:
            assert game.result is None
            assert decision.options and len(set(decision.options)) == len(decision.options)
            assert game.alive[decision.player]
            for option in decision.options:
                assert isinstance(game.label(option), str) and game.label(option)
            before = game.to_dict()
            with pytest.raises(engine.IllegalOption):
                game.apply("no-such-option")
            assert game.to_dict() == before, "an illegal option changed the game"
            game.apply(rng.choice(decision.options))
            decisions += 1
        result = game.result
        assert result is not None and game.pending is None
        assert len(result.points) == len(result.placements) == players
        assert all(game.alive[w] for w in result.winners)
        assert all(result.placements[w] == 1 for w in result.winners)
        assert game.choices and len(game.choices) == decisions
        assert all(isinstance(game.describe(e), str) for e in game.events)
        json.dumps(game.to_dict())  # JSON-ready
        with pytest.raises(engine.IllegalOption):
            game.apply(decision.options[0] if decision else "end")


@pytest.mark.parametrize(("rule_set", "players"), CASES)
def test_save_and_load_mid_game_continues_identically(rule_set, players):
    for seed in SEEDS:
        game = engine.new_game(rule_set, players=players, seed=seed)
        rng = random.Random(seed)
        for _ in range(7 + seed * 3):
            if game.pending is None:
                break
            game.apply(rng.choice(game.pending.options))
        saved = json.loads(json.dumps(game.to_dict()))
        copy = engine.load_game(saved)
        assert copy.to_dict() == game.to_dict()
        assert copy.pending == game.pending
        state = rng.getstate()
        _play(game, rng)
        rng.setstate(state)
        _play(copy, rng)
        assert copy.to_dict() == game.to_dict()
        assert copy.result == game.result


@pytest.mark.parametrize(("rule_set", "players"), CASES)
def test_a_view_holds_no_other_hidden_hand(rule_set, players):
    for seed in SEEDS:
        game = engine.new_game(rule_set, players=players, seed=seed)
        rng = random.Random(seed)
        while (decision := game.pending) is not None:
            for seat in range(players):
                view = game.view(seat)
                assert json.loads(json.dumps(view)) == view
                # An effect may let this seat look at a hand (Trade, Queen Guinevere): the view shows
                # it under "looking_at" and in events meant for this seat only. Everything else
                # (the public events included) must hold no other hidden hand.
                view.pop("looking_at", None)
                view["events"] = [e for e in view.get("events", []) if e.get("only") != seat]
                for counts in ("hand_sizes", "skips", "extra_turns"):  # numbers, not cards
                    view.pop(counts, None)
                for hand in _hidden_hands(game, seat):
                    if len(hand) >= 2:
                        assert not _contains_list(view, hand), f"seat {seat} sees another hand: {hand}"
            game.apply(rng.choice(decision.options))


@pytest.mark.parametrize(("rule_set", "players"), CASES)
def test_a_forfeit_takes_the_seat_out_and_replays(rule_set, players):
    for seed in SEEDS:
        start = {"rule_set": rule_set, "players": players, "seed": seed}
        game = engine.new_game(**start)
        rng = random.Random(seed)
        for _ in range(5 + seed):
            if game.pending is None:
                break
            game.apply(rng.choice(game.pending.options))
        gone = seed % players
        if game.pending is None:
            continue
        game.forfeit(gone, "test")
        assert not game.alive[gone]
        assert game.choices[-1] == f"{engine.FORFEIT}:{gone}:test"
        while (decision := game.pending) is not None:
            assert decision.player != gone, "a forfeited seat was asked"
            game.apply(rng.choice(decision.options))
        result = game.result
        assert result is not None and gone not in result.winners and gone in result.eliminated
        assert all(result.placements[gone] > result.placements[p] for p in range(players) if game.alive[p])
        # a forfeit after the end changes nothing and is not recorded
        choices = list(game.choices)
        game.forfeit((gone + 1) % players, "late")
        assert game.choices == choices
        assert engine.replay(start, game.choices).to_dict() == game.to_dict()


@pytest.mark.parametrize(("rule_set", "players"), CASES)
def test_replay_from_the_choices_equals_the_game(rule_set, players):
    for seed in SEEDS:
        start = {"rule_set": rule_set, "players": players, "seed": seed}
        game = engine.new_game(**start)
        _play(game, random.Random(seed + 100))
        again = engine.replay(start, game.choices)
        assert again.to_dict() == game.to_dict()
        assert again.result == game.result
        assert [again.view(p) for p in range(players)] == [game.view(p) for p in range(players)]


def test_engine_crazier_keeps_its_names_and_its_modules_stay_short():
    from pathlib import Path

    import engine.crazier as crazier

    for name in ("Game", "State", "STEPS", "OPTIONS", "RULE_SET", "FORMAT_VERSION", "new_game", "load",
                 "validate_options"):
        assert hasattr(crazier, name), name
    assert engine.RULE_SETS["crazier-eights"] == "engine.crazier"
    game = crazier.new_game(players=2, seed=1)
    assert isinstance(game, crazier.Game) and isinstance(game, crazier.State)
    # the luck estimates read these zones from outside (docs/engine.md)
    for zone in ("hands", "draw_pile", "discard", "in_play", "limbo", "known", "seen"):
        assert isinstance(getattr(game, zone), list), zone
    for module in Path(crazier.__file__).parent.glob("*.py"):
        assert len(module.read_text().splitlines()) <= 500, module.name
