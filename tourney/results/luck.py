"""Luck-adjusted standings: each entrant's mean adjusted score and Elo ± 95% CI, next to the raw.

:func:`entrant_luck` is the pure part: from per-game seat lists ``[(entrant, raw, adjusted), ...]``
it gives each entrant's games, mean raw and adjusted score, and the adjusted score's Elo with its
95% interval (normal approximation on the mean of the per-game adjusted scores, the variance
estimated from them; docs/evaluation.md, "Luck-adjusted scores"). A seat's score is the share of
the other seats it placed above (1, ½, 0 at two players), so at a table of more than two the Elo
is against the field that entrant met.

:func:`event_luck` is the storage read: the adjusted scores of an event's stored games, computed
from their replays and cached in the ``luck_scores`` table (migration ``m011_luck``) under a key
of the weights used, so re-fitted weights are never mixed with old ones.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from collections.abc import Iterable, Sequence

from tourney.luck.adjust import adjust
from tourney.luck.network import network_key
from tourney.luck.value import fitted, on_by_default
from tourney.results import store
from tourney.stats.elo import Z95, elo_from_score

#: scores are clamped to this range before turning into Elo (fishtest's guard against ±infinity)
CLAMP = (0.001, 0.999)


def _elo(score: float) -> float:
    return elo_from_score(min(max(score, CLAMP[0]), CLAMP[1]))


def estimate(scores: Sequence[float], z: float = Z95) -> dict:
    """Mean, standard error, Elo and its 95% interval of per-game scores (None where undefined)."""
    n = len(scores)
    if n == 0:
        return {"games": 0, "score": None, "se": None, "elo": None, "elo_low": None, "elo_high": None, "elo_pm": None}
    mean = sum(scores) / n
    # the variance with divisor n (maximum likelihood), as the trinomial and pentanomial models
    # and the SPRT's estimate: one n for every interval (docs/evaluation.md)
    se = math.sqrt(sum((s - mean) ** 2 for s in scores) / n / n) if n > 1 else None
    out = {"games": n, "score": round(mean, 6), "se": None if se is None else round(se, 6),
           "elo": round(_elo(mean), 2), "elo_low": None, "elo_high": None, "elo_pm": None}
    if se is not None:
        low, high = _elo(mean - z * se), _elo(mean + z * se)
        out.update(elo_low=round(low, 2), elo_high=round(high, 2), elo_pm=round((high - low) / 2, 2))
    return out


def entrant_luck(games: Iterable[Sequence[tuple[str, float, float]]]) -> dict[str, dict]:
    """Per entrant: ``{"games", "raw_score", "adjusted": estimate(...)}`` from games given as
    ``[(entrant, raw score, adjusted score), ...]`` one tuple per seat. An entrant holding several
    seats of one game scores their mean in that game."""
    raw: dict[str, list[float]] = {}
    adjusted: dict[str, list[float]] = {}
    for seats in games:
        per: dict[str, list[tuple[float, float]]] = {}
        for name, r, a in seats:
            per.setdefault(name, []).append((r, a))
        for name, values in per.items():
            raw.setdefault(name, []).append(sum(v[0] for v in values) / len(values))
            adjusted.setdefault(name, []).append(sum(v[1] for v in values) / len(values))
    return {
        name: {"games": len(raw[name]), "raw": estimate(raw[name]), "adjusted": estimate(adjusted[name])}
        for name in raw
    }


def weights_key(rule_set: str, players: int) -> str:
    """A short key of the weights a game of ``rule_set`` at ``players`` seats is adjusted with
    (the network's where one is fitted for it: tourney.luck.network)."""
    network = network_key(rule_set, players)
    if network is not None:
        text = f"network:{network}"
    else:
        entry = fitted(rule_set, players)
        text = json.dumps(entry["weights"] if entry else None, sort_keys=True)
    return hashlib.sha256(f"{rule_set}:{text}".encode()).hexdigest()[:16]


def _setting(event: dict) -> bool | None:
    """``luck_adjusted`` of an event dict, or of a stored ``events`` row's config JSON."""
    if event.get("luck_adjusted") is not None:
        return bool(event["luck_adjusted"])
    config = event.get("config")
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except ValueError:
            return None
    if isinstance(config, dict):
        for table in (config, config.get("event") or {}):
            if isinstance(table, dict) and table.get("luck_adjusted") is not None:
                return bool(table["luck_adjusted"])
    return None


def enabled(event: dict, players: int | None = None, source: str | None = None) -> tuple[bool, str]:
    """Whether an event's standings and SPRT use luck-adjusted scores, and why (for the output).
    ``source`` is where the event came from (the ``events`` row's ``source``: a config file, or
    the command line, where ``tourney sprt --luck-adjusted/--raw`` sets it); an events row
    carries its own."""
    rule_set = event.get("rule_set", "crazier-eights")
    k = players or event.get("players") or 2
    setting = _setting(event)
    source = source or event.get("source")
    if setting is not None:
        on = bool(setting)
        if source == store.COMMAND_LINE:
            return on, f"{'--luck-adjusted' if on else '--raw'} given on the command line"
        where = f" in {source}" if source else " in the event's config"
        return on, f"luck_adjusted = {'true' if on else 'false'}{where}"
    if on_by_default(rule_set, k):
        return True, f"on by default for {rule_set} at {k} players (bench/luck.py figures hold)"
    return False, f"off by default for {rule_set} at {k} players (bench/luck.py figures do not hold yet)"


def game_luck(db, game_id: int) -> dict[int, tuple[float, float]] | None:
    """Seat -> (raw, adjusted) score of a stored game, from its replay (None: no replay)."""
    row = store.load_replay(db, game_id)
    if row is None:
        return None
    choices = json.loads(row["choices"])
    for n, seat, code in sorted(json.loads(row.get("forfeits") or "[]"), reverse=True):
        choices.insert(n, f"forfeit:{seat}:{code}")  # files from before forfeits joined the choices
    result = adjust(store.replay_start(row), choices)
    return {p: (result.raw[p], result.adjusted[p]) for p in range(len(result.raw))}


def adjusted_by_game(db, game_ids: Iterable[int]) -> dict[int, dict[int, tuple[float, float]]]:
    """game id -> seat -> (raw, adjusted) for stored games: from the ``luck_scores`` cache where it
    holds them under the current weights, else computed from the replay and cached (a read-only
    file just computes them)."""
    ids = list(game_ids)
    meta = {gid: (rule_set, players) for gid, rule_set, players in db.execute(
        f"select game_id, rule_set, players from replays where game_id in ({','.join('?' * len(ids))})", ids)}
    out: dict[int, dict[int, tuple[float, float]]] = {}
    has_cache = "luck_scores" in db.table_names()
    if has_cache and ids:
        for gid, seat, raw, adj, key in db.execute(
                f"select game_id, seat, raw, adjusted, weights from luck_scores "
                f"where game_id in ({','.join('?' * len(ids))})", ids):
            if gid in meta and key == weights_key(*meta[gid]):
                out.setdefault(gid, {})[seat] = (raw, adj)
    fresh: list[dict] = []
    for gid in ids:
        if gid in out and len(out[gid]) == meta[gid][1]:
            continue
        values = game_luck(db, gid)
        if values is None:
            continue
        out[gid] = values
        key = weights_key(*meta[gid])
        fresh.extend({"game_id": gid, "seat": p, "raw": r, "adjusted": a, "weights": key}
                     for p, (r, a) in values.items())
    if fresh and has_cache:
        try:
            db.table("luck_scores").upsert_all(fresh, pk=("game_id", "seat"))
        except sqlite3.OperationalError:  # a read-only file: the scores were computed anyway
            pass
    return out


def event_luck(db, event_id: int) -> list[list[tuple[str, float, float]]]:
    """Every stored game of an event that has a replay, as ``[(entrant, raw, adjusted), ...]``
    per seat (:func:`adjusted_by_game`)."""
    seats: dict[int, list[tuple[int, str]]] = {}
    for game_id, seat, name in db.execute(
            "select g.id, s.seat, e.name from games g join seats s on s.game_id = g.id "
            "join entrants e on e.id = s.entrant_id where g.event_id = ? order by g.id, s.seat", [event_id]):
        seats.setdefault(game_id, []).append((seat, name))
    scores = adjusted_by_game(db, seats)
    return [[(name, scores[gid][seat][0], scores[gid][seat][1]) for seat, name in rows]
            for gid, rows in seats.items() if gid in scores]


def standings_luck(db, event: dict) -> dict:
    """The ``luck`` part of an event's standings: whether it is on and why, and per entrant the
    raw and adjusted estimates (only computed when on)."""
    on, why = enabled(event)
    out: dict = {"on": on, "why": why, "model": "mean adjusted score, normal approximation",
                 "entrants": {}}
    if on:
        out["entrants"] = entrant_luck(event_luck(db, event["id"]))
    return out


