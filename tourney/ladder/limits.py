"""A ladder's bot limits (docs/ladder.md, "Limits"): every limit of an event's ``[limits]``
(docs/protocol.md), with defaults safe for strangers' code, changed later by ``tourney ladder
set`` with the change recorded. The limits in force apply to every version, whenever it was
submitted, from the next batch of a running ``ladder run``."""

from __future__ import annotations

import dataclasses

from tourney.bots.spec import Limits, Reuse
from tourney.club.league import default_author, now_utc
from tourney.config import ConfigError, check_limits
from tourney.errors import UserError
from tourney.results import ladder as rows

#: a ladder's bot limits unless it says otherwise: strangers' code is held to 1 GiB of address
#: space (Python with numpy and Node.js start well within it; a JVM needs more) and a warm
#: process holding more than 512 MiB is replaced between games. The other limits are the
#: referee's (docs/protocol.md, "Time and limits"); ``cpu_seconds`` stays unset, since a limit
#: over a process's life would end warm processes (the decision timeout bounds each turn).
LIMITS = {"memory_mb": 1024, "max_rss_mb": 512}
#: the limits that may be lifted (set to None: no limit of tourney's own)
LIFTABLE = ("time_bank", "memory_mb", "cpu_seconds", "max_games", "max_rss_mb")


def check(limits: dict) -> dict:
    """``limits`` (keys of an event's ``[limits]``, docs/protocol.md), checked: one clear error
    for an unknown key or a bad value. None lifts a limit of :data:`LIFTABLE`."""
    lifted = sorted(k for k, v in limits.items() if v is None and k not in LIFTABLE)
    if lifted:
        raise ConfigError(f"limits.{lifted[0]} cannot be lifted (only {', '.join(LIFTABLE)} can)")
    check_limits("", "limits", {k: v for k, v in limits.items() if v is not None})
    return dict(limits)


def limits_of(ladder: dict) -> dict:
    """The bot limits a ladder plays with now: its own over :data:`LIMITS` (None: lifted)."""
    return {**LIMITS, **(ladder["settings"].get("limits") or {})}


def limits_in_force(ladder: dict) -> dict:
    """Every bot limit a ladder's versions play with now, the referee's defaults included."""
    return {**Limits().to_dict(), **dataclasses.asdict(Reuse()), "sandbox": "auto", **limits_of(ladder)}


def version_spec(ladder: dict, version: dict) -> dict:
    """What a version runs with now: its spec, with the ladder's limits as they are now (a
    change applies to every version; an upload from the browser keeps its sandbox on)."""
    spec = version["spec"]
    if not spec.get("command"):
        return spec
    own = spec.get("limits") or {}
    limits = {**own, **limits_of(ladder)}
    if own.get("sandbox") == "on":
        limits["sandbox"] = "on"
    return {**spec, "limits": {k: v for k, v in limits.items() if v is not None}}


def set_limits(db, ladder: dict, changes: dict, by: str | None = None) -> dict:
    """Change ``ladder``'s bot limits (None lifts one of :data:`LIFTABLE`) and record the change
    in its settings' ``changes``: when, by whom, each limit from what to what. A running
    ``ladder run`` plays with them from its next batch. Returns the settings."""
    if not changes:
        raise UserError("give a limit to change (see: tourney ladder set --help)")
    check(changes)
    before = limits_of(ladder)
    settings = dict(ladder["settings"])
    settings["limits"] = {**(settings.get("limits") or {}), **changes}
    settings["changes"] = [*settings.get("changes", []),
                           {"at": now_utc(), "by": by or default_author(),
                            "limits": {k: [before.get(k), changes[k]] for k in changes}}]
    rows.update_settings(db, ladder["id"], settings)
    return settings
