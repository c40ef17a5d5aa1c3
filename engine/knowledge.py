"""What a seat knows of where the unseen cards went, from its history: the walk behind facts 4 to
6 of :mod:`engine.sampling` (which reshuffle a card came from and where those cards are, a card
seen on the draw pile and drawn since, a card given by Trade).

The walk reads a seat's information state only (``engine.sampling.information``): its view now
and the events it has been shown, in order. Of the Crazier Eights effect events it reads the
fields that say what moved where (``at``, ``from``, ``to``, ``on_top``, ``on_bottom``, ``count``,
``shuffled``, ``with``, ``hand_of``: docs/protocol.md, "Crazier Eights effect events"), never
their ``text``, which is for people and may be reworded.
"""

from __future__ import annotations

#: event fields that name cards (mapped when a world relabels a game's hidden cards)
CARD_FIELDS = ("card", "cards", "gave", "took", "take", "give", "holding")

#: what the seat knows of one place (a card of the draw pile, or a card of a hidden hand) in the
#: walk over its history: ``BASE`` nothing; ``k >= 1`` the place holds one of the cards of the
#: k-th reshuffle not seen since; and, for draw-pile places only, ``("card", c)`` card ``c``;
#: ``OWN`` a card the seat put there itself (the view says which while it stays); ``("pool", h)``
#: a card hand ``h`` put back, of one of the kinds that hand holds (its *pool*: the hand and its
#: put-back cards hold ``hands[h]`` of each reshuffle between them)
BASE = 0
OWN = "own"

_POSITIONS = ("south", "west", "north", "east")  # the hands of the two-handed eights family


def _named(event: dict) -> list[int]:
    """The card ids an event names (``"card"`` is a card's name in a Crazier Eights effect)."""
    out: list[int] = []
    for key in CARD_FIELDS:
        value = event.get(key)
        if isinstance(value, list):
            out.extend(c for c in value if isinstance(c, int))
        elif isinstance(value, int) and not isinstance(value, bool):
            out.append(value)
    return out


