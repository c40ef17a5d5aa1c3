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


# -- real output ----------------------------------------------------------------------------

ENTRANTS = "".join(f'\n[[entrants]]\nname = "{n}"\nbuiltin = "{b}"\n'
                   for n, b in [("a", "greedy"), ("b", "random"), ("c", "random")])
EVENTS = {
    "rr": 'format = "round-robin"\ngames = 1',
    "tables": 'format = "round-robin"\nplayers = 3\ngames = 1',
    "sw": 'format = "swiss"\ngames = 1\nrounds = 2',
    "ko": 'format = "knockout"\ngames = 1',
    "dup": 'format = "match"\nentrants = ["a", "b"]\ngames = 1\nduplicate = true',
    "ce": 'format = "league"\nrule_set = "crazy-eights"\nentrants = ["a", "b"]\ngames = 0\n'
          '[event.options]\nseries = "target"\ntarget = 30',
}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Every JSON output of a scratch database holding an event of each format and a club league."""
    tmp = tmp_path_factory.mktemp("schemas")
    db = str(tmp / "t.db")
    runner = CliRunner()

    def cli(*args):
        result = runner.invoke(app, [*args, "--db", db])
        assert result.exit_code == 0, (args, result.stdout, result.stderr)
        return json.loads(result.stdout)

    out: dict[str, list] = {}
    for name, body in EVENTS.items():
        path = tmp / f"{name}.toml"
        path.write_text(textwrap.dedent(f'[event]\nname = "{name}"\nseed = 5\n{body}\n') + ENTRANTS)
        out.setdefault("run", []).append(cli("run", str(path), "--json", "-q"))
        out.setdefault("standings", []).append(cli("standings", name, "--json"))
    sprt = cli("sprt", "greedy", "random", "--elo1", "200", "--max-games", "16", "--name", "sp", "--json")
    out["sprt"] = [sprt]
    out["run"].append(cli("run", str(tmp / "rr.toml"), "--json", "-q"))  # a resumed (finished) event
    out["play"] = [cli("play", "greedy", "random", "--json"),
                   cli("play", "greedy", "random", "--rule-set", "super-crazy-eights", "--json")]
    out["match"] = [cli("match", "greedy", "random", "--json"),
                    cli("match", "greedy", "random", "--duplicate", "--json")]
    out["club"] = [cli("club", "new", "x", "--players", "Ann,Bob,Cy", "--json"),
                   cli("club", "add", "x", "--cards", "Ann=0,Bob=5,Cy=3", "--json"),
                   cli("club", "standings", "x", "--json")]
    out["standings"].append(cli("standings", "x", "--club", "--json"))
    out["events"] = [cli("events", "--json")]
    out["fairplay"] = [cli("fairplay", "tables", "--json"), cli("fairplay", "rr", "--json")]

    from tourney.results import store
    from tourney.web import pages

    database = store.open_db(db, readonly=True)
    first_game = database.execute("select min(id) from games").fetchone()[0]

    def twin(data):  # what the web app sends: the page's data as JSON
        return json.loads(json.dumps(data))

    out["web-index"] = [twin(pages.index_data(database))]
    out["web-event"] = [twin(pages.event_data(database, e["id"], 1)) for e in database["events"].rows]
    out["web-entrant"] = [twin(pages.entrant_data(database, e["id"], 1)) for e in database["entrants"].rows]
    out["web-game"] = [twin(pages.game_data(database, first_game))]
    out["web-league"] = [twin(pages.league_data(database, 1))]
    return out


@pytest.mark.parametrize("name", list(gen_output_schemas.SCHEMAS))
def test_real_output_validates_against_its_schema(outputs, name):
    assert outputs[name], name
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
