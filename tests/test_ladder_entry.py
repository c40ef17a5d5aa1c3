"""Authors submitting to a ladder from the browser (``tourney serve --ladder-entry``), tested over
HTTP: the app is called as an ASGI application and a browser is a cookie jar (test_club_entry's
Phone). Uploads are real multipart bodies; the checks run ``tourney check`` in the sandbox. The
browser tests are in test_ladder_browser.py.
"""

from __future__ import annotations

import io
import json
import re
import secrets
import sqlite3
import tarfile
import zipfile
from pathlib import Path

import pytest
from test_club_entry import Phone

from tourney.ladder import codes, service
from tourney.ladder.unpack import UnpackError, unpack
from tourney.results.store import open_db
from tourney.web.app import create_app

ROOT = Path(__file__).resolve().parent.parent
MARK = "STDERR-OF-THE-AUTHOR"
#: the example random bot, writing a line to stderr in every game
BOT = (ROOT / "examples" / "bots" / "random_bot.py").read_text().replace(
    "import sys\n", f"import sys\nsys.stderr.write('{MARK}\\n')\nsys.stderr.flush()\n", 1)
LIMIT = 64 * 1024
HOSTILE = '<img src=x onerror="window.__pwned=1">'


def multipart(fields: dict, files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = "----tourney" + secrets.token_hex(8)
    out = io.BytesIO()
    for k, v in fields.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode())
    for k, (name, data) in files.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"; filename="{name}"\r\n'
                  f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


class Author(Phone):
    """A browser on a ladder's page."""

    def sign_in_ladder(self, ladder_id: int, code: str):
        self.get(f"/ladder/{ladder_id}")
        status, _, _ = self.post(f"/ladder/{ladder_id}/code", {**self.form("code-form"), "code": code})
        assert status == 303, self.error()
        self.get(f"/ladder/{ladder_id}")
        return self

    def upload(self, ladder_id: int, name: str, data: bytes, command: str = "", **override):
        if not self.html or 'id="submit-form"' not in self.html:
            self.get(f"/ladder/{ladder_id}")
        fields = {**self.form("submit-form"), "command": command, **override}
        body, kind = multipart({k: v for k, v in fields.items() if v is not None}, {"bot": (name, data)})
        return self.request("POST", f"/ladder/{ladder_id}/submit", body, kind)


def versions(path) -> list[tuple]:
    with sqlite3.connect(path) as con:
        return con.execute("select author, version, status from ladder_versions order by id").fetchall()


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    """Ladder ``spring`` (tables of 2, one seeded check game) with a built-in yardstick, a code for
    ann and bob, and ann's first version accepted; the app with a 64 KiB upload limit."""
    path = tmp_path_factory.mktemp("ladderweb") / "ladder.db"
    db = open_db(path)
    lad = service.new_ladder(db, "spring", "crazier-eights", 2, seed=5, check_games=1)
    service.submit(db, "spring", "house", builtin="random")
    code_ann, _ = codes.new_code(db, "spring", "ann", by="org")
    code_bob, _ = codes.new_code(db, "spring", "bob", by="org")

    class Ladder:
        pass

    c = Ladder()
    c.path, c.db, c.id, c.code_ann, c.code_bob = path, db, lad["id"], code_ann, code_bob
    c.app = create_app(path, ladder_entry=True, max_upload=LIMIT)
    return c
