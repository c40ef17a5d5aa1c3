"""Issue 14, docs: each format's pile order and the view keys are as docs/positions.md states."""

from __future__ import annotations

import re
from pathlib import Path

from enginekit import discard_top_first, names, position

import engine
from engine.eights_family import card_id

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_crazier_position_and_to_dict_list_the_discard_pile_top_first_and_views_bottom_to_top():
    game = position([["Castle"], ["Death"]], draw=["Study", "Merlin"], discard=["Tempest", "Sleep", "Oberon"])
    assert discard_top_first(game) == ["Tempest", "Sleep", "Oberon"]  # the first card listed is the top
    saved = game.to_dict()
    assert names(game, saved["discard_pile"]) == ["Tempest", "Sleep", "Oberon"]
    assert names(game, saved["draw_pile"]) == ["Study", "Merlin"]
    view = game.view(0)
    assert names(game, view["discard_pile"]) == ["Oberon", "Sleep", "Tempest"]
    assert game.card_name(view["top"]) == "Tempest" and view["discard_pile"][-1] == view["top"]
    assert engine.load_game(saved).to_dict() == saved


def test_classic_position_lists_the_discard_pile_bottom_to_top_as_do_to_dict_and_views():
    game = engine.load_game({
        "rule_set": "crazy-eights", "position": True, "players": 2, "rest": "discard_pile",
        "hands": [["3H", "9C"], ["5D"]], "discard_pile": ["5C", "6H"], "draw_pile": ["KS", "QD"],
    })
    five_clubs, six_hearts = card_id("5C"), card_id("6H")
    view = game.view(0)
    assert view["top"] == six_hearts and view["discard_pile"][-2:] == [five_clubs, six_hearts]
    saved = game.to_dict()
    assert saved["discard"][-2:] == [five_clubs, six_hearts]
    assert saved["draw_pile"][-2:] == [card_id("QD"), card_id("KS")]  # the top is last
    game.apply(f"play:{card_id('3H')}")
    assert game.view(1)["top"] == card_id("3H") and game.view(1)["discard_pile"][-1] == card_id("3H")


def test_a_saved_named_colour_is_named_and_a_position_uses_named_colour():
    game = position([["Castle", "Sleep"], ["Death"]], draw=["Study"], discard=["Lancelot"],
                    named_colour="eye")
    eight = game.discard[-1]  # Lancelot, the moon eight
    assert game.to_dict()["named"] == [eight, "eye"] and game.view(0)["named_colour"] == "eye"


def test_positions_md_documents_every_key_of_the_crazier_eights_view():
    text = (DOCS / "positions.md").read_text(encoding="utf-8")
    table = text.split("## The view", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", table, re.M))
    game = position([["Trade", "Sleep"], ["Castle", "Death"]], draw=["Study", "Merlin"], discard=["Tempest"])
    game.apply(next(o for o in game.pending.options if o.startswith("play:")
                    and game.card_name(int(o[5:])) == "Trade"))
    game.apply("player:1")
    view = game.view(0)
    assert "looking_at" in view
    assert set(view) == documented


def test_positions_md_lists_every_result_reason_the_engine_gives():
    text = (DOCS / "positions.md").read_text(encoding="utf-8")
    table = text.split("## How a game ends", 1)[1]
    for reason in ("empty_hand", "impossible_draw", "last_standing", "all_lost", "King Arthur",
                   "Strength in Numbers", "out", "blocked", "forfeit"):
        assert f"`{reason}`" in table, reason
