"""Built-in entrants: a bot of ``engine.bots`` playing in process, without JSON or time limits."""

from __future__ import annotations

from typing import Any

from engine import bots
from tourney.bots.base import Entrant, EntrantError
from tourney.bots.protocol import FaultCode, ProtocolError
from tourney.bots.spec import EntrantSpec

__all__ = ["BuiltinEntrant"]


class BuiltinEntrant(Entrant):
    """A bot of ``engine.bots`` playing in process."""

    def __init__(self, spec: EntrantSpec, seed: int):
        super().__init__(spec, seed)
        self._bot: Any = None

    def start(self) -> None:
        if self._bot is not None:
            return
        if self.failed is not None:
            raise self.failed
        if self.spec.builtin not in bots.BOT_NAMES:
            known = ", ".join(bots.BOT_NAMES)
            self.failed = EntrantError(FaultCode.STARTUP, f"unknown built-in bot {self.spec.builtin!r} (known: {known})"
            )
            raise self.failed
        self._bot = bots.make_bot(self.spec.builtin, self.seed, **self.spec.settings)
        self.bot_name = self.spec.builtin
        self.started = True

    def begin_game(self, message: dict) -> EntrantError | None:
        if self._bot is None:
            try:
                self.start()
            except EntrantError as exc:
                return exc
        start = getattr(self._bot, "start", None)
        if start is not None:
            start(message["cards"])
        return None

    def decide(self, game, seat: int, request_id: int) -> str:
        decision = game.pending
        try:
            choose_in = getattr(self._bot, "choose_in", None)  # a searching bot copies the game
            option = choose_in(game, seat) if choose_in is not None else self._bot.choose(
                decision, lambda: game.view(seat))
        except Exception as exc:  # a bug in a built-in bot must not stop the event
            raise ProtocolError(FaultCode.CRASH, f"built-in bot raised {type(exc).__name__}: {exc}") from None
        if option not in decision.options:
            raise ProtocolError(FaultCode.ILLEGAL, f"built-in bot chose {option!r}, not offered")
        return option

