"""The web view, tested as a person uses it: ``tourney serve`` runs as its own process and a real
headless Chromium (Debian's, driven by Playwright) opens its pages. The database holds real games
(played by the built-in bots and a bot that faults) under hostile names.

Browser waits have generous time-outs only so that a broken page fails instead of hanging; no
test measures time.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import start_serve, stop_serve
from typer.testing import CliRunner

import engine
import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.config import parse_config
from tourney.events import runner
from tourney.results import store
from tourney.web import pages

ROOT = Path(__file__).resolve().parent.parent
FAULT_BOT = str(ROOT / "tests" / "bots" / "fault_bot.py")
#: names that would run script or break markup if any page put them in unescaped
XSS = '<img src=x onerror="window.__pwned=1">'
SCRIPT = "</script><script>window.__pwned=2</script>"
QUOTES = "Ann \"the\" & 'co'"
EVENT = "<b>spring</b> & co"
LEAGUE = "Thu <i>night</i> </script>"
WAIT_MS = 20_000  # a ceiling against hanging, not a measure


def config(name: str, entrants: list[dict], **event) -> dict:
    # public seeds: the tests know the games these seeds deal (a secret would deal afresh each run)
    return {"event": {"name": name, "format": "round-robin", "rule_set": "crazier-eights", "seed": 3,
                      "games": 1, "public_seeds": True, **event}, "entrants": entrants}


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def site_db(tmp_path_factory) -> Path:
    """A round robin of three (one faults on purpose), a crazy-eights game, and a club league
    with a correction, every name hostile."""
    folder = tmp_path_factory.mktemp("web")
    path = folder / "web.db"
    cfg = config(EVENT, [{"name": XSS, "builtin": "greedy"}, {"name": QUOTES, "builtin": "random"},
                         {"name": SCRIPT, "command": [sys.executable, FAULT_BOT, "illegal", "3"]}], games=3)
    (folder / "rr.toml").write_text(_toml(cfg), encoding="utf-8")
    r = invoke("run", str(folder / "rr.toml"), "--db", str(path), "-j", "1", "-q")
    assert r.exit_code == 0, r.output
    r = invoke("play", "greedy", "random", "--rule-set", "crazy-eights", "--seed", "4", "--public-seeds", "--db",
               str(path))
    assert r.exit_code == 0, r.output
    for args in (["new", LEAGUE, "--players", f"Ann,Bob,{XSS}", "--seed", "5"],
                 ["add", LEAGUE, "--cards", f"Ann=3,Bob=6,{XSS}=0"],
                 ["add", LEAGUE, "--cards", f"Ann=0,Bob=6,{XSS}=4"],
                 ["correct", LEAGUE, "2", "--cards", "Bob=9", "--yes"]):
        r = invoke("club", *args, "--db", str(path))
        assert r.exit_code == 0, r.output
    return path


def _toml(data: dict) -> str:
    import tomli_w

    return tomli_w.dumps(data)


@pytest.fixture(scope="module")
def server(site_db):
    """``tourney serve`` on a free port of 127.0.0.1, stopped after the module's tests."""
    proc, url = start_serve(site_db)
    yield url
    stop_serve(proc)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert errors == [], errors  # no script error on any page


def get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url) as r:
            return r.status, r.headers.get("content-type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type", ""), e.read().decode()


def ids(db_path: Path) -> dict:
    db = store.open_db(db_path, readonly=True)
    ev = db.execute("select id from events where name = ?", [EVENT]).fetchone()[0]
    fault = db.execute("select st.game_id from seats st join entrants e on e.id = st.entrant_id "
                       "where e.name = ? and st.fault is not null order by st.game_id", [SCRIPT]).fetchone()[0]
    long_game = db.execute("select id from games where event_id = ? order by decisions desc", [ev]).fetchone()[0]
    eights = db.execute("select id from games where rule_set = 'crazy-eights'").fetchone()[0]
    return {"event": ev, "fault_game": fault, "game": long_game, "eights_game": eights,
            "league": db.execute("select id from club_leagues").fetchone()[0],
            "entrant": db.execute("select id from entrants where name = ?", [SCRIPT]).fetchone()[0]}


