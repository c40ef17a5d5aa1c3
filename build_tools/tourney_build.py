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


# --- the Gymnasium start-up hook -------------------------------------------------------------------
# Gymnasium 1.0 reads no plugin entry points any more, so every wheel (the editable one too) gets
# _tourney_gymnasium.py (a copy of tourney/rl/gymnasium_id.py) and a one-line .pth that imports it
# at start-up: it registers "tourney/Eights-v0" once Gymnasium is imported (see that module).

HOOK = "_tourney_gymnasium.py"
PTH = "tourney-gymnasium.pth"


def hook_files() -> dict[str, bytes]:
    """The files added at the top of every wheel: name -> content (the hook is a copy of
    tourney/rl/gymnasium_id.py, which imports nothing of tourney)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "tourney", "rl", "gymnasium_id.py"), "rb") as f:
        source = f.read()
    return {HOOK: source, PTH: b"import _tourney_gymnasium\n"}


def add_to_wheel(wheel: str, files: dict[str, bytes]) -> None:
    """Add ``files`` at the top of the wheel archive ``wheel``, listed in its RECORD (with their
    hashes, as the wheel format asks, so that uninstalling removes them)."""
    import base64
    import hashlib
    import zipfile

    with zipfile.ZipFile(wheel) as old:
        items = [(info, old.read(info.filename)) for info in old.infolist()]
    record = next(info.filename for info, _ in items if info.filename.endswith(".dist-info/RECORD"))
    lines = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        lines.append(f"{name},sha256={digest},{len(data)}\n")
    tmp = wheel + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as new:
        for info, data in items:
            if info.filename in files:
                continue
            if info.filename == record:
                kept = [line for line in data.decode().splitlines(keepends=True)
                        if line.split(",", 1)[0] not in files]
                data = "".join(lines + kept).encode()
            new.writestr(info, data)
        for name, data in files.items():
            new.writestr(zipfile.ZipInfo(name, date_time=items[0][0].date_time), data)
    os.replace(tmp, wheel)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)
    add_to_wheel(os.path.join(wheel_directory, name), hook_files())
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
    add_to_wheel(os.path.join(wheel_directory, name), hook_files())
    return name
