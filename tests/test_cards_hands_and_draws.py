"""Scenario tests for the cards of engine/effects/hands_and_draws.py (issue 3, part A).

Every test starts from a hand-written position (cards by name, zones top first) and asserts the
exact zones afterwards. Orders chosen one card at a time: cards put on top of the draw pile end
with the first chosen deepest; cards put on a bottom end with the last chosen at the very bottom.
"""

from __future__ import annotations

import json

# ----------------------------------------------------------------- helpers
from enginekit import cid, hand, names, position, table
from enginekit import discard_top_first as discard_pile
from enginekit import draw_top_first as draw_pile

import engine
from engine.common import rng_from_json, rng_to_json


def pos(hands, draw=(), discard=("Sleep",), in_play=None, turn=0, phase="main", **extra):
    return position(hands, draw, discard, in_play, turn, phase, seed=extra.pop("seed", 5), **extra)


def opt(g, verb, name):
    for o in g.pending.options:
        v, _, a = o.partition(":")
        if v == verb and a and g.card_name(int(a)) == name:
            return o
    raise AssertionError(f"no {verb} option for {name} in {g.pending.options}")


def do(g, verb, name=None):
    g.apply(opt(g, verb, name) if name is not None else verb)


def play(g, name):
    do(g, "play", name)


def pick(g, *cards):
    """Answer one card decision per name, in order."""
    for name in cards:
        do(g, "card", name)


def allowed(g):
    return g.view(g.turn)["this_turn"]["discards_allowed"]


def total_cards(g):
    return (sum(map(len, g.hands)) + len(g.draw_pile) + len(g.discard)
            + sum(map(len, g.in_play)) + len(g.limbo))


DRAW = ["Study", "Research", "Merlin", "Timeshift", "Ferocity", "Lighthouse", "Wood Elf"]


# ----------------------------------------------------------------- "a player of your choice draws"
def test_forbidden_knowledge_against_two_castles_draws_one_self_target_draws_three():
    g = pos([["Forbidden Knowledge", "Death"], ["Sleep"]], draw=DRAW,
            in_play=[[], ["Castle", "Castle"]])
    play(g, "Forbidden Knowledge")
    assert g.pending.kind == "player" and g.pending.options == ["player:0", "player:1"]
    g.apply("player:1")
    assert hand(g, 1) == ["Sleep", "Study"]
    assert draw_pile(g) == DRAW[1:]
    assert discard_pile(g) == ["Sleep", "Forbidden Knowledge"]

    g = pos([["Forbidden Knowledge", "Death"], ["Sleep"]], draw=DRAW, in_play=[["Castle"], ["Castle", "Castle"]])
    play(g, "Forbidden Knowledge")
    g.apply("player:0")  # self-caused: no Castle applies
    assert hand(g, 0) == ["Death", "Study", "Research", "Merlin"]


def test_visionary_dream_minions_plus_opponents_castle_cancel_out():
    g = pos([["Visionary Dream", "Death"], ["Sleep"]], draw=DRAW,
            in_play=[["Malevolent Minions"], ["Castle"]])
    play(g, "Visionary Dream")
    g.apply("player:1")
    assert hand(g, 1) == ["Sleep", "Study", "Research"]  # 2 + 1 - 1
    # Minions alone: one more; own Minions on yourself: none
    g = pos([["Visionary Dream", "Death"], ["Sleep"]], draw=DRAW, in_play=[["Malevolent Minions"], []])
    play(g, "Visionary Dream")
    g.apply("player:1")
    assert hand(g, 1) == ["Sleep", "Study", "Research", "Merlin"]
    g = pos([["Visionary Dream", "Death"], ["Sleep"]], draw=DRAW, in_play=[["Malevolent Minions"], []])
    play(g, "Visionary Dream")
    g.apply("player:0")
    assert hand(g, 0) == ["Death", "Study", "Research"]


def test_forbidden_knowledge_minions_and_opponents_castle():
    g = pos([["Forbidden Knowledge", "Death"], ["Sleep"]], draw=DRAW,
            in_play=[["Malevolent Minions"], ["Castle"]])
    play(g, "Forbidden Knowledge")
    g.apply("player:1")
    assert hand(g, 1) == ["Sleep", "Study", "Research", "Merlin"]  # 3 + 1 - 1


