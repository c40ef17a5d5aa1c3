"""The series of an event left to play, as tasks for :func:`tourney.events.play.run_series`.

Below both ways of playing them, the local pool (:mod:`tourney.events.runner`) and the Dask
cluster (:mod:`tourney.events.cluster`): each needs a series' stored games to start it again.
"""

from __future__ import annotations

from tourney.events.play import SeriesTask
from tourney.formats import get
from tourney.results import store


def pending_tasks(db, event_id: int, cfg) -> list[SeriesTask]:
    """The unfinished series of an event as tasks (with their stored games)."""
    specs = {s["name"]: s for s in cfg.resolved_entrants()}
    secret = store.event_secret(db, event_id)
    return [_task(cfg.event, specs, secret, s, [e["name"] for e in s["entrants"]],
                  stored_games(db, s["id"]))
            for s in store.series_rows(db, event_id) if s["status"] != "finished"]


def item_tasks(cfg, items: list[dict], secret: str | None) -> list[SeriesTask]:
    """Schedule items not stored yet (a round played ahead of its confirmation) as tasks."""
    specs = {s["name"]: s for s in cfg.resolved_entrants()}
    return [_task(cfg.event, specs, secret, item, item["entrants"], []) for item in items]


def _task(ev: dict, specs: dict, secret: str | None, s: dict, names: list[str],
          done: list[dict]) -> SeriesTask:
    return SeriesTask(
        idx=s["idx"], kind=s["kind"], rule_set=ev["rule_set"], options=ev["options"],
        event_seed=ev["seed"], seed=s["seed"], games_target=s["games_target"],
        max_games=ev.get("max_games"), entrants=[specs[name] for name in names], done=done,
        secret=secret, duplicate=bool(ev.get("duplicate")), play_all=bool(ev.get("play_all")),
        seed_idx=get(ev["format"]).seed_index(ev, s["idx"]),
    )


def stored_games(db, series_id: int) -> list[dict]:
    """A series' stored games as a task's ``done`` list (what replaying them needs)."""
    return [
        {
            "idx": g["idx"],
            "first_player": g["first_player"],
            "winners": g["winners"],
            "points": [st["points"] for st in g["seats"]],
            "placements": [st["placement"] for st in g["seats"]],
            "reason": g["reason"],
        }
        for g in store.series_games(db, series_id)
    ]
