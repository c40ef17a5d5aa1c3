"""docs/cards.md, generated from the engine's card data (``engine.cards.CARDS``).

``render()`` builds the page: one section per suit, each card with its rank, type, our one-line
summary, the rulings items that touch it (shared rulings.md items 1-30 by number, this project's
docs/rulings.md items as P1, P2, ...) and, for a few cards, how the engine reads an unclear text.
``scripts/gen_cards_doc.py`` writes it; tests/test_cards_doc.py fails when the file is stale.
All wording here is ours, never the printed card texts.
"""

from __future__ import annotations

from pathlib import Path

from engine.cards import CARDS, DEFAULT_COLOUR_NAMES, SUITS

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "cards.md"

SUIT_TITLES = {"moon": "Moon", "ankh": "Ankh", "sun": "Sun", "eye": "Eye"}

# Gists shared by several cards.
_TRIGGER = ("16", "Its triggered ability is ordered by the active player, its choices belong to whoever "
            "controlled it when it triggered, it resolves even if the card is gone by then, and it does "
            "nothing on the turn the card is played.")
_SNAPSHOT = ("12", "The threshold is checked once, when the phase starts; changes while other abilities "
             "resolve do not matter.")
_END_PHASE = ("17", "End-phase abilities run after the turn, with the player whose turn ended acting as "
              "the active player.")
_CAUSED = ("7", "A draw written on a card is caused by its player or controller; choosing yourself is "
           "self-caused, so Castle and Minions ignore it while Guardian Angel still applies.")
_PUT_BACK = ("9", "Guardian Angel shrinks only the draw, never the number of cards put back; with too few "
             "cards in hand you put back all you have.")
_EXTRA_DISCARDS = ("15", "Extra discards add up and are recounted whenever needed, so they help even after "
                   "your first discard; Oberon caps opponents at one.")
_TOP_UP = ("10", "If the draw pile is too short to look at or reveal, the discard pile but its top card is "
           "shuffled and slid under it first.")
_CHOICE_NEEDED = ("21", "Playable only when there is something to choose.")
_ALWAYS_PLAYABLE = ("21", "Always playable, even when it will do nothing.")
_UP_TO = ("21", "Always playable: choosing nobody (or nothing) is allowed.")
_CONTROL = ("23", "The card simply changes controller; there is no ownership, so whoever controls it "
            "takes it along on leaving the game.")
_DESTROY_ORDER = ("P2", "When several cards are destroyed together the active player picks the order they "
                  "go under the discard pile, one at a time.")
_FIRST_DESTRUCTION = ("19", "Only the turn's first destruction event can be altered, even if every card in it "
                      "was saved; copies add up, the controller may save any card of that event, itself "
                      "included.")
_CHOOSER = ("P8", "The chosen player may be the chooser.")
_TOP_OF_DISCARD = ("22", "A card moved onto the discard pile this way is not a discard: an eight is not wild "
                   "and names no colour.")
_EIGHT_FOR_EFFECT = ("22", "Played for its effect, this eight is not wild.")

