"""The bot protocol: JSON lines over a bot's stdin and stdout (see ``docs/protocol.md``).

This module holds the protocol's name and version, the fault codes, fast JSON encoding and
decoding, and the builders and validators of every message. It does no I/O itself:
:mod:`tourney.entrants` moves the bytes, :mod:`tourney.referee` runs the game.

Every message is one JSON object on one line, with a ``"type"`` key:

referee -> bot: ``hello``, ``game_start``, ``request``, ``game_end``, ``goodbye``
bot -> referee: ``hello`` (the answer to the referee's hello), ``answer``

>>> msg = request_message(3, "main", "", [("end", "End the turn")], {"hand": []}, 5.0)
>>> check_answer(loads(b'{"type": "answer", "id": 3, "option": "end"}'), 3, {"end"})
'end'
"""

from __future__ import annotations

import json as _json
import re
from typing import Any

_orjson: Any
try:  # orjson is several times faster on the view-sized messages this protocol sends
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised only where orjson is missing
    _orjson = None

#: the protocol's name, sent in both hellos
PROTOCOL = "tourney-bot"
#: the protocol version spoken by this referee; a bot must answer with the same major version
VERSION = "1.0"
MAJOR = int(VERSION.split(".")[0])
#: the only form of version a bot may send: "MAJOR.MINOR", both plain decimal numbers
VERSION_FORM = re.compile(r"([0-9]+)\.[0-9]+")

#: the fixed set of fault codes recorded when a bot fails (see docs/protocol.md, "Faults")
FAULT_CODES = ("crash", "timeout", "malformed", "illegal", "wrong_id", "oversize", "startup", "version")

#: what each fault code means, for logs and for ``tourney check``
FAULT_MEANINGS = {
    "crash": "the bot process exited or closed its stdout (or stdin) during the game",
    "timeout": "the bot did not answer within the time it was given",
    "malformed": "the bot printed a line that is not a JSON object of the expected shape",
    "illegal": "the bot answered with an option id that the request did not offer",
    "wrong_id": "the bot answered with a request id other than the one asked",
    "oversize": "the bot printed a line longer than the maximum line length",
    "startup": "the bot could not be started or did not complete the handshake in time",
    "version": "the bot speaks another protocol or another major version of it",
}


class ProtocolError(Exception):
    """A line from a bot that breaks the protocol; ``code`` is one of :data:`FAULT_CODES`."""

    def __init__(self, code: str, message: str):
        assert code in FAULT_CODES, code
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


# --- JSON -----------------------------------------------------------------------------------

if _orjson is not None:
    JSON_LIBRARY = "orjson"
    _OPTS = _orjson.OPT_NON_STR_KEYS

    def dumps(obj: Any) -> bytes:
        """``obj`` as one compact JSON line (bytes, with the trailing newline)."""
        return _orjson.dumps(obj, option=_OPTS | _orjson.OPT_APPEND_NEWLINE)

    def loads(data: bytes | str) -> Any:
        """Parse one JSON document; raises ``ValueError`` on bad JSON or bad UTF-8."""
        return _orjson.loads(data)

