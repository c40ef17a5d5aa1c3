"""Types shared by every rule set: decisions, results, errors, RNG state and the game contract.

Every rule set's game object follows the same small contract, :class:`Game` (see ``docs/engine.md``):

- ``game.pending`` is the :class:`Decision` the game waits for, or ``None`` once it is over;
- ``game.apply(option_id)`` answers it (an id not offered raises :class:`IllegalOption`
  and leaves the game unchanged);
- ``game.view(player)`` is what that player may know, as JSON-ready data;
- ``game.result`` is the :class:`Result` once the game is over;
- ``game.forfeit(player, reason)`` makes a player lose under the rules (a bot's fault);
- ``game.to_dict()`` / ``engine.load_game(data)`` save and restore any state;
- ``game.choices`` lists the option ids applied so far, and the forfeits among them (with the
  seed: a replay, see :func:`apply_choice`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Protocol, runtime_checkable

# shuffle lives in its own module so that the compiled build (setup.py) can compile it; this module
# cannot be compiled (its runtime-checkable Protocol does not survive compilation)
from engine.shuffling import shuffle as shuffle


class EngineError(ValueError):
    """Base class of the engine's errors."""


class IllegalOption(EngineError):
    """An option id that the pending decision does not offer (or no decision is pending)."""


class OptionsError(EngineError):
    """An unknown rule-set option, a bad option value, or a bad player count."""


class PositionError(EngineError):
    """A saved game or hand-written position that cannot be loaded."""


@dataclass(slots=True)
class Decision:
    """A choice the rules give one player now.

    ``options`` is the explicit list of legal option ids, in a stable order. Ids are short
    strings such as ``"discard:17"``, ``"play:4"``, ``"colour:moon"``, ``"player:1"``,
    ``"yes"``, ``"no"``, ``"done"`` or ``"end"``; ``game.label(id)`` gives a readable label.
    """

    player: int
    kind: str
    options: list[str]
    prompt: str = ""
    #: name of the card whose effect asks, if any (helps bots tell a friendly choice from a hostile one)
    source: str | None = None

    def to_dict(self, label=None) -> dict:
        """JSON-ready form; with ``label`` (a function id -> text) options carry labels."""
        if label is None:
            opts = [{"id": o} for o in self.options]
        else:
            opts = [{"id": o, "label": label(o)} for o in self.options]
        return {
            "player": self.player,
            "kind": self.kind,
            "prompt": self.prompt,
            "source": self.source,
            "options": opts,
        }


@dataclass
class Result:
    """How a game ended.

    ``winners`` is empty when nobody won (players who lost together as the last ones tie).
    ``placements[p]`` is 1 for the best, equal numbers for shared places. ``points[p]`` is the
    league points of player p (lower is better).
    """

    winners: list[int]
    reason: str
    points: list[int]
    placements: list[int]
    eliminated: list[int] = field(default_factory=list)
    detail: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None) -> Result | None:
        return None if d is None else cls(**d)


@runtime_checkable
class Game(Protocol):
    """The contract every rule set's game object keeps (``engine.new_game`` returns one).

    Callers use these members and nothing else of a game; tests/test_engine_contract.py checks
    every rule set against them. The zones (``hands``, ``draw_pile``, ``discard``, ``in_play``) are
    the true state, hidden cards included: for referees, replays and estimates, never for a player
    (a player gets :meth:`view`).
    """

    #: the rule set's name, the seats, the seed and the completed options
    rule_set: str
    players: int
    seed: int
    options: dict
    #: per seat: still in the game
    alive: list[bool]
    #: option ids applied so far, and forfeits as ``"forfeit:<player>:<reason>"``
    choices: list[str]
    #: public events so far (dicts with a ``"type"``)
    events: list[dict]
    #: per hand: card ids (see :meth:`hand_players` for who holds each hand)
    hands: list[list[int]]
    #: the draw pile (stock), top card last
    draw_pile: list[int]
    #: the discard (play) pile, top card last
    discard: list[int]

    @property
    def pending(self) -> Decision | None:
        """The decision waited for, or None once the game is over."""

    @property
    def result(self) -> Result | None:
        """How the game ended, or None while it goes on."""

    @property
    def in_play(self) -> list[list[int]]:
        """Per seat: the cards it has in play (assets); empty lists in rule sets without them."""

    def hand_players(self) -> list[int]:
        """The seat holding each hand (a seat may hold two hands: a dummy)."""

    def apply(self, option_id: str) -> None:
        """Answer the pending decision; an id not offered is an IllegalOption and changes nothing."""

    def forfeit(self, player: int, reason: str) -> None:
        """``player`` loses under the rules (a bot's fault); recorded in ``choices``."""

    def view(self, player: int) -> dict:
        """What ``player`` may know now, as JSON-ready data."""

    def label(self, option_id: str) -> str:
        """A readable text for an option id of the pending decision."""

    def describe(self, event: dict) -> str:
        """One readable line for an event."""

    def card_table(self) -> dict:
        """Card id -> ``{"name", "rank", "suits", "type"}`` for every card of this game."""

    def to_dict(self) -> dict:
        """The whole state as JSON-ready data (``engine.load_game`` restores it)."""

    def clone(self) -> Game:
        """An independent copy, equal to this game (RNG included), for search and self-play;
        games also pickle (through ``to_dict``) to an equal game."""


def rng_to_json(rng: random.Random) -> list:
    """The state of a ``random.Random`` as JSON-ready data."""
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def rng_from_json(data: list) -> random.Random:
    rng = random.Random()
    rng.setstate((data[0], tuple(data[1]), data[2]))
    return rng


#: A deal ends when its choices (decisions answered and forfeits) reach this number: nothing in the
#: rules stops players who keep drawing and discarding without going out (docs/rulings.md, P18).
#: Far above deals played to win: random play, the longest we measured, stays under 7,000.
DECISION_CAP = 20_000

#: the result reason of a deal ended by :data:`DECISION_CAP`
CAPPED = "decision_cap"

#: ``game.choices`` records ``game.forfeit(player, reason)`` as ``"forfeit:<player>:<reason>"``.
#: No option id starts with this verb, so a replay can tell the two apart; the referee wrote the
#: same marker before the engine recorded forfeits, so stored games replay unchanged.
FORFEIT = "forfeit"


def record_forfeit(game: Game, player: int, reason: str) -> bool:
    """The start of every ``game.forfeit``: True when the forfeit takes effect.

    A seat that does not exist is an :class:`IllegalOption`. While the game is on, the forfeit
    joins ``game.choices``, even for a player already out (it then changes nothing), so that the
    choices list every fault and replay the game exactly. Once the game is over a forfeit changes
    nothing and is not recorded.
    """
    if not 0 <= player < game.players:
        raise IllegalOption(f"no player {player}")
    if game.result is not None:
        return False
    game.choices.append(f"{FORFEIT}:{player}:{reason}")
    return game.alive[player]


def apply_choice(game: Game, choice: str) -> None:
    """Apply one entry of ``game.choices`` again: a forfeit's record repeats the forfeit, any
    other entry is an option id for ``game.apply``."""
    if choice.startswith(FORFEIT + ":"):
        _, player, reason = choice.split(":", 2)
        game.forfeit(int(player), reason)
    else:
        game.apply(choice)


def placements_from_scores(scores: Sequence[float]) -> list[int]:
    """Competition ranking from scores where lower is better: ties share the better place and
    the next place is skipped.

    >>> placements_from_scores([0, 3, 3, 5])
    [1, 2, 2, 4]
    """
    return [1 + sum(1 for other in scores if other < s) for s in scores]
