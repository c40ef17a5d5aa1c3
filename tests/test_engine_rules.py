"""Crazier Eights core rules, each from a concrete position with an exact outcome."""

from __future__ import annotations

import json

import pytest
from enginekit import cid, discard_top_first, do, draw_top_first, hand, names, position, table

import engine
from engine.cards import CARDS


# ----------------------------------------------------------------- cards and setup
def test_the_deck_has_52_cards_28_assets_24_events_and_four_wild_eights():
    assert len(CARDS) == 52 and len({c.name for c in CARDS}) == 52
    assert sum(c.is_asset for c in CARDS) == 28
    assert sorted(c.name for c in CARDS if c.is_eight) == ["Bewitch", "Crystal Ball", "Elven Ritual", "Lancelot"]
    for suit in ("moon", "ankh", "sun", "eye"):
        assert sum(suit in c.suits for c in CARDS) == 13


@pytest.mark.parametrize("players, cards", [(2, 52), (4, 52), (5, 104), (8, 104)])
def test_one_deck_up_to_four_players_two_decks_above(players, cards):
    game = engine.new_game("crazier-eights", players=players, seed=3)
    assert len(game.deck) == cards
    total = sum(map(len, game.hands)) + len(game.draw_pile) + len(game.discard)
    assert total == cards


def test_setup_deals_seven_each_and_turns_one_card_up():
    game = engine.new_game("crazier-eights", players=3, seed=11, first_player=2)
    assert game.turn == 2
    # the first player has drawn for the turn already: 8 cards; the others 7
    assert [len(h) for h in game.hands] == [7, 7, 8]
    assert len(game.discard) == 1


def test_first_player_is_drawn_from_the_seed_when_not_given():
    firsts = {engine.new_game("crazier-eights", players=4, seed=s).turn for s in range(40)}
    assert firsts == {0, 1, 2, 3}

    def first(seed):
        return engine.new_game("crazier-eights", players=4, seed=seed).turn

    assert first(5) == first(5)  # the same seed, the same first player


def test_an_initial_eight_keeps_its_colour_and_is_not_wild():
    # Lancelot (moon 8) turned up at setup: a moon card or an eight may follow, nothing else.
    game = position([["Castle", "Stream of Life", "Bewitch"], ["Death"]], draw=["Sleep"], discard=["Lancelot"])
    discards = [o for o in game.pending.options if o.startswith("discard:")]
    assert sorted(names(game, [int(o[8:]) for o in discards])) == ["Bewitch", "Castle"]


def test_multicolour_promo_matches_any_of_its_colours_and_passes_them_on():
    promo = {"name": "Twilight", "rank": None, "suits": ["moon", "ankh"], "type": "event"}
    game = engine.new_game("crazier-eights", players=2, seed=1, options={"promo_cards": [promo]})
    tw = len(game.deck) - 1
    assert game.card_name(tw) == "Twilight"
    # on a sun card it does not fit; on a moon or an ankh card it does
    game.discard.append(cid(game, "Thin Ice"))
    assert not game.can_discard(tw)
    game.discard.append(cid(game, "Stream of Life"))
    assert game.can_discard(tw)
    # as the top card, both of its colours may follow
    game.discard.append(tw)
    assert game.can_discard(cid(game, "Castle")) and game.can_discard(cid(game, "Tempest"))
    assert not game.can_discard(cid(game, "Sleep"))


def test_at_most_four_promo_cards():
    promo = {"name": "P", "rank": "2", "suits": ["sun"], "type": "asset"}
    engine.new_game("crazier-eights", options={"promo_cards": [promo] * 4})
    with pytest.raises(engine.OptionsError, match="at most four"):
        engine.new_game("crazier-eights", options={"promo_cards": [promo] * 5})


# ----------------------------------------------------------------- options
def test_unknown_option_and_bad_value_are_clear_errors():
    with pytest.raises(engine.OptionsError, match="unknown option 'draw_two'"):
        engine.new_game("crazier-eights", options={"draw_two": True})
    with pytest.raises(engine.OptionsError, match="impossible_draw_tie must be one of"):
        engine.new_game("crazier-eights", options={"impossible_draw_tie": "coin"})
    with pytest.raises(engine.OptionsError, match="2 to 8 players"):
        engine.new_game("crazier-eights", players=9)
    with pytest.raises(engine.OptionsError, match="unknown rule set"):
        engine.new_game("crazier-nines")


