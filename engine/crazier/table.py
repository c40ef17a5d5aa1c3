"""Crazier Eights: the table. Zones and the moves between them (draws, reshuffles, the bottom of the
discard pile), what may be discarded or played, and whose turn comes next in seat order.

Card effects (:mod:`engine.effects`) call these methods; their names are part of what effects and
the outside readers of a game's state (the luck estimates) rely on.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from engine.common import shuffle
from engine.crazier.options import _DISCARD, _PLAY
from engine.crazier.state import State

#: player count -> per first seat, every seat in turn order from it
_ROUNDS = {n: [(*range(start, n), *range(start)) for start in range(n)] for n in range(2, 9)}  # 2 to 8 seats


class Table(State):
    """The zones of a game and the moves between them (see :class:`engine.crazier.game.Game`)."""

    __slots__ = ()

    def _log(self, event: dict) -> None:
        """Record an event (the steps run most often append to ``self.events`` themselves)."""
        self.events.append(event)

    def _impossible_draw(self) -> None:
        """A draw could not be completed: the game ends (the game's rules, in :mod:`.game`)."""
        raise NotImplementedError

    def _order_from(self, start: int) -> Sequence[int]:
        """Players still in the game, in turn order starting with ``start``."""
        alive = self.alive
        if all(alive):  # the usual case, asked several times a turn: the seats from ``start`` round
            return _ROUNDS[self.players][start]
        return [q for q in range(start, self.players) if alive[q]] + [q for q in range(start) if alive[q]]

    def _next_alive(self, p: int) -> int:
        n = self.players
        if all(self.alive):  # the usual case, at every turn
            return (p + 1) % n
        for i in range(1, n + 1):
            q = (p + i) % n
            if self.alive[q]:
                return q
        return p

    def opponents(self, p: int) -> list[int]:
        return [q for q in self._order_from(p) if self.team[q] != self.team[p]]

    def is_opponent(self, p: int, q: int) -> bool:
        return self.team[p] != self.team[q]


    def named_colour(self):
        """The suit an eight named, while that eight is still on top of the discard pile (else None)."""
        named = self.named
        if named and self.discard and self.discard[-1] == named[0]:
            return named[1]
        return None


    # ----------------------------------------------------------------- zones
    def card_name(self, cid: int) -> str:
        return self.defs[cid].name

    def all_in_play(self) -> list[int]:
        return [c for q in self._order_from(self.turn) for c in self.in_play[q]]

    def controller(self, cid: int) -> int | None:
        for q in range(self.players):
            if cid in self.in_play[q]:
                return q
        return None

    def take_from_discard(self, cid: int) -> None:
        if self.discard and self.discard[-1] == cid:
            self.named = None
        self.discard.remove(cid)

    def put_on_bottom(self, cid: int) -> None:
        if not self.discard:
            self.named = None
        self.discard.insert(0, cid)
        self.events.append({"type": "bottom", "card": cid})

    def put_on_top_of_discard(self, cid: int) -> None:
        """A card placed on top without being discarded: not wild, names nothing (item 22)."""
        self.discard.append(cid)
        self.named = None

    def draw(self, p: int, n: int, cause: int | None = None, source: str | None = None) -> list[int]:
        """``p`` draws ``n`` cards; ``cause`` is the player whose event or asset makes them draw
        (None for the rules' own draws, to which no substitution applies: rulings.md item 7).

        Castle, Guardian Angel and Minions adjust the number once per draw instance (item 8).
        Returns the cards drawn; an impossible draw ends the game.
        """
        if not self.alive[p] or self.result is not None:
            return []
        extra_instance = 0
        if cause is not None and n >= 1:
            n, extra_instance = self._adjust_draw(p, n, cause)
        got = self._draw_cards(p, n)
        stuck = len(got) < n
        if extra_instance and not stuck:
            more = self._draw_cards(p, extra_instance)
            stuck = len(more) < extra_instance
            got += more
        if got or n:
            self.events += (
                {"type": "draw", "player": p, "count": len(got), "cause": source},
                {"type": "drew", "player": p, "cards": list(got), "only": p},
            )
        if stuck:  # logged after the draw that could not be completed (P9)
            self._impossible_draw()
        return got

    def _adjust_draw(self, p: int, n: int, cause: int) -> tuple[int, int]:
        opponent = self.team[p] != self.team[cause]
        more = less = everyone = 0
        changes = self._changes_draws
        alive = self.alive
        for q, cards in enumerate(self.in_play):
            if changes.isdisjoint(cards) or not alive[q]:
                continue  # no card of this seat changes it (the usual case)
            for c in changes.intersection(cards):  # sums: any order will do
                e = self._eff[c]
                assert e is not None
                if q == cause:
                    more += e.draw_more_to_opponents
                if q == p:
                    less += e.draw_less_from_opponents
                everyone += e.draw_less_all
        if not opponent:
            more = less = 0
        if self.options["minions_as_trigger"] and more:
            # Minions as a separate instance: its cards are drawn after, and get their own reductions.
            extra = max(0, more - less - everyone)
            return max(0, n - less - everyone), extra
        return max(0, n + more - less - everyone), 0

    def _draw_cards(self, p: int, n: int) -> list[int]:
        """Up to ``n`` cards from the draw pile into ``p``'s hand, reshuffling when it runs out;
        fewer than ``n`` means the draw became impossible (the caller ends the game)."""
        got = []
        hand = self.hands[p]
        for _ in range(n):
            if not self.draw_pile and not self._reshuffle():
                break
            c = self.draw_pile.pop()
            hand.append(c)
            got.append(c)
        for k in self.known:
            if k:
                for c in got:
                    if c in k:
                        k.remove(c)
        return got

    def _reshuffle(self) -> bool:
        """Turn all but the top card of the discard pile into a new draw pile (CR §3)."""
        if len(self.discard) <= 1:
            return False
        rest = self.discard[:-1]
        del self.discard[:-1]
        # the cards were face up: naming them (in id order, not the shuffled one) tells everyone
        # what the new pile holds, as a player at the table would have seen
        shown = sorted(rest)
        shuffle(self.rng, rest)
        self.draw_pile = rest + self.draw_pile
        for k in self.known:
            k.clear()
        self._log({"type": "reshuffle", "count": len(rest), "cards": shown})
        return True

    def top_up(self, k: int) -> None:
        """Before looking at or revealing ``k`` cards: if the draw pile is short, shuffle the
        discard pile but its top card and put it *under* the draw pile (CR §12.5, item 10)."""
        if len(self.draw_pile) < k and len(self.discard) > 1:
            rest = self.discard[:-1]
            del self.discard[:-1]
            shown = sorted(rest)  # as in _reshuffle: which cards, not their new order
            shuffle(self.rng, rest)
            self.draw_pile[:0] = rest
            self._log({"type": "reshuffle", "count": len(rest), "cards": shown})

    def destroy(self, cards: list[int]) -> None:
        """Start one destruction event for ``cards`` (cards in play)."""
        if cards:
            self.stack.append({"do": "destroy", "cards": list(cards), "stage": "protect"})

    def to_bottom_in_order(self, cards: list[int], orderer: int) -> None:
        """Cards in limbo go to the bottom of the discard pile; ``orderer`` picks the order."""
        if len(cards) == 1:
            self.limbo.remove(cards[0])
            self.put_on_bottom(cards[0])
        elif cards:
            self.stack.append({"do": "bottom", "cards": list(cards), "p": orderer, "owner": orderer})

    # ----------------------------------------------------------------- discards
    def discard_allowance(self, p: int) -> int:
        """How many discards seat ``p`` may make this turn (public: views and observations read it)."""
        allowed = 1 + (self.bonus_discards if p == self.turn else 0)
        cap = None
        changes = self._changes_discards
        alive = self.alive
        for q, cards in enumerate(self.in_play):
            if changes.isdisjoint(cards) or not alive[q]:
                continue  # no card of this seat changes it (the usual case)
            for c in changes.intersection(cards):  # sums and a minimum: any order will do
                e = self._eff[c]
                assert e is not None
                allowed += e.extra_discards_all
                if q == p:
                    allowed += e.extra_discards_own
                elif e.opponents_discard_cap is not None and self.team[q] != self.team[p]:
                    cap = e.opponents_discard_cap if cap is None else min(cap, e.opponents_discard_cap)
        return allowed if cap is None else min(allowed, cap)

    def can_discard(self, cid: int) -> bool:
        return cid in self._discardable()

    def _discardable(self) -> Container[int]:
        """The ids of the cards that may be discarded now: on an eight that named a suit, the
        cards of that suit; on any other top card, those sharing its rank or a suit; eights on
        anything, and anything on an empty pile (the per-card tables of ``_deck_tables``)."""
        discard = self.discard
        if not discard:
            return range(len(self.defs))  # every card id
        top = discard[-1]
        named = self.named
        if named is not None and named[0] == top:
            return self._fits_suit.get(named[1], self._eights)
        return self._fits[top]

    def can_play(self, p: int, cid: int) -> bool:
        e = self._eff[cid]
        return e is None or e.playable is None or e.playable(self, p)

    def _main_options(self) -> list[str]:
        p = self.turn
        hand = self.hands[p]
        if self.played:
            options = []
        else:
            if self._tested.isdisjoint(hand):  # no card needs a test: every card may be played
                options = list(map(_PLAY.__getitem__, hand))
            else:
                playable = self._playable
                options = [_PLAY[c] for c in hand if (test := playable[c]) is None or test(self, p)]
            if self.draw_pile and not self._fortune_tellers.isdisjoint(self.in_play[p]) and self.can_play(
                p, self.draw_pile[-1]
            ):
                options.append("play_top")
        changes = self._changes_discards
        for cards in self.in_play:
            if not changes.isdisjoint(cards):
                allowed = self.discard_allowance(p)
                break
        else:  # no card in play changes the allowance (the usual case; as in discard_allowance)
            allowed = 1 + self.bonus_discards
        if self.discards_made < allowed:
            fits = self._discardable()
            options += [_DISCARD[c] for c in hand if c in fits]
        options.append("end")
        return options

    def _controls(self, p: int, name: str) -> bool:
        return any(self.defs[c].name == name for c in self.in_play[p])

    def play_card(self, p: int, cid: int, from_draw_pile: bool = False) -> None:
        """Play ``cid`` (already out of its zone) for its effect, as an asset or an event;
        ``from_draw_pile``: it came off the top of the draw pile (Fortune Teller), which the
        event says, as everyone at the table sees it."""
        self.played = True
        event = {"type": "play", "player": p, "card": cid, "as": "asset" if cid in self.asset_ids else "event"}
        if from_draw_pile:
            event["from"] = "draw_pile"
        self.events.append(event)
        if cid in self.asset_ids:
            self.in_play[p].append(cid)
            return
        self.limbo.append(cid)
        self.stack.append({"do": "event_done", "card": cid})
        e = self._eff[cid]
        if e is not None and e.resolve is not None:
            self.stack.append({"do": "card", "name": self.defs[cid].name, "src": cid, "p": p, "owner": p, "step": 0})