# ----------------------------------------------------------------- "up to two players draw"
def test_pleasant_memories_two_players_draw_in_turn_order_from_the_active_player():
    # player 1 is active; it picks player 0 first, then player 2: player 2 draws first (turn order 1, 2, 0)
    g = pos([["Death"], ["Pleasant Memories", "Castle"], ["Sleep"]], draw=DRAW, turn=1)
    play(g, "Pleasant Memories")
    assert g.pending.kind == "players" and g.pending.player == 1
    assert g.pending.options == ["player:1", "player:2", "player:0", "done"]
    g.apply("player:0")
    assert g.pending.options == ["player:1", "player:2", "done"]
    assert hand(g, 0) == ["Death"]  # nothing drawn before both are chosen
    g.apply("player:2")
    assert hand(g, 2) == ["Sleep", "Study", "Research"]
    assert hand(g, 0) == ["Death", "Merlin", "Timeshift"]
    assert hand(g, 1) == ["Castle"]
    assert g.pending.kind == "main" and g.pending.player == 1


def test_pleasant_memories_may_choose_nobody_or_one_player():
    g = pos([["Pleasant Memories", "Castle"], ["Death"]], draw=DRAW)
    play(g, "Pleasant Memories")
    g.apply("done")
    assert hand(g, 0) == ["Castle"] and hand(g, 1) == ["Death"] and draw_pile(g) == DRAW
    g = pos([["Pleasant Memories", "Castle"], ["Death"]], draw=DRAW)
    play(g, "Pleasant Memories")
    g.apply("player:0")
    g.apply("done")
    assert hand(g, 0) == ["Castle", "Study", "Research"] and hand(g, 1) == ["Death"]


def test_worldly_wisdom_separate_instances_each_adjusted():
    # player 0 has Minions; player 1 a Castle; Guardian Angel makes every draw two smaller.
    g = pos([["Worldly Wisdom", "Castle"], ["Death"]], draw=DRAW,
            in_play=[["Malevolent Minions"], ["Guardian Angel"]])
    play(g, "Worldly Wisdom")
    g.apply("player:1")
    g.apply("player:0")
    # active player 0 first: 3 - 2 = 1; then player 1: 3 + 1 (Minions) - 2 = 2
    assert hand(g, 0) == ["Castle", "Study"]
    assert hand(g, 1) == ["Death", "Research", "Merlin"]


# ----------------------------------------------------------------- extra discards
def test_holy_grail_draws_at_the_beginning_then_two_extra_discards():
    g = pos([["Castle", "Pleasant Memories", "Holy Grail"], ["Death"]],
            draw=["Guardian Valkyrie", "Angel of Hope", "Study"],
            discard=["Lancelot"], in_play=[["Holy Grail"], []], phase="begin")
    # Grail draws Guardian Valkyrie, then the turn's draw takes Angel of Hope
    assert hand(g, 0) == ["Castle", "Pleasant Memories", "Holy Grail", "Guardian Valkyrie", "Angel of Hope"]
    assert allowed(g) == 3
    for name in ("Castle", "Pleasant Memories", "Guardian Valkyrie"):
        do(g, "discard", name)
    assert discard_pile(g) == ["Guardian Valkyrie", "Pleasant Memories", "Castle", "Lancelot"]
    assert not any(o.startswith("discard:") for o in g.pending.options)


def test_holy_grail_played_this_turn_gives_nothing_and_a_destroyed_grail_keeps_its_bonus():
    g = pos([["Holy Grail", "Castle", "Pleasant Memories"], ["Death"]], draw=DRAW, discard=["Lancelot"])
    play(g, "Holy Grail")
    assert table(g, 0) == ["Holy Grail"] and allowed(g) == 1
    # the bonus came from the trigger: destroying the Grail later that turn does not take it back
    g = pos([["Death", "Castle", "Pleasant Memories", "Angel of Hope"], ["Sleep"]], draw=DRAW, discard=["Lancelot"],
            in_play=[["Holy Grail"], []], phase="begin")
    assert hand(g, 0)[-2:] == ["Study", "Research"] and allowed(g) == 3
    play(g, "Death")
    pick(g, "Holy Grail")
    assert table(g, 0) == [] and allowed(g) == 3


