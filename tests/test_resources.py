"""Telling which limit a faulting bot had reached (tourney/bots/resources.py), from counts fed in.

The end-to-end cases, real bots that fork, open and write until refused, are in
tests/test_seal.py; these pin the reading of the process count, which races with forks under way.
"""

import pytest

from tourney.bots import resources
from tourney.bots.resources import Resources, used_up

LIMITS = Resources(processes=128, open_files=None)  # "near" the process limit: 116 and up


@pytest.fixture
def counts(monkeypatch):
    """Feed the process counts that successive reads of the sandbox find; returns the reads made."""
    reads: list[int] = []

    def feed(*seen: int) -> list[int]:
        def tasks_below(pid):
            n = seen[min(len(reads), len(seen) - 1)]
            reads.append(n)
            return {1000 + i: 1 for i in range(n)}

        monkeypatch.setattr(resources, "_tasks_below", tasks_below)
        return reads

    return feed


def test_a_swarm_still_forking_is_read_again_until_its_forks_show(counts):
    # read as a fork is refused, the count falls short of the limit by the forks still under
    # way (117 of 128 was seen on a busy machine); read again, they show
    reads = counts(105, 112, 128)
    said = used_up(LIMITS, inner=1, scratch_fd=None)
    assert said == "it had used up its processes and threads (128, limits.max_processes = 128)"
    assert reads == [105, 112, 128]


def test_a_count_far_below_the_limit_is_read_once(counts):
    # 57 tasks with a fork each under way are at most 114: short of 116, nothing to wait for
    reads = counts(57, 128)
    assert used_up(LIMITS, inner=1, scratch_fd=None) is None
    assert reads == [57]


def test_a_steady_count_short_of_the_limit_is_not_the_limit(counts, monkeypatch):
    monkeypatch.setattr(resources, "STEADY_S", 0.05)
    reads = counts(90, 100, 100)  # grows, then holds at 100: the bot failed for another reason
    assert used_up(LIMITS, inner=1, scratch_fd=None) is None
    assert reads[:3] == [90, 100, 100] and set(reads[1:]) == {100}


def test_the_wait_has_an_end_even_if_the_count_never_settles(monkeypatch):
    monkeypatch.setattr(resources, "SETTLE_S", 0.05)
    reads = []

    def ever_changing(pid):
        reads.append(60 + len(reads) % 2)  # 60, 61, 60, ...: never steady, never near
        return {1000 + i: 1 for i in range(reads[-1])}

    monkeypatch.setattr(resources, "_tasks_below", ever_changing)
    assert used_up(LIMITS, inner=1, scratch_fd=None) is None
    assert len(reads) > 1


def test_without_a_process_limit_nothing_is_waited_for(counts):
    reads = counts(500)
    assert used_up(Resources(processes=None, open_files=None), inner=1, scratch_fd=None) is None
    assert reads == [500]
