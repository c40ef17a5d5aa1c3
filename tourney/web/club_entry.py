"""Entering a club league's results from phones: ``tourney serve --club-entry`` (docs/web.md).

Reading stays open; writing needs the league's code (:mod:`tourney.club.codes`). How a write is
kept safe, step by step:

* **Session.** A phone's cookie holds a random nonce, signed (HMAC-SHA256 with a key made when
  the server starts), ``HttpOnly`` and ``SameSite=Strict``, ``Secure`` over HTTPS. Who is signed
  in where is kept by the server (:mod:`tourney.web.club_access`: nonce -> the code's id per
  league), never in the cookie: signing out ends the session on the server, so a copy of the
  cookie writes nothing afterwards, and a restart signs every phone out. A sign-in or sign-out
  gives the phone a new nonce. Every write checks again that the code is live and belongs to the league of the URL: a
  revoked code stops at once, and a code of league A writes nothing in league B.
* **CSRF.** Every form carries a token derived from the cookie's nonce, so it changes at every
  sign-in; a form posted without it, or from another site, is refused (403).
* **Rate limit.** Code attempts are counted per client address, each *before* its code is
  checked, and taken back when the code was right; after ``MAX_FAILURES`` wrong ones within
  ``WINDOW_SECONDS`` the client is refused (429) until the window passes, however many it sends
  at once. Each failure is logged (logger ``tourney.web.club``) with the client's address.
* **Numbers.** A number is the digits 0 to 9; other scripts' digits (Arabic-Indic, full-width)
  are refused with a message saying so, never read as numbers.
* **Once only.** Every form carries an idempotency key. The key is stored in the same
  transaction as the change, under the database's write lock, so a resubmitted form or a double
  tap stores once, and two phones writing at once both land, one after the other.
* **Same rules.** Each form calls the :class:`tourney.club.league.League` method its ``tourney
  club`` command calls, so the checks and the messages are the same. A refused form shows the
  message, answers 4xx and writes nothing.

The history (``tourney club history``) says ``web code N`` for every change made here, and
``by`` is the code's label (``table 2``).
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import secrets
from collections.abc import Callable
from datetime import datetime
from urllib.parse import parse_qsl

from sqlite_utils import Database
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from tourney.club import ClubError, codes
from tourney.club.entries import digits_hint
from tourney.club.league import League, now_utc
from tourney.club.tables import ClubTables
from tourney.results import store
from tourney.web import pages
from tourney.web.club_access import (
    WINDOW_SECONDS,
    Limiter,
    Sessions,
    Signer,
    ThreadDatabase,
    read_session,
    write_session,
)
from tourney.web.render import Links, render

LOG = logging.getLogger("tourney.web.club")
COOKIE = "tourney_club"
#: the largest form body read (a game of eight players with notes is far smaller)
MAX_BODY = 16_384
MAX_FIELD = 200
#: the longest message carried to the next page in the cookie (a cookie holds about 4 KB)
MAX_FLASH = 400
KEY = re.compile(r"[A-Za-z0-9_-]{16,64}")
NUMBER = re.compile(r"[0-9]{1,6}")
ACTIONS = ("code", "leave", "add", "void", "restore", "night", "confirm", "reject")
PAGE_LINKS = Links(root="../")
#: a refused form answers at its own URL (/league/3/add), one folder deeper than the page
FORM_LINKS = Links(root="../../")


class Refused(Exception):
    """A form that changes nothing: the message shown on the page, and the status answered."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def clock_time(at: str | None) -> str:
    """``2026-11-25T21:14:03Z`` as the server's local ``21:14`` (what a club night reads)."""
    if not at:
        return ""
    try:
        return datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone().strftime("%H:%M")
    except ValueError:
        return at


