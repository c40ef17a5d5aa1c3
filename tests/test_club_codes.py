"""League codes on the command line (``tourney club code new/list/revoke``) and what ``tourney
serve`` does with them."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tourney.club import codes
from tourney.club.league import League
from tourney.results.store import open_db

ROOT = Path(__file__).resolve().parent.parent


def test_a_new_code_is_shown_once_and_only_its_salted_hash_is_kept(run):
    run("club", "new", "thu", "--players", "Ann,Bob")
    r = run("club", "code", "new", "thu", "--table", "2", "--expires", "6h", "--url", "http://192.168.1.20:8000/")
    code = re.search(r"\(table 2\): ([A-Z0-9]{2}-[A-Z0-9]{4}-[A-Z0-9]{4})$", r.stdout, re.M)[1]
    assert f"link: http://192.168.1.20:8000/league/1#code={code}" in r.stdout
    assert "█" in r.stdout  # the QR code, drawn in the terminal
    raw = Path(run.db).read_bytes() + b"".join(p.read_bytes() for p in Path(run.db).parent.glob("club.db-*"))
    assert code.encode() not in raw and code.replace("-", "").encode() not in raw
    with sqlite3.connect(run.db) as con:
        salt, digest = con.execute("SELECT salt, hash FROM club_codes").fetchone()
    assert len(salt) == 16 and digest == codes.digest(code, salt)
    assert codes.digest(code, b"another salt....") != digest


def test_codes_are_listed_without_the_code_and_revoked_one_or_all(run):
    run("club", "new", "thu", "--players", "Ann,Bob")
    for args in ([], ["--table", "1"], ["--table", "3"]):
        run("club", "code", "new", "thu", "--no-qr", *args)
    rows = json.loads(run("club", "code", "list", "thu", "--json").stdout)["codes"]
    assert [(r["id"], r["label"], r["status"]) for r in rows] == [(1, "code 1", "live"), (2, "table 1", "live"),
                                                                  (3, "table 3", "live")]
    assert "salt" not in rows[0] and "hash" not in rows[0]
    assert run("club", "code", "revoke", "thu", "2").stderr.strip() == "revoked 1 code: 2 (table 1)"
    r = run("club", "code", "revoke", "thu", "2", ok=False)
    assert (r.exit_code, r.stderr.strip()) == (2, "error: code 2 of league 'thu' is already revoked")
    r = run("club", "code", "revoke", "thu", "9", ok=False)
    assert r.exit_code == 2 and "has no code 9" in r.stderr
    assert run("club", "code", "revoke", "thu", "--all").stderr.strip() == "revoked 2 codes: 1 (code 1), 3 (table 3)"
    history = json.loads(run("club", "history", "thu", "--json").stdout)["history"]
    assert [h["action"] for h in history] == ["create", "code", "code", "code", "revoke", "revoke", "revoke"]
    assert {h["source"] for h in history} == {"cli"}


def test_bad_code_options_are_one_clear_line(run):
    run("club", "new", "thu", "--players", "Ann,Bob")
    for args, says in ((["--expires", "soon"], "--expires 'soon': give a duration like 90m, 6h or 2d"),
                       (["--expires", "0h"], "--expires '0h'"), (["--table", "0"], "--table must be")):
        r = run("club", "code", "new", "thu", *args, ok=False)
        assert r.exit_code == 2 and says in r.stderr, r.stderr
    r = run("club", "code", "revoke", "thu", ok=False)
    assert r.stderr.strip() == "error: give a code's id or --all"


def test_an_expired_or_revoked_code_does_not_sign_in(tmp_path):
    db = open_db(tmp_path / "c.db")
    league = League.create(db, "thu", ["Ann", "Bob"], by="t")
    other = League.create(db, "fri", ["Cy", "Dee"], by="t")
    code, row = codes.new_code(league, expires="1h", by="t")
    assert codes.check(league.tables, league.id, code.lower())["id"] == row["id"]
    assert codes.check(league.tables, other.id, code) is None  # never another league's
    db.execute("UPDATE club_codes SET expires_at = '2000-01-01T00:00:00Z'")
    db.conn.commit()
    assert codes.check(league.tables, league.id, code) is None
    assert codes.list_codes(league)[0]["status"] == "expired"


def test_double_entry_is_a_setting_per_league(run):
    run("club", "new", "thu", "--players", "Ann,Bob")
    said = run("club", "set", "thu", "--double-entry", "on").stderr.strip().splitlines()
    assert said[0] == "double_entry: off -> on"
    assert said[1].startswith("note: a web entry is confirmed with another code than the one that entered it; "
                              "league 'thu' has 0 live codes")
    for _ in range(2):
        run("club", "code", "new", "thu", "--no-qr")
    run("club", "set", "thu", "--double-entry", "off")
    assert run("club", "set", "thu", "--double-entry", "on").stderr.strip() == "double_entry: off -> on"
    r = run("club", "set", "thu", "--double-entry", "maybe", ok=False)
    assert r.stderr.strip() == "error: --double-entry 'maybe': give on or off"
    assert League(open_db(run.db), "thu").double_entry


def _serve(*args: str):
    return subprocess.Popen([sys.executable, "-m", "tourney", "serve", "--port", "0", *args],
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)


def test_serve_on_every_address_refuses_club_entry_until_a_code_exists_and_says_what_it_exposes(run):
    run("club", "new", "thu", "--players", "Ann,Bob")
    proc = _serve("--db", run.db, "--host", "0.0.0.0", "--club-entry")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert err.strip().startswith("error: --host 0.0.0.0 with --club-entry needs a league code first")
    run("club", "code", "new", "thu", "--no-qr")
    proc = _serve("--db", run.db, "--host", "0.0.0.0", "--club-entry")
    try:
        warning, serving = proc.stderr.readline(), proc.stderr.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert warning.startswith("warning: --host 0.0.0.0 lets every machine that can reach this one read every page")
    assert "anyone holding a league code write that league's results" in warning and "docs/web.md" in warning
    assert serving.startswith("serving ")


def test_serve_stays_on_this_machine_by_default_and_logs_wrong_codes(run):
    import http.cookiejar
    import urllib.error
    import urllib.parse
    import urllib.request

    run("club", "new", "thu", "--players", "Ann,Bob")
    proc = _serve("--db", run.db, "--club-entry")
    try:
        line = proc.stderr.readline()
        url = re.match(r"serving .* at (http://127\.0\.0\.1:\d+)/", line)[1]
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = opener.open(f"{url}/league/1").read().decode()
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)[1]
        form = urllib.parse.urlencode({"csrf": csrf, "code": "AAAA-BBBB"}).encode()
        with pytest.raises(urllib.error.HTTPError) as refused:
            opener.open(f"{url}/league/1/code", form)
        assert refused.value.code == 403
        logged = proc.stderr.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert re.search(r"warning: wrong league code from 127\.0\.0\.1 for league 1 \(4 tries left\)$", logged), logged
