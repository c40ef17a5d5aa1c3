"""The database schema: every table and view of the one results file, and its migrations.

One ordered list of migrations (:data:`MIGRATIONS`) builds the whole schema, so a database
created by any command (``tourney run``, ``tourney club new``, ...) has every table and every
view the docs name (README: datasette). Only writing commands migrate (:func:`migrate`); read
commands open the file read-only and refuse an out-of-date one (:func:`check_current`).

Older databases recorded three migration sets ("tourney", "standings", "club"); the views and
club tables were folded into this one list as idempotent steps, so such a file upgrades in place.

Tables (JSON columns hold JSON text; times are UTC ISO-8601 text)
-----------------------------------------------------------------

``entrants``
    One row per entrant name ever seen. ``id`` (pk), ``name`` (unique), ``kind``
    (``"builtin"``, ``"command"`` or ``"member"`` for club members added by other tools),
    ``builtin`` (bot name or null), ``command`` (JSON argv list as written in the config, or
    null), ``cwd``, ``created_at``. A later config with the same name updates
    ``kind``/``builtin``/``command``/``cwd``; the exact spec used by an event is in
    ``event_entrants.spec``.

``events``
    One row per event (what a config's ``[event]`` defines). ``id`` (pk), ``name`` (unique),
    ``format`` (``"single"``, ``"match"``, ``"league"``, ``"round-robin"``), ``rule_set``,
    ``options`` (JSON, as written), ``seed``, ``players`` (per table), ``games`` (best-of N
    for matches, games per league table), ``rounds``, ``config`` (JSON: the normalised event
    config with its entrant specs), ``config_hash`` (sha256 of ``config``; a re-run with a
    different hash is refused), ``source`` (config file path or ``"cli"``), ``status``
    (``"running"`` or ``"finished"``), ``created_at``, ``finished_at``, ``deal_secret`` (the
    secret that keys the event's seeds, see docs/formats.md; null for ``public_seeds`` and for
    events stored before migration ``m006_event_secrets``), ``series_count`` (how many series
    rows it has, kept with them since ``m020_kept_series``).

``event_entrants``
    Who entered an event. pk (``event_id``, ``entrant_id``); ``position`` (0-based order in
    the config, used by schedules), ``spec`` (JSON: the entrant spec used in this event).

``series``
    One row per series: a best-of-N match, a league table's run of games, or a single game
    (a series of one). ``id`` (pk), ``event_id`` (fk events), ``idx`` (0-based place in the
    event's schedule; unique with ``event_id``), ``round`` (round-robin round, else 0),
    ``kind`` (``"single"``, ``"match"``, ``"league"``, or ``"bye"``: a Swiss or knockout bye,
    one entrant, no games, finished when created), ``seed`` (the series seed, see
    docs/formats.md), ``games_target`` (best-of N legs, or number of league games; 0 = one
    leg of the rule set's own series), ``status``
    (``"pending"``, ``"finished"``), ``outcome`` (``"win"``, ``"draw"`` or null while
    pending), ``winner_id`` (fk entrants, null for a draw or while pending), ``games_played``
    (stored games, i.e. deals), ``finished_at``. All series rows of an event are created before
    its first game, except in a Swiss or a knockout, whose next round is created when the
    previous one has finished.

``series_entrants``
    The table of a series. pk (``series_id``, ``entrant_id``); ``seat`` (the seat this entrant
    takes in every game of the series), ``wins`` (legs won in a match or single game, games won
    in a league; see docs/formats.md for legs), ``points`` (league points summed
    over the series' games), ``placement`` (1 = best, shared numbers for ties; null while the
    series is pending). Matches rank by wins (more is better), leagues by points (fewer is
    better).

``games``
    One row per finished game (one deal, shuffle to result). Written together with its
    ``seats``, ``replays`` and ``game_logs`` rows (and, for the last game of a series, the
    series' result) in one transaction. ``id`` (pk), ``event_id`` (fk), ``series_id`` (fk),
    ``idx`` (0-based game number in the series; unique with ``series_id``), ``leg`` (0-based
    leg of the series this deal belongs to: equal to ``idx`` unless the rule set plays a leg as
    a run of deals; added by migration ``m003_game_legs``), ``duplicate_set`` and ``rotation``
    (in a duplicate event: the 0-based duplicate set of the series the game belongs to, and
    which cyclic rotation of the seating it is; null otherwise; migration
    ``m007_duplicate_sets``), ``rule_set``,
    ``options`` (JSON, completed with defaults; null in games stored since migration
    ``m008_scale``, whose options are the replay's ``options_id``), ``seed`` (the game seed), ``players``,
    ``first_player`` (seat), ``turn_order`` (JSON list of seats in the order they played,
    clockwise from the first player), ``teams`` (JSON or null), ``winners`` (JSON list of
    seats; empty = no winner), ``reason``, ``detail``, ``decisions``, ``seconds``,
    ``finished_at``.

``seats``
    One row per seat of a finished game. pk (``game_id``, ``seat``); ``entrant_id`` (fk),
    ``first`` (1 if this seat played first), ``winner`` (1/0), ``points`` (league points of this
    game, rulings.md item 13 for eliminated players), ``placement`` (1 = best), ``eliminated``
    (1/0), ``fault`` (fault reason code such as ``"timeout"``, or null), ``forfeit`` (1 if that
    fault cost the seat the game, 0 if it came after the game was decided, null without a fault;
    migration ``m018_seat_forfeits``).

``replays``
    Everything needed to replay a game exactly: pk ``game_id``; ``rule_set``, ``players``,
    ``seed``, ``options`` (JSON), ``first_player``, ``teams`` (JSON or null), ``choices``
    (JSON list: ``game.choices``, the option ids in order, where a bot's fault is the engine's
    record ``"forfeit:<seat>:<code>"`` of ``game.forfeit(seat, code)``), ``forfeits`` (JSON list
    of ``[n, seat, code]``: forfeits after ``n`` choices, for records whose choices lack the
    markers; normally ``[]``; added by migration ``m002_replay_forfeits``).
    ``engine.replay(start, choices)`` with ``start`` = these columns reproduces the game, faults
    included; :func:`replay_game` does the same and also applies ``forfeits``. Since migration
    ``m008_scale`` new rows keep ``options`` and ``choices`` null and store instead
    ``options_id`` (fk ``option_sets``: each distinct options text once) and ``choices_z``
    (the choices' JSON text, zlib-compressed); :func:`tourney.results.store.load_replay` reads
    either form.

``option_sets``
    pk ``id``; ``options`` (JSON text, unique): the rule-set options of stored games, once each.

``game_logs``
    What a replay cannot give back. pk ``game_id``; ``log`` (the readable account, one event
    per line: only in files written before ``m008_scale``; it is regenerated from the replay,
    :func:`tourney.results.store.game_log`), ``stderr`` (JSON: seat -> captured bot stderr),
    ``faults`` (JSON: seat -> fault detail text). Since ``m008_scale`` a game without bot
    stderr or faults has no row.

``entrant_ratings``
    The writer's running ratings (:mod:`tourney.results.ratings`): pk (``event_id``,
    ``entrant_id``); ``mu``, ``sigma``, ``games`` after the event's stored games.

``entrant_totals``
    Per event and entrant, kept by the writer with each game: pk (``event_id``,
    ``entrant_id``); ``games``, ``wins``, ``draws``, ``losses``, ``points``, ``faults`` (the
    ``seat_outcomes`` view summed; ``event_standings`` reads these since ``m008_scale``);
    since ``m020_kept_series``, kept with each finished series, ``series_played``,
    ``series_won``, ``series_drawn``, ``series_lost`` (the ``series_outcomes`` view summed) and
    ``legs_won`` (its entrant's game wins in finished matches).

``follow_tallies``, ``seat_tallies``
    Per event, kept by the writer with each game of three seats or more since
    ``m020_kept_series`` (:mod:`tourney.results.seat_balance`): pk (``event_id``, ``entrant_id``,
    ``next_id``), the ``games`` in which ``next_id`` sat directly after ``entrant_id``; pk
    (``event_id``, ``entrant_id``, ``seat``), the ``games`` in which the entrant held that seat,
    with a row (perhaps 0) for every seat of every table size it sat at.

``fault_tallies``
    Per event, kept by the writer with each game since ``m020_kept_series``: pk (``event_id``,
    ``entrant_id``, ``fault``), the seats that faulted with that reason (``count``) and how many
    of them cost their game (``forfeits``): the ``entrant_faults`` view summed.

``pair_tallies``, ``field_tallies``
    Per event, kept by the writer with each game since ``m010_pair_tallies``: every pair of
    entrants' head-to-head record and mirror pairs, and each entrant's per-game scores against
    the field (:mod:`tourney.results.tallies`; the comparisons of standings read these).

``ladders``, ``ladder_versions``, ``ladder_fits``
    A ladder (docs/ladder.md; migration ``m013_ladders``): its name, the event that holds its
    games (``event_id``), ``rule_set``, ``players``, ``options`` and ``settings`` (JSON),
    ``status`` (``"open"``, or ``"closed"`` once its settle phase began). Each submitted version:
    its entrant (``entrant_id``), ``author``, ``version`` (1, 2, ... per author), ``spec`` (JSON),
    ``status`` (``pending``, ``active``, ``retired``, ``disabled``, ``rejected``) and ``reason``.
    Each kept fit: the games it read and, per entrant id, ``[theta, se]`` (the next fit's warm
    start, and the ratings over time).

``ladder_stages``
    A ladder's games as its fit reads them (``m017_ladder_storage``; :mod:`tourney.results.stages`):
    per distinct choice, ``members`` (the entrant ids it was made from, sorted, comma-separated),
    ``chosen`` (the entrant id chosen) and the summed ``weight``, for the games up to
    ``ladders.stages_through`` (``ladders.stages_games`` of them). ``entrant_totals.logs_through``:
    the last game whose stderr the keep-logs policy has settled for that entrant
    (:mod:`tourney.results.logs`).

``ladder_codes``, ``ladder_requests``
    Author codes (``m016_ladder_codes``): salt and scrypt hash of each, found by ``lookup`` (the
    public part); the idempotency key of each web submission and the version it made.

``club_*`` tables and the club views: see :mod:`tourney.club` (and the steps below).

Views: ``seat_outcomes``, ``series_outcomes``, ``entrant_faults``, ``event_standings`` (bot
events, :mod:`tourney.results.standings`), ``club_results_current`` and ``club_standings``
(club leagues, :mod:`tourney.club`).
"""

