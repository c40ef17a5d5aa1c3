"""tourney as a newcomer gets it: a wheel built from this checkout, installed with pip into a fresh
virtual environment. Tests that run the documented commands run this install's ``tourney``, from
an empty folder, so that nothing of the checkout (``examples/``, ``configs/``, a ``PYTHONPATH``)
helps them.

The wheel is built without build isolation and installed without dependencies: nothing is
downloaded. The environment sees the packages of the one running the tests (the venv is made with
``--system-site-packages``, and a ``.pth`` line names this environment's site-packages when it is
itself a venv), but tourney itself comes from the wheel. One install serves the whole test run.
"""

from __future__ import annotations

import atexit
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: what the wheel is built from (a copy, so that the build leaves nothing in the checkout)
SOURCES = ("engine", "tourney", "build_tools", "pyproject.toml", "setup.py", "README.md")


HINT = (" (without build isolation the build uses this environment's setuptools, which needs bdist_wheel: "
        "setuptools>=70.1, a test extra; python3 -m pip install -e '.[test]' installs it)")


@dataclass(frozen=True)
class Installed:
    venv: Path
    wheel: Path

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def env(self, **extra: str) -> dict[str, str]:
        """An environment where ``tourney``, ``python`` and ``python3`` are this install's, and no
        ``PYTHONPATH`` or ``TOURNEY_*`` setting of the test run leaks in."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("TOURNEY_") and k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        env.update(PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(self.venv))
        env.update(extra)
        return env


def _run(argv: list, **kwargs) -> None:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{argv}: exit {done.returncode}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"


@cache
def installed_tourney() -> Installed:
    """Build the wheel and install it into a fresh venv (once per test run; about 5 s)."""
    base = Path(tempfile.mkdtemp(prefix="tourney-wheel-"))
    atexit.register(shutil.rmtree, base, True)
    base.chmod(0o755)  # bots run as nobody when the tests run as root: the venv's python must be reachable
    source, dist, venv = base / "source", base / "dist", base / "venv"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info"))
        else:
            shutil.copy2(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", dist, source], cwd=base, capture_output=True, text=True)
    assert built.returncode == 0, (
        f"building the wheel failed{HINT if 'bdist_wheel' in built.stderr else ''}:\n{built.stderr[-3000:]}")
    (wheel,) = dist.glob("tourney-*.whl")
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv])
    ours = {Path(p) for p in site.getsitepackages()} | {Path(sysconfig.get_paths()["purelib"])}
    if sys.prefix != sys.base_prefix:  # a venv's packages are not the system's: name them
        (Path(sysconfig.get_paths(vars={"base": str(venv), "platbase": str(venv)})["purelib"])
         / "_tourney_test_outer.pth").write_text("".join(f"{p}\n" for p in sorted(ours)))
    _run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--no-deps", "-q", wheel],
         cwd=base)
    where = subprocess.run([venv / "bin" / "python", "-c", "import tourney; print(tourney.__file__)"],
                           capture_output=True, text=True, cwd=base, env=Installed(venv, wheel).env())
    assert where.stdout.startswith(str(venv)), f"tourney is not the wheel's: {where.stdout}{where.stderr}"
    return Installed(venv, wheel)