class ClubEntry:
    """The routes that write, over the database at ``db_path`` (one writable connection per
    worker thread); ``fallback`` serves a league page's JSON twin."""

    def __init__(self, db_path, fallback: Callable, *, limiter: Limiter | None = None,
                 signer: Signer | None = None, sessions: Sessions | None = None):
        self.db = ThreadDatabase(db_path)
        self.fallback = fallback
        self.limiter = limiter or Limiter()
        self.signer = signer or Signer()
        self.sessions = sessions or Sessions()

    def routes(self) -> list[Route]:
        return [Route("/league/{key}", self.page, methods=["GET", "HEAD"]),
                Route("/league/{key}/{action}", self.post, methods=["POST"])]

    # ---- the session

    def _session(self, request: Request) -> dict:
        """The cookie's ``{"n": nonce, "f": message to show}``, and ``"c"``: the code id per league
        the server holds for the nonce (read here, never from the cookie)."""
        return read_session(request, COOKIE, self.signer, self.sessions)

    def _set_cookie(self, response: Response, request: Request, session: dict) -> None:
        write_session(response, request, COOKIE, self.signer, session)

    # ---- reading: the league page with its forms

    async def page(self, request: Request) -> Response:
        key = request.path_params["key"]
        if not NUMBER.fullmatch(key):
            return await self.fallback(request)
        session = self._session(request)
        flash = session.pop("f", None)
        response = await run_in_threadpool(self._page, int(key), session, flash, None, 200, {}, PAGE_LINKS)
        self._set_cookie(response, request, session)
        return response

    def _page(self, league_id: int, session: dict, flash: str | None, error: str | None, status: int,
              form: dict, links: Links) -> Response:
        db = self.db()
        try:
            data = pages.league_data(db, league_id)
        except pages.PageNotFound:
            return HTMLResponse(render({"page": "404", "what": "No such club league."}, links), status_code=404)
        data["entry"] = self._context(db, league_id, session, flash, error, form)
        return HTMLResponse(render(data, links), status_code=status, headers={"Cache-Control": "no-store"})

    def _context(self, db: Database, league_id: int, session: dict, flash: str | None, error: str | None,
                 form: dict) -> dict:
        tables = ClubTables(db)
        row = tables.league(league_id) or {}
        league = League(db, row["name"])
        code = self._code(tables, session, league_id)
        ctx: dict = {"csrf": self.signer.csrf(session["n"]), "flash": flash, "error": error, "form": form,
                     "signed_in": code["label"] if code else None, "new_key": lambda: secrets.token_urlsafe(18)}
        if code is None:
            return ctx
        members = league.members()
        games = league.game_list()
        night = league.open_night()
        ctx.update({
            "players": [{"roster": m.roster, "name": m.name} for m in league.active_members()],
            "night": league.describe_night(night) if night else None,
            "rosters": {m.name: m.roster for m in members},
            "finished": league.finished(),
            "games": [dict(g, clock=clock_time(g["at"])) for g in reversed(games[-12:])],
            "double_entry": league.double_entry,
            "pending": [self._pending_view(p, code) for p in tables.pending(league_id)],
        })
        return ctx

    @staticmethod
    def _pending_view(p: dict, code: dict) -> dict:
        request = json.loads(p["request"])
        return {"id": p["id"], "by": p["by"], "clock": clock_time(p["at"]), "values": request["values"],
                "table": request.get("table"), "mine": p["code_id"] == code["id"]}

    @staticmethod
    def _code(tables: ClubTables, session: dict, league_id: int) -> dict | None:
        code_id = session.get("c", {}).get(str(league_id))
        return codes.live(tables, code_id, league_id) if isinstance(code_id, int) else None

    # ---- writing

    async def post(self, request: Request) -> Response:
        key, action = request.path_params["key"], request.path_params["action"]
        if not NUMBER.fullmatch(key) or action not in ACTIONS:
            return HTMLResponse(render({"page": "404", "what": "No such form."}, FORM_LINKS), status_code=404)
        league_id = int(key)
        session = self._session(request)
        form: dict[str, list[str]] = {}
        try:
            form = await read_form(request)
            check_csrf(form, self.signer, session)
            client = request.client.host if request.client else "unknown"
            message = await run_in_threadpool(self._write, league_id, action, form, session, client)
        except Refused as exc:
            flat = {k: v[0] if len(v) == 1 else v for k, v in form.items() if k not in ("csrf", "code")}
            response = await run_in_threadpool(self._page, league_id, session, None, exc.message, exc.status, flat,
                                               FORM_LINKS)
            self._set_cookie(response, request, session)
            return response
        session["f"] = message if len(message) <= MAX_FLASH else message[:MAX_FLASH - 1] + "…"
        response = Response(status_code=303, headers={"Location": f"../{league_id}#entry"})
        self._set_cookie(response, request, session)
        return response

    def _write(self, league_id: int, action: str, form: dict[str, list[str]], session: dict, client: str) -> str:
        db = self.db()
        tables = ClubTables(db)
        row = tables.league(league_id)
        if row is None:
            raise Refused("no such club league", 404)
        if action == "code":
            return self._sign_in(tables, row, form, session, client)
        if action == "leave":
            session["n"] = self.sessions.sign_out(session["n"], league_id)
            session["c"].pop(str(league_id), None)
            return "signed out"
        code = self._code(tables, session, league_id)
        if code is None:
            raise Refused("enter the league's code first (a code stops working when it is revoked or expires)", 403)
        key = one(form, "key")
        if not KEY.fullmatch(key):
            raise Refused("this form has no valid idempotency key: reload the page and try again")
        league = League(db, row["name"], source=f"web code {code['id']}")
        try:
            with store.write_lock(db):
                seen = tables.request(key)
                if seen is not None:
                    if seen["league_id"] != league_id:
                        raise Refused("this form belongs to another league: reload the page", 409)
                    return json.loads(seen["result"])["message"] + " (already stored; sent again)"
                message = self._act(league, action, form, code, session)
                tables.remember_request(key, league_id, code["id"], now_utc(), action, {"message": message})
                tables.update_code(code["id"], {"used_at": now_utc()})
        except ClubError as exc:
            raise Refused(str(exc)) from None
        return message

    def _sign_in(self, tables: ClubTables, row: dict, form: dict[str, list[str]], session: dict,
                 client: str) -> str:
        # counted as wrong before the (slow) check, so that a burst sent at once meets the limit too
        attempt = self.limiter.attempt(client)
        if attempt is None:
            LOG.warning("league code refused: %s is rate limited (league %s)", client, row["id"])
            raise Refused(f"too many wrong codes from this address: wait {WINDOW_SECONDS // 60} minutes", 429)
        stamp, left = attempt
        code = codes.check(tables, row["id"], one(form, "code", required=False) or "")
        if code is None:
            LOG.warning("wrong league code from %s for league %s (%d tries left)", client, row["id"], left)
            raise Refused(f"wrong code for this league ({left} tries left)", 403)
        self.limiter.succeeded(client, stamp)
        session["n"] = self.sessions.sign_in(session["n"], row["id"], code["id"])  # a new nonce: a new CSRF token
        session["c"][str(row["id"])] = code["id"]
        return f"signed in as {code['label']}"

    def _act(self, league: League, action: str, form: dict[str, list[str]], code: dict, session: dict) -> str:
        by = code["label"]
        if action == "add":
            request = self._game_request(league, form)
            if league.double_entry:
                return self._hold(league, request, code, session)
            result = league.add(request["values"], table=request["table"], absent=request["absent"],
                                first=request["first"], note=request["note"], by=by)
            return _entered(result)
        if action in ("void", "restore"):
            number = _int(form, "game", "game")
            result = getattr(league, action)(number, note=_text(form, "note"), by=by)
            return f"game {number} {'voided' if action == 'void' else 'restored'} (version {result['version']})" \
                + _warnings(result)
        if action == "night":
            absent = [self._member(league, r).name for r in form.get("absent", [])]
            plan = league.plan_night(absent=absent, split=_text(form, "split") or "standings",
                                     tables=_maybe_int(form, "tables", "tables"),
                                     size=_maybe_int(form, "size", "size"), by=by)
            return f"round {plan['round']} planned at {len(plan['tables'])} tables"
        return self._settle(league, action, form, code, session)

    def _member(self, league: League, roster: str):
        if not NUMBER.fullmatch(roster):
            raise Refused(f"not a player: {roster[:20]!r}{digits_hint(roster)}")
        for m in league.members():
            if m.roster == int(roster):
                return m
        raise ClubError(f"unknown player #{roster} in league {league.name!r}")

    def _game_request(self, league: League, form: dict[str, list[str]]) -> dict:
        """A game as the form gives it: every filled ``v<roster>`` field is one player's value
        (what ``--cards NAME=VALUE`` would say); ``absent``, ``first``, ``table``, ``note``."""
        values = []
        for field, texts in form.items():
            if field.startswith("v") and texts[0].strip():
                values.append((self._member(league, field[1:]).name, texts[0]))
        first = _text(form, "first")
        return {"values": values, "table": _maybe_int(form, "table", "table"),
                "absent": [self._member(league, r).name for r in form.get("absent", [])],
                "first": self._member(league, first).name if first else None, "note": _text(form, "note")}

    def _hold(self, league: League, request: dict, code: dict, session: dict) -> str:
        """Double entry: check the game as ``add`` would (inside a savepoint rolled back), then keep
        it waiting for a second person."""
        with league.tables.rolled_back():
            league.add(request["values"], table=request["table"], absent=request["absent"], first=request["first"],
                       note=request["note"], by=code["label"])
        at = now_utc()
        request = dict(request, values=[list(v) for v in request["values"]])
        pid = league.tables.insert_pending({"league_id": league.id, "request": json.dumps(request),
                                            "code_id": code["id"], "session": session["n"], "by": code["label"],
                                            "at": at, "status": "waiting"})
        league.log_change("pending", code["label"], {"pending": pid, "values": dict(request["values"]),
                                                     "table": request["table"]}, at=at)
        return f"entry {pid} waits for a second person to confirm it with another code"

    def _settle(self, league: League, action: str, form: dict[str, list[str]], code: dict, session: dict) -> str:
        pid = _int(form, "pending", "entry")
        waiting = {p["id"]: p for p in league.tables.pending(league.id)}
        if pid not in waiting:
            raise Refused(f"no entry {pid} is waiting for confirmation", 409)
        p = waiting[pid]
        at = now_utc()
        if action == "reject":
            league.tables.update_pending(pid, {"status": "rejected", "settled_by": code["label"], "settled_at": at})
            values = dict(json.loads(p["request"])["values"])
            league.log_change("reject", code["label"], {"pending": pid, "values": values}, at=at)
            return f"entry {pid} rejected"
        if p["code_id"] == code["id"]:
            # the server tells people apart only by their codes: a second browser is not a second person
            raise Refused(f"entered with this code ({p['by']}): another of the league's codes must confirm it", 403)
        r = json.loads(p["request"])
        result = league.add([tuple(v) for v in r["values"]], table=r["table"], absent=r["absent"], first=r["first"],
                            note=r["note"], by=f"{p['by']}, confirmed by {code['label']}")
        league.tables.update_pending(pid, {"status": "confirmed", "settled_by": code["label"], "settled_at": at,
                                           "game_number": result["game"]})
        return _entered(result)


