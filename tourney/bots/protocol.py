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
from collections.abc import Callable
from enum import StrEnum
from typing import Any

_orjson: Any
try:  # orjson is several times faster on the view-sized messages this protocol sends
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised only where orjson is missing
    _orjson = None

#: the protocol's name, sent in both hellos
PROTOCOL = "tourney-bot"
#: the protocol version spoken by this referee; a bot must answer with the same major version
VERSION = "1.2"
MAJOR = int(VERSION.split(".")[0])
#: the only form of version a bot may send: "MAJOR.MINOR", both plain decimal numbers
VERSION_FORM = re.compile(r"([0-9]+)\.[0-9]+")

#: what a bot may choose in its hello since 1.1 (docs/protocol.md, section 7):
#: ``view_delta``: a request carries ``delta``, the view's keys that changed since the bot's
#: previous request of the game, instead of the whole ``view``;
#: ``option_ids``: a request's ``options`` are the option ids alone, without labels or ``prompt``;
#: ``reuse`` (1.2): the bot can play games of different series in one process, taking its seed
#: and the series context from each ``game_start`` (section 7.2: warm bots)
FEATURES = ("view_delta", "option_ids", "reuse")
#: the feature by which a bot says one process may play games of different series
REUSE = "reuse"


class FaultCode(StrEnum):
    """The fixed set of fault codes recorded when a bot fails (docs/protocol.md, "Faults").

    A string enum: each member equals its code as a string (``FaultCode.CRASH == "crash"``), so
    stored games, JSON and comparisons with plain strings stay as they were.
    """

    CRASH = "crash"
    TIMEOUT = "timeout"
    MALFORMED = "malformed"
    ILLEGAL = "illegal"
    WRONG_ID = "wrong_id"
    OVERSIZE = "oversize"
    STARTUP = "startup"
    VERSION = "version"


#: the fault codes as plain strings, in the order of the docs
FAULT_CODES = tuple(code.value for code in FaultCode)

#: what each fault code means, for logs and for ``tourney check``
FAULT_MEANINGS: dict[str, str] = {
    FaultCode.CRASH: "the bot process exited or closed its stdout (or stdin) during the game",
    FaultCode.TIMEOUT: "the bot did not answer within the time it was given",
    FaultCode.MALFORMED: "the bot printed a line that is not a JSON object of the expected shape",
    FaultCode.ILLEGAL: "the bot answered with an option id that the request did not offer",
    FaultCode.WRONG_ID: "the bot answered with a request id other than the one asked",
    FaultCode.OVERSIZE: "the bot printed a line longer than the maximum line length",
    FaultCode.STARTUP: "the bot could not be started or did not complete the handshake in time",
    FaultCode.VERSION: "the bot speaks another protocol or another major version of it",
}


class Fault(Exception):
    """Something a seat did (or could not do) that costs it the game: a :class:`FaultCode` and
    what happened, in words."""

    def __init__(self, code: FaultCode | str, message: str):
        super().__init__(message)
        self.code = FaultCode(code)
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class ProtocolError(Fault):
    """A line from a bot that breaks the protocol, or a bot gone while playing."""


# --- JSON -----------------------------------------------------------------------------------

