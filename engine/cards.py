"""The 52 cards of Crazier Eights (second edition) as plain data.

Suits are the four symbols: moon, ankh, sun and eye. A card's colours are the set of its suits'
colours; the colour *names* shown to people are a rule-set option (rulings.md item 2), the rules
only ever compare suits. Every card is an asset or an event; eights are wild when discarded.
"""

from __future__ import annotations

from dataclasses import dataclass

SUITS = ("moon", "ankh", "sun", "eye")
DEFAULT_COLOUR_NAMES = {"moon": "red", "ankh": "green", "sun": "yellow", "eye": "blue"}
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_VALUE = {rank: i + 1 for i, rank in enumerate(RANKS)}


@dataclass(frozen=True, slots=True)
class CardDef:
    """One card design. ``suits`` holds one suit, or several for a multicolour promo."""

    name: str
    rank: str | None
    suits: frozenset[str]
    type: str  # "asset" or "event"
    summary: str

    @property
    def is_eight(self) -> bool:
        return self.rank == "8"

    @property
    def is_asset(self) -> bool:
        return self.type == "asset"

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "rank": self.rank,
            "suits": sorted(self.suits, key=SUITS.index),
            "type": self.type,
        }


def _suit(suit: str, rows: list[tuple[str, str, str]]) -> list[CardDef]:
    return [
        CardDef(name, rank, frozenset({suit}), kind, summary)
        for rank, (name, kind, summary) in zip(RANKS, rows)
    ]


A, E = "asset", "event"

