"""Chance events of a replayed game, seen from the referee's full view.

The draw pile is tracked as *blocks*: sets of cards whose order nobody has seen since they were
shuffled together (the rest of the deck after the deal; each reshuffle of the discard pile makes
a new block, and so does Elven Ritual's shuffle of the whole draw pile, which puts back into
chance every card in it, the ones just revealed included). A card stays *unseen* while it sits
in its block's pile untouched; it stops being unseen when any player looks at it (Fortune
Teller, Titania, Elven Princess, Wood Elf, Lighthouse, Morgan le Fay: ``game.known`` or an event
naming it), when it leaves the draw pile, when it is put back at a place somebody chose, or when
the pile is reordered in a way this tracker does not follow; only a new shuffle makes it unseen
again. Conditional on everything before, the unseen cards of one block lie in a uniformly random
order, so the next one of them to be drawn is equally likely to be any of them: a **chance
event**. Drawing a card that was placed or seen first is not one, nor is drawing the one card of
a reshuffled pile (everybody can name it). When the tracker cannot tell what happened it marks
cards seen, which only ever gives up a correction (zero is always an unbiased correction), never
adds a wrong one.

:func:`draws_of_step` lists, for one applied choice, the unseen cards drawn into a hand, in the
order they were drawn, each with the cards it could have been.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import engine
from engine.eights_family import POSITIONS

P = TypeVar("P")


@dataclass
class Draw:
    """One chance event: ``card`` went into ``player``'s hand; it was equally likely to be any
    card of ``candidates`` (``card`` among them). ``before`` are the cards of this step drawn
    earlier (card, player, slot), which the correction counts as already in hand."""

    card: int
    player: int
    candidates: list[int]
    before: list[tuple[int, int, int]] = field(default_factory=list)
    #: which of the player's hands (Super Crazy Eights' dummy form: 0 concealed, 1 the dummy)
    slot: int = 0


@dataclass
class Stock:
    """Which draw-pile cards are unseen, and in which block (see the module docstring)."""

    block: dict[int, int]
    blocks: int = 1
    #: steps where a card left the pile unseen without any event saying so (0 in every test)
    irregular: int = 0

    @classmethod
    def after_deal(cls, game) -> Stock:
        seen = _known(game) | {c for e in game.events for c in _event_cards(e)}  # e.g. a buried starter
        return cls({c: 0 for c in game.draw_pile if c not in seen})

    def unseen_in_order(self, pile: list[int]) -> list[int]:
        return [c for c in pile if c in self.block]


def _known(game) -> set[int]:
    known = getattr(game, "known", None)
    return {c for k in known for c in k} if known else set()


def _slot(game, event: dict) -> int:
    """Which of its player's hands a standard game's draw event fed (the dummy form names it)."""
    if "hand" not in event:
        return 0
    h = POSITIONS.index(event["hand"])
    return sum(1 for g in range(h) if game.controller[g] == event["player"])


def _event_cards(event: dict) -> list[int]:
    cards = list(event.get("cards") or ())
    if isinstance(event.get("card"), int):
        cards.append(event["card"])
    return cards


@dataclass
class Before:
    """What :func:`draws_of_step` needs of the state before a choice is applied."""

    pile: list[int]
    discard: list[int]
    events: int

    @classmethod
    def of(cls, game) -> Before:
        return cls(list(game.draw_pile), list(game.discard), len(game.events))


def chance_draws(game, stock: Stock, choices: Iterable[str],
                 position_of: Callable[[object], P]) -> Iterator[tuple[P, Draw]]:
    """Apply ``choices`` to ``game`` one by one and yield every chance event of the replay: the
    position before its step (``position_of(game)``, read before the choice is applied) and the
    :class:`Draw`. ``stock`` (``Stock.after_deal(game)``) is kept up to date on the way."""
    for choice in choices:
        before = Before.of(game)
        position = position_of(game)
        engine.apply_choice(game, choice)
        for draw in draws_of_step(stock, before, game):
            yield position, draw


def draws_of_step(stock: Stock, before: Before, game) -> list[Draw]:
    """The chance events of the step that led from ``before`` to ``game`` (the state after one
    applied choice), and ``stock`` brought up to date."""
    events = game.events[before.events:]
    remaining = {b: [c for c in reversed(before.pile) if stock.block.get(c) == b]  # top first
                 for b in set(stock.block.values())}
    gone: set[int] = set()  # unseen before the step, touched during it
    draws: list[Draw] = []
    regular = True
    standard = not hasattr(game, "known")  # the standard-deck games: draw events give counts only
    pile_top = list(reversed(before.pile))  # the standard games draw from the top, in order
    reshuffled = 0
    fresh = None if standard else _reshuffled_cards(before, game, events)
    fresh_left = sorted(fresh or ())  # cards of that new pile neither drawn nor seen yet
    shuffled = after_shuffle = False  # Elven Ritual shuffled the whole pile; a reshuffle followed
    seen_since: set[int] = set()  # cards named after that shuffle
    for event in events:
        kind = event.get("type")
        if kind == "reshuffle":
            reshuffled += 1
            after_shuffle = shuffled
            continue
        if standard:
            if kind != "draw":
                continue
            # cards come off the old pile top first; those after a rebuild (a new block made in
            # this very step) are not corrected
            count = event.get("count", 0)
            taken, pile_top = pile_top[:count], pile_top[count:]
            drawn = [(c, event["player"], _slot(game, event)) for c in taken]
        elif kind == "drew":
            drawn = [(c, event["player"], 0) for c in event.get("cards", ())]
        else:
            if _shuffles_the_pile(event):
                shuffled = True
                regular = False  # no draw of this step comes after it; if one did, leave it
            for c in _event_cards(event):
                if shuffled:
                    seen_since.add(c)
                if c in fresh_left:
                    fresh_left.remove(c)
                if c in stock.block:
                    gone.add(c)
                    remaining[stock.block[c]] = [x for x in remaining[stock.block[c]] if x != c]
            continue
        for c, player, slot in drawn:
            if reshuffled == 1 and c in fresh_left:
                # the top card of a pile shuffled in this very step: any of its cards not yet
                # drawn or seen (a pile of one card is known to everybody: no chance)
                if regular and len(fresh or ()) > 1:
                    draws.append(Draw(c, player, list(fresh_left), [(d.card, d.player, d.slot) for d in draws], slot))
                fresh_left.remove(c)
                continue
            b = stock.block.get(c)
            if b is None or c in gone:
                continue  # a placed or seen card, or one of a block made in this step
            if not regular or not remaining[b] or remaining[b][0] != c:
                regular = False  # the pile was reordered under us: stop correcting this step
                gone.add(c)
                continue
            draws.append(Draw(c, player, list(remaining[b]), [(d.card, d.player, d.slot) for d in draws], slot))
            remaining[b] = remaining[b][1:]
            gone.add(c)
    if shuffled:
        _after_shuffle(stock, game, seen_since, after_shuffle)
    else:
        _update(stock, before, game, gone, reshuffled, fresh, fresh_left)
    return draws  # those before any reordering: whether to stop never depends on the card drawn


def _shuffles_the_pile(event: dict) -> bool:
    """Elven Ritual's last event: the revealed cards go back and the whole draw pile is shuffled
    (item 23)."""
    return event.get("type") == "effect" and event.get("shuffled") is True


def _reshuffled_cards(before: Before, game, events: list[dict]) -> set[int] | None:
    """The cards a single reshuffle of this step turned into a new pile (Crazier Eights), or None
    when there was none, or more than one, or they cannot be told for sure.

    They were in the discard pile at that moment: cards that were there before the step or that
    an event of the step named before the reshuffle (a discard, a card put on the bottom, ...),
    but not cards of the draw pile before the step nor cards drawn before it. Each of them is
    now in the draw pile or was drawn after the reshuffle (one taken off the pile otherwise is
    missed). The count the reshuffle event gives must match, or the answer is None: then only
    the cards that were in the discard pile before the step form a block (:func:`_update`),
    which gives up corrections, never adds a wrong one."""
    at = [i for i, e in enumerate(events) if e.get("type") == "reshuffle"]
    if len(at) != 1:
        return None
    pile_before = set(before.pile)
    named_before: set[int] = set()
    drawn_before: set[int] = set()
    for e in events[:at[0]]:
        (drawn_before if e.get("type") == "drew" else named_before).update(_event_cards(e))
    could_be = (set(before.discard) | named_before) - pile_before - drawn_before
    drawn_after = {c for e in events[at[0]:] if e.get("type") == "drew" for c in e.get("cards", ())}
    cards = could_be & (set(game.draw_pile) | drawn_after)
    return cards if len(cards) == events[at[0]].get("count") else None


def _after_shuffle(stock: Stock, game, seen: set[int], reshuffled_after: bool) -> None:
    """The whole draw pile was shuffled: every card in it not seen since is one new block, the
    cards revealed before the shuffle included (nobody knows where they went). A reshuffle after
    that shuffle in the same step (not a case the rules make) would stack two blocks: then none."""
    known = _known(game)
    stock.block = {} if reshuffled_after else {
        c: stock.blocks for c in game.draw_pile if c not in known and c not in seen}
    stock.blocks += 1


def _update(stock: Stock, before: Before, game, gone: set[int], reshuffled: int,
            fresh: set[int] | None = None, fresh_left: list[int] | None = None) -> None:
    pile = game.draw_pile
    in_pile = set(pile)
    known = _known(game)
    # an unseen card that left the pile with no event naming it: something we do not follow
    if any(c not in in_pile and c not in gone for c in stock.block):
        stock.irregular += 1
    survivors = [c for c in pile if c in stock.block and c not in gone and c not in known]
    old_order = [c for c in before.pile if c in set(survivors)]
    keep = {}
    if survivors == old_order:
        keep = {c: stock.block[c] for c in survivors}
    # a reshuffled discard pile is a new block: its cards not drawn nor seen since (or, when
    # they could not be told, the cards that were in the discard pile before the step, still
    # unseen). Two reshuffles in one step would mix two blocks: then none.
    if reshuffled == 1:
        discard = set(fresh_left or ()) if fresh is not None else set(before.discard)
        new = [c for c in pile if c in discard and c not in known and c not in keep]
        for c in new:
            keep[c] = stock.blocks
        stock.blocks += 1
    stock.block = keep