def test_fountain_of_youth_one_extra_discard_for_its_controller_only():
    g = pos([["Castle", "Pleasant Memories", "Angel of Hope"], ["Death", "Sleep"]], draw=DRAW,
            discard=["Lancelot"], in_play=[["Fountain of Youth"], []])
    assert allowed(g) == 2
    do(g, "discard", "Castle")
    do(g, "discard", "Pleasant Memories")
    assert hand(g, 0) == ["Angel of Hope"]
    assert g.pending.options == [opt(g, "play", "Angel of Hope"), "end"]
    g = pos([["Castle", "Pleasant Memories"], ["Death"]], draw=DRAW, discard=["Lancelot"],
            in_play=[[], ["Fountain of Youth"]])
    assert allowed(g) == 1


def test_potion_of_vitality_two_extra_discards_this_turn():
    g = pos([["Castle", "Potion of Vitality", "Pleasant Memories", "Angel of Hope", "King Arthur"], ["Death"]],
            draw=DRAW, discard=["Lancelot"])
    do(g, "discard", "Castle")  # the regular discard first: the Potion still adds two
    play(g, "Potion of Vitality")
    assert allowed(g) == 3
    for name in ("Pleasant Memories", "Angel of Hope"):
        do(g, "discard", name)
    assert hand(g, 0) == ["King Arthur"]
    assert not any(o.startswith("discard:") for o in g.pending.options)
    assert discard_pile(g) == ["Angel of Hope", "Pleasant Memories", "Castle", "Lancelot", "Potion of Vitality"]
    g.apply("end")
    assert g.turn == 1 and allowed(g) == 1  # only this turn


def test_oberon_caps_potion_of_vitality_at_one_discard():
    g = pos([["Castle", "Potion of Vitality", "Pleasant Memories", "Angel of Hope"], ["Death"]],
            draw=DRAW, discard=["Lancelot"], in_play=[["Fountain of Youth", "Stream of Life"], ["Oberon"]])
    play(g, "Potion of Vitality")
    assert allowed(g) == 1
    do(g, "discard", "Castle")
    assert not any(o.startswith("discard:") for o in g.pending.options)
    assert hand(g, 0) == ["Pleasant Memories", "Angel of Hope"]


def test_oberon_spares_its_controller_and_allies():
    g = pos([["Castle", "Pleasant Memories"], ["Death"]], draw=DRAW, discard=["Lancelot"],
            in_play=[["Oberon", "Fountain of Youth"], []])
    assert allowed(g) == 2
    four = [["Castle", "Pleasant Memories"], ["Death"], ["Sleep"], ["Study"]]
    g = pos(four, draw=DRAW, discard=["Lancelot"], in_play=[["Fountain of Youth"], [], ["Oberon"], []],
            teams=[[0, 2], [1, 3]])
    assert allowed(g) == 2
    g = pos(four, draw=DRAW, discard=["Lancelot"], in_play=[["Fountain of Youth"], ["Oberon"], [], []],
            teams=[[0, 2], [1, 3]])
    assert allowed(g) == 1


# ----------------------------------------------------------------- draw, then put back
def test_hidden_gold_puts_three_on_the_bottom_of_the_discard_pile_last_chosen_deepest():
    g = pos([["Hidden Gold", "Castle"], ["Death"]], draw=["Study", "Research", "Merlin", "Timeshift"])
    play(g, "Hidden Gold")
    assert hand(g, 0) == ["Castle", "Study", "Research", "Merlin"]
    assert g.pending.kind == "put_back" and len(g.pending.options) == 4
    pick(g, "Research", "Castle", "Merlin")
    assert hand(g, 0) == ["Study"]
    assert discard_pile(g) == ["Sleep", "Research", "Castle", "Merlin", "Hidden Gold"]
    assert draw_pile(g) == ["Timeshift"]
    assert g.pending.kind == "main"