#: The deck in suit order, ace to king. Summaries are our own short wording; docs/cards.md has more.
CARDS: tuple[CardDef, ...] = tuple(
    _suit("moon", [
        ("Angel of Hope", A, "At the start of your turn, choose a player: they draw a card."),
        ("Strength in Numbers", A, "A player who controls four or more cards in play when their turn starts wins."),
        ("Guardian Angel", A, "Every draw that an event or asset causes is two cards smaller, for every player."),
        ("Trade", E, "Look at another player's hand and swap one of your cards with one of theirs."),
        ("Castle", A, "When an opponent would make you draw, you draw one card fewer."),
        ("Pleasant Memories", E, "Up to two players of your choice draw two cards each."),
        ("Guardian Valkyrie", A, "The first time in a turn cards would be destroyed, you may save one of them."),
        ("Lancelot", A, "The first time in a turn cards would be destroyed, you may save up to three of them."),
        ("Restoration", E, "Put an asset from the discard pile into play under your control."),
        ("Armageddon", E, "Every card in play is destroyed."),
        ("Holy Grail", A, "At the start of your turn, draw a card; that turn you may discard two extra cards."),
        ("Queen Guinevere", A, "At the end of your turn, look at an opponent's hand; you may put an asset from it into play under your control."),
        ("King Arthur", A, "If you control four or more cards in play when your turn starts, you win."),
    ])
    + _suit("ankh", [
        ("Fountain of Youth", A, "On each of your turns you may discard one extra card."),
        ("Stream of Life", A, "Every player may discard one extra card on their turn."),
        ("Ferocity", E, "You may discard one extra card this turn."),
        ("Elven Princess", A, "At the start of your turn, look at the top card of the draw pile; leave it or put it on the bottom."),
        ("Tempest", E, "Move a card in play into the hand of a player of your choice."),
        ("Allosaurus", A, "At the start of every player's turn, you destroy a card that player controls."),
        ("Potion of Vitality", E, "You may discard two extra cards this turn."),
        ("Elven Ritual", E, "Reveal the top five cards of the draw pile, put up to two revealed assets into play under your control, shuffle the rest back."),
        ("Worldly Wisdom", E, "Up to two players of your choice draw three cards each."),
        ("Wood Elf", A, "At the start of your turn, look at the top two cards of the draw pile; put any back on top in any order and the rest on the bottom."),
        ("Hurricane", E, "Move up to two cards in play into the hand of one player of your choice."),
        ("Titania", A, "At the start of your turn, reveal the top card of the draw pile; if it is an asset you may put it into play under your control."),
        ("Oberon", A, "Your opponents may discard at most one card per turn, whatever else lets them discard more."),
    ])
    + _suit("sun", [
        ("Devious Dragon", A, "At the start of your turn, you must destroy a card in play (it may be the Dragon itself)."),
        ("Thin Ice", A, "A player who controls four or more cards in play when their turn ends loses."),
        ("Malevolent Minions", A, "When you make an opponent draw, they draw one card more."),
        ("Hidden Gold", E, "Draw three cards, then put three cards from your hand on the bottom of the discard pile."),
        ("Death", E, "Destroy a card in play of your choice."),
        ("Raise Dead", E, "Put the lowest-ranked asset of the discard pile into play under your control."),
        ("Forbidden Knowledge", E, "A player of your choice draws three cards."),
        ("Bewitch", E, "Take control of a card another player controls."),
        ("Sleep", E, "A player of your choice skips their next turn."),
        ("Treasure", E, "Draw five cards, then put five cards from your hand on the bottom of the discard pile."),
        ("Falling Stars", E, "Destroy up to two cards in play."),
        ("Lilith", A, "At the end of your turn you may take control of a card another player controls; if you do, draw a card."),
        ("Alexander the Great", A, "An opponent of yours who controls four or more cards in play when their turn ends loses."),
    ])
    + _suit("eye", [
        ("Mirror Universe", E, "Swap all the cards you control in play with all those another player controls."),
        ("Crystal Palace", A, "An opponent of yours with nine or more cards in hand when their turn ends loses."),
        ("Lighthouse", A, "At the start of your turn, look at the top card of the draw pile; you may move it to the top of the discard pile."),
        ("Study", E, "Draw two cards, then put two cards from your hand on top of the draw pile."),
        ("Research", E, "Draw three cards, then put three cards from your hand on top of the draw pile in the order you choose."),
        ("Visionary Dream", E, "A player of your choice draws two cards."),
        ("Sagacious Sorceress", A, "At the start of your turn, draw a card, then put a card from your hand on the bottom of the draw pile."),
        ("Crystal Ball", A, "At the start of your turn, draw three cards, then put three cards from your hand on the bottom of the draw pile."),
        ("Fortune Teller", A, "During your turn you may look at the top card of the draw pile and play it as your one card played."),
        ("Revolution", E, "Gather every hand, shuffle them together and deal them all out one at a time, starting with you."),
        ("Timeshift", E, "Take an extra turn after this one."),
        ("Morgan le Fay", A, "At the start of your turn, look at the top two cards of the draw pile; put one on top of the discard pile and the other back on the draw pile."),
        ("Merlin", A, "At the start of your turn, draw two cards, then put two cards from your hand on the bottom of the draw pile."),
    ])
)

BY_NAME: dict[str, CardDef] = {card.name: card for card in CARDS}


def promo_card(spec: dict) -> CardDef:
    """A promo card from ``{"name", "rank" (or None), "suits": [...], "type", "summary"}``.

    Raises ``ValueError`` for an unknown suit or type; promos have no effect beyond being
    played as a plain asset or event, unless an effect is registered under their name.
    """
    suits = frozenset(spec.get("suits", ()))
    if not suits or not suits <= set(SUITS):
        raise ValueError(f"promo card {spec.get('name')!r}: suits must be a non-empty subset of {SUITS}")
    if spec.get("type") not in ("asset", "event"):
        raise ValueError(f"promo card {spec.get('name')!r}: type must be 'asset' or 'event'")
    rank = spec.get("rank")
    if rank is not None and rank not in RANKS:
        raise ValueError(f"promo card {spec.get('name')!r}: rank must be one of {RANKS} or null")
    return CardDef(str(spec["name"]), rank, suits, spec["type"], spec.get("summary", ""))
