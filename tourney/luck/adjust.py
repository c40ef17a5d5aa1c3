"""Luck-adjusted scores: a game's outcome less the luck of every chance event (AIVAT-style).

For one game the adjusted score of seat p is

    adjusted_p = outcome_p - Σ_events ( V_p(after the event) - E[V_p(after the event)] )

Each bracket has mean zero given everything before the event, whatever the value function and
whatever the bots do, so the adjusted score has the same expectation as the raw one (Burch,
Schmid, Moravčík, Morrill and Bowling, "AIVAT", AAAI 2018, arXiv:1612.06915).

The value function is linear in the seats' features (:mod:`tourney.luck.value`):
``V_p = ½ + w·(x_p - mean of the other seats' x_q)``, with its own weights for the deal, for
draws into a hand of three cards or fewer and for draws into a larger one (the weights an event
uses are fixed before the event, so each bracket keeps mean zero). Then every bracket is ``w``
times a vector of feature differences, and a game's whole adjustment is ``w·G_p`` with ``G_p``
the sum of those vectors (:func:`luck_features`). Choosing ``w`` to make the adjusted score's
variance smallest is a least-squares regression of outcomes on ``G`` over self-play games
(MIVAT, White and Bowling, IJCAI 2009): ``scripts/fit_luck.py``. Where
``tourney/luck/network.json`` holds a network for the rule set and player count
(:mod:`tourney.luck.network`), :func:`adjust` uses it instead, with the same events and the same
exact expectations (:func:`network_luck`); none is shipped (docs/evaluation.md, "A non-linear
value function").

Chance events:

* **Draws** (:mod:`tourney.luck.chance`): the next unseen card of a block goes into a hand.
  "After" is the position before the step with that card in the drawer's hand (and the cards
  drawn before it in the same step in theirs); the expectation is exact, the mean over every card
  the block may still hold. A multi-card draw is a sequence of such events, each conditioned on
  the ones before.
* **The deal**: "after" is the first position; its expectation is estimated by the mean over
  ``deals`` independent random deals (same rule set, options, seats and first player), which is
  unbiased but not exact.

No bot takes part: the adjustment is computed from the stored replay (start and choices).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import engine
from tourney.luck.chance import Draw, Stock, chance_draws
from tourney.luck.network import Network, Snapshot, card_index, network_for
from tourney.luck.value import (
    BLOCKS,
    FEATURES,
    Table,
    card_key,
    features,
    outcome,
    rival_sizes,
    seat_features,
    seat_hands,
    table_of,
    to_move,
    weights_for,
)

#: random deals whose mean estimates the deal's expectation
DEALS = 16
#: a draw into a hand of at most this many cards uses the "small hand" weights
SMALL_HAND = 3


@dataclass
class Luck:
    """A game's outcome per seat and its luck features ``G`` per seat (see the module docstring):
    one vector per seat, the :data:`~tourney.luck.value.BLOCKS` one after the other."""

    raw: list[float]
    g: list[list[float]]
    events: int = 0      # chance draws corrected
    irregular: int = 0   # steps where an unseen card left the pile unannounced (0 in every test)


@dataclass
class Adjusted:
    """A game's raw and luck-adjusted score per seat."""

    raw: list[float]
    adjusted: list[float]
    events: int = 0

    def to_dict(self) -> dict:
        return {"raw": self.raw, "adjusted": self.adjusted, "events": self.events}


def _start_kwargs(start: dict) -> dict:
    keys = ("rule_set", "players", "seed", "options", "first_player", "teams")
    return {k: start[k] for k in keys if k in start}


def _first_player(game) -> int:
    controller = getattr(game, "controller", None)  # a list of seats in the standard games
    return controller[game.turn] if isinstance(controller, list) else game.turn


def _relative(deltas: Sequence[Sequence[float]]) -> list[list[float]]:
    """Per seat: its vector less the mean of the other seats' (what ``V_p`` differences see)."""
    k = len(deltas)
    total = [sum(col) for col in zip(*deltas)]
    if k < 2:
        return [list(d) for d in deltas]
    return [[d - (t - d) / (k - 1) for d, t in zip(delta, total)] for delta in deltas]


def deal_luck(game, start: dict, deals: int = DEALS) -> list[list[float]]:
    """Per seat: features of the first position less their mean over ``deals`` random deals.
    The random deals come from a generator seeded by the game's seed under its own name, so the
    adjustment is reproducible; they are drawn independently of the game's own shuffle."""
    actual = seat_features(game)
    kwargs = _start_kwargs(start)
    if kwargs.get("first_player") is None and game.pending is not None:
        kwargs["first_player"] = _first_player(game)
    rng = _deal_rng(start)
    total = [[0.0] * len(FEATURES) for _ in actual]
    for _ in range(deals):
        kwargs["seed"] = rng.getrandbits(62)
        for p, x in enumerate(seat_features(engine.new_game(**kwargs))):
            total[p] = [t + v for t, v in zip(total[p], x)]
    return _relative([[a - t / deals for a, t in zip(x, tot)] for x, tot in zip(actual, total)])


@dataclass
class Position:
    """What a draw's correction reads of the state before the step: the seats' hands, the discard
    top, and per seat (assets in play, to move, alive, the rival's hand size). Nothing that could depend on the card."""

    hands: list
    table: Table
    context: list

    @classmethod
    def of(cls, game) -> Position:
        in_play = getattr(game, "in_play", None)
        moving = to_move(game)
        hands = seat_hands(game)
        rivals = rival_sizes(game, hands)
        context = [(len(in_play[p]) if in_play is not None else 0, moving == p, game.alive[p], rivals[p])
                   for p in range(game.players)]
        return cls(hands, table_of(game), context)


def draw_luck(position: Position, draw: Draw) -> tuple[int, list[float]]:
    """``(block, x(card drawn) - mean x(card it could have been))`` for the drawer of one chance
    draw, x the drawer's features with the card in hand (and the cards drawn before it in the
    same step in their hands), everything else as before the step. ``block`` is 1 for a hand of
    at most :data:`SMALL_HAND` cards before the card, else 2 (0 is the deal).

    The features see a card only through its :func:`card_key` (rank, playable now, asset), so
    the mean is taken over the distinct keys, each weighted by how many candidates share it."""
    hands = [[list(h) for h in seat] for seat in position.hands]
    for card, player, index in draw.before:
        hands[player][index].append(card)
    hand = hands[draw.player]
    slot = hand[draw.slot]
    context = position.context[draw.player]
    block = 1 if min(len(h) for h in hand) <= SMALL_HAND else 2

    def x(card: int) -> list[float]:
        slot.append(card)
        out = features(position.table, hand, *context)
        slot.pop()
        return out

    keys: dict[tuple, list[int]] = {}
    for c in draw.candidates:
        keys.setdefault(card_key(position.table, c), [c, 0])[1] += 1
    mean = [0.0] * len(FEATURES)
    for card, n in keys.values():
        mean = [m + n * v for m, v in zip(mean, x(card))]
    total = len(draw.candidates)
    return block, [a - m / total for a, m in zip(x(draw.card), mean)]


def luck_features(start: dict, choices: list[str], *, deals: int = DEALS) -> Luck:
    """The outcome and luck features of the game that ``choices`` play from ``start`` (the keyword
    arguments of ``engine.new_game``: rule_set, players, seed, options, first_player, teams)."""
    game = engine.new_game(**_start_kwargs(start))
    k, d = game.players, len(FEATURES)
    g = [[0.0] * (d * len(BLOCKS)) for _ in range(k)]
    for p, delta in enumerate(deal_luck(game, start, deals)):
        g[p][:d] = delta
    stock = Stock.after_deal(game)
    events = 0
    for position, draw in chance_draws(game, stock, choices, Position.of):
        block, delta = draw_luck(position, draw)
        events += 1
        per_seat = [delta if p == draw.player else [0.0] * d for p in range(k)]
        for p, rel in enumerate(_relative(per_seat)):
            row = g[p]
            for i, v in enumerate(rel, start=block * d):
                row[i] += v
    if game.result is None:
        raise ValueError("the choices do not finish the game")
    return Luck(outcome(game.result.placements), g, events, stock.irregular)


