"""Seeds derived from an event's seed, its secret and a place in its schedule.

Every seed is the first 8 bytes (big-endian) of a SHA-256 digest, masked to 63 bits. The digest
is of ``text``, which names the place:

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

An event's seeds are keyed with its **secret** (:func:`new_secret`, drawn when the event is
created and kept only in the database): the digest is then ``HMAC-SHA256(secret, text)``. A bot
that knows the config, and so the event seed, still cannot rebuild a shuffle, and the seed it
receives tells it nothing about the secret. With ``public_seeds = true`` an event has no secret
and the digest is the plain ``SHA-256(text)``: anyone can recompute every deal.

>>> derive("game", 1, 2, 3) == game_seed(1, 2, 3)
True
>>> game_seed(1, 2, 3, secret="00ff") != game_seed(1, 2, 3)
True

``series_idx`` is the series' 0-based place in the event's schedule and ``game_idx`` the game's
0-based number in its series. Seeds never depend on timing or on which worker plays a series,
so an event gives identical games at any concurrency and after a resume.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_secret() -> str:
    """A fresh event secret: 128 random bits from the operating system, as hex."""
    return secrets.token_hex(16)


def derive(*parts: object, secret: str | None = None) -> int:
    """The seed of the place ``parts`` names, keyed with ``secret`` (None: public)."""
    text = ("tourney/" + "/".join(str(p) for p in parts)).encode()
    if secret is None:
        digest = hashlib.sha256(text).digest()
    else:
        digest = hmac.new(secret.encode(), text, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def series_seed(event_seed: int, series_idx: int, secret: str | None = None) -> int:
    return derive("series", event_seed, series_idx, secret=secret)


def game_seed(event_seed: int, series_idx: int, game_idx: int, secret: str | None = None) -> int:
    return derive("game", event_seed, series_idx, game_idx, secret=secret)


def entrant_seed(event_seed: int, series_idx: int, seat: int, secret: str | None = None) -> int:
    return derive("entrant", event_seed, series_idx, seat, secret=secret)


def deal_seed(event_seed: int, series_idx: int, set_idx: int, deal: int, secret: str | None = None) -> int:
    """The shuffle of deal ``deal`` of duplicate set ``set_idx``: one seed for every rotation."""
    return derive("deal", event_seed, series_idx, set_idx, deal, secret=secret)


def game_entrant_seed(event_seed: int, series_idx: int, seat: int, game_idx: int, secret: str | None = None) -> int:
    """The seed of a bot opened for one game only (duplicate mode)."""
    return derive("entrant", event_seed, series_idx, seat, game_idx, secret=secret)
