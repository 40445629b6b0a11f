"""Option checks, tile plans and the executors that run engine blocks.

An engine splits its work into independent *tasks* (a tile of the upper
triangle of user pairs, a block of users, a chunk of sampled pairs), writes one
top-level ``kernel(shared, task) -> partial`` and reduces the partials in task
order. Executors only differ in where the kernel runs: threads here
(:class:`LocalExecutor`), a dask cluster in :mod:`puf.engines.dask`. Because
partials are reduced in task order on every executor, results do not depend on
which worker finished first.
"""

__all__ = [
    "ENGINES",
    "check_block_size",
    "check_n_jobs",
    "check_choice",
    "check_user_matrix",
    "open_executor",
    "tile_tasks",
    "LocalExecutor",
]

import contextlib
import numbers
import os
from concurrent.futures import ThreadPoolExecutor

from puf.validation import check_histories, check_k

# Column segments are this many users wide (rounded to whole row blocks): small
# enough that one tile's float64 temporaries stay a few MB, large enough that
# the per-tile overhead (a GEMM call, a sparse product, ~10 numpy calls) is noise.
SEGMENT_WIDTH = 4096


def check_choice(value, *, name, known):
    """Return ``value`` if it is one of ``known``, else raise ValueError listing them."""
    if not isinstance(value, str) or value not in known:
        listed = ", ".join(repr(k) for k in sorted(known))
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")
    return value


def check_user_matrix(matrix, m, *, name="histories", other="effectiveness"):
    """Validate a non-negative (m, n) matrix (CSR out) whose users must match ``other``'s m."""
    import pandas as pd

    csr = check_histories(matrix, n_users=m if isinstance(matrix, pd.DataFrame) else None, name=name)
    if csr.shape[0] != m:
        raise ValueError(f"user counts differ: {other} has {m}, {name} has {csr.shape[0]}")
    return csr


def check_block_size(block_size, *, default):
    """Return ``default`` for None, else ``block_size`` as an int >= 1."""
    if block_size is None:
        return default
    return check_k(block_size, name="block_size")


def check_n_jobs(n_jobs):
    """Return the number of worker threads: None means every core this process may use."""
    if n_jobs is None:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # not on Linux
            return os.cpu_count() or 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs < 1:
        raise ValueError(f"n_jobs must be None or an integer >= 1, got {n_jobs!r}")
    return int(n_jobs)


def tile_tasks(m, block_size, *, width=None):
    """Tiles covering the strict upper triangle of an (m, m) pair matrix.

    Returns ``(segments, tasks)``: ``segments`` are column ranges ``(c0, c1)``
    whose width (default ``SEGMENT_WIDTH``) is a multiple of ``block_size``; each
    task ``(r0, r1, j)`` is a
    row block and the index of a column segment with ``c1 > r0``. Entries with
    column <= row inside a task are the kernel's to mask.

    Examples
    --------
    >>> segments, tasks = tile_tasks(5, 2, width=4)
    >>> segments, tasks
    ([(0, 4), (4, 5)], [(0, 2, 0), (0, 2, 1), (2, 4, 0), (2, 4, 1)])
    """
    width = block_size * max(1, round((width or SEGMENT_WIDTH) / block_size))
    segments = [(c0, min(c0 + width, m)) for c0 in range(0, m, width)]
    tasks = [
        (r0, min(r0 + block_size, m), j)
        for r0 in range(0, m, block_size)
        for j, (c0, c1) in enumerate(segments)
        if c1 - 1 > r0  # some column in the segment lies right of some row
    ]
    return segments, tasks


def _progress_bar(total, desc, enabled):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not enabled, leave=False)


def _blas_single_thread():
    """Pin BLAS to one thread while our own threads run, if threadpoolctl is there.

    Two Python threads each calling a 2-thread OpenBLAS GEMM oversubscribe the
    cores; measured on the 2-core reference machine this made the Jaccard engine
    1.9x slower than one BLAS thread per worker thread.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


class LocalExecutor:
    """Run kernels in this process: serially for one job, else on a thread pool.

    numpy, BLAS and scipy's sparse kernels release the GIL for most of their
    run time, so threads use both cores without copying the shared data.

    Examples
    --------
    >>> def kernel(shared, task):
    ...     return shared["base"] + task
    >>> with LocalExecutor(n_jobs=2) as ex:
    ...     ex.map(kernel, {"base": 10}, [1, 2, 3])
    [11, 12, 13]
    """

    def __init__(self, n_jobs=None):
        self.n_jobs = check_n_jobs(n_jobs)

    def map(self, kernel, shared, tasks, *, progress=False, desc=None):
        """Return ``[kernel(shared, t) for t in tasks]``, in task order."""
        tasks = list(tasks)
        results = []
        # BLAS stays single-threaded even for one job, so a result's last bits do not
        # depend on n_jobs: parallelism is over tasks, reduced in task order.
        with _progress_bar(len(tasks), desc, progress) as bar, _blas_single_thread():
            if self.n_jobs == 1 or len(tasks) <= 1:
                for task in tasks:
                    results.append(kernel(shared, task))
                    bar.update()
                return results
            with ThreadPoolExecutor(self.n_jobs) as pool:
                for result in pool.map(lambda task: kernel(shared, task), tasks):
                    results.append(result)
                    bar.update()
        return results

    def close(self):
        """Nothing to release; present for symmetry with the dask executor."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _open_dask(*, n_jobs, scheduler):
    from .dask import DaskExecutor

    return DaskExecutor(scheduler)


def _open_local(*, n_jobs, scheduler):
    if scheduler is not None:
        raise ValueError("scheduler is only used with engine='dask'")
    return LocalExecutor(n_jobs)


ENGINES = {"local": _open_local, "dask": _open_dask}


def open_executor(engine="local", *, n_jobs=None, scheduler=None):
    """Return the executor for ``engine``, connected and ready (dask connects here).

    Parameters
    ----------
    engine : {"local", "dask"}
        "local": threads in this process; "dask": tasks on a dask.distributed cluster.
    n_jobs : int, optional
        Threads for the local engine (default: all usable cores).
    scheduler : str or distributed.Client, optional
        Dask only: the scheduler address or a client; default the running client.

    Returns
    -------
    LocalExecutor or puf.engines.dask.DaskExecutor
        A context manager with ``map(kernel, shared, tasks, *, progress, desc)``.

    Examples
    --------
    >>> with open_executor("local", n_jobs=1) as ex:
    ...     ex.map(lambda shared, t: t * 2, None, [1, 2])
    [2, 4]
    >>> open_executor("spark")
    Traceback (most recent call last):
    ...
    ValueError: engine must be one of 'dask', 'local', got 'spark'
    """
    check_choice(engine, name="engine", known=ENGINES)
    n_jobs = check_n_jobs(n_jobs)
    return ENGINES[engine](n_jobs=n_jobs, scheduler=scheduler)
