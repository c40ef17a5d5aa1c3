"""The statistics of the web view (issue 23): one source for every reader, the SPRT page, charts
of our own, the phone width and no request leaving the machine.

Every kind of event is played for real by built-in bots (quick and deterministic with public
seeds); the pages are read from ``tourney serve`` running as its own process and, for what a
person sees, in Debian's Chromium driven by Playwright. Browser waits have generous time-outs
only so that a broken page fails instead of hanging; no test measures time.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import jsonschema
import pytest
import tomli_w
from helpers import start_serve, stop_serve
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney import charts
from tourney.app import app
from tourney.club.standings import club_course
from tourney.config import parse_config
from tourney.events import runner
from tourney.formats import sequential as sprt_event
from tourney.results import standings as standings_mod
from tourney.results import store
from tourney.web import pages

ROOT = Path(__file__).resolve().parent.parent
WAIT_MS = 20_000  # a ceiling against hanging, not a measure
#: a name that would run script, or break markup or an attribute, if a chart put it in unescaped
HOSTILE = "<script>alert(1)</script> \"Q\" & 'co'"
LEAGUE = "club & <i>co</i>"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def bots(*names: str) -> list[dict]:
    return [{"name": n, "builtin": "greedy" if i % 2 == 0 else "random"} for i, n in enumerate(names)]


#: one event of every kind: name -> its [event] keys (entrants: built-in bots)
EVENTS = {
    "round robin": {"format": "round-robin", "games": 1, "rounds": 3, "entrants": bots(HOSTILE, "b", "c")},
    "gauntlet": {"format": "gauntlet", "games": 1, "rounds": 2, "candidates": [HOSTILE],
                 "entrants": bots(HOSTILE, "p1", "p2")},
    "swiss": {"format": "swiss", "games": 1, "rounds": 3, "entrants": bots(HOSTILE, "b", "c", "d", "e")},
    "knockout": {"format": "knockout", "games": 1, "entrants": bots(HOSTILE, "b", "c", "d", "e")},
    "duplicate": {"format": "match", "games": 3, "duplicate": True, "play_all": True,
                  "entrants": bots(HOSTILE, "b")},
    "sprt": {"format": "sprt", "elo0": 0, "elo1": 150, "entrants": bots(HOSTILE, "r")},
}


@pytest.fixture(scope="module")
def stats_db(tmp_path_factory) -> dict:
    """A database holding one finished event of each kind and a club league with a club night;
    returns its path and what ``tourney run --json`` printed for each event."""
    folder = tmp_path_factory.mktemp("stats")
    path = folder / "stats.db"
    printed = {}
    for kind, spec in EVENTS.items():
        entrants = spec["entrants"]
        event = {"name": kind, "rule_set": "crazier-eights", "seed": 5, "public_seeds": True,
                 **{k: v for k, v in spec.items() if k != "entrants"}}
        if kind == "sprt":
            event["entrants"] = [e["name"] for e in entrants]
        (folder / f"{kind}.toml").write_text(tomli_w.dumps({"event": event, "entrants": entrants}), encoding="utf-8")
        r = invoke("run", str(folder / f"{kind}.toml"), "--db", str(path), "-j", "1", "-q", "--json")
        assert r.exit_code == 0, r.output
        printed[kind] = json.loads(r.stdout)
    for args in (["new", LEAGUE, "--players", f"Ann,Bob,{HOSTILE},Dee", "--seed", "5"],
                 ["add", LEAGUE, "--cards", f"Ann=3,Bob=6,{HOSTILE}=0,Dee=2"],
                 ["night", LEAGUE, "--tables", "2"],
                 # split by standings: the two best-ranked (fewest points) at table 1
                 ["add", LEAGUE, "--table", "1", "--cards", f"{HOSTILE}=5,Dee=0"],
                 ["add", LEAGUE, "--table", "2", "--cards", "Ann=0,Bob=6"],
                 ["add", LEAGUE, "--cards", f"Ann=1,Bob=0,{HOSTILE}=4,Dee=7"]):
        r = invoke("club", *args, "--db", str(path))
        assert r.exit_code == 0, (args, r.output)
    return {"path": path, "run_json": printed}


@pytest.fixture(scope="module")
def server(stats_db):
    """``tourney serve`` on a free port of 127.0.0.1, stopped after the module's tests."""
    proc, url = start_serve(stats_db["path"])
    yield url
    stop_serve(proc)


