"""Crazier Eights: the rule-set options, the teams, and the interned option ids."""

from __future__ import annotations

from typing import Any

from engine.cards import DEFAULT_COLOUR_NAMES, SUITS, promo_card
from engine.common import OptionsError

RULE_SET = "crazier-eights"
FORMAT_VERSION = 1

#: Rule-set switches (rulings.md, end) with the rulings as defaults.
OPTIONS: dict[str, Any] = {
    "suit_colour_names": dict(DEFAULT_COLOUR_NAMES),
    "max_players_two_decks": 8,
    "minions_as_trigger": False,
    "put_back_capped_by_drawn": False,
    "first_destruction_scope": "event",
    "simultaneous_empty": "turn_order",
    "impossible_draw_tie": "shared",
    "eliminated_score": "snapshot",
    "promo_cards": [],
    "hand_size": 7,
}

_CHOICES = {
    "first_destruction_scope": ("event", "per_card"),
    "simultaneous_empty": ("turn_order", "shared"),
    "impossible_draw_tie": ("shared", "turn_order"),
    "eliminated_score": ("snapshot", "zero", "max_plus_one"),
}

# Interned option ids: building "play:17" once per card id keeps the option lists cheap.
_PLAY = [f"play:{i}" for i in range(512)]
_DISCARD = [f"discard:{i}" for i in range(512)]
_CARD = [f"card:{i}" for i in range(512)]
_COLOUR = [f"colour:{s}" for s in SUITS]


def validate_options(options: dict, players: int | None = None) -> dict:
    """The options completed with defaults; unknown names and bad values are OptionsError."""
    if not options:  # the defaults are valid: only the player count is left to check
        out = _defaults()
        _check_players(out, players)
        return out
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise OptionsError(
            f"unknown option {unknown[0]!r} for crazier-eights (known: {', '.join(sorted(OPTIONS))})"
        )
    out = _defaults()
    out.update(options)
    for name, allowed in _CHOICES.items():
        if out[name] not in allowed:
            raise OptionsError(f"option {name} must be one of {', '.join(allowed)}, not {out[name]!r}")
    for name in ("minions_as_trigger", "put_back_capped_by_drawn"):
        if not isinstance(out[name], bool):
            raise OptionsError(f"option {name} must be true or false, not {out[name]!r}")
    if not _names_every_suit(out["suit_colour_names"]):
        raise OptionsError(f"option suit_colour_names must name a colour for each of {', '.join(SUITS)}")
    if not isinstance(out["max_players_two_decks"], int) or not 5 <= out["max_players_two_decks"] <= 8:
        raise OptionsError("option max_players_two_decks must be a whole number from 5 to 8")
    if not isinstance(out["hand_size"], int) or not 1 <= out["hand_size"] <= 12:
        raise OptionsError("option hand_size must be a whole number from 1 to 12")
    promos = out["promo_cards"]
    if not isinstance(promos, list) or len(promos) > 4:
        raise OptionsError("option promo_cards must be a list of at most four cards")
    for spec in promos:
        try:
            promo_card(spec)
        except (ValueError, KeyError, TypeError) as exc:
            raise OptionsError(f"option promo_cards: {exc}") from None
    _check_players(out, players)
    return out


def _defaults() -> dict:
    """The default options, a fresh copy (lists and dicts too)."""
    out = dict(OPTIONS)
    for name in _CONTAINERS:
        out[name] = out[name].copy()
    return out


#: the options whose defaults are lists or dicts (copied for each game: made at every deal)
_CONTAINERS = tuple(name for name, value in OPTIONS.items() if isinstance(value, (list, dict)))


def _check_players(options: dict, players: int | None) -> None:
    most = options["max_players_two_decks"]
    if players is not None and not 2 <= players <= most:
        raise OptionsError(f"crazier-eights is for 2 to {most} players, not {players}")


def _names_every_suit(names: object) -> bool:
    """Whether ``names`` gives each suit a colour name (a non-empty string) and nothing else."""
    return (
        isinstance(names, dict) and set(names) == set(SUITS)
        and all(isinstance(v, str) and v for v in names.values())
    )


def _team_ids(players: int, teams) -> list[int]:
    if not teams:
        return list(range(players))
    seats = sorted(s for team in teams for s in team)
    if seats != list(range(players)):
        raise OptionsError("teams must list every seat exactly once")
    if players not in (4, 6, 8) or len({len(t) for t in teams}) != 1 or len(teams[0]) not in (2, 3):
        raise OptionsError("teams are two or three players each, with 4, 6 or 8 players")
    ids = [0] * players
    for i, team in enumerate(teams):
        for s in team:
            ids[s] = i
    return ids

