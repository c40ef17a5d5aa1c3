"""Club entry on the web (``tourney serve --club-entry``), tested over HTTP: the app is called as
an ASGI application, a phone is a cookie jar, and every form is filled from the page it came from
(its CSRF token and idempotency key included). The browser tests are in test_club_browser.py.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import sqlite3
from html import unescape
from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tourney.club import codes
from tourney.club.league import League
from tourney.results.store import open_db
from tourney.web.app import create_app

HOSTILE = '<img src=x onerror="window.__pwned=1">'


class _Forms(HTMLParser):
    """The forms of a page: action, attributes, and fields (hidden ones with their values)."""

    def __init__(self):
        super().__init__()
        self.forms: list[dict] = []
        self._form: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self._form = {"action": a.get("action"), "attrs": a, "fields": {}}
            self.forms.append(self._form)
        elif tag in ("input", "select") and self._form is not None and a.get("name"):
            value = a.get("value", "") if a.get("type") == "hidden" else None
            self._form["fields"].setdefault(a["name"], value)

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None


class Phone:
    """One browser: its own cookies and client address, talking to the ASGI app directly."""

    def __init__(self, app, client: str = "10.0.0.2"):
        self.app, self.client, self.cookies = app, client, {}
        self.html = ""

    def request(self, method: str, path: str, body: bytes = b"", kind: str | None = None):
        headers = []
        if self.cookies:
            headers.append((b"cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()).encode()))
        if kind:
            headers.append((b"content-type", kind.encode()))
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
                 "headers": headers, "client": (self.client, 5000), "server": ("testserver", 80)}
        messages = [{"type": "http.request", "body": body, "more_body": False}]
        sent: list[dict] = []

        async def receive():
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)

        asyncio.run(self.app(scope, receive, send))
        start = next(m for m in sent if m["type"] == "http.response.start")
        headers_out = [(k.decode(), v.decode()) for k, v in start["headers"]]
        for k, v in headers_out:
            if k == "set-cookie":
                name, value = v.split(";")[0].split("=", 1)
                self.cookies[name] = value
        text = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body").decode()
        if start["status"] != 303:
            self.html = text
        return start["status"], dict(headers_out), text

    def get(self, path: str):
        return self.request("GET", path)

    def post(self, path: str, fields: dict):
        return self.request("POST", path, urlencode(fields, doseq=True).encode(), "application/x-www-form-urlencoded")

    def form(self, which: str) -> dict:
        """The hidden fields of the page's form whose action ends with ``which`` (or whose id is it)."""
        parser = _Forms()
        parser.feed(self.html)
        for f in parser.forms:
            if f["attrs"].get("id") == which or (f["action"] or "").endswith("/" + which):
                return {k: v for k, v in f["fields"].items() if v is not None}
        raise AssertionError(f"no form {which} on the page")

    def submit(self, league_id: int, action: str, form: str | None = None, **fields):
        """Fill the page's form and post it (the page is fetched first when none is loaded)."""
        if not self.html:
            self.get(f"/league/{league_id}")
        data = {**self.form(form or action), **fields}
        return self.post(f"/league/{league_id}/{action}", data)

    def sign_in(self, league_id: int, code: str):
        self.get(f"/league/{league_id}")
        status, headers, _ = self.submit(league_id, "code", code=code)
        assert status == 303, self.error()
        self.get(f"/league/{league_id}")
        return self

    def error(self) -> str | None:
        m = re.search(r'id="entry-error"[^>]*>(.*?)</p>', self.html, re.S)
        return unescape(m[1]) if m else None

    def flash(self) -> str | None:
        m = re.search(r'id="entry-flash"[^>]*>(.*?)</p>', self.html, re.S)
        return unescape(m[1]) if m else None


def written(path) -> tuple:
    """Everything a write could touch, counted."""
    con = sqlite3.connect(path)
    try:
        return tuple(con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                     for t in ("club_log", "club_games", "club_versions", "club_results", "club_nights",
                               "club_absences", "club_members", "club_requests", "club_pending"))
    finally:
        con.close()