from __future__ import annotations

import json
import zlib

from sqlite_utils import Database, Migrations

from tourney.results import ratings, seat_balance, stages, tallies

MIGRATIONS = Migrations("tourney")


class SchemaOutOfDate(Exception):
    """The file was written by an older tourney and needs its pending migrations."""


def migrate(db: Database) -> None:
    """Apply every pending migration (writing commands call this when they open the file)."""
    MIGRATIONS.apply(db)


def check_current(db: Database) -> None:
    """Raise :class:`SchemaOutOfDate` unless every migration is applied (reads only)."""
    pending = MIGRATIONS.pending(db)
    if pending:
        raise SchemaOutOfDate(", ".join(m.name for m in pending))


#: ``game_totals`` of :data:`EVENT_STANDINGS` as first written: summed over every seat
_GAME_TOTALS_SUMMED = """        game_totals AS (
            SELECT event_id, entrant_id,
                   COUNT(*) AS games,
                   SUM(outcome = 'win') AS wins,
                   SUM(outcome = 'draw') AS draws,
                   SUM(outcome = 'loss') AS losses,
                   COALESCE(SUM(points), 0) AS points,
                   ROUND(1.0 * COALESCE(SUM(points), 0) / COUNT(*), 4) AS average,
                   SUM(fault IS NOT NULL) AS faults
            FROM seat_outcomes GROUP BY event_id, entrant_id
        ),"""

#: ``series_totals`` and ``leg_totals`` of :data:`EVENT_STANDINGS` as first written: read from every
#: finished series of the event
_SERIES_TOTALS_SUMMED = """        series_totals AS (
            SELECT event_id, entrant_id, COUNT(*) AS series_played,
                   SUM(outcome = 'won') AS series_won, SUM(outcome = 'drawn') AS series_drawn,
                   SUM(outcome = 'lost') AS series_lost
            FROM series_outcomes GROUP BY event_id, entrant_id
        ),
        leg_totals AS (
            SELECT s.event_id, se.entrant_id, SUM(se.wins) AS legs_won
            FROM series s JOIN series_entrants se ON se.series_id = s.id
            WHERE s.status = 'finished' AND s.kind = 'match'
            GROUP BY s.event_id, se.entrant_id
        ),"""

