"""Scenario tests for classic Crazy Eights (document 003), each from a concrete position."""

import json

import pytest

import engine
from engine import crazy_eights as ce
from engine.eights_family import RANK, card_id


def C(name):
    return card_id(name)


def play(name):
    return f"play:{C(name)}"


def pos(hands, discard, draw=None, **kw):
    """A position; cards not listed lie under the discard pile (out of play) unless told."""
    data = {
        "rule_set": "crazy-eights",
        "position": True,
        "players": len(hands),
        "hands": hands,
        "discard_pile": discard,
        "rest": "discard_pile",
    }
    if draw is not None:
        data["draw_pile"] = draw
    data.update(kw)
    return engine.load_game(data)


def names(cards):
    return sorted(card_id_name(c) for c in cards)


def card_id_name(c):
    from engine.eights_family import NAME

    return NAME[c]


# -- the deal --------------------------------------------------------------------------------------


def test_deal_sizes_and_decks():
    g = engine.new_game("crazy-eights", players=4, seed=1)
    assert [len(h) for h in g.hands] == [5, 5, 5, 5]
    assert len(g.card_table()) == 52
    g = engine.new_game("crazy-eights", players=6, seed=1)
    assert len(g.card_table()) == 104  # "more than five players ... combine two decks"
    g = engine.new_game("crazy-eights", players=2, seed=1, options={"two_player_seven": True})
    assert [len(h) for h in g.hands] == [7, 7]
    g = engine.new_game("crazy-eights", players=3, seed=1, options={"hand_size": 8})
    assert [len(h) for h in g.hands] == [8, 8, 8]


def test_buried_eight_starter():
    """An eight turned up as starter goes to the middle of the draw pile and a new card is turned."""
    found = 0
    for seed in range(300):
        g = engine.new_game("crazy-eights", players=3, seed=seed, first_player=0)
        buried = [e["card"] for e in g.events if e["type"] == "bury"]
        if len(buried) != 1:
            continue
        found += 1
        eight = buried[0]
        assert RANK[eight] == 8
        assert RANK[g.discard[-1]] != 8 and len(g.discard) == 1
        # inserted in the middle of the 36 cards left after the deal and the turned eight; cards
        # taken from the top since then (a new starter, forced draws) do not move it
        assert g.draw_pile.index(eight) == (52 - 3 * 5 - 1) // 2
        assert sum(len(h) for h in g.hands) + len(g.draw_pile) + len(g.discard) == 52
    assert found >= 5


def test_starter_player_after_dealer():
    g = engine.new_game("crazy-eights", players=4, seed=3, first_player=2)
    assert g.dealer == 1
    assert RANK[g.discard[-1]] == 10  # a plain starter (this seed's): it changes nothing
    assert g.pending.player == 2


# -- matching, eights, drawing ----------------------------------------------------------------------


def test_match_by_suit_or_rank_and_eights_wild():
    g = pos([["8D", "6S", "2H", "KC"], ["3C"]], ["6H"], draw=["9C"])
    assert g.pending.player == 0 and g.pending.kind == "turn"
    assert g.pending.options == [play("8D"), play("6S"), play("2H"), "draw"]


def test_eight_names_a_suit_and_next_must_follow_it():
    g = pos([["8D", "5S"], ["KC", "KH", "8S", "2C"]], ["6H"], draw=["9C"])
    g.apply(play("8D"))
    assert g.pending.kind == "suit" and g.pending.player == 0
    assert g.pending.options == ["suit:clubs", "suit:diamonds", "suit:hearts", "suit:spades"]
    g.apply("suit:clubs")
    assert g.pending.player == 1
    assert g.pending.options == [play("KC"), play("8S"), play("2C"), "draw"]
    assert g.view(1)["named_suit"] == "clubs"


def test_draw_until_able_to_play():
    g = pos([["KC", "4S"], ["3C"]], ["6H"], draw=["2C", "3S", "9H", "4H"])
    # no legal card: drawing is forced, and it stops at the first playable card (9H)
    assert g.pending.player == 0
    assert sorted(g.hands[0]) == sorted(C(x) for x in ["KC", "4S", "2C", "3S", "9H"])
    assert g.pending.options == [play("9H"), "draw"]
    assert len(g.draw_pile) == 1
    draws = [e for e in g.events if e["type"] == "draw"]
    assert draws[-1]["count"] == 3 and "cards" not in draws[-1]
    assert g.view(0)["events"][-1]["cards"] == [C("2C"), C("3S"), C("9H")]
    assert "cards" not in g.view(1)["events"][-1]


