"""Scenario tests for Super Crazy Eights (document 002): the multi-player game and the
two-handed form with dummy hands, each from a concrete position."""

import json

import pytest

import engine
from engine import super_crazy_eights as sce
from engine.eights_family import NAME, RANK, card_id


def C(name):
    return card_id(name)


def play(name):
    return f"play:{C(name)}"


def pos(hands, discard, draw=None, players=None, **kw):
    data = {
        "rule_set": "super-crazy-eights",
        "position": True,
        "players": players or len(hands),
        "hands": hands,
        "discard_pile": discard,
        "rest": "draw_pile" if draw is None else "discard_pile",
    }
    if draw is not None:
        data["draw_pile"] = draw
    data.update(kw)
    return engine.load_game(data)


def plain(hands, discard, **kw):
    """A position of the multi-player game (two players play it with dummies off)."""
    options = {"dummies": False, **kw.pop("options", {})}
    return pos(hands, discard, options=options, **kw)


# -- deals, starter ---------------------------------------------------------------------------------


def test_fifteen_deals_eight_down_to_one_and_back():
    assert [sce.deal_hand_size(d) for d in range(1, 16)] == [8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8]
    for deal in (1, 8, 15):
        g = engine.new_game("super-crazy-eights", players=4, seed=2, options={"deal": deal})
        size = sce.deal_hand_size(deal)
        assert g.events[0] == {"type": "deal", "deal": deal, "hand_size": size, "dealer": g.dealer}
        # forced draws may already have happened, but every hand was dealt `size` cards
        assert all(len(h) >= size for h in g.hands)
    with pytest.raises(engine.OptionsError, match="1-15"):
        engine.validate_options("super-crazy-eights", {"deal": 16}, 4)
    assert len(engine.new_game("super-crazy-eights", players=5, seed=1).card_table()) == 104


def test_series_helpers():
    assert not sce.series_over([10, 20], {}, 14)
    assert sce.series_over([10, 20], {}, 15)
    assert sce.series_winner([120, 95, 95, 130]) == [1, 2]
    assert sce.options_for_deal({"dummies": True}, 9) == {"dummies": True, "deal": 9}
    assert [sce.first_player_for_deal(d, 0, 3) for d in (1, 2, 3, 4)] == [1, 2, 0, 1]


def _starter(rank, players=4, options=None, where=lambda g: True):
    """The first seeded deal whose starter has ``rank`` and that satisfies ``where``."""
    for seed in range(400):
        g = engine.new_game(
            "super-crazy-eights", players=players, seed=seed, options=options or {}, first_player=1
        )
        if RANK[g.discard[0]] == rank and where(g):
            return g
    raise AssertionError("no seed")


def _first_turn(g):
    """(player, hand index) of the first hand to act after the starter."""
    e = next((e for e in g.events if e["type"] in ("play", "draw")), None)
    if e is None:
        return g.pending.player, g.turn
    return e["player"], e.get("hand")


def test_starter_effects():
    # first_player=1: the dealer is player 0, the hand to the dealer's left is player 1
    g = _starter(1)  # ace: the hand to the dealer's right begins, anticlockwise
    assert g.direction == -1 and _first_turn(g)[0] == 3
    g = _starter(3)  # three: the hand to the dealer's left is skipped
    assert _first_turn(g)[0] == 2
    # two: the hand to the dealer's left plays a two or draws two; without a two it draws at once
    def drew_at_once(g):
        return any(e["type"] == "draw" for e in g.events)

    g = _starter(2, where=drew_at_once)
    drawn = g.view(1)["events"][-1]
    assert drawn == {"type": "draw", "player": 1, "count": 2, "why": "two", "cards": drawn["cards"]}
    dealt = [c for c in g.hands[1] if c not in drawn["cards"]]
    assert len(dealt) == 8 and not [c for c in dealt if RANK[c] == 2]
    assert g.pending.player == 2 and g.stack == 0
    g = _starter(2, where=lambda g: not drew_at_once(g))
    twos = [c for c in g.hands[1] if RANK[c] == 2]
    assert twos and g.pending.player == 1 and g.stack == 2
    assert g.pending.options == [f"play:{c}" for c in twos] + ["draw"]
    g = _starter(8)  # eight: the next hand may play any card (and names the suit if it is an eight)
    assert g.wild and g.named_suit is None
    assert g.pending.player == 1
    assert sorted(o for o in g.pending.options if o != "draw") == sorted(f"play:{c}" for c in g.hands[1])


