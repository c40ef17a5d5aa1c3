"""Who may write on a club league's page (:mod:`tourney.web.club_entry`): the rate limit on code
attempts, the sessions the server keeps, and the signed cookie that names a session.

Each is a small object with a lock of its own, shared by the server's worker threads; clocks
are injectable for tests.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections.abc import Callable

#: wrong codes a client may type within WINDOW_SECONDS before it is refused
MAX_FAILURES = 5
WINDOW_SECONDS = 600
#: how long a signed-in phone stays signed in without writing or reading a page (a club night)
SESSION_IDLE = 12 * 3600
#: the most sessions kept; past it the longest idle goes first
MAX_SESSIONS = 10_000


class Limiter:
    """Code attempts per client within a sliding window; ``clock`` is injectable for tests.

    An attempt is counted *before* its code is checked (:meth:`attempt`) and taken back only
    when the code was right (:meth:`succeeded`): the check is slow, so a burst of guesses sent at
    the same moment would otherwise all be checked before the first failure was counted."""

    def __init__(self, max_failures: int = MAX_FAILURES, window: float = WINDOW_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self.max_failures, self.window, self.clock = max_failures, window, clock
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str) -> list[float]:
        now = self.clock()
        kept = [t for t in self._failures.pop(client, []) if now - t < self.window]
        if kept:  # a client with no recent failure takes no memory
            self._failures[client] = kept
        return kept

    def blocked(self, client: str) -> bool:
        with self._lock:
            return len(self._recent(client)) >= self.max_failures

    def attempt(self, client: str) -> tuple[float, int] | None:
        """Count one attempt of ``client`` as a failure until it proves right; None (nothing
        counted) when the client has no try left. Returns the attempt's stamp, for
        :meth:`succeeded`, and how many tries are left after it."""
        with self._lock:
            recent = self._recent(client)
            if len(recent) >= self.max_failures:
                return None
            stamp = self.clock()
            self._failures[client] = recent + [stamp]
            return stamp, self.max_failures - len(recent) - 1

    def succeeded(self, client: str, stamp: float) -> None:
        """The attempt counted at ``stamp`` was a right code: it does not count against the client."""
        with self._lock:
            recent = self._failures.get(client, [])
            if stamp in recent:
                recent.remove(stamp)
            if not recent:
                self._failures.pop(client, None)


class Sessions:
    """Who is signed in where, kept by the server: a cookie's nonce -> ``{league id: code id}``.

    Only a right code makes an entry, and each sign-in or sign-out moves the phone to a new nonce
    (the old one ends), so a cookie copied before stops working. Entries idle for
    :data:`SESSION_IDLE` end; past :data:`MAX_SESSIONS` the longest idle goes first."""

    def __init__(self, idle: float = SESSION_IDLE, most: int = MAX_SESSIONS,
                 clock: Callable[[], float] = time.monotonic):
        self.idle, self.most, self.clock = idle, most, clock
        self._live: dict[str, tuple[dict[str, int], float]] = {}  # in order of last use
        self._lock = threading.Lock()

    def codes(self, nonce: str) -> dict[str, int]:
        """The code id per league (as text) that ``nonce`` is signed in with; touches it."""
        with self._lock:
            entry = self._live.pop(nonce, None)
            if entry is None or self.clock() - entry[1] >= self.idle:
                return {}
            self._live[nonce] = (entry[0], self.clock())
            return dict(entry[0])

    def sign_in(self, nonce: str, league_id: int, code_id: int) -> str:
        """Sign ``nonce``'s phone in to ``league_id``; returns its new nonce."""
        with self._lock:
            entry = self._live.pop(nonce, None)
            leagues = dict(entry[0]) if entry and self.clock() - entry[1] < self.idle else {}
            leagues[str(league_id)] = code_id
            fresh = secrets.token_urlsafe(16)
            self._live[fresh] = (leagues, self.clock())
            while len(self._live) > self.most:
                del self._live[next(iter(self._live))]
            return fresh

    def sign_out(self, nonce: str, league_id: int) -> str:
        """End ``nonce``'s sign-in to ``league_id`` (the others stay, under a new nonce)."""
        with self._lock:
            entry = self._live.pop(nonce, None)
            fresh = secrets.token_urlsafe(16)
            if entry is not None and self.clock() - entry[1] < self.idle:
                leagues = {k: v for k, v in entry[0].items() if k != str(league_id)}
                if leagues:
                    self._live[fresh] = (leagues, self.clock())
            return fresh


class Signer:
    """Signed cookie values: ``base64(json).base64(hmac)``; anything altered reads as no session."""

    def __init__(self, key: bytes | None = None):
        self.key = key or secrets.token_bytes(32)

    def _mac(self, data: bytes) -> bytes:
        return hmac.new(self.key, data, hashlib.sha256).digest()

    def dumps(self, value: dict) -> str:
        data = base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).decode().rstrip("=")
        mac = base64.urlsafe_b64encode(self._mac(data.encode())).decode().rstrip("=")
        return f"{data}.{mac}"

    def loads(self, text: str | None) -> dict | None:
        if not text or text.count(".") != 1 or len(text) > 4096:
            return None
        data, mac = text.split(".")
        try:
            given = base64.urlsafe_b64decode(mac + "=" * (-len(mac) % 4))
            if not hmac.compare_digest(given, self._mac(data.encode())):
                return None
            value = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
        except (ValueError, TypeError):
            return None
        return value if isinstance(value, dict) and isinstance(value.get("n"), str) else None

    def csrf(self, nonce: str) -> str:
        return hmac.new(self.key, f"csrf:{nonce}".encode(), hashlib.sha256).hexdigest()[:32]


def read_session(request, cookie: str, signer: Signer, sessions: Sessions) -> dict:
    """The signed cookie ``cookie``'s ``{"n": nonce, "f": message to show}`` (a new nonce when
    there is none), and ``"c"``: the code ids the server holds for the nonce (read here, never
    from the cookie)."""
    session = signer.loads(request.cookies.get(cookie)) or {"n": secrets.token_urlsafe(16)}
    return {"n": session["n"], "f": session.get("f"), "c": sessions.codes(session["n"])}


def write_session(response, request, cookie: str, signer: Signer, session: dict) -> None:
    """Set the cookie ``cookie`` to the session's nonce and message, signed (never its codes)."""
    kept = {"n": session["n"], **({"f": session["f"]} if session.get("f") else {})}
    response.set_cookie(cookie, signer.dumps(kept), httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/")


class ThreadDatabase:
    """The writable database at ``path``, one connection per server thread (an SQLite
    connection stays in the thread that opened it): call it for this thread's."""

    def __init__(self, path) -> None:
        self.path = path
        self._local = threading.local()

    def __call__(self):
        from tourney.results import store  # the store opens (and migrates) the file

        if getattr(self._local, "db", None) is None:
            self._local.db = store.open_db(self.path)
        return self._local.db

