"""Drawing the pages: Jinja2 templates (autoescaped: every name is escaped) and the links
between pages.

The same templates serve the live app and the static site; only the links differ. ``Links``
knows where a page sits: the app's pages are ``/event/3`` and the site's files ``event/3.html``,
both one folder below the index, so links are relative and the site works from any folder or
straight from the disk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from tourney import charts
from tourney.results.table import elo_text, rating_text, shows_series

#: the static files every page uses, read from the package (the app serves these names only)
STATIC_FILES = ("web.css", "live.js", "replay.js")


@dataclass(frozen=True)
class Links:
    """Relative links from one page: ``root`` leads back to the index's folder; ``suffix`` is
    ``""`` in the app and ``".html"`` on the static site."""

    root: str = ""
    suffix: str = ""
    #: whether the event page polls for new games (the app) or stays as written (the site)
    live: bool = True

    def page(self, kind: str, key: int | str, query: str = "") -> str:
        return f"{self.root}{kind}/{key}{self.suffix}{query}"

    def json(self, kind: str, key: int | str) -> str:
        return f"{self.root}{kind}/{key}.json"

    def index(self) -> str:
        return self.root + ("index.html" if self.suffix else "") or "./"

    def static(self, name: str) -> str:
        return f"{self.root}static/{name}"


def static_file(name: str) -> bytes:
    """One of :data:`STATIC_FILES`, from the installed package."""
    if name not in STATIC_FILES:
        raise KeyError(name)
    return resources.files("tourney.web").joinpath("static", name).read_bytes()


def script_json(data) -> str:
    """JSON to put inside a ``<script type="application/json">`` element: ``<``, ``>`` and ``&``
    are written as escapes, so no name can close the element or start markup.

    >>> script_json({"name": "</script><b>"})
    '{"name": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def rating_bars(rows: list[dict]) -> list[tuple[float, float, float] | None]:
    """For each standings row, where its rating's 95% interval and the rating itself sit on one
    scale shared by every row, as percentages: ``(left, width, rating)``; None for an entrant
    with no games.

    >>> rating_bars([{"fit": {"rating": 100, "rating_low": 50, "rating_high": 150}},
    ...              {"fit": {"rating": -50, "rating_low": -150, "rating_high": 50}}, {"fit": None}])
    [(66.7, 33.3, 83.3), (0.0, 66.7, 33.3), None]
    """
    spans = [None if not r.get("fit") else (r["fit"]["rating_low"], r["fit"]["rating_high"], r["fit"]["rating"])
             for r in rows]
    known = [s for s in spans if s is not None]
    if not known:
        return [None for _ in rows]
    lo, hi = min(s[0] for s in known), max(s[1] for s in known)
    width = (hi - lo) or 1.0

    def pct(x: float) -> float:
        return round(100 * (x - lo) / width, 1)

    return [None if s is None else (pct(s[0]), round(pct(s[1]) - pct(s[0]), 1), pct(s[2])) for s in spans]


def los_shade(los: float | None) -> str:
    """A cell's background for a likelihood of superiority: green the surer the row's entrant is
    better, red the surer it is worse, white at 50%.

    >>> los_shade(0.5), los_shade(1.0), los_shade(0.0), los_shade(None)
    ('hsl(140 45% 100%)', 'hsl(140 45% 72%)', 'hsl(4 70% 72%)', '')
    """
    if los is None:
        return ""
    strength = min(1.0, abs(los - 0.5) * 2)
    light = round(100 - 28 * strength)
    return f"hsl(140 45% {light}%)" if los >= 0.5 else f"hsl(4 70% {light}%)"


def _band(points: list) -> list[tuple[float, float | None, float | None]]:
    return [(x, None, None) if p is None else (x, p[1], p[2]) for x, p in points]


def course_chart(course: dict, key: str = "course") -> Markup:
    """Each entrant's rating after each round (:func:`results.standings.rating_course`),
    intervals shaded when few entrants share the chart."""
    bands = len(course["series"]) <= 3
    series = [charts.Series(name, [(g, None if p is None else p[0]) for g, p in zip(course["games"], values)],
                            _band(list(zip(course["games"], values))) if bands else ())
              for name, values in course["series"].items()]
    return Markup(charts.line_chart(
        key, "Rating after each round", "games played", "rating (higher is better)",
        series, [charts.Rule(0, "the field's mean")],
        caption="Each entrant's rating (the standings' maximum-likelihood fit on the games played so far, "
                "with its 95% interval when at most three are drawn) after each round or batch."))


