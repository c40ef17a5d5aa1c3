"""Rounds made from results: Swiss pairings and the knockout bracket.

A Swiss or a knockout cannot be scheduled up front, since round r+1 depends on round r. Its
format (:mod:`tourney.formats.swiss`, :mod:`tourney.formats.knockout`) plans the first round
with the schedule and every later one once the previous one has finished
(:func:`tourney.events.runner.next_round_tasks`), from the stored results alone. Nothing here draws at random
(ties fall to the config order, or to a lot derived from the event seed), so a resumed event
rebuilds exactly the pairings of an uninterrupted one.

**Swiss** (Monrad with backtracking; docs/formats.md explains the choices):

- rank by score (a series won 1, drawn 1/2, lost 0; a bye its ``bye_score``), then config order;
- with an odd field, the lowest-ranked entrant that has not had a bye sits out with a bye;
- pair the top unpaired entrant with the next one it has not met, backtracking at dead ends;
  if no pairing avoids every rematch, avoid at least the last round's pairs, and failing that
  pair in ranking order;
- seat 0 goes to whoever of the two has had it less (the higher ranked on a tie);
- tables of k > 2: the ranking cut into near-equal consecutive tables (no byes), entrants
  swapped between neighbouring tables while that cuts repeat meetings; the order round each
  table is then :mod:`tourney.seating`'s (balanced against the rounds before), never the ranking.

Final Swiss order: score, Buchholz Cut-1 (opponents' scores, the lowest dropped; a bye counts as
an opponent with 0), Sonneborn-Berger (the opponents' scores weighted by the score against
them), then a lot from the event seed.

**Knockout**: a bracket of the next power of two, seeds placed in the standard order (1 and 2
meet at the earliest in the final), byes to the top seeds. Each tie is one series (a match);
the winner advances. A drawn match is decided by legs won, then points (fewer, or more with
the rule set's high scoring), then the better seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import engine
from tourney import seeding
from tourney.results import ratings, reads

#: bye value by stored outcome (tourney.results.store.BYE_ROWS)
BYE_VALUES = {"win": 1.0, "draw": 0.5, "loss": 0.0}
#: backtracking steps tried before a Swiss round gives up avoiding rematches
SEARCH_BUDGET = 20000


@dataclass
class Played:
    """One finished series (or bye) as the pairing sees it: ``entrants`` in seat order and the
    score each took from it."""

    round: int
    entrants: list[str]
    scores: list[float]
    bye: bool = False


def placement_scores(placements: list[int]) -> list[float]:
    """Score in [0, 1] per entrant of one table from its placements: ``(k - place)/(k - 1)``,
    entrants sharing a place sharing the places they cover (a drawn pair: 1/2 each)."""
    k = len(placements)
    return [(k - (p + (placements.count(p) - 1) / 2)) / (k - 1) for p in placements]


def played_from_rows(rows: list[dict]) -> list[Played]:
    """The finished series of an event (rows of :func:`tourney.results.store.series_rows`)."""
    out = []
    for s in rows:
        if s["status"] != "finished":
            continue
        names = [e["name"] for e in s["entrants"]]
        if s["kind"] == "bye":
            out.append(Played(s["round"], names, [BYE_VALUES[s["outcome"]]], bye=True))
        else:
            out.append(Played(s["round"], names,
                              placement_scores([e["placement"] for e in s["entrants"]])))
    return out


def scores(names: list[str], history: list[Played]) -> dict[str, float]:
    total = dict.fromkeys(names, 0.0)
    for p in history:
        for name, score in zip(p.entrants, p.scores):
            total[name] += score
    return total


# -- Swiss ------------------------------------------------------------------------------------


def _pair(order: list[str], met: set[frozenset], budget: list[int]) -> list[tuple[str, str]] | None:
    """Pairs of ``order`` (top first) with no pair in ``met``, or None; Monrad with
    backtracking: the top entrant takes the first opponent that leaves a solvable rest."""
    if not order:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    top, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        if frozenset((top, other)) in met:
            continue
        tail = _pair(rest[:i] + rest[i + 1:], met, budget)
        if tail is not None:
            return [(top, other), *tail]
    return None


def _repeats(table: list[str], met: dict[frozenset, int]) -> int:
    return sum(met.get(frozenset((a, b)), 0) for i, a in enumerate(table) for b in table[i + 1:])


def _swap_down(tables: list[list[str]], met: dict[frozenset, int]) -> None:
    """Cut fewer repeat meetings: swap one entrant of a table with one of the next table
    (the best such swap first) while that lowers the two tables' repeats."""
    improved = True
    while improved:
        improved = False
        for upper, lower in zip(tables, tables[1:]):
            before = _repeats(upper, met) + _repeats(lower, met)
            best = None
            for i, a in enumerate(upper):
                for j, b in enumerate(lower):
                    up = upper[:i] + [b] + upper[i + 1:]
                    down = lower[:j] + [a] + lower[j + 1:]
                    gain = before - _repeats(up, met) - _repeats(down, met)
                    if gain > 0 and (best is None or gain > best[0]):
                        best = (gain, i, j)
            if best is not None:
                _, i, j = best
                upper[i], lower[j] = lower[j], upper[i]
                improved = True


