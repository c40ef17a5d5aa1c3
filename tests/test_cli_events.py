"""The event commands through CliRunner, asserting on --json output."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tourney.commands  # noqa: F401
from tourney import narrate
from tourney.app import app

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = str(ROOT / "examples" / "bots" / "random_bot.py")
COMMANDS = ["init", "run", "play", "match", "games", "replay"]


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "t.db"
    monkeypatch.setenv("TOURNEY_DB", str(path))
    return path


def invoke(*args):
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(command):
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout
    assert "Exit codes" in result.stdout


def test_play_json_and_log(db):
    result = invoke("play", "greedy", RANDOM_BOT, "random", "--seed", "4", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [s["entrant"] for s in data["seats"]] == ["greedy", "random_bot", "random"]
    first_placed = [s["entrant"] for s in data["seats"] if s["placement"] == 1]
    assert data["winners"] == first_placed and data["reason"]
    assert all(s["points"] == 0 for s in data["seats"] if s["entrant"] in data["winners"])
    # the same game as text: the referee's log as it goes, then the result line
    game = json.loads(invoke("play", "greedy", "random", "--seed", "4", "--public-seeds", "--json").stdout)
    text = invoke("play", "greedy", "random", "--seed", "4", "--public-seeds")
    assert text.exit_code == 0
    lines = text.stdout.splitlines()
    assert lines[0].startswith("game: crazier-eights, seed ")
    (winner,) = game["winners"]
    reason = narrate.reason_words(game["reason"])
    assert f"game over: {winner} wins ({reason})" in lines
    points = ", ".join(f"{s['entrant']} {s['points']}" for s in game["seats"])
    assert lines[-1] == f"result: {winner} wins ({reason}); points (fewer is better): {points}"
    assert sum(line.startswith("result:") for line in lines) == 1


def test_play_unknown_entrant_is_exit_2(db):
    result = invoke("play", "greedy", "no-such-bot")
    assert result.exit_code == 2
    assert "no-such-bot" in result.stderr and "Traceback" not in result.output


def test_match_json_series(db):
    result = invoke("match", "greedy", "random", "--best-of", "5", "--seed", "2", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    games = data["games"]
    assert data["best_of"] == 5
    # the tally of the games listed: the match stops at the game that gives someone 3 wins
    tally = dict.fromkeys((e["entrant"] for e in data["entrants"]), 0)
    for gm in games:
        assert max(tally.values()) < 3, "a game was played after the match was decided"
        for name in gm["winners"]:
            tally[name] += 1
    assert {e["entrant"]: e["wins"] for e in data["entrants"]} == tally
    decided = [name for name, wins in tally.items() if wins == 3]
    assert (data["outcome"], data["winner"]) == (("win", decided[0]) if decided else ("draw", None))
    # after game 1 the loser of the previous game goes first
    seat = {e["entrant"]: e["seat"] for e in data["entrants"]}
    after_a_win = [(prev, cur) for prev, cur in zip(games, games[1:]) if prev["winners"]]
    assert after_a_win
    for prev, cur in after_a_win:
        assert cur["first_player"] == 1 - seat[prev["winners"][0]]


def test_match_of_legs_to_100(db):
    args = ("match", "greedy", "random", "--rule-set", "crazy-eights", "-o", "series=target",
            "--seed", "3", "--public-seeds")  # the two events below deal the same cards
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("leg 1, game 1: first ")
    assert "leg 1 won by " in result.stdout
    data = json.loads(invoke(*args, "--json", "--name", "again").stdout)
    legs = sorted({g["leg"] for g in data["games"]})
    assert data["legs"] == len(legs) and legs == list(range(len(legs)))
    assert len(data["games"]) > data["legs"]  # a leg to 100 takes several deals
    assert lines[-1] == (f"match: {data['winner']} wins, " + " - ".join(
        f"{e['entrant']} {e['wins']}" for e in data["entrants"])
        + f" in {data['legs']} legs ({len(data['games'])} deals)")


def test_run_of_a_legs_match_prints_legs(db):
    config = str(ROOT / "configs" / "crazy-eights-match.toml")
    result = invoke("run", config, "--quiet")
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if line.lstrip().startswith("rank") and "entrant" in line)
    assert "legs" in header
    data = json.loads(invoke("run", config, "--json").stdout)  # the stored event, again
    series = data["series"][0]
    assert series["legs"] >= 2 and series["games"] > series["legs"]
    assert sorted(r["series"]["legs_won"] for r in data["standings"])[-1] == 2
    plain = invoke("run", str(ROOT / "configs" / "match.toml"), "--quiet")
    assert "legs" not in plain.stdout.split("entrant")[1].splitlines()[0]  # one deal per leg: no legs column


def test_match_even_best_of_is_refused(db):
    result = invoke("match", "greedy", "random", "--best-of", "4")
    assert result.exit_code == 2 and "odd" in result.stderr


def test_run_games_replay(db, tmp_path):
    cfg = tmp_path / "e.toml"
    cfg.write_text(f"""