def check_csrf(form: dict[str, list[str]], signer: Signer, session: dict) -> None:
    """Refuse a form whose CSRF token is not the one this session's page carries."""
    given = (one(form, "csrf", required=False) or "").encode()
    if not hmac.compare_digest(given, signer.csrf(session["n"]).encode()):
        raise Refused("this form was not sent from this page (or the page is too old): reload the page "
                      "and try again", 403)


async def read_form(request: Request) -> dict[str, list[str]]:
    """An HTML form's fields (URL-encoded), read up to :data:`MAX_BODY` bytes; Refused otherwise.
    The ladder's web entry reads its sign-in forms with it too."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise Refused("send the form from its page (the league or ladder page: an HTML form)", 415)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused("this form is far too large", 413)
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False, max_num_fields=200)
    except (UnicodeDecodeError, ValueError):
        raise Refused("this form could not be read; reload the page and try again") from None
    form: dict[str, list[str]] = {}
    for k, v in pairs:
        if len(v) > MAX_FIELD:
            raise Refused(f"the field {k[:20]!r} is too long (at most {MAX_FIELD} characters)")
        form.setdefault(k, []).append(v)
    return form


def one(form: dict[str, list[str]], field: str, *, required: bool = True) -> str:
    """The one value of ``field`` ("" when it is missing and not ``required``); Refused otherwise."""
    texts = form.get(field)
    if not texts:
        if required:
            raise Refused(f"the form has no {field}: reload the page and try again")
        return ""
    if len(texts) > 1:
        raise Refused(f"the form gives {field} twice")
    return texts[0]


def _text(form: dict[str, list[str]], field: str) -> str | None:
    return one(form, field, required=False).strip() or None


def _int(form: dict[str, list[str]], field: str, what: str) -> int:
    text = one(form, field).strip()
    if not NUMBER.fullmatch(text):
        raise Refused(f"{what} must be a whole number, got {text[:20]!r}{digits_hint(text)}")
    return int(text)


def _maybe_int(form: dict[str, list[str]], field: str, what: str) -> int | None:
    return _int(form, field, what) if one(form, field, required=False).strip() else None


def _entered(result: dict) -> str:
    at = f" (round {result['round']}, table {result['table']})" if result["table"] else ""
    return (f"game {result['game']}{at} entered; won by {', '.join(result['winners']) or 'nobody (draw)'}"
            + (f"; absent: {', '.join(result['absent'])}" if result["absent"] else ""))


def _warnings(result: dict) -> str:
    out = "".join(f"; game {c['game']} was played with {c['actually_first']} first, {c['now']} should have"
                  for c in result["leaders_changed"])
    return out + ("; this changes the end of the league" if result["finished_changed"] else "")


def any_live_code(db: Database) -> bool:
    """Whether some league has a code that works (``serve --host 0.0.0.0 --club-entry`` needs one)."""
    return ClubTables(db).any_live_code(now_utc())