#: card name -> the rulings items that touch it: (item, one-line gist in our words)
RULINGS: dict[str, list[tuple[str, str]]] = {
    "Angel of Hope": [_CAUSED, _TRIGGER, _CHOOSER],
    "Strength in Numbers": [_SNAPSHOT],
    "Guardian Angel": [("7", "It shrinks every draw a card causes, for every player, its controller too."),
                       ("8", "Each draw is one number adjusted once: Minions added, Castles and Guardian "
                        "Angels subtracted, never below zero."),
                       _PUT_BACK, ("18", "A substitution: it changes the draw as it happens.")],
    "Trade": [("7", "Swapping cards is not a draw."),
              ("21", "It needs another player, who always exists while the game goes on."),
              ("27", "The player of Trade picks both cards, and the swap is compulsory.")],
    "Castle": [("7", "It only protects against draws an opponent causes."),
               ("8", "Several Castles add up; the adjustment is made once per draw."),
               ("18", "A substitution: it changes the draw as it happens.")],
    "Pleasant Memories": [("8", "Each chosen player's draw is a separate draw, in turn order from the active "
                           "player."), _UP_TO, _CHOOSER],
    "Guardian Valkyrie": [_FIRST_DESTRUCTION,
                          ("P6", "Option first_destruction_scope = per_card: a card may be saved the first "
                           "time it is threatened in a turn.")],
    "Lancelot": [_FIRST_DESTRUCTION, _EIGHT_FOR_EFFECT],
    "Restoration": [_CHOICE_NEEDED, _CONTROL,
                    ("22", "Taking the top card of the discard pile ends a colour named with it; taking the "
                     "only card makes Restoration itself the top card afterwards.")],
    "Armageddon": [_ALWAYS_PLAYABLE, _FIRST_DESTRUCTION, _DESTROY_ORDER],
    "Holy Grail": [_TRIGGER, _EXTRA_DISCARDS],
    "Queen Guinevere": [_TRIGGER, _END_PHASE, ("7", "Taking a card from a hand is not a draw."),
                        ("11", "Taking an opponent's last card makes that opponent win at once."), _CONTROL],
    "King Arthur": [_SNAPSHOT],
    "Fountain of Youth": [_EXTRA_DISCARDS],
    "Stream of Life": [_EXTRA_DISCARDS],
    "Ferocity": [_EXTRA_DISCARDS],
    "Elven Princess": [_TRIGGER, _TOP_UP],
    "Tempest": [_CHOICE_NEEDED, ("19", "Moving a card to a hand is not destruction.")],
    "Allosaurus": [("20", "At the start of every turn, its own included, its controller destroys a card of the "
                    "active player; it may have to destroy itself, and does nothing if that player controls "
                    "nothing."), _TRIGGER, _DESTROY_ORDER],
    "Potion of Vitality": [_EXTRA_DISCARDS],
    "Elven Ritual": [_TOP_UP, _CONTROL,
                     ("23", "The revealed cards not taken are shuffled back into the draw pile."),
                     _ALWAYS_PLAYABLE, _EIGHT_FOR_EFFECT],
    "Worldly Wisdom": [("8", "Each chosen player's draw is a separate draw, in turn order from the active "
                        "player."), _UP_TO, _CHOOSER],
    "Wood Elf": [_TRIGGER, _TOP_UP],
    "Hurricane": [_UP_TO, ("7", "Moving cards to a hand is not a draw."),
                  ("19", "Moving cards to a hand is not destruction.")],
    "Titania": [_TRIGGER, _TOP_UP, _CONTROL,
                ("23", "A revealed card that is not an asset, or that you decline, stays on top of the draw "
                 "pile.")],
    "Oberon": [("15", "Opponents of its controller may discard one card per turn at most, whatever grants "
                "them more.")],
    "Devious Dragon": [("20", "The destruction is compulsory and may hit any card in play, the Dragon itself "
                        "included; with nothing in play nothing happens."), _TRIGGER, _DESTROY_ORDER],
    "Thin Ice": [_SNAPSHOT, _END_PHASE,
                 ("12", "Gaining a fourth card during the end phase (Lilith) does not make you lose.")],
    "Malevolent Minions": [("8", "Its extra card is part of the same draw, so it never triggers itself again."),
                           ("P5", "Option minions_as_trigger: the extra card is a separate draw instead.")],
    "Hidden Gold": [_PUT_BACK, ("22", "The cards put back go under the discard pile; the top card does not "
                                "change unless the pile was empty.")],
    "Death": [_CHOICE_NEEDED, _DESTROY_ORDER],
    "Raise Dead": [_ALWAYS_PLAYABLE, _CONTROL],
    "Forbidden Knowledge": [_CAUSED, _CHOOSER],
    "Bewitch": [_CHOICE_NEEDED, _CONTROL, _EIGHT_FOR_EFFECT],
    "Sleep": [("25", "A skipped turn has no phases at all; several Sleeps stack, and a pending extra turn is "
               "the one skipped."), _CHOOSER],
    "Treasure": [_PUT_BACK, ("22", "The cards put back go under the discard pile; the top card does not "
                             "change unless the pile was empty.")],
    "Falling Stars": [_UP_TO, _FIRST_DESTRUCTION, _DESTROY_ORDER],
    "Lilith": [_TRIGGER, _END_PHASE, _CONTROL, _CAUSED,
               ("12", "A card gained this way cannot make its new controller lose to Thin Ice that turn.")],
    "Alexander the Great": [_SNAPSHOT, _END_PHASE],
    "Mirror Universe": [_ALWAYS_PLAYABLE, ("21", "It swaps even when one side controls nothing."), _CONTROL],
    "Crystal Palace": [_SNAPSHOT, _END_PHASE],
    "Lighthouse": [_TRIGGER, _TOP_UP, _TOP_OF_DISCARD],
    "Study": [_PUT_BACK],
    "Research": [_PUT_BACK],
    "Visionary Dream": [_CAUSED, _CHOOSER],
    "Sagacious Sorceress": [_TRIGGER, _PUT_BACK],
    "Crystal Ball": [_TRIGGER, _PUT_BACK, _EIGHT_FOR_EFFECT],
    "Fortune Teller": [("26", "The top card of the draw pile may be your one play of the turn instead of a hand "
                        "card (never a discard); you see it all through your turn."),
                       ("10", "When the draw pile is empty, the discard pile but its top card is shuffled into a "
                        "new one so that you have a top card to see."),
                       ("P14", "You see the top card at every decision of your turn, whoever makes it."),
                       ("P12", "A top card you saw stays known to you while it lies in the pile, after your turn "
                        "too.")],
    "Revolution": [("24", "Every card of every hand is dealt out again one at a time from you, so hand sizes "
                    "end up within one of each other."), ("7", "Dealing is not drawing.")],
    "Timeshift": [("25", "The extra turn is a complete turn straight after this one."),
                  ("17", "It starts after this turn's end phase.")],
    "Morgan le Fay": [_TRIGGER, _TOP_UP, _TOP_OF_DISCARD],
    "Merlin": [_TRIGGER, _PUT_BACK],
}