def swiss_tables(names: list[str], history: list[Played], k: int) -> list[list[str]]:
    """Tables of ``k`` > 2 for the next Swiss round: the ranking cut into ceil(n/k) consecutive
    tables as equal as possible (larger ones first; no byes: the rule sets take 2 to 8
    players), then entrants swapped between neighbouring tables to cut repeat meetings."""
    total = scores(names, history)
    order = sorted(names, key=lambda n: (-total[n], names.index(n)))
    count = -(-len(order) // k)
    base, extra = divmod(len(order), count)
    tables, start = [], 0
    for t in range(count):
        size = base + (1 if t < extra else 0)
        tables.append(order[start:start + size])
        start += size
    met: dict[frozenset, int] = {}
    for p in history:
        for i, a in enumerate(p.entrants):
            for b in p.entrants[i + 1:]:
                met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    _swap_down(tables, met)
    return [sorted(t, key=order.index) for t in tables]


def swiss_round(names: list[str], history: list[Played]) -> tuple[list[list[str]], str | None]:
    """The tables (pairs in seat order) and the bye (or None) of the next Swiss round.

    ``names`` is the field in config order (the initial seeding)."""
    total = scores(names, history)
    order = sorted(names, key=lambda n: (-total[n], names.index(n)))
    met = {frozenset(p.entrants) for p in history if not p.bye}
    had_bye = {p.entrants[0] for p in history if p.bye}
    firsts = {n: sum(1 for p in history if not p.bye and p.entrants[0] == n) for n in names}

    options: list[tuple[str | None, list[str]]] = [(None, order)]
    if len(order) % 2:
        fresh = [n for n in reversed(order) if n not in had_bye] or list(reversed(order))
        options = [(b, [n for n in order if n != b]) for b in fresh]
    last = max((p.round for p in history), default=-1)
    recent = {frozenset(p.entrants) for p in history if not p.bye and p.round == last}
    # no rematch at all if possible; else at least none of the last round; else ranking order
    for avoid in (met, recent):
        found = next(((bye, pairs) for bye, rest in options
                      if (pairs := _pair(rest, avoid, [SEARCH_BUDGET])) is not None), None)
        if found is not None:
            bye, pairs = found
            break
    else:
        bye, rest = options[0]
        pairs = [(rest[i], rest[i + 1]) for i in range(0, len(rest), 2)]
    tables = [[a, b] if firsts[a] <= firsts[b] else [b, a] for a, b in pairs]
    return tables, bye


def swiss_standings(names: list[str], history: list[Played], event_seed: int) -> list[dict]:
    """The Swiss table: ``{"rank", "entrant", "score", "buchholz_cut1", "sonneborn_berger"}``
    in rank order (score, Buchholz Cut-1, Sonneborn-Berger, lot)."""
    total = scores(names, history)
    opponents: dict[str, list[float]] = {n: [] for n in names}
    sb = dict.fromkeys(names, 0.0)
    for p in history:
        if p.bye:
            opponents[p.entrants[0]].append(0.0)  # a virtual opponent without points
            continue
        for name, mine in zip(p.entrants, p.scores):
            for other in p.entrants:
                if other != name:
                    opponents[name].append(total[other])
                    sb[name] += mine * total[other]
    buchholz = {n: sum(o) - (min(o) if len(o) > 1 else 0.0) for n, o in opponents.items()}
    rows = sorted(names, key=lambda n: (-total[n], -buchholz[n], -sb[n],
                                        seeding.derive("lot", event_seed, n)))
    return [{"rank": i, "entrant": n, "score": total[n], "buchholz_cut1": buchholz[n],
             "sonneborn_berger": sb[n]} for i, n in enumerate(rows, 1)]


# -- knockout ---------------------------------------------------------------------------------


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) by bracket position for a power-of-two ``size``: 1 v size,
    then the halves built the same way, so the top two seeds can only meet in the final."""
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def first_bracket_round(seeded: list[str]) -> list[list[str]]:
    """Round 1 of a knockout of ``seeded`` (best first): tables in bracket order, a table of one
    being a bye."""
    size = 1 << (len(seeded) - 1).bit_length()
    order = bracket_order(size)
    return [[seeded[a - 1]] + ([seeded[b - 1]] if b <= len(seeded) else [])
            for a, b in zip(order[::2], order[1::2])]


def seeds_from_rows(rows: list[dict]) -> dict[str, int]:
    """Each entrant's seed, read back from the bracket positions of round 1."""
    first = [s for s in rows if s["round"] == 0]
    order = bracket_order(2 * len(first))
    seeds = {}
    for i, s in enumerate(first):
        for e, seed in zip(s["entrants"], order[2 * i:2 * i + 2]):
            seeds[e["name"]] = seed
    return seeds