def test_treasure_with_guardian_angel_shrinks_the_hand_by_two():
    start = ["Treasure", "Castle", "Death", "Sleep", "Study"]
    g = pos([start, ["Merlin"]], draw=DRAW, in_play=[[], ["Guardian Angel"]])
    play(g, "Treasure")  # 4 cards left in hand
    assert hand(g, 0) == ["Castle", "Death", "Sleep", "Study", "Study", "Research", "Merlin"]  # 5 - 2 drawn
    pick(g, "Castle", "Death", "Sleep", "Study", "Merlin")
    assert hand(g, 0) == ["Study", "Research"]  # 4 -> 2
    assert discard_pile(g) == ["Sleep", "Castle", "Death", "Sleep", "Study", "Merlin", "Treasure"]
    assert draw_pile(g) == DRAW[3:]


def test_treasure_with_guardian_angel_can_empty_the_hand_and_win():
    g = pos([["Treasure", "Castle"], ["Merlin"]], draw=DRAW, in_play=[["Guardian Angel"], []])
    play(g, "Treasure")
    pick(g, "Castle", "Study", "Research")  # the fourth and last card goes without asking
    assert g.hands[0] == []
    assert g.result.winners == [0] and g.result.reason == "empty_hand"


def test_put_back_capped_by_drawn_option():
    g = pos([["Treasure", "Castle", "Death"], ["Merlin"]], draw=DRAW, in_play=[["Guardian Angel"], []],
            options={"put_back_capped_by_drawn": True})
    play(g, "Treasure")
    assert hand(g, 0) == ["Castle", "Death", "Study", "Research", "Merlin"]
    pick(g, "Death", "Merlin", "Castle")
    assert hand(g, 0) == ["Study", "Research"]
    assert g.pending.kind == "main"


def test_study_puts_two_on_top_of_the_draw_pile_and_the_player_knows_them():
    g = pos([["Study", "Castle"], ["Death"]], draw=["Sleep", "Merlin", "Timeshift"], discard=["Ferocity"])
    play(g, "Study")
    assert hand(g, 0) == ["Castle", "Sleep", "Merlin"]
    pick(g, "Castle", "Sleep")  # Castle first: it ends under Sleep
    assert hand(g, 0) == ["Merlin"]
    assert draw_pile(g) == ["Sleep", "Castle", "Timeshift"]
    known = g.view(0)["known_draw_pile"]
    assert known == {str(cid(g, "Sleep", g.draw_pile)): 0, str(cid(g, "Castle", g.draw_pile)): 1}
    assert g.view(1)["known_draw_pile"] == {}
    assert not _ids_in_view(g.view(1)) & {cid(g, "Castle", g.draw_pile), cid(g, "Sleep", g.draw_pile)}


def test_research_puts_three_back_in_the_chosen_order():
    g = pos([["Research", "Castle"], ["Death"]], draw=["Ferocity", "Sleep", "Merlin", "Timeshift"])
    play(g, "Research")
    assert hand(g, 0) == ["Castle", "Ferocity", "Sleep", "Merlin"]
    pick(g, "Ferocity", "Castle", "Merlin")  # first chosen ends deepest
    assert hand(g, 0) == ["Sleep"]
    assert draw_pile(g) == ["Merlin", "Castle", "Ferocity", "Timeshift"]
    g.apply("end")  # player 1 draws the last card chosen
    assert hand(g, 1) == ["Death", "Merlin"]


def test_sagacious_sorceress_draws_one_and_puts_one_on_the_bottom_of_the_draw_pile():
    g = pos([["Castle", "Death"], ["Ferocity"]], draw=["Sleep", "Merlin", "Study"],
            in_play=[["Sagacious Sorceress"], []], phase="begin")
    assert hand(g, 0) == ["Castle", "Death", "Sleep"]
    assert g.pending.kind == "put_back" and g.pending.source == "Sagacious Sorceress"
    pick(g, "Castle")
    # then the turn's own draw
    assert hand(g, 0) == ["Death", "Sleep", "Merlin"]
    assert draw_pile(g) == ["Study", "Castle"]
    assert g.pending.kind == "main"


def test_crystal_ball_draws_three_and_puts_three_on_the_bottom_last_chosen_deepest():
    g = pos([["Castle"], ["Ferocity"]], draw=["Sleep", "Merlin", "Study", "Timeshift", "Death"],
            in_play=[["Crystal Ball"], []], phase="begin")
    assert hand(g, 0) == ["Castle", "Sleep", "Merlin", "Study"]
    pick(g, "Merlin", "Castle", "Sleep")
    assert hand(g, 0) == ["Study", "Timeshift"]
    assert draw_pile(g) == ["Death", "Merlin", "Castle", "Sleep"]