@pytest.fixture
def club(tmp_path):
    """Two leagues (``thu`` with a hostile player, ``fri``), a code for each, and the app."""
    path = tmp_path / "club.db"
    db = open_db(path)
    thu = League.create(db, "thu", ["Ann", "Bob", HOSTILE], seed=3, by="sec")
    fri = League.create(db, "fri", ["Dee", "Eve"], seed=4, by="sec", rule_set="crazy-eights")
    code_thu, row_thu = codes.new_code(thu, table=2, by="sec")
    code_fri, _ = codes.new_code(fri, by="sec")

    class Club:
        pass

    c = Club()
    c.path, c.db, c.thu, c.fri = path, db, thu, fri
    c.code_thu, c.code_fri, c.row_thu = code_thu, code_fri, row_thu
    c.app = create_app(path, club_entry=True)
    return c


def test_a_code_signs_a_phone_in_and_its_game_lands_with_who_entered_it(club):
    phone = Phone(club.app).sign_in(club.thu.id, club.code_thu.lower().replace("-", " "))
    assert phone.flash() == "signed in as table 2"
    status, headers, _ = phone.submit(club.thu.id, "add", "game-form", v1="0", v2="5", v3="elim:3")
    assert (status, headers["location"]) == (303, f"../{club.thu.id}#entry")
    phone.get(f"/league/{club.thu.id}")
    assert phone.flash() == "game 1 entered; won by Ann"
    assert re.search(r"entered by table 2, \d\d:\d\d", phone.html)
    [g] = League(club.db, "thu").game_list()
    assert [(r["entrant"], r["entry"], r["points"]) for r in g["results"]] == [("Ann", "0", 0), ("Bob", "5", 5),
                                                                            (HOSTILE, "elim:3", 3)]
    h = League(club.db, "thu").history()[-1]
    assert (h["action"], h["by"], h["source"]) == ("enter", "table 2", f"web code {club.row_thu['id']}")
    assert HOSTILE not in phone.html  # shown escaped everywhere


def test_every_shorthand_of_the_cli_is_accepted_t_for_ten_included(club):
    phone = Phone(club.app).sign_in(club.fri.id, club.code_fri)
    phone.submit(club.fri.id, "add", "game-form", v1="0", v2="8h+K+T")
    [g] = League(club.db, "fri").game_list()
    assert [r["points"] for r in g["results"]] == [0, 50 + 10 + 10]


def test_a_resubmitted_form_or_a_double_tap_stores_one_game(club):
    phone = Phone(club.app).sign_in(club.thu.id, club.code_thu)
    fields = {**phone.form("game-form"), "v1": "0", "v2": "4", "v3": "6"}
    assert phone.post(f"/league/{club.thu.id}/add", fields)[0] == 303
    assert phone.post(f"/league/{club.thu.id}/add", fields)[0] == 303
    phone.get(f"/league/{club.thu.id}")
    assert phone.flash() == "game 1 entered; won by Ann (already stored; sent again)"
    assert League(club.db, "thu").played() == 1


def test_two_phones_at_two_tables_both_land(club):
    club.thu.join("Cy", by="sec")
    club.thu.plan_night(tables=2, by="sec")
    one = Phone(club.app, "10.0.0.3").sign_in(club.thu.id, club.code_thu)
    two = Phone(club.app, "10.0.0.4").sign_in(club.thu.id, club.code_thu)
    night = League(club.db, "thu").describe_night(League(club.db, "thu").open_night())
    roster = {m.name: m.roster for m in club.thu.members()}
    forms = []
    for phone, table in ((one, night["tables"][0]), (two, night["tables"][1])):
        parser = _Forms()
        parser.feed(phone.html)
        f = next(f for f in parser.forms if f["attrs"].get("data-table") == str(table["table"]))
        values = {f"v{roster[s['entrant']]}": str(k) for k, s in enumerate(table["seats"])}
        forms.append((phone, {k: v for k, v in f["fields"].items() if v is not None} | values))
    # both phones loaded the page before either posted
    for phone, fields in forms:
        assert phone.post(f"/league/{club.thu.id}/add", fields)[0] == 303
    games = League(club.db, "thu").game_list()
    assert sorted(g["table"] for g in games) == [1, 2]