# --------------------------------------------------------------------------- in the browser


def test_click_from_the_events_list_to_a_game(server, page):
    page.goto(server + "/")
    page.get_by_role("link", name=EVENT).click()
    assert page.locator("h1").inner_text().startswith(EVENT)
    assert page.locator("#standings tbody tr").count() == 3
    page.locator("a.game-link").first.click()
    page.wait_for_selector("#replay [data-card]")
    assert page.locator("#step").inner_text().startswith("step 0 of ")
    page.locator("#seats").get_by_role("link", name=XSS).click()
    assert page.locator("h1").inner_text() == XSS
    page.goto(server + "/")
    page.get_by_role("link", name=LEAGUE.strip()).click()
    assert "Bob" in page.locator("#next-first").inner_text()


def engine_states(row: dict) -> list[dict]:
    """The engine's table after each prefix of the stored choices, replayed here directly."""
    game = engine.new_game(**store.replay_start(row))
    choices = json.loads(row["choices"])
    cards = game.card_table()
    states = []
    for i in range(len(choices) + 1):
        states.append({"hands": [list(h) for h in game.hands],
                       "in_play": [list(c) for c in getattr(game, "in_play", [])],
                       "top": game.discard[-1] if game.discard else None, "stock": len(game.draw_pile),
                       "choice": choices[i] if i < len(choices) else None,
                       "labels": {o: game.label(o) for o in (game.pending.options if game.pending else [])},
                       "names": {c: cards[c]["name"] for h in game.hands for c in h}})
        if i < len(choices):
            engine.apply_choice(game, choices[i])
    return states


def screen(page) -> dict:
    return page.evaluate("""() => {
        const cards = sel => [...document.querySelectorAll(sel + ' [data-card]')].map(e => +e.dataset.card);
        const hands = [...document.querySelectorAll('[data-hand]')].map(h => cards(`[data-hand="${h.dataset.hand}"]`));
        const inPlay = [...document.querySelectorAll('[data-in-play]')]
            .map(h => cards(`[data-in-play="${h.dataset.inPlay}"]`));
        const names = {};
        document.querySelectorAll('[data-hand] [data-card]').forEach(e => {
            names[e.dataset.card] = (e.querySelector('.name') || e.querySelector('.corner')).textContent; });
        const discard = cards('[data-discard]');
        const chosen = document.querySelector('#decision li.chosen');
        return {hands, in_play: inPlay, names, top: discard.length ? discard[discard.length - 1] : null,
                stock: +document.querySelector('[data-draw-pile]').dataset.drawPile,
                step: +document.querySelector('#step').dataset.step,
                chosen: chosen ? chosen.dataset.option : null,
                backs: document.querySelectorAll('#table .card.back').length};
    }""")


@pytest.mark.parametrize("which", ["game", "eights_game"])
def test_every_step_of_the_replay_shows_the_engine_state(server, site_db, page, which):
    game_id = ids(site_db)[which]
    db = store.open_db(site_db, readonly=True)
    row = store.load_replay(db, game_id)
    assert row is not None
    states = engine_states(row)
    assert len(states) > 5
    page.goto(f"{server}/game/{game_id}")
    for k, want in enumerate(states):
        if k:
            page.click("#next")
        got = screen(page)
        assert got["step"] == k
        assert got["hands"] == want["hands"], k
        assert got["in_play"] == want["in_play"], k
        assert (got["top"], got["stock"]) == (want["top"], want["stock"]), k
        if want["choice"] is not None and not want["choice"].startswith("forfeit:"):
            assert got["chosen"] == want["choice"], k
            assert page.locator("#decision li.chosen").inner_text() == "✔ " + want["labels"][want["choice"]]
        if which == "game":  # Crazier Eights cards carry their names
            assert {int(c): n for c, n in got["names"].items()} == {c: want["names"][c] for c in map(int, got["names"])}
    assert "won" in page.locator("#decision").inner_text()  # the last step tells the result
    for _ in range(3):
        page.click("#prev")
    assert screen(page)["hands"] == states[-4]["hands"]  # stepping back shows the earlier state


