"""``tourney report --format site -o DIR``: every page of the web view as static files.

The site has the app's pages with ``.html`` names (``index.html``, ``event/3.html``,
``game/12.html``, ...), each with its JSON twin beside it (``event/3.json``), and the style sheet
and the replay's script in ``static/``. Links are relative, so the folder can be published
anywhere or opened from the disk. Lists are not split into pages, and nothing polls.

The site is written to a new folder next to DIR and moved into place at the end, so an error
leaves DIR as it was.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from sqlite_utils import Database

from tourney.errors import UserError
from tourney.results import reads
from tourney.web import pages
from tourney.web.render import STATIC_FILES, Links, render, static_file

INDEX_LINKS = Links(root="", suffix=".html", live=False)
PAGE_LINKS = Links(root="../", suffix=".html", live=False)


def _write(folder: Path, name: str, data: dict, links: Links) -> None:
    (folder / f"{name}.html").write_text(render(data, links), encoding="utf-8")
    (folder / f"{name}.json").write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def _is_site(folder: Path) -> bool:
    return (folder / "index.html").is_file() and (folder / "static" / "web.css").is_file()


def write_site(db: Database, out: Path) -> int:
    """Write the site of every event and club league to ``out``; returns the number of pages.

    ``out`` may be missing, empty, or an earlier site (which is replaced); anything else is
    refused rather than overwritten."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not _is_site(out))):
        raise UserError(f"{out}: exists and is not an earlier tourney site; choose a new folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        count = _write_pages(db, tmp)
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return count


def _write_pages(db: Database, root: Path) -> int:
    for kind in ("static", "event", "entrant", "game", "league", "ladder", "help"):
        (root / kind).mkdir()
    (root / "help" / "statistics.html").write_text(render({"page": "help"}, PAGE_LINKS), encoding="utf-8")
    for name in STATIC_FILES:
        (root / "static" / name).write_bytes(static_file(name))
    index = pages.index_data(db)
    _write(root, "index", index, INDEX_LINKS)
    count = 2  # the index and the help page
    for event in index["events"]:
        _write(root / "event", str(event["id"]), pages.event_data(db, event["id"], size=None), PAGE_LINKS)
        count += 1
    for entrant_id in reads.entrant_ids_with_events(db):
        _write(root / "entrant", str(entrant_id), pages.entrant_data(db, entrant_id, size=None), PAGE_LINKS)
        count += 1
    for game_id in reads.game_ids(db):
        _write(root / "game", str(game_id), pages.game_data(db, game_id), PAGE_LINKS)
        count += 1
    for league in index["leagues"]:
        _write(root / "league", str(league["id"]), pages.league_data(db, league["id"]), PAGE_LINKS)
        count += 1
    for ladder in index["ladders"]:
        _write(root / "ladder", str(ladder["id"]), pages.ladder_data(db, ladder["id"]), PAGE_LINKS)
        count += 1
    return count