#: how the engine reads card texts that no rulings item settles (our words; see the tests)
READINGS: dict[str, str] = {
    "Raise Dead": "\"Bottom\" is the position in the pile: the asset closest to the bottom is taken, "
                  "whatever its rank.",
    "Wood Elf": "You pick the cards that go back on top one at a time, the first picked ending on top; "
                "\"done\" sends the rest under the draw pile in their current order.",
    "Morgan le Fay": "If only one card can be looked at, that card goes onto the discard pile.",
    "Titania": "The revealed card stays known to every player while it remains on the draw pile.",
    "Queen Guinevere": "The hand is shown only to the Queen's controller, while they decide.",
    "Lilith": "Declining is allowed; you draw only if you took a card.",
    "Elven Ritual": "Assets are taken one at a time (\"done\" stops early); the whole draw pile is shuffled "
                    "afterwards.",
}


def _heading(card) -> str:
    return f"### {card.rank} · {card.name} ({card.type})"


def render() -> str:
    lines = [
        "# Card reference",
        "",
        "<!-- Generated by scripts/gen_cards_doc.py from engine/cards.py: do not edit by hand. -->",
        "",
        "The 52 cards of Crazier Eights (second edition), one section per suit, ace to king, in our own "
        "words. The printed texts (`../shared/seeds/001_eb6d1b40911bfb99.txt`) stay the authority.",
        "Numbered rulings are items of the shared `../shared/rules/rulings.md`; P-items are this "
        "project's `docs/rulings.md`. Eights are wild only when discarded.",
        "",
    ]
    for suit in SUITS:
        lines += [f"## {SUIT_TITLES[suit]} ({DEFAULT_COLOUR_NAMES[suit]} by default)", ""]
        for card in (c for c in CARDS if suit in c.suits):
            lines += _section(card)
    return "\n".join(lines).rstrip("\n") + "\n"


def _section(card) -> list[str]:
    """One card's section of the page: heading, summary, rulings, the engine's reading."""
    lines = [_heading(card), "", card.summary, ""]
    rulings = RULINGS.get(card.name, [])
    if rulings:
        lines.append("Rulings:")
        lines += [f"- {item if item.startswith('P') else 'item ' + item}: {gist}" for item, gist in rulings]
    else:
        lines.append("Rulings: none beyond the card itself.")
    lines.append("")
    if card.name in READINGS:
        lines += [f"Engine reading: {READINGS[card.name]}", ""]
    return lines


def card_help(name: str) -> str | None:
    """The docs/cards.md section of the card called ``name`` (any case), or None."""
    wanted = name.strip().lower()
    for card in CARDS:
        if card.name.lower() == wanted:
            return "\n".join(_section(card)).strip()
    return None


def write(path: Path = DOC_PATH) -> Path:
    path.write_text(render(), encoding="utf-8")
    return path
