#!/usr/bin/env python3
"""Regenerate the JSON Schemas of tourney's JSON outputs (docs/schemas/*.schema.json) from the
shapes declared here: ``python3 scripts/gen_output_schemas.py``.

Every shape allows fields it does not name (fields may be added at any time) and requires the
ones it names unless they are marked optional. A field is renamed or removed only after a
version in which both exist and the old one is marked ``deprecated`` here, which the schema
shows as ``"deprecated": true`` (docs/formats.md, "JSON shapes and their schemas").
tests/test_schemas.py checks that the files are current and that real output validates.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "schemas"

Number = float | int
Opt = Number | None


class Shape(BaseModel):
    model_config = ConfigDict(extra="allow")


# -- pieces ----------------------------------------------------------------------------------


class Estimate(Shape):
    """An Elo estimate from scores (docs/evaluation.md); null where the data cannot tell."""

    elo: Opt
    elo_low: Opt
    elo_high: Opt
    elo_pm: Opt
    los: Opt
    score: Opt
    score_low: Opt
    score_high: Opt
    draw_ratio: Opt
    games: int


class SeriesCount(Shape):
    played: int
    won: int
    drawn: int
    lost: int
    legs_won: int


class Rating(Shape):
    """Deprecated: the online openskill-style rating (Weng-Lin); read ``fit``."""

    mu: Number
    sigma: Number
    ordinal: Number
    games: int
    rank: int | None


class FitRow(Shape):
    """The standings' rating: the maximum-likelihood fit on the Elo scale (docs/standings.md)."""

    rating: Number = Field(description="Against the field's mean, or rating_model.reference (higher is better).")
    rating_low: Number
    rating_high: Number
    rating_pm: Number = Field(description="Half the 95% interval.")
    theta: Number = Field(description="The log-strength behind rating (rating = theta * 400 / ln 10).")
    se: Number = Field(description="Standard error of theta.")


class RatingModel(Shape):
    """How the standings' rating was fitted (docs/standings.md, "The rating")."""

    model: Literal["bradley-terry", "plackett-luce"]
    unit: Literal["game", "duplicate set"]
    prior: Number = Field(description="Precision of the normal prior on each log-strength.")
    scale: Literal["elo"]
    interval: Number
    dispersion: Number = Field(description="Duplicate sets' dispersion the covariance is scaled by (1 otherwise).")
    reference: str = Field(description="Whom ratings are against: \"field\" (the mean) or an entrant.")


class EventRow(Shape):
    """One entrant's row of an event's standings (docs/standings.md)."""

    rank: int
    entrant: str
    games: int
    wins: int
    draws: int
    losses: int
    points: Number
    average: Opt
    faults: dict[str, int] = Field(description=(
        "Faults recorded, by fault code: every breach of the protocol, one that came after its game "
        "was decided included (docs/protocol.md, section 5)."))
    fault_count: int = Field(description="Faults recorded, in all.")
    forfeits: int | None = Field(None, description=(
        "Games forfeited: lost to a fault of its own, recorded while the game was undecided."))
    series: SeriesCount | None = None
    series_score: Opt = Field(None, description="Share of series won, a drawn series half.")
    game_score: Opt = Field(None, description="Share of games won, a drawn game half.")
    fit: FitRow | None = Field(None, description="The rating; null for an entrant with no games.")
    rank_range: str | None = Field(None, description="Places the entrant could hold at 95% (from fit).")
    rating: Rating | None = Field(None, description="Deprecated: read fit.", json_schema_extra={"deprecated": True})
    elo: Estimate | None = Field(None, description="Deprecated: read fit.", json_schema_extra={"deprecated": True})


class ClubRow(Shape):
    """One player's row of a club league's standings (docs/standings.md)."""

    rank: int
    entrant: str
    games: int
    wins: int
    points: Number
    average: Opt
    start_points: int
    withdrawn: bool
    absences: int
    missed: int
    prorated: Opt
    fit: FitRow | None = Field(None, description="The rating (tourney standings, report, pages); null with no games.")
    rank_range: str | None = Field(None, description="Places the player could hold at 95% (from fit).")


