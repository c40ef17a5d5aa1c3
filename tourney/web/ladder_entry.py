"""Submitting to a ladder from the browser: ``tourney serve --ladder-entry`` (docs/web.md).

An author signs in on the ladder's page with their author code (:mod:`tourney.ladder.codes`),
uploads a bot (one file, or a zip or tar of its folder) with the command that runs it, and reads
the stderr of their own versions in their recent games. Everything else on the page stays as
everyone sees it. The club's rules apply, with the club's pieces (:mod:`tourney.web.club_entry`,
:mod:`tourney.web.club_access`):

* **Session and CSRF.** A signed cookie holds a random nonce; the server keeps which author code
  it is signed in with, per ladder, and every request checks again that the code is live and
  belongs to the ladder of the URL. Every form carries a token derived from the nonce, which
  changes at each sign-in; a form without it is refused (403).
* **Rate limits.** Code attempts are counted per client before the slow check (the club's
  :class:`~tourney.web.club_access.Limiter`, shared with ``--club-entry``); submissions are
  counted per author code (:data:`SUBMISSIONS` an hour), and an author's submissions are
  taken one at a time (a second waits for the first's check).
* **Upload.** A submission is read only from a signed-in session, and only up to
  ``max_upload`` bytes: a larger ``Content-Length`` is refused before reading, and the stream
  is counted as it arrives, so a body that lies about its length stops at the limit too
  (413). It is unpacked by :mod:`tourney.ladder.unpack` (no absolute paths, no ``..``, no links
  or devices, bounded files and bytes), copied into the ladder's store as ``tourney ladder
  submit --path`` does, and checked by ``tourney check`` with the sandbox **on**: the upload
  never runs outside it, in the check or later in play (``serve --ladder-entry`` refuses to start
  where the sandbox does not work).
* **Once only.** The idempotency key is stored in the transaction that adds the version, under
  the database's write lock, so a double click adds one version.
* **Stderr.** A version's stderr in each game, and its check's report quoting it, are shown on
  the signed-in author's page and in ``/ladder/N/mine.json`` for that author only; the public
  page and its JSON twin never carry them.
"""

from __future__ import annotations

import logging
import re
import secrets
import shlex
import shutil
import tempfile
import threading
from collections.abc import Callable
from email import policy
from email.parser import BytesParser
from pathlib import Path

from sqlite_utils import Database
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from tourney.bots import sandbox
from tourney.club.league import now_utc
from tourney.errors import UserError
from tourney.ladder import codes, service, unpack
from tourney.results import ladder as rows
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
from tourney.web.club_entry import KEY, MAX_FLASH, NUMBER, Refused, check_csrf, one, read_form
from tourney.web.render import Links, render

LOG = logging.getLogger("tourney.web.club")  # the same log as wrong league codes: one place to watch
COOKIE = "tourney_ladder"
#: the largest upload read by default (the whole form: the bot's file and a few fields)
MAX_UPLOAD = 8 * 1024 * 1024
#: submissions per author code within an hour
SUBMISSIONS = 12
MAX_COMMAND = 300
#: the most of one game's stderr shown (its end), and how many recent games are shown
STDERR_SHOWN = 4000
GAMES_SHOWN = 10
ACTIONS = ("code", "leave", "submit")
PAGE_LINKS = Links(root="../")
FORM_LINKS = Links(root="../../")


def parse_size(text: str) -> int:
    """``--max-upload``: bytes, or a number with K or M (binary units).

    >>> parse_size("8M"), parse_size("512k"), parse_size("1000")
    (8388608, 524288, 1000)
    """
    m = re.fullmatch(r"\s*([0-9]{1,9})\s*([kKmM]?)\s*", text)
    if not m or int(m[1]) == 0:
        raise UserError(f"--max-upload {text!r}: give a size like 8M, 512K or a number of bytes")
    return int(m[1]) * {"": 1, "k": 1024, "m": 1024 * 1024}[m[2].lower()]