def test_three_starter_in_two_handed_form_dummy_plays_first():
    g = _starter(3, players=2)
    # the dealer (player 0) sits south in deal 1: its dummy north plays first, west is skipped
    assert g.dealer == 0
    e = next((e for e in g.events if e["type"] in ("play", "draw")), None)
    assert (e["hand"] if e else sce.POSITIONS[g.turn]) == "north"


# -- play -------------------------------------------------------------------------------------------


def test_cannot_play_draws_one_and_loses_turn():
    g = plain([["KC", "4S"], ["9H", "2D"], ["5H"]], ["6H"], draw=["6S", "3D"])
    # player 0 has no heart and no six: draws one card (6S, playable) and still loses the turn
    assert C("6S") in g.hands[0]
    assert g.pending.player == 1
    assert [e["type"] for e in g.events[1:]] == ["draw"]


def test_may_draw_instead_of_playing():
    g = plain([["6S", "4S"], ["9H", "2D"], ["5H"]], ["6H"], draw=["7H", "3D"])
    assert g.pending.options == [play("6S"), "draw"]
    g.apply("draw")
    assert C("7H") in g.hands[0] and g.pending.player == 1


def test_eight_names_suit():
    g = plain([["8S", "4S", "4H"], ["9H", "2D", "9D"], ["5H"]], ["6H"])
    g.apply(play("8S"))
    assert g.pending.kind == "suit"
    g.apply("suit:diamonds")
    assert g.pending.player == 1 and g.pending.options == [play("2D"), play("9D"), "draw"]


def test_twos_stack_by_two_then_restart():
    g = plain([["2H", "4S", "4H"], ["2S", "KD", "KH"], ["9C", "4D"]], ["6H"], draw=["5C", "6C", "7C", "9S", "JS", "QS"])
    g.apply(play("2H"))
    assert g.pending.player == 1 and g.pending.options == [play("2S"), "draw"]
    assert g.view(2)["draw_stack"] == 2
    g.apply(play("2S"))
    # player 2 has no two: draws four and loses the turn
    assert len(g.hands[2]) == 6 and g.stack == 0
    assert g.pending.player == 0 and g.pending.options == [play("4S"), "draw"]


def test_two_may_be_answered_by_drawing_even_with_a_two():
    g = plain([["2H", "4S", "4H"], ["2S", "KD"], ["9C", "4D"]], ["6H"])
    g.apply(play("2H"))
    g.apply("draw")
    assert len(g.hands[1]) == 4
    after = [e for e in g.events if e["type"] in ("play", "draw")][1:]
    assert after[0] == {"type": "draw", "player": 1, "count": 2, "why": "two"}
    assert after[1]["player"] == 2  # the drawer lost the turn


def test_no_eight_on_a_two():
    g = plain([["2H", "4S", "4H"], ["8S", "2S", "KD"], ["9C"]], ["6H"])
    g.apply(play("2H"))
    assert g.pending.options == [play("2S"), "draw"]


def test_three_skips_and_ace_reverses():
    g = plain([["3H", "4S", "4H"], ["9H", "2D"], ["5H", "7S"]], ["6H"])
    g.apply(play("3H"))
    assert g.pending.player == 2
    g = plain([["AH", "4S", "4H"], ["9H", "2D"], ["5H", "7S", "7D"]], ["6H"])
    g.apply(play("AH"))
    assert g.pending.player == 2 and g.view(1)["direction"] == "anticlockwise"
    # the previous player plays again
    g.apply(play("5H"))
    assert g.pending.player == 1


