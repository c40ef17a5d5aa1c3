"""Reports of standings: table, csv, json, markdown and a self-contained html page.

Every report is built from :func:`tourney.standings.resolve` (so from the database and its SQL
views, never from memory) plus a *progress* series for the chart:

* club leagues and bot events ranked by points: each entrant's cumulative points after each game;
* other bot events: each entrant's *online* rating after each game (Weng and Lin's update, the
  conservative ``mu - 3*sigma``; :mod:`tourney.results.ratings`): how the event went, game by
  game. The standings' rating is the maximum-likelihood fit (:mod:`tourney.results.rating_fit`),
  which does not depend on the order of the games; this chart does.

The html page draws that series as an inline SVG (:mod:`tourney.charts`: no script, no network,
no external file) and shows the head-to-head matrix; every name is escaped. The JSON shape
(``version`` 1) is documented in docs/standings.md.
"""

from __future__ import annotations

import csv
import html
import io
import json

from sqlite_utils import Database
from tabulate import tabulate

from tourney import charts
from tourney.club import ClubError
from tourney.club.standings import club_progress, club_standings  # the report (floor 2) asks the club
from tourney.results import fairplay as _fairplay
from tourney.results import ratings as _ratings
from tourney.results import seat_balance as _seat_balance
from tourney.results import standings as _standings
from tourney.results.table import (  # noqa: F401  (the table's names, as readers of reports know them)
    AVERAGE,
    FAULTS,
    GAME_SHARE,
    LUCK_ELO,
    LUCK_SCORE,
    NUMERIC,
    POINTS,
    PRORATED,
    RANK_RANGE,
    RATING,
    SHARE,
    elo_text,
    footer,
    footer_lines,
    numeric,
    rating_text,
    shows_series,
    table_rows,
    title,
)

FORMATS = ("table", "csv", "json", "markdown", "html")

CSV_COLUMNS = ["rank", "entrant", "games", "wins", "draws", "losses", "points", "average", "faults",
               "series_played", "series_won", "series_drawn", "series_lost", "legs_won", "series_score", "game_score",
               "rating", "rating_low", "rating_high", "rank_range", "withdrawn"]


#: the most points of a progress series: a chart shows no more, and memory stays flat
MAX_POINTS = 1000
#: beyond this many games a rating chart is read from the writer's checkpoints
#: (:func:`tourney.results.ratings.checkpoints`) instead of rating every game again
LIVE_GAMES = 50_000