class NextFirst(Shape):
    game: int
    entrant: str
    points: Number
    tied: list[str]
    random: bool


Status = Literal["running", "finished"]


class Luck(Shape):
    """Whether the rows' ``luck_adjusted`` estimates are computed, and why (docs/evaluation.md)."""

    on: bool
    why: str
    model: str


class Record(Shape):
    """Games won, drawn and lost against one opponent, with the Elo difference they give."""

    wins: int
    draws: int
    losses: int
    games: int
    score: Opt
    elo: Opt
    elo_low: Opt
    elo_high: Opt
    elo_pm: Opt
    los: Opt


class Pair(Record):
    """One pair's head-to-head record, from ``first``'s side (docs/standings.md)."""

    first: str
    second: str
    model: Literal["trinomial", "pentanomial"]


class SeatBalance(Shape):
    """Who sat directly after whom over the event's games at tables of three or more
    (docs/formats.md, "Seating"; 0 is balanced everywhere)."""

    games: int = Field(description="Games at tables of three or more (the only ones counted).")
    imbalance: Opt = Field(description=(
        "Direction imbalance: the sum over pairs of |c(A,B) - c(B,A)| over the sum of c, where c(A,B) "
        "counts the games in which B sat directly after A (0 balanced, 1 always one way; null without "
        "a game of three or more)."))
    max_difference: int = Field(description="The largest |c(A,B) - c(B,A)| of any pair.")
    one_way_pairs: int = Field(description="Pairs that sat next to each other in one direction only.")
    seat_spread: int = Field(description=(
        "The largest difference between an entrant's most and least often held seat."))


class EventStandings(Shape):
    """``tourney standings NAME --json`` of an event (version 2)."""

    version: Literal[2]
    kind: Literal["event"]
    event: str
    format: str
    rule_set: str
    status: Status
    ranking: str
    tie_breaks: list[str]
    lower_points_better: bool
    games_played: int
    rating_model: RatingModel
    elo_reference: str = Field(description="Deprecated: read rating_model.reference.",
                               json_schema_extra={"deprecated": True})
    standings: list[EventRow]
    pairwise: list[Pair]
    luck: Luck
    seat_balance: SeatBalance


class ClubStandings(Shape):
    """``tourney standings NAME --club --json`` (version 2)."""

    version: Literal[2]
    kind: Literal["club"]
    event: str
    format: Literal["club-league"]
    rule_set: str
    status: Status
    ranking: str
    tie_breaks: list[str]
    lower_points_better: bool
    games_played: int
    next_first: NextFirst | None
    standings: list[ClubRow]


class SeriesEntrant(Shape):
    entrant: str
    seat: int
    wins: int | None
    points: Number | None
    placement: int | None


class Series(Shape):
    series: int
    round: int
    kind: Literal["single", "match", "league", "bye"]
    status: Literal["pending", "running", "finished"]
    outcome: Literal["win", "draw", "loss"] | None
    winner: str | None
    games: int
    legs: int
    sets: int
    entrants: list[SeriesEntrant]


class SwissRow(Shape):
    rank: int
    entrant: str
    score: Number
    buchholz_cut1: Number
    sonneborn_berger: Number


class Tie(Shape):
    series: int
    status: str
    entrants: list[tuple[str, int | None]] = Field(description="[name, seed] in seat order.")
    winner: str | None


SprtModel = Literal["trinomial", "pentanomial", "substitution", "luck-adjusted"]


class SprtEstimate(Shape):
    """The Elo estimate of the test's units so far (docs/evaluation.md); biased once it stops."""

    model: SprtModel
    units: int
    games: int
    score: Opt
    score_low: Opt
    score_high: Opt
    elo: Opt
    elo_low: Opt
    elo_high: Opt
    elo_pm: Opt
    los: Opt
    nelo: Opt
    nelo_pm: Opt
    draw_ratio: Opt
    sd: Opt
    variance_ratio: Opt


class SprtReport(Shape):
    """Where an SPRT stands (docs/evaluation.md, "SPRT")."""

    elo0: Number
    elo1: Number
    alpha: Number
    beta: Number
    max_games: int
    model: SprtModel = Field(description="trinomial (games), pentanomial (duplicate pairs), substitution "
                                         "(deal sets at tables of 3 to 8) or luck-adjusted (a normal model "
                                         "of the luck-adjusted scores).")
    luck_adjusted: bool
    luck_adjusted_why: str
    llr: Number
    lower_bound: Number
    upper_bound: Number
    games: int
    pairs: int | None
    players: int = Field(description="Table size K; above 2 the Elo is field Elo (docs/evaluation.md, "
                                     "\"Verdicts at tables of many\").")
    field: list[str] = Field(description="Who else sits at the table: the baseline in a duel, the K-1 others "
                                         "at a table of K.")
    sets: int | None = Field(description="Substitution sets counted (2K games each) at tables of 3 or more.")
    verdict: Literal["H1 accepted", "H0 accepted", "inconclusive", "running"]
    estimate: SprtEstimate
    restart: str = Field(description=(
        'How long a bot process lived: "never" (warm bots, reused while they allow it), "series" '
        'or "game" (the strict choice); "NAME=SETTING ..." when the entrants differ '
        '(docs/protocol.md, "Warm bots").'))


# -- documents -------------------------------------------------------------------------------


class Run(Shape):
    """``tourney run --json`` (version 2): the event, its series and its standings."""

    version: Literal[2]
    event: str
    format: str
    rule_set: str
    seed: int
    status: Status
    duplicate: bool
    games: int
    series: list[Series]
    ranking: str
    tie_breaks: list[str]
    rating_model: RatingModel
    elo_reference: str = Field(description="Deprecated: read rating_model.reference.",
                               json_schema_extra={"deprecated": True})
    standings: list[EventRow]
    pairwise: list[Pair]
    luck: Luck
    swiss: list[SwissRow] | None = Field(None, description="A Swiss only: the table with its tie-breaks.")
    bracket: list[list[Tie]] | None = Field(None, description="A knockout only: the ties of each round.")
    sprt: SprtReport | None = Field(None, description="An SPRT only: the test.")


class SprtOut(Shape):
    """``tourney sprt --json``."""

    event: str
    sprt: SprtReport


class PlaySeat(Shape):
    seat: int
    entrant: str
    points: Number | None
    placement: int | None
    fault: str | None


class Deal(Shape):
    game_id: int
    deal: int
    seed: int
    first_player: int
    winners: list[str]
    reason: str
    points: list[Number]
    decisions: int


class Play(Shape):
    """``tourney play --json``: the whole game as the rule set defines it (one deal, or a leg of
    several deals whose ``reason`` is ``leg_totals``)."""

    game_id: int
    event: str
    rule_set: str
    seed: int
    first_player: int
    winners: list[str]
    reason: str
    seats: list[PlaySeat]
    decisions: int
    deals: list[Deal]


class MatchEntrant(Shape):
    entrant: str
    seat: int
    wins: int | None


class MatchGame(Shape):
    game_id: int
    game: int
    leg: int
    duplicate_set: int | None
    rotation: int | None
    seed: int
    first_player: int
    winners: list[str]
    reason: str


class MatchOut(Shape):
    """``tourney match --json``."""

    event: str
    seed: int
    best_of: int
    legs: int
    sets: int
    outcome: Literal["win", "draw"] | None
    winner: str | None
    entrants: list[MatchEntrant]
    games: list[MatchGame]


