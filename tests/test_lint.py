"""The code checks CI runs with the tests: ruff (the rules chosen in pyproject.toml) and mypy on
engine/ and tourney/ both report nothing. The doctests of engine/ and tourney/ run with the suite
(pytest's ``--doctest-modules`` in pyproject.toml)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing():
    done = run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing_in_engine_and_tourney():
    done = run("mypy")  # packages and settings: [tool.mypy] in pyproject.toml
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout
