"""What a careful reader of the output and the docs holds the tool to: the SPRT's lines and its
game limit, the default event of ``tourney standings``, the config reference's units, the
luck-adjusted why, and the example trainer's files."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app

ROOT = Path(__file__).resolve().parents[1]

#: an SPRT between equals that cannot answer within a few dozen games
UNDECIDED = ["greedy", "greedy", "--elo0", "0", "--elo1", "1", "--alpha", "0.001", "--beta", "0.001",
             "-j", "1"]


def sprt(db: Path, *args: str):
    result = CliRunner().invoke(app, ["sprt", *args, "--db", str(db)])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def test_the_sprt_verdict_is_printed_once(tmp_path):
    result = sprt(tmp_path / "t.db", "greedy", "random", "--elo1", "200", "--max-games", "64", "-j", "1")
    lines = (result.stdout + result.stderr).splitlines()
    verdicts = [line for line in lines if line.startswith("sprt [") and "running" not in line]
    assert len(verdicts) == 1, lines
    assert result.stdout.splitlines()[-1] == verdicts[0]


@pytest.mark.parametrize(("args", "games"), [
    (["--duplicate", "--max-games", "40"], 40),            # batches of 16 games: 32 + a cut batch of 8
    (["--duplicate", "--max-games", "13"], 12),            # whole pairs only
    (["--games-per-series", "2", "--max-games", "21"], 21),  # 16 + a batch of 5: series of 2, 2 and 1
    (["--max-games", "3"], 3),                             # below one batch
])
def test_the_sprt_plays_up_to_max_games(tmp_path, args, games):
    result = sprt(tmp_path / "t.db", *UNDECIDED, *args, "--json")
    out = json.loads(result.stdout)["sprt"]
    assert out["verdict"] == "inconclusive" and out["games"] == games


def test_the_sprt_help_says_how_games_come(tmp_path):
    result = CliRunner().invoke(app, ["sprt", "--help"], env={"COLUMNS": "300"})
    text = " ".join(result.stdout.split())
    assert "Games come in batches of 8" in text and "the last batch is cut to fit" in text


def test_standings_without_a_name_show_an_sprt_only_database(tmp_path):
    db = tmp_path / "t.db"
    sprt(db, "greedy", "random", "--elo1", "200", "--max-games", "16", "--name", "only-test")
    result = CliRunner().invoke(app, ["standings", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["event"] == "only-test"


def test_standings_still_skip_the_games_of_play(tmp_path):
    db = tmp_path / "t.db"
    assert CliRunner().invoke(app, ["play", "greedy", "random", "--db", str(db)]).exit_code == 0
    result = CliRunner().invoke(app, ["standings", "--db", str(db)])
    assert result.exit_code == 2 and "no event run from a config or by tourney sprt yet" in result.stderr


@pytest.mark.parametrize(("flag", "why"), [
    ("--luck-adjusted", "--luck-adjusted given on the command line"),
    # the flag that says the default stores nothing (older events keep their hash): the why is the default's
    ("--raw", "off by default for crazier-eights at 2 players (bench/luck.py figures do not hold yet)"),
])
def test_the_luck_adjusted_why_names_the_flag(tmp_path, flag, why):
    result = sprt(tmp_path / "t.db", "greedy", "random", flag, "--elo1", "200", "--max-games", "8", "--json")
    out = json.loads(result.stdout)["sprt"]
    assert out["luck_adjusted_why"] == why


def test_the_luck_adjusted_why_names_the_config(tmp_path):
    config = tmp_path / "lucky.toml"
    config.write_text('[event]\nname = "lucky"\nformat = "sprt"\nluck_adjusted = true\nmax_games = 8\n'
                      '[[entrants]]\nname = "a"\nbuiltin = "greedy"\n[[entrants]]\nname = "b"\nbuiltin = "random"\n')
    result = CliRunner().invoke(app, ["run", str(config), "--json", "-q", "--db", str(tmp_path / "t.db")])
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["sprt"]["luck_adjusted_why"] == f"luck_adjusted = true in {config}"
    assert out["luck"]["why"] == out["sprt"]["luck_adjusted_why"]


# -- the config reference: units from the format models ---------------------------------------


def test_the_unit_column_of_the_config_reference_is_each_formats_own():
    from tourney.formats import FORMATS

    doc = (ROOT / "docs" / "formats.md").read_text()
    listed: dict[str, set[str]] = {}
    for line in doc.splitlines():
        if line.startswith("| `unit` |"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            for fmt in re.findall(r"`([a-z-]+)`", cells[1]):
                listed[fmt] = set(re.findall(r'`"([a-z]+)"`', cells[2]))
    takes = {str(f.name): {str(u) for u in f.units} for f in FORMATS.values() if "unit" in f.settings.model_fields}
    assert listed == takes


def test_the_config_schema_refuses_a_unit_the_format_refuses():
    import jsonschema

    schema = json.loads((ROOT / "docs" / "schemas" / "config.schema.json").read_text())
    config = {"event": {"name": "e", "format": "round-robin", "unit": "single"},
              "entrants": [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "greedy"}]}
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(config))
    config["event"]["unit"] = "league"
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(config))


# -- help reads as flowing text -----------------------------------------------------------------


def commands():
    """Every command and group of the app, as its words (``[]`` the root)."""
    import typer.main

    def walk(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*path, name])

    return list(walk(typer.main.get_command(app), []))


def test_no_help_text_keeps_a_line_break_inside_a_paragraph():
    for path, command in commands():
        texts = [command.help, command.short_help, command.epilog] + [getattr(p, "help", None) for p in command.params]
        for text in filter(None, texts):
            assert "\n" not in text.replace("\n\n", ""), (path, text)


def prose_blocks(output: str) -> list[list[str]]:
    """The text outside the boxes of a Rich help screen (the description and the epilog), as
    runs of non-blank lines."""
    blocks, run, boxed = [], [], False
    for line in output.splitlines():
        line = line.rstrip()
        if line.lstrip().startswith("╭"):
            boxed = True
        if boxed or not line.strip() or line.lstrip().startswith("Usage:"):
            if run:
                blocks.append(run)
            run = []
        else:
            run.append(line)
        if line.lstrip().startswith("╰"):
            boxed = False
    return blocks + ([run] if run else [])


@pytest.mark.parametrize("width", [60, 200])
def test_every_help_flows_at_any_width(width):
    """A line of the description or the epilog ends only where the next word would not fit:
    greedy wrapping by the terminal, not a break written into the source."""
    runner = CliRunner()
    for path, _ in commands():
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(width), "TERMINAL_WIDTH": None})
        assert result.exit_code == 0, (path, result.stdout)
        for block in prose_blocks(result.stdout):
            for line, after in zip(block, block[1:]):
                assert len(line) + 1 + len(after.split()[0]) > width - 2, (path, width, line, after)


# -- the trainer writes under the current folder, and in a checkout where git ignores it ------------


def test_the_trainer_writes_its_files_under_the_current_folder_where_git_ignores_them():
    pytest.importorskip("numpy")
    pytest.importorskip("gymnasium")
    from tourney.rl import train

    for path in (train.DEFAULT_OUT, train.DEFAULT_OUT.with_name("policy_bot.toml")):
        assert not path.is_absolute()  # under the folder it runs from, wherever tourney is installed
        ignored = subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=ROOT)
        assert ignored.returncode == 0, f"{path}, run from a checkout, would show up in git status"


# -- docs are manuals --------------------------------------------------------------------------

#: the notes and the lab record may name issues; a manual speaks of the tool as it is
RECORDS = ("bench/RESULTS.md", "docs/notes/")
ISSUE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)


def test_no_doc_outside_the_notes_names_an_issue_number():
    tracked = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    pages = tracked or [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.md")]
    found = [f"{page}:{n}: {line.strip()}" for page in pages if not page.startswith(RECORDS)
             for n, line in enumerate((ROOT / page).read_text().splitlines(), 1) if ISSUE.search(line)]
    assert not found, "an issue number in a manual (move the record to bench/RESULTS.md):\n" + "\n".join(found)
    assert ISSUE.search("(issue 22, point 1)") and not ISSUE.search("fastchess's PR #426")


def test_the_manuals_speak_of_commands_that_exist():
    for page in ("docs/evaluation.md", "docs/scale.md"):
        text = (ROOT / page).read_text()
        assert "the coming `tourney" not in text, page
        assert "this session" not in text, page