class EventItem(Shape):
    name: str
    format: str
    rule_set: str
    games: int
    status: Status
    source: str
    created_at: str


class Events(Shape):
    """``tourney events --json``: every stored event, oldest first."""

    events: list[EventItem]


class Club(Shape):
    """``tourney club new``, ``add``, ``standings`` (and the other commands that change a
    league) ``--json``: what the command did (e.g. ``entered``, ``joined``), then the league."""

    version: Literal[2]
    league: str
    rule_set: str
    seed: int
    target: int | None
    absence: str
    withdrawal: str
    lower_points_better: bool
    games_played: int
    finished: dict[str, Any] | None
    standings: list[dict[str, Any]]
    next_first: NextFirst | None
    night: dict[str, Any] | None


class GameSeat(Shape):
    seat: int
    entrant: str
    points: Number | None
    placement: int | None
    fault: str | None


class GameItem(Shape):
    id: int
    event: str
    series: int
    leg: int
    game: int
    duplicate_set: int | None
    rotation: int | None
    rule_set: str
    seed: int
    first_player: int
    winners: list[str]
    reason: str
    decisions: int
    finished_at: str
    seats: list[GameSeat]


class Games(Shape):
    """``tourney games --json``: stored games, oldest first, a page at a time."""

    games: list[GameItem]
    offset: int
    next_offset: int | None = Field(description="The --offset of the next page; null after the last one.")


class ReplayStart(Shape):
    rule_set: str
    players: int
    seed: int
    options: dict[str, Any]
    first_player: int
    teams: list[list[int]] | None


class ReplayResult(Shape):
    winners: list[int]
    reason: str
    points: list[Number]
    placements: list[int]
    eliminated: list[int]
    detail: str


class ReplayFault(Shape):
    seat: int
    entrant: str
    code: str
    detail: str


class Replay(Shape):
    """``tourney replay GAME --json``: the game replayed from its seed and choices."""

    game_id: int
    start: ReplayStart
    choices: list[str]
    forfeits: list[list[Any]] = Field(description="[n, seat, code]: the n-th choice was a forfeit.")
    seats: list[str]
    log: list[str]
    faults: list[ReplayFault]
    stderr: dict[str, str]
    result: ReplayResult
    matches_stored: bool


class ClubLeagueItem(Shape):
    name: str
    rule_set: str
    target: int | None
    seed: int
    created_at: str
    created_by: str
    games: int


class ClubList(Shape):
    """``tourney club list --json``."""

    version: Literal[1]
    leagues: list[ClubLeagueItem]


class ClubChange(Shape):
    at: str
    by: str
    action: str
    game: int | None
    source: str
    detail: dict[str, Any]


class ClubHistory(Shape):
    """``tourney club history NAME --json``: every change, oldest first."""

    version: Literal[1]
    league: str
    history: list[ClubChange]


class ClubResult(Shape):
    entrant: str
    entry: str
    points: Number
    winner: bool


class ClubGame(Shape):
    game: int
    round: int | None
    table: int | None
    version: int
    void: bool
    first: str | None
    results: list[ClubResult]
    absent: list[str]
    by: str
    at: str
    note: str | None


class ClubGames(Shape):
    """``tourney club games NAME --json``: every game with its current result."""

    version: Literal[1]
    league: str
    games: list[ClubGame]


class ClubSeat(Shape):
    seat: int
    entrant: str
    points: Number


class ClubTable(Shape):
    table: int
    first: str
    tied: list[str]
    seats: list[ClubSeat]


class ClubNightPlan(Shape):
    round: int
    split: str
    tables: list[ClubTable]
    absent: list[str]
    open: list[int]


class ClubNight(Shape):
    """``tourney club night NAME --json``: the table plan of the round."""

    version: Literal[1]
    league: str
    night: ClubNightPlan


class ClubCodeItem(Shape):
    id: int
    label: str
    table: int | None
    created_at: str
    created_by: str
    expires_at: str | None
    used_at: str | None
    status: str


