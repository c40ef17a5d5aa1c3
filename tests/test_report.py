"""Every report format, parsed back (csv, json) or checked for content (table, markdown, html),
with a name holding HTML and CSV special characters."""

import csv
import io
import json
from html.parser import HTMLParser

import pytest
from helpers import build_event, g
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.report import CSV_COLUMNS, FAULTS, table_rows
from tourney.results.store import open_db

ODD = 'Bob, "the <b>" & co\'s <script>x</script>'


@pytest.fixture
def env(tmp_path, monkeypatch):
    path = str(tmp_path / "rep.db")
    monkeypatch.setenv("TOURNEY_DB", path)
    monkeypatch.setenv("TOURNEY_USER", "tester")
    db = open_db(path)
    build_event(db, "bots", "single", [ODD, "Ann", "Cy"], [
        ("single", [ODD, "Ann", "Cy"], [g([0], [0, 3, 5], [1, 2, 3], {2: "timeout"})], ("win", ODD)),
        ("single", ["Ann", ODD, "Cy"], [g([0], [0, 2, 4], [1, 2, 3])], ("win", "Ann")),
        ("single", ["Cy", "Ann", ODD], [g([2], [5, 1, 0], [3, 2, 1])], ("win", ODD)),
    ])
    build_event(db, "lg", "league", [ODD, "Ann"], [
        ("league", [ODD, "Ann"], [g([0], [0, 4], [1, 2]), g([1], [2, 0], [2, 1])], ("win", ODD)),
    ])
    runner = CliRunner()
    new = ["club", "new", "thu", "--player", ODD, "--players", "Ann,Cy", "--seed", "5"]
    assert runner.invoke(app, new).exit_code == 0
    assert runner.invoke(app, ["club", "add", "thu", "--card", f"{ODD}=0", "--cards", "Ann=3,Cy=6"]).exit_code == 0
    assert runner.invoke(app, ["club", "add", "thu", "--card", f"{ODD}=4", "--cards", "Ann=0,Cy=6"]).exit_code == 0

    def report(*args):
        r = runner.invoke(app, ["report", *args])
        assert r.exit_code == 0, r.stderr
        return r.stdout

    report.tmp = tmp_path
    return report


def test_csv_parses_back(env):
    rows = list(csv.DictReader(io.StringIO(env("bots", "--format", "csv"))))
    assert list(rows[0].keys()) == CSV_COLUMNS
    by = {r["entrant"]: r for r in rows}
    assert set(by) == {ODD, "Ann", "Cy"}
    assert by[ODD]["rank"] == "1" and by[ODD]["wins"] == "2" and by[ODD]["points"] == "2"
    assert by["Cy"]["faults"] == "timeout:1"
    assert float(by[ODD]["rating"]) > float(by["Cy"]["rating"])
    assert float(by[ODD]["rating_low"]) < float(by[ODD]["rating"]) < float(by[ODD]["rating_high"])
    club = list(csv.DictReader(io.StringIO(env("thu", "--club", "--format", "csv"))))
    assert [(r["entrant"], r["points"]) for r in club] == [("Ann", "3"), (ODD, "4"), ("Cy", "12")]


def test_json_shape(env):
    data = json.loads(env("bots", "--format", "json"))
    assert data["version"] == 2 and data["kind"] == "event" and data["event"] == "bots"
    assert data["ranking"] == "games" and data["tie_breaks"][0] == "wins (more first)"
    top = data["standings"][0]
    assert top["entrant"] == ODD
    assert set(top) >= {"rank", "entrant", "games", "wins", "draws", "losses", "points", "average", "faults",
                        "fault_count", "series", "rating"}
    assert set(top["rating"]) == {"mu", "sigma", "ordinal", "games", "rank"}
    prog = data["progress"]
    assert prog["metric"] == "ordinal" and prog["games"] == [0, 1, 2, 3]
    assert all(len(v) == 4 for v in prog["series"].values())
    lg = json.loads(env("lg", "--format", "json"))
    assert lg["ranking"] == "points"
    assert lg["progress"] == {"metric": "points", "games": [0, 1, 2], "series": {ODD: [0, 0, 2], "Ann": [0, 4, 4]}}
    club = json.loads(env("thu", "--format", "json"))  # no event of that name: the club league
    assert club["kind"] == "club" and club["progress"]["series"]["Cy"] == [0, 6, 12]


