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


def rating_bars(rows: list[dict]) -> list[tuple[float, float, float]]:
    """For each standings row, where its rating bar (mu - 2 sigma to mu + 2 sigma) and its mu sit on
    one scale shared by every row, as percentages: ``(left, width, mu)``.

    >>> rating_bars([{"rating": {"mu": 30, "sigma": 5}}, {"rating": {"mu": 20, "sigma": 5}}])
    [(33.3, 66.7, 66.7), (0.0, 66.7, 33.3)]
    """
    spans = [(r["rating"]["mu"] - 2 * r["rating"]["sigma"], r["rating"]["mu"] + 2 * r["rating"]["sigma"],
              r["rating"]["mu"]) for r in rows]
    if not spans:
        return []
    lo, hi = min(s[0] for s in spans), max(s[1] for s in spans)
    width = (hi - lo) or 1.0

    def pct(x: float) -> float:
        return round(100 * (x - lo) / width, 1)

    return [(pct(a), round(pct(b) - pct(a), 1), pct(m)) for a, b, m in spans]


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