def advancer(s: dict, seeds: dict[str, int], low_points_win: bool = True) -> str:
    """Who goes through from a finished tie: its winner; after a drawn match the one with more
    legs won, then the better points, then the better seed."""
    for e in s["entrants"]:
        if e["entrant_id"] == s.get("winner_id") or len(s["entrants"]) == 1:
            return e["name"]
    sign = 1 if low_points_win else -1
    return min(s["entrants"], key=lambda e: (-(e["wins"] or 0), sign * (e["points"] or 0),
                                             seeds[e["name"]]))["name"]


def low_points_win(event: dict) -> bool:
    """Fewer points are better, except in legs of a rule set with high scoring."""
    module = engine.rule_set_module(event["rule_set"])
    return not (hasattr(module, "series_over") and event["options"].get("scoring") == "high")


def bracket(rows: list[dict], event: dict) -> list[list[dict]]:
    """The knockout bracket so far: per round, its ties ``{"series", "entrants": [[name,
    seed]], "status", "winner"}`` (``winner``: who went through; None while pending)."""
    seeds = seeds_from_rows(rows)
    low = low_points_win(event)
    out: list[list[dict]] = []
    for s in rows:
        while len(out) <= s["round"]:
            out.append([])
        out[s["round"]].append({
            "series": s["idx"], "status": s["status"],
            "entrants": [[e["name"], seeds.get(e["name"])] for e in s["entrants"]],
            "winner": advancer(s, seeds, low) if s["status"] == "finished" else None,
        })
    return out


def bracket_lines(tree: list[list[dict]]) -> list[str]:
    """The bracket as text, one line per tie."""
    lines = []
    for r, ties in enumerate(tree):
        lines.append("final" if len(ties) == 1 else f"round {r + 1}")
        for t in ties:
            who = " v ".join(f"({seed}) {name}" for name, seed in t["entrants"])
            if len(t["entrants"]) == 1:
                who += " (bye)"
            tail = f" -> {t['winner']}" if t["winner"] else ""
            lines.append(f"  {who}{tail}")
    return lines


def swiss_lines(table: list[dict]) -> list[str]:
    from tabulate import tabulate  # heavy at CLI start (wcwidth): only a Swiss report draws it

    return tabulate([[r["rank"], r["entrant"], r["score"], r["buchholz_cut1"],
                      r["sonneborn_berger"]] for r in table],
                    headers=["rank", "entrant", "score", "Buchholz Cut-1", "Sonneborn-Berger"],
                    tablefmt="simple").splitlines()


def rating_order(db, names: list[str]) -> list[str]:
    """``names`` by the online rating (Weng and Lin's update, the conservative ordinal, over
    every game in the database, best first: :mod:`tourney.results.ratings`); entrants without a
    rated game follow in their given order. A seeding needs only an order, quickly; the
    standings' rating is the maximum-likelihood fit (:mod:`tourney.results.rating_fit`)."""
    rated = ratings.rate_games(reads.every_game_ranks(db))
    known = [n for n in names if n in rated]
    known.sort(key=lambda n: (-rated[n].ordinal, names.index(n)))
    return known + [n for n in names if n not in rated]