def test_merlin_draws_two_and_puts_two_on_the_bottom_guardian_angel_keeps_the_put_back():
    g = pos([["Castle", "Death"], ["Ferocity"]], draw=["Sleep", "Merlin", "Study"],
            in_play=[["Merlin"], []], phase="begin")
    assert hand(g, 0) == ["Castle", "Death", "Sleep", "Merlin"]
    pick(g, "Death", "Sleep")
    assert hand(g, 0) == ["Castle", "Merlin", "Study"]
    assert draw_pile(g) == ["Death", "Sleep"]
    # with Guardian Angel nothing is drawn but two still go back
    g = pos([["Castle", "Death", "Timeshift"], ["Ferocity"]], draw=["Sleep", "Study"],
            in_play=[["Merlin"], ["Guardian Angel"]], phase="begin")
    assert hand(g, 0) == ["Castle", "Death", "Timeshift"]
    pick(g, "Timeshift", "Castle")
    assert hand(g, 0) == ["Death", "Sleep"]
    assert draw_pile(g) == ["Study", "Timeshift", "Castle"]


# ----------------------------------------------------------------- Trade
def _ids_in_view(view):
    """Every card id a view mentions (hand, piles, table, looks, events)."""
    out = set(view["hand"]) | set(view["discard_pile"]) | set(view["limbo"])
    out |= {c for cards in view["in_play"] for c in cards}
    out |= {int(k) for k in view["known_draw_pile"]}
    if "looking_at" in view:
        out |= set(view["looking_at"]["cards"])
    for e in view["events"]:
        for key in ("card", "gave", "took"):
            if isinstance(e.get(key), int):
                out.add(e[key])
        out |= set(e.get("cards", ()) if isinstance(e.get("cards"), list) else ())
    return out


def test_trade_looks_at_the_hand_and_exchanges_the_two_chosen_cards_privately():
    g = pos([["Trade", "Castle", "Death"], ["Sleep", "Merlin"], ["Study"]], draw=DRAW)
    secret_1 = {cid(g, "Sleep"), cid(g, "Merlin")}
    secret_0 = {cid(g, "Castle"), cid(g, "Death")}
    play(g, "Trade")
    assert g.pending.kind == "player" and g.pending.options == ["player:1", "player:2"]
    assert all("looking_at" not in g.view(p) for p in range(3))
    g.apply("player:1")
    assert g.view(0)["looking_at"] == {"hand_of": 1, "cards": g.hands[1]}
    assert g.pending.kind == "trade_take" and g.pending.player == 0
    for p in (1, 2):
        assert "looking_at" not in g.view(p)
    assert not _ids_in_view(g.view(2)) & (secret_0 | secret_1)
    assert not _ids_in_view(g.view(1)) & secret_0
    saved = engine.load_game(json.loads(json.dumps(g.to_dict())))  # the look survives save and load
    assert saved.view(0)["looking_at"] == g.view(0)["looking_at"] and "looking_at" not in saved.view(2)
    do(g, "card", "Merlin")
    assert g.pending.kind == "trade_give" and "looking_at" in g.view(0)
    do(g, "card", "Death")
    assert hand(g, 0) == ["Castle", "Merlin"]
    assert hand(g, 1) == ["Sleep", "Death"]
    assert hand(g, 2) == ["Study"]
    assert all("looking_at" not in g.view(p) for p in range(3))
    assert not _ids_in_view(g.view(2)) & (secret_0 | secret_1)
    assert _ids_in_view(g.view(1)) & secret_0 == {cid(g, "Death")}  # only the card it received
    assert discard_pile(g) == ["Sleep", "Trade"]


def test_trade_with_two_players_and_with_an_ally():
    g = pos([["Trade", "Castle"], ["Sleep"]], draw=DRAW)
    play(g, "Trade")
    assert g.pending.options == ["player:1"]
    g.apply("player:1")
    pick(g, "Sleep", "Castle")
    assert hand(g, 0) == ["Sleep"] and hand(g, 1) == ["Castle"]
    g = pos([["Trade", "Castle"], ["Sleep"], ["Study"], ["Death"]], draw=DRAW, teams=[[0, 2], [1, 3]])
    play(g, "Trade")
    assert g.pending.options == ["player:1", "player:2", "player:3"]
    g.apply("player:2")
    pick(g, "Study", "Castle")
    assert hand(g, 0) == ["Study"] and hand(g, 2) == ["Castle"]


