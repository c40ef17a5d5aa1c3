"""The ladder's rows (``ladders``, ``ladder_versions``, ``ladder_fits``: migration
``m013_ladders``) and the reads of its games; the logic is in :mod:`tourney.ladder`.

A ladder's games are those of one event (format ``league``, one game per table), so the writer,
replays, ``tourney games`` and the web view treat them like any other games; each submitted
version is one entrant of that event.
"""

from __future__ import annotations

import json

import orjson
from sqlite_utils import Database

from tourney.results import logs, stages, store

#: what a version can be: waiting for its check, playing, kept out of play by a newer version of
#: its author, disabled for its faults, or refused by its check
STATUSES = ("pending", "active", "retired", "disabled", "rejected")


def create(db: Database, name: str, event: dict, settings: dict, config: dict, secret: str | None) -> int:
    """A new ladder with its (empty) event, in one transaction; returns the ladder's id.
    ``secret`` keys the seeds of its games (:mod:`tourney.seeding`)."""
    with db.atomic():
        event_id = store.create_event(db, event, [], [], config, "ladder", secret=secret)
        return store._pk(db.table("ladders").insert({
            "name": name, "event_id": event_id, "rule_set": event["rule_set"], "players": event["players"],
            "options": store.dumps(event.get("options") or {}), "settings": store.dumps(settings),
            "status": "open", "created_at": store.now()}).last_pk)


def find(db: Database, name: str) -> dict | None:
    """The ladder called ``name`` (``settings`` and ``options`` parsed), or None."""
    rows = list(db.query("select * from ladders where name = ?", [name]))
    if not rows:
        return None
    row = dict(rows[0])
    row["settings"] = json.loads(row["settings"] or "{}")
    row["options"] = json.loads(row["options"] or "{}")
    return row


def find_by_id(db: Database, ladder_id: int) -> dict | None:
    rows = list(db.query("select name from ladders where id = ?", [ladder_id]))
    return find(db, rows[0]["name"]) if rows else None


def listing(db: Database) -> list[dict]:
    """Every ladder, newest first: ``id``, ``name``, ``rule_set``, ``players``, ``status``,
    ``versions`` (submitted), ``games`` (stored), ``created_at``."""
    return [dict(r) for r in db.query(
        "select l.id, l.name, l.rule_set, l.players, l.status, l.created_at, "
        "(select count(*) from ladder_versions v where v.ladder_id = l.id) as versions, "
        "(select coalesce(sum(t.games), 0) from entrant_totals t where t.event_id = l.event_id) / l.players "
        "as games "
        "from ladders l order by l.id desc")]


def update_settings(db: Database, ladder_id: int, settings: dict) -> None:
    db.execute("update ladders set settings = ? where id = ?", [store.dumps(settings), ladder_id])
    db.conn.commit()


def names(db: Database) -> list[str]:
    return [r[0] for r in db.execute("select name from ladders order by id").fetchall()]


def set_status(db: Database, ladder_id: int, status: str) -> None:
    db.execute("update ladders set status = ?, closed_at = ? where id = ?",
               [status, store.now() if status == "closed" else None, ladder_id])
    db.conn.commit()


def add_version(db: Database, ladder: dict, author: str, spec: dict) -> dict:
    """Add the next version of ``author`` (entrant ``spec["name"]`` is made from the ladder, the
    author and the number): pending until checked. Returns the version's row.

    The write lock is taken first (a writer's ``atomic()``, :func:`tourney.results.store.open_db`):
    beside a running ladder, whose runner commits games all the time, a transaction that read
    first could not then write."""
    with db.atomic():
        number = 1 + (db.execute("select max(version) from ladder_versions where ladder_id = ? and author = ?",
                                 [ladder["id"], author]).fetchone()[0] or 0)
        spec = {**spec, "name": entrant_name(ladder["name"], author, number)}
        entrant_id = store.upsert_entrant(db, spec)
        position = db.execute("select count(*) from event_entrants where event_id = ?",
                              [ladder["event_id"]]).fetchone()[0]
        db.table("event_entrants").insert({"event_id": ladder["event_id"], "entrant_id": entrant_id,
                                           "position": position, "spec": store.dumps(spec)})
        now = store.now()
        version_id = store._pk(db.table("ladder_versions").insert({
            "ladder_id": ladder["id"], "entrant_id": entrant_id, "author": author, "version": number,
            "spec": store.dumps(spec), "status": "pending", "reason": None, "submitted_at": now,
            "changed_at": now}).last_pk)
    return version(db, version_id)


