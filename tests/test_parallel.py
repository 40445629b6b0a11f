"""The one process pool: results in task order, a dead worker named, niceness, no process left."""

import os
import signal

import pytest

from puf.parallel import WorkerDied, describe_exit, fork_available, map_tasks, usable_cores, worker_pool

needs_fork = pytest.mark.skipif(not fork_available(), reason="the workers are forked")


def _slow_square(x):
    import time

    time.sleep(0.05 * (3 - x % 3))  # later tasks finish first
    return x * x


def _dies(x):
    if x == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return x


def _niceness(x):
    return os.nice(0)


class Bar:
    def __init__(self):
        self.n = 0

    def update(self, n):
        self.n += n


@needs_fork
def test_results_come_in_task_order_and_each_is_reported_as_it_finishes():
    seen, bar = [], Bar()
    results = map_tasks(_slow_square, range(6), n_jobs=2, progress=bar, on_result=lambda i, r: seen.append((i, r)))
    assert results == [x * x for x in range(6)]
    assert sorted(seen) == [(x, x * x) for x in range(6)] and bar.n == 6
    assert map_tasks(_slow_square, range(3)) == [0, 1, 4]  # one job: here, in order


@needs_fork
def test_a_worker_that_dies_is_named_and_the_others_are_killed():
    before = set(_children())  # what earlier tests of this process left running is not the pool's
    with pytest.raises(WorkerDied, match=r"a worker process ended during its task \(killed by SIGKILL\)"):
        map_tasks(_dies, range(4), n_jobs=2)
    assert not set(_children()) - before


@needs_fork
def test_workers_run_at_the_niceness_asked_for():
    here = os.nice(0)
    assert set(map_tasks(_niceness, range(2), n_jobs=2, niceness=5)) == {min(here + 5, 19)}


@needs_fork
def test_a_failing_body_kills_the_pool_instead_of_waiting():
    before = set(_children())
    with pytest.raises(KeyboardInterrupt):
        with worker_pool(2) as pool:
            pool.submit(_slow_square, 1).result()
            raise KeyboardInterrupt
    assert not set(_children()) - before


def test_core_count_and_exit_words():
    assert usable_cores() >= 1
    assert describe_exit(-signal.SIGKILL) == "killed by SIGKILL" and describe_exit(137) == "killed by SIGKILL"


def _children():
    """This process's live children (not zombies)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rpartition(")")[2].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[1]) == os.getpid():
                found.append(int(entry))
    return found
