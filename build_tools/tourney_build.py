"""The build backend: setuptools' own, plus mypy (which ships mypyc) among the build requirements
when ``TOURNEY_COMPILE=1`` asks for the compiled engine (see setup.py). A plain install needs
nothing beyond setuptools."""

from __future__ import annotations

import os

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 (every hook of setuptools' backend, unchanged)

COMPILE_REQUIRES = ["mypy>=1.10"]


def _extra() -> list[str]:
    return COMPILE_REQUIRES if os.environ.get("TOURNEY_COMPILE", "") not in ("", "0") else []


def _requires(hook, config_settings) -> list[str]:
    os.environ["TOURNEY_BUILD_STEP"] = "requires"
    try:
        return hook(config_settings) + _extra()
    finally:
        del os.environ["TOURNEY_BUILD_STEP"]


def get_requires_for_build_wheel(config_settings=None):
    return _requires(build_meta.get_requires_for_build_wheel, config_settings)


def get_requires_for_build_editable(config_settings=None):
    return _requires(build_meta.get_requires_for_build_editable, config_settings)