else:  # pragma: no cover
    JSON_LIBRARY = "json"

    def dumps(obj: Any) -> bytes:
        """``obj`` as one compact JSON line (bytes, with the trailing newline)."""
        return (_json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n").encode()

    def loads(data: bytes | str) -> Any:
        """Parse one JSON document; raises ``ValueError`` on bad JSON or bad UTF-8."""
        if isinstance(data, bytes):
            data = data.decode("utf-8")
        return _json.loads(data)


def parse_line(line: bytes) -> dict:
    """Parse one line from a bot into a dict with a string ``type``; else ``ProtocolError``."""
    try:
        obj = loads(line)
    except ValueError as exc:
        shown = line[:80].decode("utf-8", "replace")
        raise ProtocolError("malformed", f"not a JSON line ({exc}): {shown!r}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        shown = line[:80].decode("utf-8", "replace")
        raise ProtocolError("malformed", f'not a JSON object with a "type": {shown!r}')
    if isinstance(obj.get("id"), float) and _orjson is not None:
        # orjson reads an integer beyond 64 bits as a float; the standard library keeps it an
        # exact int, so an id such as 2**70 is judged as the integer it is
        obj = _json.loads(line)
    return obj


# --- referee -> bot ---------------------------------------------------------------------------


def hello_message(limits: dict, seed: int, referee: str) -> dict:
    """The referee's first message: protocol, version, the limits that apply, a seed for the bot."""
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "version": VERSION,
        "referee": referee,
        "limits": limits,
        "seed": seed,
    }


def game_start_message(
    *,
    seat: int,
    players: int,
    teams: list | None,
    rule_set: str,
    options: dict,
    first_player: int,
    series: dict | None,
    cards: dict,
) -> dict:
    """The start of a game for the bot in ``seat``. ``cards`` is ``game.card_table()``.

    The game's seed is never sent: with it a bot could rebuild the deck order.
    """
    return {
        "type": "game_start",
        "seat": seat,
        "players": players,
        "teams": teams,
        "rule_set": rule_set,
        "options": options,
        "first_player": first_player,
        "series": series or {},
        "cards": {str(k): v for k, v in cards.items()},
    }


def request_message(
    request_id: int,
    kind: str,
    prompt: str,
    options: list[tuple[str, str]],
    view: dict,
    time_left: float,
    time_bank: float | None = None,
    source: str | None = None,
) -> dict:
    """A decision request: ``options`` is a list of (option id, label) pairs; ``source`` the
    name of the card whose effect asks (if any)."""
    msg = {
        "type": "request",
        "id": request_id,
        "kind": kind,
        "prompt": prompt,
        "options": [{"id": o, "label": label} for o, label in options],
        "time_left": round(time_left, 3),
        "view": view,
    }
    if source is not None:
        msg["source"] = source
    if time_bank is not None:
        msg["time_bank"] = round(time_bank, 3)
    return msg


def game_end_message(seat: int, result, faults: dict[int, str], view: dict | None) -> dict:
    """The end of a game: the result (without its free-text detail), faults by seat, final view."""
    return {
        "type": "game_end",
        "seat": seat,
        "result": {
            "winners": list(result.winners),
            "reason": result.reason,
            "points": list(result.points),
            "placements": list(result.placements),
            "eliminated": list(result.eliminated),
        },
        "faults": {str(s): c for s, c in sorted(faults.items())},
        "view": view,
    }


GOODBYE = {"type": "goodbye"}


# --- bot -> referee ---------------------------------------------------------------------------


def check_hello(msg: dict) -> str:
    """Validate a bot's hello; return the bot's name. Raises ``ProtocolError`` (startup/version)."""
    if msg.get("type") != "hello":
        raise ProtocolError("startup", f'expected a "hello" message first, got type {msg.get("type")!r}')
    protocol = msg.get("protocol")
    if protocol != PROTOCOL:
        raise ProtocolError("version", f"the bot speaks protocol {protocol!r}, the referee speaks {PROTOCOL!r}")
    version = msg.get("version")
    form = VERSION_FORM.fullmatch(version) if isinstance(version, str) else None
    if form is None:
        raise ProtocolError(
            "version", f'"version" must be a string "MAJOR.MINOR" such as "{VERSION}", got {version!r}'
        )
    if int(form.group(1)) != MAJOR:
        raise ProtocolError(
            "version",
            f"the bot speaks {PROTOCOL} version {version}, the referee speaks {VERSION} "
            f"(major versions must match)",
        )
    name = msg.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ProtocolError("startup", 'the hello must carry a non-empty string "name"')
    return name.strip()[:100]


def check_answer(msg: dict, request_id: int, offered) -> str:
    """Validate an answer to request ``request_id``; return its option id.

    ``offered`` is the set (or list) of option ids of the request. Raises ``ProtocolError``
    with code ``malformed``, ``wrong_id`` or ``illegal``.
    """
    if msg.get("type") != "answer":
        raise ProtocolError("malformed", f'expected an "answer", got type {msg.get("type")!r}')
    rid = msg.get("id")
    if isinstance(rid, bool) or not isinstance(rid, int):
        raise ProtocolError("malformed", f'the answer\'s "id" must be an integer, got {rid!r}')
    option = msg.get("option")
    if not isinstance(option, str):
        raise ProtocolError("malformed", f'the answer\'s "option" must be a string, got {option!r}')
    if rid != request_id:
        raise ProtocolError("wrong_id", f"answered request {rid}, but request {request_id} was asked")
    if option not in offered:
        raise ProtocolError("illegal", f"option {option!r} was not offered in request {request_id}")
    return option
