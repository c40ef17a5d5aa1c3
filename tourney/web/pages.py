"""What each page of the web view shows, as plain JSON-ready data.

Every page of :mod:`tourney.web` is one of these dicts drawn by a template, and the same dict is
the page's JSON twin (docs/web.md lists the URLs). They read the database only, and write no SQL:
standings, head-to-head and ratings over time through :mod:`tourney.results.standings` (the one
source of every reader), club leagues through :class:`tourney.club.league.League`, replays
through :mod:`tourney.web.replay`, and the rest through :mod:`tourney.results.browse`, whose
paged lists (series, an entrant's games) read only the rows a page shows.

An unknown id raises :class:`PageNotFound`, which the app turns into a 404 page.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlite_utils import Database

from tourney import formats
from tourney.club.league import League
from tourney.club.standings import club_course, club_standings
from tourney.errors import UserError
from tourney.formats import sequential as sprt
from tourney.ladder import page as ladder_page
from tourney.results import browse, store
from tourney.results import ladder as ladder_rows
from tourney.results import standings as _standings
from tourney.stats.sprt import Sprt
from tourney.web.replay import replay_data

#: rows per page of the paged lists (an event's series, an entrant's games)
PAGE_SIZE = 50


class PageNotFound(UserError):
    """No event, entrant, game or league has this id."""


@dataclass
class Computed:
    """An event's standings and what is drawn from them (head-to-head matrix, ratings over
    time, the SPRT's course, rounds) as of ``stamp``, and how long they took to compute."""

    stamp: str
    standings: dict
    views: dict
    seconds: float


@dataclass
class Cache:
    """Standings and what is drawn from them, by event, kept while the event's games stay the same.

    The ratings of a large event take seconds to compute (openskill, game by game), and the live
    page asks every two seconds. When an event's last computation took ``slow_seconds`` or more
    and a game has been stored since, the page is drawn at once from the previous standings
    (marked as updating) while a thread computes the new ones on its own connection from
    ``opener``; small events are always computed on the spot.
    """

    opener: Callable[[], Database] | None = None
    slow_seconds: float = 0.5
    events: dict[int, Computed] = field(default_factory=dict)
    _threads: dict[int, threading.Thread] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def refresh(self, event: dict) -> None:
        """Compute ``event``'s standings in the background (once at a time per event)."""
        assert self.opener is not None
        opener = self.opener
        with self._lock:
            if event["id"] in self._threads:
                return

            def work() -> None:
                try:
                    db = opener()
                    try:
                        self.events[event["id"]] = compute(db, event)
                    finally:
                        db.conn.close()
                finally:
                    with self._lock:
                        del self._threads[event["id"]]

            thread = threading.Thread(target=work, name=f"standings-{event['id']}", daemon=True)
            self._threads[event["id"]] = thread
            thread.start()

    def wait(self) -> None:
        """Wait for the background computations under way (tests, benchmarks)."""
        with self._lock:
            threads = list(self._threads.values())
        for thread in threads:
            thread.join()


def compute(db: Database, event: dict) -> Computed:
    """The standings of ``event`` now and what is drawn from them, read in one transaction so
    that they and their stamp agree."""
    start = time.perf_counter()
    with browse.snapshot(db):
        stamp = event_stamp(db, event["id"])
        standings = _standings.event_standings(db, event)
        views = {"head_to_head": _standings.head_to_head(standings),
                 "course": _standings.rating_course(db, event), **format_views(db, event)}
    return Computed(stamp, standings, views, time.perf_counter() - start)


def _computed(db: Database, event: dict, cache: Cache | None) -> tuple[Computed, bool]:
    """The event's standings to show, and whether newer ones are being computed."""
    if cache is None:
        return compute(db, event), False
    known = cache.events.get(event["id"])
    if known is not None and known.stamp == event_stamp(db, event["id"]):
        return known, False
    if known is not None and cache.opener is not None and known.seconds >= cache.slow_seconds:
        cache.refresh(event)
        return known, True
    fresh = compute(db, event)
    cache.events[event["id"]] = fresh
    return fresh, False


