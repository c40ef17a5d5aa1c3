"""Issue 14: defects found by using the engine from its documentation alone, each pinned by a
position and its exact outcome (zones by name, top first)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from enginekit import cid, discard_top_first, do, draw_top_first, hand, position, table

import engine
from engine.eights_family import card_id

FILLER = ["Study", "Merlin", "Ferocity", "Tempest"]


# ----------------------------------------------------------------- 1. Fortune Teller refills the pile
def test_fortune_teller_with_an_empty_draw_pile_refills_it_before_looking():
    game = position([["Sleep", "Castle"], ["Merlin"]], draw=[], discard=["Tempest", "Oberon", "Lancelot"],
                    in_play=[["Fortune Teller"], []])
    # Looking at the top of an empty draw pile refills it from the discard pile but its top card.
    assert discard_top_first(game) == ["Tempest"]
    assert sorted(draw_top_first(game)) == ["Lancelot", "Oberon"]
    assert [e["type"] for e in game.events].count("reshuffle") == 1
    top = game.draw_pile[-1]
    assert "play_top" in game.pending.options
    assert game.view(0)["known_draw_pile"] == {str(top): 0}
    assert game.view(1)["known_draw_pile"] == {}
    game.apply("play_top")
    assert table(game, 0) == ["Fortune Teller", game.card_name(top)]
    assert draw_top_first(game) == [n for n in ("Lancelot", "Oberon") if n != game.card_name(top)]


def test_fortune_teller_with_nothing_to_refill_from_offers_no_top_card():
    game = position([["Sleep", "Castle"], ["Merlin"]], draw=[], discard=["Tempest"],
                    in_play=[["Fortune Teller"], []])
    assert game.pending.kind == "main" and "play_top" not in game.pending.options
    assert game.view(0)["known_draw_pile"] == {} and discard_top_first(game) == ["Tempest"]


def test_fortune_teller_looks_again_after_the_top_card_changes():
    game = position([["Castle", "Sleep"], ["Merlin"]], draw=["Oberon", "Study", "Trade"], discard=["Tempest"],
                    in_play=[["Fortune Teller"], []])
    oberon, study = cid(game, "Oberon"), cid(game, "Study")
    game.apply("play_top")  # Oberon leaves the pile: Study is the new top, and its controller sees it
    assert game.view(0)["known_draw_pile"] == {str(study): 0}
    assert str(oberon) not in game.view(0)["known_draw_pile"]


# ----------------------------------------------------------------- 2. looks last as P12 says
def test_fortune_tellers_look_is_remembered_after_the_turn_while_the_card_stays():
    game = position([["Sleep"], ["Castle"]], draw=["Oberon", "Study", "Trade"], discard=["Tempest"],
                    in_play=[["Fortune Teller"], ["Angel of Hope"]])
    oberon = cid(game, "Oberon")
    game.apply("end")
    # Player 1's turn starts with Angel of Hope's choice: Oberon is still on top, and player 0,
    # who looked at it during their turn, still knows it.
    assert game.pending.player == 1 and game.pending.source == "Angel of Hope"
    assert game.view(0)["known_draw_pile"] == {str(oberon): 0}
    assert game.view(1)["known_draw_pile"] == {}
    assert engine.load_game(game.to_dict()).view(0)["known_draw_pile"] == {str(oberon): 0}
    game.apply("player:1")  # player 1 draws Oberon: it left the pile, so nobody knows it there
    assert hand(game, 1) == ["Castle", "Oberon", "Study"]
    assert game.view(0)["known_draw_pile"] == {}


def test_elven_princess_look_is_remembered_after_the_turn():
    game = position([["Sleep"], ["Castle"]], draw=["Oberon", "Study", "Trade"], discard=["Tempest"],
                    in_play=[["Elven Princess"], ["Angel of Hope"]], turn=0, phase="begin")
    oberon = cid(game, "Oberon")
    game.apply("bottom")  # Oberon goes under the pile; player 0 draws Study
    game.apply("end")
    assert game.pending.player == 1 and game.pending.source == "Angel of Hope"
    assert draw_top_first(game) == ["Trade", "Oberon"]
    assert game.view(0)["known_draw_pile"] == {str(oberon): 1}


# ----------------------------------------------------------------- 4. explicit options win
def test_an_explicit_special_card_option_wins_over_special_cards():
    opts = engine.validate_options("crazy-eights", {"special_cards": True, "queen_skip": False})
    assert (opts["queen_skip"], opts["ace_reverse"], opts["two_draw"]) == (False, True, True)
    assert engine.validate_options("crazy-eights", opts) == opts  # completed options stay as they are
    game = engine.load_game({
        "rule_set": "crazy-eights", "position": True, "players": 3, "rest": "discard_pile",
        "hands": [["QH", "3D"], ["5H"], ["7H"]], "discard_pile": ["6H"], "draw_pile": ["3S"],
        "options": {"special_cards": True, "queen_skip": False},
    })
    game.apply(f"play:{card_id('QH')}")
    assert game.pending.player == 1  # the queen is plain: nobody is skipped


# ----------------------------------------------------------------- 5. no event in play
def test_a_position_with_an_event_in_play_is_refused_naming_it():
    with pytest.raises(engine.PositionError, match="Sleep is an event"):
        position([["Castle"], ["Death"]], discard=["Tempest"], in_play=[["Oberon"], ["Sleep"]])


# ----------------------------------------------------------------- 7. one shape for looking_at
def test_trade_and_queen_guinevere_show_a_hand_in_the_same_shape():
    trade = position([["Trade", "Sleep"], ["Castle", "Death"]], draw=FILLER, discard=["Tempest"])
    do(trade, "play", "Trade")
    trade.apply("player:1")
    assert trade.view(0)["looking_at"] == {"hand_of": 1, "cards": trade.hands[1]}
    queen = position([["Sleep"], ["Castle", "Death"]], draw=FILLER, discard=["Tempest"],
                     in_play=[["Queen Guinevere"], []])
    queen.apply("end")
    queen.apply("player:1")
    assert queen.view(0)["looking_at"] == {"hand_of": 1, "cards": queen.hands[1]}
    saved = queen.to_dict()  # a game saved before the shapes agreed named the seat "player"
    for frame in saved["stack"]:
        if "look" in frame:
            frame["look"]["player"] = frame["look"].pop("hand_of")
    assert engine.load_game(saved).view(0)["looking_at"] == {"hand_of": 1, "cards": queen.hands[1]}


# ----------------------------------------------------------------- 10. events in the order they happened
def test_an_impossible_draw_during_a_multi_card_draw_is_logged_in_order():
    game = position([["Forbidden Knowledge", "Sleep", "Castle"], ["Death", "Timeshift"]], draw=["Study"],
                    discard=["Tempest"])
    do(game, "play", "Forbidden Knowledge")
    game.apply("player:1")  # player 1 draws Study, then the pile is empty and cannot be refilled
    assert game.result.reason == "impossible_draw" and game.result.winners == [0]
    tail = [(e["type"], e.get("player"), e.get("count")) for e in game.events[-3:]]
    assert tail == [("draw", 1, 1), ("drew", 1, None), ("end", None, None)]
    assert hand(game, 1) == ["Death", "Timeshift", "Study"]


# ----------------------------------------------------------------- saved games stay loadable
def test_a_game_saved_before_the_state_field_list_loads_unchanged_and_plays_on_the_same():
    data = json.loads((Path(__file__).parent / "data" / "crazier_saved_before_state_fields.json").read_text())
    game = engine.load_game(json.loads(json.dumps(data["saved"])))
    assert json.dumps(game.to_dict()) == json.dumps(data["saved"])  # byte for byte
    for choice in data["choices_after"]:
        engine.apply_choice(game, choice)
    assert game.result.to_dict() == data["result"]
    final = game.to_dict()
    assert {key: final[key] for key in data["final_zones"]} == data["final_zones"]
