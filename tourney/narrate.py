"""Games in words: engine events, options and results as sentences with entrant names.

The engine's events are plain dicts (``{"type": "play", "player": 0, "card": 12}``); a person
reading a log, a replay or the table of a human seat should read "alice plays Trade (4, Moon)
as an event" instead. Everything here works from what every seat is told at the start of a game
(the card table and the rule set's options) plus the entrant names, so the same words serve the
omniscient log of the referee and the view of one seat::

    >>> import engine
    >>> game = engine.new_game("crazy-eights", players=2, seed=3)
    >>> table = table_for(game, ["alice", "bob"])
    >>> event(table, {"type": "play", "player": 1, "card": 7})
    'bob plays 8 of clubs'
    >>> reason_words("empty_hand")
    'went out: no cards left in hand'

Suits are named as docs/cards.md names them: Crazier Eights' Moon, Ankh, Sun and Eye with the
colour a player names for each (red, green, yellow, blue by default), the classic games' clubs,
diamonds, hearts and spades. One small function per event type; :data:`NARRATORS` lists them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Crazier Eights' suits, as docs/cards.md titles them
SUIT_TITLES = {"moon": "Moon", "ankh": "Ankh", "sun": "Sun", "eye": "Eye"}


@dataclass(frozen=True)
class Table:
    """What narration needs to know about a game: who sits where and what the cards are.

    ``cards`` is the game's card table (card id -> ``{"name", "rank", "suits", "type"}``, the
    ``cards`` of ``game_start``); ``colours`` maps a Crazier Eights suit to the colour players
    name for it (empty for the classic games).
    """

    rule_set: str
    names: tuple[str, ...]
    cards: dict[int, dict] = field(default_factory=dict)
    colours: dict[str, str] = field(default_factory=dict)


def table_for(game: Any, names: list[str]) -> Table:
    """The :class:`Table` of an engine game with these entrant names (seat order)."""
    return make_table(game.rule_set, names, game.card_table(), game.options)


def make_table(rule_set: str, names: list[str], cards: dict, options: dict) -> Table:
    """A :class:`Table` from plain data: a card table with int or str keys (JSON turns them into
    strings) and the rule set's options."""
    return Table(rule_set, tuple(names), {int(k): v for k, v in cards.items()},
                 dict(options.get("suit_colour_names") or {}))


# -- words for things -----------------------------------------------------------------------------

def player(t: Table, seat: int | None) -> str:
    """The entrant in ``seat`` (``seat N`` for a seat without a name)."""
    if seat is None:
        return "nobody"
    return t.names[seat] if 0 <= seat < len(t.names) else f"seat {seat}"


def players(t: Table, seats: list[int]) -> str:
    return " and ".join(player(t, s) for s in seats) if seats else "nobody"


def suit(t: Table, name: str) -> str:
    """A suit as docs/cards.md names it: ``red (Moon)`` in Crazier Eights, ``clubs`` otherwise."""
    if name in SUIT_TITLES:
        colour = t.colours.get(name)
        return f"{colour} ({SUIT_TITLES[name]})" if colour else SUIT_TITLES[name]
    return name


def card(t: Table, cid: int) -> str:
    """A card with its name, rank and suit: ``Trade (4, Moon)`` or ``8 of clubs``."""
    d = t.cards.get(int(cid))
    if d is None:
        return f"card {cid}"
    suits = d.get("suits") or []
    if d.get("name") and any(s in SUIT_TITLES for s in suits):
        return f"{d['name']} ({d.get('rank') or '-'}, {'/'.join(SUIT_TITLES.get(s, s) for s in suits)})"
    return f"{d.get('rank')} of {'/'.join(suits)}"


def cards(t: Table, ids: list[int] | int) -> str:
    """Several cards (or one card id) in words."""
    if isinstance(ids, int):
        return card(t, ids)
    return ", ".join(card(t, c) for c in ids) if ids else "no cards"


def count(n: int, noun: str = "card") -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