def entrant_name(ladder: str, author: str, number: int) -> str:
    """A version's entrant name: unique in the database, since entrant names are shared by
    every event in it."""
    return f"{ladder}/{author}/v{number}"


def version(db: Database, version_id: int) -> dict:
    return _version_row(next(db.query(_VERSIONS + " where v.id = ?", [version_id])))


_VERSIONS = ("select v.*, e.name as entrant from ladder_versions v join entrants e on e.id = v.entrant_id")


def _version_row(row) -> dict:
    out = dict(row)
    out["spec"] = json.loads(out["spec"])
    return out


def versions(db: Database, ladder_id: int) -> list[dict]:
    """Every version of a ladder in the order submitted."""
    return [_version_row(r) for r in db.query(_VERSIONS + " where v.ladder_id = ? order by v.id", [ladder_id])]


def set_version_status(db: Database, version_id: int, status: str, reason: str | None = None) -> None:
    if status not in STATUSES:
        raise ValueError(status)
    db.execute("update ladder_versions set status = ?, reason = ?, changed_at = ? where id = ?",
               [status, reason, store.now(), version_id])
    db.conn.commit()


def retire_others(db: Database, ladder_id: int, author: str, keep_id: int, reason: str) -> None:
    """Retire the author's other active versions (when a new one becomes active)."""
    db.execute("update ladder_versions set status = 'retired', reason = ?, changed_at = ? "
               "where ladder_id = ? and author = ? and id != ? and status = 'active'",
               [reason, store.now(), ladder_id, author, keep_id])
    db.conn.commit()


def games(db: Database, event_id: int, after_game: int = 0) -> list[tuple[int, list[tuple[int, float]]]]:
    """The ladder's games with id above ``after_game``, in game order, as ``(game_id, [(entrant_id,
    placement), ...])`` (a game without placements is ranked by its points, fewer first)."""
    return stages.games_after(db.conn, event_id, after_game)


def fit_input(db: Database, ladder: dict) -> tuple[list[stages.Stage], int, int, list]:
    """What a fit of the ladder reads, in one snapshot: the kept stage sums (:mod:`tourney.results.stages`),
    how many games they hold, the last game they hold, and the games stored after it (see :func:`games`)."""
    own = not db.conn.in_transaction
    if own:
        db.execute("BEGIN")
    try:
        kept, count, through = stages.kept(db.conn, ladder["id"])
        return kept, count, through, games(db, ladder["event_id"], through)
    finally:
        if own:
            db.execute("COMMIT")


def fold_stages(db: Database, ladder_id: int) -> set[int]:
    """Fold the games stored since the last fold into the ladder's kept stage sums; returns the
    entrants that played in them."""
    with db.atomic():
        return stages.fold(db.conn, ladder_id)


def keep_logs(ladder: dict) -> int | None:
    """The ladder's keep-logs setting (:mod:`tourney.results.logs`; ladders made before it: the default)."""
    return logs.parse_keep(ladder["settings"].get("keep_logs", logs.LADDER_KEEP))


def tidy(db: Database, ladder: dict) -> int:
    """After a batch, in one transaction: fold the games stored since the last time into the kept
    stage sums, and drop the stderr the keep-logs policy does not keep for the versions that
    played in them (only theirs moved). Returns the characters of stderr dropped."""
    with db.atomic():
        played = stages.fold(db.conn, ladder["id"])
        return logs.apply(db.conn, ladder["event_id"], keep_logs(ladder), sorted(played)) if played else 0


