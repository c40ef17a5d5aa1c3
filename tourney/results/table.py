"""The standings table: its headers, rows and footnote, one table for ``tourney standings``,
``tourney run``, every report and the pages (:func:`table_rows`).

By default it fits a 100-column terminal: rank, rank range, entrant, W-D-L, the ranking's share
(a gauntlet), points, the rating with half its 95% interval, and faults; ``wide`` adds games
played, games W-D-L beside series, average points and faults by reason. Each header says one
thing and which way is better.
"""

from __future__ import annotations

import textwrap


def _fmt_faults(faults: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(faults.items()))


#: headers that say which way is better, shared by every table of standings
POINTS = "points\n(fewer is\nbetter)"
AVERAGE = "avg points\n(fewer is\nbetter)"
PRORATED = "pro-rated\n(fewer is\nbetter)"
RATING = "rating\n± 95%\n(higher is\nbetter)"
SHARE = "series\nwon share\n(more is\nbetter)"
GAME_SHARE = "games\nwon share\n(more is\nbetter)"
FAULTS = "faults\n(fewer is\nbetter)"
RANK_RANGE = "rank\n(95%)"
#: right-aligned columns
NUMERIC = {"rank", RANK_RANGE, "games", "games\nplayed", "wins", "legs\nwon", POINTS, AVERAGE, "start", PRORATED,
           "absent", RATING, SHARE, GAME_SHARE, FAULTS}


def numeric(header: str) -> bool:
    """Whether a column holds numbers (right-aligned): the rating against a named entrant too."""
    return header in NUMERIC or header.startswith("rating vs")


def rating_text(fit: dict | None) -> str:
    """``+35 ± 20``: the standings' rating (Elo scale) and half its 95% interval; blank for an
    entrant that has not played.

    >>> rating_text({"rating": 34.6, "rating_pm": 120.4}), rating_text({"rating": -0.2, "rating_pm": 3})
    ('+35 ± 120', '+0 ± 3')
    """
    if fit is None:
        return ""
    return f"{_signed(fit['rating'])} ± {fit['rating_pm']:.0f}"


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


def _share(value) -> str:
    return "" if value is None else f"{value:.3f}"


LUCK_SCORE = "luck-adjusted\nscore (higher\nis better)"
LUCK_ELO = "luck-adjusted\nElo (higher\nis better)"


def shows_series(data: dict) -> bool:
    """Whether a standings table counts series (W-D-L of series): where the event ranks by
    series, and in a gauntlet whose series are more than single games."""
    return data["ranking"] == "series" or (data["ranking"] == "share" and any(
        r["series"]["played"] != r["games"] for r in data["standings"]))


