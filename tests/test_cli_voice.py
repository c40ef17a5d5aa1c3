"""One CLI voice: every command's help shows an example and the one exit-code table, user mistakes
exit 2 with one line and no traceback, checks that fail exit 3, bugs exit 1, and events can be
listed and removed."""

import json

import pytest
import typer
from typer.testing import CliRunner

import tourney
import tourney.commands
from tourney.app import app
from tourney.errors import EXIT_CODES, exit_codes_help


def invoke(*args):
    return CliRunner().invoke(app, list(args))


def all_commands():
    def walk(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*path, name])
    yield from walk(typer.main.get_command(app), [])


@pytest.mark.parametrize("path", [p for p, _ in all_commands()], ids=lambda p: " ".join(p) or "tourney")
def test_every_help_has_an_example_and_the_exit_codes(path):
    short = invoke(*path, "-h")
    long = invoke(*path, "--help")
    assert short.exit_code == 0 and short.stdout == long.stdout
    assert "Example" in long.stdout
    flat = " ".join(long.stdout.split())  # rich wraps the epilog
    assert " ".join(exit_codes_help().split()) in flat.replace("│", "").replace("  ", " ")


def test_the_table_names_every_code_the_cli_uses():
    assert sorted(EXIT_CODES) == [0, 1, 2, 3, 130, 143]


def test_version():
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout == f"tourney {tourney.__version__}\n"


@pytest.mark.parametrize("args, message", [
    (["demo", "--players", "9"], "error: crazier-eights is for 2 to 8 players, not 9"),
    (["demo", "--rule-set", "nope"], "error: unknown rule set 'nope'"),
    (["games", "--event", "nosuch"], "error: no event named 'nosuch'"),
    (["games", "--entrant", "nobody"], "error: no entrant named 'nobody'"),
    (["replay", "99"], "error: no game with id 99"),
    (["standings", "nosuch"], "error: no event named 'nosuch'"),
    (["events", "delete", "nosuch", "--yes"], "error: no event named 'nosuch'"),
])
def test_user_mistakes_exit_2_with_one_line(tmp_path, monkeypatch, args, message):
    monkeypatch.setenv("TOURNEY_DB", str(tmp_path / "t.db"))
    assert invoke("play", "greedy", "random", "--json").exit_code == 0
    r = invoke(*args)
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith(message) and r.stderr.count("\n") == 1
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_a_missing_database_is_the_same_user_error_everywhere(tmp_path):
    missing = str(tmp_path / "none.db")
    for args in (["standings"], ["games"], ["replay", "1"], ["report"], ["events"], ["club", "list"]):
        r = invoke(*args, "--db", missing)
        assert r.exit_code == 2 and "no such database" in r.stderr, args
    assert not (tmp_path / "none.db").exists()


def test_a_replay_that_differs_from_the_stored_result_exits_3(tmp_path):
    from tourney.results.store import open_db

    db = str(tmp_path / "t.db")
    assert invoke("play", "greedy", "random", "--db", db, "--seed", "5", "--json").exit_code == 0
    database = open_db(db)
    stored = json.loads(database["games"].get(1)["winners"])
    database["games"].update(1, {"winners": json.dumps([1 - stored[0]])})  # tamper with the result
    r = invoke("replay", "1", "--db", db)
    assert r.exit_code == 3 and r.stderr == "error: the replay does not match the stored result\n"


def test_a_bug_exits_1_with_its_traceback(tmp_path, monkeypatch):
    from tourney.results import store

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(store, "list_events", broken)
    assert invoke("play", "greedy", "random", "--db", str(tmp_path / "t.db")).exit_code == 0
    r = invoke("events", "--db", str(tmp_path / "t.db"))
    assert r.exit_code == 1 and isinstance(r.exception, RuntimeError)


def test_events_lists_and_deletes(tmp_path, monkeypatch):
    monkeypatch.setenv("TOURNEY_DB", str(tmp_path / "t.db"))
    assert invoke("play", "greedy", "random", "--name", "one", "--json").exit_code == 0
    assert invoke("match", "greedy", "random", "--name", "two", "--json").exit_code == 0
    listed = json.loads(invoke("events", "--json").stdout)["events"]
    assert [(e["name"], e["format"], e["status"], e["source"]) for e in listed] == [
        ("one", "single", "finished", "command line"), ("two", "match", "finished", "command line")]
    assert listed[0]["games"] == 1 and listed[1]["games"] >= 2
    table = invoke("events").stdout.splitlines()
    assert table[0].split() == ["event", "format", "rule", "set", "games", "state", "source", "created"]
    refused = invoke("events", "delete", "one")  # no terminal: no confirmation, nothing deleted
    assert refused.exit_code == 2 and "--yes" in refused.stderr
    assert len(json.loads(invoke("events", "--json").stdout)["events"]) == 2
    done = invoke("events", "delete", "one", "--yes")
    assert done.exit_code == 0 and done.stderr == "deleted event 'one' (1 games)\n"
    assert [e["name"] for e in json.loads(invoke("events", "--json").stdout)["events"]] == ["two"]


def test_standings_default_to_the_latest_run_not_a_throwaway_play(tmp_path, monkeypatch):
    from pathlib import Path

    monkeypatch.setenv("TOURNEY_DB", str(tmp_path / "t.db"))
    assert invoke("play", "greedy", "random").exit_code == 0
    r = invoke("standings")
    assert r.exit_code == 2 and "no event run from a config or by tourney sprt yet" in r.stderr
    config = Path(__file__).parent.parent / "configs" / "single.toml"
    assert invoke("run", str(config), "--json").exit_code == 0
    assert invoke("play", "greedy", "random").exit_code == 0  # newer, but thrown away
    data = json.loads(invoke("standings", "--json").stdout)
    assert data["event"] == json.loads(invoke("run", str(config), "--json").stdout)["event"]