class ClubCode(ClubCodeItem):
    """``tourney club code new NAME --json``: the new code, shown this once."""

    version: Literal[1]
    league: str
    code: str
    link: str | None


class ClubCodes(Shape):
    """``tourney club code list NAME --json``: the league's codes, never the codes themselves."""

    version: Literal[1]
    league: str
    codes: list[ClubCodeItem]


class Paging(Shape):
    page: int
    pages: int
    size: int
    total: int


class WebIndex(Shape):
    """``/index.json``: the events and club leagues."""

    page: Literal["index"]
    events: list[dict[str, Any]]
    leagues: list[dict[str, Any]]


class HeadToHeadCell(Record):
    """The row entrant's record against the column's."""

    model: str | None


class HeadToHead(Shape):
    entrants: list[str]
    cells: dict[str, dict[str, HeadToHeadCell]] = Field(
        description="cells[row][column]; a pair that never met has none.")


class EloCourse(Shape):
    games: list[int] = Field(description="Game numbers (schedule order) after which the points are taken.")
    rounds: list[int]
    series: dict[str, list[list[Opt] | None]] = Field(
        description="entrant -> [rating, low, high] at each point (the standings' fit on the games so far); "
                    "null before its first game.")


class SprtCourse(Shape):
    games: list[int]
    llr: list[Number]
    elo: list[list[Opt] | None]
    counts: list[int] = Field(description="[L, D, W] of games, or the five pair scores of duplicate pairs.")


class WebSprt(SprtReport):
    candidate: str
    baseline: str
    course: SprtCourse


class WebSwissTable(Shape):
    series: int
    status: str
    outcome: str | None
    winner: str | None
    bye: bool
    entrants: list[dict[str, Any]]


class WebEvent(Shape):
    """``/event/ID.json``: an event's page."""

    page: Literal["event"]
    id: int
    event: dict[str, Any]
    standings: EventStandings
    head_to_head: HeadToHead
    course: EloCourse
    sprt: WebSprt | None = Field(None, description="An SPRT only: the test and its course batch by batch.")
    bracket: list[list[Tie]] | None = Field(None, description="A knockout only: the ties of each round.")
    swiss: list[SwissRow] | None = Field(None, description="A Swiss only: the table with its tie-breaks.")
    swiss_rounds: list[list[WebSwissTable]] | None = Field(None, description="A Swiss only: each round's tables.")
    cross_table: dict[str, Any] = Field(description="Deprecated: read head_to_head.",
                                        json_schema_extra={"deprecated": True})
    elo: None = Field(description="Deprecated, always null: read standings.standings[].elo.",
                      json_schema_extra={"deprecated": True})
    series: list[dict[str, Any]]
    paging: Paging


class WebEntrant(Shape):
    """``/entrant/ID.json``: an entrant's page."""

    page: Literal["entrant"]
    id: int
    entrant: dict[str, Any]
    totals: dict[str, Any]
    faults: dict[str, int]
    games: list[dict[str, Any]]
    paging: Paging


class WebGame(Shape):
    """``/game/ID.json``: a game and its replay."""

    page: Literal["game"]
    id: int
    game: dict[str, Any]
    seats: list[dict[str, Any]]
    winners: list[str]
    replay: dict[str, Any]


class WebLeague(Shape):
    """``/league/ID.json``: a club league's page."""

    page: Literal["league"]
    id: int
    standings: ClubStandings
    course: dict[str, Any] = Field(description="Totals after each round: games, rounds, series {member: [total]}.")
    history: list[dict[str, Any]]


VersionStatus = Literal["pending", "active", "retired", "disabled", "rejected"]