def table_rows(data: dict, wide: bool = False) -> tuple[list[str], list[list]]:
    """Headers and rows of a standings table: ``tourney standings``, ``tourney run``'s results and
    ``tourney report --format table``/markdown/html all show this one table. By default it fits
    a 100-column terminal (rank, its range, entrant, W-D-L, points, rating, faults); ``wide``
    adds games played, games W-D-L beside series, legs, average points and faults by reason."""
    if data["kind"] == "club":
        return _club_rows(data, wide)
    ranking = data["ranking"]
    rows_in = data["standings"]
    series = shows_series(data)
    # a legs column only where legs are runs of deals (docs/formats.md, "Legs")
    legs = series and any(r["series"]["legs_won"] != r["wins"] for r in rows_in)
    share = ranking == "share"
    # luck-adjusted score and Elo beside the raw ones, where the event has them switched on
    luck = bool(data.get("luck", {}).get("on"))
    reference = (data.get("rating_model") or {}).get("reference", "field")
    rating_head = RATING if reference == "field" else f"rating vs\n{reference}\n± 95%\n(higher is\nbetter)"
    headers = ["rank", RANK_RANGE, "entrant", "series\nW-D-L" if series else "games\nW-D-L",
               *([SHARE] if share and series else []), *([GAME_SHARE] if share and not series else []),
               *(["games\nplayed"] if wide else []), *(["games\nW-D-L"] if wide and series else []),
               *(["legs\nwon"] if legs else []),  # a ranking key where legs are runs of deals
               POINTS, *([AVERAGE] if wide else []), rating_head, FAULTS,
               *(["faults by reason"] if wide else []),
               *([LUCK_SCORE, LUCK_ELO] if luck else [])]
    rows = []
    for r in rows_in:
        s, adj = r["series"], r.get("luck_adjusted")
        games_wdl = f"{r['wins']}-{r['draws']}-{r['losses']}"
        rows.append([r["rank"], r["rank_range"], r["entrant"],
                     f"{s['won']}-{s['drawn']}-{s['lost']}" if series else games_wdl,
                     *([_share(r.get("series_score"))] if share and series else []),
                     *([_share(r.get("game_score"))] if share and not series else []),
                     *([r["games"]] if wide else []), *([games_wdl] if wide and series else []),
                     *([s["legs_won"]] if legs else []),
                     r["points"], *([_average(r["average"])] if wide else []),
                     rating_text(r.get("fit")), r["fault_count"],
                     *([_fmt_faults(r["faults"])] if wide else []),
                     *([_luck_score(adj), elo_text(adj) if adj else ""] if luck else [])])
    return headers, rows


def _club_rows(data: dict, wide: bool) -> tuple[list[str], list[list]]:
    # absences and pro-rating get a column only in leagues that have them
    absent = any(r.get("absences") for r in data["standings"])
    prorate = data.get("withdrawal") == "prorate"
    rated = any(r.get("fit") for r in data["standings"])
    headers = ["rank", *([RANK_RANGE] if rated else []), "entrant", POINTS, *([PRORATED] if prorate else []),
               "games\nplayed", *(["absent"] if absent else []), "wins", AVERAGE, "start",
               *([RATING] if rated else [])]
    rows = [[r["rank"], *([r.get("rank_range", "")] if rated else []),
             r["entrant"] + (" (withdrawn)" if r["withdrawn"] else ""), r["points"],
             *([_average(r["prorated"])] if prorate else []), r["games"],
             *([r["absences"]] if absent else []),
             r["wins"], _average(r["average"]), r["start_points"],
             *([rating_text(r.get("fit"))] if rated else [])] for r in data["standings"]]
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


def footer_lines(data: dict, width: int = 79) -> str:
    """:func:`footer` wrapped for a terminal ("" when there is nothing to say)."""
    return "\n".join(textwrap.fill(part, width) for part in footer(data).split("\n") if part)


def footer(data: dict) -> str:
    """The lines under a standings table: how the rating and the rank range read, or where a
    club league stands."""
    if data["kind"] != "club":
        luck = data.get("luck")
        model = data.get("rating_model") or {}
        against = ("the field's mean" if model.get("reference", "field") == "field"
                   else model["reference"])
        unit = " Duplicate sets are the unit of its interval." if model.get("unit") == "duplicate set" else ""
        name = "Bradley-Terry" if model.get("model") == "bradley-terry" else "Plackett-Luce"
        return (f"Rating: maximum likelihood ({name}, as the ladder's) on the Elo scale against {against}, "
                f"± half its 95% interval; it does not decide the rank.{unit} Rank (95%): the places the "
                "results cannot yet tell apart. Faults: games with a fault (--wide: by reason). "
                + (f"Luck-adjusted scores: {luck['why']}. " if luck and luck.get("on") else "")
                + "Methods: docs/standings.md.")
    rated = ("Rating: maximum likelihood (Plackett-Luce, a game's winner first and the others by points), "
             "± half its 95% interval; it does not decide the rank. Rank (95%): the places the results cannot "
             "yet tell apart.\n" if any(r.get("fit") for r in data["standings"]) else "")
    return (rated + _club_state(data)).strip()


def _club_state(data: dict) -> str:
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