def test_may_always_choose_not_to_play_then_draws():
    g = pos([["6S", "KC"], ["3C"]], ["6H"], draw=["2C", "7H", "5D"])
    assert g.pending.options == [play("6S"), "draw"]
    g.apply("draw")  # will not play: draws until able to play (7H matches)
    assert C("7H") in g.hands[0] and C("2C") in g.hands[0]
    assert g.pending.options == [play("6S"), play("7H"), "draw"]


def test_empty_draw_pile_means_pass():
    g = pos([["6S", "KC"], ["3C", "4C"]], ["6H"], draw=[])
    assert g.pending.options == [play("6S"), "pass"]  # pass only once drawing is impossible
    g.apply("pass")
    # player 1 cannot play and cannot draw: passes without being asked. Both passed in a row
    # with nothing to draw: the deal is blocked (our reading, docs/rulesets.md)
    assert [e["type"] for e in g.events[-3:]] == ["pass", "pass", "end"]
    assert g.result.reason == "blocked"


def test_draw_pile_runs_out_then_pass():
    g = pos([["KC"], ["3C", "4C"]], ["6H"], draw=["2C", "3S"])
    # forced: player 0 draws 2C and 3S (nothing playable) and, the pile empty, passes. That turn
    # drew cards, so the passes in a row start after it: player 1 passes, player 0 passes again
    # and the deal is blocked. Lowest hand wins: player 1 (3 + 4) against player 0 (10 + 2 + 3).
    assert [(e["type"], e.get("player")) for e in g.events[1:]] == [
        ("draw", 0), ("pass", 0), ("pass", 1), ("pass", 0), ("end", None)]
    assert g.events[1]["count"] == 2 and sorted(g.hands[0]) == sorted(C(x) for x in ["KC", "2C", "3S"])
    assert g.result.reason == "blocked"
    assert (g.result.winners, g.result.points) == ([1], [15, 7])


def test_blocked_deal_lowest_hand_wins():
    g = pos([["KC", "2S"], ["3C", "4C"]], ["6H"], draw=[])
    assert g.result.reason == "blocked"
    assert g.result.points == [12, 7]
    assert g.result.winners == [1]


@pytest.mark.parametrize("limit", [3, 5])
def test_draw_limit(limit):
    pile = ["2C", "3S", "4D", "5S", "JD", "QC", "9H"]
    g = pos([["KC"], ["3C", "4C", "7H"]], ["6H"], draw=pile, options={"draw_limit": limit})
    # nothing playable among the first `limit` cards: draws exactly `limit`, then passes
    assert len(g.hands[0]) == 1 + limit
    assert g.pending.player == 1
    passes = [e for e in g.events if e["type"] == "pass"]
    assert passes and passes[-1]["player"] == 0


def test_draw_limit_stops_at_playable_card():
    g = pos([["KC"], ["3C"]], ["6H"], draw=["2C", "9H", "3S"], options={"draw_limit": 3})
    assert len(g.hands[0]) == 3
    assert g.pending.options == [play("9H"), "draw"]
    g.apply("draw")  # one more card is allowed (3 in all), then only play or pass
    assert len(g.hands[0]) == 4
    assert g.pending.options == [play("9H"), "pass"]


# -- scoring -----------------------------------------------------------------------------------------


def test_card_points():
    assert [ce.card_points(x) for x in ["8S", "KD", "QH", "JC", "10S", "AH", "2C", "9D"]] == [
        50, 10, 10, 10, 10, 1, 2, 9,
    ]  # fmt: skip


def test_going_out_scores_card_values():
    g = pos([["5H"], ["8S", "KD", "AC", "5D"], ["9C", "2D"]], ["6H"], draw=["3S"])
    g.apply(play("5H"))
    r = g.result
    assert r.reason == "out" and r.winners == [0]
    assert r.points == [0, 66, 11]
    assert r.placements == [1, 3, 2]
    assert g.pending is None


