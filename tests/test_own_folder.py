"""A bot's writable folder stays its own across runs (docs/protocol.md, "Fair play"; issue 39,
point 2): when tourney runs as root, a sandboxed bot that may write its folder runs as the uid of
that folder, the same at every start, so its later processes (in later events, in
``tourney check``) read and rewrite what its earlier ones wrote; its files are 0600, so another
bot cannot read them even where it sees them."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from helpers import RANDOM_BOT
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.bots import sandbox

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0,
                                reason="a uid per bot is chosen when tourney runs as root (Linux)")

#: appends a line to notes.txt in its own folder (reading what its earlier runs wrote), then plays
NOTING_BOT = """
import os, runpy
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "notes.txt")
old = open(path).read() if os.path.exists(path) else ""
with open(path, "w") as f:
    f.write(old + "run\\n")
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "random_bot.py"), run_name="__main__")
"""

#: tries to read the noting bot's file (its folder lies inside this bot's), says what happened
#: in its own file, then plays
PRYING_BOT = """
import os, runpy
here = os.path.dirname(os.path.abspath(__file__))
try:
    open(os.path.join(here, "noter", "notes.txt")).read()
    found = "read"
except PermissionError:
    found = "denied"
with open(os.path.join(here, "found.txt"), "w") as f:
    f.write(found)
runpy.run_path(os.path.join(here, "random_bot.py"), run_name="__main__")
"""


def bot_folder(path: Path, source: str) -> Path:
    """A bot's folder as the docs ask for one it may write: group nogroup, group-writable."""
    path.mkdir()
    os.chown(path, 0, sandbox.NOBODY)
    path.chmod(0o775)
    (path / "bot.py").write_text(source)
    shutil.copy(RANDOM_BOT, path / "random_bot.py")
    return path


def check(folder: Path):
    return CliRunner().invoke(app, ["check", "--writable", "--sandbox", "on", "--games", "1", "--cwd", str(folder),
                                    "--", "{python}", "bot.py"])


def test_two_runs_in_a_row_of_a_bot_that_appends_to_its_own_file_both_pass(tmp_path, monkeypatch):
    assert sandbox.problem() is None  # the README's test command installs bubblewrap
    top = bot_folder(tmp_path / "top", PRYING_BOT)
    noter = bot_folder(top / "noter", NOTING_BOT)
    first, second = check(noter), check(noter)
    assert first.exit_code == 0, first.stdout
    assert second.exit_code == 0, second.stdout
    assert (noter / "notes.txt").read_text() == "run\nrun\n"
    # the documented owner: the folder's uid, said by tourney check; nobody else may read it
    uid = sandbox.folder_uid([str(noter.resolve())])
    info = (noter / "notes.txt").stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (uid, sandbox.NOBODY, 0o600)
    assert f"belongs to uid {uid}, group nogroup" in second.stdout
    # another bot, whose folder holds the first's, sees the file and cannot read it
    prying = check(top)
    assert prying.exit_code == 0, prying.stdout
    assert (top / "found.txt").read_text() == "denied"
    assert (top / "found.txt").stat().st_uid == sandbox.folder_uid([str(top.resolve())]) != uid
    # and in an event, the same bot on the same folder carries on where tourney check left off
    config = tmp_path / "event.toml"
    config.write_text(f'[event]\nname = "e"\nformat = "single"\nplayers = 2\n[limits]\nsandbox = "on"\n'
                      f'[[entrants]]\nname = "noter"\ncommand = ["{{python}}", "bot.py"]\ncwd = "{noter}"\n'
                      f'writable = true\n[[entrants]]\nname = "random"\nbuiltin = "random"\n')
    monkeypatch.delenv(sandbox.PRIVATE_ENV, raising=False)  # what the run hides stays the run's
    event = CliRunner().invoke(app, ["run", str(config), "--db", str(tmp_path / "e.db"), "-q", "-j", "1"])
    assert event.exit_code == 0, event.stderr
    assert "fault" not in event.stderr
    assert (noter / "notes.txt").read_text() == "run\nrun\nrun\n"


def test_a_bot_that_may_not_write_still_has_a_uid_per_process():
    launch = sandbox.prepare(["true"], "/", {}, sandbox.Policy("on"))
    try:
        assert launch.folder_uid is None
    finally:
        launch.cleanup()
        for fd in (*launch.pass_fds, launch.args_fd):
            if fd is not None:
                os.close(fd)
