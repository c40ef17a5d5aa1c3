"""Optional compiled engine: ``TOURNEY_COMPILE=1 python3 -m pip install -e .`` compiles the classic
rule sets' modules with mypyc (docs/scale.md, "A compiled engine"). Without the variable this file
builds nothing and the install is the pure-Python package pyproject.toml describes.

The compiled modules are C extensions next to their sources (``engine/eights_family.*.so`` ...);
Python imports an extension before a ``.py`` of the same name. ``engine.COMPILED`` says which
build runs (``python3 scripts/compiled_engine.py`` prints it); ``python3 scripts/compiled_engine.py
--remove`` goes back to pure Python (a reinstall without the variable leaves the extensions in place).
"""

from __future__ import annotations

import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: the modules compiled: the classic rule sets and the shuffle they deal with (engine/common.py stays
#: Python: its runtime-checkable Protocol does not survive compilation; crazier-eights stays Python)
COMPILED = ["engine/shuffling.py", "engine/eights_family.py", "engine/crazy_eights.py", "engine/super_crazy_eights.py"]


def compile_requested() -> bool:
    return os.environ.get("TOURNEY_COMPILE", "") not in ("", "0")


def warn(why: str) -> None:
    print(f"WARNING: tourney: the compiled engine was not built ({why}); the engine stays pure Python",
          file=sys.stderr)


class BuildAllOrNothing(build_ext):
    """Compile every module or none: a C compiler that fails leaves no extension behind (a shim
    without its shared library would not import) and one warning; the .py files are imported."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # CompileError, LinkError, a missing compiler (OSError) ...
            for extension in self.extensions:
                name = self.get_ext_filename(extension.name)
                for root in (self.build_lib, "."):
                    if os.path.exists(os.path.join(root, name)):
                        os.remove(os.path.join(root, name))
            warn(f"the C compiler failed: {exc}")


def ext_modules() -> list:
    # build_tools/tourney_build.py sets TOURNEY_BUILD_STEP while pip only asks what the build needs
    # (mypy is not installed yet then): nothing to compile or warn about in that step.
    if not compile_requested() or os.environ.get("TOURNEY_BUILD_STEP") == "requires":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        warn(f"mypyc is missing: {exc}")
        return []
    try:
        # opt_level 3: the C compiler's full optimisation; annotation-unchecked: the notes mypy
        # gives for annotations inside untyped functions are no errors; group_name: mypyc's shared
        # library goes inside the package (engine/_compiled__mypyc.*.so), not beside it
        return mypycify(
            ["--disable-error-code=annotation-unchecked", *COMPILED], opt_level="3", group_name="engine._compiled"
        )
    except BaseException as exc:  # mypyc reports a type error by SystemExit
        warn(f"mypyc failed: {exc!r}")
        return []


if __name__ == "__main__":  # (setuptools runs this file as __main__; scripts import COMPILED)
    setup(ext_modules=ext_modules(), cmdclass={"build_ext": BuildAllOrNothing})