#: result reasons and end codes in words (a card's name is a reason too: the card decided it)
REASONS = {
    "empty_hand": "went out: no cards left in hand",
    "out": "went out",
    "last_standing": "the last player standing",
    "all_lost": "every player left the game",
    "impossible_draw": "the draw pile ran out: fewest cards in hand",
    "blocked": "nobody could play or draw: fewest points in hand",
    "decision_cap": "the deal reached the engine's cap of choices: fewest cards or points in hand",
    "forfeit": "the others forfeited",
    "leg_totals": "decided on the points of every deal",
}


def reason_words(reason: str) -> str:
    """A result's or a loss's ``reason`` in words; unknown reasons are card names."""
    if reason in REASONS:
        return REASONS[reason]
    if reason.startswith("forfeit:"):
        return f"forfeit after a fault ({reason[8:]})"
    return f"by the card {reason}" if reason else "no reason given"


_CARD_TEXT = re.compile(r"\(([^()\s]+) ((?:moon|ankh|sun|eye)(?:/(?:moon|ankh|sun|eye))*)\)")
_PLAYER = re.compile(r"\bplayer (\d+)(?!\d)")


def words(t: Table, text: str) -> str:
    """Engine text with seats replaced by names and cards written as everywhere else."""
    text = _PLAYER.sub(lambda m: player(t, int(m.group(1))), text)
    return _CARD_TEXT.sub(
        lambda m: f"({m.group(1)}, {'/'.join(SUIT_TITLES[s] for s in m.group(2).split('/'))})", text)


# -- events -------------------------------------------------------------------------------------

def _hand(e: dict) -> str:
    """The hand a Super Crazy Eights event happened in (each player has a hand and a dummy)."""
    return f" from the {e['hand']} hand" if "hand" in e else ""


def _turn(t: Table, e: dict) -> str:
    return f"-- turn {e['turn']}: {player(t, e['player'])}"


def _draw(t: Table, e: dict) -> str:
    why = e.get("cause") or e.get("why")
    seen = f": {cards(t, e['cards'])}" if e.get("cards") else ""
    where = f" into the {e['hand']} hand" if "hand" in e else ""
    because = ""
    if why:
        because = f" ({why})" if "cause" not in e else f" (because of {why})"
    return f"{player(t, e['player'])} draws {count(e['count'])}{where}{because}{seen}"


def _drew(t: Table, e: dict) -> str:
    return f"{player(t, e['player'])} drew {cards(t, e['cards'])}"


def _discard(t: Table, e: dict) -> str:
    return f"{player(t, e['player'])} discards {card(t, e['card'])}"


def _colour(t: Table, e: dict) -> str:
    return f"{player(t, e['player'])} names {suit(t, e['suit'])}"


def _play(t: Table, e: dict) -> str:
    how = {"asset": " as an asset", "event": " as an event"}.get(e.get("as", ""), "")
    return f"{player(t, e['player'])} plays {card(t, e['card'])}{_hand(e)}{how}"


def _destroy(t: Table, e: dict) -> str:
    return f"destroyed: {cards(t, e['cards'])}"


def _save(t: Table, e: dict) -> str:
    return f"{player(t, e['player'])} saves {card(t, e['card'])} with {e['by']}"


def _bottom(t: Table, e: dict) -> str:
    return f"{card(t, e['card'])} goes to the bottom of the discard pile"


def _skip(t: Table, e: dict) -> str:
    return f"{player(t, e['player'])} skips a turn"


def _reshuffle(t: Table, e: dict) -> str:
    return f"the discard pile is shuffled into a new draw pile of {count(e['count'])}"


def _lose(t: Table, e: dict) -> str:
    return f"{player(t, e['player'])} is out of the game ({reason_words(e['reason'])})"


def _forfeit(t: Table, e: dict) -> str:
    return f"{player(t, e['player'])} forfeits after a fault ({e.get('reason') or 'no code'})"


def _end(t: Table, e: dict) -> str:
    winners = e.get("winners") or []
    who = f"{players(t, winners)} {'wins' if len(winners) == 1 else 'win'}" if winners else "nobody wins"
    points = ""
    if "points" in e:
        points = "; points " + ", ".join(f"{player(t, s)} {p}" for s, p in enumerate(e["points"]))
    over = "deal over" if t.rule_set != "crazier-eights" else "game over"
    return f"{over}: {who} ({reason_words(e['reason'])}){points}"


