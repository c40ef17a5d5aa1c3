"""Why a game ended: the result reasons stored with every game (``games.reason``) and shown in
JSON, as one enum (the stored and printed value is the string).

The rule sets (engine/) give these; a reason may also be a card's name (the card decided the
game) or ``forfeit:<code>`` for a seat's fault, which stay plain strings.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    EMPTY_HAND = "empty_hand"          # a player went out: no cards left in hand
    OUT = "out"                        # went out (the classic rule sets)
    LAST_STANDING = "last_standing"    # every other player was eliminated
    ALL_LOST = "all_lost"              # every player left the game
    IMPOSSIBLE_DRAW = "impossible_draw"  # the draw pile ran out: fewest cards in hand
    BLOCKED = "blocked"                # nobody could play or draw: fewest points in hand
    FORFEIT = "forfeit"                # the others forfeited
    LEG_TOTALS = "leg_totals"          # a game of several deals, decided on their totals
    DECISION_CAP = "decision_cap"      # the deal reached engine.common.DECISION_CAP (ruling P18)