def _found(row: dict | None) -> dict:
    if row is None:
        raise PageNotFound("no such page")
    return row


def _pages(total: int, page: int, size: int | None) -> dict:
    if size is None:
        return {"page": 1, "pages": 1, "size": total, "total": total}
    pages = max(1, -(-total // size))
    if not 1 <= page <= pages:
        raise PageNotFound(f"no page {page}")
    return {"page": page, "pages": pages, "size": size, "total": total}


# --------------------------------------------------------------------------- the list of events


def index_data(db: Database) -> dict:
    """Every event (newest first), every club league and every ladder."""
    return {"page": "index", "events": browse.events(db), "leagues": browse.leagues(db),
            "ladders": ladder_rows.listing(db)}


def ladder_data(db: Database, ladder_id: int) -> dict:
    """A ladder's page (:func:`tourney.ladder.page.page`)."""
    return _found(ladder_page.page(db, ladder_id))


# --------------------------------------------------------------------------- an event


def event_stamp(db: Database, event_id: int) -> str:
    """Changes whenever a game of the event is stored or the event's status changes: the live
    page polls it and redraws only then."""
    row = _found(browse.event_stamp(db, event_id))
    return f"{row['n']}.{row['last'] or 0}.{row['status']}"


def _cross_table(matrix: dict) -> dict:
    """The deprecated ``cross_table`` of the event page's JSON, read from the head-to-head matrix."""
    return {"entrants": matrix["entrants"],
            "cells": {a: {b: {"won": c["wins"], "drawn": c["draws"], "lost": c["losses"]} for b, c in row.items()}
                      for a, row in matrix["cells"].items()}}


def _series_page(db: Database, event_id: int, page: int, size: int | None) -> tuple[list[dict], dict]:
    paging = _pages(browse.series_count(db, event_id), page, size)
    series = browse.series_page(db, event_id, size, (page - 1) * (size or 0))
    by_id = {s["id"]: s for s in series}
    for s in series:
        s["entrants"], s["games"] = [], []
    if not series:
        return series, paging
    lo, hi = min(by_id), max(by_id)  # series of one event page have consecutive ids
    for r in browse.series_seats(db, lo, hi):
        if r["series_id"] in by_id:
            by_id[r["series_id"]]["entrants"].append(
                {k: r[k] for k in ("entrant_id", "name", "seat", "wins", "points", "placement")})
    for r in browse.series_game_list(db, lo, hi):
        owner = by_id.get(r["series_id"])
        if owner is not None:
            names = [owner["entrants"][seat]["name"] for seat in json.loads(r["winners"])
                     if seat < len(owner["entrants"])]
            owner["games"].append({"id": r["id"], "idx": r["idx"], "winners": names, "reason": r["reason"]})
    return series, paging


def format_views(db: Database, event: dict) -> dict:
    """What an event's format adds to its page: ``sprt`` (the test's settings, verdict and its
    course batch by batch), ``swiss_rounds`` (each round's tables and results) or ``bracket``
    (the knockout's ties by round)."""
    config = (json.loads(event["config"]) if event.get("config") else {}).get("event") or {}
    fmt = config.get("format")
    if fmt not in ("sprt", "swiss", "knockout"):
        return {}
    rows = store.series_rows(db, event["id"])
    # the format's own report (the SPRT's verdict, the Swiss table, the bracket), as in tourney report
    views = formats.get(fmt).report(db, event["id"], config, rows)
    if fmt == "sprt":
        candidate, baseline = config["entrants"][:2]
        views["sprt"] = {**views["sprt"], "candidate": candidate, "baseline": baseline,
                         "course": sprt_course(db, event["id"], config)}
    if fmt != "swiss":
        return views
    by_round: list[list[dict]] = []
    for s in rows:
        while len(by_round) <= s["round"]:
            by_round.append([])
        winner = next((e["name"] for e in s["entrants"] if e["entrant_id"] == s["winner_id"]), None)
        by_round[s["round"]].append({
            "series": s["idx"], "status": s["status"], "outcome": s["outcome"], "winner": winner,
            "bye": len(s["entrants"]) == 1,
            "entrants": [{k: e[k] for k in ("name", "wins", "points")} for e in s["entrants"]]})
    return {"swiss_rounds": by_round, **views}


def sprt_course(db: Database, event_id: int, config: dict) -> dict:
    """The SPRT after each batch, as the event runs it (:mod:`tourney.formats.sequential`): ``{"games":
    [...], "llr": [...], "elo": [[elo, low, high] or None], "counts": [...]}`` (the Elo from the
    candidate's side; ``counts`` as the test keeps them, lowest score first: ``[L, D, W]`` of
    games, or the five pair scores 0, ½, 1, 1½, 2 of duplicate pairs, or at a table of K the
    4K(K-1)+1 values of a substitution set's D from -1 to 1)."""
    settings = sprt.settings(config)
    out: dict[str, list] = {"games": [0], "llr": [0.0], "elo": [None]}
    if sprt.at_table(config):  # substitution sets at a table of K: the counts are the lattice of D
        test = Sprt(settings["elo0"], settings["elo1"], settings["alpha"], settings["beta"], unit="set",
                    players=sprt.players(config))
        differences = sprt.set_differences(db, event_id, config)
        for n, d in enumerate(differences, 1):
            test.add_set(d)
            if n % sprt.BATCH == 0 or n == len(differences):
                out["games"].append(n * sprt.unit_games(config))
                out["llr"].append(round(test.llr, 4))
                out["elo"].append(_standings.elo_point(test.estimate().to_dict()))
        out["counts"] = list(test.counts)
        return out
    test = Sprt(settings["elo0"], settings["elo1"], settings["alpha"], settings["beta"],
                unit="pair" if config.get("duplicate") else "game")
    games = 0
    scores = sprt.candidate_scores(db, event_id, config)
    for n, series_scores in enumerate(scores, 1):
        if config.get("duplicate"):
            test.add_pair(series_scores[0], series_scores[1])
        else:
            for score in series_scores:
                test.add_game(score)
        games += len(series_scores)
        if n % sprt.BATCH == 0 or n == len(scores):
            out["games"].append(games)
            out["llr"].append(round(test.llr, 4))
            out["elo"].append(_standings.elo_point(test.estimate().to_dict()))
    out["counts"] = list(test.counts)
    return out


def event_data(db: Database, event_id: int, page: int = 1, size: int | None = PAGE_SIZE,
               cache: Cache | None = None) -> dict:
    """An event: standings with Elo, rank ranges and ratings (exactly ``tourney standings
    --json``), the head-to-head matrix, each entrant's Elo after each round, what its format
    adds (:func:`format_views`), and one page of its series with their games."""
    event = _found(browse.event(db, event_id))
    shown, updating = _computed(db, event, cache)
    series, paging = _series_page(db, event_id, page, size)
    entrants = browse.event_entrant_ids(db, event_id)
    return {
        "page": "event",
        "id": event_id,
        # the stamp of the standings shown: the live page keeps asking until it is the latest
        "stamp": shown.stamp,
        "updating": updating,
        "event": {k: event[k] for k in ("name", "format", "rule_set", "status", "seed", "source",
                                        "created_at", "finished_at")},
        "entrant_ids": entrants,
        "standings": shown.standings,
        **shown.views,
        # deprecated, kept one version (docs/web.md): the old cross-table, and the Elo slot that
        # stayed null; both now live in head_to_head and in the standings rows
        "cross_table": _cross_table(shown.views["head_to_head"]),
        "elo": None,
        "series": series,
        "paging": paging,
    }


# --------------------------------------------------------------------------- an entrant


def entrant_data(db: Database, entrant_id: int, page: int = 1, size: int | None = PAGE_SIZE) -> dict:
    """An entrant: its games in every event (newest first) with the faults it made, and its faults
    counted by reason."""
    entrant = _found(browse.entrant(db, entrant_id))
    totals = browse.entrant_totals(db, entrant_id)
    faults = browse.entrant_faults(db, entrant_id)
    paging = _pages(totals["games"], page, size)
    games = browse.entrant_games(db, entrant_id, size, (page - 1) * (size or 0))
    for g in games:
        messages = json.loads(g.pop("messages") or "{}")
        g["winner"] = bool(g["winner"])
        g["fault_message"] = messages.get(str(g["seat"])) if g["fault"] else None
        g["opponents"] = []
    if games:
        by_id = {g["id"]: g for g in games}
        for game_id, name in browse.opponents(db, list(by_id), entrant_id):
            by_id[game_id]["opponents"].append(name)
    return {"page": "entrant", "id": entrant_id, "entrant": entrant, "totals": totals, "faults": faults,
            "games": games, "paging": paging}


# --------------------------------------------------------------------------- a game


def game_data(db: Database, game_id: int) -> dict:
    """A game: who sat where, the result and any fault in words, and its replay step by step."""
    game = _found(browse.game(db, game_id))
    seats = browse.game_seats(db, game_id)
    messages = json.loads(browse.game_fault_messages(db, game_id) or "{}")
    for s in seats:
        s["winner"], s["eliminated"] = bool(s["winner"]), bool(s["eliminated"])
        s["fault_message"] = messages.get(str(s["seat"])) if s["fault"] else None
    row = store.load_replay(db, game_id)  # however the file keeps options and choices
    names = [s["name"] for s in seats]
    winners = [names[w] for w in json.loads(game["winners"]) if w < len(names)]
    return {
        "page": "game",
        "id": game_id,
        "game": {"event": game["event"], "event_id": game["event_id"], "series": game["series_idx"],
                 "idx": game["idx"], "leg": game["leg"], "rule_set": game["rule_set"], "seed": game["seed"],
                 "players": game["players"], "first_player": game["first_player"], "reason": game["reason"],
                 "detail": game["detail"], "decisions": game["decisions"], "finished_at": game["finished_at"]},
        "seats": seats,
        "winners": winners,
        "summary": result_in_words(game["reason"], game["detail"], winners, seats),
        "replay": replay_data(dict(row)) if row is not None else None,
    }


def result_in_words(reason: str, detail: str, winners: list[str], seats: list[dict]) -> list[str]:
    """The result and every fault as sentences.

    >>> result_in_words("last_standing", "", ["Ann"], [{"name": "Bob", "seat": 1, "fault": "timeout",
    ...                  "fault_message": "no answer in 5 s"}])
    ['Ann won (last_standing).', 'Bob (seat 1) lost by a fault: timeout (no answer in 5 s).']
    >>> result_in_words("forfeit", "", ["Bob"], [{"name": "Bob", "seat": 1, "fault": "timeout", "forfeit": 0}])
    ['Bob won (forfeit).', 'Bob (seat 1) faulted after the game was decided: timeout (not a forfeit).']
    """
    head = (" and ".join(winners) + " won" if winners else "Nobody won") + f" ({reason}"
    head += f": {detail})." if detail else ")."
    lines = [head]
    for s in seats:
        if s.get("fault"):
            why = f" ({s['fault_message']})" if s.get("fault_message") else ""
            if s.get("forfeit") == 0:  # recorded, but the game was already decided (protocol.md, 5)
                lines.append(f"{s['name']} (seat {s['seat']}) faulted after the game was decided: "
                             f"{s['fault']}{why} (not a forfeit).")
            else:
                lines.append(f"{s['name']} (seat {s['seat']}) lost by a fault: {s['fault']}{why}.")
    return lines


# --------------------------------------------------------------------------- a club league


def league_data(db: Database, league_id: int) -> dict:
    """A club league: standings, who goes first in the next game, and every entry and correction."""
    name = browse.league_name(db, league_id)
    if name is None:
        raise PageNotFound("no such page")
    return {"page": "league", "id": league_id, "standings": club_standings(db, name),
            "course": club_course(db, name), "history": League(db, name).history()}
