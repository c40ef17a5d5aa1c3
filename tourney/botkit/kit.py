"""A small helper for writing a tourney bot in Python: you write one function, it does the rest.

    from tourney.botkit import run      # or, in a bot folder made by `tourney new-bot`: from botkit import run

    def choose(view, options):
        return options[0]               # any offered option id is a legal answer

    run(choose, name="my_bot")

``run`` speaks the tourney bot protocol 1.2 (docs/protocol.md) on stdin and stdout: it answers
the referee's hello (saying that one process may play games of many series: ``reuse``), keeps
what ``game_start`` says (reseeding :attr:`Game.rng` from the game's own seed), calls
``choose(view, options)`` for every request (``view``: what your seat may know; ``options``:
the offered option ids, strings such as ``"play:17"`` or ``"end"``) and writes its answer,
flushed, then leaves on ``goodbye`` or at the end of stdin. What else a bot knows is in
:data:`game` (the card table, your seat, the decision's kind and the options' labels). Logs go
to stderr (:func:`log`), never to stdout.

This file is one module with only the standard library (it uses orjson when present), so a bot
folder may carry a copy of it and run anywhere, with or without tourney installed.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

try:  # faster JSON where it is installed; the standard library's otherwise
    import orjson

    def _loads(line: str) -> Any:
        return orjson.loads(line)

    def _dumps(message: dict) -> str:
        return orjson.dumps(message).decode()
except ImportError:  # pragma: no cover - orjson is a dependency of tourney, not of a bot
    import json

    def _loads(line: str) -> Any:
        return json.loads(line)

    def _dumps(message: dict) -> str:
        return json.dumps(message, separators=(",", ":"))

PROTOCOL, VERSION = "tourney-bot", "1.2"


class Game:
    """What a bot knows besides the view, kept up to date by :func:`run`.

    - ``cards``: card id (int) -> ``{"name", "rank", "suits", "type"}`` for every card of the game;
    - ``seat``, ``players``, ``teams``, ``rule_set``, ``options`` (the rule set's), ``series``;
    - ``kind``, ``prompt``, ``source``, ``labels`` (option id -> label): the request being answered;
    - ``rng``: a ``random.Random`` seeded from the referee's hello and again from every
      ``game_start`` (the game's own seed, protocol 1.2), for reproducible games;
    - ``result``: the last game's result (from ``game_end``), or None during a game.
    """

    def __init__(self) -> None:
        self.cards: dict[int, dict] = {}
        self.seat = 0
        self.players = 0
        self.teams: list | None = None
        self.rule_set = ""
        self.options: dict = {}
        self.series: dict = {}
        self.kind = ""
        self.prompt = ""
        self.source: str | None = None
        self.labels: dict[str, str] = {}
        self.rng = random.Random()
        self.result: dict | None = None

    def card(self, card_id: int) -> dict:
        """The card table's entry of a card id (``{}`` for an id it does not know)."""
        return self.cards.get(int(card_id), {})


#: the current game, as :func:`run` keeps it
game = Game()


def log(*parts: Any) -> None:
    """Print to stderr (the referee keeps it in the game's log); stdout is for the protocol."""
    print(*parts, file=sys.stderr, flush=True)


def run(
    choose: Callable[[dict, list[str]], str],
    name: str = "python_bot",
    *,
    on_game_end: Callable[[dict], None] | None = None,
    stdin: Any = None,
    stdout: Any = None,
) -> None:
    """Play the protocol until goodbye: ``choose(view, options)`` returns one of ``options``.

    A ``choose`` that raises or returns something not offered does not stop the bot: the error
    goes to stderr and the first option is answered (a legal move), so one bug costs one move,
    not the game. ``on_game_end(message)`` is called with each ``game_end`` message.
    """
    read = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout

    def send(message: dict) -> None:
        out.write(_dumps(message) + "\n")
        out.flush()

    for line in read:
        if not line.strip():
            continue
        message = _loads(line)
        kind = message.get("type")
        if kind == "hello":
            game.rng.seed(message.get("seed", 0))
            features = [f for f in ("reuse",) if f in message.get("features", ())]
            send({"type": "hello", "protocol": PROTOCOL, "version": VERSION, "name": name,
                  "features": features})
        elif kind == "game_start":
            game.cards = {int(k): v for k, v in (message.get("cards") or {}).items()}
            game.seat = message.get("seat", 0)
            game.players = message.get("players", 0)
            game.teams = message.get("teams")
            game.rule_set = message.get("rule_set", "")
            game.options = message.get("options") or {}
            game.series = message.get("series") or {}
            game.result = None
            if "seed" in message:  # the game's own seed: a warm process plays as a fresh one
                game.rng.seed(message["seed"])
        elif kind == "request":
            offered = [o["id"] for o in message["options"]]
            game.kind = message.get("kind", "")
            game.prompt = message.get("prompt", "")
            game.source = message.get("source")
            game.labels = {o["id"]: o.get("label", o["id"]) for o in message["options"]}
            try:
                option = choose(message.get("view") or {}, list(offered))
                if option not in offered:
                    raise ValueError(f"choose returned {option!r}, which is not offered")
            except Exception as exc:  # one bad move, not a lost game: answer a legal option
                log(f"{name}: {type(exc).__name__}: {exc}; answering {offered[0]!r}")
                option = offered[0]
            send({"type": "answer", "id": message["id"], "option": option})
        elif kind == "game_end":
            game.result = message.get("result")
            if on_game_end is not None:
                on_game_end(message)
        elif kind == "goodbye":
            return
        # any other message type (a later minor version's) is ignored, as the protocol asks
