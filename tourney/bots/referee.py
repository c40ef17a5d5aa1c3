"""The referee: plays one game between seated entrants, enforcing time limits and faults.

>>> from tourney.bots.entrants import EntrantSpec, open_entrant
>>> with open_entrant(EntrantSpec("a", builtin="random"), 1) as a, \\
...      open_entrant(EntrantSpec("b", builtin="greedy"), 2) as b:
...     record = play_game([a, b], seed=5)
>>> record.faults  # both played by the rules of the protocol
{}
>>> [record.result.placements[seat] for seat in record.result.winners]  # a winner is placed first
[1]
>>> engine.replay(record.start(), record.choices).result == record.result  # the record replays
True

Seat ``i`` is taken by ``entrants[i]``. The engine decides everything; the referee only asks
the player of ``game.pending`` through its entrant, checks the answer and applies it. A bot
that faults (see :data:`tourney.protocol.FAULT_CODES`) loses the game under the rules through
``game.forfeit(seat, code)``; the referee never talks to that process again in that game and
the entrant restarts itself for the next game. The game and the series go on.

Only ``game.view(seat)`` is ever sent to the bot in ``seat``; the game's seed is never sent.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import engine
from tourney import narrate
from tourney.bots import protocol
from tourney.bots.base import Entrant
from tourney.bots.protocol import FAULT_CODES, FaultCode, ProtocolError
from tourney.bots.subprocess_entrant import SubprocessEntrant

__all__ = ["FAULT_CODES", "FORFEIT", "GameRecord", "play_game", "replay"]

#: the verb of a fault's record in ``game.choices``: ``"forfeit:<seat>:<code>"`` (the engine's)
FORFEIT = engine.FORFEIT

#: ``replay(GameRecord.start(), GameRecord.choices)`` re-creates a game, faults included: the
#: choices record every forfeit, so ``engine.replay`` alone does it
replay = engine.replay


@dataclass
class GameRecord:
    """One finished game.

    ``options`` are the rule set's options completed with defaults; ``first_player`` is the seat
    that actually began (``first_player_drawn``: it was drawn from the seed; see :meth:`start`
    for replays). ``fault_details`` maps a seat to a readable reason. ``faults`` maps a seat to
    its fault code. ``choices`` is ``game.choices``: the option ids applied in order, with the
    engine's record ``"forfeit:<seat>:<code>"`` where a bot faulted; with :meth:`start`,
    ``engine.replay`` re-creates the game from them. ``log`` holds readable lines (each event
    narrated, and one line per fault); without an ``on_line`` listener they are written the first
    time ``log`` is read, since most games are stored without them. ``stderr`` holds each seat's captured stderr
    during this game (capped; seats with none are left out). ``seconds`` is wall-clock time.
    """

    rule_set: str
    options: dict
    seed: int
    first_player: int
    teams: list | None
    result: engine.Result
    faults: dict[int, str]
    choices: list[str]
    story: _Story
    stderr: dict[int, str]
    decisions: int
    seconds: float
    fault_details: dict[int, str] = field(default_factory=dict)
    first_player_drawn: bool = False
    #: seats whose fault came when their game was already decided (over, or the seat already
    #: out): recorded faults that cost nothing, so not forfeits (docs/protocol.md, section 5)
    decided_faults: frozenset[int] = frozenset()

    @property
    def log(self) -> list[str]:
        """The game's readable lines, in order."""
        return self.story.lines()

    def start(self) -> dict:
        """The ``engine.replay`` start of this game.

        Its ``first_player`` is None when the first player was drawn from the seed: drawing
        uses the game's RNG, so a replay given the actual seat instead would deal differently.
        """
        return {
            "rule_set": self.rule_set,
            "players": len(self.result.points),
            "seed": self.seed,
            "options": self.options,
            "first_player": None if self.first_player_drawn else self.first_player,
            "teams": self.teams,
        }


def _first_player(game, asked: int | None) -> int:
    if asked is not None:
        return asked
    return game.view(0)["active"]  # before any decision: the player whose turn it is


