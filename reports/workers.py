"""A sweep's points in worker processes: the same values, in the same order, whatever their number.

:func:`run_points` runs ``run(point, tick)`` for each point of a sweep. The first
points run here (they compute what every later point reads once: the world's
similarities, their ranks, the pairing searches the seeds share); the rest are cut
into contiguous runs, one per forked worker, which inherit those pieces. A
point's values do not depend on where or in what order it runs, so the table is
byte for byte the one a single process writes. Workers report each finished
world, so a progress bar advances as it does in one process.
"""

from __future__ import annotations

__all__ = ["run_points"]

from collections.abc import Callable, Sequence
from typing import Any

from puf.parallel import fork_available, tick_queue, worker_pool

#: What the forked workers run: (run, points, queue), set only while a pool is open.
_JOB: tuple[Callable[..., Any], Sequence[Any], Any] | None = None
_DRAIN_SECONDS = 30.0  # how long the last progress ticks may take to arrive once every run is done


def _run_slice(indices: Sequence[int]) -> list[Any]:
    """In a worker: the results of the points at ``indices``, one progress tick per world."""
    assert _JOB is not None, "the job is set before the pool forks"
    run, points, queue = _JOB
    return [run(points[i], lambda: queue.put(1)) for i in indices]


def _slices(start: int, stop: int, parts: int, groups: Sequence[Any] | None = None) -> list[list[int]]:
    """``range(start, stop)`` cut into ``parts`` contiguous runs of near-equal length (none empty).

    With ``groups`` (a key per index), a cut moves to the nearest place where the key
    changes (the later of two as near: the first run's first group began before ``start``)
    when that is at most an eighth of a run (and one point) away, so a group's points (a
    seed's, sharing its reshapers and pairing searches) stay in one run unless that would
    leave one worker with much more to do: a group cut in two costs its shared setup
    twice, an uneven cut costs the longest run's extra points.
    """
    n = stop - start
    parts = max(1, min(parts, n))
    bounds = [start + (n * p) // parts for p in range(parts + 1)]
    if groups is not None:
        slack = max(1, n // (8 * parts))
        changes = [i for i in range(start + 1, stop) if groups[i] != groups[i - 1]]
        inner = []
        for b in bounds[1:-1]:
            near = min(changes, key=lambda c: (abs(c - b), -c), default=b)
            inner.append(near if abs(near - b) <= slack else b)
        bounds = [start, *sorted(set(inner)), stop]
    return [list(range(a, b)) for a, b in zip(bounds, bounds[1:]) if b > a]


def run_points(
    run: Callable[[Any, Callable[[], None]], Any],
    points: Sequence[Any],
    *,
    workers: int = 1,
    bar: Any = None,
    worlds: int = 1,
    here: int = 1,
    groups: Sequence[Any] | None = None,
) -> list[Any]:
    """``[run(point, tick) for point in points]``, the points after the first ``here`` in worker processes.

    Parameters
    ----------
    run : callable
        ``run(point, tick) -> result``, calling ``tick()`` once per world it finishes;
        a result must pickle. Each point's result must not depend on which points ran
        before it in the same process (the caches it fills only save time).
    points : sequence
    workers : int, default 1
        Processes for the points after the first ``here``; 1 (or no fork on this
        platform, or too few points) runs every point in this process.
    bar : tqdm, optional
        Advanced by one per tick, here or in a worker.
    worlds : int, default 1
        Ticks per point (to drain the last ticks of the workers).
    here : int, default 1
        Points run in this process first, before the workers are forked.
    groups : sequence, optional
        A key per point (its seed): the workers' runs are cut where the key changes,
        nearest to equal lengths, so the points of one key run in one process.

    Returns
    -------
    list
        The results, in the order of ``points``.

    Examples
    --------
    >>> def square(point, tick):
    ...     tick()  # its one world done
    ...     return point * point
    >>> run_points(square, [1, 2, 3, 4], workers=2)
    [1, 4, 9, 16]
    >>> _slices(1, 10, 2, groups=[0, 0, 0, 1, 1, 1, 2, 2, 2, 2])  # cut where the seed changes
    [[1, 2, 3, 4, 5], [6, 7, 8, 9]]
    >>> [len(run) for run in _slices(1, 40, 2, groups=[i // 8 for i in range(40)])]  # not 23 and 16
    [19, 20]
    """
    from puf.validation import check_k

    workers = check_k(workers, name="workers")

    def tick() -> None:
        if bar is not None:
            bar.update(1)

    here = min(len(points), max(0, here))
    if workers == 1 or len(points) - here < 2 or not fork_available():
        return [run(point, tick) for point in points]
    results = [run(point, tick) for point in points[:here]]
    return results + _in_workers(run, points, _slices(here, len(points), workers, groups), bar, worlds)


def _in_workers(
    run: Callable[..., Any], points: Sequence[Any], slices: list[list[int]], bar: Any, worlds: int
) -> list[Any]:
    """The results of each slice of points, each slice in a forked worker, in order."""
    import queue as queues
    from concurrent.futures import FIRST_COMPLETED, wait

    global _JOB
    ticks = tick_queue("fork")
    expected, seen = worlds * sum(len(s) for s in slices), 0

    def drain(timeout: float | None) -> None:
        nonlocal seen
        while seen < expected:
            try:
                ticks.get(timeout=timeout) if timeout else ticks.get_nowait()
            except queues.Empty:
                return
            seen += 1
            if bar is not None:
                bar.update(1)

    _JOB = (run, points, ticks)  # read by the workers, which fork at the first submit
    try:
        with worker_pool(len(slices), start_method="fork") as pool:
            futures = [pool.submit(_run_slice, indices) for indices in slices]
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in done:
                    future.result()  # a failed point stops the run at once (the pool is killed)
                drain(None)
            drain(_DRAIN_SECONDS)
            return [result for future in futures for result in future.result()]
    finally:
        _JOB = None
        ticks.close()