def fetch_json(url: str):
    with urllib.request.urlopen(url) as r:
        return json.loads(r.read().decode())


def event_ids(path: Path) -> dict[str, int]:
    db = store.open_db(path, readonly=True)
    return {r["name"]: r["id"] for r in db.query("select id, name from events")}


def league_id(path: Path) -> int:
    db = store.open_db(path, readonly=True)
    return db.execute("select id from club_leagues where name = ?", [LEAGUE]).fetchone()[0]


def same(a, b, where: str = "") -> None:
    """``a == b``, field by field, naming the first field that differs."""
    if isinstance(a, dict) and isinstance(b, dict):
        assert sorted(a) == sorted(b), (where, sorted(a), sorted(b))
        for k in a:
            same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), (where, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    else:
        assert a == b, (where, a, b)


# --------------------------------------------------------------------------- one source


@pytest.mark.parametrize("kind", [*EVENTS, "club league"])
def test_the_json_twin_the_cli_and_the_reports_read_one_standings(stats_db, server, kind):
    path = str(stats_db["path"])
    if kind == "club league":
        twin = fetch_json(f"{server}/league/{league_id(stats_db['path'])}.json")["standings"]
        r = invoke("standings", LEAGUE, "--club", "--json", "--db", path)
    else:
        twin = fetch_json(f"{server}/event/{event_ids(stats_db['path'])[kind]}.json")["standings"]
        r = invoke("standings", kind, "--json", "--db", path)
    assert r.exit_code == 0, r.output
    cli = json.loads(r.stdout)
    same(twin, cli)
    # the whole twin as its published schema says (docs/schemas/)
    schema = json.loads((ROOT / "docs" / "schemas" / f"web-{'league' if kind == 'club league' else 'event'}"
                                                    f".schema.json").read_text())
    url = (f"{server}/league/{league_id(stats_db['path'])}.json" if kind == "club league"
           else f"{server}/event/{event_ids(stats_db['path'])[kind]}.json")
    jsonschema.validate(fetch_json(url), schema)
    report = json.loads(invoke("report", LEAGUE if kind == "club league" else kind, "--format", "json",
                               *(["--club"] if kind == "club league" else []), "--db", path).stdout)
    same({k: report[k] for k in cli}, cli)
    if kind != "club league":
        run = stats_db["run_json"][kind]
        same(run["standings"], cli["standings"])
        assert (run["ranking"], run["tie_breaks"]) == (cli["ranking"], cli["tie_breaks"])
        # the rating of the page's chart after the last round is the standings' rating
        page = fetch_json(f"{server}/event/{event_ids(stats_db['path'])[kind]}.json")
        for row in cli["standings"]:
            last = page["course"]["series"][row["entrant"]][-1]
            assert (last[0] if last else None) == (row["fit"]["rating"] if row["fit"] else None)
        assert page["course"]["games"][-1] == cli["games_played"]


def test_the_head_to_head_matrix_reads_both_ways(stats_db):
    db = store.open_db(stats_db["path"], readonly=True)
    data = standings_mod.event_standings(db, standings_mod.find_event(db, "round robin"))
    matrix = standings_mod.head_to_head(data)
    for p in data["pairwise"]:
        ab, ba = matrix["cells"][p["first"]][p["second"]], matrix["cells"][p["second"]][p["first"]]
        assert (ab["wins"], ab["draws"], ab["losses"]) == (p["wins"], p["draws"], p["losses"])
        assert (ba["wins"], ba["losses"]) == (p["losses"], p["wins"])
        if p["los"] is not None:
            assert ba["los"] == pytest.approx(1 - p["los"], abs=1e-4)
        if p["elo"] is not None:
            assert ba["elo"] == pytest.approx(-p["elo"], abs=1e-4)


def test_the_sprt_course_ends_where_the_test_stands(stats_db):
    db = store.open_db(stats_db["path"], readonly=True)
    data = pages.event_data(db, event_ids(stats_db["path"])["sprt"])
    test = data["sprt"]
    assert test["verdict"] == "H1 accepted" and test["candidate"] == HOSTILE
    course = test["course"]
    assert course["games"][0] == 0 and course["games"][-1] == test["games"]
    assert all(b - a == sprt_event.BATCH for a, b in zip(course["games"], course["games"][1:]))
    assert course["llr"][-1] == pytest.approx(test["llr"], abs=1e-3)
    assert course["llr"][-1] >= test["upper_bound"] > max(course["llr"][:-1])  # it stopped at the first crossing
    assert course["elo"][-1][0] == pytest.approx(test["estimate"]["elo"], abs=0.01)
    losses, draws, wins = course["counts"]
    row = {r["entrant"]: r for r in data["standings"]["standings"]}[HOSTILE]
    assert (wins, draws, losses) == (row["wins"], row["draws"], row["losses"])


def test_the_club_chart_has_one_point_a_round(stats_db):
    db = store.open_db(stats_db["path"], readonly=True)
    course = club_course(db, LEAGUE)
    # the start, game 1, the night's two tables (one round), game 4
    assert course["games"] == [0, 1, 3, 4] and course["rounds"][0] == 0 and len(set(course["rounds"])) == 4
    assert course["series"]["Ann"] == [0, 3, 3, 4] and course["series"][HOSTILE] == [0, 0, 5, 9]


def test_a_knockout_is_drawn_as_a_bracket_and_a_swiss_as_rounds(stats_db):
    db = store.open_db(stats_db["path"], readonly=True)
    ko = pages.event_data(db, event_ids(stats_db["path"])["knockout"])["bracket"]
    assert [len(r) for r in ko] == [4, 2, 1]  # five entrants: a bracket of eight, three byes
    assert ko[-1][0]["winner"] is not None
    swiss = pages.event_data(db, event_ids(stats_db["path"])["swiss"])
    assert len(swiss["swiss_rounds"]) == 3 and all(len(r) == 3 for r in swiss["swiss_rounds"])  # 2 tables, a bye
    assert sum(t["bye"] for r in swiss["swiss_rounds"] for t in r) == 3


# --------------------------------------------------------------------------- the charts module


def test_a_chart_escapes_every_name_and_carries_its_numbers():
    svg = charts.line_chart("x", "T & <t>", "games", "Elo", [
        charts.Series(HOSTILE, [(0, 1.0), (1, None), (2, 3.5)], [(0, 0.0, 2.0), (2, None, None)])],
        [charts.Rule(2.5, "bound <b>")], caption="c & d")
    assert "<script>" not in svg and "<b>" not in svg and "<t>" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &quot;Q&quot; &amp; &#x27;co&#x27;" in svg
    assert '<title id="chart-x-title">T &amp; &lt;t&gt;</title>' in svg
    assert svg.count("<polyline") == 2  # the gap at x=1 breaks the line in two
    assert "<details>" in svg and "<td>3.5</td>" in svg and "<td>0 to 2</td>" in svg


def test_ticks_are_round_and_cover_the_data():
    for lo, hi in [(0, 7), (-2.94, 2.94), (0.001, 0.0042), (-300, 25), (1000, 1001)]:
        ticks = charts.nice_ticks(lo, hi)
        assert ticks[0] <= lo and ticks[-1] >= hi and 3 <= len(ticks) <= 12
        steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:])}
        assert len(steps) == 1
        mantissa = round(steps.pop() / 10 ** __import__("math").floor(__import__("math").log10(ticks[1] - ticks[0])), 6)
        assert mantissa in (1, 2, 5)


