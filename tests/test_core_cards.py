"""The eleven cards that prove the effect framework, each from a position with an exact outcome."""

from __future__ import annotations

import pytest
from enginekit import cid, discard_top_first, do, hand, names, position, table

from engine.effects import register

FILLER = ["Study", "Merlin", "Ferocity", "Tempest", "Revolution", "Trade", "Hurricane", "Research"]


def test_angel_of_hope_lets_its_controller_choose_who_draws():
    game = position([["Castle", "Sleep"], ["Death"]], draw=["Study", "Merlin"], discard=["Tempest"],
                    in_play=[["Angel of Hope"], []], phase="begin")
    assert game.pending.kind == "player" and game.pending.player == 0
    assert game.pending.options == ["player:0", "player:1"]
    game.apply("player:1")
    assert hand(game, 1) == ["Death", "Study"]
    assert hand(game, 0) == ["Castle", "Sleep", "Merlin"]  # then the turn's own draw


def test_angel_of_hope_does_not_trigger_on_the_turn_it_is_played():
    game = position([["Angel of Hope", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"])
    do(game, "play", "Angel of Hope")
    game.apply("end")
    assert game.turn == 1 and game.pending.kind == "main"


def test_castle_twice_removes_two_cards_from_an_opponent_caused_draw():
    game = position([["Castle", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[[], ["Castle", "Castle"]])
    game.draw(1, 3, cause=0)
    assert len(game.hands[1]) == 2
    game.draw(1, 3, cause=1)  # self-caused: Castle does not apply
    assert len(game.hands[1]) == 5


def test_castle_stops_a_single_card_from_an_opponents_angel():
    game = position([["Castle", "Sleep"], ["Death"]], draw=["Study", "Merlin"], discard=["Tempest"],
                    in_play=[["Angel of Hope"], ["Castle"]], phase="begin")
    game.apply("player:1")
    assert hand(game, 1) == ["Death"]


def test_guardian_angel_makes_every_card_caused_draw_two_smaller_even_self_caused():
    game = position([["Castle", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Guardian Angel"], []])
    game.draw(0, 3, cause=0)
    assert len(game.hands[0]) == 3
    game.draw(1, 1, cause=0)
    assert len(game.hands[1]) == 1
    game.draw(1, 1)  # the rules' own draw (draw phase) is not reduced
    assert len(game.hands[1]) == 2


def test_minions_adds_one_to_an_opponent_draw_and_not_to_your_own():
    game = position([["Castle", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Malevolent Minions"], []])
    game.draw(1, 2, cause=0)
    assert len(game.hands[1]) == 4
    game.draw(0, 1, cause=0)
    assert len(game.hands[0]) == 3


def test_minions_and_an_opponents_castle_cancel_out():
    game = position([["Castle", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Malevolent Minions"], ["Castle"]])
    game.draw(1, 2, cause=0)
    assert len(game.hands[1]) == 3


def test_minions_as_trigger_option_draws_a_separate_instance():
    game = position([["Castle", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Malevolent Minions"], ["Castle"]], options={"minions_as_trigger": True})
    game.draw(1, 1, cause=0)  # 1 - Castle = 0, then Minions' own card 1 - Castle = 0
    assert len(game.hands[1]) == 1


def test_two_stream_of_life_allow_three_discards():
    game2 = position([["Castle", "Trade", "Angel of Hope", "Timeshift"], ["Death"]], discard=["Tempest"],
                     in_play=[["Stream of Life"], ["Stream of Life"]])
    assert game2.view(0)["this_turn"]["discards_allowed"] == 3
    for name in ("Castle", "Trade", "Angel of Hope"):
        do(game2, "discard", name)
    assert game2.pending.options == [f"play:{cid(game2, 'Timeshift')}", "end"]
    assert discard_top_first(game2)[:3] == ["Angel of Hope", "Trade", "Castle"]


def test_stream_of_life_works_on_the_turn_it_is_played():
    game = position([["Stream of Life", "Castle", "Trade"], ["Death"]], discard=["Tempest"])
    do(game, "play", "Stream of Life")
    do(game, "discard", "Castle")
    do(game, "discard", "Trade")
    assert game.discards_made == 2


def test_ferocity_played_after_the_first_discard_still_grants_the_second():
    game = position([["Castle", "Trade", "Ferocity", "Sleep"], ["Death"]], discard=["Tempest"])
    do(game, "discard", "Castle")
    assert not any(o.startswith("discard:") for o in game.pending.options)
    do(game, "play", "Ferocity")
    do(game, "discard", "Trade")
    assert hand(game, 0) == ["Sleep"]


def test_devious_dragon_must_destroy_and_may_destroy_itself():
    game = position([["Castle", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Devious Dragon"], ["Stream of Life"]], phase="begin")
    assert game.pending.kind == "destroy"
    assert "done" not in game.pending.options
    assert sorted(names(game, [int(o[5:]) for o in game.pending.options])) == ["Devious Dragon", "Stream of Life"]
    do(game, "card", "Stream of Life")
    assert table(game, 1) == [] and discard_top_first(game) == ["Tempest", "Stream of Life"]


def test_a_lone_devious_dragon_destroys_itself():
    game = position([["Castle", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Devious Dragon"], []], phase="begin")
    assert game.pending.options == [f"card:{cid(game, 'Devious Dragon')}"]
    game.apply(game.pending.options[0])
    assert table(game, 0) == [] and discard_top_first(game)[-1] == "Devious Dragon"


def test_angel_of_hope_still_resolves_after_devious_dragon_destroys_it():
    game = position([["Castle", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Devious Dragon", "Angel of Hope"], []], phase="begin")
    # one controller, two abilities: the active player orders them
    assert game.pending.kind == "order" and game.pending.player == 0
    do(game, "card", "Devious Dragon")
    do(game, "card", "Angel of Hope")
    assert table(game, 0) == ["Devious Dragon"]
    game.apply("player:1")
    assert hand(game, 1) == ["Death", "Study"]


def test_death_needs_a_card_in_play_and_destroys_the_chosen_one():
    game = position([["Death", "Castle"], ["Sleep"]], discard=["Tempest"])
    assert all(game.card_name(int(o[5:])) != "Death" for o in game.pending.options if o.startswith("play:"))
    game = position([["Death", "Castle"], ["Sleep"]], discard=["Tempest"], in_play=[[], ["Castle", "Stream of Life"]])
    do(game, "play", "Death")
    do(game, "card", "Stream of Life")
    assert table(game, 1) == ["Castle"]
    assert discard_top_first(game) == ["Tempest", "Stream of Life", "Death"]


def test_destroyed_cards_are_ordered_by_the_active_player():
    # A promo "Test Quake" destroys every card in play at once: the active player orders them.
    register("Test Quake", resolve=lambda g, f: (g.stack.pop(), g.destroy(g.all_in_play()))[1])
    quake = {"name": "Test Quake", "rank": "5", "suits": ["sun"], "type": "event"}
    game = position([["Test Quake", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Thin Ice"], ["Castle", "Stream of Life"]], options={"promo_cards": [quake]})
    do(game, "play", "Test Quake")
    assert game.pending.kind == "order" and game.pending.player == 0
    assert game.pending.options[-1] == "done"
    do(game, "card", "Stream of Life")
    game.apply("done")  # the rest in the listed order
    assert discard_top_first(game) == ["Tempest", "Stream of Life", "Thin Ice", "Castle", "Test Quake"]
    assert table(game, 0) == [] and table(game, 1) == []


def test_thin_ice_makes_a_player_with_four_cards_in_play_lose_at_the_end_of_their_turn():
    game = position([["Castle", "Sleep"], ["Death", "Study"], ["Merlin"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Castle", "Stream of Life", "Guardian Angel"], ["Thin Ice"], []])
    do(game, "play", "Castle")  # a fourth card in play
    game.apply("end")
    assert game.alive == [False, True, True]
    assert game.turn == 1


def test_thin_ice_is_not_triggered_by_three_cards():
    game = position([["Castle", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Castle", "Thin Ice", "Guardian Angel"], []])
    game.apply("end")
    assert game.alive == [True, True] and game.turn == 1


def test_thin_ice_takes_effect_even_when_a_card_is_destroyed_at_the_same_moment():
    # A promo "Test Tremor" destroys a card of the active player at the end of their turn, at the same
    # moment Thin Ice triggers: the snapshot stands and the player still loses (CR §10).
    def tremor(game, f):
        game.stack.pop()
        game.destroy(game.in_play[f["active"]][:1])

    register("Test Tremor", at_end=lambda g, ctrl, active: True, resolve=tremor)
    tremor_card = {"name": "Test Tremor", "rank": "3", "suits": ["sun"], "type": "asset"}
    game = position([["Castle", "Sleep"], ["Death"]], draw=FILLER, discard=["Tempest"],
                    in_play=[["Test Tremor", "Stream of Life", "Guardian Angel", "Thin Ice"], []],
                    options={"promo_cards": [tremor_card]})
    game.apply("end")
    # player 0 controls both abilities and orders them: the tremor first
    assert game.pending.kind == "order"
    do(game, "card", "Test Tremor")
    kinds = [e["type"] for e in game.events]
    # the tremor destroyed a card (three left in play), and Thin Ice still took effect
    assert kinds.index("destroy") < kinds.index("lose")
    assert game.alive == [False, True] and game.result.winners == [1]


def test_timeshift_gives_an_extra_turn_after_this_one():
    game = position([["Timeshift", "Castle"], ["Death"]], draw=FILLER, discard=["Tempest"])
    do(game, "play", "Timeshift")
    game.apply("end")
    assert game.turn == 0 and game.turn_number == 2


def test_sleep_skips_the_chosen_players_next_turn():
    game = position([["Sleep", "Castle"], ["Death"], ["Study"]], draw=FILLER, discard=["Tempest"])
    do(game, "play", "Sleep")
    assert game.pending.options == ["player:0", "player:1", "player:2"]
    game.apply("player:1")
    game.apply("end")
    assert game.turn == 2
    assert {"type": "skip", "player": 1} in game.events


def test_sleep_on_a_player_with_an_extra_turn_coming_consumes_the_extra_turn():
    game = position([["Sleep", "Castle"], ["Death"]], draw=FILLER, discard=["Tempest"], extra_turns=[1, 0])
    do(game, "play", "Sleep")
    game.apply("player:0")
    game.apply("end")
    assert game.turn == 1 and game.extra == [0, 0] and game.skips == [0, 0]


@pytest.mark.parametrize("name", ["Angel of Hope", "Castle", "Guardian Angel", "Malevolent Minions",
                                  "Stream of Life", "Ferocity", "Devious Dragon", "Death", "Thin Ice",
                                  "Timeshift", "Sleep"])
def test_each_core_card_has_an_effect(name):
    from engine.effects import EFFECTS
    assert name in EFFECTS
