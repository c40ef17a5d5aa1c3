"""The console script imports only the module of the command it runs (start-up is part of every
verdict's time), and still knows every command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import COMMAND_MODULES, app
from tourney.cli import command_module

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import sys
sys.argv = ["tourney", *sys.argv[1:]]
from tourney.cli import main
try:
    main()
except SystemExit:
    pass
print("numpy" in sys.modules, file=sys.stderr)
print(sorted(m for m in sys.modules if m.startswith("tourney.commands.")), file=sys.stderr)
"""


def loaded(*argv: str) -> tuple[str, list[str], bool]:
    """What ``tourney ARGV`` printed, the command modules it imported, and whether numpy."""
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}, timeout=120)
    *_, numpy, modules = done.stderr.strip().splitlines()  # the probe's own last lines
    return done.stdout, eval(modules), numpy == "True"


def test_the_table_names_the_module_of_every_command():
    registered = {(c.name or c.callback.__name__).replace("_", "-"): c.callback.__module__
                  for c in app.registered_commands}
    registered.update({g.name: g.typer_instance.registered_commands[0].callback.__module__
                       for g in app.registered_groups})
    assert {name: f"tourney.commands.{module}" for name, module in COMMAND_MODULES.items()} == registered


def test_a_command_word_picks_its_module_and_an_option_first_picks_none():
    assert command_module(["sprt", "a", "b"]) == "sprt"
    assert command_module(["export-bot", "x"]) == "export_bot"
    assert command_module(["--help", "sprt"]) is None
    assert command_module(["no-such-command"]) is None
    assert command_module([]) is None


def test_a_run_loads_its_command_alone_and_the_help_of_tourney_lists_every_command():
    out, modules, numpy = loaded("sprt", "--help")
    assert "--elo1" in out
    assert "tourney.commands.sprt" in modules and "tourney.commands.club" not in modules
    assert "tourney.commands.check" not in modules
    assert not numpy  # sqlite-utils imported without it (tourney.cli.NoNumpy)
    out, modules, _ = loaded("--help")
    assert {f"tourney.commands.{m}" for m in COMMAND_MODULES.values()} <= set(modules)
    assert all(name in out for name in COMMAND_MODULES)


def test_sqlite_utils_without_numpy_stores_a_test_and_numpy_stays_importable(tmp_path):
    probe = PROBE + "import sqlite_utils.db, numpy\nprint(sqlite_utils.db.np is None, file=sys.stderr)\n"
    db = tmp_path / "t.db"
    done = subprocess.run([sys.executable, "-c", probe, "sprt", "greedy", "random", "--max-games", "8", "-j", "1",
                           "--db", str(db), "--json"], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert '"verdict"' in done.stdout, done.stderr
    *_, numpy_before, _, without = done.stderr.strip().splitlines()
    assert numpy_before == "False" and without == "True"