def test_table_and_markdown(env):
    table = env("bots")
    assert ODD in table and "ordinal" not in table and "mu ± sigma" not in table
    # the default report shows what tourney standings shows, its footnote included
    standings = CliRunner().invoke(app, ["standings", "bots"]).stdout
    assert table.startswith(standings) and "Rating: maximum likelihood" in table
    wide = env("bots", "--wide")
    assert "timeout 1" in wide and "played" in wide and "played" not in table
    # each header says one thing: no two columns headed alike, whatever the width
    data = json.loads(env("bots", "--format", "json"))
    for w in (False, True):
        headers, rows = table_rows(data, w)
        assert len({h.split(chr(10))[0] + h.split(chr(10))[1] if chr(10) in h else h for h in headers}) == len(headers)
        faults = headers.index(FAULTS)
        assert all(str(row[faults]).isdigit() for row in rows)  # 0 faults show as 0, never blank
    md = env("thu", "--format", "markdown")
    assert md.startswith("## thu\n")
    assert "lowest total wins" in md
    assert "<b>" not in md and "<script>" not in md and "&lt;b&gt;" in md  # no raw html in a forum post
    lines = [x for x in md.splitlines() if x.startswith("|")]
    assert len(lines) == 2 + 3 and all(x.count(" | ") == lines[0].count(" | ") for x in lines[2:])
    assert "First in game 3: Cy" in md


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text, self.cells = [], [], []
        self._in_td = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_td = tag == "td"

    def handle_endtag(self, tag):
        if tag == "td":
            self._in_td = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_td:
            self.cells.append(data)


@pytest.mark.parametrize("name, club", [("bots", False), ("thu", True)])
def test_html_is_self_contained_and_escaped(env, name, club):
    out = env.tmp / f"{name}.html"
    env(name, "--format", "html", "-o", str(out), *(["--club"] if club else []))
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page and "<b>" not in page             # names are escaped everywhere
    p = _Collect()
    p.feed(page)
    tags = [t for t, _ in p.tags]
    assert "script" not in tags and "link" not in tags and "img" not in tags
    assert not any(a.get("src") or (a.get("href") or "").startswith("http") for _, a in p.tags)
    assert "svg" in tags and "polyline" in tags                     # the chart is inline SVG
    assert ODD in p.cells                                           # the name, unescaped back, in the table
    assert sum(1 for t in p.text if ODD in t) >= 2                  # ... and in the chart's legend
    assert ("Cumulative points" if club else "Rating") in page


def test_report_errors(env):
    r = CliRunner().invoke(app, ["report", "nope", "--format", "json"])
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and r.stdout == ""
    r = CliRunner().invoke(app, ["report", "bots", "--format", "pdf"])
    assert r.exit_code == 2


def test_a_long_event_s_progress_is_sampled_and_keeps_the_last_game(env, monkeypatch):
    full = json.loads(env("bots", "--format", "json"))["progress"]
    monkeypatch.setattr("tourney.report.MAX_POINTS", 2)  # 3 games: every 2nd, and the last
    sampled = json.loads(env("bots", "--format", "json"))["progress"]
    assert sampled["games"] == [0, 2, 3]
    for name, values in full["series"].items():
        assert sampled["series"][name] == [values[0], values[2], values[3]]
    # the hand-checked ordering: the entrant that won two of three games is on top at the end
    assert max(full["series"], key=lambda n: full["series"][n][-1]) == ODD