def seat_faults(db: Database, event_id: int, entrant_id: int, last: int) -> list[tuple[int, str | None, str | None]]:
    """An entrant's ``last`` games in the ladder, newest first: ``(game_id, fault code or None,
    the fault's detail)``."""
    rows = db.execute(
        "select st.game_id, st.fault, st.seat, gl.faults from seats st join games g on g.id = st.game_id "
        "left join game_logs gl on gl.game_id = st.game_id "
        "where g.event_id = ? and st.entrant_id = ? order by st.game_id desc limit ?",
        [event_id, entrant_id, last]).fetchall()
    out = []
    for game_id, fault, seat, details in rows:
        detail = json.loads(details).get(str(seat)) if (details and fault) else None
        out.append((game_id, fault, detail))
    return out


def game_counts(db: Database, event_id: int) -> dict[int, int]:
    """entrant id -> games stored in the ladder (from the totals the writer keeps)."""
    return {r[0]: r[1] for r in db.execute(
        "select entrant_id, games from entrant_totals where event_id = ?", [event_id]).fetchall()}


def last_game_id(db: Database, event_id: int) -> int:
    return db.execute("select coalesce(max(id), 0) from games where event_id = ?", [event_id]).fetchone()[0]


def save_fit(db: Database, ladder_id: int, games_count: int, ratings: dict[int, list[float]]) -> None:
    """Keep a fit: entrant id -> ``[theta, se]``; the last one is the next fit's warm start and
    the rows together are each version's rating over time."""
    db.table("ladder_fits").insert({"ladder_id": ladder_id, "games": games_count, "at": store.now(),
                                    "ratings": json.dumps({str(k): v for k, v in ratings.items()})})
    db.conn.commit()


def last_fit(db: Database, ladder_id: int) -> dict[int, list[float]] | None:
    row = db.execute("select ratings from ladder_fits where ladder_id = ? order by id desc limit 1",
                     [ladder_id]).fetchone()
    return {int(k): v for k, v in json.loads(row[0]).items()} if row else None


def fit_history(db: Database, ladder_id: int,
                points: int | None = None) -> list[tuple[int, str, dict[int, list[float]]]]:
    """Every kept fit, oldest first: ``(games, at, ratings)``; with ``points``, at most that many
    of them, evenly spread, the first and the last among them (a chart's worth)."""
    ids = [r[0] for r in db.execute("select id from ladder_fits where ladder_id = ? order by id", [ladder_id])]
    if points is not None and len(ids) > points:
        step = (len(ids) - 1) / (points - 1)
        ids = [ids[round(k * step)] for k in range(points)]
    out: list[tuple[int, str, dict[int, list[float]]]] = []
    for at in range(0, len(ids), 500):
        part = ids[at:at + 500]
        out.extend((r[0], r[1], {int(k): v for k, v in orjson.loads(r[2]).items()}) for r in db.execute(
            f"select games, at, ratings from ladder_fits where id in ({','.join('?' * len(part))}) order by id", part))
    return out


def pending_series(db: Database, event_id: int) -> list[dict]:
    """The ladder's tables made but not played (a run stopped before playing them), with the
    entrant ids at each."""
    out = []
    for sid, idx in db.execute("select id, idx from series where event_id = ? and status = 'pending' "
                               "order by idx", [event_id]).fetchall():
        ids = [r[0] for r in db.execute("select entrant_id from series_entrants where series_id = ? order by seat",
                                        [sid]).fetchall()]
        out.append({"id": sid, "idx": idx, "entrant_ids": ids})
    return out


def drop_unplayed(db: Database, series_ids: list[int]) -> None:
    """Remove tables that have no game stored (a table whose version was disabled meanwhile)."""
    with db.atomic():
        for sid in series_ids:
            if db.execute("select count(*) from games where series_id = ?", [sid]).fetchone()[0]:
                continue
            db.execute("delete from series_entrants where series_id = ?", [sid])
            db.execute("update events set series_count = series_count - 1 where id = "
                       "(select event_id from series where id = ?)", [sid])
            db.execute("delete from series where id = ?", [sid])


