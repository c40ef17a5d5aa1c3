"""Classic Crazy Eights (source document 003), one deal per game.

The base game: a 52-card deck (two above five players), five cards each, a starter turned up (an
eight is buried in the middle of the draw pile and replaced), match by suit or rank, eights wild
with a named suit; a player who cannot or will not play draws until able to play or until the draw
pile is empty, then passes. The deal ends when a hand is empty; the others score the value of their
cards (eight 50, K Q J 10 ten, ace one, others face value).

The document's variants are options, all off unless the document's own text makes them part of a
variant it describes (``two_stacking``, ``special_starter``, ``ignore_last_special`` describe the
"Two = draw cards" card and the special-card paragraphs, so they default to the text). A run of
deals to a target score is a *series* run by the tournament layer, which the module-level helpers
:func:`deal_scores`, :func:`series_over` and :func:`series_winner` support. See docs/rulesets.md.
"""

from __future__ import annotations

from typing import Final

from engine.common import OptionsError, Result
from engine.eights_family import (
    RANK,
    EightsGame,
    card_value,
    check_options,
    check_players,
    deal_cards,
    dealer_seat,
    position_options,
)

RULE_SET: Final = "crazy-eights"

OPTIONS = {
    "decks": 0,  # 0: one deck up to five players, two decks above five
    "hand_size": 0,  # 0: five cards (seven with two players when two_player_seven)
    "two_player_seven": False,  # variant "Larger 2-player Starting Hands"
    "draw_limit": 0,  # 0: draw until able to play; variant "Draw Limit": 5 (or 3)
    "last_card": False,  # variant "Last Card Warning"
    "last_card_penalty": 2,  # cards drawn at the next turn after a missed call (our reading)
    "special_cards": False,  # shorthand: queen_skip, ace_reverse and two_draw together
    "queen_skip": False,
    "ace_reverse": False,
    "two_draw": False,
    "two_stacking": True,  # a two may be answered with a two; two cards per two in the run
    "eight_on_two": False,  # "An Eight may not be played in this situation"
    "special_starter": True,  # a special starter is treated as played by the dealer
    "ignore_last_special": True,  # "If the last card played in a hand is a special card, ignore"
    "scoring": "low",  # "low": lowest total wins; "high": variant "High Score Wins"
    "series": "single",  # "single": one hand; "target": play to the target score
    "target": 100,
}

#: card value by rank (index 1 = ace ... 13 = king)
VALUES: Final[tuple[int, ...]] = (0, 1, 2, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10)


def card_points(card) -> int:
    """Scoring value of a card (an id or a name such as ``"8H"``): eight 50, K Q J 10 ten,
    ace one, others face value."""
    return card_value(card, VALUES)


#: players -> the default options, checked (every seeded default game asks for them)
_CHECKED_DEFAULTS: dict = {}


def validate_options(options: dict | None, players: int | None = None) -> dict:
    """The options completed with defaults; an OptionsError names what is wrong."""
    cache = not options and (players is None or type(players) is int)
    if cache and players in _CHECKED_DEFAULTS:
        return dict(_CHECKED_DEFAULTS[players])
    opts = check_options(RULE_SET, OPTIONS, options)
    if opts["special_cards"]:
        # The group switch turns on the three special cards that are not set one by one: an
        # explicit {"queen_skip": false} keeps the queen plain.
        for name in ("queen_skip", "ace_reverse", "two_draw"):
            if name not in (options or {}):
                opts[name] = True
    if opts["scoring"] not in ("low", "high"):
        raise OptionsError("crazy-eights option scoring must be 'low' or 'high'")
    if opts["series"] not in ("single", "target"):
        raise OptionsError("crazy-eights option series must be 'single' or 'target'")
    for name in ("target", "draw_limit", "last_card_penalty", "hand_size"):
        if opts[name] < (1 if name == "target" else 0):
            raise OptionsError(f"crazy-eights option {name} is too small: {opts[name]}")
    if opts["decks"] not in (0, 1, 2):
        raise OptionsError("crazy-eights option decks must be 0 (automatic), 1 or 2")
    if players is not None:
        check_players(RULE_SET, players)
        decks = _decks(opts, players)
        room = 52 * decks - 4 * decks - 1  # the starter must be able to be a non-eight
        if players * _hand_size(opts, players) > room:
            raise OptionsError(
                f"crazy-eights: {players} hands of {_hand_size(opts, players)} cards do not fit "
                f"{decks} deck(s)"
            )
    if cache:
        _CHECKED_DEFAULTS[players] = dict(opts)
    return opts


def _decks(opts, players) -> int:
    return opts["decks"] or (2 if players > 5 else 1)


def _hand_size(opts, players) -> int:
    if opts["hand_size"]:
        return opts["hand_size"]
    return 7 if players == 2 and opts["two_player_seven"] else 5