[event]
name = "cli"
format = "round-robin"
seed = 8
games = 1

[[entrants]]
name = "g"
builtin = "greedy"

[[entrants]]
name = "r"
builtin = "random"

[[entrants]]
name = "py"
command = ["{{python}}", "{RANDOM_BOT}"]
""")
    result = invoke("run", str(cfg), "--json", "-j", "1")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["status"] == "finished" and len(data["series"]) == 3
    assert sorted(s["entrant"] for s in data["standings"]) == ["g", "py", "r"]
    assert {"rank", "series", "wins", "points", "faults", "rating"} <= set(data["standings"][0])

    games = json.loads(invoke("games", "--event", "cli", "--json").stdout)["games"]
    assert len(games) == data["games"]
    only_py = json.loads(invoke("games", "--entrant", "py", "--json").stdout)["games"]
    assert only_py and all(any(s["entrant"] == "py" for s in g["seats"]) for g in only_py)
    unknown = invoke("games", "--event", "nope", "--json")
    assert unknown.exit_code == 2 and unknown.stdout == "" and "no event named 'nope'" in unknown.stderr
    # pages of 2 follow each other without gap or overlap, and the last one says so
    pages, offset = [], 0
    while offset is not None:
        page = json.loads(invoke("games", "--event", "cli", "--json", "--limit", "2",
                                 "--offset", str(offset)).stdout)
        assert len(page["games"]) <= 2 and page["offset"] == offset
        pages.append(page["games"])
        offset = page["next_offset"]
    assert [g["id"] for p in pages for g in p] == [g["id"] for g in games]
    assert len(pages) == (len(games) + 1) // 2  # no empty page after a full one

    for g in games:
        rep = invoke("replay", str(g["id"]), "--json")
        assert rep.exit_code == 0, rep.output
        r = json.loads(rep.stdout)
        assert r["matches_stored"] is True
        assert [r["seats"][w] for w in r["result"]["winners"]] == g["winners"]
    text = invoke("replay", str(games[0]["id"]))
    assert text.exit_code == 0 and len(text.stdout.splitlines()) > 3
    assert invoke("replay", "99999").exit_code == 2


def test_changed_config_is_refused_unless_restart(db, tmp_path):
    cfg = tmp_path / "e.toml"
    body = ('[event]\nname = "c"\nformat = "match"\nseed = {}\ngames = 1\n'
            '[[entrants]]\nname = "g"\nbuiltin = "greedy"\n'
            '[[entrants]]\nname = "r"\nbuiltin = "random"\n')
    cfg.write_text(body.format(1))
    assert invoke("run", str(cfg), "--json", "-q").exit_code == 0
    cfg.write_text(body.format(2))
    refused = invoke("run", str(cfg), "--json", "-q")
    assert refused.exit_code == 2 and "different config" in refused.stderr
    again = invoke("run", str(cfg), "--json", "-q", "--restart")
    assert again.exit_code == 0 and json.loads(again.stdout)["seed"] == 2


def test_games_without_database_is_exit_2(tmp_path):
    result = invoke("games", "--db", str(tmp_path / "none.db"))
    assert result.exit_code == 2 and "no such database" in result.stderr
