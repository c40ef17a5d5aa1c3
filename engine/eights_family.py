"""Shared machinery of the standard-deck rule sets: classic Crazy Eights and Super Crazy Eights.

Both games are played with the 52-card deck (two decks for big tables), match by suit or rank, have
wild eights with a named suit, draw-two twos, skips and reverses, and end a game (one deal) when a
hand is empty. They differ in a handful of switches, which each rule-set module sets on its game
class (see :class:`EightsGame`): what drawing does, which ranks skip or reverse, whether the stock
is rebuilt from the play pile, whether a deal may end on a two or a three, the "last card" call,
and the two-handed dummy form of Super Crazy Eights.

Everything here is plain data and small functions so that a turn costs microseconds: card
attributes are looked up in tuples indexed by card id, the cards that may be played on a top card
are precomputed sets, and option ids are precomputed strings. Views, labels and descriptions are
built only when asked for.

Nothing in this module belongs to Crazier Eights (rulings item 30): that rule set has its own
module and shares none of this code.

Card ids: ``deck * 52 + suit * 13 + (rank - 1)`` with suits clubs, diamonds, hearts, spades and
ranks 1 (ace) to 13 (king); a second deck adds ids 52-103.
"""

from __future__ import annotations

import copy
import functools
import random
from typing import Any, ClassVar, Final

from engine.common import (
    CAPPED,
    DECISION_CAP,
    Decision,
    IllegalOption,
    OptionsError,
    PositionError,
    Result,
    placements_from_scores,
    record_forfeit,
    rng_from_json,
    rng_to_json,
)
from engine.shuffling import shuffle

SUITS = ("clubs", "diamonds", "hearts", "spades")
SUIT_LETTERS = "CDHS"
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
MAX_CARDS = 104

