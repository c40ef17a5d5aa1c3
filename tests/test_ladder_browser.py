"""Submitting to a ladder in a real browser at a phone's width: ``tourney serve --ladder-entry``
runs as its own process and Debian's Chromium (driven by Playwright) signs in with author codes
and uploads bots, hostile ones among them.

Browser waits have generous time-outs only so that a broken page fails instead of hanging (an
upload's check plays seeded games in the sandbox); no test measures time.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import helpers
import pytest
from helpers import start_serve, stop_serve
from test_ladder_entry import BOT, MARK, play, zipped

from tourney.ladder import codes, service
from tourney.results.store import open_db

XSS = '<img src=x onerror="window.__pwned=1">'
LIMIT_KIB = 64


def versions(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return con.execute("select author, version, status from ladder_versions order by id").fetchall()


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    path = tmp_path_factory.mktemp("ladderbrowser") / "ladder.db"
    db = open_db(path)
    lad = service.new_ladder(db, "spring", "crazier-eights", 2, seed=5, check_games=1)
    service.submit(db, "spring", "house", builtin="random")
    made = {a: codes.new_code(db, "spring", a, by="org")[0] for a in ("ann", "bob", "cy")}
    db.conn.close()
    return path, lad["id"], made


@pytest.fixture(scope="module")
def server(ladder):
    proc, url = start_serve(ladder[0], "--ladder-entry", "--max-upload", f"{LIMIT_KIB}K")
    yield url
    stop_serve(proc)


def sign_in(page, server: str, lid: int, code: str) -> None:
    helpers.sign_in(page, f"{server}/ladder/{lid}", code)


def choose(page, name: str, data: bytes) -> None:
    page.set_input_files("#bot", {"name": name, "mimeType": "application/octet-stream", "buffer": data})


def test_an_author_uploads_a_bot_reads_its_stderr_and_nobody_else_does(server, ladder, phone):
    path, lid, made = ladder
    ann = phone()
    sign_in(ann, server, lid, made["ann"])
    assert ann.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll at a phone's width
    choose(ann, "bot.py", BOT.encode())
    ann.fill("#command", "{python} bot.py")
    ann.click("#submit-form button")
    assert ann.inner_text("#entry-flash") == "spring/ann/v1: accepted: it plays from the next batch of games"
    play(path, 1)
    ann.goto(f"{server}/ladder/{lid}")
    ann.click("#my-games summary")  # a game's stderr opens under it
    assert MARK in ann.inner_text("#my-games .stderr")
    bob = phone()
    sign_in(bob, server, lid, made["bob"])
    assert MARK not in bob.content()
    for url in (f"{server}/ladder/{lid}.json", f"{server}/ladder/{lid}/mine.json"):
        bob.goto(url)
        assert MARK not in bob.content()
    stranger = phone()
    for url in (f"{server}/ladder/{lid}", f"{server}/ladder/{lid}.json", f"{server}/ladder/{lid}/mine.json"):
        stranger.goto(url)
        assert MARK not in stranger.content()


def test_hostile_uploads_are_refused_with_a_reason_and_store_nothing(server, ladder, phone):
    path, lid, made = ladder
    before = versions(path)
    p = phone()
    sign_in(p, server, lid, made["bob"])
    for name, data, said in (
            ("escape.zip", zipped({"../../../tmp/escaped.py": b"x"}), "'..'"),
            ("link.zip", zipped({"main.py": b"x"}, {"keys": "/root/.ssh/id_rsa"}), "symbolic link"),
            # the file fits the page's own check, the request with its form does not: the server counts
            ("big.py", b"#" * (LIMIT_KIB * 1024 - 10), "larger than the server takes")):
        choose(p, name, data)
        with p.expect_navigation() as nav:
            p.click("#submit-form button")
        assert nav.value.status in (400, 413) and said in p.inner_text("#entry-error"), name
    # a file far too large is stopped by the page before it is sent
    choose(p, "huge.zip", b"\0" * (4 * LIMIT_KIB * 1024))
    p.click("#submit-form button")
    assert "the server takes at most 64 KiB" in p.inner_text("#upload-too-big")
    # HTML in the command: kept as text in the field and the message, never markup
    choose(p, "bot.py", BOT.encode())
    p.fill("#command", XSS)
    p.click("#submit-form button")
    assert "not found on PATH: <img" in p.inner_text("#entry-error") and p.input_value("#command") == XSS
    assert versions(path) == before


def test_a_form_without_csrf_and_a_replayed_key_write_nothing_more(server, ladder, phone):
    path, lid, made = ladder
    p = phone()
    sign_in(p, server, lid, made["cy"])
    choose(p, "bot.py", BOT.encode())
    p.fill("#command", "{python} bot.py")
    before = len(versions(path))
    forged = p.evaluate("""async () => {
        const body = new FormData(document.getElementById('submit-form'));
        body.delete('csrf');
        return (await fetch(document.getElementById('submit-form').action, {method: 'POST', body})).status;
    }""")
    assert forged == 403 and len(versions(path)) == before
    statuses = p.evaluate("""async () => {
        const f = document.getElementById('submit-form');
        const body = new FormData(f);
        const out = [];
        for (let i = 0; i < 3; i++) {
            out.push((await fetch(f.action, {method: 'POST', body, redirect: 'manual'})).type);
        }
        return out;
    }""")
    assert statuses == ["opaqueredirect"] * 3
    assert len(versions(path)) == before + 1
    p.goto(f"{server}/ladder/{lid}")
    assert "already stored" in p.inner_text("#entry-flash")


def test_wrong_codes_are_refused_then_a_burst_is_rate_limited(ladder, phone):
    path, lid, made = ladder
    proc, url = start_serve(path, "--ladder-entry")  # its own server: the limit holds 127.0.0.1 for a while
    try:
        p = phone()
        p.goto(f"{url}/ladder/{lid}")
        p.fill("#code", XSS)
        p.click("#code-form button")
        assert p.inner_text("#entry-error") == "wrong code for this ladder (4 tries left)"
        statuses = p.evaluate("""async () => {
            const f = document.getElementById('code-form');
            const sends = [];
            for (let i = 0; i < 8; i++) {
                const body = new URLSearchParams(new FormData(f));
                body.set('code', 'ZZ-ZZZZ-ZZZ' + i);
                sends.push(fetch(f.action, {method: 'POST', body}).then(r => r.status));
            }
            return Promise.all(sends);
        }""")
        assert sorted(statuses) == [403] * 4 + [429] * 4  # sent at once, still only the tries left
        p.fill("#code", made["ann"])
        p.click("#code-form button")
        assert "too many wrong codes" in p.inner_text("#entry-error")
    finally:
        stop_serve(proc)