def test_a_form_without_its_csrf_token_is_refused(club):
    phone = Phone(club.app).sign_in(club.thu.id, club.code_thu)
    fields = {**phone.form("game-form"), "v1": "0", "v2": "4", "v3": "6"}
    before = written(club.path)
    for bad in ({k: v for k, v in fields.items() if k != "csrf"}, {**fields, "csrf": "0" * 32}):
        status, _, _ = phone.post(f"/league/{club.thu.id}/add", bad)
        assert status == 403
        assert "not sent from this page" in phone.error()
    assert written(club.path) == before


def test_a_code_for_one_league_writes_nothing_in_another(club):
    phone = Phone(club.app).sign_in(club.thu.id, club.code_thu)
    csrf = phone.form("game-form")["csrf"]
    before = written(club.path)
    status, _, _ = phone.post(f"/league/{club.fri.id}/add", {"csrf": csrf, "key": secrets.token_urlsafe(18),
                                                               "v1": "0", "v2": "3"})
    assert status == 403 and "enter the league's code first" in phone.error()
    phone.get(f"/league/{club.fri.id}")
    status, _, _ = phone.submit(club.fri.id, "code", code=club.code_thu)
    assert status == 403 and phone.error().startswith("wrong code for this league")
    assert written(club.path) == before


def test_a_revoked_code_stops_working_at_once(club):
    phone = Phone(club.app).sign_in(club.thu.id, club.code_thu)
    fields = {**phone.form("game-form"), "v1": "0", "v2": "4", "v3": "6"}
    codes.revoke(League(club.db, "thu"), club.row_thu["id"], by="sec")
    before = written(club.path)
    assert phone.post(f"/league/{club.thu.id}/add", fields)[0] == 403
    assert written(club.path) == before
    fresh = Phone(club.app, "10.0.0.9")
    fresh.get(f"/league/{club.thu.id}")
    assert fresh.submit(club.thu.id, "code", code=club.code_thu)[0] == 403


def test_wrong_codes_are_rate_limited_per_client_and_logged(club, caplog):
    phone = Phone(club.app, "10.0.0.66")
    phone.get(f"/league/{club.thu.id}")
    with caplog.at_level(logging.WARNING, logger="tourney.web.club"):
        statuses = [phone.submit(club.thu.id, "code", code=f"AAAA-AAA{c}")[0] for c in "23456"]
        assert statuses == [403] * 5
        status, _, _ = phone.submit(club.thu.id, "code", code=club.code_thu)  # even the right one, now
    assert status == 429 and "too many wrong codes" in phone.error()
    assert sum("10.0.0.66" in r.getMessage() for r in caplog.records) == 6
    Phone(club.app, "10.0.0.67").sign_in(club.thu.id, club.code_thu)  # another client is not held up


def test_void_restore_absence_and_a_night_from_the_phone(club):
    phone = Phone(club.app).sign_in(club.thu.id, club.code_thu)
    phone.submit(club.thu.id, "add", "game-form", v1="0", v2="4", absent="3")
    phone.get(f"/league/{club.thu.id}")
    assert phone.flash() == f"game 1 entered; won by Ann; absent: {HOSTILE}"
    phone.submit(club.thu.id, "void")
    phone.get(f"/league/{club.thu.id}")
    assert phone.flash() == "game 1 voided (version 2)"
    phone.submit(club.thu.id, "restore")
    phone.get(f"/league/{club.thu.id}")
    assert phone.flash() == "game 1 restored (version 3)"
    phone.submit(club.thu.id, "night", absent="1")
    phone.get(f"/league/{club.thu.id}")
    assert phone.flash() == "round 2 planned at 1 tables"
    league = League(club.db, "thu")
    assert [h["action"] for h in league.history()][-4:] == ["enter", "void", "restore", "night"]
    assert {h["source"] for h in league.history()[-4:]} == {f"web code {club.row_thu['id']}"}
    assert league.describe_night(league.open_night())["absent"] == ["Ann"]


