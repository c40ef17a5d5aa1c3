"""Reports of standings: table, csv, json, markdown and a self-contained html page.

Every report is built from :func:`tourney.standings.resolve` (so from the database and its SQL
views, never from memory) plus a *progress* series for the chart:

* club leagues and bot events ranked by points: each entrant's cumulative points after each game;
* other bot events: each entrant's rating ordinal (openskill, ``mu - 3*sigma``) after each game.

The html page draws that series as an inline SVG (:mod:`tourney.charts`: no script, no network,
no external file) and shows the head-to-head matrix; every name is escaped. The JSON shape
(``version`` 1) is documented in docs/standings.md.
"""

from __future__ import annotations

import csv
import html
import io
import json
import textwrap

from sqlite_utils import Database
from tabulate import tabulate

from tourney import charts
from tourney.club.league import League
from tourney.results import fairplay as _fairplay
from tourney.results import seat_balance as _seat_balance
from tourney.results import ratings as _ratings
from tourney.results import standings as _standings

FORMATS = ("table", "csv", "json", "markdown", "html")

CSV_COLUMNS = ["rank", "entrant", "games", "wins", "draws", "losses", "points", "average", "faults",
               "series_played", "series_won", "series_drawn", "series_lost", "legs_won",
               "rating_mu", "rating_sigma", "rating_ordinal", "rating_rank", "elo", "elo_low", "elo_high", "los",
               "rank_range", "withdrawn"]


def _fmt_faults(faults: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(faults.items()))


#: headers that say which way is better, shared by every table of standings
POINTS = "points\n(fewer is better)"
AVERAGE = "avg points\n(fewer is better)"
PRORATED = "pro-rated\n(fewer is better)"
RATING = "rating mu ± sigma\n(higher is better)"
ORDINAL = "ordinal\n(higher is better)"
#: right-aligned columns
NUMERIC = {"rank", "rank\n(95%)", "games", "wins", "legs\nwon", POINTS, AVERAGE, ORDINAL, "start", PRORATED,
           "absent"}



def elo_text(block: dict | None) -> str:
    """``+35 ± 20`` (Elo and half its 95% interval); ``0`` for the reference itself."""
    if block is None:
        return "0 (reference)"
    elo, pm, low, high = block["elo"], block["elo_pm"], block["elo_low"], block["elo_high"]
    if elo is None:  # no games, or every game won (lost): the Elo is infinite
        return "+inf" if block["score"] == 1 else "-inf" if block["score"] == 0 else ""
    if pm is not None:
        return f"{_signed(elo)} ± {pm:.0f}"
    if low is None and high is None:
        return f"{_signed(elo)} (no interval yet)"
    return f"{_signed(elo)} [{'-inf' if low is None else _signed(low)}, {'+inf' if high is None else _signed(high)}]"


def _signed(value: float) -> str:
    """A signed whole number, with no minus sign on a value that rounds to zero.

    >>> _signed(-0.3), _signed(12.6), _signed(-40)
    ('+0', '+13', '-40')
    """
    text = f"{value:+.0f}"
    return "+0" if text == "-0" else text


def _average(value) -> str:
    return "" if value is None else f"{value:.2f}"


LUCK_SCORE = "luck-adjusted\nscore (higher\nis better)"
LUCK_ELO = "luck-adjusted\nElo (higher\nis better)"


