"""The published schemas (docs/schemas/) are current, are valid JSON Schema, and real output
validates against them; the config reference tables of docs/formats.md are current."""

from __future__ import annotations

import copy
import json
import sys
import textwrap
import tomllib
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "schemas"
sys.path.insert(0, str(ROOT / "scripts"))
import gen_config_docs  # noqa: E402
import gen_output_schemas  # noqa: E402


def validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((SCHEMAS / f"{name}.schema.json").read_text()))


def problems(name: str, document) -> list[str]:
    return [f"{list(e.path)}: {e.message}" for e in validator(name).iter_errors(document)]


# -- the files are current ------------------------------------------------------------------


def test_the_config_schema_and_the_reference_tables_are_current():
    assert (SCHEMAS / "config.schema.json").read_text() == gen_config_docs.schema_text(), (
        "docs/schemas/config.schema.json is stale: run python3 scripts/gen_config_docs.py")
    doc = (ROOT / "docs" / "formats.md").read_text()
    assert gen_config_docs.updated_doc(doc) == doc, (
        "the reference tables of docs/formats.md are stale: run python3 scripts/gen_config_docs.py")


@pytest.mark.parametrize("name", list(gen_output_schemas.SCHEMAS))
def test_the_output_schemas_are_current_and_valid(name):
    path = SCHEMAS / f"{name}.schema.json"
    assert path.read_text() == gen_output_schemas.text(name), (
        f"{path.name} is stale: run python3 scripts/gen_output_schemas.py")
    jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


def test_every_schema_file_is_published_by_a_generator():
    made = {f"{n}.schema.json" for n in gen_output_schemas.SCHEMAS} | {"config.schema.json"}
    assert {p.name for p in SCHEMAS.glob("*.json")} == made


# -- configs --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.toml")), ids=lambda p: p.name)
def test_the_shipped_configs_match_the_config_schema(path):
    assert problems("config", tomllib.loads(path.read_text())) == []


@pytest.mark.parametrize(("change", "where"), [
    ({"format": "ladder"}, ["event"]),
    ({"bye_score": 1}, ["event"]),            # a Swiss key in a round robin
    ({"players": 9}, ["event"]),
    ({"seed": "x"}, ["event"]),
])
def test_the_config_schema_refuses_what_tourney_refuses(change, where):
    from tourney.config import ConfigError, parse_config

    config = {"event": {"name": "e", "format": "round-robin", **change},
              "entrants": [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "greedy"}]}
    with pytest.raises(ConfigError):
        parse_config(copy.deepcopy(config))
    assert [list(e.path) for e in validator("config").iter_errors(config)] == [where]


# -- real output: every command with --json, in every mode --------------------------------------

#: every command that prints --json (as its words) and the schema its output follows
SCHEMA_OF = {
    "run": "run", "sprt": "sprt", "play": "play", "match": "match", "standings": "standings",
    "events": "events", "games": "games", "replay": "replay",
    **{f"club {c}": "club" for c in ("new", "add", "correct", "void", "restore", "withdraw", "join",
                                     "rename", "set", "standings")},
    "club list": "club-list", "club history": "club-history", "club games": "club-games",
    "club night": "club-night", "club code new": "club-code", "club code list": "club-codes",
    "ladder standings": "ladder", "ladder submit": "ladder-version", "ladder settle": "ladder-settle",
    "ladder run": "ladder-game", "ladder show": "ladder-show",
    "fairplay": "fairplay",
    "ladder code new": "ladder-code", "ladder code list": "ladder-codes",
}
#: commands with --json knowingly not run here, each with the reason (a command added on a
#: branch lands here until its schema and its run below are added)
SKIPPED: dict[str, str] = {}


def json_commands() -> list[str]:
    """Every command of the app that takes --json, found in the app itself, so that a new one is
    checked without anyone remembering to list it."""
    import typer.main

    found = []

    def walk(command, words):
        if any("--json" in getattr(p, "opts", []) for p in command.params):
            found.append(" ".join(words))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*words, name])

    walk(typer.main.get_command(app), [])
    return found


ENTRANTS = "".join(f'\n[[entrants]]\nname = "{n}"\nbuiltin = "{b}"\n'
                   for n, b in [("a", "greedy"), ("b", "random"), ("c", "random"), ("d", "greedy")])