#: the ``event_standings`` view: one row per event and entrant, with its rank
EVENT_STANDINGS = """
        WITH modes AS (
            SELECT ev.id AS event_id,
                   CASE WHEN ev.format = 'gauntlet' THEN 'share'
                        WHEN EXISTS (SELECT 1 FROM series s WHERE s.event_id = ev.id AND s.kind = 'match')
                             THEN 'series'
                        WHEN ev.format = 'league'
                             OR EXISTS (SELECT 1 FROM series s WHERE s.event_id = ev.id AND s.kind = 'league')
                             THEN 'points'
                        ELSE 'games' END AS ranking
            FROM events ev
        ),
""" + _GAME_TOTALS_SUMMED + """
""" + _SERIES_TOTALS_SUMMED + """
        rows AS (
            SELECT ee.event_id, ev.name AS event, ev.format, m.ranking, ee.entrant_id, e.name AS entrant,
                   ee.position,
                   COALESCE(g.games, 0) AS games, COALESCE(g.wins, 0) AS wins,
                   COALESCE(g.draws, 0) AS draws, COALESCE(g.losses, 0) AS losses,
                   COALESCE(g.points, 0) AS points, g.average, COALESCE(g.faults, 0) AS faults,
                   COALESCE(s.series_played, 0) AS series_played, COALESCE(s.series_won, 0) AS series_won,
                   COALESCE(s.series_drawn, 0) AS series_drawn, COALESCE(s.series_lost, 0) AS series_lost,
                   COALESCE(l.legs_won, 0) AS legs_won
            FROM event_entrants ee
            JOIN events ev ON ev.id = ee.event_id
            JOIN entrants e ON e.id = ee.entrant_id
            JOIN modes m ON m.event_id = ee.event_id
            LEFT JOIN game_totals g ON g.event_id = ee.event_id AND g.entrant_id = ee.entrant_id
            LEFT JOIN series_totals s ON s.event_id = ee.event_id AND s.entrant_id = ee.entrant_id
            LEFT JOIN leg_totals l ON l.event_id = ee.event_id AND l.entrant_id = ee.entrant_id
        )
        SELECT rows.*,
               RANK() OVER (PARTITION BY event_id ORDER BY
                   CASE ranking WHEN 'points' THEN points WHEN 'series' THEN -series_won
                                WHEN 'share' THEN -COALESCE(series_score, -1) ELSE -wins END,
                   CASE ranking WHEN 'points' THEN -wins WHEN 'series' THEN -series_drawn
                                WHEN 'share' THEN -COALESCE(game_score, -1) ELSE -draws END,
                   CASE ranking WHEN 'points' THEN COALESCE(average, 1e18) WHEN 'series' THEN -legs_won
                                WHEN 'share' THEN COALESCE(average, 1e18) ELSE points END,
                   CASE ranking WHEN 'points' THEN 0 WHEN 'series' THEN -wins WHEN 'share' THEN faults
                                ELSE faults END,
                   CASE ranking WHEN 'series' THEN -draws ELSE 0 END,
                   CASE ranking WHEN 'series' THEN points ELSE 0 END
               ) AS rank
        FROM (SELECT rows.*,
                     -- a gauntlet's entrants play different numbers of series: shares compare them
                     CASE WHEN series_played > 0
                          THEN ROUND((series_won + 0.5 * series_drawn) / series_played, 6) END AS series_score,
                     CASE WHEN games > 0 THEN ROUND((wins + 0.5 * draws) / games, 6) END AS game_score
              FROM rows) AS rows
    """


#: the same, read from the totals the writer keeps with each finished series (m020_kept_series)
SERIES_TOTALS_KEPT = """        series_totals AS (
            SELECT event_id, entrant_id, series_played, series_won, series_drawn, series_lost
            FROM entrant_totals WHERE series_played > 0
        ),
        leg_totals AS (
            SELECT event_id, entrant_id, legs_won FROM entrant_totals WHERE legs_won > 0
        ),"""

#: ``game_totals`` read from the totals the writer keeps (``entrant_totals``, m008_scale) instead
#: of summing every seat of the event: the same numbers, in time independent of the games stored
GAME_TOTALS_KEPT = """        game_totals AS (
            SELECT event_id, entrant_id, games, wins, draws, losses, points,
                   ROUND(1.0 * points / games, 4) AS average, faults
            FROM entrant_totals WHERE games > 0
        ),"""