def sprt_charts(test: dict) -> Markup:
    """The SPRT's LLR with both bounds, and its Elo estimate with the interval, against games."""
    course = test["course"]
    points = list(zip(course["games"], course["elo"]))
    llr = charts.line_chart(
        "sprt-llr", "Log-likelihood ratio against games", "games played", "LLR",
        [charts.Series("LLR", list(zip(course["games"], course["llr"])))],
        [charts.Rule(test["upper_bound"], f"upper bound {test['upper_bound']:.2f}: H1"),
         charts.Rule(test["lower_bound"], f"lower bound {test['lower_bound']:.2f}: H0")],
        caption="The test stops when the LLR reaches a bound: the upper accepts H1, the lower H0.")
    elo = charts.line_chart(
        "sprt-elo", "Elo estimate against games", "games played", "Elo of the candidate (higher is better)",
        [charts.Series("Elo estimate", [(g, None if p is None else p[0]) for g, p in points],
                       _band(points))],
        [charts.Rule(test["elo0"], f"elo0 = {test['elo0']:g}"), charts.Rule(test["elo1"], f"elo1 = {test['elo1']:g}")],
        caption="The candidate's Elo against the baseline with its 95% interval after each batch "
                "(biased once a sequential test stops: docs/evaluation.md).")
    return Markup(llr + "\n" + elo)


def club_chart(course: dict) -> Markup:
    """A club league's totals after each round (a club night's tables are one round)."""
    series = [charts.Series(name, list(zip(course["rounds"], values))) for name, values in course["series"].items()]
    return Markup(charts.line_chart(
        "club-course", "Totals after each round", "round (a club night is one)", "total points (fewer is better)",
        series, caption="Each member's total after each round; a club night's tables count as one round."))


def ladder_chart(course: dict) -> Markup:
    """Each version's rating after each kept fit of a ladder (the leaderboard's top ten)."""
    series = [charts.Series(name, list(zip(course["games"], values))) for name, values in course["series"].items()]
    return Markup(charts.line_chart(
        "ladder-course", "Ratings over time", "games played", "rating, Elo scale (higher is better)",
        series, [charts.Rule(0, "the field's mean")],
        caption="Each of the leading versions' maximum-likelihood rating after each refit that was kept; "
                "a refit reads every game so far, so a line moves as the evidence does, not by game order."))


def plain(value) -> str:
    """A value of a club log entry in words: ``{"Ann": 3, "Bob": 6}`` as ``Ann 3, Bob 6``.

    >>> plain({"Ann": 3, "Bob": [1, 2]})
    'Ann 3, Bob 1, 2'
    """
    if isinstance(value, dict):
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(plain(v) for v in value)
    return "" if value is None else str(value)


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("tourney.web", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["script_json"] = script_json
    env.globals["rating_bars"] = rating_bars
    env.globals["course_chart"] = course_chart
    env.globals["sprt_charts"] = sprt_charts
    env.globals["club_chart"] = club_chart
    env.globals["ladder_chart"] = ladder_chart
    env.filters["los_shade"] = los_shade
    env.filters["elo_text"] = elo_text
    env.filters["rating_text"] = rating_text
    env.globals["shows_series"] = shows_series
    env.filters["pct"] = lambda v: "" if v is None else f"{100 * v:.1f}%"
    env.filters["plain"] = plain
    env.filters["average"] = lambda v: "" if v is None else f"{v:.2f}"
    env.filters["faults"] = lambda f: ", ".join(f"{k} {v}" for k, v in sorted(f.items()))
    return env


ENV = _environment()


def render(data: dict, links: Links) -> str:
    """The HTML page of a :mod:`tourney.web.pages` dict (its ``page`` names the template)."""
    return ENV.get_template(f"{data['page']}.html").render(d=data, links=links)


def not_found(links: Links, what: str = "This page does not exist.") -> str:
    return ENV.get_template("404.html").render(d={"page": "404", "what": what}, links=links)