def play_game(
    entrants: list[Entrant],
    rule_set: str = "crazier-eights",
    options: dict | None = None,
    seed: int = 0,
    first_player: int | None = None,
    teams: list | None = None,
    series: dict | None = None,
    on_line: Callable[[str], None] | None = None,
    bot_seeds: list[int] | None = None,
) -> GameRecord:
    """Play one game, ``entrants[i]`` in seat ``i``; return its :class:`GameRecord`.

    ``options`` are rule-set options (validated; ``engine.OptionsError`` if bad). ``first_player``
    None means drawn from the seed. ``teams`` is a list of lists of seats or None. ``series`` is
    context sent to every bot in ``game_start`` (e.g. ``{"game": 2, "of": 3, "scores": [...]}``).
    ``on_line`` is called with each readable log line as the game goes. ``bot_seeds`` are the
    seeds of each seat's bot for this game, sent in ``game_start`` to bots that play games of
    several series in one process (protocol 1.2, ``reuse``); default: each entrant's own seed.

    Entrants that are not started yet are started here; one that cannot start (or restart
    after an earlier fault) forfeits at once with code ``startup`` or ``version``. Nothing a bot
    does raises out of here: faults become forfeits, recorded in ``faults``.
    """
    started = time.monotonic()
    _check_seats(entrants)
    full_options = engine.validate_options(rule_set, options, len(entrants))
    game = engine.new_game(
        rule_set, players=len(entrants), seed=seed, options=full_options, first_player=first_player,
        teams=teams,
    )
    first = _first_player(game, first_player)
    table = _Table(game, entrants, on_line)
    names = ", ".join(f"seat {s} {e.name}" for s, e in enumerate(entrants))
    table.emit(f"game: {rule_set}, seed {seed}; {names}; {entrants[first].name} begins")
    table.begin(rule_set, full_options, first, teams, series, bot_seeds)
    decisions = table.play()
    table.end()
    assert game.result is not None, "no decision pending: the game is over"
    return GameRecord(
        rule_set=rule_set,
        options=full_options,
        seed=seed,
        first_player=first,
        teams=teams,
        result=game.result,
        faults=table.faults,
        choices=list(game.choices),
        story=table.story,
        stderr=table.take_stderr(),
        decisions=decisions,
        seconds=time.monotonic() - started,
        fault_details=table.details,
        first_player_drawn=first_player is None,
        decided_faults=frozenset(table.decided),
    )


def _check_seats(entrants: list[Entrant]) -> None:
    """One process per seat: a subprocess entrant seated twice would answer for two players."""
    seen = set()
    for e in entrants:
        if isinstance(e, SubprocessEntrant):
            if id(e) in seen:
                raise ValueError(f"entrant {e.name!r} is seated twice: open one entrant per seat")
            seen.add(id(e))


class _Story:
    """A game's log as it is made: lines already written, and runs of the game's events, from
    one index to another, to narrate when the log is first read (narration reads only the events
    and the names, so the lines are those that narrating at once would have written)."""

    def __init__(self, narration: narrate.Table, events: list[dict]):
        self.narration = narration
        self.events = events
        self.parts: list[str | tuple[int, int]] = []
        self.written: list[str] | None = None

    def lines(self) -> list[str]:
        """Every line, narrating the runs of events (once: read after the game is over)."""
        if self.written is None:
            table, tell, events = self.narration, narrate.event, self.events
            lines: list[str] = []
            for part in self.parts:
                if isinstance(part, str):
                    lines.append(part)
                else:
                    lines += [tell(table, e) for e in events[part[0]:part[1]]]
            self.written = lines
        return self.written