#: card id -> rank (1 = ace ... 13 = king) and suit index (0 clubs ... 3 spades)
# (The tables are typed Final so that the compiled build, setup.py, reads them as C-level constants.)
RANK: Final[tuple[int, ...]] = tuple(c % 13 + 1 for c in range(MAX_CARDS))
SUIT: Final[tuple[int, ...]] = tuple((c % 52) // 13 for c in range(MAX_CARDS))
NAME: Final[tuple[str, ...]] = tuple(RANK_NAMES[RANK[c] - 1] + SUIT_LETTERS[SUIT[c]] for c in range(MAX_CARDS))
PLAY_IDS: Final[tuple[str, ...]] = tuple(f"play:{c}" for c in range(MAX_CARDS))
SUIT_IDS: Final[tuple[str, ...]] = tuple(f"suit:{s}" for s in SUITS)
_PARSE_ID: Final[dict[str, int]] = {PLAY_IDS[c]: c for c in range(MAX_CARDS)}
_SUIT_OF_ID: Final[dict[str, int]] = {SUIT_IDS[s]: s for s in range(4)}

#: cards playable on a top card of (suit, rank): same suit, same rank, or an eight (wild)
_MATCH = {
    (s, r): frozenset(c for c in range(MAX_CARDS) if SUIT[c] == s or RANK[c] == r or RANK[c] == 8)
    for s in range(4)
    for r in range(1, 14)
}
#: the same sets by top card id (one index instead of a tuple key built at every decision)
_MATCH_ON: Final[tuple[frozenset[int], ...]] = tuple(_MATCH[SUIT[c], RANK[c]] for c in range(MAX_CARDS))
#: cards playable after an eight that named suit s: that suit or another eight
_NAMED: Final[tuple[frozenset[int], ...]] = tuple(
    frozenset(c for c in range(MAX_CARDS) if SUIT[c] == s or RANK[c] == 8) for s in range(4)
)
_ANY: Final[frozenset[int]] = frozenset(range(MAX_CARDS))
_TWOS: Final[frozenset[int]] = frozenset(c for c in range(MAX_CARDS) if RANK[c] == 2)
_TWOS_EIGHTS: Final[frozenset[int]] = frozenset(c for c in range(MAX_CARDS) if RANK[c] in (2, 8))
_EIGHTS: Final[frozenset[int]] = frozenset(c for c in range(MAX_CARDS) if RANK[c] == 8)
_NONE: Final[frozenset[int]] = frozenset()

POSITIONS = ("south", "west", "north", "east")

#: the decision cap as a constant of this module: the compiled build reads it as a C integer instead
#: of looking the name up at every decision
_CAP: Final[int] = DECISION_CAP

_TURN_PROMPT: Final = "play a card, or draw (pass when nothing can be drawn)"
_SUIT_PROMPT: Final = "name the suit the next card must follow"
_CALL_PROMPT: Final = 'one card left: call "last card" now, or stay silent'


@functools.cache
def _plain_cards(n_cards: int, *special_ranks: int) -> frozenset[int]:
    """The cards of a deck of ``n_cards`` that are not eights and not of ``special_ranks`` (built
    once per rule configuration, not at every deal)."""
    special = {8, *special_ranks}
    return frozenset(c for c in range(n_cards) if RANK[c] not in special)


def parse_card(text) -> tuple[int, int]:
    """(suit index, rank) of a card written as ``"8H"``, ``"10d"``, ``"TD"``, ``"QS"``, ``"AC"``.

    The last character is the suit (C, D, H, S), the rest the rank (A, 2-10 or T, J, Q, K).

    >>> parse_card("8H"), parse_card("10d"), parse_card("TD"), parse_card("QS"), parse_card("AC")
    ((2, 8), (1, 10), (1, 10), (3, 12), (0, 1))
    """
    if not isinstance(text, str) or len(text) < 2:
        raise PositionError(f"bad card name {text!r} (write e.g. '8H', '10D', 'QS')")
    t = text.strip().upper()
    rank_text, suit_letter = t[:-1], t[-1]
    if rank_text == "T":
        rank_text = "10"
    if suit_letter not in SUIT_LETTERS or rank_text not in RANK_NAMES:
        raise PositionError(f"bad card name {text!r} (write e.g. '8H', '10D', 'QS')")
    return SUIT_LETTERS.index(suit_letter), RANK_NAMES.index(rank_text) + 1


def card_id(text, deck: int = 0) -> int:
    """The id of a card name in the given deck (0 or 1)."""
    suit, rank = parse_card(text)
    return deck * 52 + suit * 13 + rank - 1


def card_table(n_cards: int) -> dict:
    """card id -> {"name", "rank", "suits", "type"} for a deck of ``n_cards`` (52 or 104)."""
    return {
        c: {"name": NAME[c], "rank": RANK_NAMES[RANK[c] - 1], "suits": [SUITS[SUIT[c]]], "type": "card"}
        for c in range(n_cards)
    }


def card_value(card, values) -> int:
    """Value of one card given as an id or a name, from a rank -> value table."""
    if isinstance(card, str):
        return values[parse_card(card)[1]]
    return values[RANK[card]]


# ---------------------------------------------------------------------------------------------
# options


def check_options(rule_set: str, defaults: dict, options: dict | None) -> dict:
    """Defaults completed with ``options``; unknown names and wrong types are OptionsErrors.

    A value must have the type of its default (bool, int or str); ints are never bools.
    """
    options = dict(options or {})
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        known = ", ".join(sorted(defaults))
        raise OptionsError(f"unknown option(s) for {rule_set}: {', '.join(unknown)} (known: {known})")
    out = dict(defaults)
    for name, value in options.items():
        want = type(defaults[name])
        if want is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise OptionsError(f"{rule_set} option {name} must be an integer, not {value!r}")
        if want is not int and not isinstance(value, want):
            raise OptionsError(f"{rule_set} option {name} must be a {want.__name__}, not {value!r}")
        out[name] = value
    return out


def check_players(rule_set: str, players, low: int = 2, high: int = 10) -> None:
    if isinstance(players, bool) or not isinstance(players, int) or not low <= players <= high:
        raise OptionsError(f"{rule_set} is played by {low} to {high} players, not {players!r}")


# ---------------------------------------------------------------------------------------------
# the game


class EightsGame:
    """One deal of an eights game: a turn machine over *hands*.

    Usually every player has one hand (``controller[h] == h``). In the two-handed form of Super
    Crazy Eights there are four hands (south, west, north, east, in turn order) and each player
    controls a concealed hand and the exposed dummy across from it; the machine does not care.

    The rule-set modules subclass this and set the switches below; the hooks ``_goes_out``,
    ``_finish`` and ``_view_extra`` hold what does not fit a switch.

    State is plain data (see :meth:`to_dict`); ``pending`` is always derivable from it, which is
    what makes saving, loading and hand-written positions cheap.
    """

    # The state lives in slots. Python 3.11 keeps at most 30 attributes of an instance in its fast
    # layout; past that (this class has about 40) every attribute store and method call goes through
    # a dict, which made each decision measurably slower (docs/scale.md, engine speed). The rule
    # switches below stay class attributes that ``_configure`` may override in the instance dict.
    __slots__ = (
        "players", "seed", "options", "n_cards", "controller", "dummy_form", "dummy", "hands", "alive",
        "draw_pile", "discard", "named_suit", "wild", "direction", "turn", "dealer", "stack", "drawn",
        "passes", "fresh", "missed", "phase", "phase_hand", "rng", "events", "_private", "_seen",
        "choices", "result", "pending", "out_hand", "_plain_cards", "__dict__",
    )  # fmt: skip

    rule_set = ""
    #: rank that skips the next hand (0: none), rank that reverses (0: none), draw-two rank (0: none)
    skip_rank = 0
    reverse_rank = 0
    two_rank = 0
    #: a two may be answered with a two (the count grows by two each time)
    two_stacking = True
    #: an eight may be played on a pending draw-two (and cancels it)
    eight_on_two = False
    #: "until": draw until a playable card comes (classic); "one": draw one and lose the turn (Super)
    draw_mode = "one"
    #: cards a player may draw in one turn when draw_mode is "until" (0: no limit)
    draw_limit = 0
    #: an exhausted stock is rebuilt from the play pile (Super 10); otherwise the player passes
    reshuffle = False
    #: the "last card" call: a decision after playing the next-to-last card of a concealed hand
    last_card = False
    #: cards drawn at the start of the next turn after a missed call
    call_penalty = 1
    #: the missed-call draw is the whole turn (Super 5) rather than a prelude to it
    penalty_ends_turn = True
    #: values of ranks 1..13 for scoring (index 0 unused)
    values: tuple[int, ...] = ()
    #: the result's detail when nobody can play or draw
    blocked_detail = "nobody can play or draw"
    #: a deal can only end when the hand that played is empty (classic): _goes_out is asked only then
    out_when_empty = False

    # -- set-up -----------------------------------------------------------------------------

    def __init__(
        self, players: int, seed: Any, options: dict[str, Any], n_cards: int, controller: list[int], dummy: list[bool]
    ) -> None:
        """An empty deal (no card dealt yet) with the rule set's switches set from ``options``."""
        self.players = players
        self.seed = seed
        self.options = options
        self.n_cards = n_cards
        self.controller = controller
        #: the two-handed form: more hands than players (a plain attribute: read at every play)
        self.dummy_form = len(controller) != players
        self.dummy = dummy
        self.hands: list[list[int]] = [[] for _ in controller]
        self.alive = [True] * players
        self.draw_pile: list[int] = []  # top is the end of the list
        self.discard: list[int] = []  # bottom ... top
        self.named_suit: int | None = None
        self.wild = False  # the top card allows any card (a Super starter eight)
        self.direction = 1
        self.turn = 0
        self.dealer = 0
        self.stack = 0  # cards the hand to play must draw unless it covers a two
        self.drawn = 0  # cards drawn this turn
        self.passes = 0  # consecutive turns without a play or a draw
        self.fresh = True  # the turn's opening steps are still to be done
        self.missed = [False] * len(controller)
        self.phase = "turn"  # "turn", "suit", "call", "count" or "over"
        self.phase_hand = 0
        self.rng = random.Random(seed)
        self.events: list[dict] = []
        #: event index -> (player, cards) for cards only one player saw
        self._private: dict[int, tuple[int, list[int]]] = {}
        self._seen = [0] * players
        self.choices: list[str] = []
        self.result: Result | None = None
        self.pending: Decision | None = None
        self.out_hand: int | None = None  # for the two-handed scoring choice
        self._configure()
        self._plain_cards = self._plain_card_set()

    def _plain_card_set(self) -> frozenset[int]:
        """The cards whose play, from a hand that keeps a card or more, only passes the turn on:
        not an eight (a suit to name) nor a rank with an effect on the turn (see _effects). None
        in a rule set with a "last card" call, or where a deal can end while the hand that
        played keeps cards (Super's extended play): there every play takes the general path."""
        if not self.out_when_empty or self.last_card:
            return _NONE
        return _plain_cards(self.n_cards, self.two_rank, self.skip_rank, self.reverse_rank)

    # -- the contract -------------------------------------------------------------------------

    def apply(self, option_id: str) -> None:
        pending = self.pending
        if pending is None or option_id not in pending.options:
            raise IllegalOption(f"{option_id!r} is not an option of the pending decision")
        self._seen[pending.player] = len(self.events)
        choices = self.choices
        choices.append(option_id)
        if self.phase == "turn":  # most decisions: dispatched here, without a call to _answer
            card = _PARSE_ID.get(option_id)
            if card is not None:
                self._play(self.turn, card)
            else:
                if option_id == "draw":
                    self._draw_action(self.turn)
                else:
                    self._pass(self.turn)
                self._decide()
        else:
            self._answer(option_id)
        if len(choices) >= _CAP and self.pending is not None and self.phase != "count":
            self._finish(CAPPED)  # P18: every hand counts, as when the deal is blocked

    def _answer(self, option_id: str) -> None:
        """Answer a decision of the other phases: naming a suit, the last-card call, the count."""
        phase = self.phase
        h = self.phase_hand
        if phase == "suit":
            self.named_suit = _SUIT_OF_ID[option_id]
            self.events.append({"type": "suit", "player": self.controller[h], "suit": SUITS[self.named_suit]})
            self.phase = "turn"
            self._after_suit(h)
        elif phase == "call":
            if option_id == "last_card":
                self._event({"type": "last_card", "player": self.controller[h]})
            else:
                self.missed[h] = True
            self.phase = "turn"
            self._effects(h, self.discard[-1])
            self._decide()
        elif phase == "count":
            self._count_choice(option_id)

    def label(self, option_id: str) -> str:
        if self.pending is None or option_id not in self.pending.options:
            raise IllegalOption(f"{option_id!r} is not an option of the pending decision")
        if option_id in _PARSE_ID:
            c = _PARSE_ID[option_id]
            return f"play {NAME[c]}" + (f" from {POSITIONS[self.turn]}" if self.dummy_form else "")
        if option_id in _SUIT_OF_ID:
            return f"name {option_id[5:]}"
        if option_id == "draw":
            if self.stack:
                return f"draw {self.stack} cards"
            return "draw until you can play" if self.draw_mode == "until" else "draw a card"
        if option_id == "pass":
            return "pass"
        if option_id == "last_card":
            return 'call "last card"'
        if option_id == "silent":
            return "say nothing"
        if option_id == "count:all":
            return "count all three remaining hands"
        if option_id.startswith("count:"):
            return f"count only your {option_id[6:]} hand, nothing against the player who went out"
        return option_id

    def card_table(self) -> dict:
        return card_table(self.n_cards)

    def hand_players(self) -> list[int]:
        """The seat holding each hand (in the two-handed form a seat holds two: its own and a dummy)."""
        return list(self.controller)

    @property
    def in_play(self) -> list[list[int]]:
        """No card stays in play in these games: an empty list per seat (the engine contract)."""
        return [[] for _ in range(self.players)]

    def forfeit(self, player: int, reason: str = "") -> None:
        """``player`` leaves the deal and loses; its hands stay out of play (see docs/rulesets.md).
        Recorded in ``choices`` (see :func:`engine.common.record_forfeit`)."""
        if not record_forfeit(self, player, reason):
            return
        self.alive[player] = False
        self._event({"type": "forfeit", "player": player, "reason": reason})
        h = self.turn
        if sum(self.alive) <= 1 or self.phase == "count":
            self._finish("forfeit")
        elif self.controller[h] == player:
            if self.phase in ("suit", "call"):  # the card played still takes effect
                self.phase = "turn"
                self._effects(h, self.discard[-1])
            else:  # a draw-two waiting on this hand lapses with it
                self.stack = 0
                self._advance(1)
        self._decide()

    # -- the turn machine --------------------------------------------------------------------

    def _event(self, event: dict) -> None:
        self.events.append(event)

    def _playable(self) -> frozenset[int]:
        """The set of cards that may be played now."""
        if self.stack:
            if self.two_stacking:
                return _TWOS_EIGHTS if self.eight_on_two else _TWOS
            return _EIGHTS if self.eight_on_two else _NONE
        if self.wild:
            return _ANY
        if self.named_suit is not None:
            return _NAMED[self.named_suit]
        return _MATCH_ON[self.discard[-1]]

    def _can_draw(self) -> bool:
        if self.draw_pile:
            return not self.draw_limit or self.stack > 0 or self.drawn < self.draw_limit
        return self.reshuffle and len(self.discard) > 1

    def _decide(self) -> None:
        """Move on to the next real decision, doing forced steps (a draw or pass with no choice)."""
        while self.phase == "turn":  # otherwise a suit, a call or a count is pending, or it is over
            h = self.turn
            hand = self.hands[h]
            if self.fresh:
                self.fresh = False
                if not hand:
                    # Super 7: extended play came back to a hand that went out: it must draw.
                    self._penalty_draw(h, self.stack or 1, "empty hand")
                    continue
                if self.missed[h]:
                    self.missed[h] = False
                    self._event({"type": "missed_call", "player": self.controller[h]})
                    if self.penalty_ends_turn:
                        self._penalty_draw(h, self.stack or self.call_penalty, "missed last-card call")
                        continue
                    self._take(h, self.call_penalty, "missed last-card call")
                    self.drawn = 0
            if self.stack or self.wild or self.named_suit is not None:
                ok = self._playable()
            else:  # the common case, _playable() inline: match the top card
                ok = _MATCH_ON[self.discard[-1]]
            options = [PLAY_IDS[c] for c in hand if c in ok]
            # _can_draw() inline (asked at every decision)
            if self.draw_pile:
                can_draw = not self.draw_limit or self.stack > 0 or self.drawn < self.draw_limit
            else:
                can_draw = self.reshuffle and len(self.discard) > 1
            if not options:  # nothing to play: the draw, or else the pass, is forced
                if can_draw:
                    self._draw_action(h)
                else:
                    self._pass(h)
                continue
            if self.dummy_form and self.dummy[h]:
                if len(hand) == 1 and can_draw:
                    # Super 12: a dummy may not draw instead of playing a legal card, unless
                    # that card would make it go out
                    options.append("draw")
            elif can_draw:
                options.append("draw")
            else:
                options.append("pass")
            self.pending = Decision(self.controller[h], "turn", options, _TURN_PROMPT)
            return
        if self.result is not None:
            self.phase = "over"
            self.pending = None

    def _advance(self, steps: int) -> None:
        """The turn passes ``steps`` live hands on in the current direction."""
        n = len(self.hands)
        h = self.turn
        d = self.direction
        while steps:  # a hand whose player has left is passed over and not counted
            h = (h + d) % n
            if self.alive[self.controller[h]]:
                steps -= 1
        self.turn = h
        self.drawn = 0
        self.fresh = True

    def _take(self, h: int, n: int, why: str = "") -> list[int]:
        """Hand ``h`` draws up to ``n`` cards, one at a time, rebuilding the stock if allowed."""
        cards: list[int] = []
        pile = self.draw_pile
        for _ in range(n):
            if not pile:
                if not (self.reshuffle and len(self.discard) > 1):
                    break
                self._rebuild_stock()
                pile = self.draw_pile
            cards.append(pile.pop())
        self._record_draw(h, cards, why)
        return cards

    def _record_draw(self, h: int, cards: list[int], why: str = "") -> None:
        if cards:
            self.hands[h].extend(cards)
            self.drawn += len(cards)
            self.passes = 0
        player = self.controller[h]
        event: dict[str, Any] = {"type": "draw", "player": player, "count": len(cards)}
        if why:
            event["why"] = why
        if self.dummy_form:
            event["hand"] = POSITIONS[h]
            if self.dummy[h]:
                event["cards"] = cards  # a dummy is face up: everyone sees its cards
        if cards and not self.dummy[h]:
            self._private[len(self.events)] = (player, cards)
        self.events.append(event)

    def _rebuild_stock(self) -> None:
        """Super 10: the latest card played stays; the rest is shuffled to form a new stock."""
        top = self.discard.pop()
        pile = self.discard
        shuffle(self.rng, pile)
        self.draw_pile = pile
        self.discard = [top]
        self._event({"type": "reshuffle", "count": len(pile)})

    def _penalty_draw(self, h: int, n: int, why: str) -> None:
        """A draw that is the whole turn (draw-two penalty, Super's missed call, empty hand)."""
        got = self._take(h, n, why)
        self.stack = 0
        self._end_turn_without_play(bool(got))

    def _draw_action(self, h: int) -> None:
        if self.stack:
            self._penalty_draw(h, self.stack, "two")
        elif self.draw_mode == "until":
            ok = self._playable()
            pile = self.draw_pile
            # Cards come off the top (the end of the list) until a playable one, or the limit:
            # find where that run starts, then take it in one slice rather than a pop per card.
            end = len(pile)
            limit = self.draw_limit
            stop = min(end, max(0, end - (limit - self.drawn))) if limit else 0
            i = end - 1
            while i >= stop and pile[i] not in ok:
                i -= 1
            start = max(i, stop)  # i < stop: nothing playable before the limit or the bottom
            cards = pile[start:]
            del pile[start:]
            cards.reverse()  # the top card is drawn first
            self._record_draw(h, cards)
        else:
            self._penalty_draw(h, 1, "")

    def _pass(self, h: int) -> None:
        self._event({"type": "pass", "player": self.controller[h]})
        self.stack = 0
        self._end_turn_without_play(self.drawn > 0)

    def _end_turn_without_play(self, drew: bool) -> None:
        """A turn ends with a draw or a pass: a turn that drew nothing counts towards a blocked
        deal; then the rule set's hook, and the turn passes on."""
        if drew:
            self.passes = 0
        else:
            self.passes += 1
            if self._blocked():
                return
        self._after_draw()
        if self.result is None and self.phase == "turn":
            self._advance(1)

    def _blocked(self) -> bool:
        """Every live hand passed in a row without playing or drawing: the deal is blocked."""
        alive = self.alive
        live = sum([alive[p] for p in self.controller])  # hands whose player is still in
        if self.passes >= live:
            self._finish("blocked")
            return True
        return False

    def _after_draw(self) -> None:
        """Hook after a turn that ended without a play (a draw or a pass): a deal waiting on
        extended play ends now (Super 6-7); nothing happens in classic."""

    def _play(self, h: int, card: int) -> None:
        hand = self.hands[h]
        hand.remove(card)
        self.discard.append(card)
        self.named_suit = None
        self.wild = False
        self.passes = 0
        event: dict[str, Any] = {"type": "play", "player": self.controller[h], "card": card}
        if self.dummy_form:
            event["hand"] = POSITIONS[h]
        self.events.append(event)
        if hand and card in self._plain_cards:
            # The common play (see _plain_cards): the turn passes on, _advance(1) inline.
            n = len(self.hands)
            d = self.direction
            h = (h + d) % n
            while not self.alive[self.controller[h]]:
                h = (h + d) % n
            self.turn = h
            self.drawn = 0
            self.fresh = True
            self._decide()
            return
        if RANK[card] == 8:
            self.stack = 0  # only reachable on a two with eight_on_two: the eight answers it
        if self._goes_out(h, card):
            self._decide()
            return
        if RANK[card] == 8:
            self.phase = "suit"
            self.phase_hand = h
            self.pending = Decision(self.controller[h], "suit", list(SUIT_IDS), _SUIT_PROMPT)
            return
        self._after_suit(h)

    def _after_suit(self, h: int) -> None:
        if self.last_card and len(self.hands[h]) == 1 and not self.dummy[h]:
            self._call_decision(h)
            return
        self._effects(h, self.discard[-1])
        self._decide()

    def _call_decision(self, h: int) -> None:
        self.phase = "call"
        self.phase_hand = h
        self.pending = Decision(self.controller[h], "last_card", ["last_card", "silent"], _CALL_PROMPT)

    def _effects(self, h: int, card: int) -> None:
        """The played card's effect on the turn order, then the turn passes on."""
        rank = RANK[card]
        steps = 1
        if rank == self.two_rank:
            self.stack += 2
        elif rank == self.skip_rank:
            steps = 2
        elif rank == self.reverse_rank:
            self.direction = -self.direction
        self._advance(steps)

    # -- hooks of the rule sets ------------------------------------------------------------------

    def _goes_out(self, h: int, card: int) -> bool:
        """After a play: end the deal if it ends now (then return True)."""
        raise NotImplementedError

    def _finish(self, reason: str) -> None:
        """End the deal. Every hand's cards count against the seat holding it. ``"forfeit"``: the
        last seat left wins as if it had gone out. ``"blocked"`` (nobody can play or draw) and
        :data:`~engine.common.CAPPED` (P18): the lowest total wins. ``"out"``: the rule set's
        :meth:`_finish_out`."""
        players = self.players
        alive = self.alive
        points = [0] * players
        for h in range(len(self.hands)):
            points[self.controller[h]] += self._hand_points(h)
        if reason == "out":
            self._finish_out(points)
            return
        if reason == "forfeit":
            winners = [p for p in range(players) if alive[p]]
            for p in winners:
                points[p] = 0
            detail = "every other player forfeited"
        else:
            best = min(points[p] for p in range(players) if alive[p])
            winners = [p for p in range(players) if alive[p] and points[p] == best]
            detail = self.blocked_detail if reason == "blocked" else (
                f"the deal reached {DECISION_CAP} choices without going out: every hand counts"
            )
        self._set_result(points, winners, reason, detail)

    def _finish_out(self, points: list[int]) -> None:
        """A hand went out: the winners and the result (``points``: every hand counted)."""
        raise NotImplementedError

    def _count_choice(self, option_id: str) -> None:
        raise IllegalOption(option_id)

    def _view_extra(self, view: dict, player: int) -> None:
        pass

    # -- results ---------------------------------------------------------------------------------

    def _hand_points(self, h: int) -> int:
        values = self.values
        return sum(values[RANK[c]] for c in self.hands[h])

    def _set_result(self, points: list[int], winners: list[int], reason: str, detail: str = "") -> None:
        """Make the Result; a player who forfeited places below everyone who stayed and never
        scores better than the worst of them."""
        alive = self.alive
        stayed = [points[p] for p in range(self.players) if alive[p]]
        worst = max(stayed) if stayed else 0
        points = [points[p] if alive[p] else max(points[p], worst) for p in range(self.players)]
        offset = 1 + max(points) if points else 1
        keys = [points[p] + (0 if alive[p] else offset) for p in range(self.players)]
        self.result = Result(
            winners=sorted(p for p in winners if alive[p]),
            reason=reason,
            points=points,
            placements=placements_from_scores(keys),
            eliminated=[p for p in range(self.players) if not alive[p]],
            detail=detail,
        )
        self.phase = "over"
        self.pending = None
        self._event({"type": "end", "reason": reason, "points": points, "winners": self.result.winners})

    # -- views -----------------------------------------------------------------------------------

    def view(self, player: int) -> dict:
        if not 0 <= player < self.players:
            raise IllegalOption(f"no player {player}")
        own = [h for h in range(len(self.hands)) if self.controller[h] == player and not self.dummy[h]]
        events = []
        private = self._private
        start = self._seen[player]
        for i in range(start, len(self.events)):
            e = dict(self.events[i])
            secret = private.get(i)
            if secret is not None and secret[0] == player:
                e["cards"] = list(secret[1])
            events.append(e)
        pending = self.pending
        view = {
            "rule_set": self.rule_set,
            "player": player,
            "players": self.players,
            "active": pending.player if pending is not None else None,
            "decision": pending.kind if pending is not None else None,
            "hand": list(self.hands[own[0]]) if own else [],
            "hand_sizes": [
                sum(len(self.hands[h]) for h in range(len(self.hands)) if self.controller[h] == p and not self.dummy[h])
                for p in range(self.players)
            ],
            "draw_pile": len(self.draw_pile),
            "discard_pile": list(self.discard),
            "top": self.discard[-1] if self.discard else None,
            "named_suit": SUITS[self.named_suit] if self.named_suit is not None else None,
            "any_card": self.wild,
            "direction": "clockwise" if self.direction == 1 else "anticlockwise",
            "draw_stack": self.stack,
            "turn": self.controller[self.turn],
            "dealer": self.controller[self.dealer],
            "missed_call": [self.controller[h] for h in range(len(self.hands)) if self.missed[h]],
            "alive": list(self.alive),
            "options": dict(self.options),
            "events": events,
            "result": self.result.to_dict() if self.result is not None else None,
        }
        self._view_extra(view, player)
        return view

    def describe(self, event: dict) -> str:
        t = event.get("type")
        who = f"player {event['player']}" if "player" in event else ""
        where = f" ({event['hand']})" if "hand" in event else ""
        if t == "play":
            return f"{who}{where} plays {NAME[event['card']]}"
        if t == "draw":
            n = event["count"]
            why = f" ({event['why']})" if event.get("why") else ""
            cards = f": {' '.join(NAME[c] for c in event['cards'])}" if event.get("cards") else ""
            return f"{who}{where} draws {n} card{'s' if n != 1 else ''}{why}{cards}"
        if t == "suit":
            return f"{who} names {event['suit']}"
        if t == "pass":
            return f"{who} passes"
        if t == "last_card":
            return f'{who} calls "last card"'
        if t == "missed_call":
            return f'{who} pays for a missed "last card" call'
        if t == "reshuffle":
            return f"the play pile is shuffled into a new stock of {event['count']} cards"
        if t == "starter":
            return f"starter {NAME[event['card']]} turned up (dealer: player {event['dealer']})"
        if t == "bury":
            return f"starter {NAME[event['card']]} is buried in the draw pile"
        if t == "deal":
            return f"deal {event.get('deal', 1)}: {event['hand_size']} cards each"
        if t == "forfeit":
            return f"{who} forfeits ({event.get('reason') or 'no reason'})"
        if t == "count":
            return f"{who} chooses to count {event['choice']}"
        if t == "end":
            return f"deal over ({event['reason']}): points {event['points']}, winners {event['winners']}"
        return str(event)

    # -- saving and loading ----------------------------------------------------------------------

    _SAVED: ClassVar[tuple[str, ...]] = (
        "players", "seed", "options", "n_cards", "controller", "dummy", "hands", "alive",
        "draw_pile", "discard", "named_suit", "wild", "direction", "turn", "dealer", "stack",
        "drawn", "passes", "fresh", "missed", "phase", "phase_hand", "events", "choices", "out_hand",
    )  # fmt: skip

    def to_dict(self) -> dict:
        data: dict[str, Any] = {"rule_set": self.rule_set, "deck": [NAME[c] for c in range(self.n_cards)]}
        for key in self._SAVED:
            data[key] = copy.deepcopy(getattr(self, key))
        data["private"] = [[i, p, list(cards)] for i, (p, cards) in sorted(self._private.items())]
        data["seen"] = list(self._seen)
        data["rng"] = rng_to_json(self.rng)
        data["result"] = self.result.to_dict() if self.result is not None else None
        return data

    def clone(self) -> EightsGame:
        """An independent copy of this deal, equal to it, RNG included (for search and
        self-play): each attribute copied as deep as the game changes it in place (a logged
        event is never changed, so events are shared), several times faster than a pickle round
        trip (bench/engine_clone.py)."""
        cls = type(self)
        new = cls.__new__(cls)
        for name in _SHARED_SLOTS:
            setattr(new, name, getattr(self, name))
        new.hands = [list(h) for h in self.hands]
        new.alive = list(self.alive)
        new.draw_pile = list(self.draw_pile)
        new.discard = list(self.discard)
        new.missed = list(self.missed)
        new.events = list(self.events)
        new._private = dict(self._private)
        new._seen = list(self._seen)
        new.choices = list(self.choices)
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        new.rng = rng
        try:
            new.__dict__.update(self.__dict__)  # the switches _configure set from the options
        except AttributeError:  # the compiled build keeps them elsewhere
            new._configure()
        return new

    def __reduce__(self) -> tuple:
        # copy and pickle go through the saved form, so that both builds (the compiled one has no
        # instance dict for the default protocol to use, setup.py) copy a game alike
        return _from_saved, (type(self), self.to_dict())

    @classmethod
    def from_dict(cls, data: dict) -> EightsGame:
        try:
            game = cls(
                data["players"], data["seed"], data["options"], data["n_cards"], data["controller"], data["dummy"]
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise PositionError(f"not a saved game of the eights family: {exc}") from None
        try:
            for key in cls._SAVED:
                setattr(game, key, copy.deepcopy(data[key]))
            game._private = {i: (p, list(cards)) for i, p, cards in data["private"]}
            game._seen = list(data["seen"])
            game.rng = rng_from_json(data["rng"])
            game.result = Result.from_dict(data.get("result"))
        except (KeyError, TypeError, ValueError) as exc:
            # (game.rule_set: the compiled build has no class-level value of an instance attribute)
            raise PositionError(f"not a saved {game.rule_set} game: {exc}") from None
        game._restore_pending()
        return game

    def _restore_pending(self) -> None:
        phase = self.phase
        h = self.phase_hand
        if self.result is not None:
            self.phase = "over"
            self.pending = None
        elif phase == "suit":
            self.pending = Decision(self.controller[h], "suit", list(SUIT_IDS), _SUIT_PROMPT)
        elif phase == "call":
            self.pending = Decision(self.controller[h], "last_card", ["last_card", "silent"], _CALL_PROMPT)
        elif phase == "count":
            self._count_decision()
        else:
            self.phase = "turn"
            self._decide()

    def _count_decision(self) -> None:
        raise NotImplementedError

    def _configure(self) -> None:
        """Set the rule switches from ``self.options`` (each rule set)."""
        raise NotImplementedError

    # -- hand-written positions ----------------------------------------------------------------

    def _load_position(self, data: dict, hand_names: list[str]) -> None:
        """Fill the zones from a hand-written position (see docs/rulesets.md, "Positions")."""
        unused = list(range(self.n_cards))
        unused_set = set(unused)

        def take(name):
            if isinstance(name, int) and not isinstance(name, bool):
                if name not in unused_set:
                    raise PositionError(f"card id {name} is used twice or not in this deck")
                unused_set.discard(name)
                return name
            suit, rank = parse_card(name)
            for deck in range(self.n_cards // 52):
                c = deck * 52 + suit * 13 + rank - 1
                if c in unused_set:
                    unused_set.discard(c)
                    return c
            raise PositionError(f"no {name} left in the deck (each card exists once per deck)")

        hands = data.get("hands")
        if not isinstance(hands, list) or len(hands) != len(self.hands):
            raise PositionError(
                f"a position needs 'hands': a list of {len(self.hands)} lists of cards ({', '.join(hand_names)})"
            )
        self.hands = [[take(x) for x in hand] for hand in hands]
        discard = data.get("discard_pile") or []
        if not discard:
            raise PositionError("a position needs a 'discard_pile' with at least the top card")
        self.discard = [take(x) for x in discard]
        draw = data.get("draw_pile")
        listed_draw = [take(x) for x in draw] if draw is not None else []
        rest = [c for c in unused if c in unused_set]
        shuffle(self.rng, rest)
        where = data.get("rest", "draw_pile")
        if where == "draw_pile":
            self.draw_pile = rest + listed_draw[::-1]
        elif where == "discard_pile":
            self.draw_pile = listed_draw[::-1]
            self.discard = rest + self.discard
        else:
            raise PositionError("'rest' must be 'draw_pile' or 'discard_pile'")
        named = data.get("named_suit")
        if named is not None:
            if named not in SUITS:
                raise PositionError(f"named_suit must be one of {', '.join(SUITS)}")
            self.named_suit = SUITS.index(named)
        self.wild = bool(data.get("any_card", False))
        direction = data.get("direction", "clockwise")
        if direction not in ("clockwise", "anticlockwise", 1, -1):
            raise PositionError("direction must be 'clockwise' or 'anticlockwise'")
        self.direction = -1 if direction in ("anticlockwise", -1) else 1
        self.turn = self._position_hand(data.get("turn", 0), hand_names, "turn")
        self.dealer = self._position_hand(data.get("dealer", (self.turn - 1) % len(self.hands)), hand_names, "dealer")
        self.stack = int(data.get("draw_stack", 0))
        self.drawn = int(data.get("drawn", 0))
        missed = data.get("missed_call", [])
        for x in missed:
            self.missed[self._position_hand(x, hand_names, "missed_call")] = True
        self.fresh = bool(data.get("fresh", True))
        self.phase = "turn"
        self._event({"type": "position"})

    def _position_hand(self, x, hand_names, what) -> int:
        if isinstance(x, str) and x in hand_names:
            return hand_names.index(x)
        if isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(self.hands):
            return x
        raise PositionError(f"{what}: {x!r} is not a hand ({', '.join(hand_names)} or 0-{len(self.hands) - 1})")


#: what clone() shares: the set-up, values never changed in place, and the current decision
_SHARED_SLOTS: Final[tuple[str, ...]] = (
    "players", "seed", "options", "n_cards", "controller", "dummy_form", "dummy", "named_suit", "wild",
    "direction", "turn", "dealer", "stack", "drawn", "passes", "fresh", "phase", "phase_hand", "result",
    "pending", "out_hand", "_plain_cards",
)  # fmt: skip


def _from_saved(cls: type[EightsGame], data: dict) -> EightsGame:
    return cls.from_dict(data)


def position_options(data, validate_options) -> tuple[int, dict]:
    """The players and the completed options of a hand-written position (``validate_options`` is
    the rule set's); anything wrong is a PositionError."""
    if not isinstance(data, dict):
        raise PositionError("a saved game or position must be a JSON object")
    players = data.get("players", len(data.get("hands") or []))
    try:
        return players, validate_options(data.get("options") or {}, players)
    except OptionsError as exc:
        raise PositionError(str(exc)) from None


def dealer_seat(game: EightsGame, first_player) -> int:
    """The seat that deals: the one before ``first_player`` (who sits to the dealer's left and
    plays first), or drawn from the game's RNG when ``first_player`` is None."""
    players = game.players
    if first_player is None:
        return game.rng.randrange(players)
    if isinstance(first_player, int) and not isinstance(first_player, bool) and 0 <= first_player < players:
        return (first_player - 1) % players
    raise OptionsError(f"first_player must be a seat 0-{players - 1}, not {first_player!r}")


def deal_cards(game: EightsGame, hand_size: int, first_hand: int) -> None:
    """Shuffle the whole deck and deal ``hand_size`` cards to each hand, one at a time, starting
    with ``first_hand`` and going round in turn order; the rest is the stock."""
    deck = list(range(game.n_cards))
    shuffle(game.rng, deck)
    n = len(game.hands)
    # One card at a time from the top (the end of the list): the k-th hand from first_hand gets
    # the dealt cards k, k + n, k + 2n, ...; taken as slices rather than a pop per card.
    rest = len(deck) - hand_size * n
    dealt = deck[rest:]
    dealt.reverse()
    del deck[rest:]
    for k in range(n):
        game.hands[(first_hand + k) % n].extend(dealt[k::n])
    game.draw_pile = deck