# ----------------------------------------------------------------- Tempest and Hurricane
def test_tempest_needs_a_card_in_play_and_moves_it_into_a_chosen_hand():
    g = pos([["Tempest", "Castle"], ["Death"]], draw=DRAW)
    assert g.pending.kind == "main" and opt(g, "play", "Castle")
    assert not any(o == f"play:{cid(g, 'Tempest')}" for o in g.pending.options)
    g = pos([["Tempest", "Castle"], ["Death"]], draw=DRAW, in_play=[["Fountain of Youth"], ["Oberon", "Thin Ice"]])
    play(g, "Tempest")
    assert g.pending.kind == "card"
    assert sorted(names(g, [int(o[5:]) for o in g.pending.options])) == ["Fountain of Youth", "Oberon", "Thin Ice"]
    pick(g, "Oberon")
    g.apply("player:0")
    assert hand(g, 0) == ["Castle", "Oberon"]
    assert table(g, 1) == ["Thin Ice"]
    assert discard_pile(g) == ["Sleep", "Tempest"]
    assert allowed(g) == 2  # Oberon left play: the Fountain works again


def test_hurricane_moves_up_to_two_cards_into_one_hand():
    g = pos([["Hurricane", "Castle"], ["Death"]], draw=DRAW,
            in_play=[["Fountain of Youth"], ["Oberon", "Thin Ice", "Castle"]])
    play(g, "Hurricane")
    assert "done" in g.pending.options
    pick(g, "Thin Ice")
    assert opt(g, "card", "Oberon") and f"card:{cid(g, 'Thin Ice', g.in_play[1])}" not in g.pending.options
    pick(g, "Oberon")
    assert g.pending.kind == "player"
    g.apply("player:1")
    assert hand(g, 1) == ["Death", "Thin Ice", "Oberon"]
    assert table(g, 1) == ["Castle"] and table(g, 0) == ["Fountain of Youth"]


def test_hurricane_one_card_or_none():
    g = pos([["Hurricane", "Castle"], ["Death"]], draw=DRAW, in_play=[["Fountain of Youth"], ["Oberon"]])
    play(g, "Hurricane")
    pick(g, "Fountain of Youth")
    g.apply("done")
    g.apply("player:1")
    assert hand(g, 1) == ["Death", "Fountain of Youth"] and table(g, 0) == []
    g = pos([["Hurricane", "Castle"], ["Death"]], draw=DRAW, in_play=[["Fountain of Youth"], ["Oberon"]])
    play(g, "Hurricane")
    g.apply("done")
    assert g.pending.kind == "main"
    assert table(g, 0) == ["Fountain of Youth"] and table(g, 1) == ["Oberon"]
    g = pos([["Hurricane", "Castle"], ["Death"]], draw=DRAW)  # always playable, nothing to choose
    play(g, "Hurricane")
    assert g.pending.kind == "main" and hand(g, 0) == ["Castle"]


# ----------------------------------------------------------------- Revolution
def test_revolution_deals_an_uneven_number_one_at_a_time_from_its_player():
    g = pos([["Castle", "Death", "Lighthouse"], ["Sleep", "Study", "Merlin"], ["Revolution", "Timeshift", "Ferocity"]],
            draw=DRAW, turn=2, seed=9)
    before = sorted(c for h in g.hands for c in h if g.card_name(c) != "Revolution")
    rng = rng_from_json(rng_to_json(g.rng))
    play(g, "Revolution")
    # 8 cards, dealt to 2, 0, 1, 2, 0, 1, 2, 0: the player of Revolution and the next get one more
    assert [len(h) for h in g.hands] == [3, 2, 3]
    assert sorted(c for h in g.hands for c in h) == before
    cards = [cid(g, n) for n in ("Castle", "Death", "Lighthouse", "Sleep", "Study", "Merlin", "Timeshift", "Ferocity")]
    rng.shuffle(cards)
    assert g.hands[2] == cards[0::3] and g.hands[0] == cards[1::3] and g.hands[1] == cards[2::3]
    assert discard_pile(g) == ["Sleep", "Revolution"]
    assert g.pending.kind == "main" and g.pending.player == 2