class CrazyEightsGame(EightsGame):
    """One deal of classic Crazy Eights."""

    rule_set = RULE_SET
    draw_mode = "until"
    reshuffle = False  # 003: "If the draw pile runs out of cards or is empty, the player must pass"
    penalty_ends_turn = False
    out_when_empty = True
    values = VALUES

    def _configure(self) -> None:
        o = self.options
        self.skip_rank = 12 if o["queen_skip"] else 0
        self.reverse_rank = 1 if o["ace_reverse"] else 0
        self.two_rank = 2 if o["two_draw"] else 0
        self.two_stacking = o["two_stacking"]
        self.eight_on_two = o["eight_on_two"]
        self.draw_limit = o["draw_limit"]
        self.last_card = o["last_card"]
        self.call_penalty = o["last_card_penalty"]

    def _goes_out(self, h: int, card: int) -> bool:
        if self.hands[h]:
            return False
        if RANK[card] == self.two_rank and not self.options["ignore_last_special"]:
            # The last card's effect is not ignored: the next player draws the two's penalty.
            self.stack += 2
            self._advance(1)
            self._take(self.turn, self.stack, "two")
            self.stack = 0
        self._finish("out")
        return True

    blocked_detail = "nobody can play or draw: the lowest hand wins"

    def _finish_out(self, points: list[int]) -> None:
        alive = self.alive
        winners = [p for p in range(self.players) if alive[p] and not self.hands[p]]
        self._set_result(points, winners, "out", f"player {winners[0]} went out" if winners else "")


def new_game(players: int = 2, seed: int = 0, options: dict | None = None, first_player=None, teams=None):
    """Shuffle, deal and turn the starter. ``first_player`` is the player to the dealer's left
    (None: the dealer is drawn from the seed)."""
    opts = validate_options(options or {}, players)
    if teams:
        raise OptionsError("crazy-eights has no teams")
    game = CrazyEightsGame(players, seed, opts, 52 * _decks(opts, players), list(range(players)), [False] * players)
    dealer = dealer_seat(game, first_player)
    game.dealer = dealer
    size = _hand_size(opts, players)
    deal_cards(game, size, (dealer + 1) % players)
    game._event({"type": "deal", "hand_size": size, "dealer": dealer})
    pile = game.draw_pile
    starter = pile.pop()
    while RANK[starter] == 8:
        # 003: "If this card happens to be an 8, bury it in the middle of the draw pile and then
        # draw a new card to begin the discard pile."
        pile.insert(len(pile) // 2, starter)
        game._event({"type": "bury", "card": starter})
        if all(RANK[c] == 8 for c in pile[len(pile) // 2 :]):
            # Only eights above the middle (a tiny stock): take the topmost other card instead,
            # or burying would go round for ever.
            i = max(i for i, c in enumerate(pile) if RANK[c] != 8)
            starter = pile.pop(i)
        else:
            starter = pile.pop()
    game.discard.append(starter)
    game._event({"type": "starter", "card": starter, "dealer": dealer})
    game.turn = dealer
    if opts["special_starter"]:
        game._effects(dealer, starter)  # "treat it as though the dealer played it"
    else:
        game._advance(1)
    game._decide()
    return game


def load(data: dict):
    """A game from ``to_dict()`` output, or from a hand-written position (``"position": true``;
    see docs/rulesets.md)."""
    if isinstance(data, dict) and "rng" in data:
        return CrazyEightsGame.from_dict(data)
    players, opts = position_options(data, validate_options)
    game = CrazyEightsGame(
        players, data.get("seed", 0), opts, 52 * _decks(opts, players), list(range(players)), [False] * players
    )
    game._load_position(data, [])
    game._decide()
    return game


# -- series helpers for the tournament layer ------------------------------------------------------


def deal_scores(result, options: dict | None = None) -> list[int]:
    """What one deal adds to each player's series total.

    ``result`` is a game's :class:`Result` (or its dict). With ``scoring = "low"`` that is
    ``result.points`` (the cards left in hand; the player who went out scores 0). With
    ``scoring = "high"`` (003 "High Score Wins") the player who went out collects the points left in
    all other hands and everybody else scores 0; a blocked deal scores nothing.
    """
    opts = validate_options(options or {})
    r = Result.from_dict(result) if isinstance(result, dict) else result
    if r is None:
        raise ValueError("deal_scores needs the result of a finished deal")
    if opts["scoring"] == "low":
        return list(r.points)
    scores = [0] * len(r.points)
    if r.reason != "blocked" and len(r.winners) == 1:
        w = r.winners[0]
        scores[w] = sum(r.points[p] for p in range(len(r.points)) if p != w)
    return scores


def series_over(totals: list[int], options: dict | None = None, deals_played: int = 0) -> bool:
    """Whether a series ends with these totals (sums of :func:`deal_scores`).

    ``series = "single"``: after one deal. ``series = "target"``: once a total reaches the target
    (100 by default): 003 "the game ends when one player reaches a score of 100 points or more", and
    in the high-score variant "the player who first obtains a combined score of 100 or more".
    """
    opts = validate_options(options or {})
    if opts["series"] == "single":
        return deals_played >= 1
    return any(t >= opts["target"] for t in totals)


def series_winner(totals: list[int], options: dict | None = None) -> list[int]:
    """The winners of a finished series (ties share): the lowest total, or with ``scoring =
    "high"`` the highest. 003's example: totals 112, 51, 64, 72 -> ``[1]``."""
    opts = validate_options(options or {})
    best = max(totals) if opts["scoring"] == "high" else min(totals)
    return [p for p, t in enumerate(totals) if t == best]


def first_player_for_deal(deal: int, first_dealer: int, players: int) -> int:
    """003: "After each hand, the player to the left of the current dealer will become the new
    dealer." The first player of deal ``deal`` (1, 2, ...) when ``first_dealer`` dealt deal 1."""
    return (first_dealer + deal) % players
