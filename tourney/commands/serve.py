"""``tourney serve [--db PATH] [--host 127.0.0.1] [--port 8000]``: the web view of a database."""

from __future__ import annotations

import socket

import typer

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, err, open_store
from tourney.errors import UserError


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


@app.command(epilog="Examples: tourney serve  |  tourney serve --db spring.db --port 8080  |  "
                    "tourney serve --host 0.0.0.0 (reachable from other machines)\n\n" + EXIT_CODES)
def serve(
    db: str = typer.Option(None, "--db", help=DB_HELP),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (default: this machine only)."),
    port: int = typer.Option(8000, "--port", help="Port to listen on (0: any free port)."),
) -> None:
    """Serve the results as web pages: events with live standings, cross-tables and series, club
    leagues, entrants, and a replay of every game. Read-only: safe next to a running tourney run.
    Every page has a JSON twin (docs/web.md). Ctrl-C stops it."""
    import uvicorn

    from tourney.results.store import db_path
    from tourney.web.app import create_app

    open_store(db, readonly=True).conn.close()  # a missing or old file: one error line now
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    err(f"serving {db_path(db)} at http://{shown}:{bound}/ (Ctrl-C stops)")
    server = uvicorn.Server(uvicorn.Config(create_app(db_path(db)), log_level="warning"))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