class Walk:
    """The seat's knowledge of where the unseen cards went, gathered by walking its history from
    the first event to now (facts 4 to 6 of the module docstring).

    The draw pile is a list of places, bottom first, each labelled as ``BASE`` is described; a
    hidden hand is a count of its places per reshuffle. A card put where the walk cannot follow
    it (a trade between two others, Revolution, a shuffled draw pile) *merges*: its kind of card
    and place become ``BASE``, nothing known, which only widens the worlds. An event the walk
    cannot square with what it knows sets ``ok`` false: the caller then uses none of the walk's
    draw-pile facts."""

    def __init__(self, info: dict, pile_size: int):
        self.seat = info["player"]
        self.crazier = info["rule_set"] == "crazier-eights"
        self.pile: list = [BASE] * pile_size
        self.label: dict[int, int] = {}  # unseen card -> the reshuffle it came from
        self.hands: dict[int, dict[int, int]] = {}  # hand -> reshuffle -> places
        self.held: dict[int, tuple[int, bool]] = {}  # card -> (hand, known from the draw pile)
        self.ok = True
        self.reshuffles = 0
        self.drawn: list = []  # the places the seat's last draw took (Crazier: "drew" follows)
        self.play_pile: set[int] = set()  # the eights family: the cards a rebuild would take
        self.top: int | None = None
        self.losing: int | None = None
        history = info["history"]
        for i, event in enumerate(history):
            follows = history[i + 1] if i + 1 < len(history) else {}
            named = _named(event)
            for c in named:  # named again: where it is now is the view's business
                self.held.pop(c, None)
            if self.crazier:
                self._crazier(event, follows)
            else:
                self._eights(event)
            if event.get("type") != "reshuffle":
                for c in named:
                    if c in self.label:  # shown, but from a place the walk did not follow
                        self.merge(self.label[c])
            if event.get("type") not in ("lose", "bottom"):
                self.losing = None

    # -- the moves ----------------------------------------------------------------------------
    def fail(self) -> None:
        self.ok = False

    def pop(self, n: int) -> list:
        """The top ``n`` places of the draw pile, top first."""
        if n > len(self.pile):
            self.fail()
            n = len(self.pile)
        taken = self.pile[len(self.pile) - n:][::-1]
        del self.pile[len(self.pile) - n:]
        return taken

    def may_hold(self, place, card: int) -> bool:
        """Whether the draw-pile place ``place`` may hold ``card``."""
        k = self.label.get(card, BASE)
        if isinstance(place, tuple) and place[0] == "pool":
            return k == BASE or self.hands.get(place[1], {}).get(k, 0) > 0
        return place == ("card", card) or place == k or (place == OWN and k == BASE)

    def shown(self, place, card: int) -> None:
        """``card`` came from the draw-pile place ``place``, face up."""
        if not self.may_hold(place, card):
            self.fail()
        k = self.label.pop(card, BASE)
        if isinstance(place, tuple) and place[0] == "pool" and k != BASE:
            counts = self.hands.get(place[1], {})
            if counts.get(k, 0) > 0:
                counts[k] -= 1  # the pool of that hand holds one card of that kind fewer

    def give(self, h: int, place) -> None:
        """Hand ``h`` (another's, hidden) drew the card of ``place``."""
        if place == ("pool", h):
            return  # a card it put back itself: back in the same pool
        if isinstance(place, tuple) and place[0] == "pool":
            self.scramble(place[1])  # another pool's card: which kind is not known
        elif isinstance(place, tuple):
            self.held[place[1]] = (h, True)  # a card seen on the draw pile: now in that hand
        elif isinstance(place, int) and place > BASE:
            counts = self.hands.setdefault(h, {})
            counts[place] = counts.get(place, 0) + 1

    def from_hand(self, h: int, card: int) -> None:
        """``card`` left hand ``h`` face up (played, discarded, taken by a trade, looked at)."""
        k = self.label.pop(card, BASE)
        if k == BASE:
            return
        counts = self.hands.get(h, {})
        if counts.get(k, 0) > 0:
            counts[k] -= 1
        else:
            self.fail()

    def merge(self, k: int) -> None:
        """Forget the k-th reshuffle: its cards and places become ``BASE``."""
        if k == BASE:
            return
        self.label = {c: j for c, j in self.label.items() if j != k}
        self.pile = [BASE if place == k else place for place in self.pile]
        for counts in self.hands.values():
            counts.pop(k, None)

    def scramble(self, h: int) -> None:
        """Hand ``h`` changed unseen: nothing is known any more of the kinds of card it holds
        (nor of the cards it put back on the draw pile, its *pool*)."""
        for k in list(self.hands.get(h, {})):
            self.merge(k)
        self.held = {c: fact for c, fact in self.held.items() if fact[0] != h}
        self.pile = [BASE if place == ("pool", h) else place for place in self.pile]

    def unknown(self, places: list) -> list:
        """Places moved unseen among each other: nothing known of any of them any more."""
        for place in places:
            if isinstance(place, int):
                self.merge(place)
            elif isinstance(place, tuple) and place[0] == "pool":
                self.scramble(place[1])
        return [BASE] * len(places)

    def reshuffle(self, cards: list[int], count: int) -> None:
        """The cards (face up until now) go *under* the draw pile, shuffled."""
        if len(cards) != count:
            self.fail()
        self.reshuffles += 1
        for c in cards:
            if c in self.label:
                self.merge(self.label[c])
            self.held.pop(c, None)
        for c in cards:
            self.label[c] = self.reshuffles
        self.pile[:0] = [self.reshuffles] * count

    # -- Crazier Eights -----------------------------------------------------------------------
    def _crazier(self, e: dict, follows: dict) -> None:
        kind = e.get("type")
        seat = self.seat
        if kind == "draw":
            taken = self.pop(e["count"])
            if e["player"] == seat:
                self.drawn = taken
            else:
                for place in taken:
                    self.give(e["player"], place)
        elif kind == "drew":
            for place, card in zip(self.drawn, e["cards"], strict=False):
                self.shown(place, card)
            self.drawn = []
        elif kind == "reshuffle":
            if "cards" not in e:  # a game logged before reshuffles named their cards
                self.fail()
            self.reshuffle(e.get("cards", []), e["count"])
        elif kind in ("discard", "play"):
            if e.get("from") == "draw_pile":
                self.shown(self.pop(1)[0], e["card"])
            else:
                self.from_hand(e["player"], e["card"])
        elif kind == "traded":  # this seat's own trade (the only one it is shown)
            self.from_hand(e["with"], e["took"])
            self.held[e["gave"]] = (e["with"], False)
        elif kind == "lose":
            self.losing = e["player"]
        elif kind == "bottom":
            card = e["card"]
            k = self.label.get(card, BASE)
            if k != BASE:  # a card of a hand: the player's who left, or a put-back's
                holders = [h for h, counts in self.hands.items() if counts.get(k, 0) > 0]
                if self.losing in holders:
                    holders = [self.losing]
                if len(holders) == 1:
                    self.from_hand(holders[0], card)
        elif kind == "effect":
            self._effect(e, follows)

    def _effect(self, e: dict, follows: dict) -> None:
        name, p, cards = e.get("card"), e.get("player"), e.get("cards")
        at, source, to = e.get("at"), e.get("from"), e.get("to")
        if at == "draw_pile" and cards and e.get("only", self.seat) == self.seat:
            # the top of the draw pile, top first, seen by this seat and left there: a private
            # look (Fortune Teller, Elven Princess, Lighthouse, Wood Elf, Morgan le Fay) or
            # Titania's reveal
            for depth, card in enumerate(cards):
                self.see_at(depth, card)
        elif at == "hand" and cards and e.get("only") == self.seat and isinstance(q := e.get("hand_of"), int):
            for card in cards:  # the hand Queen Guinevere shows this seat
                self.from_hand(q, card)
                self.held[card] = (q, False)
        elif source == "draw_pile" and to == "in_play":
            place = self.pop(1)[0]  # Titania: the card it revealed on top
            if not isinstance(place, tuple):
                self.fail()
        elif source == "draw_pile" and to == "limbo" and cards:
            for place, card in zip(self.pop(len(cards)), cards, strict=True):
                self.shown(place, card)  # Elven Ritual's reveal
        elif to == "draw_pile" and e.get("shuffled"):
            # Elven Ritual: the whole pile shuffled: nothing known of any place
            self.pile = self.unknown(list(self.pile)) + [BASE] * e["count"]
        elif source == "draw_pile" and to == "discard_pile" and cards:
            self._off_the_top(cards[0], e.get("among", 1))
        elif source == "draw_pile" and to == "draw_pile":
            # the top cards put back, some on top and the rest under the pile, each group in its
            # order (Wood Elf; Elven Princess moves one card or leaves it)
            on_top, under = e["on_top"], e["on_bottom"]
            places = self.pop(on_top + under)
            if len(set(places)) > 1:  # reordered unseen: the places are no longer told apart
                places = self.unknown(places)
            self.pile[:0] = places[on_top:][::-1]
            self.pile.extend(places[:on_top][::-1])
        elif source == "hand" and to == "draw_pile":
            # a card of the player's hand (Study, Research, Sagacious Sorceress, Crystal Ball,
            # Merlin): of one of the kinds the hand holds, so the place joins the hand's pool
            # (the hand and its put-back cards hold those kinds between them)
            place = OWN if p == self.seat else BASE
            if isinstance(p, int) and place == BASE and any(self.hands.get(p, {}).values()):
                place = ("pool", p)
            self.held = {c: fact for c, fact in self.held.items() if fact[0] != p}
            if e.get("on_bottom"):
                self.pile.insert(0, place)
            else:
                self.pile.append(place)
        elif name == "Trade":
            if not (follows.get("type") == "traded" and follows.get("only") == self.seat):
                # a trade between two others: those two hands changed (which two, if the event
                # does not say: any)
                q = e.get("with")
                pair = (p, q) if isinstance(p, int) and isinstance(q, int) else None
                for h in pair if pair else list(self.hands):
                    self.scramble(h)
                if not pair:
                    self.held.clear()
        elif name == "Revolution":
            for h in list(self.hands):
                self.scramble(h)
            self.held.clear()
        elif source == "hand" and isinstance(q := e.get("hand_of"), int):
            self.scramble(q)  # Queen Guinevere took a card of that hand

    def see_at(self, depth: int, card: int) -> None:
        """The seat sees ``card`` at ``depth`` from the top of the draw pile; it stays there."""
        if depth >= len(self.pile):
            self.fail()
            return
        i = len(self.pile) - 1 - depth
        self.shown(self.pile[i], card)
        self.pile[i] = ("card", card)

    def _off_the_top(self, card: int, among: int) -> None:
        """``card`` left one of the top ``among`` places of the draw pile, face up (the topmost
        that may have held it: places that may hold the same cards are alike)."""
        top = self.pile[len(self.pile) - among:]
        fits = [i for i, place in enumerate(top) if place == ("card", card)] or [
            i for i, place in enumerate(top) if self.may_hold(place, card)
        ]
        if not fits:
            self.fail()
            fits = [len(top) - 1] if top else []
        if fits:
            i = len(self.pile) - len(top) + fits[-1]
            self.shown(self.pile[i], card)
            del self.pile[i]

    # -- the eights family --------------------------------------------------------------------
    def _eights(self, e: dict) -> None:
        kind = e.get("type")
        hand = _POSITIONS.index(e["hand"]) if "hand" in e else e.get("player")
        if kind == "bury":  # classic: the starter, an eight, goes into the middle of the draw pile
            card = e["card"]
            self.shown(self.pop(1)[0], card)
            self.pile.insert(len(self.pile) // 2, ("card", card))
        elif kind == "starter":
            if self.pile and isinstance(self.pile[-1], tuple):
                self.fail()  # a tiny stock of buried eights: the starter came from lower down
            self.shown(self.pop(1)[0], e["card"])
            self.play_pile = {e["card"]}
            self.top = e["card"]
        elif kind == "play":
            if hand is not None:
                self.from_hand(hand, e["card"])
            self.play_pile.add(e["card"])
            self.top = e["card"]
        elif kind == "draw":
            taken = self.pop(e["count"])
            if "cards" in e:  # the seat's own draw, or a dummy's (face up)
                for place, card in zip(taken, e["cards"], strict=False):
                    self.shown(place, card)
            elif hand is not None:
                for place in taken:
                    self.give(hand, place)
        elif kind == "reshuffle":  # the play pile but its top card, when the draw pile ran out
            rebuilt = sorted(c for c in self.play_pile if c != self.top)
            self.play_pile = {self.top} if self.top is not None else set()
            self.reshuffle(rebuilt, e["count"])


def walk_history(info: dict) -> Walk:
    """The walk over the seat's history (``ok`` false when its draw-pile facts cannot be trusted).
    The size of the draw pile when the history starts is not in the view: a first walk over a
    pile too large to run out finds how much the history changed it."""
    big = 10_000
    start = info["draw_pile"] - (len(Walk(info, big).pile) - big)
    walk = Walk(info, max(start, 0))
    if start < 0 or len(walk.pile) != info["draw_pile"]:
        walk.fail()
    return walk
