"""The optional compiled engine (setup.py, docs/scale.md): it replays seeded games byte for byte as
pure Python does, a failed compile leaves pure Python with one warning, and a plain build compiles
nothing and asks for no mypy.

The compiled copy is built in a temporary folder, never in the source tree: the rest of the suite
imports pure Python. CI compares 200 games per set below (a few hundred per rule set);
``TOURNEY_HYPOTHESIS=deep`` compares 2,000 games of every set of scripts/replay_hash.py, and
``python3 scripts/compiled_identity.py`` 10,000.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("compiled_identity", ROOT / "scripts" / "compiled_identity.py")
assert _spec is not None and _spec.loader is not None
compiled_identity = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compiled_identity)

pytest.importorskip("mypyc", reason="the compiled build needs mypy (the test extra installs it)")
_CC = (sysconfig.get_config_var("CC") or "cc").split()[0]
if shutil.which(os.environ.get("CC", _CC)) is None:
    pytest.skip("no C compiler: the compiled build cannot be made here", allow_module_level=True)

DEEP = os.environ.get("TOURNEY_HYPOTHESIS") == "deep"
SETS = (
    list(compiled_identity._load("replay_hash").SETS)
    if DEEP
    else ["crazy-eights/2", "crazy-eights/4", "super-crazy-eights/2", "super-crazy-eights/3", "crazier-eights/2"]
)
GAMES = 2000 if DEEP else 200


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    return compiled_identity.build_compiled_copy(tmp_path_factory.mktemp("compiled"))


def test_the_copy_runs_compiled_modules_and_the_suite_runs_pure_python(compiled):
    import engine

    assert engine.COMPILED is False and engine.compiled_modules() == {}
    running = compiled_identity._load("compiled_engine").running_build(compiled)
    assert {"engine.eights_family", "engine.crazy_eights", "engine.super_crazy_eights"} <= set(running)
    assert not list(ROOT.glob("engine/*.so")), "the compiled build must not land in the source tree"


def test_both_builds_replay_seeded_games_byte_for_byte(compiled):
    lines: list[str] = []
    total, different = compiled_identity.compare(compiled, SETS, GAMES, show=lambda *a, **k: lines.append(a[0]))
    assert (total, different) == (GAMES * len(SETS), 0), lines


def test_saving_loading_and_copying_agree_across_builds(compiled):
    """A game saved by one build loads in the other and plays on to the same end."""
    code = """
import copy, json, pickle, sys
sys.path.insert(0, sys.argv[1])
import engine
from engine.bots import RandomBot
out = []
for rule_set, players in (("crazy-eights", 3), ("super-crazy-eights", 2)):
    game = engine.new_game(rule_set, players=players, seed=11)
    bot = RandomBot(5)
    for _ in range(15):
        game.apply(bot.choose(game.pending, lambda: {}))
    saved = json.dumps(game.to_dict(), sort_keys=True)
    twin = engine.load_game(json.loads(saved))
    for other in (twin, copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
        assert json.dumps(other.to_dict(), sort_keys=True) == saved
    out.append(saved)
print(json.dumps(out))
"""
    pure, fast = (
        subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True).stdout
        for root in (ROOT, compiled)
    )
    assert pure == fast


def _build(tree: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=tree, env={**os.environ, **env}, capture_output=True, text=True,
    )


def _source_copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "engine", tmp_path / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for name in ("setup.py", "pyproject.toml", "README.md", "tourney/__init__.py", "build_tools/tourney_build.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    return tmp_path


def test_a_failed_compile_leaves_pure_python_and_one_warning(tmp_path):
    tree = _source_copy(tmp_path)
    done = _build(tree, TOURNEY_COMPILE="1", CC="/bin/false")  # a C compiler that always fails
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("WARNING: tourney: the compiled engine was not built") == 1, done.stderr
    assert not list(tree.glob("**/*.so"))
    assert compiled_identity._load("compiled_engine").running_build(tree) == []


def test_a_plain_build_compiles_nothing_and_needs_no_mypy(tmp_path):
    tree = _source_copy(tmp_path)
    done = _build(tree)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr and not list(tree.glob("**/*.so"))
    ask = (
        "import sys; sys.path.insert(0, 'build_tools'); import tourney_build;"
        " print(tourney_build.get_requires_for_build_editable())"
    )
    plain, wanted = (
        subprocess.run([sys.executable, "-c", ask], cwd=tree, env={**os.environ, **env}, capture_output=True,
                       text=True, check=True).stdout
        for env in ({"TOURNEY_COMPILE": ""}, {"TOURNEY_COMPILE": "1"})
    )
    assert "mypy" not in plain and "mypy>=1.10" in wanted