# ----------------------------------------------------------------- the turn
def test_turn_draws_one_then_main_phase_offers_plays_discards_and_end():
    game = position([["Castle", "Sleep"], ["Death"]], draw=["Timeshift", "Stream of Life"], discard=["Tempest"],
                     phase="begin")
    assert hand(game, 0) == ["Castle", "Sleep", "Timeshift"]
    assert game.pending.kind == "main" and game.pending.options[-1] == "end"
    # Castle (moon 5) matches Tempest's rank; Sleep (sun 9) and Timeshift (eye J) do not match ankh 5
    discards = [game.card_name(int(o[8:])) for o in game.pending.options if o.startswith("discard:")]
    assert discards == ["Castle"]


def test_one_discard_and_one_play_per_turn_in_any_order():
    game = position([["Castle", "Angel of Hope", "Guardian Angel", "Sleep"], ["Death"]], discard=["Trade"])
    do(game, "discard", "Castle")
    assert not any(o.startswith("discard:") for o in game.pending.options)
    do(game, "play", "Guardian Angel")
    assert game.pending.options == ["end"]
    assert table(game, 0) == ["Guardian Angel"]
    assert discard_top_first(game)[0] == "Castle"


def test_discarding_an_eight_names_a_colour_that_the_next_discard_must_follow():
    game = position([["Lancelot", "Castle", "Thin Ice"], ["Death", "Stream of Life"]], draw=["Sleep", "Ferocity"],
                    discard=["Tempest"], turn=0)
    do(game, "discard", "Lancelot")
    assert game.pending.kind == "colour"
    assert game.pending.options == ["colour:moon", "colour:ankh", "colour:sun", "colour:eye"]
    game.apply("colour:sun")
    game.apply("end")
    # player 1 drew Sleep... no: the draw pile top is Sleep, player 1 draws it
    assert hand(game, 1) == ["Death", "Stream of Life", "Sleep"]
    discards = sorted(game.card_name(int(o[8:])) for o in game.pending.options if o.startswith("discard:"))
    assert discards == ["Death", "Sleep"]  # both sun; Stream of Life (ankh) is not
    assert game.view(1)["named_colour"] == "sun"


def test_events_go_to_the_bottom_of_the_discard_pile_and_assets_into_play():
    game = position([["Timeshift", "Castle"], ["Death"]], discard=["Tempest", "Study"])
    do(game, "play", "Timeshift")
    assert discard_top_first(game) == ["Tempest", "Study", "Timeshift"]


def test_illegal_option_raises_and_changes_nothing():
    game = position([["Castle", "Sleep"], ["Death"]], draw=["Merlin"], discard=["Tempest"])
    before = json.dumps(game.to_dict(), sort_keys=True)
    with pytest.raises(engine.IllegalOption, match="not an option"):
        game.apply("discard:99")
    with pytest.raises(engine.IllegalOption):
        game.apply(f"discard:{cid(game, 'Sleep')}")  # does not match the top card
    assert json.dumps(game.to_dict(), sort_keys=True) == before


# ----------------------------------------------------------------- drawing
def test_empty_draw_pile_is_rebuilt_from_the_discard_pile_but_its_top_card():
    game = position([["Castle"], ["Death", "Sleep"]], draw=[], discard=["Tempest", "Study", "Merlin"], turn=1,
                    phase="draw")
    assert len(game.hands[1]) == 3
    assert discard_top_first(game) == ["Tempest"]
    assert len(game.draw_pile) == 1


def test_an_impossible_draw_ends_the_game_fewest_cards_win_shared_when_tied():
    game = position([["Castle", "Sleep"], ["Death", "Timeshift"], ["Ferocity", "Merlin", "Study"]],
                    draw=[], discard=["Tempest"], turn=0, phase="draw")
    assert game.result.reason == "impossible_draw"
    assert game.result.winners == [0, 1]
    assert game.result.points == [0, 0, 3]


def test_impossible_draw_tie_option_turn_order():
    game = position([["Castle", "Sleep"], ["Death", "Timeshift"]], draw=[], discard=["Tempest"], turn=1,
                    phase="draw", options={"impossible_draw_tie": "turn_order"})
    assert game.result.winners == [1]


# ----------------------------------------------------------------- winning and losing
def test_discarding_the_last_card_wins_at_once():
    game = position([["Castle"], ["Death", "Sleep"]], discard=["Tempest"])
    do(game, "discard", "Castle")
    assert game.pending is None
    assert game.result.winners == [0] and game.result.reason == "empty_hand"
    assert game.result.points == [0, 2] and game.result.placements == [1, 2]


