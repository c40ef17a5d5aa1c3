"""What is kept of bots' stderr: the keep-logs policy (``tourney ladder new --keep-logs N``,
``[storage] keep_logs`` of an event, ``tourney compact``).

A game's own record is its seed and choices (``replays``): everything shown of a game replays
from them. What a replay cannot give back is a bot's stderr and the detail of a fault
(``game_logs``), and a bot that writes much to stderr would make them most of the file. So:

* each entrant's last ``keep`` games of the event keep its stderr in full (as captured, up to
  ``max_stderr_bytes``);
* a seat that faulted keeps its fault detail always, and the last :data:`FAULT_TAIL` characters
  of its stderr (where a traceback ends);
* the rest of the stderr is dropped; a ``game_logs`` row left with nothing is deleted.

``keep=None`` keeps everything (the default of events). Each entrant's progress is kept in
``entrant_totals.logs_through`` (the last game whose logs the policy has settled for it), so that
applying the policy after a batch reads only the games since the last time.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

#: characters of a faulted seat's stderr kept once the game has left its entrant's last games
FAULT_TAIL = 2000
#: the ladder's default: each version's last games whose stderr is kept in full
LADDER_KEEP = 20


def parse_keep(text: str | int | None) -> int | None:
    """``"all"`` (None: keep everything) or a number of games, 0 or more."""
    if text is None or text == "all":
        return None
    try:
        keep = int(text)
    except (TypeError, ValueError):
        raise ValueError(f"keep-logs must be a number of games or 'all', not {text!r}") from None
    if keep < 0:
        raise ValueError(f"keep-logs must be 0 or more, not {keep}")
    return keep


def apply(conn: sqlite3.Connection, event_id: int, keep: int | None,
          entrants: Iterable[int] | None = None, full: bool = False) -> int:
    """Apply the policy to the event's games for ``entrants`` (default: every entrant of the event),
    in one transaction (a savepoint inside a caller's). ``full``: look again at every game, not
    only those since the last time (``tourney compact``). Returns the bytes of stderr dropped."""
    if keep is None:
        return 0
    if entrants is None:
        entrants = [r[0] for r in conn.execute("select entrant_id from entrant_totals where event_id = ?",
                                               [event_id])]
    dropped = 0
    conn.execute("savepoint keep_logs")
    try:
        for entrant_id in entrants:
            dropped += _apply_one(conn, event_id, entrant_id, keep, full)
    except BaseException:
        conn.execute("rollback to keep_logs")
        conn.execute("release keep_logs")
        raise
    conn.execute("release keep_logs")
    return dropped


def _apply_one(conn: sqlite3.Connection, event_id: int, entrant_id: int, keep: int, full: bool) -> int:
    row = conn.execute("select logs_through from entrant_totals where event_id = ? and entrant_id = ?",
                       [event_id, entrant_id]).fetchone()
    if row is None:
        return 0
    mark = 0 if full else row[0]
    # the oldest of the entrant's last `keep` games: games before it have left the window
    edge = conn.execute(
        "select st.game_id from seats st join games g on g.id = st.game_id "
        "where st.entrant_id = ? and g.event_id = ? order by st.game_id desc limit 1 offset ?",
        [entrant_id, event_id, max(keep - 1, 0)]).fetchone()
    if edge is None:
        return 0
    through = edge[0] if keep == 0 else edge[0] - 1
    dropped = 0
    for game_id, seat, fault, stderr, faults in conn.execute(
            "select st.game_id, st.seat, st.fault, gl.stderr, gl.faults from seats st "
            "join game_logs gl on gl.game_id = st.game_id join games g on g.id = st.game_id "
            "where st.entrant_id = ? and g.event_id = ? and st.game_id > ? and st.game_id <= ?",
            [entrant_id, event_id, mark, through]).fetchall():
        texts = json.loads(stderr or "{}")
        text = texts.get(str(seat))
        if not text:
            continue
        kept = text[-FAULT_TAIL:] if fault else ""
        dropped += len(text) - len(kept)
        if kept == text:
            continue
        if kept:
            texts[str(seat)] = kept
        else:
            del texts[str(seat)]
        if texts or json.loads(faults or "{}"):
            conn.execute("update game_logs set stderr = ? where game_id = ?",
                         [json.dumps(texts, sort_keys=True, separators=(",", ":")), game_id])
        else:
            conn.execute("delete from game_logs where game_id = ?", [game_id])
    if through > row[0]:
        conn.execute("update entrant_totals set logs_through = ? where event_id = ? and entrant_id = ?",
                     [through, event_id, entrant_id])
    return dropped
