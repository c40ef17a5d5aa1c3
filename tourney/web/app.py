"""The web app: Starlette routes over :mod:`tourney.web.pages`, served by uvicorn.

Why Starlette with Jinja2 on uvicorn: a small, well-kept ASGI toolkit with plain function
routes (no framework models or ORM to fit the store into), Jinja2's autoescaping for every name,
and uvicorn, its usual server; all three are widely used and typed.

The app only reads (except the club entry forms of ``--club-entry``, which write through
:mod:`tourney.web.club_entry` with a connection of their own): each worker thread opens the
database read-only once
(:func:`tourney.results.store.open_db`), so it is safe next to a running ``tourney run``, and
every request reads what is committed at that moment. URLs carry numeric ids only; a static
file is looked up among a fixed list of names, so no part of a URL ever reaches the file system.
Anything unknown or malformed is a 404 page (or a JSON error for a ``.json`` URL).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from tourney.results import store
from tourney.web import pages
from tourney.web.render import STATIC_FILES, Links, not_found, render, static_file

#: an id in a URL, with ``.json`` for a page's JSON twin
KEY = re.compile(r"([0-9]{1,18})(\.json)?")
INDEX_LINKS = Links(root="")
PAGE_LINKS = Links(root="../")
MEDIA_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
NO_CACHE = {"Cache-Control": "no-cache"}


def _missing(request: Request, what: str = "This page does not exist.") -> Response:
    if request.url.path.endswith(".json"):
        return JSONResponse({"error": "not found", "detail": what}, status_code=404)
    links = INDEX_LINKS if request.url.path.count("/") <= 1 else PAGE_LINKS
    return HTMLResponse(not_found(links, what), status_code=404)


def create_app(db_path: str | os.PathLike | None, *, club_entry: bool = False, ladder_entry: bool = False,
               max_upload: int | None = None) -> Starlette:
    """The app over the database at ``db_path`` (opened read-only); with ``club_entry`` a club
    league's page also has the forms that enter its results (:mod:`tourney.web.club_entry`); with
    ``ladder_entry`` a ladder's page has the forms with which authors submit versions, taking
    uploads up to ``max_upload`` bytes (:mod:`tourney.web.ladder_entry`)."""
    local = threading.local()
    cache = pages.Cache(opener=lambda: store.open_db(db_path, readonly=True))

    def db():
        if getattr(local, "db", None) is None:
            local.db = store.open_db(db_path, readonly=True)
        return local.db

    def index(request: Request) -> Response:
        data = pages.index_data(db())
        if request.url.path.endswith(".json"):
            return JSONResponse(data, headers=NO_CACHE)
        return HTMLResponse(render(data, INDEX_LINKS), headers=NO_CACHE)

    def page(build: Callable[..., dict]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            match = KEY.fullmatch(request.path_params["key"])
            number = request.query_params.get("page", "1")
            if match is None or not (number.isascii() and number.isdigit()) or len(number) > 9:
                return _missing(request)
            try:
                data = build(db(), int(match[1]), int(number))
            except pages.PageNotFound as exc:
                return _missing(request, f"Nothing here ({exc}).")
            if match[2]:
                return JSONResponse(data, headers=NO_CACHE)
            return HTMLResponse(render(data, PAGE_LINKS), headers=NO_CACHE)

        return endpoint

    def stamp(request: Request) -> Response:
        key = request.path_params["key"]
        if not (key.isascii() and key.isdigit()) or len(key) > 18:
            return _missing(request)
        try:
            return JSONResponse({"stamp": pages.event_stamp(db(), int(key))}, headers=NO_CACHE)
        except pages.PageNotFound:
            return _missing(request)

    def help_page(request: Request) -> Response:
        return HTMLResponse(render({"page": "help"}, PAGE_LINKS))

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC_FILES:
            return _missing(request)
        return Response(static_file(name), media_type=MEDIA_TYPES[os.path.splitext(name)[1]])

    async def http_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException) and exc.status_code == 405:
            return Response("method not allowed", status_code=405)
        return _missing(request)

    routes = [
        Route("/", index),
        Route("/index.json", index),
        Route("/event/{key}/stamp.json", stamp),
        Route("/event/{key}", page(lambda d, i, p: pages.event_data(d, i, p, cache=cache))),
        Route("/entrant/{key}", page(pages.entrant_data)),
        Route("/game/{key}", page(lambda d, i, p: pages.game_data(d, i))),
        Route("/league/{key}", page(lambda d, i, p: pages.league_data(d, i))),
        Route("/ladder/{key}", page(lambda d, i, p: pages.ladder_data(d, i))),
        Route("/help/statistics", help_page),
        Route("/static/{name}", static),
    ]
    limiter = None
    if club_entry or ladder_entry:
        from tourney.web.club_access import Limiter  # only when asked: a read-only view never loads it

        limiter = Limiter()  # one count of wrong codes per client, league codes and author codes alike
    if ladder_entry:
        from tourney.web.ladder_entry import MAX_UPLOAD, LadderEntry  # only when asked, as the club's

        ladder_page = page(lambda d, i, p: pages.ladder_data(d, i))

        async def ladder_twin(request: Request) -> Response:
            return ladder_page(request)

        routes = LadderEntry(db_path, ladder_twin, limiter=limiter, max_upload=max_upload or MAX_UPLOAD).routes() \
            + routes
    if club_entry:
        from tourney.web.club_entry import ClubEntry  # only when asked: a read-only view never loads it

        league_page = page(lambda d, i, p: pages.league_data(d, i))

        async def json_twin(request: Request) -> Response:
            return league_page(request)

        routes = ClubEntry(db_path, json_twin, limiter=limiter).routes() + routes
    return Starlette(routes=routes, exception_handlers={404: http_error, 405: http_error})