def test_one_seats_view_hides_the_other_hands(server, site_db, page):
    game_id = ids(site_db)["game"]
    page.goto(f"{server}/game/{game_id}")
    page.click("#next")
    all_hands = screen(page)
    page.select_option("#view", "0")
    seat0 = screen(page)
    assert seat0["hands"][0] == all_hands["hands"][0]
    assert seat0["hands"][1] == [] and seat0["backs"] == len(all_hands["hands"][1]) + 1  # + the stock
    page.select_option("#view", "all")
    assert screen(page)["hands"] == all_hands["hands"]


def test_a_fault_is_explained_on_the_game_page(server, site_db, page):
    page.goto(f"{server}/game/{ids(site_db)['fault_game']}")
    text = page.locator("#result").inner_text()
    assert f"{SCRIPT} (seat 1) lost by a fault: illegal (option 'no-such-option' was not offered" in text
    page.click("#last")
    page.click("#prev")
    assert "forfeits: illegal" in page.locator("#decision").inner_text()


def test_the_event_page_follows_a_run_without_reload(server, site_db, page):
    cfg = parse_config(config("live <u>event</u>", [{"name": "greedy", "builtin": "greedy"},
                                                     {"name": XSS, "builtin": "random"},
                                                     {"name": "random", "builtin": "random"}]))
    writer = store.open_db(site_db)
    event_id, _ = runner.prepare_event(writer, cfg, "test")
    page.goto(f"{server}/event/{event_id}")
    assert page.locator("#games-played").inner_text() == "0"
    page.evaluate("window.__same_page = true")
    tasks = runner.pending_tasks(writer, event_id, cfg)
    for task in tasks:
        runner.Runner(writer, event_id, [task], concurrency=1).run()  # what tourney run does, a series at a time
        stored = writer.execute("select count(*) from games where event_id = ?", [event_id]).fetchone()[0]
        page.wait_for_function(f"document.querySelector('#games-played').textContent === '{stored}'",
                               timeout=WAIT_MS)
        games = {page.locator("#standings tbody tr").nth(i).get_attribute("data-entrant"):
                 int(page.locator("#standings tbody tr td.games").nth(i).inner_text()) for i in range(3)}
        want = {r["entrant"]: r["games"] for r in pages.event_data(writer, event_id)["standings"]["standings"]}
        assert games == want and sum(games.values()) == 2 * stored
        assert page.locator("#series a.game-link").count() == stored
    assert page.evaluate("window.__same_page") is True  # updated in place, never reloaded
    store.finish_event(writer, event_id)
    page.wait_for_function("document.querySelector('#status').textContent === 'finished'", timeout=WAIT_MS)


@pytest.mark.parametrize("path", ["/", "/event/{event}", "/game/{game}", "/game/{fault_game}",
                                  "/entrant/{entrant}", "/league/{league}"])
def test_hostile_names_are_shown_as_text(server, site_db, page, path):
    page.goto(server + path.format(**ids(site_db)))
    if "game" in path:
        page.click("#last")
    assert page.evaluate("window.__pwned") is None
    scripts = page.evaluate("[...document.scripts].map(s => s.src ? 'src' : s.type)")
    assert all(s in ("src", "application/json") for s in scripts)
    assert page.locator("img").count() == 0
    body = page.locator("body").inner_text()
    assert any(name in body for name in (XSS, SCRIPT, EVENT, LEAGUE.strip()))