def adjusted_scores(luck: Luck, weights: Sequence[float]) -> list[float]:
    """``outcome_p - w·G_p`` per seat."""
    return [r - sum(w * v for w, v in zip(weights, row)) for r, row in zip(luck.raw, luck.g)]


def _deal_rng(start: dict) -> random.Random:
    return random.Random(f"tourney.luck deals {start.get('rule_set')} {start.get('seed')}")


def network_draw_luck(net: Network, snap: Snapshot, draw: Draw, index: list[int]) -> list[float]:
    """Per seat: ``V_p(card drawn) - mean over candidates V_p(candidate)`` for one chance draw,
    ``snap`` the position before the step (the step's earlier draws are added to it here). The
    network sees a card only through its :func:`~tourney.luck.network.card_index`, so the mean
    is taken over distinct indices, each weighted by how many candidates share it."""
    hands = [list(h) for h in snap.hands]
    for card, player, _ in draw.before:
        hands[player].append(index[card])
    before = Snapshot(hands, snap.in_play, snap.top, snap.named, snap.moving, snap.alive)
    counts: dict[int, int] = {}
    for c in draw.candidates:
        counts[index[c]] = counts.get(index[c], 0) + 1
    keys = list(counts)
    values = net.draw_values(before, draw.player, keys)
    total = len(draw.candidates)
    drawn = keys.index(index[draw.card])
    return [row[drawn] - sum(v * counts[k] for v, k in zip(row, keys)) / total for row in values]


def network_luck(start: dict, choices: list[str], net: Network, *,
                 deals: int = DEALS) -> tuple[list[float], list[float], int]:
    """``(outcome, luck, chance draws)`` per seat of a Crazier Eights game with the network value
    function (centred over the seats, see below): luck is the deal's ``V(first position) - mean
    V over deals random deals`` plus every chance draw's :func:`network_draw_luck`."""
    kwargs = _start_kwargs(start)
    game = engine.new_game(**kwargs)
    if kwargs.get("first_player") is None and game.pending is not None:
        kwargs["first_player"] = _first_player(game)
    luck = net.values(Snapshot.of(game))
    rng = _deal_rng(start)
    for _ in range(deals):
        kwargs["seed"] = rng.getrandbits(62)
        luck = [x - v / deals for x, v in zip(luck, net.values(Snapshot.of(engine.new_game(**kwargs))))]
    index = card_index(game)
    events = 0
    for snap, draw in chance_draws(game, Stock.after_deal(game), choices, Snapshot.of):
        events += 1
        luck = [x + b for x, b in zip(luck, network_draw_luck(net, snap, draw, index))]
    if game.result is None:
        raise ValueError("the choices do not finish the game")
    # the value of seat p is ½ + y_p - mean of y over the seats (y the network's output): the
    # values sum to k/2 like the outcomes do, so the adjusted scores keep the raw ones' sum
    mean = sum(luck) / len(luck)
    return outcome(game.result.placements), [x - mean for x in luck], events


def adjust(start: dict, choices: list[str], *, weights: Sequence[float] | None = None,
           deals: int = DEALS, network: Network | bool | None = None) -> Adjusted:
    """The raw and luck-adjusted scores of the game that ``choices`` play from ``start``: with
    the fitted network of its rule set and player count where there is one
    (:func:`~tourney.luck.network.network_for`), else with the fitted linear weights; ``weights``
    forces the linear function with those weights, ``network=False`` the linear one with the
    fitted weights, a :class:`~tourney.luck.network.Network` that network."""
    rule_set = start.get("rule_set", "crazier-eights")
    net = network if isinstance(network, Network) else None
    if net is None and weights is None and network is not False:
        net = network_for(rule_set, int(start.get("players", 2)))
    if net is not None:
        raw, seat_luck, events = network_luck(start, choices, net, deals=deals)
        return Adjusted(raw, [r - x for r, x in zip(raw, seat_luck)], events)
    luck = luck_features(start, choices, deals=deals)
    if weights is None:
        weights = weights_for(start.get("rule_set", "crazier-eights"), len(luck.raw))
    return Adjusted(luck.raw, adjusted_scores(luck, weights), luck.events)
