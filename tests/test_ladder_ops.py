"""A ladder as a service that runs for weeks (docs/ladder.md, "Running a ladder for a term"):
the warm processes of a version that leaves play leave the workers with it, in every way of
playing (one process, a local pool, a cluster)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import RANDOM_BOT, processes_with

from tourney.ladder import service
from tourney.results import ladder as rows
from tourney.results import store


def live(marker: str) -> int:
    """How many live (not ended) processes run the bot file ``marker``."""
    return len(processes_with(marker, also=marker, zombies=False))


def counting_run(tmp_path: Path, leave: str, **kwargs) -> list[tuple[bool, int, int]]:
    """A ladder of two program bots (``ann_v1``, ``bo_v1``, each a copy of the example random
    bot, kept warm) and a built-in one. After its fourth game ann's v1 leaves play (``leave``:
    ``retired`` by a v2, or ``disabled``). Returns, at each choice of a batch, whether v1 had
    left play by its end (a v2 is checked at its start), and v1's live processes when the choice
    began and when it ended."""
    bots = {}
    for name in ("ann_v1", "ann_v2", "bo_v1"):
        bots[name] = tmp_path / f"{name}.py"
        bots[name].write_text(Path(RANDOM_BOT).read_text())
    db = store.open_db(tmp_path / "l.db")
    service.new_ladder(db, "s", "crazier-eights", 2, seed=5, limits={"sandbox": "off"})
    ann1 = service.submit(db, "s", "ann", ["{python}", str(bots["ann_v1"])])
    service.submit(db, "s", "bo", ["{python}", str(bots["bo_v1"])])
    service.submit(db, "s", "cy", builtin="greedy")
    seen: list[tuple[bool, int, int]] = []

    def left() -> bool:
        return rows.version(db, ann1["id"])["status"] != "active"

    class Counting(service.LadderRun):
        def next_tasks(self, count, top=None):
            before = live("ann_v1.py")
            tasks = super().next_tasks(count, top)
            seen.append((left(), before, live("ann_v1.py")))
            return tasks

    def on_game(names, payload):
        if runner.played == 4:
            if leave == "retired":
                service.submit(db, "s", "ann", ["{python}", str(bots["ann_v2"])], check=False)
            else:  # as the run does it when a version keeps faulting
                rows.set_version_status(db, ann1["id"], "disabled", "faulted in 3 of its last 3 games")

    runner = Counting(db, "s", batch=4, on_game=on_game, **kwargs)
    runner.play(games=16)
    assert rows.version(db, ann1["id"])["status"] == leave
    return seen


def assert_left_within_one_batch(seen: list[tuple[bool, int, int]]) -> None:
    # the choice of a batch that first finds v1 gone finds its warm processes still there (what
    # is counted could be counted) and says them goodbye; from the next choice on, none is left
    found = [k for k, (gone, _, _) in enumerate(seen) if gone]
    assert len(found) >= 2 and seen[found[0]][1] > 0, seen
    assert all(before == 0 for _, before, _ in seen[found[0] + 1:]), seen
    assert live("ann_v1.py") == 0


@pytest.mark.parametrize("concurrency,leave", [(1, "retired"), (2, "retired"), (2, "disabled")])
def test_a_version_that_leaves_play_leaves_the_workers(tmp_path, concurrency, leave):
    seen = counting_run(tmp_path, leave, concurrency=concurrency)
    assert_left_within_one_batch(seen)
    # on one process or a local pool the batch is chosen once the last one is over: the idle
    # processes are gone before the next batch begins
    first = next(k for k, (gone, _, _) in enumerate(seen) if gone)
    assert seen[first][2] == 0, seen


def test_a_version_that_leaves_play_leaves_the_cluster_workers(tmp_path):
    distributed = pytest.importorskip("distributed")
    import dask

    with (dask.config.set({"distributed.scheduler.allowed-failures": 0}),
          distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None) as cluster):
        # planning ahead (the cluster's default): tables of v1 may still be in play when it
        # leaves; their processes go when those tables end, within the batch
        seen = counting_run(tmp_path, "retired", cluster=cluster.scheduler_address, cluster_group=2)
    assert_left_within_one_batch(seen)