TWO = 'entrants = ["a", "b"]'
#: one event per format and mode: every format, 2- and 4-player tables, duplicate, luck-adjusted
EVENTS = {
    "rr": 'format = "round-robin"\ngames = 1\nentrants = ["a", "b", "c"]',
    "rr-match": 'format = "round-robin"\nunit = "match"\ngames = 3\nentrants = ["a", "b", "c"]',
    "tables3": 'format = "round-robin"\nplayers = 3\ngames = 1\nentrants = ["a", "b", "c"]',
    "tables4": 'format = "round-robin"\nplayers = 4\ngames = 1',
    "gauntlet": 'format = "gauntlet"\ncandidates = ["a"]\ngames = 1',
    "sw": 'format = "swiss"\ngames = 1\nrounds = 2\nentrants = ["a", "b", "c"]',
    "ko": 'format = "knockout"\ngames = 1\nentrants = ["a", "b", "c"]',
    "single": f'format = "single"\n{TWO}',
    "single4": 'format = "single"',
    "match": f'format = "match"\n{TWO}\ngames = 3',
    "league4": 'format = "league"\ngames = 2',
    "dup": f'format = "match"\n{TWO}\ngames = 1\nduplicate = true',
    "dup-gauntlet": 'format = "gauntlet"\ncandidates = ["a"]\nunit = "single"\nduplicate = true\n'
                    'entrants = ["a", "b", "c"]',
    "ce": f'format = "league"\nrule_set = "crazy-eights"\n{TWO}\ngames = 0\n'
          '[event.options]\nseries = "target"\ntarget = 30',
    "luck": 'format = "round-robin"\ngames = 1\nluck_adjusted = true\nentrants = ["a", "b", "c"]',
    "luck4": 'format = "league"\ngames = 1\nluck_adjusted = true',
    "sprt-config": f'format = "sprt"\n{TWO}\nelo1 = 200\nmax_games = 16',
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(command words, JSON document) for every command with --json in every mode, from one
    scratch database holding an event of each format and mode, SPRTs and a club league."""
    tmp = tmp_path_factory.mktemp("schemas")
    db = str(tmp / "t.db")
    runner = CliRunner()
    commands = sorted(json_commands(), key=len, reverse=True)
    out: list[tuple[str, object]] = []

    def cli(*args):
        result = runner.invoke(app, [*args, "--db", db])
        assert result.exit_code == 0, (args, result.stdout, result.stderr)
        words = " ".join(a for a in args if not a.startswith("-"))
        command = next(c for c in commands if f"{words} ".startswith(f"{c} "))
        document = json.loads(result.stdout)
        out.append((command, document))
        return document

    for name, body in EVENTS.items():
        path = tmp / f"{name}.toml"
        path.write_text(textwrap.dedent(f'[event]\nname = "{name}"\nseed = 5\n{body}\n') + ENTRANTS)
        cli("run", str(path), "--json", "-q")
        cli("standings", name, "--json")
    cli("run", str(tmp / "rr.toml"), "--json", "-q")  # a resumed (finished) event
    cli("standings", "rr", "--reference", "a", "--json")
    cli("standings", "--json")
    for extra in ([], ["--duplicate"], ["--luck-adjusted"], ["--luck-adjusted", "--duplicate"]):
        cli("sprt", "greedy", "random", "--elo1", "200", "--max-games", "16", "-j", "1", *extra, "--json")
    cli("sprt", "greedy", "random", "--players", "3", "--elo1", "200", "--max-games", "12", "-j", "1", "--json")
    cli("play", "greedy", "random", "--json")
    cli("play", "greedy", "random", "random", "greedy", "--json")
    cli("play", "greedy", "random", "--rule-set", "super-crazy-eights", "--json")
    cli("match", "greedy", "random", "--json")
    cli("match", "greedy", "random", "--duplicate", "--json")
    cli("club", "new", "x", "--players", "Ann,Bob,Cy", "--json")
    cli("club", "add", "x", "--cards", "Ann=0,Bob=5,Cy=3", "--json")
    cli("club", "add", "x", "--cards", "Ann=4,Bob=0,Cy=elim:2", "--json")
    cli("club", "correct", "x", "1", "--cards", "Bob=4", "--yes", "--json")
    cli("club", "void", "x", "2", "--yes", "--json")
    cli("club", "restore", "x", "2", "--yes", "--json")
    cli("club", "join", "x", "Dan", "--start", "average", "--json")
    cli("club", "withdraw", "x", "Cy", "--yes", "--json")
    cli("club", "rename", "x", "Bobby", "--player", "Bob", "--json")
    cli("club", "set", "x", "--absence", "highest", "--json")
    cli("club", "standings", "x", "--json")
    cli("standings", "x", "--club", "--json")
    cli("club", "list", "--json")
    cli("club", "history", "x", "--json")
    cli("club", "games", "x", "--json")
    cli("club", "night", "x", "--tables", "1", "--json")
    cli("club", "code", "new", "x", "--json")
    cli("club", "code", "list", "x", "--json")
    cli("events", "--json")
    cli("games", "--json")
    cli("games", "--event", "tables4", "--json")
    cli("games", "--entrant", "a", "--limit", "2", "--json")
    runner.invoke(app, ["ladder", "new", "lad", "--seed", "2", "--db", db])
    for author, bot in (("ann", "greedy"), ("bo", "random")):
        cli("ladder", "submit", "lad", author, "--builtin", bot, "--json")
    lines = runner.invoke(app, ["ladder", "run", "lad", "--games", "6", "--json", "-j", "1", "--db", db]).stdout
    out.extend(("ladder run", json.loads(line)) for line in lines.splitlines())  # JSON Lines: one a game
    cli("ladder", "standings", "lad", "--json")
    runner.invoke(app, ["ladder", "set", "lad", "--memory-mb", "2048", "--db", db])
    cli("ladder", "show", "lad", "--json")
    cli("ladder", "code", "new", "lad", "ann", "--expires", "30d", "--json")
    cli("ladder", "code", "list", "lad", "--json")
    cli("ladder", "settle", "lad", "--top", "2", "--games", "4", "-q", "-j", "1", "--json")
    cli("fairplay", "tables4", "--json")
    cli("fairplay", "tables3", "--json")
    cli("fairplay", "rr", "--json")

    from tourney.results import store
    from tourney.web import pages

    database = store.open_db(db, readonly=True)
    for (game_id,) in database.execute("select min(id) from games group by event_id"):
        cli("replay", str(game_id), "--json")

    def twin(data):  # what the web app sends: the page's data as JSON
        return json.loads(json.dumps(data))

    out.append(("web-index", twin(pages.index_data(database))))
    out += [("web-event", twin(pages.event_data(database, e["id"], 1))) for e in database["events"].rows]
    out += [("web-entrant", twin(pages.entrant_data(database, e["id"], 1))) for e in database["entrants"].rows]
    out += [("web-game", twin(pages.game_data(database, gid)))
            for (gid,) in database.execute("select min(id) from games group by event_id")]
    out += [("web-league", twin(pages.league_data(database, row["id"]))) for row in database["club_leagues"].rows]
    return out


@pytest.fixture(scope="module")
def outputs(runs):
    """The documents of :func:`runs` by schema name."""
    by_schema: dict[str, list] = {}
    for command, document in runs:
        by_schema.setdefault(SCHEMA_OF.get(command, command), []).append(document)
    return by_schema


def test_every_json_command_has_a_schema():
    found = set(json_commands())
    missing = sorted(found - set(SCHEMA_OF) - set(SKIPPED))
    assert not missing, (
        f"{', '.join(f'tourney {c} --json' for c in missing)}: no schema. Declare its shape in "
        "scripts/gen_output_schemas.py, add the command to SCHEMA_OF and run it in the runs fixture "
        "of tests/test_schemas.py (or list it in SKIPPED with the reason)")
    assert not set(SCHEMA_OF) - found, f"SCHEMA_OF names commands the app no longer has: {set(SCHEMA_OF) - found}"
    assert not set(SKIPPED) & set(SCHEMA_OF)


def test_every_json_command_is_run(runs):
    ran = {command for command, _ in runs}
    assert set(SCHEMA_OF) <= ran, f"never run in the runs fixture: {sorted(set(SCHEMA_OF) - ran)}"


def test_every_mode_is_run(outputs):
    from tourney.formats import FORMATS

    runs_ = outputs["run"]
    assert {d["format"] for d in runs_} == {str(f.name) for f in FORMATS.values()}
    assert any(d["duplicate"] for d in runs_) and any(d["luck"]["on"] for d in runs_)
    assert {len(d["series"][0]["entrants"]) for d in runs_ if d["series"]} >= {2, 3, 4}
    assert {d["sprt"]["model"] for d in outputs["sprt"]} == {"trinomial", "pentanomial", "substitution",
                                                            "luck-adjusted"}


@pytest.mark.parametrize("name", list(gen_output_schemas.SCHEMAS))
def test_real_output_validates_against_its_schema(outputs, name):
    assert outputs.get(name), f"no output of {name} was produced"
    for document in outputs[name]:
        assert problems(name, document) == []


def test_each_format_adds_to_the_run_output_what_it_says_it_reports(outputs):
    from tourney.formats import get

    common = set(gen_output_schemas.Run.model_fields) - {"swiss", "bracket", "sprt"}
    for document in outputs["run"]:
        assert set(document) - common == set(get(document["format"]).reports), document["event"]
    by_event = {d["event"]: d for d in outputs["run"]}
    assert "swiss" in by_event["sw"] and "bracket" in by_event["ko"] and "swiss" not in by_event["rr"]
    assert outputs["sprt"][0]["sprt"]["games"] <= 16


def test_a_renamed_or_missing_field_breaks_the_schema(outputs):
    run = copy.deepcopy(outputs["run"][0])
    run["standings"][0]["player"] = run["standings"][0].pop("entrant")
    assert problems("run", run) == ["['standings', 0]: 'entrant' is a required property"]
    club = copy.deepcopy(outputs["club"][0])
    del club["next_first"]
    assert problems("club", club) == ["[]: 'next_first' is a required property"]


def test_club_json_speaks_the_same_version_as_standings(outputs):
    """club new/add/standings --json carry version 2's field names, so they say version 2,
    as tourney standings NAME --club --json does (issue 25, point 7)."""
    versions = {d["version"] for d in outputs["club"]} | {outputs["standings"][-1]["version"]}
    assert versions == {2}
    assert {"entrant", "points"} <= set(outputs["club"][0]["standings"][0])
    assert outputs["club"][0]["lower_points_better"] is True