def test_revolution_skips_players_who_left_and_shows_each_player_only_its_hand():
    g = pos([["Castle", "Death"], ["Sleep", "Study", "Merlin", "Wood Elf"], ["Revolution", "Timeshift"],
             ["Lighthouse"]], draw=DRAW, turn=2, alive=[True, True, True, False])
    g.hands[3] = []  # a player who left holds nothing
    play(g, "Revolution")
    assert [len(h) for h in g.hands] == [2, 2, 3, 0]
    assert g.result is None
    for p in range(3):
        dealt = [e for e in g.view(p)["events"] if e["type"] == "dealt"]
        assert dealt == [{"type": "dealt", "player": p, "cards": g.hands[p], "only": p}]


# ----------------------------------------------------------------- alternate win and loss
FOUR = ["Castle", "Fountain of Youth", "Stream of Life", "Guardian Angel"]


def test_strength_in_numbers_any_player_with_four_at_the_beginning_of_its_turn_wins():
    g = pos([["Death"], ["Sleep"]], draw=DRAW, in_play=[FOUR, ["Strength in Numbers"]], phase="begin")
    assert g.result.winners == [0] and g.result.reason == "Strength in Numbers"
    # the controller with four is not tested on another player's turn
    g = pos([["Death"], ["Sleep"]], draw=DRAW, in_play=[[], ["Strength in Numbers"] + FOUR[:3]], phase="begin")
    assert g.result is None and hand(g, 0) == ["Death", "Study"]


def test_strength_in_numbers_is_a_snapshot_even_if_a_card_is_destroyed_first():
    g = pos([["Death"], ["Sleep"]], draw=DRAW,
            in_play=[["Devious Dragon", "Castle", "Fountain of Youth", "Strength in Numbers"], []], phase="begin")
    assert g.pending.kind == "order"
    do(g, "card", "Devious Dragon")
    pick(g, "Castle")
    assert table(g, 0) == ["Devious Dragon", "Fountain of Youth", "Strength in Numbers"]
    assert g.result.winners == [0] and g.result.reason == "Strength in Numbers"


def test_strength_in_numbers_not_when_the_fourth_card_arrives_later():
    # the fourth card arrives during the beginning phase (after the snapshot): no win
    g = pos([["Death", "Castle"], ["Sleep"]], draw=DRAW,
            in_play=[["Angel of Hope", "Strength in Numbers", "Stream of Life"], []], phase="begin")
    assert g.pending.source == "Angel of Hope"
    g.in_play[0].append(g.hands[0].pop())  # a card enters play while the window is open
    g.apply("player:1")
    assert g.result is None and g.phase == "main"
    # the fourth card played in the main phase: no win then, nor at the end; at the next start, yes
    g = pos([["Death", "Castle", "Sleep"], ["Ferocity", "Timeshift"]], draw=DRAW,
            in_play=[["Strength in Numbers", "Stream of Life", "Fountain of Youth"], []])
    play(g, "Castle")
    assert g.result is None and len(g.in_play[0]) == 4
    g.apply("end")
    assert g.result is None and g.turn == 1
    g.apply("end")
    assert g.result.winners == [0] and g.result.reason == "Strength in Numbers"


def test_king_arthur_only_its_controller_wins_at_the_beginning_of_its_turn():
    g = pos([["Death"], ["Sleep"]], draw=DRAW, in_play=[["King Arthur"] + FOUR[:3], []], phase="begin")
    assert g.result.winners == [0] and g.result.reason == "King Arthur"
    g = pos([["Death"], ["Sleep"]], draw=DRAW, in_play=[FOUR, ["King Arthur"]], phase="begin")
    assert g.result is None
    # playing Arthur as the fourth card does not win at once nor at the end of the turn
    g = pos([["King Arthur", "Death"], ["Sleep", "Ferocity"]], draw=DRAW, in_play=[FOUR[:3], []])
    play(g, "King Arthur")
    g.apply("end")
    assert g.result is None and g.turn == 1
    g.apply("end")
    assert g.result.winners == [0] and g.result.reason == "King Arthur"


