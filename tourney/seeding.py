"""Seeds derived from an event's seed and a place in its schedule.

Every seed is the first 8 bytes (big-endian) of ``sha256(text)``, masked to 63 bits, where
``text`` names the place:

- series seed:  ``"tourney/series/{event_seed}/{series_idx}"``  (first player of game 1, tie
  breaks between players on the same points, ...)
- game seed:    ``"tourney/game/{event_seed}/{series_idx}/{game_idx}"``  (the shuffle)
- entrant seed: ``"tourney/entrant/{event_seed}/{series_idx}/{seat}"``  (sent to the bot; seeds a
  built-in bot's RNG)

In duplicate mode (docs/formats.md, "Duplicate deals") every rotation of a deal must get the
same cards, so the seed names the deal rather than the game, and bots are fresh for every game:

- deal seed:    ``"tourney/deal/{event_seed}/{series_idx}/{set}/{deal}"``  (``set``: the 0-based
  duplicate set of the series; ``deal``: 0-based deal of the set's leg, 0 when a leg is one deal)
- game entrant seed: ``"tourney/entrant/{event_seed}/{series_idx}/{seat}/{game_idx}"``

``series_idx`` is the series' 0-based place in the event's schedule and ``game_idx`` the game's
0-based number in its series. Seeds never depend on timing or on which worker plays a series,
so an event gives identical games at any concurrency and after a resume.
"""

from __future__ import annotations

import hashlib


def derive(*parts) -> int:
    text = "tourney/" + "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") & (2**63 - 1)


def series_seed(event_seed: int, series_idx: int) -> int:
    return derive("series", event_seed, series_idx)


def game_seed(event_seed: int, series_idx: int, game_idx: int) -> int:
    return derive("game", event_seed, series_idx, game_idx)


def entrant_seed(event_seed: int, series_idx: int, seat: int) -> int:
    return derive("entrant", event_seed, series_idx, seat)


def deal_seed(event_seed: int, series_idx: int, set_idx: int, deal: int) -> int:
    """The shuffle of deal ``deal`` of duplicate set ``set_idx``: one seed for every rotation."""
    return derive("deal", event_seed, series_idx, set_idx, deal)


def game_entrant_seed(event_seed: int, series_idx: int, seat: int, game_idx: int) -> int:
    """The seed of a bot opened for one game only (duplicate mode)."""
    return derive("entrant", event_seed, series_idx, seat, game_idx)
