"""The interface every entrant offers the referee, and the error of one that cannot play."""

from __future__ import annotations

from tourney.bots.protocol import Fault, FaultCode, ProtocolError
from tourney.bots.spec import EntrantSpec

__all__ = ["Entrant", "EntrantError"]


class EntrantError(Fault):
    """An entrant that cannot play: ``code`` is a fault code (``startup`` or ``version``)."""


class Entrant:
    """The interface the referee uses; see the module docstring.

    Public: ``name``, ``spec``, ``start()``, ``close()`` (each may be begun early for several
    entrants at once: ``launch()``, ``say_goodbye()``), ``failed`` (an :class:`EntrantError`
    once the entrant cannot play any more), ``bot_name`` (the name the bot gave, if any), and
    the context-manager protocol (``with`` closes; it does not start).

    Used by the referee, once per game: ``begin_game(message)`` -> fault code or None;
    ``decide(game, seat, request_id)`` -> option id, or raises ``ProtocolError``;
    ``fault(code)`` after any fault; ``end_game(message)``; ``take_stderr()``.
    """

    def __init__(self, spec: EntrantSpec, seed: int):
        self.spec = spec
        self.name = spec.name
        self.seed = seed
        self.failed: EntrantError | None = None
        self.bot_name: str | None = None
        self.started = False
        self.closed = False

    # context manager -----------------------------------------------------------------------
    def __enter__(self) -> Entrant:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # overridden ----------------------------------------------------------------------------
    def start(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.closed = True

    def launch(self) -> None:
        """Begin starting, without waiting (a process's start-up overlaps others'); ``start``
        finishes. Nothing to do for an entrant that starts at once."""

    def say_goodbye(self) -> None:
        """Begin closing, without waiting (a process's exit overlaps others'); ``close``
        finishes. Nothing to do for an entrant that closes at once."""

    def meet(self, names: list[str]) -> None:
        """The entrant names of the game's seats, before it begins (a person wants to know who
        they play against; bots are told only seat numbers)."""

    def begin_game(self, message: dict) -> EntrantError | ProtocolError | None:
        """Get ready for a game and send it ``message`` (``game_start``); an error (with
        ``code`` and ``message``) if this entrant cannot play it."""
        raise NotImplementedError

    def decide(self, game, seat: int, request_id: int) -> str:
        raise NotImplementedError

    def gone(self) -> ProtocolError | None:
        """A ``crash`` if this entrant has left the game without being asked (a bot process that
        exited or closed its stdin); None while it is still there."""
        return None

    def fault(self, code: FaultCode) -> None:
        """A fault in this game: never talk to this bot again in this game."""

    def end_game(self, message: dict) -> None:
        """The game is over (``message`` is the ``game_end`` message for this seat)."""

    def take_stderr(self) -> str:
        """The stderr captured since the last call (capped), as text."""
        return ""

