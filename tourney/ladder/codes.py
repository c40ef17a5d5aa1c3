"""Author codes: what an author types in the browser to submit versions to a ladder
(``tourney serve --ladder-entry``, docs/web.md).

They are league codes in every way that matters (:mod:`tourney.club.codes`: the same alphabet,
the same ten letters ``LL-XXXX-XXXX`` with a two-letter public part that finds the code, the same
salted scrypt hash, shown once and never stored), but each belongs to one ladder and one author:
a signed-in browser submits versions of that author only, and reads that author's bots' stderr.
"""

from __future__ import annotations

import hmac
import secrets

from tourney.club import codes as club_codes
from tourney.club.league import default_author, now_utc
from tourney.ladder import service
from tourney.results import ladder as rows
from tourney.results import store


def describe(row: dict, now: str | None = None) -> dict:
    """A code's row without its salt and hash: ``id``, ``author``, ``label``, ``created_at``,
    ``created_by``, ``expires_at``, ``used_at``, ``status`` (live, expired or revoked)."""
    out = club_codes.describe(row, now)
    out.pop("table")
    return {"id": out.pop("id"), "author": row["author"], **out}


def new_code(db, name: str, author: str, *, expires: str | None = None, by: str | None = None) -> tuple[str, dict]:
    """Make a code that lets ``author`` submit to ladder ``name``; returns the code (shown once,
    never stored) and its row as :func:`list_codes` shows it."""
    ladder = service.get(db, name)
    if not service.AUTHOR.match(author):
        raise service.LadderError(f"author {author!r}: use letters, digits, '.', '_' or '-' (up to 40), "
                                  "starting with a letter or digit")
    expires_at = club_codes.expiry(expires) if expires else None
    salt = secrets.token_bytes(16)
    at = now_utc()
    with store.write_lock(db):
        taken = {r["lookup"] for r in rows.codes(db, ladder["id"]) if describe(r, at)["status"] == "live"}
        lookup = club_codes.free_lookup(taken)
        if lookup is None:
            raise service.LadderError(f"ladder {name!r} has {len(taken)} live author codes, the most it can have: "
                                      "revoke some (tourney ladder code revoke)")
        code = club_codes.generate(lookup)
        cid = rows.insert_code(db, {
            "ladder_id": ladder["id"], "author": author, "label": author, "lookup": lookup, "salt": salt,
            "hash": club_codes.digest(code, salt), "created_at": at, "created_by": by or default_author(),
            "expires_at": expires_at})
    return code, describe(rows.code(db, cid) or {}, at)


def list_codes(db, name: str) -> list[dict]:
    ladder = service.get(db, name)
    now = now_utc()
    return [describe(r, now) for r in rows.codes(db, ladder["id"])]


def revoke(db, name: str, code_id: int | None, *, author: str | None = None, every: bool = False,
           by: str | None = None) -> list[dict]:
    """Revoke code ``code_id`` of ladder ``name``, or every live code of ``author``, or ``every``
    live code; returns what was revoked."""
    ladder = service.get(db, name)
    at = now_utc()
    with store.write_lock(db):
        known = rows.codes(db, ladder["id"])
        live = [r for r in known if describe(r, at)["status"] == "live"]
        if every:
            chosen = live
        elif author is not None:
            chosen = [r for r in live if r["author"] == author]
            if not chosen:
                raise service.LadderError(f"author {author!r} has no live code in ladder {name!r}")
        else:
            chosen = [r for r in live if r["id"] == code_id]
            if not chosen:
                old = [r for r in known if r["id"] == code_id]
                if old:
                    raise service.LadderError(f"code {code_id} of ladder {name!r} is already "
                                              f"{describe(old[0], at)['status']}")
                raise service.LadderError(f"ladder {name!r} has no author code {code_id} "
                                          f"(see tourney ladder code list {name})")
        for r in chosen:
            rows.update_code(db, r["id"], {"revoked_at": at, "revoked_by": by or default_author()})
    return [describe(rows.code(db, r["id"]) or {}, at) for r in chosen]


def check(db, ladder_id: int, typed: str) -> dict | None:
    """The live code of ladder ``ladder_id`` that ``typed`` is, or None: found by its public part,
    so one scrypt at most is computed, and a code of another ladder never matches."""
    letters = club_codes.normalise(typed)
    if len(letters) != club_codes.LOOKUP + club_codes.LENGTH or any(c not in club_codes.ALPHABET for c in letters):
        return None
    now = now_utc()
    for row in rows.codes_by_lookup(db, ladder_id, letters[:club_codes.LOOKUP]):
        if describe(row, now)["status"] == "live" and hmac.compare_digest(
                club_codes.digest(letters, row["salt"]), row["hash"]):
            return row
    return None


def live(db, code_id: int, ladder_id: int) -> dict | None:
    """Code ``code_id``'s row while it is live and belongs to ladder ``ladder_id``; else None."""
    row = rows.code(db, code_id)
    if row is None or row["ladder_id"] != ladder_id or describe(row)["status"] != "live":
        return None
    return row


def any_live_code(db) -> bool:
    """Whether some ladder has an author code that works (``serve --host 0.0.0.0 --ladder-entry`` needs one)."""
    return rows.any_live_code(db, now_utc())