def test_refused_by_the_same_checks_and_messages_as_the_cli(club, run):
    phone = Phone(club.app).sign_in(club.thu.id, club.code_thu)
    before = written(club.path)
    status, _, _ = phone.submit(club.thu.id, "add", "game-form", v1="0", v2="0", v3="4")
    assert status == 400
    assert phone.error() == "two winners: Ann and Bob both have 0 cards; only one player can go out"
    r = run("club", "add", "thu", "--db", str(club.path), "--cards", f"Ann=0,Bob=0,{HOSTILE}=4", ok=False)
    assert r.stderr.strip() == f"error: {phone.error()}"
    assert written(club.path) == before


def test_double_entry_counts_a_game_once_a_second_phone_confirms_it(club):
    club.thu.set_rules(double_entry=True, by="sec")
    one = Phone(club.app, "10.0.0.3").sign_in(club.thu.id, club.code_thu)
    one.submit(club.thu.id, "add", "game-form", v1="0", v2="4", v3="6")
    one.get(f"/league/{club.thu.id}")
    assert one.flash() == "entry 1 waits for a second person to confirm it with another code"
    assert League(club.db, "thu").played() == 0
    assert one.form("reject")  # the one who entered it may withdraw it, not confirm it
    code2, _ = codes.new_code(League(club.db, "thu"), table=3, by="sec")
    two = Phone(club.app, "10.0.0.4").sign_in(club.thu.id, code2)
    assert re.search(r"Waiting: Ann=0, Bob=4, .*entered by table 2, \d\d:\d\d", two.html, re.S)
    two.submit(club.thu.id, "confirm")
    [g] = League(club.db, "thu").game_list()
    assert g["by"] == "table 2, confirmed by table 3"
    with pytest.raises(AssertionError):
        one.form("confirm")


def test_a_waiting_entry_can_be_rejected_and_then_never_counts(club):
    club.thu.set_rules(double_entry=True, by="sec")
    one = Phone(club.app, "10.0.0.3").sign_in(club.thu.id, club.code_thu)
    one.submit(club.thu.id, "add", "game-form", v1="0", v2="4", v3="6")
    code2, _ = codes.new_code(League(club.db, "thu"), table=3, by="sec")
    two = Phone(club.app, "10.0.0.4").sign_in(club.thu.id, code2)
    confirm = two.form("confirm")
    two.submit(club.thu.id, "reject")
    two.get(f"/league/{club.thu.id}")
    assert two.flash() == "entry 1 rejected"
    status, _, _ = two.post(f"/league/{club.thu.id}/confirm", {**confirm, "key": secrets.token_urlsafe(18)})
    assert status == 409 and two.error() == "no entry 1 is waiting for confirmation"
    assert League(club.db, "thu").played() == 0
    assert [h["action"] for h in League(club.db, "thu").history()][-3:] == ["pending", "code", "reject"]


def test_a_bad_entry_checked_for_double_entry_is_refused_and_nothing_waits(club):
    club.thu.set_rules(double_entry=True, by="sec")
    phone = Phone(club.app).sign_in(club.thu.id, club.code_thu)
    before = written(club.path)
    assert phone.submit(club.thu.id, "add", "game-form", v1="3", v2="4", v3="6")[0] == 400
    assert phone.error() == "no winner: exactly one player must have 0 cards left"
    assert written(club.path) == before


# ---- a fuzzer of bad form input: each is refused with a message on the page, 4xx, nothing written