def _effect(t: Table, e: dict) -> str:
    text = words(t, e["text"])
    if "player" in e and player(t, e["player"]) not in text:  # say whose card it is
        return f"{player(t, e['player'])}'s {e['card']}: {text}"
    return f"{e['card']}: {text}"


def _traded(t: Table, e: dict) -> str:
    return (f"{player(t, e['player'])} gives {cards(t, e['gave'])} to {player(t, e['with'])} "
            f"and takes {cards(t, e['took'])}")


def _dealt(t: Table, e: dict) -> str:
    return f"{player(t, e['player'])} is dealt {cards(t, e['cards'])}"


def _suit(t: Table, e: dict) -> str:
    return f"{player(t, e['player'])} names {suit(t, e['suit'])}"


def _pass(t: Table, e: dict) -> str:
    return f"{player(t, e['player'])} passes"


def _last_card(t: Table, e: dict) -> str:
    return f'{player(t, e["player"])} calls "last card"'


def _missed_call(t: Table, e: dict) -> str:
    return f'{player(t, e["player"])} did not call "last card" and pays for it'


def _starter(t: Table, e: dict) -> str:
    return f"{card(t, e['card'])} is turned up to start the pile (dealer: {player(t, e['dealer'])})"


def _bury(t: Table, e: dict) -> str:
    return f"the starter {card(t, e['card'])} is an eight: it goes back into the draw pile"


def _deal(t: Table, e: dict) -> str:
    return (f"deal {e.get('deal', 1)}: {count(e['hand_size'])} to each hand, "
            f"dealt by {player(t, e['dealer'])}")


def _count(t: Table, e: dict) -> str:
    choice = e["choice"]
    what = "all three remaining hands" if choice == "all" else f"only their {choice} hand"
    return f"{player(t, e['player'])} chooses to count {what}"


def _position(t: Table, e: dict) -> str:
    return "the game starts from a position set up by hand"


#: event type -> its narrator; every event type of the three rule sets is here
NARRATORS: dict[str, Callable[[Table, dict], str]] = {
    "turn": _turn, "draw": _draw, "drew": _drew, "discard": _discard, "colour": _colour,
    "play": _play, "destroy": _destroy, "save": _save, "bottom": _bottom, "skip": _skip,
    "reshuffle": _reshuffle, "lose": _lose, "forfeit": _forfeit, "end": _end, "effect": _effect,
    "traded": _traded, "dealt": _dealt, "suit": _suit, "pass": _pass, "last_card": _last_card,
    "missed_call": _missed_call, "starter": _starter, "bury": _bury, "deal": _deal,
    "count": _count, "position": _position,
}


def event(t: Table, e: dict) -> str:
    """One engine event as a sentence. An event type this module does not know yet (a newer
    engine) is still told in words, by its type and fields, never as a raw dict."""
    narrate = NARRATORS.get(str(e.get("type")))
    if narrate is not None:
        return narrate(t, e)
    fields = ", ".join(f"{k} {v}" for k, v in e.items() if k not in ("type", "only"))
    return f"{str(e.get('type')).replace('_', ' ')}: {fields}"


# -- options and results --------------------------------------------------------------------------

def option(t: Table, option_id: str, engine_label: str = "") -> str:
    """An option id in words: the cards and players it names written as everywhere else."""
    verb, _, arg = option_id.partition(":")
    if verb in ("play", "discard", "card") and arg.isdigit():
        where = engine_label.partition(" from ")[2] if " from " in engine_label else ""
        text = ("" if verb == "card" else verb + " ") + card(t, int(arg))
        return text + (f" from the {where} hand" if where else "")
    if verb in ("colour", "suit") and arg:
        return f"name {suit(t, arg)}"
    if verb == "player" and arg.isdigit():
        return f"choose {player(t, int(arg))}"
    return words(t, engine_label or option_id)


def result_line(t: Table, winners: list[int], reason: str, points: list[int]) -> str:
    """``result: alice wins (went out: ...); points: alice 0, bob 7 (fewer is better)``."""
    who = f"{players(t, winners)} {'wins' if len(winners) == 1 else 'win'}" if winners else "no winner"
    return (f"result: {who} ({reason_words(reason)}); points (fewer is better): "
            + ", ".join(f"{player(t, s)} {p}" for s, p in enumerate(points)))
