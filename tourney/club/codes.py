"""League codes: what a phone types to write a club league's results on the web.

A code is ten letters and digits from an alphabet without look-alikes (no 0/O, 1/I/L), shown
as ``Q4-K7QM-3XPA``. The first two are its public part, kept in clear to find the code: no two
live codes of a league share it, so a typed code is checked against one stored hash at most,
and a guess costs the server one scrypt, never one per live code. The other eight are the secret:
about 40 bits, guessed only by luck under the web's rate limit. The database keeps a random salt
and ``hashlib.scrypt`` of the whole code (memory-hard and slow, in the standard library), never
the code itself: a stolen database file gives no working code. A code belongs to one league, may
name the table it is for (``table 2`` is then who enters its games) and may expire; a revoked or
expired code writes nothing.

Codes made before the public part existed (eight letters, ``K7QM-3XPA``) keep working until
they are revoked or expire; typing one is checked against those older codes only.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import UTC, datetime, timedelta

from tourney.club import ClubError
from tourney.club.league import League, default_author, now_utc
from tourney.club.tables import ClubTables

#: the letters a code is drawn from: no 0/O, 1/I/L, so a code read aloud or from paper is typed right
ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
#: letters of the secret part
LENGTH = 8
#: letters of the public part that finds the code (31**2 = 961 live codes per league at most)
LOOKUP = 2
#: scrypt's cost: 16 MiB and tens of milliseconds per check (the scrypt paper's figures for interactive logins)
SCRYPT = {"n": 2**14, "r": 8, "p": 1, "maxmem": 64 * 1024 * 1024, "dklen": 32}


def generate(lookup: str) -> str:
    """A new random code with public part ``lookup``, as shown: ``LL-XXXX-XXXX``."""
    raw = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
    return f"{lookup}-{raw[:4]}-{raw[4:]}"


def free_lookup(taken: set[str]) -> str | None:
    """A random public part not in ``taken`` (those of the live codes it must differ from), or
    None when every one is taken. Ladders' author codes use it too (tourney.ladder.codes)."""
    free = [a + b for a in ALPHABET for b in ALPHABET if a + b not in taken]
    return secrets.choice(free) if free else None


def _free_lookup(league: League, now: str) -> str:
    """A public part that no live code of ``league`` has (call it under the write lock)."""
    taken = {r["lookup"] for r in league.tables.codes(league.id) if describe(r, now)["status"] == "live"}
    lookup = free_lookup(taken)
    if lookup is None:
        raise ClubError(f"league {league.name!r} has {len(taken)} live codes, the most it can have: revoke some "
                        "(tourney club code revoke)")
    return lookup


def normalise(text: str) -> str:
    """A code as typed -> its letters: case, spaces and dashes do not matter.

    >>> normalise(" k7qm-3xpa ")
    'K7QM3XPA'
    """
    return re.sub(r"[\s\-]", "", text).upper()


def digest(code: str, salt: bytes) -> bytes:
    return hashlib.scrypt(normalise(code).encode(), salt=salt, **SCRYPT)


def parse_duration(text: str) -> timedelta:
    """``--expires``: a whole number and a unit, m(inutes), h(ours) or d(ays).

    >>> parse_duration("6h"), parse_duration("90m")
    (datetime.timedelta(seconds=21600), datetime.timedelta(seconds=5400))
    """
    m = re.fullmatch(r"\s*([0-9]{1,6})\s*([mhd])\s*", text.lower())
    if not m or int(m[1]) == 0:
        raise ClubError(f"--expires {text!r}: give a duration like 90m, 6h or 2d")
    unit = {"m": "minutes", "h": "hours", "d": "days"}[m[2]]
    return timedelta(**{unit: int(m[1])})


def expiry(text: str) -> str:
    """When a code made now with ``--expires text`` stops working (UTC, as stored)."""
    return (datetime.now(UTC) + parse_duration(text)).isoformat(timespec="seconds").replace("+00:00", "Z")