@MIGRATIONS()
def m001_initial(db: Database) -> None:
    db.table("entrants").create(
        {
            "id": int,
            "name": str,
            "kind": str,
            "builtin": str,
            "command": str,
            "cwd": str,
            "created_at": str,
        },
        pk="id",
        not_null={"name", "kind"},
    )
    db.table("entrants").create_index(["name"], unique=True)
    db.table("events").create(
        {
            "id": int,
            "name": str,
            "format": str,
            "rule_set": str,
            "options": str,
            "seed": int,
            "players": int,
            "games": int,
            "rounds": int,
            "config": str,
            "config_hash": str,
            "source": str,
            "status": str,
            "created_at": str,
            "finished_at": str,
        },
        pk="id",
        not_null={"name", "format", "rule_set", "status"},
    )
    db.table("events").create_index(["name"], unique=True)
    db.table("event_entrants").create(
        {"event_id": int, "entrant_id": int, "position": int, "spec": str},
        pk=("event_id", "entrant_id"),
        foreign_keys=[("event_id", "events", "id"), ("entrant_id", "entrants", "id")],
    )
    db.table("series").create(
        {
            "id": int,
            "event_id": int,
            "idx": int,
            "round": int,
            "kind": str,
            "seed": int,
            "games_target": int,
            "status": str,
            "outcome": str,
            "winner_id": int,
            "games_played": int,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("event_id", "events", "id"), ("winner_id", "entrants", "id")],
        not_null={"event_id", "idx", "status"},
    )
    db.table("series").create_index(["event_id", "idx"], unique=True)
    db.table("series_entrants").create(
        {
            "series_id": int,
            "entrant_id": int,
            "seat": int,
            "wins": int,
            "points": int,
            "placement": int,
        },
        pk=("series_id", "entrant_id"),
        foreign_keys=[("series_id", "series", "id"), ("entrant_id", "entrants", "id")],
    )
    db.table("games").create(
        {
            "id": int,
            "event_id": int,
            "series_id": int,
            "idx": int,
            "rule_set": str,
            "options": str,
            "seed": int,
            "players": int,
            "first_player": int,
            "turn_order": str,
            "teams": str,
            "winners": str,
            "reason": str,
            "detail": str,
            "decisions": int,
            "seconds": float,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("event_id", "events", "id"), ("series_id", "series", "id")],
        not_null={"event_id", "series_id", "idx"},
    )
    db.table("games").create_index(["series_id", "idx"], unique=True)
    db.table("games").create_index(["event_id"])
    db.table("seats").create(
        {
            "game_id": int,
            "seat": int,
            "entrant_id": int,
            "first": int,
            "winner": int,
            "points": int,
            "placement": int,
            "eliminated": int,
            "fault": str,
        },
        pk=("game_id", "seat"),
        foreign_keys=[("game_id", "games", "id"), ("entrant_id", "entrants", "id")],
    )
    db.table("seats").create_index(["entrant_id"])
    db.table("replays").create(
        {
            "game_id": int,
            "rule_set": str,
            "players": int,
            "seed": int,
            "options": str,
            "first_player": int,
            "teams": str,
            "choices": str,
        },
        pk="game_id",
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("game_logs").create(
        {"game_id": int, "log": str, "stderr": str, "faults": str},
        pk="game_id",
        foreign_keys=[("game_id", "games", "id")],
    )


@MIGRATIONS()
def m002_replay_forfeits(db: Database) -> None:
    db.table("replays").add_column("forfeits", str, not_null_default="[]")


@MIGRATIONS()
def m003_game_legs(db: Database) -> None:
    # games stored before legs existed were each a leg of their own
    db.table("games").add_column("leg", int)
    db.execute("update games set leg = idx")


@MIGRATIONS()
def m004_standings_views(db: Database) -> None:
    # replace=True: a file from before the fold already has these views (old set 'standings')
    db.create_view("seat_outcomes", replace=True, sql="""
        SELECT g.event_id, g.id AS game_id, g.series_id, g.idx AS game_idx, st.seat, st.entrant_id,
               e.name AS entrant,
               CASE WHEN st.winner = 1 THEN 'win'
                    WHEN g.winners = '[]' AND st.placement = 1 THEN 'draw'
                    ELSE 'loss' END AS outcome,
               st.points, st.placement, st.eliminated, st.fault
        FROM seats st JOIN games g ON g.id = st.game_id JOIN entrants e ON e.id = st.entrant_id
    """)
    db.create_view("series_outcomes", replace=True, sql="""
        SELECT s.event_id, s.id AS series_id, s.kind, se.entrant_id,
               CASE WHEN s.winner_id = se.entrant_id THEN 'won'
                    WHEN s.outcome = 'draw' AND se.placement = 1 THEN 'drawn'
                    ELSE 'lost' END AS outcome
        FROM series s JOIN series_entrants se ON se.series_id = s.id
        WHERE s.status = 'finished'
    """)
    db.create_view("entrant_faults", replace=True, sql="""
        SELECT ev.name AS event, so.event_id, so.entrant, so.entrant_id, so.fault, COUNT(*) AS count
        FROM seat_outcomes so JOIN events ev ON ev.id = so.event_id
        WHERE so.fault IS NOT NULL
        GROUP BY so.event_id, so.entrant_id, so.fault
    """)
    db.create_view("event_standings", EVENT_STANDINGS, replace=True)


@MIGRATIONS()
def m005_club_tables(db: Database) -> None:
    # if_not_exists / replace: a file from before the fold may have them already (old set 'club')
    db.table("club_leagues").create(
        {
            "id": int,
            "name": str,
            "rule_set": str,
            "seed": int,
            "target": int,
            "eliminated_score": str,
            "created_at": str,
            "created_by": str,
        },
        pk="id",
        if_not_exists=True,
        not_null={"name", "rule_set", "seed", "eliminated_score"},
    )
    db.table("club_leagues").create_index(["name"], unique=True, if_not_exists=True)
    db.table("club_members").create(
        {
            "id": int,
            "league_id": int,
            "roster": int,
            "name": str,
            "start_points": int,
            "joined_after": int,
            "withdrawn_after": int,
        },
        pk="id",
        if_not_exists=True,
        foreign_keys=[("league_id", "club_leagues", "id")],
        not_null={"league_id", "roster", "name", "start_points", "joined_after"},
    )
    db.table("club_members").create_index(["league_id", "name"], unique=True, if_not_exists=True)
    db.table("club_games").create(
        {
            "id": int,
            "league_id": int,
            "number": int,
            "first_member_id": int,
            "first_how": str,
        },
        pk="id",
        if_not_exists=True,
        foreign_keys=[("league_id", "club_leagues", "id"), ("first_member_id", "club_members", "id")],
        not_null={"league_id", "number"},
    )
    db.table("club_games").create_index(["league_id", "number"], unique=True, if_not_exists=True)
    db.table("club_versions").create(
        {
            "id": int,
            "league_id": int,
            "game_number": int,
            "version": int,
            "action": str,
            "by": str,
            "at": str,
            "note": str,
        },
        pk="id",
        if_not_exists=True,
        foreign_keys=[("league_id", "club_leagues", "id")],
        not_null={"league_id", "game_number", "version", "action", "by", "at"},
    )
    db.table("club_versions").create_index(["league_id", "game_number", "version"], unique=True, if_not_exists=True)
    db.table("club_results").create(
        {
            "id": int,
            "league_id": int,
            "game_number": int,
            "version": int,
            "member_id": int,
            "entry": str,
            "cards": int,
            "eliminated": int,
            "points": int,
            "winner": int,
        },
        pk="id",
        if_not_exists=True,
        foreign_keys=[("league_id", "club_leagues", "id"), ("member_id", "club_members", "id")],
        not_null={"league_id", "game_number", "version", "member_id", "points", "winner"},
    )
    db.table("club_results").create_index(["league_id", "game_number", "version"], if_not_exists=True)
    db.table("club_log").create(
        {
            "id": int,
            "league_id": int,
            "at": str,
            "by": str,
            "action": str,
            "game_number": int,
            "detail": str,
        },
        pk="id",
        if_not_exists=True,
        foreign_keys=[("league_id", "club_leagues", "id")],
        not_null={"league_id", "at", "by", "action"},
    )
    db.create_view(
        "club_results_current",
        replace=True,
        sql=
        """
        SELECT r.* FROM club_results r
        WHERE r.version = (
            SELECT MAX(v.version) FROM club_results v
            WHERE v.league_id = r.league_id AND v.game_number = r.game_number
        )
        """,
    )
    # The standings' one definition. Tie-breaks, in order: total points (lower first), wins
    # (more first), average points per game (lower first); rows equal on all three share a rank.
    db.create_view(
        "club_standings",
        replace=True,
        sql=
        """
        WITH totals AS (
            SELECT m.league_id, m.id AS member_id, m.roster, m.name AS entrant,
                   m.start_points,
                   m.start_points + COALESCE(SUM(r.points), 0) AS points,
                   COUNT(r.id) AS games,
                   COALESCE(SUM(r.winner), 0) AS wins,
                   CASE WHEN COUNT(r.id) > 0
                        THEN ROUND(1.0 * SUM(r.points) / COUNT(r.id), 4) END AS average,
                   m.withdrawn_after IS NOT NULL AS withdrawn,
                   m.joined_after, m.withdrawn_after
            FROM club_members m
            LEFT JOIN club_results_current r ON r.member_id = m.id
            GROUP BY m.id
        )
        SELECT t.*, l.name AS league,
               RANK() OVER (
                   PARTITION BY t.league_id
                   ORDER BY t.points ASC, t.wins DESC, COALESCE(t.average, 1e18) ASC
               ) AS rank
        FROM totals t JOIN club_leagues l ON l.id = t.league_id
        """,
    )


@MIGRATIONS()
def m006_event_secrets(db: Database) -> None:
    # events stored before keep public seeds (null), so that they resume exactly as they began
    db.table("events").add_column("deal_secret", str)


@MIGRATIONS()
def m007_duplicate_sets(db: Database) -> None:
    # games stored before duplicate deals belong to no set
    db.table("games").add_column("duplicate_set", int)
    db.table("games").add_column("rotation", int)


@MIGRATIONS()
def m008_scale(db: Database) -> None:
    # Options once per distinct set, choices compressed, logs regenerated from the replay
    # (store.record_game); ratings and per-entrant totals kept by the writer so that standings
    # read a few rows per entrant instead of every seat of the event (docs/scale.md).
    db.table("option_sets").create({"id": int, "options": str}, pk="id", not_null={"options"},
                             if_not_exists=True)
    db.table("option_sets").create_index(["options"], unique=True, if_not_exists=True)
    db.table("replays").add_column("options_id", int)
    db.table("replays").add_column("choices_z", bytes)
    db.table("entrant_ratings").create(
        {"event_id": int, "entrant_id": int, "mu": float, "sigma": float, "games": int},
        pk=("event_id", "entrant_id"),
        foreign_keys=[("event_id", "events", "id"), ("entrant_id", "entrants", "id")],
        if_not_exists=True,
    )
    db.table("entrant_totals").create(
        {"event_id": int, "entrant_id": int, "games": int, "wins": int, "draws": int,
         "losses": int, "points": int, "faults": int},
        pk=("event_id", "entrant_id"),
        foreign_keys=[("event_id", "events", "id"), ("entrant_id", "entrants", "id")],
        if_not_exists=True,
    )
    db.execute("""
        INSERT OR REPLACE INTO entrant_totals
        SELECT event_id, entrant_id, COUNT(*), SUM(outcome = 'win'), SUM(outcome = 'draw'),
               SUM(outcome = 'loss'), COALESCE(SUM(points), 0), SUM(fault IS NOT NULL)
        FROM seat_outcomes GROUP BY event_id, entrant_id
    """)
    db.create_view("event_standings", EVENT_STANDINGS.replace(_GAME_TOTALS_SUMMED, GAME_TOTALS_KEPT),
                   replace=True)
    # faults are rare: a partial index finds them without reading every seat
    db.execute("CREATE INDEX IF NOT EXISTS idx_seats_faults ON seats (game_id) WHERE fault IS NOT NULL")
    _backfill_ratings(db)


def _backfill_ratings(db: Database) -> None:
    """Ratings of the events already stored, recomputed once from their games."""
    names = {r["name"]: r["id"] for r in db.query("SELECT id, name FROM entrants")}
    for (event_id,) in db.execute("SELECT id FROM events").fetchall():
        rated = ratings.event_ratings(db, event_id)
        db.table("entrant_ratings").insert_all(
            ({"event_id": event_id, "entrant_id": names[n], "mu": r.mu, "sigma": r.sigma,
              "games": r.games} for n, r in rated.items()),
            replace=True,
        )


#: the ``club_standings`` view (from m009_club_nights): the one definition of a club league's
#: totals and ranks. A *round* is one game, or one game per table on a club night. A member absent
#: from a round that has results is charged by the league's ``absence`` rule (``average``: the
#: round's average points rounded up; ``highest``: its highest points; ``fixed``:
#: ``absence_points``; ``none``: nothing); under the ``withdrawal`` rule ``penalty`` every round
#: played after a member withdrew is charged the same way. ``withdrawal`` also picks the ranking:
#: ``average`` ranks by points per game played, ``prorate`` by points scaled to every round the
#: member could have played; ``total`` and ``penalty`` by points. Then wins (more first), then
#: average (lower first). tourney.club.league computes the same totals for who goes first.
CLUB_STANDINGS = """
        WITH cur AS (
            SELECT r.league_id, r.member_id, r.points, r.winner, g.round, g.number
            FROM club_results_current r
            JOIN club_games g ON g.league_id = r.league_id AND g.number = r.game_number
        ),
        rounds AS (
            SELECT cur.league_id, cur.round, MIN(cur.number) AS first_game,
                   CASE l.absence
                        WHEN 'average' THEN (SUM(cur.points) + COUNT(*) - 1) / COUNT(*)
                        WHEN 'highest' THEN MAX(cur.points)
                        WHEN 'fixed' THEN l.absence_points
                        ELSE 0 END AS charge
            FROM cur JOIN club_leagues l ON l.id = cur.league_id
            GROUP BY cur.league_id, cur.round
        ),
        misses AS (
            SELECT a.member_id, 0 AS after_withdrawal, k.charge
            FROM club_absences a JOIN rounds k ON k.league_id = a.league_id AND k.round = a.round
            UNION ALL
            SELECT m.id, 1, k.charge
            FROM club_members m JOIN rounds k ON k.league_id = m.league_id AND k.first_game > m.withdrawn_after
        ),
        played AS (
            SELECT member_id, COUNT(*) AS games, SUM(winner) AS wins, SUM(points) AS points
            FROM cur GROUP BY member_id
        ),
        missed AS (
            SELECT member_id,
                   SUM(after_withdrawal = 0) AS absences,
                   SUM(CASE WHEN after_withdrawal = 0 THEN charge END) AS absent_points,
                   SUM(after_withdrawal = 1) AS missed,
                   SUM(CASE WHEN after_withdrawal = 1 THEN charge END) AS missed_points
            FROM misses GROUP BY member_id
        ),
        totals AS (
            SELECT m.league_id, m.id AS member_id, m.roster, m.name AS entrant, m.start_points,
                   m.start_points + COALESCE(p.points, 0) + COALESCE(x.absent_points, 0)
                       + CASE WHEN l.withdrawal = 'penalty' THEN COALESCE(x.missed_points, 0) ELSE 0 END AS points,
                   COALESCE(p.games, 0) AS games,
                   COALESCE(p.wins, 0) AS wins,
                   CASE WHEN p.games > 0 THEN ROUND(1.0 * p.points / p.games, 4) END AS average,
                   COALESCE(x.absences, 0) AS absences,
                   COALESCE(x.absent_points, 0) AS absent_points,
                   COALESCE(x.missed, 0) AS missed,
                   m.withdrawn_after IS NOT NULL AS withdrawn,
                   m.joined_after, m.withdrawn_after, l.withdrawal
            FROM club_members m
            JOIN club_leagues l ON l.id = m.league_id
            LEFT JOIN played p ON p.member_id = m.id
            LEFT JOIN missed x ON x.member_id = m.id
        ),
        scaled AS (
            SELECT t.*,
                   CASE WHEN t.withdrawal != 'prorate' THEN NULL
                        WHEN t.missed = 0 THEN t.points
                        WHEN t.games + t.absences > 0
                             THEN ROUND(t.start_points + 1.0 * (t.points - t.start_points)
                                        * (t.games + t.absences + t.missed) / (t.games + t.absences), 2)
                        END AS prorated
            FROM totals t
        )
        SELECT s.*, l.name AS league,
               RANK() OVER (
                   PARTITION BY s.league_id
                   ORDER BY CASE s.withdrawal
                                 WHEN 'average' THEN COALESCE(s.average, 1e18)
                                 WHEN 'prorate' THEN COALESCE(s.prorated, 1e18)
                                 ELSE s.points END ASC,
                            s.wins DESC, COALESCE(s.average, 1e18) ASC
               ) AS rank
        FROM scaled s JOIN club_leagues l ON l.id = s.league_id
    """


@MIGRATIONS()
def m009_club_nights(db: Database) -> None:
    """Club nights (issue 16): league options for absences and withdrawals, rounds and tables,
    recorded absences, night plans, void games; the views follow."""
    leagues = db.table("club_leagues")
    # existing leagues take the new defaults (a withdrawn player's missed rounds now count)
    leagues.add_column("absence", str, not_null_default="average")
    leagues.add_column("absence_points", int)
    leagues.add_column("withdrawal", str, not_null_default="penalty")
    games = db.table("club_games")
    games.add_column("round", int)
    games.add_column("table_no", int)
    db.execute("UPDATE club_games SET round = number")
    db.table("club_absences").create(
        {"id": int, "league_id": int, "round": int, "member_id": int},
        pk="id",
        foreign_keys=[("league_id", "club_leagues", "id"), ("member_id", "club_members", "id")],
        not_null={"league_id", "round", "member_id"},
    )
    db.table("club_absences").create_index(["league_id", "round", "member_id"], unique=True)
    db.table("club_nights").create(
        {"id": int, "league_id": int, "round": int, "after_game": int, "split": str, "tables": str,
         "absent": str, "at": str, "by": str},
        pk="id",
        foreign_keys=[("league_id", "club_leagues", "id")],
        not_null={"league_id", "round", "after_game", "split", "tables", "absent", "at", "by"},
    )
    db.table("club_nights").create_index(["league_id", "round"], unique=True)
    db.execute("DROP VIEW IF EXISTS club_standings")
    # the current version of a game is its newest in club_versions; a void version has no rows
    db.create_view("club_results_current", """
        SELECT r.* FROM club_results r
        WHERE r.version = (
            SELECT MAX(v.version) FROM club_versions v
            WHERE v.league_id = r.league_id AND v.game_number = r.game_number
        )
        """, replace=True)
    db.create_view("club_standings", CLUB_STANDINGS, replace=True)


@MIGRATIONS()
def m010_pair_tallies(db: Database) -> None:
    # Pairwise tallies kept by the writer with each game (tourney.results.tallies), so that the
    # comparisons of standings read a few rows per pair instead of every pair of seats of every
    # game (docs/scale.md); filled from the games already stored.
    db.table("pair_tallies").create(
        {"event_id": int, "entrant_id": int, "opponent_id": int, "wins": int, "draws": int,
         "losses": int, "pair0": int, "pair1": int, "pair2": int, "pair3": int, "pair4": int},
        pk=("event_id", "entrant_id", "opponent_id"),
        foreign_keys=[("event_id", "events", "id"), ("entrant_id", "entrants", "id"),
                      ("opponent_id", "entrants", "id")],
        if_not_exists=True,
    )
    db.table("field_tallies").create(
        {"event_id": int, "entrant_id": int, "share": float, "games": int},
        pk=("event_id", "entrant_id", "share"),
        foreign_keys=[("event_id", "events", "id"), ("entrant_id", "entrants", "id")],
        if_not_exists=True,
    )
    tallies.backfill(db)


@MIGRATIONS()
def m011_luck(db: Database) -> None:
    # luck-adjusted scores computed from replays on demand (tourney/results/luck.py), keyed by
    # the weights they were computed with so that re-fitted weights never mix with old ones
    db.table("luck_scores").create(
        {"game_id": int, "seat": int, "raw": float, "adjusted": float, "weights": str},
        pk=("game_id", "seat"), foreign_keys=[("game_id", "games", "id")], if_not_exists=True,
    )


@MIGRATIONS()
def m012_club_codes(db: Database) -> None:
    """Club entry from phones (issue 26): league codes (only a salted scrypt hash is kept), the
    idempotency keys of web forms, where each change came from (``club_log.source``: None for
    the CLI, ``web code N`` for the web), and the per-league double-entry setting with the web
    entries waiting for a second person's confirmation."""
    db.table("club_codes").create(
        {"id": int, "league_id": int, "label": str, "table_no": int, "salt": bytes, "hash": bytes,
         "created_at": str, "created_by": str, "expires_at": str, "revoked_at": str, "revoked_by": str,
         "used_at": str},
        pk="id",
        foreign_keys=[("league_id", "club_leagues", "id")],
        not_null={"league_id", "label", "salt", "hash", "created_at", "created_by"},
    )
    db.table("club_codes").create_index(["league_id"])
    db.table("club_requests").create(
        {"key": str, "league_id": int, "code_id": int, "at": str, "action": str, "result": str},
        pk="key",
        foreign_keys=[("league_id", "club_leagues", "id"), ("code_id", "club_codes", "id")],
        not_null={"league_id", "at", "action"},
    )
    db.table("club_log").add_column("source", str)
    db.table("club_leagues").add_column("double_entry", int, not_null_default=0)
    db.table("club_pending").create(
        {"id": int, "league_id": int, "request": str, "code_id": int, "session": str, "by": str, "at": str,
         "status": str, "settled_by": str, "settled_at": str, "game_number": int},
        pk="id",
        foreign_keys=[("league_id", "club_leagues", "id"), ("code_id", "club_codes", "id")],
        not_null={"league_id", "request", "by", "at", "status"},
    )


@MIGRATIONS()
def m013_ladders(db: Database) -> None:
    """Ladders (docs/ladder.md): an open competition whose games are one event's, its submitted
    versions (each an entrant of that event) with their state and the reason for it, and the
    history of its fitted ratings (a row per refit: the warm start of the next one)."""
    db.table("ladders").create(
        {"id": int, "name": str, "event_id": int, "rule_set": str, "players": int, "options": str,
         "settings": str, "status": str, "created_at": str, "closed_at": str},
        pk="id", foreign_keys=[("event_id", "events", "id")],
        not_null={"name", "event_id", "rule_set", "players", "status", "created_at"}, if_not_exists=True,
    )
    db.table("ladders").create_index(["name"], unique=True, if_not_exists=True)
    db.table("ladder_versions").create(
        {"id": int, "ladder_id": int, "entrant_id": int, "author": str, "version": int, "spec": str,
         "status": str, "reason": str, "submitted_at": str, "changed_at": str},
        pk="id", foreign_keys=[("ladder_id", "ladders", "id"), ("entrant_id", "entrants", "id")],
        not_null={"ladder_id", "entrant_id", "author", "version", "spec", "status", "submitted_at"},
        if_not_exists=True,
    )
    db.table("ladder_versions").create_index(["ladder_id", "author", "version"], unique=True,
                                             if_not_exists=True)
    db.table("ladder_fits").create(
        {"id": int, "ladder_id": int, "games": int, "at": str, "ratings": str},
        pk="id", foreign_keys=[("ladder_id", "ladders", "id")],
        not_null={"ladder_id", "games", "at", "ratings"}, if_not_exists=True,
    )
    db.table("ladder_fits").create_index(["ladder_id", "games"], if_not_exists=True)


@MIGRATIONS()
def m014_club_code_lookup(db: Database) -> None:
    """A league code's public part (``club_codes.lookup``: the first two of its ten letters, kept
    in clear), so that a typed code is checked against one hash, not against every live code
    (tourney.club.codes). Codes made before have none and keep working as they were."""
    db.table("club_codes").add_column("lookup", str)
    db.table("club_codes").create_index(["league_id", "lookup"], if_not_exists=True)


@MIGRATIONS()
def m015_progress_checkpoints(db: Database) -> None:
    # Every entrant's rating and points after each ratings.CHECKPOINT-th game of an event, kept
    # by the writer, so that a report's chart of a long event reads a thousand points instead of
    # going through every game (tourney.results.ratings.checkpoints); filled from the games
    # already stored.
    db.table("progress_checkpoints").create(
        {"event_id": int, "game_number": int, "game_id": int, "entrant_id": int, "mu": float,
         "sigma": float, "points": int},
        pk=("event_id", "game_number", "entrant_id"),
        foreign_keys=[("event_id", "events", "id"), ("entrant_id", "entrants", "id")],
        if_not_exists=True,
    )
    ratings.backfill_checkpoints(db)


@MIGRATIONS()
def m016_ladder_codes(db: Database) -> None:
    """Author codes of a ladder (``tourney ladder code``): what an author types to submit from the
    browser. As with league codes only a salt and a scrypt hash are kept, found by the code's
    public part (``lookup``); each belongs to one ladder and one author. ``ladder_requests`` keeps
    the idempotency key of each web submission with the version it made."""
    db.table("ladder_codes").create(
        {"id": int, "ladder_id": int, "author": str, "label": str, "lookup": str, "salt": bytes, "hash": bytes,
         "created_at": str, "created_by": str, "expires_at": str, "revoked_at": str, "revoked_by": str,
         "used_at": str},
        pk="id", foreign_keys=[("ladder_id", "ladders", "id")],
        not_null={"ladder_id", "author", "label", "lookup", "salt", "hash", "created_at", "created_by"},
        if_not_exists=True,
    )
    db.table("ladder_codes").create_index(["ladder_id", "lookup"], if_not_exists=True)
    db.table("ladder_requests").create(
        {"key": str, "ladder_id": int, "code_id": int, "at": str, "version_id": int},
        pk="key", foreign_keys=[("ladder_id", "ladders", "id"), ("code_id", "ladder_codes", "id")],
        not_null={"ladder_id", "code_id", "at"}, if_not_exists=True,
    )


@MIGRATIONS()
def m017_ladder_storage(db: Database) -> None:
    """Bounded storage and pages that do not read every game (issue 42). ``ladder_stages``: each
    ladder's games as the fit reads them (one row per distinct choice: who was chosen from which
    entrants, with the summed weight; :func:`tourney.stats.mle.stages_of`), kept for the games
    through ``ladders.stages_through`` (``stages_games`` of them), so that a page or ``standings``
    reads these rows and the few games after them instead of every game. ``logs_through`` (per
    ladder version, or per entrant of an event in ``entrant_totals``): the game id up to which the
    stored stderr has been cut by the keep-logs policy. The index of seats by entrant becomes one by
    entrant and game, so that an entrant's last games are found without reading all of them."""
    db.table("ladder_stages").create(
        {"ladder_id": int, "members": str, "chosen": int, "weight": float},
        pk=("ladder_id", "members", "chosen"), foreign_keys=[("ladder_id", "ladders", "id")],
        not_null={"weight"}, if_not_exists=True,
    )
    db.table("ladders").add_column("stages_through", int, not_null_default=0)
    db.table("ladders").add_column("stages_games", int, not_null_default=0)
    db.table("entrant_totals").add_column("logs_through", int, not_null_default=0)
    db.execute("DROP INDEX IF EXISTS idx_seats_entrant_id")
    db.execute("CREATE INDEX IF NOT EXISTS idx_seats_entrant_game ON seats (entrant_id, game_id)")
    for (ladder_id,) in db.execute("SELECT id FROM ladders").fetchall():
        stages.fold(db.conn, ladder_id)


@MIGRATIONS()
def m018_seat_forfeits(db: Database) -> None:
    """``seats.forfeit``: 1 when the seat's fault cost it the game (a forfeit), 0 when the fault
    came after its game was decided (recorded, but it cost nothing), null without a fault
    (docs/protocol.md, section 5). Stored games are read from their replays: the engine records
    a forfeit in the choices only while the game is undecided. ``seat_outcomes`` and
    ``entrant_faults`` show it."""
    db.table("seats").add_column("forfeit", int)
    columns = {c.name for c in db.table("replays").columns}
    text = "r.choices" if "choices" in columns else "NULL"
    rows = db.execute(f"SELECT st.game_id, st.seat, r.choices_z, {text}, r.forfeits FROM seats st "
                      "JOIN replays r ON r.game_id = st.game_id WHERE st.fault IS NOT NULL").fetchall()
    for game_id, seat, packed, plain, later in rows:
        choices = json.loads(zlib.decompress(packed)) if packed is not None else json.loads(plain or "[]")
        marked = any(str(c).startswith(f"forfeit:{seat}:") for c in choices) or any(
            s == seat for _, s, _ in json.loads(later or "[]"))
        db.execute("UPDATE seats SET forfeit = ? WHERE game_id = ? AND seat = ?", [int(marked), game_id, seat])
    db.create_view("seat_outcomes", replace=True, sql="""
        SELECT g.event_id, g.id AS game_id, g.series_id, g.idx AS game_idx, st.seat, st.entrant_id,
               e.name AS entrant,
               CASE WHEN st.winner = 1 THEN 'win'
                    WHEN g.winners = '[]' AND st.placement = 1 THEN 'draw'
                    ELSE 'loss' END AS outcome,
               st.points, st.placement, st.eliminated, st.fault, st.forfeit
        FROM seats st JOIN games g ON g.id = st.game_id JOIN entrants e ON e.id = st.entrant_id
    """)
    db.create_view("entrant_faults", replace=True, sql="""
        SELECT ev.name AS event, so.event_id, so.entrant, so.entrant_id, so.fault, COUNT(*) AS count,
               COALESCE(SUM(so.forfeit), 0) AS forfeits
        FROM seat_outcomes so JOIN events ev ON ev.id = so.event_id
        WHERE so.fault IS NOT NULL
        GROUP BY so.event_id, so.entrant_id, so.fault
    """)


@MIGRATIONS()
def m019_gauntlet_shares(db: Database) -> None:
    """A gauntlet ranks by shares (docs/standings.md, "Tie-breaks"): its candidates play every
    pool member and each pool member only the candidates, so counts of series won cannot rank
    them together. ``event_standings`` gains ``series_score`` and ``game_score`` (the share of
    series and of games won, a draw counting half) and the ranking mode ``share``."""
    db.create_view("event_standings", EVENT_STANDINGS.replace(_GAME_TOTALS_SUMMED, GAME_TOTALS_KEPT),
                   replace=True)


@MIGRATIONS()
def m020_kept_series(db: Database) -> None:
    """Event pages that read kept sums, not every series and game (issue 42, point 3):
    ``entrant_totals`` gains each entrant's series totals and legs won, kept by the writer with
    each finished series; ``follow_tallies`` and ``seat_tallies`` keep the seat balance's counts
    with each game of three seats or more, and ``fault_tallies`` each entrant's faults by reason.
    ``events.series_count`` keeps how many series each event has. All are counted from the stored
    rows here, and ``event_standings`` reads the kept totals. An index finds an event's series of one kind without reading the others, another its duplicate
    games (an event without any no longer reads every game to find out)."""
    for column in ("series_played", "series_won", "series_drawn", "series_lost", "legs_won"):
        db.table("entrant_totals").add_column(column, int, not_null_default=0)
    db.execute("""
        INSERT INTO entrant_totals (event_id, entrant_id, games, wins, draws, losses, points, faults,
                                    series_played, series_won, series_drawn, series_lost, legs_won)
        SELECT s.event_id, se.entrant_id, 0, 0, 0, 0, 0, 0, COUNT(*),
               SUM(s.winner_id IS se.entrant_id),
               SUM(s.winner_id IS NOT se.entrant_id AND s.outcome = 'draw' AND se.placement = 1),
               SUM(s.winner_id IS NOT se.entrant_id AND NOT (s.outcome IS 'draw' AND se.placement IS 1)),
               COALESCE(SUM(CASE WHEN s.kind = 'match' THEN se.wins END), 0)
        FROM series s JOIN series_entrants se ON se.series_id = s.id
        WHERE s.status = 'finished' GROUP BY s.event_id, se.entrant_id
        ON CONFLICT (event_id, entrant_id) DO UPDATE SET
            series_played = excluded.series_played, series_won = excluded.series_won,
            series_drawn = excluded.series_drawn, series_lost = excluded.series_lost,
            legs_won = excluded.legs_won
    """)
    db.execute("CREATE INDEX IF NOT EXISTS idx_series_event_kind ON series (event_id, kind)")
    db.table("events").add_column("series_count", int, not_null_default=0)
    db.execute("UPDATE events SET series_count = (SELECT COUNT(*) FROM series s WHERE s.event_id = events.id)")
    db.table("follow_tallies").create(
        {"event_id": int, "entrant_id": int, "next_id": int, "games": int},
        pk=("event_id", "entrant_id", "next_id"), foreign_keys=[("event_id", "events", "id")],
        not_null={"games"}, if_not_exists=True)
    db.table("seat_tallies").create(
        {"event_id": int, "entrant_id": int, "seat": int, "games": int},
        pk=("event_id", "entrant_id", "seat"), foreign_keys=[("event_id", "events", "id")],
        not_null={"games"}, if_not_exists=True)
    db.execute("CREATE INDEX IF NOT EXISTS idx_games_duplicate ON games (event_id) WHERE duplicate_set IS NOT NULL")
    for (event_id,) in db.execute("SELECT id FROM events").fetchall():
        seat_balance.save(db.conn, event_id, seat_balance.count(seat_balance.event_seatings(db, event_id)))
    db.table("fault_tallies").create(
        {"event_id": int, "entrant_id": int, "fault": str, "count": int, "forfeits": int},
        pk=("event_id", "entrant_id", "fault"), foreign_keys=[("event_id", "events", "id")],
        not_null={"count", "forfeits"}, if_not_exists=True)
    db.execute("INSERT INTO fault_tallies (event_id, entrant_id, fault, count, forfeits) "
               "SELECT event_id, entrant_id, fault, count, forfeits FROM entrant_faults WHERE true "
               "ON CONFLICT (event_id, entrant_id, fault) DO NOTHING")
    db.create_view("event_standings", EVENT_STANDINGS.replace(_GAME_TOTALS_SUMMED, GAME_TOTALS_KEPT)
                   .replace(_SERIES_TOTALS_SUMMED, SERIES_TOTALS_KEPT), replace=True)
