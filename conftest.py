"""The optional compiled engine (setup.py) and pytest's doctest collection.

A module of engine/ that runs as a C extension is imported from the extension, not from its .py,
and pytest stops on that mismatch when it collects the .py's doctests. Those modules' doctests
are left out while the compiled build is installed; they run in the pure build (CI).
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    if collection_path.suffix == ".py" and collection_path.parent.name == "engine":
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            if collection_path.with_suffix(suffix).exists():
                return True
    return None