_number_or_elim = re.compile(r"\s*(elim\s*:?\s*)?\d+\s*", re.I)
BAD_VALUE = st.one_of(
    st.from_regex(r"-[1-9][0-9]{0,4}", fullmatch=True),  # negative points
    st.integers(min_value=100_000, max_value=10**40).map(str),  # huge values
    st.text(min_size=1, max_size=30).filter(lambda s: s.strip() and not _number_or_elim.fullmatch(s)),  # not a number
    st.text(min_size=201, max_size=400),  # longer than any field
)


@st.composite
def bad_forms(draw):
    """(action, fields to change, fields to drop) that must be refused."""
    kind = draw(st.sampled_from(["value", "unknown player", "missing player", "game", "night", "key", "table",
                                 "csrf"]))
    if kind == "csrf":
        return "add", {"csrf": draw(st.text(max_size=40))}, draw(st.sampled_from([[], ["csrf"]]))
    if kind == "value":
        return "add", {f"v{draw(st.integers(1, 3))}": draw(BAD_VALUE)}, []
    if kind == "unknown player":
        return "add", {f"v{draw(st.integers(4, 999_999))}": "2"}, []
    if kind == "missing player":
        return "add", {}, [f"v{draw(st.integers(1, 3))}"]
    if kind == "table":
        # a blank table (spaces, a stray newline) is no table, as an empty field is: not a bad form
        return "add", {"table": draw(st.one_of(st.integers(1, 10**6).map(str),
                                               st.text(min_size=1, max_size=9).filter(str.strip)))}, []
    if kind == "game":
        bad = st.one_of(st.integers(2, 10**9).map(str), st.from_regex(r"-\d{1,4}", fullmatch=True),
                        st.text(max_size=12).filter(lambda s: not s.strip().isdigit()))
        return draw(st.sampled_from(["void", "restore"])), {"game": draw(bad)}, []
    if kind == "night":
        return "night", draw(st.sampled_from([{"tables": "0"}, {"tables": "x"}, {"size": "-1"}, {"split": "alpha"},
                                              {"absent": "77"}, {"tables": "9" * 30}])), []
    return "add", {"key": draw(st.sampled_from(["", "short", "x" * 100, "bad key!" * 3]))}, []


@pytest.fixture(scope="module")
def fuzz_club(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "club.db"
    db = open_db(path)
    league = League.create(db, "thu", ["Ann", "Bob", HOSTILE], seed=3, by="sec")
    league.add([("Ann", "0"), ("Bob", "3"), (HOSTILE, "4")], by="sec")
    code, _ = codes.new_code(league, by="sec")
    phone = Phone(create_app(path, club_entry=True)).sign_in(league.id, code)
    return path, league.id, phone


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bad=bad_forms())
def test_fuzzed_bad_forms_get_a_message_a_4xx_and_write_nothing(fuzz_club, bad):
    path, league_id, phone = fuzz_club
    action, change, drop = bad
    phone.get(f"/league/{league_id}")
    base = {**phone.form("game-form"), "v1": "0", "v2": "4", "v3": "6", "game": "1"}
    fields = {k: v for k, v in {**base, **change}.items() if k not in drop}
    before = written(path)
    status, _, _ = phone.post(f"/league/{league_id}/{action}", fields)
    assert 400 <= status < 500, (status, fields)
    assert phone.error(), fields
    assert written(path) == before


def test_a_form_that_is_not_a_form_is_refused(fuzz_club):
    path, league_id, phone = fuzz_club
    before = written(path)
    status, _, _ = phone.request("POST", f"/league/{league_id}/add", b'{"v1": 0}', "application/json")
    assert status == 415 and "from its page" in phone.error()
    status, _, _ = phone.request("POST", f"/league/{league_id}/add", b"v1=" + b"9" * 20_000,
                                 "application/x-www-form-urlencoded")
    assert status == 413
    assert phone.request("POST", f"/league/{league_id}/drop-tables", b"", "application/x-www-form-urlencoded")[0] == 404
    assert written(path) == before


