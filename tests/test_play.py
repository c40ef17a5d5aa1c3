"""``tourney play`` reports the whole game as the rule set defines it: one deal, or a leg of deals."""

import json

from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.results import store


def invoke(*args):
    return CliRunner().invoke(app, list(args))


def test_a_game_of_fifteen_deals_is_reported_as_the_leg(tmp_path):
    db = str(tmp_path / "t.db")
    # public seeds: the same --seed deals the same cards in each of the three events below
    r = invoke("play", "greedy", "random", "--rule-set", "super-crazy-eights", "--seed", "4", "--db", db,
               "--name", "p", "--json", "--public-seeds")
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    games = store.list_games(store.open_db(db), event="p")
    assert len(got["deals"]) == len(games) == 15
    assert [d["game_id"] for d in got["deals"]] == [g["id"] for g in games]
    assert got["game_id"] == games[0]["id"] and got["seed"] == games[0]["seed"]
    totals = [sum(g["seats"][s]["points"] for g in games) for s in (0, 1)]
    assert [s["points"] for s in got["seats"]] == totals
    best = min(range(2), key=lambda s: totals[s])  # super-crazy-eights: the lower total wins the leg
    assert got["winners"] == [["greedy", "random"][best]]
    assert got["reason"] == "leg_totals"
    assert [s["placement"] for s in got["seats"]] == [1 if s == best else 2 for s in (0, 1)]
    match = json.loads(invoke("match", "greedy", "random", "--rule-set", "super-crazy-eights", "--seed", "4",
                              "--best-of", "1", "--db", db, "--json", "--public-seeds").stdout)
    assert match["winner"] == got["winners"][0]  # the same leg, reported the same way

    text = invoke("play", "greedy", "random", "--rule-set", "super-crazy-eights", "--seed", "4", "--db", db,
                  "--public-seeds")
    last = text.stdout.splitlines()[-1]
    assert last == (f"result: {got['winners'][0]} wins (decided on the totals of 15 deals); points (fewer is better): "
                    f"greedy {totals[0]}, random {totals[1]}")


def test_a_single_deal_game_is_that_deal(tmp_path):
    db = str(tmp_path / "t.db")
    got = json.loads(invoke("play", "greedy", "random", "--seed", "3", "--db", db, "--name", "one", "--json").stdout)
    (game,) = store.list_games(store.open_db(db), event="one")
    assert got["game_id"] == game["id"] and len(got["deals"]) == 1
    assert got["reason"] == game["reason"] != "leg_totals"
    assert got["winners"] == [game["seats"][w]["entrant"] for w in game["winners"]]
    assert [s["points"] for s in got["seats"]] == [s["points"] for s in game["seats"]]
