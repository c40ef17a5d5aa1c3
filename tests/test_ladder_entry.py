"""Authors submitting to a ladder from the browser (``tourney serve --ladder-entry``), tested over
HTTP: the app is called as an ASGI application and a browser is a cookie jar (test_club_entry's
Phone). Uploads are real multipart bodies; the checks run ``tourney check`` in the sandbox. The
browser tests are in test_ladder_browser.py.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import secrets
import sqlite3
import subprocess
import sys
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
#: the example random bot, writing a line to stderr at every game_start (a warm process plays
#: several games, and each game's stderr is what the bot wrote during that game)
BOT = (ROOT / "examples" / "bots" / "random_bot.py").read_text().replace(
    '            if "seed" in message:',
    f'            sys.stderr.write("{MARK}\\n")\n            sys.stderr.flush()\n            if "seed" in message:', 1)
assert MARK in BOT
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


def play(path, games: int) -> None:
    """Play ``games`` of ladder ``spring`` in a process of its own, as the organiser's ``ladder run``
    does (a run in this process would make the test process the bots' subreaper, and orphans of
    later tests, a browser's among them, would be left to it)."""
    done = subprocess.run([sys.executable, "-m", "tourney", "ladder", "run", "spring", "--games", str(games),
                           "-j", "1", "-q", "--db", str(path)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert done.returncode == 0 and f"{games} game(s) played" in done.stderr, done.stderr


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


def zipped(entries: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o100644 << 16
            z.writestr(info, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o120777 << 16  # a symbolic link, as zip -y stores it
            z.writestr(info, target)
    return out.getvalue()


def tarred(add) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as t:
        add(t)
    return out.getvalue()


def test_author_codes_are_shown_once_and_stored_hashed(ladder):
    listed = codes.list_codes(ladder.db, "spring")
    assert [r["author"] for r in listed] == ["ann", "bob"] and {r["status"] for r in listed} == {"live"}
    dump = "\n".join(sqlite3.connect(ladder.path).iterdump())
    for code in (ladder.code_ann, ladder.code_bob):
        assert code not in dump and code.replace("-", "") not in dump
    with pytest.raises(service.LadderError, match="author"):
        codes.new_code(ladder.db, "spring", HOSTILE)


def test_an_upload_is_checked_in_the_sandbox_plays_and_only_its_author_reads_its_stderr(ladder):
    ann = Author(ladder.app).sign_in_ladder(ladder.id, ladder.code_ann)
    assert ann.flash() == "signed in as ann"
    status, _, _ = ann.upload(ladder.id, "bot.py", BOT.encode(), "{python} bot.py")
    assert status == 303
    ann.get(f"/ladder/{ladder.id}")
    assert ann.flash() == "spring/ann/v1: accepted: it plays from the next batch of games"
    version = service.get(ladder.db, "spring")
    spec = [v for v in service.rows.versions(ladder.db, version["id"]) if v["author"] == "ann"][0]["spec"]
    assert spec["limits"]["sandbox"] == "on"  # the upload never runs unsandboxed, in play either
    play(ladder.path, 2)
    ann.get(f"/ladder/{ladder.id}")
    assert ann.html.count(MARK) == 2  # one per game, on ann's own page
    mine = json.loads(ann.get(f"/ladder/{ladder.id}/mine.json")[2])
    assert [g["stderr"] for g in mine["games"]] == [MARK + "\n"] * 2

    bob = Author(ladder.app, client="10.0.0.3").sign_in_ladder(ladder.id, ladder.code_bob)
    anonymous = Author(ladder.app, client="10.0.0.4")
    games = [g["game_id"] for g in mine["games"]]
    for who in (bob, anonymous):
        for path in (f"/ladder/{ladder.id}", f"/ladder/{ladder.id}.json", f"/ladder/{ladder.id}/mine.json",
                     *(f"/game/{g}" for g in games), *(f"/game/{g}.json" for g in games)):
            status, _, text = who.get(path)
            assert MARK not in text, (path, status)
    assert json.loads(bob.get(f"/ladder/{ladder.id}/mine.json")[2])["games"] == []
    status, _, text = anonymous.get(f"/ladder/{ladder.id}/mine.json")
    assert status == 403 and "sign in" in json.loads(text)["error"]


def test_a_zipped_folder_that_fails_its_check_says_why_to_its_author_only(ladder):
    crash = "import sys\nsys.stderr.write('BOB-SECRET-TRACE\\n')\nsys.exit(3)\n"
    bob = Author(ladder.app, client="10.0.0.5").sign_in_ladder(ladder.id, ladder.code_bob)
    status, _, _ = bob.upload(ladder.id, "mybot.zip", zipped({"mybot/main.py": crash.encode(),
                                                              "mybot/data/notes.txt": b"x"}))
    assert status == 303
    bob.get(f"/ladder/{ladder.id}")
    assert bob.flash() == "spring/bob/v1: refused by its check (the reason is below)"
    assert "BOB-SECRET-TRACE" in bob.html  # the check's report, with the bot's stderr
    public = Author(ladder.app, client="10.0.0.6")
    assert "BOB-SECRET-TRACE" not in public.get(f"/ladder/{ladder.id}")[2]
    text = public.get(f"/ladder/{ladder.id}.json")[2]
    assert "BOB-SECRET-TRACE" not in text and "shown to its author only" in text


def test_hostile_forms_write_nothing(ladder):
    before = versions(ladder.path)
    ann = Author(ladder.app, client="10.0.1.1").sign_in_ladder(ladder.id, ladder.code_ann)
    # no CSRF token
    status, _, _ = ann.upload(ladder.id, "bot.py", BOT.encode(), csrf=None)
    assert status == 403 and "not sent from this page" in ann.error()
    # an archive reaching outside, a link, an absolute path, a device
    for name, data, said in (
            ("evil.zip", zipped({"../../escape.py": b"x"}), "'..'"),
            ("evil.zip", zipped({"main.py": b"x"}, {"link": "/etc/passwd"}), "symbolic link"),
            ("evil.zip", zipped({"/etc/cron.d/x": b"x"}), "absolute path"),
            ("evil.tgz", tarred(lambda t: t.addfile(tarfile.TarInfo("main.py"), io.BytesIO())
                                or t.addfile(_special("dev", tarfile.CHRTYPE))), "device"),
            ("evil.tgz", tarred(lambda t: t.addfile(_special("up", tarfile.SYMTYPE, "../x"))), "link")):
        status, _, _ = ann.upload(ladder.id, name, data)
        assert status == 400 and said in ann.error(), (name, ann.error())
    # HTML in the command: refused and shown escaped
    status, _, _ = ann.upload(ladder.id, "bot.py", BOT.encode(), HOSTILE)
    assert status == 400 and HOSTILE not in ann.html and "&lt;img" in ann.html
    # too large, told by its length or found while streaming
    body, kind = multipart({**ann.form("submit-form")}, {"bot": ("big.py", b"#" * (LIMIT + 1))})
    assert ann.request("POST", f"/ladder/{ladder.id}/submit", body, kind)[0] == 413
    assert "larger than the server takes" in ann.error()
    # not signed in: refused before the upload is read
    anonymous = Author(ladder.app, client="10.0.1.2")
    anonymous.get(f"/ladder/{ladder.id}")
    body, kind = multipart({"csrf": "x", "key": "k" * 20}, {"bot": ("bot.py", BOT.encode())})
    assert anonymous.request("POST", f"/ladder/{ladder.id}/submit", body, kind)[0] == 403
    assert versions(ladder.path) == before


def _special(name: str, kind: bytes, target: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


def test_a_replayed_idempotency_key_adds_one_version(ladder):
    bob = Author(ladder.app, client="10.0.2.1").sign_in_ladder(ladder.id, ladder.code_bob)
    bob.get(f"/ladder/{ladder.id}")
    fields = bob.form("submit-form")
    body, kind = multipart({**fields, "command": "{python} bot.py"}, {"bot": ("bot.py", BOT.encode())})
    before = len(versions(ladder.path))
    for _ in range(3):
        assert bob.request("POST", f"/ladder/{ladder.id}/submit", body, kind)[0] == 303
    assert len(versions(ladder.path)) == before + 1
    bob.get(f"/ladder/{ladder.id}")
    assert bob.flash().endswith("(already stored; sent again)")


def test_wrong_codes_are_rate_limited_and_codes_stay_in_their_ladder(ladder):
    other = service.new_ladder(ladder.db, "autumn", "crazier-eights", 2, seed=6)
    guess = Author(ladder.app, client="10.0.3.1")
    guess.get(f"/ladder/{ladder.id}")
    for left in (4, 3, 2, 1, 0):
        status, _, _ = guess.post(f"/ladder/{ladder.id}/code", {**guess.form("code-form"), "code": "ZZ-ZZZZ-ZZZZ"})
        assert status == 403 and f"({left} tries left)" in guess.error()
    status, _, _ = guess.post(f"/ladder/{ladder.id}/code", {**guess.form("code-form"), "code": ladder.code_ann})
    assert status == 429  # even the right code, once the address is blocked
    # ann's code of spring signs nobody in to autumn
    elsewhere = Author(ladder.app, client="10.0.3.2")
    elsewhere.get(f"/ladder/{other['id']}")
    status, _, _ = elsewhere.post(f"/ladder/{other['id']}/code", {**elsewhere.form("code-form"),
                                                                  "code": ladder.code_ann})
    assert status == 403


def test_a_revoked_code_stops_a_signed_in_author_at_once(ladder, tmp_path):
    code, row = codes.new_code(ladder.db, "spring", "cy", by="org")
    cy = Author(ladder.app, client="10.0.4.1").sign_in_ladder(ladder.id, code)
    codes.revoke(ladder.db, "spring", row["id"])
    before = versions(ladder.path)
    status, _, _ = cy.upload(ladder.id, "bot.py", BOT.encode()) if 'id="submit-form"' in cy.html else (403, 0, 0)
    assert status == 403 and versions(ladder.path) == before
    assert cy.get(f"/ladder/{ladder.id}/mine.json")[0] == 403


# ---- unpacking, on its own


@pytest.mark.parametrize("name, data, said", [
    ("a.zip", zipped({"a/../../x": b"1"}), "'..'"),
    ("a.zip", zipped({"C:/x": b"1"}), "absolute"),
    ("a.zip", zipped({"x\\y": b"1"}), "backslash"),
    ("a.zip", zipped({}), "no file"),
    ("a.zip", b"not a zip", "not a readable zip"),
    ("a.tar", b"not a tar", "not a readable tar"),
    (".bashrc", b"1", "file name"),
])
def test_unpack_refuses_what_could_land_outside_or_is_not_a_plain_file(tmp_path, name, data, said):
    with pytest.raises(UnpackError, match=re.escape(said)):
        unpack(name, data, tmp_path)
    assert not any(tmp_path.parent.glob("x*"))


def test_an_uploaded_file_lands_in_the_folder_under_its_own_name(tmp_path):
    (tmp_path / "in").mkdir()
    assert unpack("../../x.py", b"1", tmp_path / "in") == ["x.py"]  # a browser sends the name only
    assert (tmp_path / "in" / "x.py").read_bytes() == b"1" and not (tmp_path.parent / "x.py").exists()


def test_unpack_bounds_files_and_bytes_even_when_the_archive_lies(tmp_path):
    with pytest.raises(UnpackError, match="files"):
        unpack("a.zip", zipped({f"f{i}": b"" for i in range(6)}), tmp_path, max_files=5)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("big", b"\0" * 200_000)
    data = bytearray(bomb.getvalue())
    for header in (b"PK\x03\x04", b"PK\x01\x02"):  # declare the file 10 bytes long, in both headers
        at = data.index(header)
        offset = 22 if header == b"PK\x03\x04" else 24
        data[at + offset:at + offset + 4] = (10).to_bytes(4, "little")
    (tmp_path / "b").mkdir()
    with pytest.raises(UnpackError):
        unpack("a.zip", bytes(data), tmp_path / "b", max_bytes=1000)
    assert sum(f.stat().st_size for f in (tmp_path / "b").rglob("*") if f.is_file()) <= 1000


def test_unpack_takes_a_folder_from_its_top_folder_with_modes_of_its_own(tmp_path):
    def add(t):
        for name, mode in (("mine/bot", 0o4755), ("mine/lib/x.txt", 0o666)):
            info = tarfile.TarInfo(name)
            info.mode, info.size = mode, 2
            t.addfile(info, io.BytesIO(b"hi"))
    assert sorted(unpack("b.tar.gz", tarred(add), tmp_path)) == ["bot", "lib/x.txt"]
    assert (tmp_path / "bot").stat().st_mode & 0o7777 == 0o755
    assert (tmp_path / "lib" / "x.txt").stat().st_mode & 0o7777 == 0o644


# ---- switching it on


def test_serve_refuses_the_ladder_entry_without_a_sandbox_or_with_a_bad_limit(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import tourney.commands  # noqa: F401  (registers the commands)
    from tourney.app import app
    from tourney.bots import sandbox

    db = str(tmp_path / "x.db")
    monkeypatch.setattr(sandbox, "problem", lambda: "bubblewrap (bwrap) is not installed")
    r = CliRunner().invoke(app, ["serve", "--db", db, "--port", "0", "--ladder-entry"])
    assert r.exit_code == 2 and "needs a working bot sandbox" in r.stderr and "bwrap" in r.stderr
    monkeypatch.setattr(sandbox, "problem", lambda: None)
    r = CliRunner().invoke(app, ["serve", "--db", db, "--port", "0", "--ladder-entry", "--max-upload", "lots"])
    assert r.exit_code == 2 and "--max-upload 'lots'" in r.stderr
    r = CliRunner().invoke(app, ["serve", "--db", db, "--host", "0.0.0.0", "--port", "0", "--ladder-entry"])
    assert r.exit_code == 2 and "needs an author code first" in r.stderr


def test_ladder_code_commands(tmp_path):
    from typer.testing import CliRunner

    import tourney.commands  # noqa: F401  (registers the commands)
    from tourney.app import app

    db = str(tmp_path / "c.db")
    runner = CliRunner()

    def cli(*args, code=0):
        r = runner.invoke(app, [*args, "--db", db])
        assert r.exit_code == code, (r.stdout, r.stderr)
        return r

    cli("ladder", "new", "spring")
    made = json.loads(cli("ladder", "code", "new", "spring", "ann", "--expires", "30d", "--json").stdout)
    assert re.fullmatch(r"[2-9A-HJKMNP-Z]{2}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}", made["code"])
    assert made["author"] == "ann" and made["status"] == "live" and made["expires_at"]
    text = cli("ladder", "code", "new", "spring", "bob").stdout
    assert text.startswith("code 2 of ladder spring for author bob: ")
    listed = cli("ladder", "code", "list", "spring").stdout
    assert made["code"] not in listed and "ann" in listed and "bob" in listed
    assert "give a code's id" in cli("ladder", "code", "revoke", "spring", code=2).stderr
    assert cli("ladder", "code", "revoke", "spring", "--author", "bob").stdout == "revoked code 2 (bob)\n"
    assert "already revoked" in cli("ladder", "code", "revoke", "spring", "2", code=2).stderr
    assert "--expires 'soon'" in cli("ladder", "code", "new", "spring", "cy", "--expires", "soon", code=2).stderr
    assert "no ladder called 'autumn'" in cli("ladder", "code", "new", "autumn", "cy", code=2).stderr
    statuses = {r["author"]: r["status"] for r in json.loads(cli("ladder", "code", "list", "spring", "--json")
                                                             .stdout)["codes"]}
    assert statuses == {"ann": "live", "bob": "revoked"}


def test_an_upload_that_announces_a_length_over_the_limit_is_refused_unread(ladder):
    ann = Author(ladder.app, client="10.0.5.1").sign_in_ladder(ladder.id, ladder.code_ann)
    body, kind = multipart({**ann.form("submit-form")}, {"bot": ("bot.py", b"1")})
    sent = []

    async def receive():  # the body is never asked for
        sent.append(1)
        return {"type": "http.request", "body": body, "more_body": False}

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": f"/ladder/{ladder.id}/submit", "raw_path": b"", "query_string": b"",
             "root_path": "", "client": ("10.0.5.1", 5000), "server": ("testserver", 80),
             "headers": [(b"cookie", "; ".join(f"{k}={v}" for k, v in ann.cookies.items()).encode()),
                         (b"content-type", kind.encode()), (b"content-length", str(10 * LIMIT).encode())]}
    out: list[dict] = []

    async def send(message):
        out.append(message)

    asyncio.run(ladder.app(scope, receive, send))
    assert out[0]["status"] == 413 and sent == []
