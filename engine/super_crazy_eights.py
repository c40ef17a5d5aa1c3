"""Super Crazy Eights (source document 002), one deal per game.

The multi-player game: eights wild (the player names a suit), twos make the next hand draw two
unless it covers with a two (the count grows by two per two), threes skip, aces reverse, a player
who cannot play draws one card and loses the turn (and may draw instead of playing), a
"last card" call after playing the next-to-last card (a decision, so a bot can forget it; the
penalty is one card drawn as the next turn), a deal may not end on a two or a three, and the play
pile is shuffled into a new stock when the stock runs out. Cards left in hand score: two 20,
eight 50, faces 10, others their spot value.

A whole game of fifteen deals (eight cards down to one and back up to eight) is a *series* run by
the tournament layer: the option ``deal`` (1-15) says which deal this is, and the helpers
:func:`deal_hand_size`, :func:`series_over`, :func:`series_winner` and
:func:`first_player_for_deal` tell the tournament layer what it needs.

With two players (and ``dummies`` on, the default) this is the two-handed form: four hands
south, west, north, east in turn order; one player sits south and controls the north dummy, the
other sits west and controls the east dummy; dummies are face up, may not draw while they hold a
legal play (unless that would make them go out), make no call, and the scoring after a concealed
hand goes out is the opponent's choice. The players exchange seats after each pair of deals.
See docs/rulesets.md.
"""

from __future__ import annotations

from typing import Final

from engine.common import Decision, OptionsError, PositionError
from engine.eights_family import (
    POSITIONS,
    RANK,
    EightsGame,
    card_value,
    check_options,
    check_players,
    deal_cards,
    dealer_seat,
    position_options,
)

RULE_SET: Final = "super-crazy-eights"

DEALS = 15

OPTIONS = {
    "deal": 1,  # which of the fifteen deals this is (sets the hand size and the seats)
    "hand_size": 0,  # 0: from the deal (8, 7, ..., 1, ..., 8)
    "decks": 0,  # 0: one deck, two decks for five or more players
    "dummies": True,  # two players play the two-handed form with dummy hands
}

#: card value by rank (index 1 = ace ... 13 = king): two 20, eight 50, faces 10, others spot value
VALUES: Final[tuple[int, ...]] = (0, 1, 20, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10)


def card_points(card) -> int:
    """Scoring value of a card (an id or a name such as ``"2S"``)."""
    return card_value(card, VALUES)


def deal_hand_size(deal: int) -> int:
    """Cards per hand in deal 1-15: "beginning with each player receiving eight cards, reducing by
    one each deal to one card per hand, then increasing by one card each deal until each receives
    eight cards again" (002 rule 1): 8, 7, ..., 2, 1, 2, ..., 8."""
    if isinstance(deal, bool) or not isinstance(deal, int) or not 1 <= deal <= DEALS:
        raise OptionsError(f"super-crazy-eights deal must be 1-{DEALS}, not {deal!r}")
    return abs(8 - deal) + 1


def validate_options(options: dict | None, players: int | None = None) -> dict:
    opts = check_options(RULE_SET, OPTIONS, options)
    deal_hand_size(opts["deal"])
    if opts["hand_size"] < 0:
        raise OptionsError("super-crazy-eights option hand_size must be 0 (from the deal) or more")
    if opts["decks"] not in (0, 1, 2):
        raise OptionsError("super-crazy-eights option decks must be 0 (automatic), 1 or 2")
    if players is not None:
        check_players(RULE_SET, players)
        hands = 4 if _dummy_form(opts, players) else players
        size = _hand_size(opts)
        if hands * size + 1 > 52 * _decks(opts, players):
            raise OptionsError(
                f"super-crazy-eights: {hands} hands of {size} cards do not fit "
                f"{_decks(opts, players)} deck(s)"
            )
    return opts


def _dummy_form(opts, players) -> bool:
    return players == 2 and opts["dummies"]


def _decks(opts, players) -> int:
    return opts["decks"] or (2 if players >= 5 else 1)


def _hand_size(opts) -> int:
    return opts["hand_size"] or deal_hand_size(opts["deal"])


