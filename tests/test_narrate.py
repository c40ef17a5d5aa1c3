"""Narration: every engine event of many seeded games is told in words, with entrant names."""

from __future__ import annotations

import random
import re

import pytest

import engine
from tourney import narrate

NAMES = ["alice", "bob", "carol", "dave"]
#: what a raw dict, a bare seat number or an engine code looks like in a line
RAW = re.compile(r"[{}\[\]]|'type'|\bplayer \d|_hand\b|last_standing|impossible_draw|\(\w+ (moon|ankh|sun|eye)\)")


def play_out(rule_set: str, players: int, seed: int, options: dict | None = None):
    game = engine.new_game(rule_set, players=players, seed=seed, options=options)
    rng = random.Random(seed)
    while game.pending is not None:
        game.apply(rng.choice(game.pending.options))
    return game


CASES = [("crazier-eights", n) for n in (2, 3, 4)] + [("crazy-eights", 2), ("crazy-eights", 4),
                                                       ("super-crazy-eights", 2), ("super-crazy-eights", 3)]


@pytest.mark.parametrize(("rule_set", "players"), CASES)
def test_every_event_of_many_games_is_told_in_words(rule_set, players):
    seen_types = set()
    for seed in range(60):
        game = play_out(rule_set, players, seed)
        table = narrate.table_for(game, NAMES[:players])
        for e in game.events:
            assert e["type"] in narrate.NARRATORS, e
            seen_types.add(e["type"])
            line = narrate.event(table, e)
            assert not RAW.search(line), (e, line)
            if "player" in e:
                assert NAMES[e["player"]] in line, (e, line)
    assert {"play", "end"} <= seen_types


def test_the_crazier_log_covers_trades_effects_and_the_end_in_words():
    # a crazier game where a Trade happens: the private "traded" events name both cards
    for seed in range(200):
        game = play_out("crazier-eights", 2, seed)
        trades = [e for e in game.events if e["type"] == "traded"]
        if trades:
            break
    else:  # pragma: no cover - the seeds above contain trades
        pytest.fail("no trade in 200 games")
    table = narrate.table_for(game, ["ann", "ben"])
    e = trades[0]
    line = narrate.event(table, e)
    gave = game.card_table()[e["gave"]]["name"]
    assert line.startswith(f"{['ann', 'ben'][e['player']]} gives {gave} (")
    assert f"to {['ann', 'ben'][e['with']]}" in line


def test_concrete_sentences():
    game = engine.new_game("crazier-eights", players=2, seed=1)
    t = narrate.table_for(game, ["ann", "ben"])
    trade = next(c for c, d in game.card_table().items() if d["name"] == "Trade")
    assert narrate.event(t, {"type": "play", "player": 1, "card": trade, "as": "event"}) == \
        "ben plays Trade (4, Moon) as an event"
    assert narrate.event(t, {"type": "colour", "player": 0, "suit": "sun"}) == "ann names yellow (Sun)"
    assert narrate.event(t, {"type": "end", "winners": [1], "reason": "last_standing"}) == \
        "game over: ben wins (the last player standing)"
    assert narrate.event(t, {"type": "effect", "card": "Trade", "player": 0,
                             "text": "player 0 exchanges a card with player 1"}) == \
        "Trade: ann exchanges a card with ben"
    assert narrate.event(t, {"type": "lose", "player": 0, "reason": "forfeit:timeout"}) == \
        "ann is out of the game (forfeit after a fault (timeout))"
    assert narrate.option(t, "colour:moon") == "name red (Moon)"
    assert narrate.option(t, "player:1") == "choose ben"
    assert narrate.result_line(t, [0], "empty_hand", [0, 9]) == \
        "result: ann wins (went out: no cards left in hand); points (fewer is better): ann 0, ben 9"
    eights = engine.new_game("super-crazy-eights", players=2, seed=1)
    t8 = narrate.table_for(eights, ["ann", "ben"])
    assert narrate.event(t8, {"type": "play", "player": 0, "card": 7, "hand": "north"}) == \
        "ann plays 8 of clubs from the north hand"
    assert narrate.event(t8, {"type": "suit", "player": 0, "suit": "hearts"}) == "ann names hearts"


def test_an_unknown_event_type_is_still_words():
    t = narrate.Table("crazier-eights", ("ann",))
    assert narrate.event(t, {"type": "new_thing", "size": 3}) == "new thing: size 3"


@pytest.mark.parametrize("rule_set", ["crazier-eights", "crazy-eights", "super-crazy-eights"])
def test_the_referee_log_of_seeded_bot_games_is_all_words(rule_set):
    from tourney.bots.entrants import EntrantSpec, open_entrant
    from tourney.bots.referee import play_game

    for seed in range(25):
        with open_entrant(EntrantSpec("greedy", builtin="greedy"), seed) as a, \
                open_entrant(EntrantSpec("random", builtin="random"), seed + 1) as b:
            record = play_game([a, b], rule_set=rule_set, seed=seed)
        assert record.log[0].startswith(f"game: {rule_set}, seed {seed}; seat 0 greedy, seat 1 random; ")
        assert record.log[-1].startswith("result: ")
        for line in record.log:
            assert not RAW.search(line), line