def test_the_static_site_works_from_the_disk(site_db, tmp_path, page):
    r = invoke("report", "--format", "site", "-o", str(tmp_path / "site"), "--db", str(site_db))
    assert r.exit_code == 0, r.output
    page.goto((tmp_path / "site" / "index.html").as_uri())
    page.get_by_role("link", name=EVENT).click()
    page.locator("a.game-link").first.click()
    page.wait_for_selector("#replay [data-card]")
    page.click("#next")
    assert screen(page)["step"] == 1


# --------------------------------------------------------------------------- over HTTP


def test_every_page_has_a_json_twin(server, site_db):
    n = ids(site_db)
    status, kind, text = get(server + "/index.json")
    index = json.loads(text)
    assert status == 200 and kind.startswith("application/json")
    assert EVENT in [e["name"] for e in index["events"]] and [lg["name"] for lg in index["leagues"]] == [LEAGUE.strip()]
    event = json.loads(get(f"{server}/event/{n['event']}.json")[2])
    assert event["standings"]["games_played"] == 6 and event["elo"] is None  # deprecated, kept one version
    assert [r["entrant"] for r in event["standings"]["standings"]] == [XSS, QUOTES, SCRIPT]
    # head to head: the greedy bot finished ahead of the faulting bot in both their games
    h2h = event["head_to_head"]["cells"]
    assert (h2h[XSS][SCRIPT]["wins"], h2h[XSS][SCRIPT]["draws"], h2h[XSS][SCRIPT]["losses"]) == (2, 0, 0)
    assert (h2h[SCRIPT][XSS]["wins"], h2h[SCRIPT][XSS]["draws"], h2h[SCRIPT][XSS]["losses"]) == (0, 0, 2)
    # the deprecated cross-table says the same in its old words
    assert event["cross_table"]["cells"][XSS][SCRIPT] == {"won": 2, "drawn": 0, "lost": 0}
    entrant = json.loads(get(f"{server}/entrant/{n['entrant']}.json")[2])
    assert entrant["faults"] == {"illegal": 4} and entrant["totals"]["games"] == 4
    game = json.loads(get(f"{server}/game/{n['fault_game']}.json")[2])
    assert game["seats"][1]["fault"] == "illegal" and game["replay"]["steps"][-1]["decision"] is None
    league = json.loads(get(f"{server}/league/{n['league']}.json")[2])
    assert [h["action"] for h in league["history"]] == ["create", "enter", "enter", "correct"]
    assert league["standings"]["next_first"]["entrant"] == "Bob"


def test_a_slow_event_is_drawn_at_once_while_its_standings_are_recomputed(tmp_path):
    path = tmp_path / "slow.db"
    cfg = parse_config(config("slow", [{"name": n, "builtin": "random"} for n in ("a", "b", "c")]))
    writer = store.open_db(path)
    event_id, _ = runner.prepare_event(writer, cfg, "test")
    tasks = runner.pending_tasks(writer, event_id, cfg)
    runner.Runner(writer, event_id, tasks[:1], concurrency=1).run()
    reader = store.open_db(path, readonly=True)
    # slow_seconds=0: every event counts as slow, so every change is computed in the background
    cache = pages.Cache(opener=lambda: store.open_db(path, readonly=True), slow_seconds=0.0)
    first = pages.event_data(reader, event_id, cache=cache)
    assert first["standings"]["games_played"] == 1 and not first["updating"]
    runner.Runner(writer, event_id, tasks[1:2], concurrency=1).run()
    stale = pages.event_data(reader, event_id, cache=cache)
    assert stale["updating"] and stale["stamp"] == first["stamp"]
    assert stale["standings"]["games_played"] == 1  # the standings shown are the previous ones ...
    assert sum(len(s["games"]) for s in stale["series"]) == 2  # ... the series list is current
    cache.wait()
    fresh = pages.event_data(reader, event_id, cache=cache)
    assert not fresh["updating"] and fresh["standings"]["games_played"] == 2
    assert fresh["stamp"] == pages.event_stamp(reader, event_id) != first["stamp"]
    assert fresh["standings"] == pages.event_data(reader, event_id)["standings"]  # as computed without a cache


