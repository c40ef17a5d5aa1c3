"""Scoring one club game from its entries (rulings.md item 13 for eliminated players)."""

from __future__ import annotations

from tourney.club import ClubError
from tourney.club.entries import Entry

#: how an eliminated player scores (rulings.md item 13); ``snapshot`` is the project's ruling
ELIMINATED_SCORES = ("snapshot", "zero", "max_plus_one")


def score_game(rule_set: str, eliminated_score: str, entries: list[Entry]) -> None:
    """Fill in ``points`` and ``winner`` of a game's entries; raise ClubError if the result is impossible."""
    if rule_set == "crazier-eights":
        alive = [e for e in entries if not e.eliminated]
        zero = [e for e in alive if e.cards == 0]
        if alive and len(alive) == 1 and not zero:
            e = alive[0]
            raise ClubError(f"{e.name} is the only player not eliminated, so {e.name} won: enter {e.name}=0")
        if alive and not zero:
            raise ClubError("no winner: exactly one player must have 0 cards left")
        if len(zero) > 1:
            raise ClubError("two winners: " + " and ".join(e.name for e in zero) + " both have 0 cards; only one player can go out")
        for e in entries:
            e.winner = e in zero
            if not e.eliminated:
                e.points = e.cards or 0
        base = [e.points for e in entries if not e.eliminated]
        for e in entries:
            if e.eliminated:
                if eliminated_score == "snapshot":
                    e.points = e.cards or 0
                elif eliminated_score == "zero":
                    e.points = 0
                else:
                    others = [x.cards or 0 for x in entries if x.eliminated] + base
                    e.points = max(others) + 1
        # all eliminated together: a draw between them, no winner (rulings.md item 14)
        return
    for e in entries:
        if e.points is None:
            e.points = 0
    zero = [e for e in entries if e.points == 0]
    if not zero:
        raise ClubError("no winner: one player must have 0 points (no cards left)")
    if rule_set == "crazy-eights" and len(zero) > 1:
        raise ClubError("two winners: " + " and ".join(e.name for e in zero) + " both have 0 points; only one player can go out")
    for e in entries:
        e.winner = e.points == 0