def new_code(league: League, *, table: int | None = None, expires: str | None = None,
             by: str | None = None) -> tuple[str, dict]:
    """Make a code for ``league``; returns the code (shown once, never stored) and its row as
    :func:`list_codes` shows it."""
    if table is not None and table < 1:
        raise ClubError("--table must be a table number, 1 or more")
    expires_at = expiry(expires) if expires else None
    salt = secrets.token_bytes(16)
    by = by or default_author()
    at = now_utc()
    with league.writing():
        lookup = _free_lookup(league, at)
        code = generate(lookup)
        cid = league.tables.insert_code({
            "league_id": league.id, "label": "", "table_no": table, "lookup": lookup, "salt": salt,
            "hash": digest(code, salt), "created_at": at, "created_by": by, "expires_at": expires_at})
        label = f"table {table}" if table is not None else f"code {cid}"
        league.tables.update_code(cid, {"label": label})
        league.log_change("code", by, {"code": cid, "label": label, "expires": expires_at}, at=at)
    return code, describe(league.tables.code(cid) or {}, at)


def describe(row: dict, now: str | None = None) -> dict:
    """A code's row without its salt and hash: ``{"id", "label", "table", "created_at",
    "created_by", "expires_at", "used_at", "status"}`` (status: live, expired or revoked)."""
    now = now or now_utc()
    status = ("revoked" if row.get("revoked_at") else
              "expired" if row.get("expires_at") and row["expires_at"] <= now else "live")
    return {"id": row["id"], "label": row["label"], "table": row.get("table_no"), "created_at": row["created_at"],
            "created_by": row["created_by"], "expires_at": row["expires_at"], "used_at": row["used_at"],
            "status": status}


def list_codes(league: League) -> list[dict]:
    now = now_utc()
    return [describe(r, now) for r in league.tables.codes(league.id)]


def revoke(league: League, code_id: int | None, *, every: bool = False, by: str | None = None) -> list[dict]:
    """Revoke code ``code_id`` of ``league`` (or ``every`` live one); returns what was revoked."""
    by = by or default_author()
    at = now_utc()
    with league.writing():
        live = [r for r in league.tables.codes(league.id) if describe(r, at)["status"] == "live"]
        if every:
            chosen = live
        else:
            chosen = [r for r in live if r["id"] == code_id]
            if not chosen:
                known = [r for r in league.tables.codes(league.id) if r["id"] == code_id]
                if known:
                    raise ClubError(f"code {code_id} of league {league.name!r} is already "
                                    f"{describe(known[0], at)['status']}")
                raise ClubError(f"league {league.name!r} has no code {code_id} (see tourney club code list "
                                f"{league.name})")
        for r in chosen:
            league.tables.update_code(r["id"], {"revoked_at": at, "revoked_by": by})
            league.log_change("revoke", by, {"code": r["id"], "label": r["label"]}, at=at)
    return [describe(league.tables.code(r["id"]) or {}, at) for r in chosen]


def check(tables: ClubTables, league_id: int, typed: str) -> dict | None:
    """The live code of league ``league_id`` that ``typed`` is, or None. Only that league's
    codes are tried, so a code of another league never matches.

    A code is found by its public part and one hash is computed, or none when no live code has
    that part. A code of the older form (no public part) is tried against the league's live
    codes of that form only: one hash each, as before."""
    letters = normalise(typed)
    if len(letters) not in (LENGTH, LOOKUP + LENGTH) or any(c not in ALPHABET for c in letters):
        return None
    now = now_utc()
    lookup = letters[:LOOKUP] if len(letters) > LENGTH else None
    for row in tables.codes_by_lookup(league_id, lookup):
        if describe(row, now)["status"] == "live" and hmac.compare_digest(digest(letters, row["salt"]), row["hash"]):
            return row
    return None


def live(tables: ClubTables, code_id: int, league_id: int) -> dict | None:
    """Code ``code_id``'s row while it is live and belongs to league ``league_id``; else None."""
    row = tables.code(code_id)
    if row is None or row["league_id"] != league_id or describe(row)["status"] != "live":
        return None
    return row
