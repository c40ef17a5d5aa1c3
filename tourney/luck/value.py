"""The value function of the luck adjustment: a heuristic estimate of each seat's expected score.

A seat's *features* are read from the full state through the engine's public attributes
(``hands``, ``discard``, ``turn``, ``alive``; Crazier Eights also ``in_play`` and ``named``, the
standard-deck games ``named_suit``, ``wild`` and ``controller``). They never look at the order of
the draw pile, which is what makes the chance corrections of :mod:`tourney.luck.chance` exact.

The value of seat p is linear in the features: ``½ + w·(x_p - mean of the others' x_q)`` (see
:mod:`tourney.luck.adjust`). The weights ``w`` are fitted per rule set and player count by
``scripts/fit_luck.py`` and stored in ``coefficients.json``; the adjustment is unbiased whatever
they are, good weights only make it cut more variance.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from engine.cards import BY_NAME, CARDS, promo_card
from engine.eights_family import RANK, SUIT  # standard-deck ids: rank 1..13, suit 0..3

#: Crazier Eights' 52 distinct cards, each with a feature ``card_i`` (i its place in
#: ``engine.cards.CARDS``, whatever the game's deck order; promo cards have none). The standard
#: decks' cards differ only by rank and suit, which other features see.
CARD_IDS = len(CARDS)
_CARD_INDEX = {card.name: i for i, card in enumerate(CARDS)}
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
#: the weight blocks: the deal, draws into a hand of three or fewer cards, draws into a larger one
BLOCKS = ("deal", "draw_small", "draw_large")
#: one name per feature, in the order of a feature vector
FEATURES = (
    "hand",          # cards in hand (for several hands, the smallest: the one closest to going out)
    "one_left",      # 1 when that hand holds one card
    "two_left",      # 1 when it holds two
    "playable",      # cards in hand that may be played on the current top of the discard pile
    "in_play",       # assets in play (Crazier Eights)
    "assets",        # assets in hand (Crazier Eights)
    "to_move",       # 1 for the seat whose turn it is
    "alive",         # 0 once the seat is out of the game
    "none_playable",  # 1 when no card in hand may be played now (a draw is coming)
    "any_eight",     # 1 when the hand holds an eight (wild)
    "small_hand",    # 1 when the smallest hand holds three cards or fewer
    "small_playable",  # playable cards when the hand is small
    # the race: a card that lets the seat play this turn matters more the closer either seat is to
    # going out (``rival`` is the smallest hand of the other seats still in the game)
    "can_play",         # 1 when some card in hand may be played now
    "can_play_inv",     # can_play / cards in hand
    "can_play_behind",  # can_play when the seat holds more cards than its rival
    "can_play_rival_close",  # can_play when the rival holds two cards or fewer
    "can_play_rival_inv",    # can_play / the rival's cards
    "playable_inv",     # playable / cards in hand
    "hand_inv",         # 1 / cards in hand
    "eight_inv",        # any_eight / cards in hand
) + tuple(f"rank_{r}" for r in RANKS) + tuple(  # cards of each rank in hand
    f"card_{i}" for i in range(CARD_IDS))  # 1 when the hand holds Crazier Eights card i


@dataclass(frozen=True)
class Table:
    """What the features of a hand depend on besides the hand: the top of the discard pile."""

    ranks: tuple        # card id -> index into RANKS
    suits: tuple        # card id -> frozenset of suit keys
    assets: frozenset   # card ids that are assets
    top_rank: int | None
    top_suits: frozenset
    wild_top: bool      # anything may be played (a Super Crazy Eights starter eight)
    index: tuple = ()   # card id -> its card_i feature (-1: none); empty for the standard decks


def _standard_table(game) -> Table:
    ranks = tuple(r - 1 for r in RANK)
    suits = tuple(frozenset({s}) for s in SUIT)
    top = game.discard[-1] if game.discard else None
    if top is None:
        return Table(ranks, suits, frozenset(), None, frozenset(), True)
    named = getattr(game, "named_suit", None)
    top_suits = frozenset({named}) if named is not None else suits[top]
    top_rank = None if named is not None else ranks[top]
    return Table(ranks, suits, frozenset(), top_rank, top_suits, bool(getattr(game, "wild", False)))


@cache
def _crazier_cards(deck_key: tuple) -> tuple[tuple, tuple, frozenset, tuple]:
    defs = [BY_NAME[d] if isinstance(d, str) else promo_card(dict(d)) for d in deck_key]
    ranks = tuple(RANKS.index(d.rank) if d.rank in RANKS else -1 for d in defs)
    suits = tuple(frozenset(d.suits) for d in defs)
    assets = frozenset(i for i, d in enumerate(defs) if d.is_asset)
    index = tuple(_CARD_INDEX.get(d, -1) if isinstance(d, str) else -1 for d in deck_key)
    return ranks, suits, assets, index


def _crazier_table(game) -> Table:
    deck_key = tuple(d if isinstance(d, str) else tuple(sorted(d.items())) for d in game.deck)
    ranks, suits, assets, index = _crazier_cards(deck_key)
    top = game.discard[-1] if game.discard else None
    if top is None:
        return Table(ranks, suits, assets, None, frozenset(), True, index)
    named = game.named
    if named is not None and named[0] == top:
        return Table(ranks, suits, assets, None, frozenset({named[1]}), False, index)
    return Table(ranks, suits, assets, ranks[top], suits[top], False, index)


def table_of(game) -> Table:
    """The card attributes and discard top of ``game`` (any rule set)."""
    return _crazier_table(game) if hasattr(game, "deck") else _standard_table(game)


def seat_hands(game) -> list[list[list[int]]]:
    """The hands each seat holds (one per seat, several in Super Crazy Eights' dummy form)."""
    controller = getattr(game, "controller", None)  # a list of seats in the standard games
    if not isinstance(controller, list):
        return [[list(h)] for h in game.hands]
    out: list[list[list[int]]] = [[] for _ in range(game.players)]
    for h, hand in enumerate(game.hands):
        out[controller[h]].append(list(hand))
    return out


def to_move(game) -> int | None:
    """The seat whose decision is pending (None once the game is over)."""
    pending = game.pending
    return None if pending is None else pending.player


def features(table: Table, hands: Sequence[Sequence[int]], in_play: int, moving: bool, alive: bool,
             rival: int = 0) -> list[float]:
    """The feature vector (:data:`FEATURES`) of one seat holding ``hands``, ``rival`` the smallest
    hand of the other seats in the game."""
    sizes = [len(h) for h in hands] or [0]
    n = min(sizes)
    x = [float(n), float(n == 1), float(n == 2), 0.0, float(in_play), 0.0, float(moving), float(alive)]
    counts = [0.0] * len(RANKS)
    playable = assets = 0
    ranks, suits, top_rank, top_suits, wild = table.ranks, table.suits, table.top_rank, table.top_suits, table.wild_top
    eight = RANKS.index("8")
    for hand in hands:
        for c in hand:
            r = ranks[c]
            if r >= 0:
                counts[r] += 1
            if wild or r in (eight, top_rank) or not suits[c].isdisjoint(top_suits):
                playable += 1
            if c in table.assets:
                assets += 1
    x[3] = float(playable)
    x[5] = float(assets)
    small = n <= 3
    x += [float(playable == 0), float(counts[eight] > 0), float(small), float(playable * small)]
    can = float(playable > 0)
    inv = 1.0 / max(n, 1)
    x += [can, can * inv, can * (n > rival), can * (rival <= 2), can / max(rival, 1), playable * inv, inv,
          float(counts[eight] > 0) * inv]
    ids = [0.0] * CARD_IDS
    if table.index:
        for hand in hands:
            for c in hand:
                if table.index[c] >= 0:
                    ids[table.index[c]] += 1.0
    return x + counts + ids


def card_key(table: Table, card: int) -> tuple:
    """What a card adds to its holder's features besides the hand size: (rank index, playable on
    the current top, asset), and the card itself where it has a feature of its own. Two cards with
    the same key change the value the same way."""
    r = table.ranks[card]
    playable = (table.wild_top or r == RANKS.index("8") or r == table.top_rank
                or not table.suits[card].isdisjoint(table.top_suits))
    return r, playable, card in table.assets, table.index[card] if table.index else -1


def seat_features(game, hands: list[list[list[int]]] | None = None, table: Table | None = None) -> list[list[float]]:
    """Feature vectors of every seat of ``game``; ``hands`` replaces the seats' hands (a state
    with cards moved, for the chance corrections)."""
    table = table or table_of(game)
    hands = hands if hands is not None else seat_hands(game)
    moving = to_move(game)
    in_play = getattr(game, "in_play", None)
    rivals = rival_sizes(game, hands)
    return [
        features(table, hands[p], len(in_play[p]) if in_play is not None else 0, moving == p, game.alive[p],
                 rivals[p])
        for p in range(game.players)
    ]


def rival_sizes(game, hands: list[list[list[int]]]) -> list[int]:
    """Per seat: the smallest hand of the other seats still in the game (0 when there is none)."""
    sizes = [min((len(h) for h in seat), default=0) for seat in hands]
    return [min((sizes[q] for q in range(game.players) if q != p and game.alive[q]), default=0)
            for p in range(game.players)]


def outcome(placements: Sequence[int]) -> list[float]:
    """A seat's score in a finished game: the share of the other seats it placed above, a shared
    place counting a half (1, ½, 0 for two players; ``(k-place)/(k-1)`` without ties)."""
    k = len(placements)
    if k < 2:
        return [1.0] * k
    return [
        sum(1.0 if placements[p] < placements[q] else 0.5 if placements[p] == placements[q] else 0.0
            for q in range(k) if q != p) / (k - 1)
        for p in range(k)
    ]


@cache
def _coefficients() -> dict:
    return json.loads(resources.files("tourney.luck").joinpath("coefficients.json").read_text())


def weight_names() -> list[str]:
    """The names of the weights: every feature once per block (deal, small-hand and large-hand
    draws)."""
    return [f"{block}:{name}" for block in BLOCKS for name in FEATURES]


def fitted(rule_set: str, players: int) -> dict | None:
    """The fitted entry for ``rule_set`` at ``players`` seats, else for the nearest count fitted;
    None when the rule set has none."""
    table = _coefficients().get(rule_set, {})
    if not table:
        return None
    nearest = min((int(n) for n in table), key=lambda n: (abs(n - players), n))
    return table[str(nearest)]


def weights_for(rule_set: str, players: int) -> list[float]:
    """The weights for ``rule_set`` at ``players`` seats (:func:`fitted`); zeros, which adjust
    nothing, when the rule set has none."""
    entry = fitted(rule_set, players)
    names = weight_names()
    if entry is None:
        return [0.0] * len(names)
    return [float(entry["weights"].get(name, 0.0)) for name in names]


def on_by_default(rule_set: str, players: int) -> bool:
    """Whether standings and the SPRT use luck-adjusted scores unless told otherwise: only where
    bench/luck.py measured them to hold (games_ratio >= 2, bias_z <= 3) for exactly this rule
    set and player count (the ``default`` flag of coefficients.json)."""
    entry = _coefficients().get(rule_set, {}).get(str(players))
    return bool(entry and entry.get("default"))