def test_high_score_wins_deal_scores():
    g = pos([["5H"], ["8S", "KD"], ["9C", "2D"]], ["6H"], draw=["3S"], options={"scoring": "high"})
    g.apply(play("5H"))
    assert g.result.points == [0, 60, 11]  # league points: always lower is better
    assert ce.deal_scores(g.result, g.options) == [71, 0, 0]
    assert ce.deal_scores(g.result.to_dict(), {}) == [0, 60, 11]


def test_series_helpers_document_example():
    opts = {"series": "target"}
    assert not ce.series_over([90, 51, 64, 72], opts, 5)
    assert ce.series_over([112, 51, 64, 72], opts, 6)
    assert ce.series_winner([112, 51, 64, 72], opts) == [1]  # "Daniel wins"
    assert ce.series_over([0, 0], {}, 1)  # a single hand
    high = {"series": "target", "scoring": "high"}
    assert ce.series_over([40, 103], high, 4) and ce.series_winner([40, 103], high) == [1]
    assert ce.first_player_for_deal(1, 0, 4) == 1 and ce.first_player_for_deal(2, 0, 4) == 2


# -- special cards ---------------------------------------------------------------------------------

SPECIAL = {"special_cards": True}


def test_queen_skips():
    g = pos([["QH", "3D"], ["5H"], ["7H"]], ["6H"], draw=["3S"], options=SPECIAL)
    g.apply(play("QH"))
    assert g.pending.player == 2
    g = pos([["QH", "3H"], ["5H"]], ["6H"], draw=["3S"], options=SPECIAL)
    g.apply(play("QH"))
    # two players: the queen skips the other player, so the same player plays again
    assert g.pending.player == 0 and g.pending.options == [play("3H"), "draw"]


def test_queen_plain_without_the_variant():
    g = pos([["QH", "3D"], ["5H"], ["7H"]], ["6H"], draw=["3S"])
    g.apply(play("QH"))
    assert g.pending.player == 1


def test_ace_reverses():
    g = pos([["AH", "3D"], ["5H"], ["7H"]], ["6H"], draw=["3S"], options=SPECIAL)
    g.apply(play("AH"))
    assert g.pending.player == 2
    assert g.view(0)["direction"] == "anticlockwise"


def test_two_draw_two_or_play_a_two_stacked():
    hands = [["2H", "3S"], ["2S", "KD"], ["9C", "4D"]]
    g = pos(hands, ["6H"], draw=["5C", "6C", "7C", "9S", "JS"], options=SPECIAL)
    g.apply(play("2H"))
    assert g.pending.player == 1
    assert g.pending.options == [play("2S"), "draw"]
    g.apply(play("2S"))
    # player 2 has no two: draws two cards for each two in the sequence, and the turn passes
    assert len(g.hands[2]) == 6
    assert g.view(0)["draw_stack"] == 0
    assert g.pending.player == 0
    assert g.pending.options == [play("3S"), "draw"]  # normal matching on the last two again


def test_two_answered_by_drawing():
    g = pos([["2H", "3H"], ["2S", "KD"]], ["6H"], draw=["5C", "6C", "7C"], options=SPECIAL)
    g.apply(play("2H"))
    g.apply("draw")
    assert len(g.hands[1]) == 4 and g.pending.player == 0


def test_no_eight_on_a_two():
    g = pos([["2H", "3D"], ["8S", "2S", "KD"]], ["6H"], draw=["5C", "6C"], options=SPECIAL)
    g.apply(play("2H"))
    assert g.pending.options == [play("2S"), "draw"]
    g = pos(
        [["2H", "3D"], ["8S", "2S", "KD"]], ["6H"], draw=["5C", "6C"],
        options={**SPECIAL, "eight_on_two": True},
    )  # fmt: skip
    g.apply(play("2H"))
    assert g.pending.options == [play("8S"), play("2S"), "draw"]
    g.apply(play("8S"))
    g.apply("suit:clubs")
    assert g.view(0)["draw_stack"] == 0 and g.pending.player == 0


def test_two_without_stacking_must_draw():
    opts = {**SPECIAL, "two_stacking": False}
    g = pos([["2H", "3H"], ["2S", "KD"]], ["6H"], draw=["5C", "6C", "7C"], options=opts)
    g.apply(play("2H"))
    assert len(g.hands[1]) == 4 and g.pending.player == 0