class LadderRow(Shape):
    """One version's row of a ladder's leaderboard (docs/ladder.md)."""

    rank: int
    rank_range: str = Field(description="The ranks the results allow, e.g. 2-4 (docs/evaluation.md).")
    entrant: str = Field(description="The version's entrant name: LADDER/AUTHOR/vN.")
    author: str
    version: int
    status: VersionStatus
    reason: str | None = Field(description="Why it is retired or disabled, in words.")
    games: int
    rating: Number = Field(description="Elo scale, against the mean of the versions that played; higher is better.")
    rating_low: Number = Field(description="95% interval, low end.")
    rating_high: Number = Field(description="95% interval, high end.")
    theta: Number = Field(description="The fitted log-strength (rating = theta * 400 / ln 10).")
    se: Number = Field(description="Standard error of theta.")


class LadderPair(Shape):
    """Two neighbours of the leaderboard among the active versions, and whether the results
    separate them at 95%."""

    upper: str
    lower: str
    difference: Number
    difference_low: Number
    difference_high: Number
    separated: bool


class LadderUnrated(Shape):
    entrant: str
    author: str
    version: int
    status: VersionStatus
    reason: str | None


class LadderStandings(Shape):
    """``tourney ladder standings NAME --json`` (version 1)."""

    version: Literal[1]
    kind: Literal["ladder"]
    ladder: str
    rule_set: str
    players: int
    status: Literal["open", "closed"]
    model: Literal["bradley-terry", "plackett-luce"]
    games_played: int
    standings: list[LadderRow]
    neighbours: list[LadderPair]
    unrated: list[LadderUnrated] = Field(description="Versions without a rating: not played yet, or refused.")


class LadderVersion(Shape):
    """``tourney ladder submit NAME AUTHOR ... --json``: the version added, and whether its check
    accepted it."""

    entrant: str = Field(description="The version's entrant name: LADDER/AUTHOR/vN.")
    author: str
    version: int
    status: VersionStatus
    reason: str | None = Field(description="Why its check refused it, in words (the check's report).")


class LadderSettle(Shape):
    """``tourney ladder settle NAME --json``: the games this run played and the neighbours of the
    top N, separated at 95% or still tied."""

    games: int = Field(description="Games played by this run.")
    settled: bool = Field(description="Every pair of neighbours in the top N is separated at 95%.")
    top: int
    neighbours: list[LadderPair]


class LadderGameSeat(Shape):
    entrant: str = Field(description="The version at this seat: LADDER/AUTHOR/vN.")
    placement: int | None = Field(description="1 is first.")
    points: float | None = Field(description="League points of the game; fewer is better.")
    fault: str | None = Field(description="The seat's fault code (timeout, crash, ...), or null.")


class LadderGame(Shape):
    """``tourney ladder run NAME --json``: one line per game as it is stored (JSON Lines)."""

    version: Literal[1]
    ladder: str
    game_id: int = Field(description="The stored game (tourney replay GAME).")
    seats: list[LadderGameSeat] = Field(description="The seats, first place first.")


#: a p-value as printed: a number, or "< 1e-16" below what double precision tells apart
PValue = Number | Literal["< 1e-16"]


class FairplaySignal(Shape):
    """One collusion test of a pair (docs/evaluation.md, "Collusion detection")."""

    observed: int = Field(description="Partner units that were hits (aimed at, traded with, won).")
    expected: Number = Field(description="Their number expected under the null, given each stratum's margins.")
    partner_units: int
    other_units: int
    p_value: PValue = Field(description="One-sided; lower is more suspicious; \"< 1e-16\" below 1e-16.")
    p_adjusted: PValue | None = Field(description=(
        "Holm-adjusted over the event's choice tests (soft_play, trades) or over its placement tests; "
        "\"< 1e-16\" below 1e-16; null: no stratum could tell."))
    method: Literal["exact", "mantel-haenszel", "none"]


