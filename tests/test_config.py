"""Config files: every mistake is refused with one line naming file, place and problem."""

import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tourney.commands  # noqa: F401
from tourney.app import app
from tourney.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent

GOOD = """
[event]
name = "t"
format = "round-robin"
seed = 3
games = 1

[[entrants]]
name = "a"
builtin = "greedy"

[[entrants]]
name = "b"
builtin = "random"
"""


def write(tmp_path, text, name="event.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_good_config_loads(tmp_path):
    cfg = load_config(write(tmp_path, GOOD))
    assert cfg.event["format"] == "round-robin"
    assert cfg.event["unit"] == "match"
    assert [e["name"] for e in cfg.entrants] == ["a", "b"]


def test_shipped_configs_load():
    for path in sorted((ROOT / "configs").glob("*.toml")):
        load_config(path)


BAD = [
    ("syntax", GOOD.replace('seed = 3', 'seed = = 3'), "TOML syntax error"),
    ("unknown key", GOOD.replace('seed = 3', 'seed = 3\ncolour = "red"'), "event.colour: unknown key"),
    ("missing field", GOOD.replace('format = "round-robin"\n', ''), "missing field 'format'"),
    ("duplicate", GOOD.replace('name = "b"', 'name = "a"'), "duplicate entrant name 'a'"),
    ("command", GOOD + '\n[[entrants]]\nname = "c"\ncommand = ["/no/such/program"]\n',
     "program not found"),
    ("script", GOOD + '\n[[entrants]]\nname = "c"\ncommand = ["{python}", "nope.py"]\n',
     "script not found"),
    ("bad value", GOOD.replace("games = 1", "games = 2"), "odd number"),
    ("bad type", GOOD.replace("seed = 3", 'seed = "x"'), "event.seed: expected an integer"),
    ("bad format", GOOD.replace('"round-robin"', '"ladder"'), "unknown format 'ladder'"),
    ("bad bot", GOOD.replace('builtin = "random"', 'builtin = "clever"'), "unknown built-in bot"),
    ("bad limit", GOOD + '\n[limits]\ndecision_timeout = -1\n', "must be positive"),
    ("bad option", GOOD.replace("games = 1", "games = 1\noptions = { no_such_option = 1 }"),
     "event.options"),
]


@pytest.mark.parametrize("label,text,expected", BAD, ids=[b[0] for b in BAD])
def test_mistakes_are_one_clear_line(tmp_path, label, text, expected):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    assert expected in message


@pytest.mark.parametrize("label,text,expected", BAD[:5], ids=[b[0] for b in BAD[:5]])
def test_run_refuses_bad_config_exit_2_nothing_written(tmp_path, label, text, expected):
    path = write(tmp_path, text)
    db = tmp_path / "r.db"
    result = CliRunner().invoke(app, ["run", str(path), "--db", str(db)])
    assert result.exit_code == 2
    assert expected in result.stderr
    assert "Traceback" not in result.output
    assert not db.exists()


def test_missing_file(tmp_path):
    result = CliRunner().invoke(app, ["run", str(tmp_path / "none.toml"), "--db",
                                      str(tmp_path / "r.db")])
    assert result.exit_code == 2
    assert "no such file" in result.stderr


def test_init_writes_starter_and_never_overwrites(tmp_path):
    path = tmp_path / "new.toml"
    runner = CliRunner()
    assert runner.invoke(app, ["init", str(path)]).exit_code == 0
    original = path.read_text()
    cfg = load_config(path)  # its bot is there: init wrote it beside the config
    assert cfg.event["name"] == "my-event"
    assert (tmp_path / "my-bot" / "bot.py").is_file() and "examples/" not in original
    path.write_text(original + "\n# mine\n")
    again = runner.invoke(app, ["init", str(path)])
    assert again.exit_code == 2
    assert "already exists" in again.stderr
    assert path.read_text().endswith("# mine\n")


def test_the_cluster_address_is_read_and_is_not_part_of_the_event(tmp_path):
    from tourney.config import parse_config

    base = {"event": {"name": "e", "format": "single"},
            "entrants": [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "random"}]}
    local = parse_config(base)
    remote = parse_config({**base, "event": {**base["event"], "cluster": "tcp://10.0.0.5:8786"}})
    assert (local.cluster, remote.cluster) == (None, "tcp://10.0.0.5:8786")
    assert remote.canonical() == local.canonical()  # an event may move between them
    with pytest.raises(ConfigError, match=r"<config>: event.cluster: expected a scheduler address"):
        parse_config({**base, "event": {**base["event"], "cluster": 8786}})