def _seed_with_starter(rank, players=3, options=SPECIAL, where=lambda g: True):
    """The first seeded deal whose starter has ``rank`` and that satisfies ``where``."""
    for seed in range(500):
        g = engine.new_game("crazy-eights", players=players, seed=seed, options=options, first_player=1)
        if RANK[g.discard[-1]] == rank and where(g):
            return g
    raise AssertionError("no seed found")


def _drew_at_once(g):
    return any(e["type"] == "draw" for e in g.events)


def test_special_starter_treated_as_played_by_dealer():
    # dealer is player 0 (first_player=1 is the player to the dealer's left)
    g = _seed_with_starter(12)
    assert g.pending.player == 2  # queen: the player to the dealer's left is skipped
    g = _seed_with_starter(1)
    assert g.pending.player == 2 and g.direction == -1  # ace: dealer's right begins
    # two: the player to the dealer's left answers it. Without a two, they draw two cards
    # without being asked and player 2 begins; with one, they choose between a two and drawing.
    g = _seed_with_starter(2, where=_drew_at_once)
    drawn = g.view(1)["events"][-1]
    assert drawn == {"type": "draw", "player": 1, "count": 2, "why": "two", "cards": drawn["cards"]}
    dealt = [c for c in g.hands[1] if c not in drawn["cards"]]
    assert len(dealt) == 5 and not [c for c in dealt if RANK[c] == 2]
    assert g.pending.player == 2
    g = _seed_with_starter(2, where=lambda g: not _drew_at_once(g))
    twos = [c for c in g.hands[1] if RANK[c] == 2]
    assert twos and g.pending.player == 1
    assert g.pending.options == [f"play:{c}" for c in twos] + ["draw"]
    g = _seed_with_starter(2, options={**SPECIAL, "special_starter": False})
    assert not any(e.get("why") == "two" for e in g.events[:4])
    g = _seed_with_starter(12, options={**SPECIAL, "special_starter": False})
    assert g.pending.player == 1


def test_special_last_card_ignored_or_not():
    hands = [["2H"], ["KD", "3C"]]
    g = pos(hands, ["6H"], draw=["5C", "6C"], options=SPECIAL)
    g.apply(play("2H"))
    assert g.result.points == [0, 13]
    g = pos(hands, ["6H"], draw=["5C", "6C"], options={**SPECIAL, "ignore_last_special": False})
    g.apply(play("2H"))
    assert g.result.points == [0, 24]  # the next player drew the two's penalty first


# -- last card warning -----------------------------------------------------------------------------


def test_last_card_call_is_a_decision():
    opts = {"last_card": True}
    g = pos([["5H", "9H"], ["KC", "5S", "KD"]], ["6H"], draw=["2C"], options=opts)
    g.apply(play("5H"))
    assert g.pending.kind == "last_card" and g.pending.player == 0
    assert g.pending.options == ["last_card", "silent"]
    g.apply("last_card")
    assert g.events[-1] == {"type": "last_card", "player": 0}
    assert g.pending.player == 1 and g.pending.kind == "turn"


def test_last_card_penalty_two_cards_at_next_turn():
    opts = {"last_card": True}
    g = pos([["5H", "5D"], ["5C", "KS", "KD"]], ["6H"], draw=["2C", "3C", "4D", "JD"], options=opts)
    g.apply(play("5H"))
    g.apply("silent")
    g.apply(play("5C"))  # player 1 plays; player 0's turn begins with the penalty
    assert len(g.hands[0]) == 3
    assert any(e["type"] == "missed_call" and e["player"] == 0 for e in g.events)
    g2 = pos([["5H", "5D"], ["5C", "KS", "KD"]], ["6H"], draw=["2C", "3C", "4D", "JD"], options=opts)
    g2.apply(play("5H"))
    g2.apply("last_card")
    g2.apply(play("5C"))
    assert len(g2.hands[0]) == 1
    assert g2.pending.player == 0


def test_no_call_decision_without_the_variant():
    g = pos([["5H", "9H"], ["5C", "KS"]], ["6H"], draw=["2C"])
    g.apply(play("5H"))
    assert g.pending.player == 1 and g.pending.kind == "turn"


