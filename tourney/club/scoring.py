"""Scoring one club game from its entries (rulings.md item 13 for eliminated players), checking
what was entered for it, and a league's rules."""

from __future__ import annotations

from collections.abc import Callable

from tourney.club import RULE_SETS, ClubError
from tourney.club.entries import Entry, Member, parse_value

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
            raise ClubError("two winners: " + " and ".join(e.name for e in zero)
                            + " both have 0 cards; only one player can go out")
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
        raise ClubError("two winners: " + " and ".join(e.name for e in zero)
                        + " both have 0 points; only one player can go out")
    for e in entries:
        e.winner = e.points == 0


#: how a member absent from a round is charged (docs/standings.md, "Absences"); the first is the default
ABSENCE_RULES = ("average", "highest", "none", "fixed")
#: how a withdrawn member's missing rounds count; the first is the default
WITHDRAWAL_RULES = ("penalty", "average", "prorate", "total")


def parse_absence(text: str) -> tuple[str, int | None]:
    """``--absence`` as ``(rule, fixed points)``: a rule name, or a whole number for a fixed penalty.

    >>> parse_absence("highest"), parse_absence("15")
    (('highest', None), ('fixed', 15))
    """
    value = text.strip().lower()
    if value.isascii() and value.isdigit():
        return "fixed", int(value)
    if value in ABSENCE_RULES and value != "fixed":
        return value, None
    raise ClubError(f"unknown absence rule {text!r}; use average, highest, none or a whole number of points")


def absence_charge(rule: str, fixed: int | None, points: list[int]) -> int:
    """Points charged to a member absent from a round whose players scored ``points``: the
    round's average rounded up, its highest, a fixed number, or nothing.

    >>> [absence_charge(r, 12, [0, 3, 5]) for r in ("average", "highest", "fixed", "none")]
    [3, 5, 12, 0]
    """
    if rule == "average":
        return -(-sum(points) // len(points))
    if rule == "highest":
        return max(points)
    if rule == "fixed":
        return fixed or 0
    return 0


def check_rules(rule_set: str, eliminated_score: str, absence: str, withdrawal: str,
                target: int | None) -> tuple[str, int | None]:
    """Check a new league's rules; returns the absence rule as ``(rule, fixed points)``."""
    if rule_set not in RULE_SETS:
        raise ClubError(f"unknown rule set {rule_set!r}; choose one of {', '.join(RULE_SETS)}")
    if eliminated_score not in ELIMINATED_SCORES:
        raise ClubError(f"unknown eliminated score {eliminated_score!r}; "
                        f"choose one of {', '.join(ELIMINATED_SCORES)}")
    if rule_set != "crazier-eights" and eliminated_score != "snapshot":
        raise ClubError(f"{rule_set} has no elimination; --eliminated-score does not apply")
    absence_rule = parse_absence(absence)
    check_withdrawal(withdrawal)
    if target is not None and target <= 0:
        raise ClubError("the target score must be positive")
    return absence_rule


def check_withdrawal(rule: str) -> None:
    if rule not in WITHDRAWAL_RULES:
        raise ClubError(f"unknown withdrawal rule {rule!r}; choose one of {', '.join(WITHDRAWAL_RULES)}")


def check_values(rule_set: str, eliminated_score: str, values: list[tuple[str, str]], expected: list[Member],
                 lookup: Callable[[str], Member], base: dict[int, Entry] | None = None) -> list[Entry]:
    """One game's entries from ``(player, value)`` pairs, checked against the players ``expected``
    in the game and scored; ``lookup`` finds a member by what was typed (a name or ``#2``) and
    ``base`` (for a correction) supplies the values not given. Raises ClubError."""
    exp_ids = {m.id for m in expected}
    given: dict[int, Entry] = {}
    for ref, text in values:
        m = lookup(ref)
        if m.id not in exp_ids:
            if m.withdrawn_after is not None:
                raise ClubError(f"{m.name} withdrew after game {m.withdrawn_after} and does not play this game")
            raise ClubError(f"{m.name} did not play this game")
        if m.id in given:
            raise ClubError(f"{m.name} is given twice")
        cards, points, elim = parse_value(rule_set, m.name, text)
        given[m.id] = Entry(m.id, m.name, text.strip(), cards, elim, points if points is not None else 0)
    entries = []
    missing = []
    for m in expected:
        if m.id in given:
            entries.append(given[m.id])
        elif base is not None and m.id in base:
            entries.append(base[m.id])
        else:
            missing.append(m.name)
    if missing:
        raise ClubError(f"missing player{'s' if len(missing) > 1 else ''}: {', '.join(missing)} "
                        f"(every player of the game needs a value; --absent NAME for who is not playing)")
    score_game(rule_set, eliminated_score, entries)
    return entries