def test_playing_the_last_card_as_an_event_wins_before_it_resolves():
    game = position([["Sleep"], ["Death"]], discard=["Tempest"])
    do(game, "play", "Sleep")
    assert game.result.winners == [0]
    assert game.skips == [0, 0]  # Sleep never resolved


def test_thin_ice_loser_leaves_and_last_player_standing_wins():
    game = position([["Castle", "Sleep"], ["Death"], ["Merlin", "Study"]],
                    in_play=[["Thin Ice", "Angel of Hope", "Guardian Angel", "Stream of Life"], [], []],
                    draw=["Ferocity"] * 3, discard=["Tempest"], phase="main")
    game.apply("end")
    assert game.alive == [False, True, True]
    assert game.elim_points[0] == 2
    # hand then cards in play went to the bottom; the top card is unchanged
    assert discard_top_first(game) == ["Tempest", "Castle", "Sleep", "Thin Ice", "Angel of Hope",
                                       "Guardian Angel", "Stream of Life"]
    assert game.turn == 1
    game.forfeit(1, "timeout")
    assert game.result.winners == [2] and game.result.reason == "last_standing"
    assert game.result.points == [2, 2, 0]  # player 1 had drawn for its turn
    assert game.result.eliminated == [0, 1]
    assert game.result.placements == [3, 2, 1]


def test_players_who_lose_together_as_the_last_ones_tie():
    game = position([["Castle", "Sleep"], ["Death"], ["Study"], ["Merlin"]],
                    in_play=[["Thin Ice", "Angel of Hope", "Guardian Angel", "Stream of Life"], [], [], []],
                    discard=["Tempest"], teams=[[0, 2], [1, 3]])
    game.forfeit(1, "crash")  # the whole team 1+3 leaves
    assert game.result.winners == [0, 2] and game.result.reason == "last_standing"


def test_team_member_emptying_the_hand_wins_for_the_team():
    game = position([["Castle"], ["Death"], ["Study", "Merlin"], ["Sleep"]], discard=["Tempest"],
                    teams=[[0, 2], [1, 3]])
    do(game, "discard", "Castle")
    assert game.result.winners == [0, 2]
    assert game.result.points == [0, 1, 0, 1]


def test_simultaneous_loss_of_the_last_players_is_a_tie():
    ice = ["Thin Ice", "Angel of Hope", "Guardian Angel", "Stream of Life"]
    game = position([["Castle"], ["Death"]], in_play=[ice, []], discard=["Tempest"],
                    teams=None)
    # both players of a team game... here: a two-player free-for-all where the loser is alone:
    game.apply("end")
    assert game.result.winners == [1] and game.result.reason == "last_standing"
    tie = position([["Castle"], ["Death"], ["Study"], ["Sleep"]], in_play=[ice, [], [], []], discard=["Tempest"],
                   teams=[[0, 1], [2, 3]])
    tie.alive = [True, True, False, False]
    tie.eliminated = [2, 3]
    tie.apply("end")
    assert tie.result.winners == [] and tie.result.reason == "all_lost"
    assert tie.result.placements[:2] == [1, 1]


# ----------------------------------------------------------------- views
def test_view_shows_own_hand_counts_and_public_zones_only():
    game = position([["Castle", "Sleep"], ["Death", "Timeshift", "Merlin"]], draw=["Study", "Ferocity"],
                    discard=["Tempest"], in_play=[["Stream of Life"], []])
    view = game.view(0)
    assert names(game, view["hand"]) == ["Castle", "Sleep"]
    assert view["hand_sizes"] == [2, 3] and view["draw_pile"] == 2
    assert names(game, view["in_play"][0]) == ["Stream of Life"]
    assert view["this_turn"] == {"played": False, "discards_made": 0, "discards_allowed": 2}
    text = json.dumps(view)
    for secret in ("Death", "Timeshift", "Merlin", "Study", "Ferocity"):
        assert str(cid(game, secret)) not in json.dumps(view["hand"])
    assert "Death" not in text  # views name cards by id only
    json.dumps(game.view(1))


def test_view_events_since_last_decision_hide_other_players_draws():
    game = position([["Castle", "Sleep"], ["Death", "Timeshift"]], draw=["Study", "Ferocity", "Merlin"],
                    discard=["Tempest"])
    game.apply("end")  # player 1 draws Study
    own = game.view(1)["events"]
    other = game.view(0)["events"]
    assert {"type": "drew", "player": 1, "cards": [cid(game, "Study")], "only": 1} in own
    assert all(e["type"] != "drew" for e in other)
    assert {"type": "draw", "player": 1, "count": 1, "cause": None} in other
    game.apply("end")
    assert all(e["type"] != "turn" or e["turn"] > 2 for e in game.view(1)["events"])