def progress(db: Database, data: dict) -> dict:
    """``{"metric": "points"|"ordinal", "games": [0, 1, ..., n], "series": {entrant: [value or None]}}``;
    index 0 is before the first game. Beyond :data:`MAX_POINTS` games the series are sampled
    every ``ceil(n / MAX_POINTS)`` games (``games`` says which), the last game always included;
    a rating chart of more than :data:`LIVE_GAMES` games is sampled at the writer's checkpoints
    (every ``CHECKPOINT * ceil(n / (CHECKPOINT * MAX_POINTS))`` games)."""
    if data["kind"] == "club":
        return club_progress(db, data["event"], data["games_played"])
    event = _standings.find_event(db, data["event"])
    n = data["games_played"]
    names = [r["entrant"] for r in data["standings"]]
    by_points = data["ranking"] == "points"
    chart = _Chart(names, by_points)
    number, after = 0, 0
    if n <= LIVE_GAMES:
        step = max(1, -(-n // MAX_POINTS))
    else:
        step = _ratings.CHECKPOINT * -(-n // (_ratings.CHECKPOINT * MAX_POINTS))
        for number, after, rated, points in _ratings.checkpoints(db, event["id"], step):  # noqa: B007
            chart.rated = {k: v for k, v in rated.items() if v is not None}
            chart.points = points
            if number % step == 0:
                chart.add(number)
    for number, seats in enumerate(_ratings.iter_event_games(db, event["id"], after=after), number + 1):  # noqa: B020
        for name, _, points in seats:
            chart.points[name] = chart.points.get(name, 0) + (points or 0)
        if not by_points and len(seats) >= 2:
            before = [chart.rated.get(name, (_ratings.MU, _ratings.SIGMA)) for name, _, _ in seats]
            rated_after = _ratings.rate_one(before, [rank for _, rank, _ in seats])
            chart.rated.update(zip([name for name, _, _ in seats], rated_after))
        if number % step == 0 or number == n:
            chart.add(number)
    if chart.games[-1] != number:  # games stored since the standings were read
        chart.add(number)
    return {"metric": "points" if by_points else "ordinal", "games": chart.games, "series": chart.series}


class _Chart:
    """The points of a progress chart as they are added: each entrant's points so far, or its
    rating's ordinal (the ordinal of a new rating before its first game)."""

    def __init__(self, names: list[str], by_points: bool) -> None:
        self.names, self.by_points = names, by_points
        self.start = 0 if by_points else round(_ratings.MU - 3 * _ratings.SIGMA, 4)
        self.rated: dict[str, tuple[float, float]] = {}
        self.points: dict[str, int] = {}
        self.games: list[int] = [0]
        self.series: dict[str, list] = {name: [self.start] for name in names}

    def add(self, number: int) -> None:
        if self.games[-1] == number:
            return
        self.games.append(number)
        for name in self.names:
            if self.by_points:
                self.series[name].append(self.points.get(name, 0))
            elif name in self.rated:
                mu, sigma = self.rated[name]
                self.series[name].append(round(mu - 3 * sigma, 4))
            else:
                self.series[name].append(self.start)


def resolve(db: Database, name: str | None, club: bool = False, reference: str | None = None) -> dict:
    """Standings of the event ``name`` (latest when None), or of the club league ``name`` when
    ``club`` is set or no event has that name; ``reference`` names the entrant ratings are
    measured against (default: the field's mean)."""
    if club:
        if name is None:
            raise _standings.StandingsError("give the club league's name")
        return club_standings(db, name)
    if name is not None and not db["events"].count_where("name = ?", [name]):
        try:
            return club_standings(db, name)
        except ClubError:
            pass
    return _standings.resolve(db, name, reference)


def build(db: Database, name: str | None, club: bool = False, reference: str | None = None) -> dict:
    from tourney import formats  # a floor up: the event's format says what its report adds

    data = resolve(db, name, club=club, reference=reference)
    data["progress"] = progress(db, data)
    if data.get("kind") == "event":  # a Swiss table, a knockout bracket, an SPRT's verdict
        data.update(formats.stored_report(db, data["event"]))
        data["fairplay"] = _fairplay.report_section(db, data["event"])  # tables of 3+: collusion checks
    return data


def _extra_lines(data: dict) -> list[str]:
    from tourney import formats  # a floor up: the format's additions in words

    return formats.report_lines(data) + _seat_balance.report_lines(data) + _fairplay.report_lines(data)


# --------------------------------------------------------------------------- renderers


def flat_rows(data: dict) -> list[dict]:
    out = []
    for r in data["standings"]:
        fit = r.get("fit") or {}
        series = r.get("series") or {}

        def value(d: dict, key: str):
            return "" if d.get(key) is None else d[key]

        out.append({
            "rank": r["rank"], "entrant": r["entrant"], "games": r["games"], "wins": r["wins"],
            "draws": r.get("draws", ""), "losses": r.get("losses", ""), "points": r["points"],
            "average": "" if r["average"] is None else r["average"],
            "faults": ";".join(f"{k}:{v}" for k, v in sorted((r.get("faults") or {}).items())),
            "series_played": series.get("played", ""), "series_won": series.get("won", ""),
            "series_drawn": series.get("drawn", ""), "series_lost": series.get("lost", ""),
            "legs_won": series.get("legs_won", ""), "series_score": value(r, "series_score"),
            "game_score": value(r, "game_score"), "rating": value(fit, "rating"),
            "rating_low": value(fit, "rating_low"), "rating_high": value(fit, "rating_high"),
            "rank_range": r.get("rank_range", ""),
            "withdrawn": ("yes" if r.get("withdrawn") else "no") if data["kind"] == "club" else "",
        })
    return out


def render_csv(data: dict, wide: bool = False) -> str:
    """Every column, always (``wide`` changes nothing here)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(flat_rows(data))
    return buf.getvalue()


def render_json(data: dict, wide: bool = False) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render_table(data: dict, wide: bool = False) -> str:
    """The table of ``tourney standings``, ``run`` and ``report``, with its footnote and what the
    event's format adds (a Swiss table, a bracket, collusion checks)."""
    headers, rows = table_rows(data, wide)
    text = title(data) + "\n" + tabulate(rows, headers=headers, disable_numparse=True,
                                         colalign=[("right" if numeric(h) else "left") for h in headers]) + "\n"
    below = footer_lines(data)
    if below:
        text += below + "\n"
    extra = _extra_lines(data)
    return text + "".join(f"\n{line}" for line in extra) + ("\n" if extra else "")


def _md(text) -> str:
    """Escape a cell for a markdown table: no raw html, no pipes, no emphasis surprises."""
    s = html.escape(str(text), quote=False)
    for ch in "\\|*_`[]":
        s = s.replace(ch, "\\" + ch)
    return s.replace("\n", " ")


def render_markdown(data: dict, wide: bool = False) -> str:
    headers, rows = table_rows(data, wide)
    lines = [f"## {_md(data['event'])}", ""]
    lines.append(_md(_subtitle(data)))
    lines.append("")
    lines.append("| " + " | ".join(_md(h) for h in headers) + " |")
    lines.append("|" + "|".join(" ---: " if numeric(h)
                                else " --- " for h in headers) + "|")
    for row in rows:
        lines.append("| " + " | ".join(_md(c) for c in row) + " |")
    extra = footer(data)
    if extra:
        lines += ["", _md(extra)]
    if _extra_lines(data):
        lines += ["", "```", *_extra_lines(data), "```"]
    return "\n".join(lines) + "\n"


def _subtitle(data: dict) -> str:
    if data["kind"] == "club":
        target = f", play to {data['target']}" if data.get("target") else ""
        head = f"Club league, {data['rule_set']}{target}; lowest total wins; {data['games_played']} games."
    else:
        head = (f"{data['format']} event, {data['rule_set']}, {data['status']}; {data['games_played']} games; "
                f"lower points are better.")
    return head + " Ranked by " + ", then ".join(data["tie_breaks"]) + "; entrants equal on all of them share a rank."


def chart_svg(prog: dict) -> str:
    """The progress chart as an inline ``<figure>`` with its ``<svg>`` (:mod:`tourney.charts`: no
    script, no external file; the numbers one click away)."""
    points = prog["metric"] == "points"
    series = [charts.Series(name, list(zip(prog["games"], values))) for name, values in prog["series"].items()]
    return charts.line_chart(
        "progress", "Cumulative points after each game" if points else
        "Online rating after each game (Weng-Lin, game by game; not the standings' rating)",
        "game", "cumulative points (fewer is better)" if points else "online rating, mu - 3 sigma (higher is better)",
        series)


def head_to_head_html(data: dict) -> str:
    """The head-to-head matrix of an event (:func:`tourney.results.standings.head_to_head`) as
    an html table: won-drawn-lost, the Elo difference and the LOS from the row's side."""
    e = html.escape
    matrix = _standings.head_to_head(data)
    names = matrix["entrants"]
    out = ['<div class="scroll"><table class="h2h">',
           "<thead><tr><th></th>" + "".join(f'<th scope="col">{e(n)}</th>' for n in names) + "</tr></thead><tbody>"]
    for a in names:
        cells = []
        for b in names:
            c = matrix["cells"].get(a, {}).get(b)
            if a == b or c is None:
                cells.append("<td></td>")
                continue
            los = "" if c["los"] is None else f" · LOS {100 * c['los']:.1f}%"
            cells.append(f"<td>{c['wins']}-{c['draws']}-{c['losses']}<br><small>{e(elo_text(c))}{los}</small></td>")
        out.append(f'<tr><th scope="row">{e(a)}</th>' + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: .3em .6em; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f3f3f3; }
figure { margin: 1em 0; }
svg { max-width: 100%; height: auto; }
figure.chart { max-width: 680px; }
.scroll { overflow-x: auto; }
small { color: #555; }
.muted { color: #666; font-size: .9em; }
"""


def render_html(data: dict, wide: bool = False) -> str:
    headers, rows = table_rows(data, wide)
    e = html.escape
    body = ["<table>", "<thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in headers) + "</tr></thead>", "<tbody>"]
    for row in rows:
        body.append("<tr>" + "".join(
            f'<td class="num">{e(str(c))}</td>' if numeric(h) else f"<td>{e(str(c))}</td>"
            for h, c in zip(headers, row)) + "</tr>")
    body.append("</tbody></table>")
    prog = data["progress"]
    below = footer(data)
    h2h = ("<h2>Head to head</h2><p class=\"muted\">Row against column: games won-drawn-lost, the Elo "
           "difference with half its 95% interval, and the likelihood of superiority.</p>"
           + head_to_head_html(data)) if data["kind"] == "event" and data.get("pairwise") else ""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(data['event'])} standings</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        f"<h1>{e(data['event'])}</h1>",
        f'<p class="muted">{e(_subtitle(data))}</p>',
        *body,
        f"<p>{e(below)}</p>" if below else "",
        f"<pre>{e(chr(10).join(_extra_lines(data)))}</pre>" if _extra_lines(data) else "",
        h2h,
        chart_svg(prog),
        f'<p class="muted">Made by tourney from the results database (report format version {data["version"]}).</p>',
        "</body>",
        "</html>",
        "",
    ])


RENDERERS = {"table": render_table, "csv": render_csv, "json": render_json, "markdown": render_markdown,
             "html": render_html}


def render(data: dict, fmt: str, wide: bool = False) -> str:
    return RENDERERS[fmt](data, wide)