def test_deal_ending_on_a_three_covered():
    # player 0 goes out with a three; player 1 is skipped; player 2 covers with a three; play
    # comes back to player 0, who must draw, and the deal goes on
    # (the document's example: four hands, the player across covers with a three)
    hands = [["3H"], ["9S", "2D"], ["3S", "7S", "7D"], ["9C", "4D"]]
    g = plain(hands, ["6H"], draw=["5C", "6C", "7C"])
    g.apply(play("3H"))
    assert g.result is None and g.pending.player == 2
    g.apply(play("3S"))
    draw = [e for e in g.events if e["type"] == "draw"][0]
    assert draw == {"type": "draw", "player": 0, "count": 1, "why": "empty hand"}
    assert g.result is None and g.hands[0] == [C("5C")]
    assert g.pending.player == 1


def test_deal_ending_on_a_three_answered_ends():
    g = plain([["3H"], ["9H", "2D"], ["7H", "7S"]], ["6H"], draw=["5C", "6C", "7C"])
    g.apply(play("3H"))
    g.apply(play("7H"))  # the player after the skipped one plays: the deal ends
    assert g.result.reason == "out" and g.result.winners == [0]
    assert g.result.points == [0, 29, 7]


def test_deal_ending_on_a_two_must_be_covered_or_drawn():
    g = plain([["2H"], ["9H", "KD"], ["7H"]], ["6H"], draw=["5C", "6C", "7C"])
    g.apply(play("2H"))
    # player 1 has no two: draws two, then the deal ends; the drawn cards count
    assert g.result.reason == "out"
    assert g.result.points == [0, 9 + 10 + 5 + 6, 7]


def test_stacked_twos_going_out_in_extended_play():
    g = plain([["2H"], ["2S"], ["7H", "4D"]], ["6H"], draw=["5C", "6C", "7C", "9D"])
    g.apply(play("2H"))
    g.apply(play("2S"))  # player 1 covers and goes out too; player 2 draws four
    r = g.result
    assert r.reason == "out" and r.winners == [0, 1]
    assert r.points == [0, 0, 7 + 4 + 9 + 7 + 6 + 5]


def test_missed_last_card_penalty():
    g = plain([["5H", "9H"], ["5C", "KS", "KC"]], ["6H"])
    g.apply(play("5H"))
    assert g.pending.kind == "last_card" and g.pending.options == ["last_card", "silent"]
    g.apply("silent")
    g.apply(play("5C"))
    # she draws one card next turn and loses that turn
    assert len(g.hands[0]) == 2 and g.pending.player == 1
    assert [e["type"] for e in g.events[-2:]] == ["missed_call", "draw"]
    assert g.events[-1]["why"] == "missed last-card call"


def test_missed_call_draws_even_if_she_could_go_out():
    g = plain([["5H", "5S"], ["5C", "KS", "KC"]], ["6H"])
    g.apply(play("5H"))
    g.apply("silent")
    g.apply(play("5C"))
    assert g.result is None and len(g.hands[0]) == 2 and g.pending.player == 1


def test_called_last_card_no_penalty():
    g = plain([["5H", "5S"], ["5C", "KS", "KC"]], ["6H"])
    g.apply(play("5H"))
    g.apply("last_card")
    g.apply(play("5C"))
    assert g.pending.player == 0 and g.pending.options == [play("5S"), "draw"]
    g.apply(play("5S"))
    assert g.result.winners == [0]


def test_missed_call_with_a_two_pending_draws_the_two():
    g = plain([["5H", "3S"], ["2H", "KH", "KS"]], ["6H"])
    g.apply(play("5H"))
    g.apply("silent")
    g.apply(play("2H"))
    # "twos carry the usual penalty": she draws the two cards of the two, not one more
    assert len(g.hands[0]) == 3 and g.stack == 0 and g.pending.player == 1


