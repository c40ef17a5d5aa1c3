"""The compiled engine and the pure-Python one replay every seeded game byte for byte (issue 22).

    python3 scripts/compiled_identity.py                 # 10,000 games per set, a fresh compiled copy
    python3 scripts/compiled_identity.py --games 300 --only crazy-eights/2
    python3 scripts/compiled_identity.py --compiled DIR  # use a compiled copy built before (--keep)

A compiled copy of this tree's engine is built in a temporary folder (setup.py with
``TOURNEY_COMPILE=1``: mypy, which ships mypyc, and a C compiler are needed), never in the source
tree. Then every set of scripts/replay_hash.py (a rule set and a player count) plays the same seeded
games under both builds, each in a process of its own (both cannot be imported in one), and the
bytes that script hashes for each game (choices, result, saved state, views) are compared game by
game. The last line is ``games=<int> different=<int>``; the exit status is 1 when a game differs.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = 10_000

#: what setup.py needs besides engine/ (the package's metadata: its version and readme)
_BUILD_FILES = ("setup.py", "pyproject.toml", "README.md", "tourney/__init__.py")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_compiled_copy(dest: Path) -> Path:
    """Copy the engine's sources to ``dest`` and compile them there; ``dest`` is returned. Raises
    RuntimeError with the build's output when no compiled module comes out."""
    shutil.copytree(ROOT / "engine", dest / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    for name in _BUILD_FILES:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    done = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=dest, env={**os.environ, "TOURNEY_COMPILE": "1"}, capture_output=True, text=True,
    )
    if not _load("compiled_engine").running_build(dest):
        raise RuntimeError(f"the compiled build failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    return dest


def _worker(root: str, name: str, games: int) -> None:
    """Print which build runs, then the hex digest of each game's record, one a line, with
    ``root``'s engine."""
    sys.path.insert(0, root)
    import engine  # imported first: replay_hash's own path insert then finds it loaded

    replay_hash = _load("replay_hash")
    rule_set, _, players = name.partition("/")
    out = sys.stdout
    out.write(f"compiled={engine.COMPILED}\n")
    for seed in range(games):
        out.write(replay_hash.game_record(rule_set, int(players), seed).hex() + "\n")


def compare(compiled: Path, names: list[str], games: int, show=print) -> tuple[int, int]:
    """(games played per build, games whose records differ) over the sets ``names``."""
    total = different = 0
    for name in names:
        runs = [
            subprocess.Popen(
                [sys.executable, __file__, "--worker", str(root), "--only", name, "--games", str(games)],
                stdout=subprocess.PIPE, text=True,
            )
            for root in (ROOT, compiled)
        ]
        pure, fast = (run.communicate()[0].split() for run in runs)
        if any(run.returncode for run in runs) or len(pure) != games + 1 or len(fast) != games + 1:
            raise RuntimeError(f"{name}: a build's run failed")
        # each side must run the build it stands for (a tree with the compiled build installed
        # in it would compare the compiled engine with itself)
        if pure.pop(0) != "compiled=False" or fast.pop(0) != "compiled=True":
            raise RuntimeError(f"{name}: the pure side is not pure Python or the compiled side not compiled")
        bad = sum(a != b for a, b in zip(pure, fast))
        show(f"{name:24} games={games} different={bad}", flush=True)
        total += games
        different += bad
    return total, different


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=GAMES, help="seeded games per set")
    parser.add_argument("--only", action="append", default=[], help="a set such as crazy-eights/2")
    parser.add_argument("--compiled", metavar="DIR", help="a compiled copy built before")
    parser.add_argument("--keep", action="store_true", help="keep the compiled copy and print where")
    parser.add_argument("--worker", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker, args.only[0], args.games)
        return 0
    names = args.only or list(_load("replay_hash").SETS)
    if args.compiled:
        compiled = Path(args.compiled)
    else:
        compiled = build_compiled_copy(Path(tempfile.mkdtemp(prefix="tourney-compiled-")))
    try:
        print(f"compiled copy: {compiled} ({', '.join(_load('compiled_engine').running_build(compiled))})")
        total, different = compare(compiled, names, args.games)
    finally:
        if not args.compiled and not args.keep:
            shutil.rmtree(compiled, ignore_errors=True)
    print(f"games={total} different={different}")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