# --------------------------------------------------------------------------- in the browser


@pytest.fixture
def requests_seen() -> list[str]:
    return []


@pytest.fixture
def page(browser, requests_seen):
    """A page whose every request is recorded, and refused unless it goes to this machine."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})

    def route(r):
        requests_seen.append(r.request.url)
        if re.match(r"(https?://127\.0\.0\.1[:/]|file://)", r.request.url):
            r.continue_()
        else:
            r.abort()

    context.route("**/*", route)
    pg = context.new_page()
    pg.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert errors == [], errors
    assert requests_seen and all(re.match(r"(https?://127\.0\.0\.1[:/]|file://)", u) for u in requests_seen), \
        requests_seen


def test_the_sprt_page_opens_with_the_verdict_and_both_charts(server, stats_db, page):
    page.goto(f"{server}/event/{event_ids(stats_db['path'])['sprt']}")
    first = page.locator("main section").first
    assert first.get_attribute("id") == "sprt"
    assert page.locator("#verdict .badge").inner_text() == "H1 accepted"
    hyp = page.locator("#hypotheses").inner_text()
    assert "H0" in hyp and "at most 0 Elo" in hyp and "H1" in hyp and "at least 150 Elo" in hyp
    assert re.search(r"won \d+ · drawn \d+ · lost \d+", page.locator("#sprt-counts").inner_text())
    for key in ("sprt-llr", "sprt-elo"):
        chart = page.locator(f"#chart-{key} svg")
        assert chart.is_visible() and chart.locator("polyline").count() >= 1
    rules = page.locator("#chart-sprt-llr g.rule text").all_text_contents()
    assert any("upper bound 2.94" in t for t in rules) and any("lower bound -2.94" in t for t in rules)
    assert page.locator("#chart-sprt-elo polygon.band").count() == 1
    # the data one click away
    page.locator("#chart-sprt-llr summary").click()
    assert page.locator("#chart-sprt-llr table.chart-data tbody tr").count() >= 2


def test_a_running_sprt_updates_in_place(server, stats_db, page):
    # two equals and close hypotheses: no answer after a batch or two
    raw = {"event": {"name": "live sprt", "format": "sprt", "rule_set": "crazier-eights", "seed": 3,
                     "elo0": 0, "elo1": 20, "public_seeds": True, "entrants": [HOSTILE, "r"]},
           "entrants": [{"name": HOSTILE, "builtin": "random"}, {"name": "r", "builtin": "random"}]}
    cfg = parse_config(raw)
    writer = store.open_db(stats_db["path"])
    event_id, _ = runner.prepare_event(writer, cfg, "test")
    try:
        page.goto(f"{server}/event/{event_id}")
        assert page.locator("#verdict .badge").inner_text() == "running"
        page.evaluate("window.__same_page = true")
        for batch in range(2):  # two batches, the second only while the test has no answer yet
            for task in runner.pending_tasks(writer, event_id, cfg):
                runner.Runner(writer, event_id, [task], concurrency=1).run()
            want = sprt_event.report(writer, event_id, cfg.event)
            assert batch > 0 or want["verdict"] == "running"
            page.wait_for_function(
                f"document.querySelector('#llr') && document.querySelector('#llr').textContent === "
                f"'{want['llr']:.2f}'", timeout=WAIT_MS)
            rows = page.evaluate("document.querySelectorAll('#chart-sprt-llr table.chart-data tbody tr').length")
            assert rows == 1 + want["games"] // sprt_event.BATCH  # a point a batch, and one at 0
            assert page.locator("#verdict .badge").inner_text() == want["verdict"]
            if not runner.next_round_tasks(writer, event_id, cfg):  # the next batch, as tourney run adds it
                break
        assert batch == 1 and page.evaluate("window.__same_page") is True  # two updates, never reloaded
    finally:
        store.finish_event(writer, event_id)
    page.wait_for_function("document.querySelector('#verdict .badge').textContent !== 'running'", timeout=WAIT_MS)


def test_the_rating_on_the_event_page_equals_standings_json(server, stats_db, page):
    cli = json.loads(invoke("standings", "round robin", "--json", "--db", str(stats_db["path"])).stdout)
    page.goto(f"{server}/event/{event_ids(stats_db['path'])['round robin']}")
    shown = {}
    for i in range(page.locator("#standings tbody tr").count()):
        row = page.locator("#standings tbody tr").nth(i)
        cell = row.locator("td.rating")
        shown[row.get_attribute("data-entrant")] = (cell.get_attribute("data-rating"),
                                                    cell.get_attribute("data-rating-pm"),
                                                    cell.inner_text(), row.locator("td.rank-range").inner_text())
    from tourney.report import rating_text

    assert set(shown) == {r["entrant"] for r in cli["standings"]}
    for r in cli["standings"]:
        rating, pm, text, ranks = shown[r["entrant"]]
        assert rating == str(r["fit"]["rating"]) and pm == str(r["fit"]["rating_pm"])
        assert text.strip() == rating_text(r["fit"]) and ranks == r["rank_range"]
    assert page.locator("#explain a").first.get_attribute("href").endswith("help/statistics#rating")


@pytest.mark.parametrize("where", ["event", "league"])
def test_a_hostile_name_in_a_chart_is_text(server, stats_db, page, where):
    url = (f"{server}/event/{event_ids(stats_db['path'])['round robin']}" if where == "event"
           else f"{server}/league/{league_id(stats_db['path'])}")
    page.add_init_script("window.alert = () => { window.__pwned = 1; }")
    page.goto(url)
    chart = page.locator("figure.chart").first
    legend = chart.locator("svg g.legend text").all_text_contents()
    assert any(t.startswith("<script>alert(1)</script>") for t in legend)
    assert chart.locator("svg script").count() == 0 and page.locator("svg script").count() == 0
    titles = chart.locator("svg g.series > title").all_text_contents()
    assert HOSTILE in titles
    assert page.evaluate("window.__pwned") is None


OTHER_PAGES = {"club league": "/league/{league}", "help": "/help/statistics", "index": "/",
               "entrant": "/entrant/1", "game": "/game/1"}


@pytest.mark.parametrize("kind", [*EVENTS, *OTHER_PAGES])
def test_pages_fit_a_phone(server, stats_db, browser, kind):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    try:
        pg = context.new_page()
        if kind in OTHER_PAGES:
            url = server + OTHER_PAGES[kind].format(league=league_id(stats_db["path"]))
        else:
            url = f"{server}/event/{event_ids(stats_db['path'])[kind]}"
        pg.goto(url)
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
        assert pg.evaluate("document.body.scrollWidth") <= 390
        # the wide tables scroll inside their own box instead
        if kind in EVENTS or kind == "club league":
            box = pg.locator("#standings").locator("xpath=..")
            assert box.evaluate("e => getComputedStyle(e).overflowX") == "auto"
            if kind in EVENTS:  # thirteen columns do not fit 390 px: the box scrolls, not the page
                assert box.evaluate("e => e.scrollWidth > e.clientWidth")
    finally:
        context.close()


def test_the_static_site_draws_the_same_charts_offline(stats_db, tmp_path, page, requests_seen):
    out = tmp_path / "site"
    assert invoke("report", "--format", "site", "-o", str(out), "--db", str(stats_db["path"])).exit_code == 0
    sprt_id = event_ids(stats_db["path"])["sprt"]
    page.goto((out / "event" / f"{sprt_id}.html").as_uri())
    assert page.locator("#verdict .badge").inner_text() == "H1 accepted"
    assert page.locator("#chart-sprt-llr svg").is_visible() and page.locator("#chart-sprt-elo svg").is_visible()
    assert all(u.startswith("file://") for u in requests_seen)