def table_rows(data: dict) -> tuple[list[str], list[list]]:
    """Headers and rows of a standings table: ``tourney standings``, ``tourney run``'s results and
    ``tourney report --format table``/markdown/html all show this one table."""
    if data["kind"] == "club":
        # absences and pro-rating get a column only in leagues that have them
        absent = any(r.get("absences") for r in data["standings"])
        prorate = data.get("withdrawal") == "prorate"
        headers = ["rank", "entrant", POINTS, *([PRORATED] if prorate else []), "games",
                   *(["absent"] if absent else []), "wins", AVERAGE, "start"]
        rows = [[r["rank"], r["entrant"] + (" (withdrawn)" if r["withdrawn"] else ""), r["points"],
                 *([_average(r["prorated"])] if prorate else []), r["games"],
                 *([r["absences"] or ""] if absent else []),
                 r["wins"], _average(r["average"]), r["start_points"] or ""] for r in data["standings"]]
        return headers, rows
    series = data["ranking"] == "series"
    # a legs column only where legs are runs of deals (docs/formats.md, "Legs")
    legs = series and any(r["series"]["legs_won"] != r["wins"] for r in data["standings"])
    elo_head = f"Elo vs {data.get('elo_reference', 'field')}\n(higher is better)"
    # luck-adjusted score and Elo beside the raw ones, where the event has them switched on
    luck = bool(data.get("luck", {}).get("on"))
    headers = ["rank", "rank\n(95%)", "entrant", *(["series\nW-D-L"] if series else []),
               *(["legs\nwon"] if legs else []), "games", "games\nW-D-L", POINTS, AVERAGE, "faults", elo_head,
               *([LUCK_SCORE, LUCK_ELO] if luck else []),
               RATING, ORDINAL]
    rows = []
    for r in data["standings"]:
        s, rt, adj = r["series"], r["rating"], r.get("luck_adjusted")
        rows.append([r["rank"], r["rank_range"], r["entrant"],
                     *([f"{s['won']}-{s['drawn']}-{s['lost']}"] if series else []),
                     *([s["legs_won"]] if legs else []), r["games"], f"{r['wins']}-{r['draws']}-{r['losses']}",
                     r["points"], _average(r["average"]), _fmt_faults(r["faults"]), elo_text(r["elo"]),
                     *([_luck_score(adj), elo_text(adj) if adj else ""] if luck else []),
                     f"{rt['mu']:.2f} ± {rt['sigma']:.2f}", f"{rt['ordinal']:.2f}"])
    return headers, rows


def _luck_score(adj: dict | None) -> str:
    """``0.612 ± 0.031`` (the mean luck-adjusted score and its standard error)."""
    if not adj or adj.get("score") is None:
        return ""
    return f"{adj['score']:.3f}" + (f" ± {adj['se']:.3f}" if adj.get("se") is not None else "")


def title(data: dict, width: int = 79) -> str:
    """What the table shows, wrapped to lines a terminal can show (``width`` characters)."""
    if data["kind"] == "club":
        target = f", play to {data['target']}" if data.get("target") else ""
        head = f"{data['event']} (club league, {data['rule_set']}{target}; lowest total wins; " \
               f"{data['games_played']} games)"
    else:
        head = f"{data['event']} ({data['format']}, {data['rule_set']}, {data['status']}; " \
               f"{data['games_played']} games)"
    ranked = "ranked by " + ", then ".join(data["tie_breaks"])
    return "\n".join(textwrap.wrap(head, width) + textwrap.wrap(ranked, width, subsequent_indent="  "))


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
        cum = League(db, data["event"]).cumulative()
        n = data["games_played"]
        return {"metric": "points", "games": list(range(n + 1)), "series": cum}
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
        for number, after, rated, points in _ratings.checkpoints(db, event["id"], step):
            chart.rated = {k: v for k, v in rated.items() if v is not None}
            chart.points = points
            if number % step == 0:
                chart.add(number)
    for number, seats in enumerate(_ratings.iter_event_games(db, event["id"], after=after), number + 1):
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


def build(db: Database, name: str | None, club: bool = False, reference: str | None = None) -> dict:
    from tourney import formats  # a floor up: the event's format says what its report adds

    data = _standings.resolve(db, name, club=club, reference=reference)
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
        rating = r.get("rating") or {}
        series = r.get("series") or {}
        elo = r.get("elo") or {}

        def value(d: dict, key: str):
            return "" if d.get(key) is None else d[key]

        out.append({
            "rank": r["rank"], "entrant": r["entrant"], "games": r["games"], "wins": r["wins"],
            "draws": r.get("draws", ""), "losses": r.get("losses", ""), "points": r["points"],
            "average": "" if r["average"] is None else r["average"],
            "faults": ";".join(f"{k}:{v}" for k, v in sorted((r.get("faults") or {}).items())),
            "series_played": series.get("played", ""), "series_won": series.get("won", ""),
            "series_drawn": series.get("drawn", ""), "series_lost": series.get("lost", ""),
            "legs_won": series.get("legs_won", ""),
            "rating_mu": rating.get("mu", ""), "rating_sigma": rating.get("sigma", ""),
            "rating_ordinal": rating.get("ordinal", ""), "rating_rank": rating.get("rank", "") or "",
            "elo": value(elo, "elo"), "elo_low": value(elo, "elo_low"), "elo_high": value(elo, "elo_high"),
            "los": value(elo, "los"), "rank_range": r.get("rank_range", ""),
            "withdrawn": ("yes" if r.get("withdrawn") else "no") if data["kind"] == "club" else "",
        })
    return out