@pytest.mark.parametrize("path", [
    "/event/999999", "/event/abc", "/event/-1", "/event/1.5", "/event/1e3", "/event/" + "9" * 40,
    "/game/0", "/game/999999.json", "/entrant/%00", "/league/1;drop", "/event/1?page=0", "/event/1?page=x",
    "/static/..%2f..%2fpyproject.toml", "/static/%2e%2e/app.py", "/static/render.py", "/templates/base.html",
    "/event/1/../../pyproject.toml", "/nope", "/event/999/stamp.json",
])
def test_unknown_or_malformed_urls_are_404_pages(server, path):
    status, kind, text = get(server + path)
    assert status == 404, path
    assert "Traceback" not in text and "pyproject" not in text
    if kind.startswith("text/html"):
        assert "<h1>Not found</h1>" in text
    else:
        assert json.loads(text)["error"] == "not found"


def test_serving_never_writes_the_database(site_db, server):
    db = store.open_db(site_db)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = hashlib.sha256(site_db.read_bytes()).hexdigest()
    n = ids(site_db)
    for path in ("/", "/event/{event}", "/game/{game}", "/entrant/{entrant}", "/league/{league}"):
        assert get(server + path.format(**n))[0] == 200
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert hashlib.sha256(site_db.read_bytes()).hexdigest() == before


# --------------------------------------------------------------------------- the commands


def test_serve_refuses_a_missing_database_and_a_busy_port(tmp_path, site_db):
    r = invoke("serve", "--db", str(tmp_path / "none.db"))
    assert r.exit_code == 2 and "no such database" in r.stderr and r.stderr.count("\n") == 1
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        r = invoke("serve", "--db", str(site_db), "--port", str(busy.getsockname()[1]))
    assert r.exit_code == 2 and r.stderr.startswith("error: cannot listen on 127.0.0.1:")


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("href", "src") and value:
                self.links.append(value)


def test_the_site_has_every_page_and_no_broken_link(site_db, tmp_path):
    out = tmp_path / "site"
    assert invoke("report", "--format", "site", "-o", str(out), "--db", str(site_db)).exit_code == 0
    n = ids(site_db)
    for name in (f"event/{n['event']}", f"game/{n['game']}", f"entrant/{n['entrant']}", f"league/{n['league']}"):
        assert (out / f"{name}.html").is_file() and json.loads((out / f"{name}.json").read_text())
    pages_written = list(out.rglob("*.html"))
    db = store.open_db(site_db, readonly=True)
    counts = [db.execute(f"select count(*) from {table}").fetchone()[0]
              for table in ("events", "games", "club_leagues")]
    entrants = db.execute("select count(distinct entrant_id) from event_entrants").fetchone()[0]
    assert len(pages_written) == 2 + sum(counts) + entrants  # the index and the help page
    for html_file in pages_written:
        parser = _Links()
        parser.feed(html_file.read_text())
        for link in parser.links:
            assert (html_file.parent / re.split("[?#]", link)[0]).resolve().is_file(), (html_file, link)
    # written again over itself: replaced; over anything else: refused, untouched
    assert invoke("report", "--format", "site", "-o", str(out), "--db", str(site_db)).exit_code == 0
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    r = invoke("report", "--format", "site", "-o", str(other), "--db", str(site_db))
    assert r.exit_code == 2 and "not an earlier tourney site" in r.stderr
    assert [p.name for p in other.iterdir()] == ["notes.txt"]
    r = invoke("report", EVENT, "--format", "site", "-o", str(tmp_path / "x"), "--db", str(site_db))
    assert r.exit_code == 2 and not (tmp_path / "x").exists()