def next_series_idx(db: Database, event_id: int) -> int:
    return db.execute("select coalesce(max(idx), -1) + 1 from series where event_id = ?", [event_id]).fetchone()[0]


def recent_games(db: Database, event_id: int, limit: int = 20) -> list[dict]:
    """The ladder's latest games, newest first: ``game_id``, ``finished_at``, ``seats`` (entrant
    id, placement, fault)."""
    out = []
    for gid, at in db.execute("select id, finished_at from games where event_id = ? order by id desc limit ?",
                              [event_id, limit]).fetchall():
        seats = [{"entrant_id": e, "placement": p, "fault": f} for e, p, f in db.execute(
            "select entrant_id, placement, fault from seats where game_id = ? order by seat", [gid]).fetchall()]
        out.append({"game_id": gid, "finished_at": at, "seats": seats})
    return out


# -- author codes and web submissions (m016_ladder_codes; the logic: tourney.ladder.codes) --------


def insert_code(db: Database, row: dict) -> int:
    return store._pk(db.table("ladder_codes").insert(row).last_pk)


def code(db: Database, code_id: int) -> dict | None:
    return next(iter(db.table("ladder_codes").rows_where("id = ?", [code_id])), None)


def codes(db: Database, ladder_id: int) -> list[dict]:
    return list(db.table("ladder_codes").rows_where("ladder_id = ?", [ladder_id], order_by="id"))


def codes_by_lookup(db: Database, ladder_id: int, lookup: str) -> list[dict]:
    return list(db.table("ladder_codes").rows_where("ladder_id = ? and lookup = ?", [ladder_id, lookup]))


def update_code(db: Database, code_id: int, values: dict) -> None:
    db.table("ladder_codes").update(code_id, values)


def any_live_code(db: Database, now: str) -> bool:
    return db.execute("select count(*) from ladder_codes where revoked_at is null and "
                      "(expires_at is null or expires_at > ?)", [now]).fetchone()[0] > 0


def request(db: Database, key: str) -> dict | None:
    """A web submission's idempotency key: ``ladder_id``, ``code_id``, ``at``, ``version_id``."""
    return next(iter(db.table("ladder_requests").rows_where("key = ?", [key])), None)


def remember_request(db: Database, key: str, ladder_id: int, code_id: int, at: str, version_id: int) -> None:
    db.table("ladder_requests").insert({"key": key, "ladder_id": ladder_id, "code_id": code_id, "at": at,
                                        "version_id": version_id})


def author_games(db: Database, ladder_id: int, event_id: int, author: str, limit: int = 10) -> list[dict]:
    """The latest games of ``author``'s versions in a ladder, newest first: ``game_id``,
    ``finished_at``, ``entrant``, ``placement``, ``fault``, and that seat's own ``stderr`` and
    fault ``detail`` (never another seat's)."""
    out = []
    for gid, at, seat, name, placement, fault, err, faults in db.execute(
            "select g.id, g.finished_at, st.seat, e.name, st.placement, st.fault, gl.stderr, gl.faults "
            "from seats st join games g on g.id = st.game_id join entrants e on e.id = st.entrant_id "
            "join ladder_versions v on v.entrant_id = st.entrant_id and v.ladder_id = ? "
            "left join game_logs gl on gl.game_id = g.id "
            "where g.event_id = ? and v.author = ? order by g.id desc, st.seat limit ?",
            [ladder_id, event_id, author, limit]).fetchall():
        out.append({"game_id": gid, "finished_at": at, "entrant": name, "placement": placement, "fault": fault,
                    "stderr": json.loads(err).get(str(seat), "") if err else "",
                    "detail": json.loads(faults).get(str(seat)) if faults else None})
    return out
