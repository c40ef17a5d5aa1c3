"""``tourney serve [--db PATH] [--host 127.0.0.1] [--port 8000]``: the web view of a database."""

from __future__ import annotations

import ipaddress
import logging
import socket

import typer

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, err, open_store
from tourney.errors import UserError
from tourney.results.store import db_path


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port); a port in use or a host
    that is not this machine's is a user error."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, _, _, _, address = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        raise UserError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return sock


def _log_refused_codes() -> None:
    """Wrong league codes and rate-limited clients, one line each on stderr with the time."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s warning: %(message)s", "%Y-%m-%d %H:%M:%S"))
    log = logging.getLogger("tourney.web.club")
    log.addHandler(handler)
    log.setLevel(logging.WARNING)
    log.propagate = False


#: the reverse proxy trusted unless --trusted-proxy says otherwise: one on this machine
LOOPBACK_PROXY = "127.0.0.1,::1"


def trusted_proxies(value: str) -> list[str] | None:
    """``--trusted-proxy``: the addresses or networks whose ``X-Forwarded-For`` header is believed
    (None for ``none``: the connecting address is the client); a bad one is a user error."""
    if value.strip().lower() == "none":
        return None
    items = [item.strip() for item in value.split(",") if item.strip()]
    for item in items:
        if item == "*":
            raise UserError("--trusted-proxy '*' would let every client choose the address its code attempts "
                            "are counted under; name the proxy's address")
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise UserError(f"--trusted-proxy {item!r}: not an IP address or network (e.g. 127.0.0.1, "
                            "10.0.0.0/8), nor 'none'") from None
    if not items:
        raise UserError("--trusted-proxy: give the proxy's address, or 'none'")
    return items


def _local_only(host: str) -> bool:
    """Whether ``host`` is a loopback address (this machine only)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@app.command(epilog="Examples: tourney serve  |  tourney serve --db spring.db --port 8080  |  "
                    "tourney serve --host 0.0.0.0 (reachable from other machines)\n\n" + EXIT_CODES)
def serve(
    db: str = typer.Option(None, "--db", help=DB_HELP),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (default: this machine only)."),
    port: int = typer.Option(8000, "--port", help="Port to listen on (0: any free port)."),
    club_entry: bool = typer.Option(False, "--club-entry",
                                    help="Add forms to club league pages: phones with a league code (tourney club "
                                         "code new) enter games, void and restore them, plan the night's tables."),
    ladder_entry: bool = typer.Option(False, "--ladder-entry",
                                      help="Add forms to ladder pages: authors with an author code (tourney ladder "
                                           "code new) upload new versions and read their bots' stderr. Needs a "
                                           "working bot sandbox."),
    max_upload: str = typer.Option("8M", "--max-upload",
                                   help="With --ladder-entry: the largest upload taken (bytes, or 512K, 8M)."),
    trusted_proxy: str = typer.Option(LOOPBACK_PROXY, "--trusted-proxy", help=(
        "The reverse proxy in front (addresses or networks, comma-separated): a request from it is counted "
        "against the client its X-Forwarded-For header names (rate limits, logs). 'none': against the "
        "connecting address. Default: a proxy on this machine.")),
) -> None:
    """Serve the results as web pages: events with live standings, cross-tables and series, club
    leagues, entrants, and a replay of every game. Read-only: safe next to a running tourney run.
    Every page has a JSON twin (docs/web.md). With --club-entry, holders of a league's code can
    enter its results from their phones; with --ladder-entry, authors holding an author code
    submit new versions of their bots to a ladder from the browser. Ctrl-C stops it."""
    import uvicorn  # heavy: the web stack loads for serve only

    from tourney.web.app import create_app  # heavy: the web stack (Starlette, Jinja2) loads for serve only

    proxies = trusted_proxies(trusted_proxy)
    upload_limit = None
    if ladder_entry:
        from tourney.web import ladder_entry as entry  # heavy: the web stack loads for serve only

        upload_limit = entry.parse_size(max_upload)
        problem = entry.sandbox_problem()
        if problem:
            raise UserError(f"--ladder-entry needs a working bot sandbox, so that an upload never runs outside "
                            f"it, and this machine has none: {problem}")
        database = open_store(db)  # the forms write: the file is created or brought up to date
        has_author_code = entry.any_live_code(database)
        database.conn.close()
        if not _local_only(host) and not has_author_code:
            raise UserError(f"--host {host} with --ladder-entry needs an author code first, or anyone on the "
                            "network could reach forms nobody can use yet; make one with: tourney ladder code "
                            "new LADDER AUTHOR")
    if club_entry:
        from tourney.web.club_entry import any_live_code  # heavy: the web stack loads for serve only

        # the forms write: the file is created or brought up to date like any writing command
        database = open_store(db)
        has_code = any_live_code(database)
        database.conn.close()
    else:
        open_store(db, readonly=True).conn.close()  # a missing or old file: one error line now
    if not _local_only(host):
        if club_entry and not has_code:
            raise UserError(f"--host {host} with --club-entry needs a league code first, or anyone on the network "
                            f"could reach forms nobody can use yet; make one with: tourney club code new LEAGUE")
        err(f"warning: --host {host} lets every machine that can reach this one read every page (events, "
            f"games, club leagues)"
            + (", and anyone holding a league code write that league's results" if club_entry else "")
            + (", and anyone holding an author code submit bots to that ladder" if ladder_entry else "")
            + "; traffic is not encrypted: beyond a trusted local network put a TLS reverse proxy in front "
              "(docs/web.md)")
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    err(f"serving {db_path(db)} at http://{shown}:{bound}/ (Ctrl-C stops)")
    if club_entry or ladder_entry:
        _log_refused_codes()
    server = uvicorn.Server(uvicorn.Config(create_app(db_path(db), club_entry=club_entry, ladder_entry=ladder_entry,
                                                      max_upload=upload_limit), log_level="warning",
                                            proxy_headers=proxies is not None, forwarded_allow_ips=proxies or []))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