def test_stock_exhausted_play_pile_reshuffled():
    g = plain([["KC", "4S"], ["9H", "2D"], ["5H"]], ["5D", "9C", "6H"], draw=[])
    # player 0 cannot play and the stock is empty: the play pile but its top card (6H; 44
    # unlisted cards lie under 5D and 9C) is shuffled into a new stock of 46 cards
    assert g.discard == [C("6H")]
    assert len(g.hands[0]) == 3 and len(g.draw_pile) == 45
    assert any(e["type"] == "reshuffle" and e["count"] == 46 for e in g.events)


def test_card_points():
    assert [sce.card_points(x) for x in ["2S", "8H", "KD", "QC", "JS", "10H", "AH", "3C", "9D"]] == [
        20, 50, 10, 10, 10, 10, 1, 3, 9,
    ]  # fmt: skip


# -- the two-handed form ---------------------------------------------------------------------------


def dummy_pos(hands, discard, turn="south", south=0, **kw):
    return pos(hands, discard, players=2, turn=turn, south=south, **kw)


def test_two_handed_layout_and_seat_exchange():
    g = engine.new_game("super-crazy-eights", players=2, seed=4, options={"deal": 1})
    assert g.controller == [0, 1, 0, 1] and g.dummy == [False, False, True, True]
    assert len(g.hands) == 4
    g = engine.new_game("super-crazy-eights", players=2, seed=4, options={"deal": 3})
    assert g.controller == [1, 0, 1, 0]  # players exchange positions after each pair of deals
    assert [sce.south_player(d) for d in range(1, 9)] == [0, 0, 1, 1, 0, 0, 1, 1]


def test_views_show_dummies_to_all_and_concealed_hands_to_owner():
    g = engine.new_game("super-crazy-eights", players=2, seed=9)
    south, west, north, east = (list(h) for h in g.hands)
    for p in (0, 1):
        v = g.view(p)
        assert v["dummies"] == {"north": north, "east": east}
        shown = {e["position"]: e.get("cards") for e in v["hands"]}
        assert shown["north"] == north and shown["east"] == east
    v0, v1 = g.view(0), g.view(1)
    assert v0["hand"] == south and v0["position"] == "south" and v0["dummy_position"] == "north"
    assert v1["hand"] == west and v1["position"] == "west"
    assert {e["position"]: e.get("cards") for e in v0["hands"]}["west"] is None
    assert {e["position"]: e.get("cards") for e in v1["hands"]}["south"] is None
    assert not set(west) & set(v0["hand"]) and not set(south) & set(v1["hand"])


def test_dummy_may_not_draw_with_a_legal_play():
    g = dummy_pos([["KC"], ["KD"], ["6S", "9H", "4D"], ["QS"]], ["6H"], turn="north")
    assert g.pending.player == 0
    assert g.pending.options == [play("6S"), play("9H")]  # no "draw"


def test_dummy_may_draw_rather_than_go_out():
    g = dummy_pos([["KC"], ["KD"], ["9H"], ["QS"]], ["6H"], turn="north")
    assert g.pending.options == [play("9H"), "draw"]
    g.apply("draw")
    assert len(g.hands[2]) == 2
    drew = next(e for e in g.events if e["type"] == "draw")
    assert drew["hand"] == "north" and drew["cards"][0] in g.hands[2]  # a dummy's draw is public
    assert drew["cards"] == g.view(1)["dummies"]["north"][-1:]


def test_dummy_facing_a_two_must_cover_if_it_can():
    g = dummy_pos([["KC"], ["2H", "KD", "KH"], ["2S", "9H", "4D"], ["QS"]], ["6H"], turn="west")
    g.apply(play("2H"))
    assert g.pending.player == 0 and g.turn == 2
    assert g.pending.options == [play("2S")]


def test_dummy_makes_no_call_concealed_hand_does():
    g = dummy_pos([["KC"], ["KD"], ["9H", "4H"], ["QH"]], ["6H"], turn="north")
    g.apply(play("9H"))
    assert g.pending.kind == "turn" and g.turn == 3
    g = dummy_pos([["9H", "4H"], ["KD", "KS"], ["2C", "3C"], ["QS", "QD"]], ["6H"], turn="south")
    g.apply(play("9H"))
    assert g.pending.kind == "last_card" and g.pending.player == 0