async def read_upload(request: Request, limit: int) -> tuple[dict[str, list[str]], tuple[str, bytes] | None]:
    """A multipart form's text fields and its one file ``(name, bytes)``, read up to ``limit``
    bytes as the body streams in; Refused (413) past it."""
    kind = request.headers.get("content-type", "")
    if kind.split(";")[0].strip().lower() != "multipart/form-data":
        raise Refused("send the bot from the ladder's page (a form with a file)", 415)
    too_big = Refused(f"the upload is larger than the server takes ({limit // 1024} KiB): make the bot "
                      "smaller, or ask the organiser (serve --max-upload)", 413)
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise too_big
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_big
    head = f"Content-Type: {kind}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1", "replace")
    message = BytesParser(policy=policy.HTTP).parsebytes(head + bytes(body))
    if not message.is_multipart():
        raise Refused("this form could not be read; reload the page and try again")
    form: dict[str, list[str]] = {}
    upload = None
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True) or b""
        if not isinstance(name, str) or not isinstance(data, bytes):
            raise Refused("this form could not be read; reload the page and try again")
        if part.get_filename() is not None:
            if name != "bot" or upload is not None:
                raise Refused("the form sends one file, the bot")
            upload = (part.get_filename() or "", data)
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(f"the field {name[:20]!r} is not text") from None
        if len(text) > MAX_COMMAND:
            raise Refused(f"the field {name[:20]!r} is too long (at most {MAX_COMMAND} characters)")
        form.setdefault(name, []).append(text)
    return form, upload