class FairplayPair(Shape):
    entrants: list[str] = Field(description="The two entrants, in name order.")
    games_together: int
    games_apart: int = Field(description="Games of either entrant without the other.")
    signals: dict[Literal["soft_play", "trades", "placements"], FairplaySignal]
    p_min: PValue | None
    flagged: list[str] = Field(description="The choice signals (soft_play, trades) whose adjusted p-value is below "
                                           "alpha; placements are reported, never flagging.")


class Fairplay(Shape):
    """``tourney fairplay --json`` (version 1): every pair of entrants that shared tables."""

    version: Literal[1]
    kind: Literal["fairplay"]
    event: str
    rule_set: str
    players: int
    games: int
    alpha: Number
    correction: Literal["holm"]
    tests: int = Field(description="Informative choice tests (soft_play, trades): the Holm family that flags.")
    pairs: list[FairplayPair] = Field(description="Most suspicious first.")
    flagged: list[list[str]]
    notice: str | None = Field(None, description=(
        "Only when no game had three or more players: why there is nothing to test (pairs is empty)."))


class LadderCodeItem(Shape):
    id: int
    author: str = Field(description="The author this code submits for, from the browser.")
    label: str
    created_at: str
    created_by: str
    expires_at: str | None
    used_at: str | None
    status: Literal["live", "expired", "revoked"]


class LadderCode(LadderCodeItem):
    """``tourney ladder code new NAME AUTHOR --json``: the new author code, shown this once."""

    version: Literal[1]
    ladder: str
    code: str


class LadderCodes(Shape):
    """``tourney ladder code list NAME --json``: the ladder's author codes, never the codes themselves."""

    version: Literal[1]
    ladder: str
    codes: list[LadderCodeItem]


class LadderChange(Shape):
    at: str = Field(description="When (UTC, ISO 8601).")
    by: str = Field(description="Who made it ($TOURNEY_USER, the login name, or --by).")
    limits: dict[str, list[Any]] = Field(description="Each limit changed: [before, after]; null is no limit.")


class LadderShow(Shape):
    """``tourney ladder show NAME --json``: the ladder's settings, the bots' limits in force and
    every change made to them (docs/ladder.md, "Limits")."""

    version: Literal[1]
    ladder: str
    rule_set: str
    players: int
    status: str
    same_author: bool
    keep_versions: bool
    min_share: float
    limits: dict[str, Any] = Field(description="Every limit in force (docs/protocol.md); null is no limit.")
    changes: list[LadderChange] = Field(description="Oldest first.")


#: schema file name -> the shape it publishes
SCHEMAS: dict[str, Any] = {
    "run": Run,
    "standings": EventStandings | ClubStandings,
    "sprt": SprtOut,
    "play": Play,
    "match": MatchOut,
    "events": Events,
    "games": Games,
    "replay": Replay,
    "fairplay": Fairplay,
    "club": Club,
    "club-list": ClubList,
    "club-history": ClubHistory,
    "club-games": ClubGames,
    "club-night": ClubNight,
    "club-code": ClubCode,
    "club-codes": ClubCodes,
    "web-index": WebIndex,
    "web-event": WebEvent,
    "web-entrant": WebEntrant,
    "web-game": WebGame,
    "web-league": WebLeague,
    "ladder": LadderStandings,
    "ladder-version": LadderVersion,
    "ladder-settle": LadderSettle,
    "ladder-game": LadderGame,
    "ladder-show": LadderShow,
    "ladder-code": LadderCode,
    "ladder-codes": LadderCodes,
}


def schema(name: str) -> dict:
    from pydantic import TypeAdapter

    body = TypeAdapter(SCHEMAS[name]).json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": body.pop("title", f"tourney {name} JSON"), **body}


def text(name: str) -> str:
    return json.dumps(schema(name), indent=2) + "\n"


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for name in SCHEMAS:
        (OUT / f"{name}.schema.json").write_text(text(name), encoding="utf-8")
    print(f"wrote {len(SCHEMAS)} schemas to {OUT.relative_to(ROOT)}", file=sys.stderr)