if _orjson is not None:
    JSON_LIBRARY = "orjson"
    _OPTS = _orjson.OPT_NON_STR_KEYS

    _LINE = _orjson.OPT_APPEND_NEWLINE
    _ANY_KEYS_LINE = _OPTS | _LINE

    def dumps(obj: Any) -> bytes:
        """``obj`` as one compact JSON line (bytes, with the trailing newline)."""
        try:  # string keys only, the usual case: orjson's fastest path
            return _orjson.dumps(obj, option=_LINE)
        except TypeError:  # integer keys somewhere: written as strings, as the json module does
            return _orjson.dumps(obj, option=_ANY_KEYS_LINE)

    def loads(data: bytes | str) -> Any:
        """Parse one JSON document; raises ``ValueError`` on bad JSON or bad UTF-8."""
        return _orjson.loads(data)

    def dumps_value(obj: Any) -> bytes:
        """``obj`` as compact JSON, without a newline (a part of a larger message)."""
        return _orjson.dumps(obj, option=_OPTS)

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

    def dumps_value(obj: Any) -> bytes:
        """``obj`` as compact JSON, without a newline (a part of a larger message)."""
        return _json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def parse_line(line: bytes) -> dict:
    """Parse one line from a bot into a dict with a string ``type``; else ``ProtocolError``."""
    try:
        obj = loads(line)
    except ValueError as exc:
        shown = line[:80].decode("utf-8", "replace")
        raise ProtocolError(FaultCode.MALFORMED, f"not a JSON line ({exc}): {shown!r}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        shown = line[:80].decode("utf-8", "replace")
        raise ProtocolError(FaultCode.MALFORMED, f'not a JSON object with a "type": {shown!r}')
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
        "features": list(FEATURES),
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
    seed: int | None = None,
) -> dict:
    """The start of a game for the bot in ``seat``. ``cards`` is ``game.card_table()``;
    ``seed`` (1.2) the bot's own seed for this game, for its random numbers.

    The game's shuffle seed is never sent: with it a bot could rebuild the deck order.
    """
    msg = {
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
    if seed is not None:
        msg["seed"] = seed
    return msg


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


def game_start_for(message: dict, features: frozenset[str]) -> dict:
    """``message`` (a ``game_start`` with the 1.2 ``seed`` and ``series.index``) as a bot that
    chose ``features`` gets it: a bot without ``reuse`` gets the 1.1 message, byte for byte."""
    if REUSE in features or ("seed" not in message and "index" not in message.get("series", {})):
        return message
    out = {k: v for k, v in message.items() if k != "seed"}
    out["series"] = {k: v for k, v in message["series"].items() if k != "index"}
    return out


def view_delta(view: dict, previous: dict) -> tuple[dict, list[str]]:
    """What a ``view_delta`` request carries: the keys of ``view`` whose values differ from
    ``previous`` (the view of the bot's previous request in this game; ``{}`` for the first),
    and the keys of ``previous`` that ``view`` no longer has.

    >>> view_delta({"hand": [1, 2], "turn": 4}, {"hand": [1, 2], "turn": 3, "looking_at": {}})
    ({'turn': 4}, ['looking_at'])
    """
    missing = _MISSING
    get = previous.get
    delta = {k: v for k, v in view.items() if v != get(k, missing)}
    if previous.keys() <= view.keys():  # the usual case: no key has gone
        return delta, []
    return delta, [k for k in previous if k not in view]


_MISSING = object()


def lean_request_message(
    request_id: int,
    kind: str,
    prompt: str,
    options: list[str],
    label: Callable[[str], str],
    time_left: float,
    time_bank: float | None,
    source: str | None,
    features: frozenset[str],
    view: dict,
    previous: dict,
) -> dict:
    """A request as a bot that chose ``features`` gets it (protocol 1.1): option ids without
    labels or prompt (``option_ids``), and only the view's changes since ``previous``, the view
    of its previous request in this game (``view_delta``). ``label`` names an option."""
    msg: dict[str, Any] = {"type": "request", "id": request_id, "kind": kind}
    if "option_ids" in features:
        msg["options"] = list(options)
    else:
        msg["prompt"] = prompt
        msg["options"] = [{"id": o, "label": label(o)} for o in options]
    msg["time_left"] = round(time_left, 3)
    if "view_delta" in features:
        delta, gone = view_delta(view, previous)
        msg["delta"] = delta
        if gone:
            msg["gone"] = gone
    else:
        msg["view"] = view
    if source is not None:
        msg["source"] = source
    if time_bank is not None:
        msg["time_bank"] = round(time_bank, 3)
    return msg


# --- bot -> referee ---------------------------------------------------------------------------


def check_hello(msg: dict) -> str:
    """Validate a bot's hello; return the bot's name. Raises ``ProtocolError`` (startup/version)."""
    if msg.get("type") != "hello":
        raise ProtocolError(FaultCode.STARTUP, f'expected a "hello" message first, got type {msg.get("type")!r}')
    protocol = msg.get("protocol")
    if protocol != PROTOCOL:
        raise ProtocolError(FaultCode.VERSION, f"the bot speaks protocol {protocol!r}, the referee speaks {PROTOCOL!r}")
    version = msg.get("version")
    form = VERSION_FORM.fullmatch(version) if isinstance(version, str) else None
    if form is None:
        raise ProtocolError(
            FaultCode.VERSION, f'"version" must be a string "MAJOR.MINOR" such as "{VERSION}", got {version!r}'
        )
    if int(form.group(1)) != MAJOR:
        raise ProtocolError(
            FaultCode.VERSION,
            f"the bot speaks {PROTOCOL} version {version}, the referee speaks {VERSION} "
            f"(major versions must match)",
        )
    name = msg.get("name")
    chosen_features(msg)
    if not isinstance(name, str) or not name.strip():
        raise ProtocolError(FaultCode.STARTUP, 'the hello must carry a non-empty string "name"')
    return name.strip()[:100]


def chosen_features(msg: dict) -> frozenset[str]:
    """The features a bot's hello chooses (none for a 1.0 bot); ``ProtocolError`` (``version``)
    when it asks for one the referee did not offer."""
    features = msg.get("features", [])
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise ProtocolError(FaultCode.VERSION, f'"features" must be a list of strings, got {features!r}')
    unknown = sorted(set(features) - set(FEATURES))
    if unknown:
        raise ProtocolError(
            FaultCode.VERSION,
            f"the bot asks for features {unknown} that the referee does not offer "
            f"(it offers {list(FEATURES)})",
        )
    return frozenset(features)


def read_answer(line: bytes, request_id: int, offered) -> str:
    """The option id of ``line``, a bot's answer to request ``request_id``: as
    ``check_answer(parse_line(line), request_id, offered)``, with the same faults.

    An answer written exactly as the protocol's examples write it
    (``{"type":"answer","id":7,"option":"end"}``) is read without a JSON parser: its option is
    the bytes between the fixed head and the closing ``"}``, which hold no quote or backslash,
    so they are the JSON string's value as they stand. Any other form is parsed in full.

    >>> read_answer(b'{"type":"answer","id":7,"option":"end"}', 7, ["end"])
    'end'
    """
    head = b'{"type":"answer","id":%d,"option":"' % request_id
    if line.startswith(head) and line.endswith(b'"}'):
        try:
            option = line[len(head):-2].decode()
        except UnicodeDecodeError:
            pass
        else:
            # an offered id that needs no escape is the JSON string's value as it stands; the
            # look-up comes first, since it settles the usual case
            if option in offered and '"' not in option and "\\" not in option and option.isprintable():
                return option
    return check_answer(parse_line(line), request_id, offered)


def check_answer(msg: dict, request_id: int, offered) -> str:
    """Validate an answer to request ``request_id``; return its option id.

    ``offered`` is the set (or list) of option ids of the request. Raises ``ProtocolError``
    with code ``malformed``, ``wrong_id`` or ``illegal``.
    """
    if msg.get("type") != "answer":
        raise ProtocolError(FaultCode.MALFORMED, f'expected an "answer", got type {msg.get("type")!r}')
    rid = msg.get("id")
    if isinstance(rid, bool) or not isinstance(rid, int):
        raise ProtocolError(FaultCode.MALFORMED, f'the answer\'s "id" must be an integer, got {rid!r}')
    option = msg.get("option")
    if not isinstance(option, str):
        raise ProtocolError(FaultCode.MALFORMED, f'the answer\'s "option" must be a string, got {option!r}')
    if rid != request_id:
        raise ProtocolError(FaultCode.WRONG_ID, f"answered request {rid}, but request {request_id} was asked")
    if option not in offered:
        raise ProtocolError(FaultCode.ILLEGAL, f"option {option!r} was not offered in request {request_id}")
    return option
