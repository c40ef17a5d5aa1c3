"""Club entry in a real browser at a phone's width: ``tourney serve --club-entry`` runs as its own
process and Debian's Chromium (driven by Playwright) signs in with league codes and enters games.

Browser waits have generous time-outs only so that a broken page fails instead of hanging; no
test measures time.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import helpers
import pytest
from helpers import start_serve, stop_serve
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app

ROOT = Path(__file__).resolve().parent.parent
XSS = '<img src=x onerror="window.__pwned=1">'
SCRIPT = "</script><script>window.__pwned=2</script>"


def club(db: Path, *args: str) -> str:
    r = CliRunner().invoke(app, ["club", *args, "--db", str(db)])
    assert r.exit_code == 0, (r.stdout, r.stderr)
    return r.stdout


def new_league(db: Path, name: str, players: str) -> tuple[int, str]:
    """A league and a code for it: (league id, code)."""
    club(db, "new", name, "--players", players, "--seed", "3")
    data = json.loads(club(db, "code", "new", name, "--json", "--table", "2"))
    return league_id(db, name), data["code"]


def league_id(db: Path, name: str) -> int:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT id FROM club_leagues WHERE name = ?", [name]).fetchone()[0]


def games(db: Path, name: str) -> int:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT COUNT(*) FROM club_games g JOIN club_leagues l ON l.id = g.league_id "
                           "WHERE l.name = ?", [name]).fetchone()[0]


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("clubweb") / "club.db"
    club(path, "new", "warmup", "--players", "A,B")
    club(path, "code", "new", "warmup", "--json")
    return path


@pytest.fixture(scope="module")
def server(db):
    proc, url = start_serve(db, "--club-entry")
    yield url
    stop_serve(proc)


def sign_in(page, server: str, lid: int, code: str) -> None:
    helpers.sign_in(page, f"{server}/league/{lid}", code)


def test_two_phones_enter_two_tables_at_once_and_both_land(server, db, phone):
    lid, code = new_league(db, "two tables", "Ann,Bob,Cy,Dee")
    club(db, "night", "two tables", "--tables", "2")
    one, two = phone(), phone()
    for p in (one, two):
        sign_in(p, server, lid, code)
    for p, table in ((one, 1), (two, 2)):
        form = p.locator(f'form[data-table="{table}"]')
        inputs = form.locator(".seat input")
        for k in range(inputs.count()):
            inputs.nth(k).fill(str(k))
    # both forms are filled before either is sent; then both are sent without waiting in between
    one.locator('form[data-table="1"] button').click(no_wait_after=True)
    two.locator('form[data-table="2"] button').click(no_wait_after=True)
    for p in (one, two):
        p.wait_for_selector("#entry-flash")
        assert "entered; won by" in p.inner_text("#entry-flash")
    assert games(db, "two tables") == 2


def test_a_resubmitted_form_stores_one_game(server, db, phone):
    lid, code = new_league(db, "again", "Ann,Bob")
    p = phone()
    sign_in(p, server, lid, code)
    p.fill('input[name="v1"]', "0")
    p.fill('input[name="v2"]', "7")
    statuses = p.evaluate("""async () => {
        const f = document.getElementById('game-form');
        const body = new URLSearchParams(new FormData(f));
        const out = [];
        for (let i = 0; i < 3; i++) {
            out.push((await fetch(f.action, {method: 'POST', body, redirect: 'manual'})).type);
        }
        return out;
    }""")
    assert statuses == ["opaqueredirect"] * 3
    assert games(db, "again") == 1
    p.goto(f"{server}/league/{lid}")
    assert "already stored" in p.inner_text("#entry-flash")


def test_a_form_posted_without_its_csrf_token_is_refused(server, db, phone):
    lid, code = new_league(db, "forged", "Ann,Bob")
    p = phone()
    sign_in(p, server, lid, code)
    p.fill('input[name="v1"]', "0")
    p.fill('input[name="v2"]', "7")
    p.evaluate("document.querySelector('#game-form input[name=csrf]').remove()")
    with p.expect_navigation() as nav:
        p.click("#game-form button")
    assert nav.value.status == 403
    assert "not sent from this page" in p.inner_text("#entry-error")
    assert games(db, "forged") == 0


def test_a_code_for_league_a_cannot_write_league_b(server, db, phone):
    a, code_a = new_league(db, "league a", "Ann,Bob")
    b, _ = new_league(db, "league b", "Cy,Dee")
    p = phone()
    sign_in(p, server, a, code_a)
    status = p.evaluate("""async (b) => {
        const f = document.getElementById('game-form');
        const body = new URLSearchParams(new FormData(f));
        body.set('v1', '0'); body.set('v2', '3');
        return (await fetch('../league/' + b + '/add', {method: 'POST', body})).status;
    }""", b)
    assert status == 403
    p.goto(f"{server}/league/{b}")
    p.fill("#code", code_a)
    p.click("#code-form button")
    assert p.inner_text("#entry-error").startswith("wrong code for this league")
    assert games(db, "league b") == 0


def test_a_revoked_code_stops_working(server, db, phone):
    lid, code = new_league(db, "revoked", "Ann,Bob")
    p = phone()
    sign_in(p, server, lid, code)
    [row] = json.loads(club(db, "code", "list", "revoked", "--json"))["codes"]
    club(db, "code", "revoke", "revoked", str(row["id"]))
    p.fill('input[name="v1"]', "0")
    p.fill('input[name="v2"]', "7")
    p.click("#game-form button")
    assert "enter the league's code first" in p.inner_text("#entry-error")
    assert games(db, "revoked") == 0


def test_a_hostile_name_in_every_field_is_shown_escaped(server, db, phone):
    lid, code = new_league(db, SCRIPT, f"{XSS},{SCRIPT},Ann")
    club(db, "add", SCRIPT, "--card", f"{XSS}=0", "--card", f"{SCRIPT}=3", "--card", "Ann=4", "--note", XSS)
    p = phone()
    sign_in(p, server, lid, code)
    labels = p.inner_text("#game-form")
    assert XSS in labels and SCRIPT in labels
    for field in ("v1", "v2", "v3", "note"):
        p.fill(f'#game-form input[name="{field}"]', XSS)
    p.click("#game-form button")
    assert XSS in p.inner_text("#entry-error")  # the message quotes the value, as text
    assert p.input_value('#game-form input[name="note"]') == XSS
    assert XSS in p.inner_text("#entry-games")
    p.goto(f"{server}/league/{lid}")
    assert p.evaluate("window.__pwned") is None


def test_a_wrong_code_is_refused_and_then_rate_limited(db, phone):
    proc, url = start_serve(db, "--club-entry")  # its own server: the limit holds every client of 127.0.0.1 for a while
    try:
        lid, code = new_league(db, "guessing", "Ann,Bob")
        p = phone()
        p.goto(f"{url}/league/{lid}")
        for k in range(5):
            p.fill("#code", f"ZZZZ-ZZZ{k + 2}")
            with p.expect_navigation() as nav:
                p.click("#code-form button")
            assert nav.value.status == 403
            assert p.inner_text("#entry-error").startswith("wrong code for this league")
        p.fill("#code", code)
        with p.expect_navigation() as nav:
            p.click("#code-form button")
        assert nav.value.status == 429
        assert "too many wrong codes" in p.inner_text("#entry-error")
        assert p.locator("#signed-in").count() == 0
    finally:
        stop_serve(proc)


def test_sign_out_ends_the_session_and_a_copied_cookie_then_writes_nothing(server, db, phone, browser):
    lid, code = new_league(db, "copied", "Ann,Bob")
    owner = phone()
    owner.goto(f"{server}/league/{lid}")
    token_before = owner.input_value("#code-form input[name=csrf]")
    sign_in(owner, server, lid, code)
    assert owner.input_value("#game-form input[name=csrf]") != token_before  # a new CSRF token at sign-in
    thief = phone()
    thief.context.add_cookies(owner.context.cookies())  # the cookie copied off the phone
    thief.goto(f"{server}/league/{lid}")
    assert thief.inner_text("#signed-in") == "table 2"  # the copy works while the owner is signed in
    owner.click("form[action$='/leave'] button")
    owner.wait_for_selector("#code-form")
    thief.fill('input[name="v1"]', "0")
    thief.fill('input[name="v2"]', "7")
    with thief.expect_navigation() as nav:
        thief.click("#game-form button")
    assert nav.value.status == 403
    assert "enter the league's code first" in thief.inner_text("#entry-error")
    assert thief.locator("#signed-in").count() == 0
    assert games(db, "copied") == 0


def test_double_entry_is_confirmed_with_another_code_not_the_same_code_in_another_browser(server, db, phone):
    lid, code = new_league(db, "twice", "Ann,Bob")
    other_code = json.loads(club(db, "code", "new", "twice", "--json", "--table", "3"))["code"]
    club(db, "set", "twice", "--double-entry", "on")
    one, same, other = phone(), phone(), phone()
    sign_in(one, server, lid, code)
    one.fill('input[name="v1"]', "0")
    one.fill('input[name="v2"]', "7")
    one.click("#game-form button")
    assert "waits for a second person" in one.inner_text("#entry-flash")
    sign_in(same, server, lid, code)  # the same code, from a second browser
    waiting = same.locator("div[data-pending]")
    assert waiting.count() == 1 and waiting.locator("button", has_text="Confirm").count() == 0
    status = same.evaluate("""async (lid) => {
        const f = document.querySelector('div[data-pending] form');
        const body = new URLSearchParams(new FormData(f));
        return (await fetch('../league/' + lid + '/confirm', {method: 'POST', body})).status;
    }""", lid)
    assert status == 403 and games(db, "twice") == 0
    sign_in(other, server, lid, other_code)
    other.locator("div[data-pending] button", has_text="Confirm").click()
    other.wait_for_selector("#entry-flash")
    assert "entered; won by Ann" in other.inner_text("#entry-flash")
    assert games(db, "twice") == 1


@pytest.mark.parametrize("digits", ["\u0663", "\uff17"])  # Arabic-Indic three, full-width seven
def test_digits_of_other_scripts_typed_on_a_phone_are_refused_and_nothing_is_stored(server, db, phone, digits):
    name = f"digits {ord(digits)}"
    lid, code = new_league(db, name, "Ann,Bob")
    p = phone()
    sign_in(p, server, lid, code)
    p.fill('input[name="v1"]', "0")
    p.fill('input[name="v2"]', digits)
    with p.expect_navigation() as nav:
        p.click("#game-form button")
    assert nav.value.status == 400
    assert "(type the digits 0-9)" in p.inner_text("#entry-error")
    assert p.input_value('input[name="v2"]') == digits  # what was typed is kept, to correct it
    p.click("#night summary")
    p.fill('#night-form input[name="tables"]', digits)
    with p.expect_navigation() as nav:
        p.click("#night-form button")
    assert nav.value.status == 400 and "(type the digits 0-9)" in p.inner_text("#entry-error")
    assert games(db, name) == 0
