"""How sure the results are: each entrant's Elo with a 95% interval, every pair's head-to-head
record, and which entrants the results cannot yet tell apart (docs/evaluation.md).

Read from the database like the standings. The unit is the game:

- **Elo against the field** (the default reference): in each game an entrant scores the share of
  its opponents it placed above (a shared place counts half): 1 or 0 in a two-player game, and
  0, 1/(k-1), ..., 1 at a table of k. The mean and its standard error over the entrant's games give
  the score, its interval and the logistic Elo of both (:func:`tourney.stats.elo.estimate`).
  Scoring one number per game keeps the results of one table, which are correlated, in one unit.
  The Elo is relative to the field the entrant met; 0 is an average opponent of that field.
- **Elo against a named entrant** (``reference``): the head-to-head record against it, one result
  per shared game (trinomial).
- **Head to head**: for every two entrants who shared a table, W/D/L by placement, score, Elo
  interval, LOS and draw ratio (:func:`tourney.stats.pairwise.pairwise_records`).
- **Rank ranges**: ``A`` is above ``B`` when their head-to-head Elo interval lies above 0; an
  entrant's range runs from 1 + the entrants surely above it to N - those surely below it
  (:func:`tourney.stats.separation.rank_ranges_from`). ``2-3`` means the results cannot yet say
  which of two places it holds. A record of only wins has no normal interval; it separates when
  equals would produce it less than 2.5% of the time (½ⁿ < 0.025: six games or more).
"""

from __future__ import annotations

from collections import Counter

from sqlite_utils import Database

from tourney.errors import UserError
from tourney.results import tallies
from tourney.stats.elo import Estimate, estimate, pentanomial, trinomial
from tourney.stats.pairwise import PairRecord, pairwise_records
from tourney.stats.separation import rank_ranges_from

#: the name of the default reference: an average opponent of the field an entrant met
FIELD = "field"

#: what an Elo block shows of an :class:`Estimate` (the rest stays in the pairwise records)
ELO_FIELDS = ("elo", "elo_low", "elo_high", "elo_pm", "los", "score", "score_low", "score_high",
              "draw_ratio", "games")


def _elo_block(e: Estimate) -> dict:
    d = e.to_dict()
    return {k: (round(d[k], 4) if isinstance(d[k], float) else d[k]) for k in ELO_FIELDS}


def field_scores(games: list[list[tuple[str, float]]]) -> dict[str, Counter]:
    """entrant -> how often it scored each share of opponents beaten in a game (see module)."""
    out: dict[str, Counter] = {}
    for seats in games:
        if len(seats) < 2:
            continue
        for name, place in seats:
            others = [p for n, p in seats if n != name]
            beaten = sum(1.0 if place < p else 0.5 if place == p else 0.0 for p in others)
            out.setdefault(name, Counter())[round(beaten / len(others), 9)] += 1
    return out


def field_estimate(scores: Counter) -> Estimate:
    """The estimate from one entrant's per-game scores against the field."""
    values = sorted(scores)
    return estimate(values, [scores[v] for v in values], model="field", games_per_unit=1)


def comparisons(entrants: list[str], games: list[list[tuple[str, float]]],
                reference: str | None = None) -> dict:
    """Elo per entrant, pairwise records and rank ranges for games given as ``(entrant,
    placement)`` per seat (lower placement is better). ``entrants`` lists everyone in standings
    order; ``reference`` is an entrant's name or None for the field."""
    return compare(entrants, pairwise_records(games), field_scores(games), reference)