def test_concealed_hand_out_opponent_chooses_the_count():
    hands = [["9H"], ["KD", "5S"], ["4C", "2C"], ["QS", "7D"]]
    g = dummy_pos(hands, ["6H"], turn="south")
    g.apply(play("9H"))
    assert g.pending.kind == "score" and g.pending.player == 1
    assert g.pending.options == ["count:all", "count:west", "count:east"]
    g2 = dummy_pos(hands, ["6H"], turn="south")
    g2.apply(play("9H"))
    g.apply("count:all")
    assert g.result.points == [4 + 20, 10 + 5 + 10 + 7]
    g2.apply("count:east")
    assert g2.result.points == [0, 17] and g2.result.winners == [0]


def test_dummy_out_all_hands_count():
    hands = [["9C"], ["KD", "5S"], ["9H"], ["QS", "7D"]]
    g = dummy_pos(hands, ["6H"], turn="north")
    assert g.pending.options == [play("9H"), "draw"]
    g.apply(play("9H"))
    assert g.result.reason == "out" and g.result.points == [9, 32] and g.result.winners == [0]


def test_two_hands_out_in_extended_play_all_count():
    hands = [["2H"], ["2S"], ["4C", "KC"], ["QS", "7D"]]
    g = dummy_pos(hands, ["6H"], turn="south", draw=["5C", "6C", "7C", "9D", "JD"])
    g.apply(play("2H"))
    g.apply(play("2S"))
    # north (a dummy, no two) draws four; two hands are out: all remaining hands count
    assert g.result.reason == "out"
    assert g.result.points == [4 + 10 + 5 + 6 + 7 + 9, 10 + 7]


def test_forfeit_in_two_handed_form():
    g = engine.new_game("super-crazy-eights", players=2, seed=3)
    g.forfeit(1, "timeout")
    assert g.result.winners == [0] and g.result.reason == "forfeit" and g.result.placements == [1, 2]


def test_a_forfeit_mid_game_is_in_the_choices_and_replays_with_the_engine_alone():
    start = {"rule_set": "super-crazy-eights", "position": True, "players": 3, "rest": "discard_pile",
             "hands": [["5H", "9H"], ["6C", "KS"], ["7H", "QD"]], "discard_pile": ["6H"], "draw_pile": ["4C"]}
    g = engine.load_game(start)
    g.apply(play("5H"))
    g.apply("last_card")
    g.forfeit(1, "crash")
    assert g.result is None and g.pending.player == 2
    g.apply(play("7H"))
    g.apply("last_card")
    g.apply(play("9H"))
    assert g.result.winners == [0] and g.result.eliminated == [1]
    assert g.choices == [play("5H"), "last_card", "forfeit:1:crash", play("7H"), "last_card", play("9H")]
    assert engine.replay(start, g.choices).to_dict() == g.to_dict()
    assert engine.load_game(json.loads(json.dumps(g.to_dict()))).choices == g.choices


def test_save_load_continue_identically():
    import random

    g = engine.new_game("super-crazy-eights", players=2, seed=21, options={"deal": 5})
    rng = random.Random(1)
    for _ in range(15):
        if g.pending:
            g.apply(rng.choice(g.pending.options))
    h = engine.load_game(json.loads(json.dumps(g.to_dict())))
    while g.pending:
        x = rng.choice(g.pending.options)
        g.apply(x)
        h.apply(x)
    assert h.to_dict() == g.to_dict()
    start = {"rule_set": "super-crazy-eights", "players": 2, "seed": 21, "options": {"deal": 5}}
    again = engine.replay(start, g.choices)
    assert again.to_dict() == g.to_dict()


def test_labels():
    g = dummy_pos([["KC"], ["KD"], ["9H"], ["QS"]], ["6H"], turn="north")
    assert g.label(play("9H")) == "play 9H from north"
    assert g.label("draw") == "draw a card"
    assert NAME[C("10D")] == "10D"
