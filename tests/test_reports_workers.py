"""A sweep's points in worker processes: the same table, byte for byte, and the same progress."""

import dataclasses

import pytest

from puf.reports.artificial_relevance import RelabelledWorlds
from puf.reports.sweeps import Base
from puf.reports.sweeps import SWEEPS
from puf.parallel import fork_available
from puf.reports.workers import _slices, run_points

needs_fork = pytest.mark.skipif(not fork_available(), reason="the workers are forked")


class Bar:
    def __init__(self):
        self.n = 0

    def update(self, n):
        self.n += n


def _square(point, tick):
    tick()
    tick()
    return point * point


@needs_fork
def test_run_points_gives_every_result_in_order_and_every_tick():
    bar = Bar()
    assert run_points(_square, list(range(9)), workers=2, bar=bar, worlds=2) == [p * p for p in range(9)]
    assert bar.n == 18


def _fails(point, tick):
    if point == 5:
        raise ValueError("point 5 failed")
    return point


@needs_fork
def test_a_failed_point_in_a_worker_stops_the_run_with_its_error():
    with pytest.raises(ValueError, match="point 5 failed"):
        run_points(_fails, list(range(8)), workers=2)


def test_one_worker_runs_every_point_here():
    seen = []
    assert run_points(lambda p, tick: seen.append(p) or p, [3, 1], workers=1) == [3, 1] and seen == [3, 1]
    with pytest.raises(ValueError, match="workers"):
        run_points(_square, [1], workers=0)


def test_slices_are_contiguous_cover_everything_and_keep_groups_whole_when_nearly_even():
    assert _slices(0, 7, 3) == [[0, 1], [2, 3], [4, 5, 6]]
    assert _slices(0, 2, 5) == [[0], [1]]
    groups = [i // 4 for i in range(16)]
    assert _slices(1, 16, 2, groups) == [[1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]]
    assert _slices(1, 4, 2, [0, 0, 0, 0]) == [[1], [2, 3]]  # one group: cut where it must be
    # Seeds of 8 points after the first: whole seeds would give 23 and 16 points; one is cut instead.
    assert [len(run) for run in _slices(1, 40, 2, [i // 8 for i in range(40)])] == [19, 20]
    assert [len(run) for run in _slices(1, 40, 2, [i // 10 for i in range(40)])] == [19, 20]  # a change 1 away


@needs_fork
@pytest.mark.parametrize("key", ["skewness", "zero_relevance"])
def test_a_sweep_in_workers_writes_the_same_table(key):
    small = Base(n_users=24, n_items=100, k=4)
    source = RelabelledWorlds(small.world(zero_relevance=0.0, random_state=0))
    base = Base(n_users=24, n_items=100, k=4, worlds=source, name="fixed")
    spec = dataclasses.replace(SWEEPS[key], quick_values=(0.0, 2.0) if key == "skewness" else (0.0, 0.5))
    tables = [spec.run(seeds=[0, 1], base=base, quick=True, cache={}, workers=workers).to_csv() for workers in (1, 2)]
    assert tables[0] == tables[1]