class LadderEntry:
    """The routes of a ladder's page that sign in and submit, over the database at ``db_path``
    (a writable connection per worker thread); ``fallback`` serves the public JSON twin."""

    def __init__(self, db_path, fallback: Callable, *, limiter: Limiter | None = None,
                 signer: Signer | None = None, sessions: Sessions | None = None, max_upload: int = MAX_UPLOAD):
        self.db = ThreadDatabase(db_path)
        self.fallback = fallback
        self.limiter = limiter or Limiter()
        self.submissions = Limiter(max_failures=SUBMISSIONS, window=3600)
        self.signer = signer or Signer()
        self.sessions = sessions or Sessions()
        self.max_upload = max_upload
        self._authors: dict[int, threading.Lock] = {}  # per author code: one submission at a time
        self._lock = threading.Lock()

    def routes(self) -> list[Route]:
        return [Route("/ladder/{key}/mine.json", self.mine, methods=["GET"]),
                Route("/ladder/{key}", self.page, methods=["GET", "HEAD"]),
                Route("/ladder/{key}/{action}", self.post, methods=["POST"])]

    # ---- the session (as the club's: tourney.web.club_entry)

    def _session(self, request: Request) -> dict:
        return read_session(request, COOKIE, self.signer, self.sessions)

    def _set_cookie(self, response: Response, request: Request, session: dict) -> None:
        write_session(response, request, COOKIE, self.signer, session)

    def _code(self, ladder_id: int, session: dict) -> dict | None:
        code_id = session.get("c", {}).get(str(ladder_id))
        return codes.live(self.db(), code_id, ladder_id) if isinstance(code_id, int) else None

    # ---- reading

    async def page(self, request: Request) -> Response:
        key = request.path_params["key"]
        if not NUMBER.fullmatch(key):
            return await self.fallback(request)  # the JSON twin, public: never an author's stderr
        session = self._session(request)
        flash = session.pop("f", None)
        response = await run_in_threadpool(self._page, int(key), session, flash, None, 200, {}, PAGE_LINKS)
        self._set_cookie(response, request, session)
        return response

    async def mine(self, request: Request) -> Response:
        """The signed-in author's own versions (full reasons) and recent games with their stderr."""
        key = request.path_params["key"]
        if not NUMBER.fullmatch(key):
            return JSONResponse({"error": "not found"}, status_code=404)
        session = self._session(request)
        data = await run_in_threadpool(self._mine, int(key), session)
        if data is None:
            return JSONResponse({"error": "sign in with your author code on the ladder's page first"},
                                status_code=403, headers={"Cache-Control": "no-store"})
        return JSONResponse(data, headers={"Cache-Control": "no-store"})

    def _mine(self, ladder_id: int, session: dict) -> dict | None:
        code = self._code(ladder_id, session)
        if code is None:
            return None
        db = self.db()
        ladder = rows.find_by_id(db, ladder_id)
        if ladder is None:
            return None
        author = code["author"]
        versions = [{"entrant": v["entrant"], "version": v["version"], "status": v["status"], "reason": v["reason"],
                     "submitted_at": v["submitted_at"]}
                    for v in rows.versions(db, ladder_id) if v["author"] == author]
        games = rows.author_games(db, ladder_id, ladder["event_id"], author, GAMES_SHOWN)
        for g in games:
            g["stderr_cut"] = len(g["stderr"]) > STDERR_SHOWN
            g["stderr"] = g["stderr"][-STDERR_SHOWN:]
        return {"version": 1, "ladder": ladder["name"], "author": author, "versions": versions[::-1],
                "games": games}

    def _page(self, ladder_id: int, session: dict, flash: str | None, error: str | None, status: int,
              form: dict, links: Links) -> Response:
        db = self.db()
        try:
            data = pages.ladder_data(db, ladder_id)
        except pages.PageNotFound:
            return HTMLResponse(render({"page": "404", "what": "No such ladder."}, links), status_code=404)
        mine = self._mine(ladder_id, session)
        data["entry"] = {"csrf": self.signer.csrf(session["n"]), "flash": flash, "error": error, "form": form,
                         "signed_in": mine["author"] if mine else None, "mine": mine,
                         "open": data["ladder"]["status"] == "open", "max_upload_kib": self.max_upload // 1024,
                         "new_key": lambda: secrets.token_urlsafe(18)}
        return HTMLResponse(render(data, links), status_code=status, headers={"Cache-Control": "no-store"})

    # ---- writing

    async def post(self, request: Request) -> Response:
        key, action = request.path_params["key"], request.path_params["action"]
        if not NUMBER.fullmatch(key) or action not in ACTIONS:
            return HTMLResponse(render({"page": "404", "what": "No such form."}, FORM_LINKS), status_code=404)
        ladder_id = int(key)
        session = self._session(request)
        form: dict[str, list[str]] = {}
        try:
            upload = None
            if action == "submit":
                # only a signed-in author's upload is read at all
                if await run_in_threadpool(self._code, ladder_id, session) is None:
                    raise Refused("sign in with your author code first (a code stops working when it is "
                                  "revoked or expires)", 403)
                form, upload = await read_upload(request, self.max_upload)
            else:
                form = await read_form(request)
            check_csrf(form, self.signer, session)
            client = request.client.host if request.client else "unknown"
            message = await run_in_threadpool(self._write, ladder_id, action, form, upload, session, client)
        except Refused as exc:
            flat = {k: v[0] for k, v in form.items() if k in ("command",) and len(v) == 1}
            response = await run_in_threadpool(self._page, ladder_id, session, None, exc.message, exc.status, flat,
                                               FORM_LINKS)
            self._set_cookie(response, request, session)
            return response
        session["f"] = message if len(message) <= MAX_FLASH else message[:MAX_FLASH - 1] + "…"
        response = Response(status_code=303, headers={"Location": f"../{ladder_id}#entry"})
        self._set_cookie(response, request, session)
        return response

    def _write(self, ladder_id: int, action: str, form: dict[str, list[str]], upload: tuple[str, bytes] | None,
               session: dict, client: str) -> str:
        db = self.db()
        ladder = rows.find_by_id(db, ladder_id)
        if ladder is None:
            raise Refused("no such ladder", 404)
        if action == "code":
            return self._sign_in(ladder, form, session, client)
        if action == "leave":
            session["n"] = self.sessions.sign_out(session["n"], ladder_id)
            session["c"].pop(str(ladder_id), None)
            return "signed out"
        code = self._code(ladder_id, session)
        if code is None:
            raise Refused("sign in with your author code first", 403)
        return self._submit(ladder, code, form, upload)

    def _sign_in(self, ladder: dict, form: dict[str, list[str]], session: dict, client: str) -> str:
        attempt = self.limiter.attempt(client)  # counted before the slow check, as the club's
        if attempt is None:
            LOG.warning("author code refused: %s is rate limited (ladder %s)", client, ladder["id"])
            raise Refused(f"too many wrong codes from this address: wait {WINDOW_SECONDS // 60} minutes", 429)
        stamp, left = attempt
        code = codes.check(self.db(), ladder["id"], one(form, "code", required=False) or "")
        if code is None:
            LOG.warning("wrong author code from %s for ladder %s (%d tries left)", client, ladder["id"], left)
            raise Refused(f"wrong code for this ladder ({left} tries left)", 403)
        self.limiter.succeeded(client, stamp)
        session["n"] = self.sessions.sign_in(session["n"], ladder["id"], code["id"])  # a new CSRF token
        session["c"][str(ladder["id"])] = code["id"]
        return f"signed in as {code['author']}"

    def _submit(self, ladder: dict, code: dict, form: dict[str, list[str]], upload: tuple[str, bytes] | None) -> str:
        db = self.db()
        key = one(form, "key")
        if not KEY.fullmatch(key):
            raise Refused("this form has no valid idempotency key: reload the page and try again")
        if upload is None or not upload[0]:
            raise Refused("choose the bot's file (one file, or a zip or tar of its folder)")
        try:
            command = shlex.split(one(form, "command", required=False))
        except ValueError as exc:
            raise Refused(f"the command could not be read ({exc})") from None
        with self._lock:
            author_lock = self._authors.setdefault(code["id"], threading.Lock())
        with author_lock:  # a double click's second request waits here, then finds its key stored
            seen = rows.request(db, key)
            if seen is not None:
                return self._again(db, seen, ladder, code)
            if self.submissions.attempt(str(code["id"])) is None:
                raise Refused(f"at most {SUBMISSIONS} submissions an hour per author: try again later", 429)
            folder = Path(tempfile.mkdtemp(prefix="tourney-upload-"))
            try:
                unpack.unpack(upload[0], upload[1], folder)
                with store.write_lock(db):
                    seen = rows.request(db, key)  # another server process may share the file
                    if seen is not None:
                        return self._again(db, seen, ladder, code)
                    version = service.submit(db, ladder["name"], code["author"], command or None, str(folder),
                                             check=False, limits={"sandbox": "on"})
                    at = now_utc()
                    rows.remember_request(db, key, ladder["id"], code["id"], at, version["id"])
                    rows.update_code(db, code["id"], {"used_at": at})
                done = service.vet(db, service.get(db, ladder["name"]), version)
            except unpack.UnpackError as exc:
                raise Refused(f"the upload is refused: {exc}") from None
            except UserError as exc:
                raise Refused(str(exc)) from None
            finally:
                shutil.rmtree(folder, ignore_errors=True)
        return _outcome(done)

    @staticmethod
    def _again(db: Database, seen: dict, ladder: dict, code: dict) -> str:
        if seen["ladder_id"] != ladder["id"] or seen["code_id"] != code["id"]:
            raise Refused("this form belongs to another page: reload the page", 409)
        return _outcome(rows.version(db, seen["version_id"])) + " (already stored; sent again)"


def _outcome(version: dict) -> str:
    said = {"active": "accepted: it plays from the next batch of games",
            "pending": "stored; its check has not finished",
            "rejected": "refused by its check (the reason is below)"}.get(version["status"], version["status"])
    return f"{version['entrant']}: {said}"


def any_live_code(db: Database) -> bool:
    """Whether some ladder has a live author code (``serve --host 0.0.0.0 --ladder-entry`` needs one)."""
    return codes.any_live_code(db)


def sandbox_problem() -> str | None:
    """Why uploads could not be checked in a sandbox here (``serve --ladder-entry`` refuses then)."""
    return sandbox.problem()