def compare(entrants: list[str], records: list[PairRecord], per_game: dict[str, Counter],
            reference: str | None = None, pairs: dict[tuple[str, str], list[int]] | None = None) -> dict:
    """:func:`comparisons` from the tallies it needs: every pair's head-to-head record, each
    entrant's per-game scores against the field (:func:`field_scores`), and, for duplicate events
    of two players, every pair of entrants' mirror-pair counts (``pairs``: first entrant's side,
    lowest first), which then decide their head-to-head with the pentanomial model."""
    pairs = pairs or {}
    if reference is not None and reference not in entrants:
        raise UserError(f"--reference {reference!r} is not an entrant of this event "
                        f"(entrants: {', '.join(entrants)})")
    by_pair: dict[tuple[str, str], PairRecord] = {(r.first, r.second): r for r in records}

    def head_to_head(a: str, b: str) -> Estimate:
        if (a, b) in pairs:  # mirror pairs: their two games are correlated, so count pairs
            return pentanomial(pairs[(a, b)])
        if (b, a) in pairs:
            return pentanomial(pairs[(b, a)][::-1])
        if (a, b) in by_pair:
            r = by_pair[(a, b)]
            return trinomial(r.wins, r.draws, r.losses)
        if (b, a) in by_pair:
            r = by_pair[(b, a)]
            return trinomial(r.losses, r.draws, r.wins)
        return trinomial(0, 0, 0)

    if reference is None:
        elo = {name: field_estimate(per_game.get(name, Counter())) for name in entrants}
    else:
        elo = {name: head_to_head(name, reference) for name in entrants if name != reference}

    def surely_above(a: str, b: str) -> bool:
        e = head_to_head(a, b)
        if e.elo_low is not None:
            return e.elo_low > 0
        # every game won: the normal interval has no width, so use the exact chance of that
        # record between equals, ½ⁿ, against the same 2.5% one side of a 95% interval leaves
        return e.score == 1 and 0.5 ** e.games < 0.025

    ranges = {r.entrant: r for r in rank_ranges_from(entrants, surely_above)}
    return {
        "reference": reference or FIELD,
        "elo": {n: (_elo_block(elo[n]) if n in elo else None) for n in entrants},  # None: the reference
        "rank_range": {name: ranges[name].label for name in entrants},
        "pairwise": [{**r.to_dict(), **_elo_block(head_to_head(r.first, r.second)),
                      "model": "pentanomial" if (r.first, r.second) in pairs else "trinomial",
                      **({"pairs": pairs[(r.first, r.second)]} if (r.first, r.second) in pairs else {})}
                     for r in records],
    }


def event_comparisons(db: Database, event_id: int, entrants: list[str], reference: str | None = None) -> dict:
    """:func:`comparisons` for one stored event, from the tallies the writer keeps with each game
    (:mod:`tourney.results.tallies`): a few rows per pair of entrants, so the standings of a
    large event stay quick whatever the number of games."""
    records, per_game, pairs = event_tallies(db, event_id)
    return compare(entrants, records, per_game, reference, pairs)


def event_tallies(db: Database, event_id: int) -> tuple[
        list[PairRecord], dict[str, Counter], dict[tuple[str, str], list[int]]]:
    """What :func:`compare` needs of a stored event, by entrant name: the head-to-head records
    (first entrant lowest, in name order), the per-game scores against the field and the
    complete mirror pairs of a two-player duplicate event (:func:`mirror_pairs`)."""
    names = {r[0]: r[1] for r in db.execute("select id, name from entrants")}
    kept_pairs, shares = tallies.kept(db, event_id)
    records: list[PairRecord] = []
    pairs: dict[tuple[str, str], list[int]] = {}
    for (a, b), row in sorted(kept_pairs.items(), key=lambda item: (names[item[0][0]], names[item[0][1]])):
        if names[a] < names[b]:
            if any(row[:3]):
                records.append(PairRecord(names[a], names[b], *row[:3]))
            if any(row[3:]):
                pairs[(names[a], names[b])] = row[3:]
    per_game: dict[str, Counter] = {}
    for (a, share), n in shares.items():
        per_game.setdefault(names[a], Counter())[share] = n
    return records, per_game, pairs


def mirror_pairs(db: Database, event_id: int) -> dict[tuple[str, str], list[int]]:
    """The complete mirror pairs of a two-player duplicate event, per pair of entrants (sorted by
    name): how often the first scored 0, ¼, ½, ¾ and 1 over a pair's two games (a game scores 1
    for the better place, ½ for a shared one)."""
    return event_tallies(db, event_id)[2]