def test_king_arthur_wins_for_the_team():
    g = pos([["Death"], ["Sleep"], ["Study"], ["Merlin"]], draw=DRAW,
            in_play=[["King Arthur"] + FOUR[:3], [], [], []], phase="begin", teams=[[0, 2], [1, 3]])
    assert g.result.winners == [0, 2]


def test_alexander_the_great_an_opponent_with_four_at_the_end_of_its_turn_loses():
    g = pos([["Stream of Life", "Death"], ["Sleep"], ["Study"]], draw=DRAW,
            in_play=[FOUR[:3], [], ["Alexander the Great"]])
    play(g, "Stream of Life")
    assert g.alive == [True, True, True]  # not at once: at the end of the turn
    g.apply("end")
    assert g.alive == [False, True, True]
    assert g.result is None and g.turn == 1
    assert discard_pile(g)[-5:] == ["Death", "Castle", "Fountain of Youth", "Stream of Life", "Stream of Life"]
    # three cards: nothing; its own controller with four: nothing
    g = pos([["Death"], ["Sleep"]], draw=DRAW, in_play=[FOUR[:3], ["Alexander the Great"]])
    g.apply("end")
    assert g.alive == [True, True] and g.turn == 1
    g = pos([["Death"], ["Sleep"]], draw=DRAW, in_play=[["Alexander the Great"] + FOUR[:3], []])
    g.apply("end")
    assert g.alive == [True, True] and g.turn == 1


def test_alexander_the_great_spares_allies():
    g = pos([["Death"], ["Sleep"], ["Study"], ["Merlin"]], draw=DRAW,
            in_play=[FOUR, [], ["Alexander the Great"], []], teams=[[0, 2], [1, 3]])
    g.apply("end")
    assert all(g.alive) and g.turn == 1
    g = pos([["Death"], ["Sleep"], ["Study"], ["Merlin"]], draw=DRAW,
            in_play=[FOUR, ["Alexander the Great"], [], []], teams=[[0, 2], [1, 3]])
    g.apply("end")
    assert g.result.winners == [1, 3] and g.result.reason == "last_standing"


def test_crystal_palace_an_opponent_with_nine_in_hand_at_the_end_of_its_turn_loses():
    nine = ["Death", "Sleep", "Study", "Merlin", "Timeshift", "Ferocity", "Research", "Lighthouse", "Wood Elf"]
    g = pos([nine, ["Castle"]], draw=DRAW, in_play=[[], ["Crystal Palace"]])
    g.apply("end")
    assert g.result.winners == [1] and g.result.reason == "last_standing"
    assert g.result.points == [9, 0]
    # eight at the end: nothing (even though the draw phase of the next turn makes nine)
    g = pos([nine[:8], ["Castle"]], draw=DRAW, in_play=[[], ["Crystal Palace"]])
    g.apply("end")
    assert g.result is None and g.turn == 1
    # nine during the main phase but eight at the end: nothing
    g = pos([nine[:8] + ["Hurricane"], ["Castle"]], draw=DRAW, discard=["Oberon"], in_play=[[], ["Crystal Palace"]])
    play(g, "Hurricane")
    g.apply("done")
    g.apply("end")
    assert g.result is None and g.turn == 1
    # the controller itself is never tested
    g = pos([nine, ["Castle"]], draw=DRAW, in_play=[["Crystal Palace"], []])
    g.apply("end")
    assert g.result is None and g.turn == 1


# ----------------------------------------------------------------- robustness
def test_random_games_keep_every_card_and_survive_save_and_load():
    import random

    for s in range(40):
        players = 2 if s % 2 else 4
        g = engine.new_game("crazier-eights", players=players, seed=s,
                            options={"put_back_capped_by_drawn": s % 3 == 0})
        n = total_cards(g)
        rng = random.Random(s)
        steps = 0
        while g.pending is not None and steps < 600:
            g.apply(rng.choice(g.pending.options))
            steps += 1
            assert total_cards(g) == n
            if steps % 53 == 0:
                h = engine.load_game(json.loads(json.dumps(g.to_dict())))
                assert h.to_dict() == g.to_dict() and h.pending == g.pending