def test_a_forged_csrf_token_of_any_text_is_refused_not_a_crash(club):
    phone = Phone(club.app).sign_in(club.thu.id, club.code_thu)
    fields = {**phone.form("game-form"), "v1": "0", "v2": "4", "v3": "6"}
    for token in ("é" * 32, "", "\x00", fields["csrf"] + "0"):
        assert phone.post(f"/league/{club.thu.id}/add", {**fields, "csrf": token})[0] == 403
    assert League(club.db, "thu").played() == 0


def test_the_rate_limit_forgets_a_client_once_its_window_has_passed():
    from tourney.web.club_access import Limiter

    now = [0.0]
    limiter = Limiter(max_failures=2, window=60, clock=lambda: now[0])
    assert [limiter.attempt("a")[1], limiter.attempt("a")[1]] == [1, 0]
    assert limiter.attempt("a") is None
    assert limiter.blocked("a") and not limiter.blocked("b")
    now[0] = 61.0
    assert not limiter.blocked("a")
    assert limiter._failures == {}
    stamp, _ = limiter.attempt("a")
    limiter.succeeded("a", stamp)  # a right code does not count
    assert limiter._failures == {}


# ---- the gaps an attacker on the club's network found: bursts, the cost of a guess, sessions,
# double entry with one code, other scripts' digits