# -- the contract ---------------------------------------------------------------------------------


def test_illegal_option_changes_nothing():
    g = pos([["5H", "9H"], ["5C", "KS"]], ["6H"], draw=["2C"])
    before = g.to_dict()
    with pytest.raises(engine.IllegalOption):
        g.apply(play("KS"))
    with pytest.raises(engine.IllegalOption):
        g.apply("suit:hearts")
    assert g.to_dict() == before


def test_options_errors():
    with pytest.raises(engine.OptionsError, match="unknown option"):
        engine.validate_options("crazy-eights", {"jokers": True}, 2)
    with pytest.raises(engine.OptionsError, match="integer"):
        engine.validate_options("crazy-eights", {"draw_limit": "five"}, 2)
    with pytest.raises(engine.OptionsError, match="scoring"):
        engine.validate_options("crazy-eights", {"scoring": "middle"}, 2)
    with pytest.raises(engine.OptionsError, match="2 to 10"):
        engine.new_game("crazy-eights", players=11)
    with pytest.raises(engine.OptionsError, match="unknown rule set"):
        engine.new_game("crazy-nines")
    full = engine.validate_options("crazy-eights", {"special_cards": True}, 4)
    assert full["queen_skip"] and full["ace_reverse"] and full["two_draw"]


def test_labels_and_descriptions():
    g = pos([["8D", "5S"], ["KC"]], ["6H"], draw=["9C"])
    assert g.label(play("8D")) == "play 8D"
    assert g.label("draw") == "draw until you can play"
    g.apply(play("8D"))
    assert g.label("suit:spades") == "name spades"
    g.apply("suit:spades")
    assert [g.describe(e) for e in g.events[1:4]] == [
        "player 0 plays 8D",
        "player 0 names spades",
        "player 1 draws 1 card",
    ]


def test_forfeit_last_player_left_wins():
    g = pos([["5H", "9H"], ["6C", "KS"], ["7D"]], ["6H"], draw=["2C"])
    g.forfeit(0, "timeout")
    assert g.result is None and g.pending.player == 1
    g.forfeit(2, "crash")
    r = g.result
    assert r.reason == "forfeit" and r.winners == [1] and r.eliminated == [0, 2]
    assert r.points[1] == 0 and r.placements[1] == 1
    assert r.points[0] == 14 and r.points[2] == 7 and r.placements == [3, 1, 2]


def test_a_forfeit_mid_game_is_in_the_choices_and_replays_with_the_engine_alone():
    start = {"rule_set": "crazy-eights", "position": True, "players": 3, "rest": "discard_pile",
             "hands": [["5H", "9H"], ["6C", "KS"], ["7H", "QD"]], "discard_pile": ["6H"]}
    g = engine.load_game(start)
    g.apply(play("5H"))
    g.forfeit(1, "timeout")
    assert g.result is None and g.pending.player == 2
    g.apply(play("7H"))
    g.apply(play("9H"))
    assert g.result.winners == [0] and g.result.eliminated == [1]
    assert g.choices == [play("5H"), "forfeit:1:timeout", play("7H"), play("9H")]
    assert engine.replay(start, g.choices).to_dict() == g.to_dict()
    assert engine.load_game(json.loads(json.dumps(g.to_dict()))).choices == g.choices


def test_save_load_position_round_trip():
    g = pos([["8D", "5S"], ["KC", "2C"]], ["6H"], draw=["9C", "3H"], options=SPECIAL)
    g.apply(play("8D"))
    data = json.loads(json.dumps(g.to_dict()))
    h = engine.load_game(data)
    assert h.pending == g.pending
    for x in ("suit:clubs", play("KC")):
        g.apply(x)
        h.apply(x)
    assert h.to_dict() == g.to_dict()


def test_replay_reproduces_a_game():
    import random

    start = {"rule_set": "crazy-eights", "players": 3, "seed": 11, "options": SPECIAL}
    g = engine.new_game(**start)
    rng = random.Random(0)
    while g.pending:
        g.apply(rng.choice(g.pending.options))
    again = engine.replay(start, g.choices)
    assert again.to_dict() == g.to_dict()