class _Table:
    """One game in progress: the game, who sits where, and what has been logged and faulted."""

    def __init__(self, game, entrants: list[Entrant], on_line: Callable[[str], None] | None):
        self.game = game
        self.entrants = entrants
        self.on_line = on_line
        self.cards = game.card_table()  # read once per game: by the narration and every game_start
        self.narration = narrate.make_table(game.rule_set, [e.name for e in entrants], self.cards, game.options)
        self.story = _Story(self.narration, game.events)
        self.faults: dict[int, str] = {}
        self.decided: set[int] = set()  # faults that came after the seat's game was decided
        self.details: dict[int, str] = {}
        self.shown = 0  # events of the game already narrated
        # bots that may leave while others decide: looked at whenever another seat is to decide
        self.watched = [s for s, e in enumerate(entrants) if isinstance(e, SubprocessEntrant)]

    def emit(self, line: str) -> None:
        self.story.parts.append(line)
        if self.on_line is not None:
            self.on_line(line)

    def flush_events(self) -> None:
        """Log the game's events not logged yet, in order: narrated now for a listener, else
        when the log is read."""
        end = len(self.game.events)
        if self.shown == end:
            return
        if self.on_line is None:
            self.story.parts.append((self.shown, end))
        else:
            for e in self.game.events[self.shown:]:
                self.emit(narrate.event(self.narration, e))
        self.shown = end

    def fault(self, seat: int, code: FaultCode, message: str) -> None:
        """Seat ``seat`` faulted: its entrant stops, and it forfeits the game under the rules."""
        self.flush_events()  # what happened before the fault is told before it
        entrant = self.entrants[seat]
        self.faults[seat] = code
        if self.game.result is not None or not self.game.alive[seat]:
            self.decided.add(seat)  # recorded, and its process replaced; it costs nothing
        entrant.fault(code)
        status = getattr(entrant, "exit_status", None)
        if code == FaultCode.CRASH and status is not None:
            message += f" (exit status {status})"
        if note := getattr(entrant, "limit_note", None):  # a limit the bot had run into
            message += f"; {note}"
        self.details[seat] = message
        self.emit(f"fault: {entrant.name} (seat {seat}) {code}: {message}")
        self.game.forfeit(seat, code)  # recorded in game.choices; nothing happens once the game is over
        self.flush_events()

    def begin(self, rule_set: str, options: dict, first: int, teams: list | None,
              series: dict | None, bot_seeds: list[int] | None = None) -> None:
        """Send every seat its ``game_start``; a seat that cannot begin forfeits now."""
        entrants = self.entrants
        cards = {str(k): v for k, v in self.cards.items()}  # as JSON has them; made once, not by seat
        names = [e.name for e in entrants]
        for seat, entrant in enumerate(entrants):
            entrant.meet(names)
            msg = protocol.game_start_message(
                seat=seat, players=len(entrants), teams=teams, rule_set=rule_set, options=options,
                first_player=first, series=series, cards=cards,
                seed=bot_seeds[seat] if bot_seeds is not None else entrant.seed,
            )
            err = entrant.begin_game(msg)
            if err is not None:
                self.fault(seat, err.code, err.message)
        self.flush_events()

    def check_presence(self, asked: int) -> None:
        """A bot that left while others decided forfeits now (docs/protocol.md, section 5); the
        seat ``asked`` next is left out, since waiting for its answer notices its leaving."""
        for seat in self.watched:
            if self.game.pending is None:
                return  # over: a bot found gone now is dealt with at the game's end
            if seat != asked and seat not in self.faults:
                gone = self.entrants[seat].gone()
                if gone is not None:
                    self.fault(seat, gone.code, gone.message)

    def settle_departures(self, seat: int, asked: Entrant, asked_at: float) -> bool:
        """The seats that left while ``seat`` was asked forfeit now, earliest first, before
        ``seat``'s answer or fault counts: the first fault decides the game. The asked bot's
        wait watched every other bot and noted when each left; one found gone only now (the
        asked seat decided in process, or did not wait) left before the decision was settled.
        Whether any seat forfeited."""
        noted: list[tuple[float, Entrant]] = []
        if isinstance(asked, SubprocessEntrant):
            asked.watch = []
            noted += asked.take_departures()
        now = time.monotonic()
        seen = {id(e) for _, e in noted}
        for s in self.watched:
            e = self.entrants[s]
            if s != seat and s not in self.faults and id(e) not in seen and e.gone() is not None:
                noted.append((now, e))
        faulted = False
        for when, e in sorted(noted, key=lambda item: item[0]):
            s = next(i for i, x in enumerate(self.entrants) if x is e)
            if s in self.faults:
                continue
            faulted = True
            gone = e.gone() or ProtocolError(FaultCode.CRASH, "the bot exited without being asked to")
            self.fault(s, gone.code, f"{gone.message}, {when - asked_at:.3f} s after seat {seat} "
                                     f"was asked, before that seat's answer or fault")
        return faulted

    def play(self) -> int:
        """Ask and apply decisions until the game is over; the number of decisions applied."""
        game, entrants = self.game, self.entrants
        watch = bool(self.watched)
        # without a listener, events are narrated in batches: before a fault's line and at the
        # end (narration reads only the events, so the log is the same, in the same order)
        live = self.on_line is not None
        decisions = 0
        request_id = 0
        last = None
        while game.pending is not None:
            seat = game.pending.player
            if watch and seat != last:  # the others had their say: is everyone still there?
                self.check_presence(seat)
                if game.pending is None or seat in self.faults:
                    continue
            last = seat
            if seat in self.faults:  # pragma: no cover - the engine never asks a forfeited player
                raise RuntimeError(f"the engine asked player {seat}, who has forfeited")
            request_id += 1
            asked = entrants[seat]
            pending = game.pending
            if watch and isinstance(asked, SubprocessEntrant):
                asked.watch = [e for s in self.watched if s != seat and s not in self.faults
                               and isinstance(e := entrants[s], SubprocessEntrant)]
            asked_at = time.monotonic()
            try:
                option = asked.decide(game, seat, request_id)
            except ProtocolError as exc:
                if watch:  # the first fault decides: a seat that left earlier forfeits first
                    self.settle_departures(seat, asked, asked_at)
                self.fault(seat, exc.code, exc.message)
                continue
            if watch and self.settle_departures(seat, asked, asked_at) and game.pending is not pending:
                continue  # a seat that left first changed the game: the answer is moot
            game.apply(option)
            decisions += 1
            if live:
                self.flush_events()
        self.flush_events()
        return decisions

    def end(self) -> None:
        """Tell every seat still playing how the game ended, and log the result."""
        game, result = self.game, self.game.result
        assert result is not None, "no decision pending: the game is over"
        for seat, entrant in enumerate(self.entrants):
            if seat not in self.faults:
                entrant.end_game(protocol.game_end_message(seat, result, self.faults, game.view(seat)))
        self.emit(narrate.result_line(self.narration, result.winners, result.reason, result.points)
                  + "".join(f"; fault: {self.entrants[s].name} {c}" for s, c in sorted(self.faults.items())))

    def take_stderr(self) -> dict[int, str]:
        stderr = {}
        for seat, entrant in enumerate(self.entrants):
            text = entrant.take_stderr()
            if text:
                stderr[seat] = text
        return stderr
