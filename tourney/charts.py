"""Line charts as inline SVG: the charts of the web view, the static site and the html report.

One small function, :func:`line_chart`, draws lines (with optional interval bands) and
horizontal reference lines on numbered axes, with a legend, and returns an HTML ``<figure>``:
the ``<svg>`` (its ``<title>`` and ``<desc>`` read out by screen readers), a caption, and the same
numbers as a table one click away in a ``<details>`` element. No script, no external file, no
font: the chart works in a static page opened from the disk and in a browser without
JavaScript. Every text (entrant names above all) is escaped here, so a caller can put the
result into a page as it is.

Why our own: the one chart of the project used to cost the install matplotlib and its tree
(about 150 MB) for a few lines on two axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

#: line colours (distinct for the common kinds of colour blindness first), then dashes for more
PALETTE = ("#2f5d9e", "#d1495b", "#1d7a46", "#e08e0b", "#7b4fa0", "#00798c", "#8c564b", "#c2469d",
           "#5b6770", "#9a8c00")
DASHES = ("", "6 3", "2 3", "8 3 2 3")


@dataclass(frozen=True)
class Series:
    """One line: ``points`` are ``(x, y)``, ``y`` None for a gap; ``band`` (optional) is
    ``(x, low, high)`` drawn as a shaded interval behind the line, None where there is none."""

    name: str
    points: Sequence[tuple[float, float | None]]
    band: Sequence[tuple[float, float | None, float | None]] = ()


@dataclass(frozen=True)
class Rule:
    """A horizontal reference line across the chart (a bound, a hypothesis, zero)."""

    y: float
    label: str


@dataclass(frozen=True)
class Chart:
    """What to draw; :func:`line_chart` is the short way to make and draw one."""

    key: str  # an id for the page: letters, digits and dashes
    title: str
    x_label: str
    y_label: str
    series: Sequence[Series]
    rules: Sequence[Rule] = ()
    caption: str = ""
    width: int = 640
    height: int = 300


def nice_ticks(lo: float, hi: float, count: int = 5, integer: bool = False) -> list[float]:
    """About ``count`` round tick values (steps of 1, 2 or 5 times a power of ten; whole steps
    when ``integer``) covering ``lo``..``hi``.

    >>> nice_ticks(0, 10)
    [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    >>> nice_ticks(-2.94, 2.94)
    [-4.0, -2.0, 0.0, 2.0, 4.0]
    >>> nice_ticks(5, 5)
    [4.0, 5.0, 6.0]
    >>> nice_ticks(1, 2, integer=True)
    [1.0, 2.0]
    """
    if hi < lo:
        lo, hi = hi, lo
    if hi - lo < 1e-12:
        return [lo - 1.0, float(lo), hi + 1.0]
    raw = (hi - lo) / max(1, count)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw - 1e-12)
    if integer:
        step = max(1.0, step)
    first = math.floor(lo / step + 1e-9)
    last = math.ceil(hi / step - 1e-9)
    return [round(i * step, 10) + 0.0 for i in range(first, last + 1)]


def number(value: float | None) -> str:
    """A value as a chart shows it: integers plain, others to at most two decimals.

    >>> number(3.0), number(-0.125), number(1234.5678), number(None)
    ('3', '-0.12', '1234.57', '')
    """
    if value is None:
        return ""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _f(v: float) -> str:
    return f"{v:.1f}"


def _segments(points: Sequence[tuple[float, float | None]]) -> list[list[tuple[float, float]]]:
    """Runs of points without a gap (a None ``y`` breaks the line)."""
    out: list[list[tuple[float, float]]] = [[]]
    for x, y in points:
        if y is None or not math.isfinite(y):
            if out[-1]:
                out.append([])
        else:
            out[-1].append((x, y))
    return [s for s in out if s]


def line_chart(key: str, title: str, x_label: str, y_label: str, series: Sequence[Series],
               rules: Sequence[Rule] = (), caption: str = "", width: int = 640, height: int = 300) -> str:
    """The chart as an HTML ``<figure>`` (see the module); ``key`` makes its ids unique on a page."""
    return draw(Chart(key, title, x_label, y_label, series, rules, caption, width, height))


def draw(chart: Chart) -> str:
    """:func:`line_chart` of a :class:`Chart`."""
    e = escape
    key = "".join(c if c.isalnum() or c == "-" else "-" for c in chart.key)
    w, h = chart.width, chart.height
    names = [s.name for s in chart.series]
    # the legend sits under the plot, as many entries a row as fit
    per_row = max(1, min(len(names), w // 210)) if names else 1
    legend_rows = -(-len(names) // per_row) if names else 0
    left, right, top = 58, 16, 14
    plot_bottom = h - 44
    total_h = h + 20 * legend_rows + (6 if legend_rows else 0)
    xs = [x for s in chart.series for x, _ in s.points] + [x for s in chart.series for x, _, _ in s.band]
    ys = [y for s in chart.series for _, y in s.points if y is not None and math.isfinite(y)]
    ys += [v for s in chart.series for _, lo, hi in s.band for v in (lo, hi) if v is not None and math.isfinite(v)]
    ys += [r.y for r in chart.rules]
    x_ticks = nice_ticks(min(xs, default=0), max(xs, default=1), 6,
                         integer=all(float(x).is_integer() for x in xs))
    y_ticks = nice_ticks(min(ys, default=0), max(ys, default=1), 5)
    x0, x1, y0, y1 = x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1]

    def px(x: float) -> float:
        return left + (x - x0) / ((x1 - x0) or 1) * (w - left - right)

    def py(y: float) -> float:
        return plot_bottom - (y - y0) / ((y1 - y0) or 1) * (plot_bottom - top)

    out = [f'<figure class="chart" id="chart-{key}">',
           f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {total_h}" width="{w}" height="{total_h}" '
           f'role="img" aria-labelledby="chart-{key}-title chart-{key}-desc" font-family="system-ui, sans-serif" '
           f'font-size="12">',
           f'<title id="chart-{key}-title">{e(chart.title)}</title>',
           f'<desc id="chart-{key}-desc">{e(_describe(chart))}</desc>',
           f'<rect x="{left}" y="{top}" width="{w - left - right}" height="{plot_bottom - top}" fill="#fff" '
           f'stroke="#d0d5dd"/>']
    for t in y_ticks:
        out.append(f'<line x1="{left}" x2="{w - right}" y1="{_f(py(t))}" y2="{_f(py(t))}" stroke="#eceff3"/>'
                   f'<text x="{left - 6}" y="{_f(py(t) + 4)}" text-anchor="end" fill="#4b5563">{e(number(t))}</text>')
    for t in x_ticks:
        out.append(f'<line x1="{_f(px(t))}" x2="{_f(px(t))}" y1="{top}" y2="{plot_bottom}" stroke="#f2f4f7"/>'
                   f'<text x="{_f(px(t))}" y="{plot_bottom + 16}" text-anchor="middle" fill="#4b5563">'
                   f'{e(number(t))}</text>')
    out.append(f'<text x="{(left + w - right) / 2:.1f}" y="{plot_bottom + 34}" text-anchor="middle" '
               f'fill="#1f2430">{e(chart.x_label)}</text>')
    out.append(f'<text transform="translate(14 {(top + plot_bottom) / 2:.1f}) rotate(-90)" text-anchor="middle" '
               f'fill="#1f2430">{e(chart.y_label)}</text>')
    labels: list[float] = []
    for r in sorted(chart.rules, key=lambda r: -r.y):
        # a label sits above its line, or below it when the label of a line close above is in the way
        at = py(r.y) - 4
        if any(abs(at - y) < 13 for y in labels):
            at = py(r.y) + 13
        labels.append(at)
        out.append(f'<g class="rule"><line x1="{left}" x2="{w - right}" y1="{_f(py(r.y))}" y2="{_f(py(r.y))}" '
                   f'stroke="#6b7280" stroke-dasharray="5 4"/><text x="{w - right - 4}" y="{_f(at)}" '
                   f'text-anchor="end" fill="#374151">{e(r.label)}</text></g>')
    for i, s in enumerate(chart.series):
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)]
        group = [f'<g class="series" data-series="{i}"><title>{e(s.name)}</title>']
        band = [(x, lo, hi) for x, lo, hi in s.band if lo is not None and hi is not None
                and math.isfinite(lo) and math.isfinite(hi)]
        if band:
            upper = " ".join(f"{_f(px(x))},{_f(py(hi))}" for x, _, hi in band)
            lower = " ".join(f"{_f(px(x))},{_f(py(lo))}" for x, lo, _ in reversed(band))
            group.append(f'<polygon class="band" points="{upper} {lower}" fill="{colour}" fill-opacity="0.15" '
                         f'stroke="none"/>')
        for run in _segments(s.points):
            pts = " ".join(f"{_f(px(x))},{_f(py(y))}" for x, y in run)
            dashed = f' stroke-dasharray="{dash}"' if dash else ""
            group.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"{dashed}/>')
            if len(run) <= 60:
                group += [f'<circle cx="{_f(px(x))}" cy="{_f(py(y))}" r="2.5" fill="{colour}"/>' for x, y in run]
        group.append("</g>")
        out += group
    for i, name in enumerate(names):
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)]
        col, row = i % per_row, i // per_row
        lx, ly = left + col * ((w - left - right) / per_row), h + 2 + 20 * row
        shown = name if len(name) <= 26 else name[:25] + "…"
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<g class="legend"><title>{e(name)}</title><line x1="{_f(lx)}" x2="{_f(lx + 22)}" y1="{ly}" '
                   f'y2="{ly}" stroke="{colour}" stroke-width="3"{dashed}/><text x="{_f(lx + 28)}" y="{ly + 4}" '
                   f'fill="#1f2430">{e(shown)}</text></g>')
    out.append("</svg>")
    if chart.caption:
        out.append(f"<figcaption>{e(chart.caption)}</figcaption>")
    out.append(data_table(chart))
    out.append("</figure>")
    return "\n".join(out)


def _describe(chart: Chart) -> str:
    """One sentence for screen readers: what is drawn against what, and the last values."""
    last = []
    for s in chart.series:
        values = [(x, y) for x, y in s.points if y is not None]
        if values:
            last.append(f"{s.name} {number(values[-1][1])} at {number(values[-1][0])}")
    rules = "; lines at " + ", ".join(f"{r.label} ({number(r.y)})" for r in chart.rules) if chart.rules else ""
    return f"{chart.y_label} against {chart.x_label}. Last values: {', '.join(last) or 'none'}{rules}."


def data_table(chart: Chart) -> str:
    """The chart's numbers as a table inside ``<details>`` (one row per x)."""
    e = escape
    xs = sorted({x for s in chart.series for x, _ in s.points} | {x for s in chart.series for x, _, _ in s.band})
    heads = [chart.x_label]
    cells: list[dict] = []
    for s in chart.series:
        ys = dict(s.points)
        heads.append(s.name)
        cells.append(ys)
        if s.band:
            bands = {x: (lo, hi) for x, lo, hi in s.band}
            heads.append(f"{s.name}: 95% interval")
            cells.append({x: (f"{number(lo)} to {number(hi)}" if lo is not None or hi is not None else "")
                          for x, (lo, hi) in bands.items()})
    rows = []
    for x in xs:
        row = [number(x)] + [v if isinstance(v, str) else number(v) for v in (c.get(x) for c in cells)]
        rows.append("<tr>" + "".join(f"<td>{e(v)}</td>" for v in row) + "</tr>")
    rules = "".join(f"<li>{e(r.label)}: {e(number(r.y))}</li>" for r in chart.rules)
    return ("<details><summary>The numbers as a table</summary>"
            + (f"<ul>{rules}</ul>" if rules else "")
            + '<div class="scroll"><table class="chart-data"><thead><tr>'
            + "".join(f'<th scope="col">{e(h)}</th>' for h in heads)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div></details>")