# ----------------------------------------------------------------- positions, save, replay
def test_save_load_continue_is_identical_rng_included():
    game = engine.new_game("crazier-eights", players=3, seed=42)
    import random
    rng = random.Random(1)
    for _ in range(40):
        game.apply(rng.choice(game.pending.options))
    copy = engine.load_game(json.loads(json.dumps(game.to_dict())))
    for _ in range(400):
        if game.pending is None:
            break
        option = rng.choice(game.pending.options)
        game.apply(option)
        copy.apply(option)
    assert copy.to_dict() == game.to_dict()


def test_replay_from_seed_and_choices_reproduces_the_game():
    import random
    game = engine.new_game("crazier-eights", players=2, seed=9)
    rng = random.Random(2)
    while game.pending is not None:
        game.apply(rng.choice(game.pending.options))
    again = engine.replay({"rule_set": "crazier-eights", "players": 2, "seed": 9}, game.choices)
    assert again.to_dict() == game.to_dict()


def test_replay_from_a_saved_position():
    start = position([["Castle", "Sleep"], ["Death", "Timeshift"]], draw=["Study", "Ferocity", "Merlin"],
                     discard=["Tempest"]).to_dict()
    game = engine.load_game(start)
    game.apply("end")
    game.apply("end")
    assert engine.replay(start, ["end", "end"]).to_dict() == game.to_dict()


def test_a_forfeit_mid_game_is_in_the_choices_and_replays_with_the_engine_alone():
    start = position([["Castle", "Sleep"], ["Death", "Timeshift"], ["Study", "Merlin"]],
                     draw=["Ferocity"] * 6, discard=["Tempest"]).to_dict()
    game = engine.load_game(start)
    game.apply("end")
    game.forfeit(1, "timeout")  # in player 1's main phase
    assert game.alive == [True, False, True] and game.turn == 2
    game.apply("end")
    assert game.choices == ["end", "forfeit:1:timeout", "end"]
    assert engine.replay(start, game.choices).to_dict() == game.to_dict()
    saved = engine.load_game(json.loads(json.dumps(game.to_dict())))
    assert saved.choices == game.choices
    assert engine.replay(start, saved.choices).to_dict() == game.to_dict()


def test_a_forfeit_is_recorded_while_the_game_is_on_and_not_after():
    game = position([["Castle"], ["Death"], ["Study"], ["Merlin"]], discard=["Tempest"],
                    teams=[[0, 2], [1, 3]], draw=["Ferocity"] * 4)
    game.forfeit(0, "timeout")  # the whole team 0+2 leaves: the game is over
    assert game.result.winners == [1, 3]
    game.forfeit(2, "crash")
    assert game.choices == ["forfeit:0:timeout"]
    game = position([["Castle"], ["Death"], ["Study"]], discard=["Tempest"], draw=["Ferocity"] * 4)
    game.forfeit(1, "timeout")
    before = game.to_dict()
    game.forfeit(1, "crash")  # already out: changes nothing, but the fault is on the record
    assert game.choices == ["forfeit:1:timeout", "forfeit:1:crash"]
    assert {**game.to_dict(), "choices": before["choices"]} == before
    with pytest.raises(engine.IllegalOption):
        game.forfeit(3, "crash")


def test_bad_positions_are_clear_errors():
    with pytest.raises(engine.PositionError, match="unknown card 'Joker'"):
        position([["Joker"], ["Death"]])
    with pytest.raises(engine.PositionError, match="phase"):
        position([["Castle"], ["Death"]], phase="lunch")


def test_look_effects_top_up_the_draw_pile_from_under_it():
    # CR §12.5: a short draw pile gets the discard pile (but its top card) shuffled in *under* it
    game = position([["Castle"], ["Death"]], draw=["Study"], discard=["Tempest", "Merlin", "Sleep"])
    game.top_up(2)
    assert draw_top_first(game)[0] == "Study"
    assert sorted(draw_top_first(game)[1:]) == ["Merlin", "Sleep"]
    assert discard_top_first(game) == ["Tempest"]
    game.top_up(5)  # nothing left to add: the effect uses what exists
    assert len(game.draw_pile) == 3
