"""A non-linear value function for the luck adjustment: a one-hidden-layer network (Crazier Eights).

Seat p's value is ``V_p = sigmoid(b2 + Σ_j w2_j · relu(pre_j))`` with ``pre = b1 + Σ_{i in x_p} W1[i]``,
``x_p`` the seat's *sparse inputs*: the indices of the inputs that are 1 (:func:`seat_inputs`):

* each Crazier Eights card in the seat's hand, in the other seats' hands, on top of the discard
  pile, among the seat's assets in play and among the other seats' (five blocks of 52, one index
  per card of ``engine.cards.CARDS``; promo cards have none);
* the seat's hand size and the smallest hand of the other seats still in the game (one-hot, 0 to
  15, larger sizes counting as 15); whether the seat is to move; the suit an eight named.

A draw of card c into seat d changes d's inputs by one card and its hand size, and every other
seat's inputs by one card in the others' hands (and their rival's size): so the value after each
candidate is the base pre-activation, computed once per event, plus one row ``W1[c]``, a few
dozen float operations per candidate (:meth:`Network.draw_values`). Like the linear function it
reads the full state but never the order of the draw pile, so the corrections stay exact.

The weights are fitted per rule set and player count by ``scripts/fit_luck_network.py`` (numpy,
at fitting time only) on self-play games that are never the scored games, and stored in
``network.json``; evaluating them is plain Python.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from engine.cards import CARDS

CARD_IDS = len(CARDS)
_CARD_INDEX = {card.name: i for i, card in enumerate(CARDS)}
MINE, OTHERS, TOP, MINE_IN_PLAY, OTHERS_IN_PLAY = (k * CARD_IDS for k in range(5))
SIZES = 16
SIZE = 5 * CARD_IDS                 # one-hot: the seat's hand size
RIVAL = SIZE + SIZES                # one-hot: the smallest hand among the other seats in the game
TO_MOVE = RIVAL + SIZES             # the seat is to move
NAMED = TO_MOVE + 1                 # one-hot: the suit an eight on top named (4 suits)
SUITS = ("hearts", "diamonds", "clubs", "spades")
INPUTS = NAMED + len(SUITS)


@dataclass
class Snapshot:
    """What the network reads of a Crazier Eights state: per seat its hand and assets in play
    (card indices, -1 for a card with none), the discard top, the named suit, who is to move,
    who is alive. Hands may hold ``None``: a card that counts in the size but not by name (the
    card a draw brings, added per candidate)."""

    hands: list[list]
    in_play: list[list[int]]
    top: int
    named: int
    moving: int | None
    alive: list[bool]

    @classmethod
    def of(cls, game) -> Snapshot:
        index = card_index(game)
        top = index[game.discard[-1]] if game.discard else -1
        named = -1
        if game.named is not None and game.discard and game.named[0] == game.discard[-1]:
            named = SUITS.index(game.named[1]) if game.named[1] in SUITS else -1
        pending = game.pending
        return cls([[index[c] for c in h] for h in game.hands], [[index[c] for c in z] for z in game.in_play],
                   top, named, None if pending is None else pending.player, list(game.alive))


def card_index(game) -> list[int]:
    """Card id -> its index in ``engine.cards.CARDS`` (-1: a promo card)."""
    return [_CARD_INDEX.get(d, -1) if isinstance(d, str) else -1 for d in game.deck]


def seat_inputs(snap: Snapshot, p: int) -> list[int]:
    """The indices of seat p's inputs that are 1 (see the module docstring)."""
    x = [MINE + c for c in snap.hands[p] if c is not None and c >= 0]
    for q, hand in enumerate(snap.hands):
        if q != p:
            x += [OTHERS + c for c in hand if c is not None and c >= 0]
            x += [OTHERS_IN_PLAY + c for c in snap.in_play[q] if c >= 0]
    x += [MINE_IN_PLAY + c for c in snap.in_play[p] if c >= 0]
    if snap.top >= 0:
        x.append(TOP + snap.top)
    x.append(SIZE + min(len(snap.hands[p]), SIZES - 1))
    rival = min((len(snap.hands[q]) for q in range(len(snap.hands)) if q != p and snap.alive[q]), default=0)
    x.append(RIVAL + min(rival, SIZES - 1))
    if snap.moving == p:
        x.append(TO_MOVE)
    if snap.named >= 0:
        x.append(NAMED + snap.named)
    return x


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= -60 else 0.0


@dataclass
class Network:
    """``w1[i]`` is the row of input i (one float per hidden unit)."""

    w1: list[list[float]]
    b1: list[float]
    w2: list[float]
    b2: float

    @classmethod
    def from_dict(cls, d: dict) -> Network:
        return cls([list(map(float, r)) for r in d["w1"]], list(map(float, d["b1"])),
                   list(map(float, d["w2"])), float(d["b2"]))

    def pre(self, inputs: Sequence[int]) -> list[float]:
        """The hidden units' pre-activations for these inputs."""
        out = list(self.b1)
        for i in inputs:
            out = [a + b for a, b in zip(out, self.w1[i])]
        return out

    def out(self, pre: Sequence[float]) -> float:
        return _sigmoid(self.b2 + sum(w * a for w, a in zip(self.w2, pre) if a > 0.0))

    def value(self, inputs: Sequence[int]) -> float:
        return self.out(self.pre(inputs))

    def values(self, snap: Snapshot) -> list[float]:
        """V_p of every seat."""
        return [self.value(seat_inputs(snap, p)) for p in range(len(snap.hands))]

    def draw_values(self, snap: Snapshot, drawer: int, cards: Sequence[int]) -> list[list[float]]:
        """Per seat, V_p after ``drawer`` draws each of ``cards`` (card indices, -1 for a card
        without one) into its hand, everything else as in ``snap``."""
        hands = [list(h) for h in snap.hands]
        hands[drawer].append(None)
        after = Snapshot(hands, snap.in_play, snap.top, snap.named, snap.moving, snap.alive)
        out = []
        for p in range(len(hands)):
            base = self.pre(seat_inputs(after, p))
            block = MINE if p == drawer else OTHERS
            row = [self.out([a + b for a, b in zip(base, self.w1[block + c])]) if c >= 0 else self.out(base)
                   for c in cards]
            out.append(row)
        return out


@cache
def _networks() -> dict:
    path = resources.files("tourney.luck").joinpath("network.json")
    return json.loads(path.read_text()) if path.is_file() else {}


@cache
def network_for(rule_set: str, players: int) -> Network | None:
    """The fitted network for exactly this rule set and player count, None when there is none."""
    entry = _networks().get(rule_set, {}).get(str(players))
    return Network.from_dict(entry) if entry else None


def network_key(rule_set: str, players: int) -> str | None:
    """A text naming the fitted network (for cache keys), None when there is none."""
    entry = _networks().get(rule_set, {}).get(str(players))
    return None if entry is None else json.dumps([entry["b2"], entry["w2"]])