def test_a_burst_of_wrong_codes_sent_at_once_gets_no_more_tries_than_the_limit(club):
    """Twelve wrong codes, sent at the same moment from one address to a real server, each of
    which costs a hash (they share the real code's public part): five are tried, seven refused."""
    import http.client
    import threading

    from helpers import start_serve, stop_serve

    from tourney.web.club_access import MAX_FAILURES

    proc, url = start_serve(club.path, "--club-entry")
    try:
        host, port = url.removeprefix("http://").split(":")
        first = http.client.HTTPConnection(host, int(port), timeout=60)
        first.request("GET", f"/league/{club.thu.id}")
        page = first.getresponse()
        cookie = page.getheader("set-cookie").split(";")[0]
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page.read().decode())[1]
        secret = codes.normalise(club.code_thu)[codes.LOOKUP:]
        wrong = [club.code_thu[:codes.LOOKUP] + "".join(c for c in codes.ALPHABET if c not in secret)[k:k + 8]
                 .ljust(8, "Z") for k in range(12)]
        assert len(set(wrong)) == 12 and all(codes.normalise(w) != codes.normalise(club.code_thu) for w in wrong)
        start = threading.Barrier(len(wrong))
        statuses: list[int] = []

        def guess(code: str) -> None:
            con = http.client.HTTPConnection(host, int(port), timeout=120)
            con.connect()  # connected before the barrier: the requests leave together
            body = urlencode({"csrf": csrf, "code": code})
            start.wait()
            con.request("POST", f"/league/{club.thu.id}/code", body,
                        {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"})
            statuses.append(con.getresponse().status)
            con.close()

        threads = [threading.Thread(target=guess, args=(w,)) for w in wrong]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(statuses) == [403] * MAX_FAILURES + [429] * (len(wrong) - MAX_FAILURES)
        con = http.client.HTTPConnection(host, int(port), timeout=60)  # and the right code waits too
        con.request("POST", f"/league/{club.thu.id}/code", urlencode({"csrf": csrf, "code": club.code_thu}),
                    {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"})
        assert con.getresponse().status == 429
    finally:
        stop_serve(proc)


def test_a_guess_costs_at_most_one_hash_however_many_codes_are_live(club, monkeypatch):
    live = [codes.new_code(club.thu, table=t, by="sec")[0] for t in range(3, 10)]
    hashed: list[bytes] = []
    real = codes.digest
    monkeypatch.setattr(codes, "digest", lambda code, salt: hashed.append(salt) or real(code, salt))
    taken = {codes.normalise(c)[:codes.LOOKUP] for c in [*live, club.code_thu]}
    unknown = next(a + b for a in codes.ALPHABET for b in codes.ALPHABET if a + b not in taken)
    assert codes.check(club.thu.tables, club.thu.id, f"{unknown}-AAAA-AAAA") is None
    assert hashed == []  # no live code has that public part: nothing to hash
    assert codes.check(club.thu.tables, club.thu.id, live[3][:3] + "AAAA-AAAA") is None
    assert len(hashed) == 1
    assert codes.check(club.thu.tables, club.thu.id, live[3])["label"] == "table 6"
    assert len(hashed) == 2
    assert codes.check(club.thu.tables, club.thu.id, "AAAA-AAAA") is None  # the older form: no such codes here
    assert len(hashed) == 2


def test_no_two_live_codes_of_a_league_share_a_public_part(club, monkeypatch):
    made = [codes.new_code(club.fri, by="sec")[0] for _ in range(12)]
    assert len({codes.normalise(c)[:codes.LOOKUP] for c in made}) == 12
    monkeypatch.setattr(codes, "ALPHABET", "AB")  # four public parts; two taken by live codes below
    league = League(club.db, "fri")
    codes.revoke(league, None, every=True, by="sec")
    kept = [codes.new_code(league, by="sec")[0] for _ in range(4)]
    assert len({c[:2] for c in kept}) == 4
    with pytest.raises(codes.ClubError, match="has 4 live codes, the most it can have"):
        codes.new_code(league, by="sec")


def test_a_code_made_before_the_public_part_existed_still_signs_in_after_the_upgrade(tmp_path, run):
    from sqlite_utils import Database

    from tourney.results import schema

    path = tmp_path / "old.db"
    old = Database(path)
    schema.MIGRATIONS.apply(old, stop_before="m014_club_code_lookup")
    league = League.create(old, "thu", ["Ann", "Bob"], seed=3, by="sec")
    salt = secrets.token_bytes(16)
    legacy = "K7QM-3XPA"  # eight letters, as codes were made before
    old["club_codes"].insert({"league_id": league.id, "label": "code 1", "salt": salt,
                              "hash": codes.digest(legacy, salt), "created_at": "2026-01-01T00:00:00Z",
                              "created_by": "sec"})
    old.conn.close()
    run("upgrade", "--db", str(path))
    db = open_db(path)
    league = League(db, "thu")
    newer, _ = codes.new_code(league, by="sec")
    assert codes.check(league.tables, league.id, legacy.lower())["label"] == "code 1"
    assert codes.check(league.tables, league.id, newer)["label"] == "code 2"
    assert codes.check(league.tables, league.id, newer[:2] + "-" + legacy) is None
    phone = Phone(create_app(path, club_entry=True)).sign_in(league.id, legacy)
    assert phone.flash() == "signed in as code 1"


def test_signing_out_ends_the_session_on_the_server_and_a_copied_cookie_writes_nothing(club):
    phone = Phone(club.app, "10.0.0.3").sign_in(club.thu.id, club.code_thu)
    thief = Phone(club.app, "10.0.0.99")
    thief.cookies = dict(phone.cookies)  # the cookie as it was, copied off the phone
    thief.get(f"/league/{club.thu.id}")
    stolen = {**thief.form("game-form"), "v1": "0", "v2": "4", "v3": "6"}  # the copy works while signed in
    phone.submit(club.thu.id, "leave")
    phone.get(f"/league/{club.thu.id}")
    assert phone.flash() == "signed out" and 'id="signed-in"' not in phone.html
    before = written(club.path)
    assert thief.post(f"/league/{club.thu.id}/add", stolen)[0] == 403
    assert "enter the league's code first" in thief.error()
    assert written(club.path) == before
    thief.get(f"/league/{club.thu.id}")
    assert 'id="signed-in"' not in thief.html


def test_the_csrf_token_changes_at_sign_in_and_the_one_from_before_is_refused(club):
    phone = Phone(club.app, "10.0.0.3")
    phone.get(f"/league/{club.thu.id}")
    before_sign_in = phone.form("code-form")["csrf"]
    phone.submit(club.thu.id, "code", code=club.code_thu)
    phone.get(f"/league/{club.thu.id}")
    after = phone.form("game-form")
    assert after["csrf"] != before_sign_in
    written_before = written(club.path)
    status, _, _ = phone.post(f"/league/{club.thu.id}/add", {**after, "csrf": before_sign_in, "v1": "0", "v2": "4",
                                                             "v3": "6"})
    assert status == 403 and "not sent from this page" in phone.error()
    assert written(club.path) == written_before
    assert phone.post(f"/league/{club.thu.id}/add", {**after, "v1": "0", "v2": "4", "v3": "6"})[0] == 303
    assert League(club.db, "thu").played() == 1


def test_double_entry_is_not_confirmed_with_the_code_that_entered_it_from_another_browser(club):
    club.thu.set_rules(double_entry=True, by="sec")
    one = Phone(club.app, "10.0.0.3").sign_in(club.thu.id, club.code_thu)
    one.submit(club.thu.id, "add", "game-form", v1="0", v2="4", v3="6")
    same = Phone(club.app, "10.0.0.4").sign_in(club.thu.id, club.code_thu)  # a second browser, the same code
    with pytest.raises(AssertionError):
        same.form("confirm")
    assert "Withdraw it" in same.html
    before = written(club.path)
    forged = {"csrf": same.form("reject")["csrf"], "key": secrets.token_urlsafe(18), "pending": "1"}
    status, _, _ = same.post(f"/league/{club.thu.id}/confirm", forged)
    assert status == 403
    assert same.error() == "entered with this code (table 2): another of the league's codes must confirm it"
    assert written(club.path) == before and League(club.db, "thu").played() == 0
    code2, _ = codes.new_code(League(club.db, "thu"), table=3, by="sec")
    other = Phone(club.app, "10.0.0.5").sign_in(club.thu.id, code2)
    other.submit(club.thu.id, "confirm")
    [g] = League(club.db, "thu").game_list()
    assert g["by"] == "table 2, confirmed by table 3"


#: other scripts' digits: Arabic-Indic, Extended Arabic-Indic (Persian), full-width, Devanagari
OTHER_DIGITS = ["\u0663", "\u06f5", "\uff15", "\u0967", "\u0660\u0661"]


@pytest.mark.parametrize("digits", OTHER_DIGITS)
def test_other_scripts_digits_are_refused_in_every_numeric_field(club, digits):
    club.thu.add([("Ann", "0"), ("Bob", "3"), (HOSTILE, "4")], by="sec")
    phone = Phone(club.app).sign_in(club.thu.id, club.code_thu)
    base = {**phone.form("game-form"), "v1": "0", "v2": "4", "v3": "6"}
    night = phone.form("night-form")
    cases = [("add", {**base, "v2": digits}), ("add", {**base, "v3": "elim:" + digits}),
             ("add", {**base, "table": digits}), ("add", {**base, "first": digits}),
             ("add", {**base, "absent": digits}), ("add", {**base, "v" + digits: "2"}),
             ("void", {**base, "game": digits}), ("restore", {**base, "game": digits}),
             ("night", {**night, "tables": digits}), ("night", {**night, "size": digits}),
             ("night", {**night, "absent": digits}), ("confirm", {**base, "pending": digits})]
    before = written(club.path)
    for action, fields in cases:
        status, _, _ = phone.post(f"/league/{club.thu.id}/{action}", fields)
        assert 400 <= status < 500, (action, fields)
        assert "(type the digits 0-9)" in phone.error(), (action, fields, phone.error())
    assert written(club.path) == before
    for path in (f"/league/{digits}", f"/league/{digits}.json", f"/event/{digits}", f"/game/{digits}.json"):
        assert phone.get(path)[0] == 404, path
    fri = Phone(club.app).sign_in(club.fri.id, club.code_fri)  # points, and cards, in crazy eights
    for value in (digits, f"{digits}h+K"):
        status, _, _ = fri.submit(club.fri.id, "add", "game-form", v1="0", v2=value)
        assert status == 400 and "(type the digits 0-9)" in fri.error(), value
    assert written(club.path) == before
