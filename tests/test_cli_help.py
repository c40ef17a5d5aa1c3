"""``tourney --help`` (issue 39, point 8; issue 43, point 5): one line per command, the detail in
each command's own help, a newcomer pointed to ``init`` and ``new-bot``, and an example that works
from an empty folder with tourney installed from its wheel."""

from __future__ import annotations

import re
import subprocess

from installed import installed_tourney
from typer.testing import CliRunner

from tourney.app import SUMMARIES
from tourney.cli import app


def top_help() -> str:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "80", "TERMINAL_WIDTH": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def commands_panel(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "Commands" in line and line.startswith("╭"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("╰"))
    return lines[start + 1:end]


def test_every_command_has_one_line_in_the_top_help():
    panel = commands_panel(top_help())
    names = [line.split()[1] for line in panel]
    assert sorted(names) == sorted(SUMMARIES), "a command without its line, or a line wrapped onto a second one"
    for line in panel:
        name = line.split()[1]
        assert SUMMARIES[name] in line, line


def test_the_detail_stays_in_each_command_s_own_help():
    result = CliRunner().invoke(app, ["check", "--help"], env={"COLUMNS": "200"})
    assert "tell you plainly what is wrong" in result.output
    assert "tell you plainly" not in top_help()


def test_the_top_help_points_a_newcomer_to_init_and_new_bot():
    text = " ".join(top_help().split())
    assert "New here? Start with tourney init" in text and "tourney new-bot NAME" in text


def test_the_top_help_s_example_works_from_an_empty_folder(tmp_path):
    """The example is run as printed, with tourney from its wheel: nothing of the checkout helps."""
    tourney = installed_tourney()
    text = " ".join(top_help().split())
    example = re.search(r"Example, in an empty folder: (.+?tourney\.toml)", text).group(1)
    folder = tmp_path / "newcomer"
    folder.mkdir()
    folder.chmod(0o755)  # bots run as nobody when the tests run as root
    done = subprocess.run(["bash", "-c", example], cwd=folder, env=tourney.env(), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "my-bot" in done.stdout