def render_csv(data: dict) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(flat_rows(data))
    return buf.getvalue()


def render_json(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render_table(data: dict) -> str:
    headers, rows = table_rows(data)
    text = title(data) + "\n" + tabulate(rows, headers=headers, disable_numparse=True) + "\n"
    extra = _extra_lines(data)
    return text + "".join(f"\n{line}" for line in extra) + ("\n" if extra else "")


def _md(text) -> str:
    """Escape a cell for a markdown table: no raw html, no pipes, no emphasis surprises."""
    s = html.escape(str(text), quote=False)
    for ch in "\\|*_`[]":
        s = s.replace(ch, "\\" + ch)
    return s.replace("\n", " ")


def render_markdown(data: dict) -> str:
    headers, rows = table_rows(data)
    lines = [f"## {_md(data['event'])}", ""]
    lines.append(_md(_subtitle(data)))
    lines.append("")
    lines.append("| " + " | ".join(_md(h) for h in headers) + " |")
    lines.append("|" + "|".join(" ---: " if h in NUMERIC
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


def footer_lines(data: dict, width: int = 79) -> str:
    """:func:`footer` wrapped for a terminal ("" when there is nothing to say)."""
    return textwrap.fill(footer(data), width)


def footer(data: dict) -> str:
    """The line under a standings table: how ratings read, or where a club league stands."""
    if data["kind"] != "club":
        luck = data.get("luck")
        return ("Elo: against the field (or the named reference), with half its 95% interval; rank (95%): "
                "the places the results cannot yet tell apart. Rating: openskill Plackett-Luce, mu ± sigma; "
                "ordinal = mu - 3 sigma. " + (f"Luck-adjusted scores: {luck['why']}. " if luck else "")
                + "Methods: docs/evaluation.md.")
    if data.get("finished"):
        f = data["finished"]
        return f"Finished after game {f['after_game']}: {' and '.join(f['winners'])} won with {f['lowest_total']}."
    nf = data.get("next_first")
    if nf:
        how = (f"tie on {nf['points']} between {', '.join(nf['tied'])}, settled at random from the league's seed"
               if nf["random"] else f"most points: {nf['points']}")
        return f"First in game {nf['game']}: {nf['entrant']} ({how})."
    night = data.get("night")
    if night:
        return (f"Round {night['round']} is being played at tables; still to enter: table "
                f"{', '.join(map(str, night['open']))} (tourney club night {data['event']} --show).")
    return ""


def chart_svg(prog: dict) -> str:
    """The progress chart as an inline ``<figure>`` with its ``<svg>`` (:mod:`tourney.charts`: no
    script, no external file; the numbers one click away)."""
    points = prog["metric"] == "points"
    series = [charts.Series(name, list(zip(prog["games"], values))) for name, values in prog["series"].items()]
    return charts.line_chart(
        "progress", "Cumulative points after each game" if points else "Rating (conservative ordinal) after each game",
        "game", "cumulative points (fewer is better)" if points else "rating ordinal, mu - 3 sigma (higher is better)",
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


def render_html(data: dict) -> str:
    headers, rows = table_rows(data)
    e = html.escape
    numeric = NUMERIC
    body = ["<table>", "<thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in headers) + "</tr></thead>", "<tbody>"]
    for row in rows:
        body.append("<tr>" + "".join(
            f'<td class="num">{e(str(c))}</td>' if h in numeric else f"<td>{e(str(c))}</td>"
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


def render(data: dict, fmt: str) -> str:
    return RENDERERS[fmt](data)
