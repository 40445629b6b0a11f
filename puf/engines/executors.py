"""The executors that run engine blocks: threads in this process, or a dask cluster.

Executors only differ in where ``kernel(shared, task)`` runs: threads here
(:class:`LocalExecutor`), a dask cluster in :mod:`puf.engines.dask`. Because
partials are reduced in task order on every executor, results do not depend on
which worker finished first.
"""

from __future__ import annotations

__all__ = ["ENGINES", "LocalExecutor", "open_executor"]

import contextlib
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Self

from .blocks import Scheduler, check_choice, check_n_jobs, progress_bar

if TYPE_CHECKING:
    from .dask import DaskExecutor


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

    def __init__(self, n_jobs: int | None = None) -> None:
        self.n_jobs = check_n_jobs(n_jobs)

    def map(
        self,
        kernel: Callable[[Any, Any], Any],
        shared: Any,
        tasks: Iterable[Any],
        *,
        progress: bool = False,
        desc: str | None = None,
    ) -> list[Any]:
        """Return ``[kernel(shared, t) for t in tasks]``, in task order."""
        tasks = list(tasks)
        results = []
        # BLAS stays single-threaded even for one job, so a result's last bits do not
        # depend on n_jobs: parallelism is over tasks, reduced in task order.
        with progress_bar(len(tasks), desc, progress) as bar, _blas_single_thread():
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

    def close(self) -> None:
        """Nothing to release; present for symmetry with the dask executor."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_dask(*, n_jobs, scheduler):
    from .dask import DaskExecutor

    return DaskExecutor(scheduler)


def _open_local(*, n_jobs, scheduler):
    if scheduler is not None:
        raise ValueError("scheduler is only used with engine='dask'")
    return LocalExecutor(n_jobs)


#: The executors of the engines' blocks by name: ``local`` (processes) and ``dask``.
ENGINES = {"local": _open_local, "dask": _open_dask}


def open_executor(
    engine: str = "local", *, n_jobs: int | None = None, scheduler: Scheduler = None
) -> LocalExecutor | DaskExecutor:
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
