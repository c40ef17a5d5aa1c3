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
        ("Angel of Hope", A, "When your turn starts, pick any player (you may pick yourself): they draw 1."),
        ("Strength in Numbers", A, "A player who controls four or more cards in play when their turn starts wins."),
        ("Guardian Angel", A, "Every draw that an event or asset causes is two cards smaller, for every player."),
        ("Trade", E, "Look at another player's hand and swap one of your cards with one of theirs."),
        ("Castle", A, "When an opponent would make you draw, you draw one card fewer."),
        ("Pleasant Memories", E, "Pick up to two players: each of them draws 2."),
        ("Guardian Valkyrie", A, "The first time in a turn cards would be destroyed, you may save one of them."),
        ("Lancelot", A, "The first time in a turn cards would be destroyed, you may save up to three of them."),
        ("Restoration", E, "Pick any asset lying in the discard pile and move it onto your side of the table."),
        ("Armageddon", E, "Every card in play is destroyed."),
        ("Holy Grail", A, "When your turn starts, draw 1; for that turn your discard limit is two higher."),
        ("Queen Guinevere", A, "When your turn ends, pick an opponent and inspect their hand; you may move one asset "
                               "from it onto your side of the table."),
        ("King Arthur", A, "If you control four or more cards in play when your turn starts, you win."),
    ])
    + _suit("ankh", [
        ("Fountain of Youth", A, "On each of your turns you may discard one extra card."),
        ("Stream of Life", A, "Everyone's discard limit on their own turn is one higher."),
        ("Ferocity", E, "For the rest of this turn your discard limit is one higher."),
        ("Elven Princess", A, "When your turn starts, peek at the top card of the draw pile, then keep it there or "
                              "tuck it under the pile."),
        ("Tempest", E, "Pick one card on the table and move it into the hand of any player you pick."),
        ("Allosaurus", A, "At the start of every player's turn, you destroy a card that player controls."),
        ("Potion of Vitality", E, "For the rest of this turn your discard limit is two higher."),
        ("Elven Ritual", E, "Turn the top five cards of the draw pile face up, move at most two assets among them "
                            "onto your side of the table, then shuffle the others into the draw pile."),
        ("Worldly Wisdom", E, "Pick up to two players: each of them draws 3."),
        ("Wood Elf", A, "When your turn starts, peek at the top two cards of the draw pile; return whichever you like "
                        "to the top, stacked as you like, and tuck the others under the pile."),
        ("Hurricane", E, "Move up to two cards in play into the hand of one player of your choice."),
        ("Titania", A, "When your turn starts, show everyone the top card of the draw pile; if it is an asset you may "
                       "move it onto your side of the table, otherwise it stays put."),
        ("Oberon", A, "Your opponents may discard at most one card per turn, whatever else lets them discard more."),
    ])
    + _suit("sun", [
        ("Devious Dragon", A, "At the start of your turn, you must destroy a card in play (it may be the Dragon "
                              "itself)."),
        ("Thin Ice", A, "A player who controls four or more cards in play when their turn ends loses."),
        ("Malevolent Minions", A, "When you make an opponent draw, they draw one card more."),
        ("Hidden Gold", E, "Draw 3, then slide any 3 of your hand cards under the discard pile."),
        ("Death", E, "Destroy a card in play of your choice."),
        ("Raise Dead", E, "The asset lying closest to the bottom of the discard pile moves onto your side of the "
                          "table (nothing happens if there is none)."),
        ("Forbidden Knowledge", E, "Pick any player: they draw 3."),
        ("Bewitch", E, "Take control of a card another player controls."),
        ("Sleep", E, "A player of your choice skips their next turn."),
        ("Treasure", E, "Draw 5, then slide any 5 of your hand cards under the discard pile."),
        ("Falling Stars", E, "Destroy up to two cards in play."),
        ("Lilith", A, "As your turn closes, you may seize one card from the table of any other player, ally or "
                      "not; seizing one also gives you a card from the draw pile."),
        ("Alexander the Great", A, "An opponent of yours who controls four or more cards in play when their turn ends "
                                   "loses."),
    ])
    + _suit("eye", [
        ("Mirror Universe", E, "Swap all the cards you control in play with all those another player controls."),
        ("Crystal Palace", A, "An opponent of yours with nine or more cards in hand when their turn ends loses."),
        ("Lighthouse", A, "When your turn starts, peek at the top card of the draw pile; you may flip it onto the "
                          "discard pile (that is not a discard)."),
        ("Study", E, "Draw 2, then return any 2 of your hand cards face down onto the draw pile."),
        ("Research", E, "Draw 3, then return any 3 of your hand cards face down onto the draw pile, stacked as you "
                        "like."),
        ("Visionary Dream", E, "Pick any player: they draw 2."),
        ("Sagacious Sorceress", A, "When your turn starts, draw 1, then tuck 1 card from your hand under the draw "
                                   "pile."),
        ("Crystal Ball", A, "When your turn starts, draw 3, then tuck 3 cards from your hand under the draw pile."),
        ("Fortune Teller", A, "During your turn you may look at the top card of the draw pile and play it as your one "
                              "card played."),
        ("Revolution", E, "Gather every hand, shuffle them together and deal them all out one at a time, starting "
                          "with you."),
        ("Timeshift", E, "Once this turn is over, you play another whole turn."),
        ("Morgan le Fay", A, "When your turn starts, peek at the draw pile's two top cards: you flip one of them onto "
                             "the discard pile and the other stays on the draw pile."),
        ("Merlin", A, "When your turn starts, draw 2, then tuck 2 cards from your hand under the draw pile."),
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


#: effects that hurt whoever they target: a bot aims them at an opponent (the greedy bot, and the
#: mcts bot's rollouts)
HOSTILE = frozenset({
    "Angel of Hope", "Pleasant Memories", "Worldly Wisdom", "Forbidden Knowledge", "Visionary Dream",
    "Sleep", "Trade", "Mirror Universe", "Queen Guinevere",
})
