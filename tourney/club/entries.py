"""What a club secretary types: card values and ``NAME=VALUE`` entries, read into numbers."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine import crazy_eights, super_crazy_eights
from engine.eights_family import RANK_NAMES
from tourney.club import ClubError


def _rank_of(token: str) -> int:
    """A card as typed -> its rank number 1..13; raises ClubError. Ranks are A, 2-9, 10 or T
    (as the engine writes cards: ``TD``), J, Q, K, or the words ace, jack, queen, king; a suit
    letter or symbol may follow.

    >>> [_rank_of(t) for t in ("8", "8h", "10s", "T", "td", "Kd", "ace", "Q♠")]
    [8, 8, 10, 10, 10, 13, 1, 12]
    """
    t = token.strip().upper()
    t = {"ACE": "A", "JACK": "J", "QUEEN": "Q", "KING": "K", "TEN": "10"}.get(t, t)
    m = re.fullmatch(r"(10|T|[2-9]|[AJQK])[HDCS♥♦♣♠]?", t)
    if not m:
        raise ClubError(f"not a card: {token!r} (use ranks A, 2-9, 10 or T, J, Q, K, optionally with a suit: 8h)")
    rank = "10" if m.group(1) == "T" else m.group(1)
    return RANK_NAMES.index(rank) + 1


#: the engine's scoring of a card left in hand, the one source of card values (crazier-eights
#: counts cards instead)
_CARD_POINTS = {
    "crazy-eights": crazy_eights.card_points,
    "super-crazy-eights": super_crazy_eights.card_points,
}


def card_value(rule_set: str, rank: int) -> int:
    """Points of one card of ``rank`` (1 ace ... 13 king) left in hand, as the engine scores it
    (document 003 for crazy-eights, 002 for super-crazy-eights).

    >>> card_value("crazy-eights", 8), card_value("crazy-eights", 13), card_value("crazy-eights", 1)
    (50, 10, 1)
    >>> card_value("super-crazy-eights", 2), card_value("super-crazy-eights", 10)
    (20, 10)
    """
    if rule_set not in _CARD_POINTS:
        raise ClubError(f"rule set {rule_set} scores cards by count, not by value")
    if not 1 <= rank <= len(RANK_NAMES):
        raise ClubError(f"no card has rank {rank}")
    # a card's value depends on its rank alone, so any suit will do to name it for the engine
    return _CARD_POINTS[rule_set](RANK_NAMES[rank - 1] + "S")


@dataclass
class Member:
    """A player of a league: the roster number, and when they joined and withdrew (after which
    game numbers)."""

    id: int
    roster: int
    name: str
    start_points: int
    joined_after: int
    withdrawn_after: int | None


@dataclass
class Entry:
    """One player's result in one game, as entered and as scored."""

    member_id: int
    name: str
    entry: str
    cards: int | None
    eliminated: bool
    points: int = 0
    winner: bool = False


#: the largest number a value may hold: far above any real hand, far below what SQLite can store
MAX_NUMBER = 99_999


def digits_hint(text: str) -> str:
    """What to add to a refusal when ``text`` holds digits of another script: a number is typed
    with 0-9 only, so that what is stored is what everyone reads.

    >>> digits_hint("\u0663"), digits_hint("\uff15"), digits_hint("x5")
    (' (type the digits 0-9)', ' (type the digits 0-9)', '')
    """
    return " (type the digits 0-9)" if any(c.isdigit() and not c.isascii() for c in text) else ""


def _number(name: str, digits: str) -> int:
    if len(digits.lstrip("-")) > len(str(MAX_NUMBER)) or abs(int(digits)) > MAX_NUMBER:
        raise ClubError(f"{name}: {digits} is too large (at most {MAX_NUMBER})")
    return int(digits)


def parse_value(rule_set: str, name: str, text: str) -> tuple[int | None, int | None, bool]:
    """Parse what was entered for one player: ``(cards, points, eliminated)``.

    crazier-eights: ``N`` cards left, or ``elim:N`` eliminated holding N cards.
    crazy-eights / super-crazy-eights: ``N`` points (card values already added up), or the cards
    themselves joined by ``+`` or spaces (``8h+K+T``), scored by their values. A bare number is
    points, so a lone eight is typed with its suit or a ``+`` (``8h``, ``8+``), not ``8``.
    """
    raw = text.strip()
    if not raw:
        raise ClubError(f"no value for {name}")
    if rule_set == "crazier-eights":
        elim = False
        body = raw
        if raw.lower().startswith("elim"):
            elim = True
            body = raw[4:].lstrip(":").strip()
            if body == "":
                raise ClubError(f"{name}: give the cards held when eliminated, e.g. elim:5")
        if not re.fullmatch(r"-?[0-9]+", body):
            raise ClubError(f"{name}: cards left must be a whole number, got {raw!r}{digits_hint(raw)}")
        n = _number(name, body)
        if n < 0:
            raise ClubError(f"{name}: cards left cannot be negative ({n})")
        return n, None, elim
    if raw.lower().startswith("elim"):
        raise ClubError(f"{name}: {rule_set} has no elimination")
    if re.fullmatch(r"-?[0-9]+", raw):
        n = _number(name, raw)
        if n < 0:
            raise ClubError(f"{name}: points cannot be negative ({n})")
        return None, n, False
    tokens = [t for t in re.split(r"[+\s]+", raw) if t]
    ranks = []
    for tok in tokens:
        try:
            ranks.append(_rank_of(tok))
        except ClubError as e:
            raise ClubError(f"{name}: {e}{digits_hint(tok)}") from None
    return len(ranks), sum(card_value(rule_set, r) for r in ranks), False


def parse_pairs(specs: list[str], split: bool = True) -> list[tuple[str, str]]:
    """``["A=0,B=3", ...]`` -> ``[("A", "0"), ("B", "3")]``; with ``split=False`` each spec is one pair
    (for names containing commas). The value is after the *last* ``=``."""
    out = []
    for spec in specs:
        items = spec.split(",") if split else [spec]
        for item in items:
            if not item.strip():
                continue
            if "=" not in item:
                raise ClubError(f"expected NAME=VALUE, got {item.strip()!r}")
            name, value = item.rsplit("=", 1)
            if not name.strip():
                raise ClubError(f"expected NAME=VALUE, got {item.strip()!r}")
            out.append((name.strip(), value.strip()))
    return out