def south_player(deal: int) -> int:
    """The player sitting south in the two-handed form: "After each pair of deals, players
    exchange positions" (002 rule 11): player 0 in deals 1-2, player 1 in deals 3-4, ..."""
    return ((deal - 1) // 2) % 2


class SuperCrazyEightsGame(EightsGame):
    """One deal of Super Crazy Eights (the multi-player game or the two-handed form)."""

    rule_set = RULE_SET
    skip_rank = 3
    reverse_rank = 1
    two_rank = 2
    two_stacking = True
    eight_on_two = False
    draw_mode = "one"
    reshuffle = True
    last_card = True
    call_penalty = 1
    penalty_ends_turn = True
    values = VALUES

    def _configure(self) -> None:
        pass  # every switch is fixed by the document

    def _someone_out(self) -> bool:
        if all(self.hands):  # asked after every play and draw: usually no hand is empty
            return False
        alive = self.alive
        controller = self.controller
        return any(not hand and alive[controller[h]] for h, hand in enumerate(self.hands))

    def _goes_out(self, h: int, card: int) -> bool:
        # 002 (6)-(7): "A deal may not end with a 2" / "with a 3": play goes on until covered.
        if RANK[card] == 2 or RANK[card] == 3:
            return False
        if self._someone_out():
            self._finish("out")
            return True
        return False

    def _after_draw(self) -> None:
        # A two or three that ended a hand was answered by a draw: the deal ends now.
        if self._someone_out():
            self._finish("out")

    blocked_detail = "nobody can play or draw: every hand counts"

    def _finish_out(self, points: list[int]) -> None:
        alive = self.alive
        empty = [h for h in range(len(self.hands)) if not self.hands[h] and alive[self.controller[h]]]
        if self.dummy_form and len(empty) == 1 and not self.dummy[empty[0]]:
            # 002 (13): a concealed hand went out: the opponent chooses what counts.
            self.out_hand = empty[0]
            self.phase = "count"
            self._count_decision()
            return
        if self.dummy_form:
            live = [p for p in range(self.players) if alive[p]]
            best = min(points[p] for p in live)
            winners = [p for p in live if points[p] == best]
        else:
            winners = sorted({self.controller[h] for h in empty})
        self._set_result(points, winners, "out", "out: " + ", ".join(self._hand_name(h) for h in empty))

    def _hand_name(self, h: int) -> str:
        return POSITIONS[h] if self.dummy_form else f"player {h}"

    def _count_decision(self) -> None:
        out = self.out_hand
        assert out is not None, "the count decision follows a concealed hand going out"
        chooser = 1 - self.controller[out]
        own = [h for h in range(4) if self.controller[h] == chooser]
        options = ["count:all"] + [f"count:{POSITIONS[h]}" for h in own]
        self.pending = Decision(
            chooser, "score", options, "a concealed hand went out: choose what counts against you"
        )

    def _count_choice(self, option_id: str) -> None:
        out = self.out_hand
        assert out is not None, "the count decision follows a concealed hand going out"
        chooser = 1 - self.controller[out]
        choice = option_id[6:]
        self._event({"type": "count", "player": chooser, "choice": choice})
        points = [0, 0]
        if choice == "all":
            for h in range(4):
                points[self.controller[h]] += self._hand_points(h)
        else:
            points[chooser] = self._hand_points(POSITIONS.index(choice))
        best = min(points)
        winners = [p for p in range(2) if points[p] == best]
        self.phase = "turn"
        self._set_result(points, winners, "out", f"out: {POSITIONS[out]}; counted: {choice}")

    def _view_extra(self, view: dict, player: int) -> None:
        view["deal"] = self.options["deal"]
        if not self.dummy_form:
            return
        hands = []
        for h in range(4):
            entry = {
                "position": POSITIONS[h],
                "player": self.controller[h],
                "dummy": self.dummy[h],
                "size": len(self.hands[h]),
            }
            if self.dummy[h] or self.controller[h] == player:
                entry["cards"] = list(self.hands[h])
            hands.append(entry)
        view["hands"] = hands
        view["dummies"] = {POSITIONS[h]: list(self.hands[h]) for h in (2, 3)}
        view["position"] = POSITIONS[self.controller.index(player)]
        view["dummy_position"] = POSITIONS[2 + self.controller.index(player)]
        view["turn_hand"] = POSITIONS[self.turn]
        view["dealer_hand"] = POSITIONS[self.dealer]
        view["missed_call"] = [POSITIONS[h] for h in range(4) if self.missed[h]]


def _layout(opts, players, south=None):
    """(controller, dummy) per hand: every player one hand, or the four hands of the two-handed
    form in turn order south, west, north, east."""
    if not _dummy_form(opts, players):
        return list(range(players)), [False] * players
    s = south_player(opts["deal"]) if south is None else south
    return [s, 1 - s, s, 1 - s], [False, False, True, True]


def new_game(players: int = 2, seed: int = 0, options: dict | None = None, first_player=None, teams=None):
    """Shuffle, deal and turn the starter. ``first_player`` is the player whose hand is to the
    dealer's left (None: the dealer is drawn from the seed)."""
    opts = validate_options(options or {}, players)
    if teams:
        raise OptionsError("super-crazy-eights has no teams")
    controller, dummy = _layout(opts, players)
    game = SuperCrazyEightsGame(players, seed, opts, 52 * _decks(opts, players), controller, dummy)
    dealer = dealer_seat(game, first_player)
    hand = controller.index(dealer)  # the dealer's concealed hand
    game.dealer = hand
    size = _hand_size(opts)
    deal_cards(game, size, (hand + 1) % len(controller))
    game._event({"type": "deal", "deal": opts["deal"], "hand_size": size, "dealer": dealer})
    starter = game.draw_pile.pop()
    game.discard.append(starter)
    game._event({"type": "starter", "card": starter, "dealer": dealer})
    _start(game, starter)
    game._decide()
    return game


def _start(game: SuperCrazyEightsGame, starter: int) -> None:
    """002 (2): "the face-up card is treated as a card played by the dealer": an ace reverses
    (the hand to the dealer's right begins), a two makes the next hand draw two or play a two, a
    three skips the hand to the dealer's left, an eight lets the next hand play any card."""
    game.turn = game.dealer
    if RANK[starter] == 8:
        game.wild = True
        game._advance(1)
    else:
        game._effects(game.dealer, starter)


def load(data: dict):
    """A game from ``to_dict()`` output, or from a hand-written position (see docs/rulesets.md)."""
    if isinstance(data, dict) and "rng" in data:
        return SuperCrazyEightsGame.from_dict(data)
    players, opts = position_options(data, validate_options)
    south = data.get("south")
    if south not in (None, 0, 1):
        raise PositionError("south must be the player (0 or 1) sitting south")
    controller, dummy = _layout(opts, players, south)
    game = SuperCrazyEightsGame(players, data.get("seed", 0), opts, 52 * _decks(opts, players), controller, dummy)
    game._load_position(data, list(POSITIONS) if len(controller) == 4 and players == 2 else [])
    game._decide()
    return game


# -- series helpers for the tournament layer ------------------------------------------------------


def options_for_deal(options: dict | None, deal: int) -> dict:
    """The options of deal ``deal`` (1-15) of a series, from the series' options."""
    deal_hand_size(deal)
    return {**(options or {}), "deal": deal}


def series_over(totals: list[int], options: dict | None = None, deals_played: int = 0) -> bool:
    """002 (9): a game is fifteen deals."""
    return deals_played >= DEALS


def series_winner(totals: list[int], options: dict | None = None) -> list[int]:
    """002 (9): "The winner is the player with the lowest score after 15 deals" (ties share)."""
    best = min(totals)
    return [p for p, t in enumerate(totals) if t == best]


def first_player_for_deal(deal: int, first_dealer: int, players: int) -> int:
    """The player to the dealer's left in deal ``deal`` (1-15) when the deal passes to the left
    each time and ``first_dealer`` dealt deal 1. In the two-handed form the players simply
    alternate dealing."""
    return (first_dealer + deal) % players
