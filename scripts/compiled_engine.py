"""Which engine build runs, and the way back to pure Python (docs/scale.md, "A compiled engine").

    TOURNEY_COMPILE=1 python3 -m pip install -e .   # build the compiled engine (setup.py)
    python3 scripts/compiled_engine.py              # say which build runs
    python3 scripts/compiled_engine.py --remove     # delete the compiled modules: pure Python again

pip shows a build's messages only with ``-v``: this script is where a compile that fell back to
pure Python shows. A reinstall without ``TOURNEY_COMPILE`` builds nothing but does not delete the
extensions built before (they sit beside their sources, and Python imports them first), hence
``--remove``. Exit status 0, or 1 when compiled modules were asked about (``--expect-compiled``)
and none run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def built_files(root: Path = ROOT) -> list[Path]:
    """The files a compiled build leaves in a tree: the modules' extensions and mypyc's shared
    library (``engine/_compiled__mypyc.*.so``), all in engine/."""
    return sorted([*root.glob("engine/*.so"), *root.glob("engine/*.pyd")])


def running_build(root: Path = ROOT) -> list[str]:
    """The compiled modules a fresh interpreter importing ``root``'s engine runs (empty: pure)."""
    code = f"import sys; sys.path.insert(0, {str(root)!r}); import engine; print(*engine.compiled_modules())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remove", action="store_true", help="delete the compiled modules")
    parser.add_argument("--expect-compiled", action="store_true", help="exit 1 unless the compiled build runs")
    args = parser.parse_args()
    if args.remove:
        for path in built_files():
            path.unlink()
            print(f"removed {path.relative_to(ROOT)}")
    modules = running_build()
    if modules:
        print(f"engine: compiled (mypyc): {', '.join(modules)}")
        return 0
    if args.expect_compiled:
        print("WARNING: engine: pure Python: the compiled build is not there (did the compile fail? "
              "TOURNEY_COMPILE=1 python3 -m pip install -v -e . shows why)")
        return 1
    print("engine: pure Python")
    return 0


if __name__ == "__main__":
    sys.exit(main())
