"""``engine="dask"``: the engines' blocks as tasks on a dask.distributed cluster.

The shared arrays are scattered once to every worker; each task is one tile or
block (the same tasks the local engine runs on threads) and returns a small
partial result; partials are gathered and reduced in task order, so the answer
is the local engine's. When the workers holding the scattered arrays die, the
scheduler cannot rebuild them: they are scattered again and the unfinished tasks
run again (up to :data:`ATTEMPTS` times), so the answer is still exact; past that,
one line names the lost workers and what to do. dask is an optional extra:
``pip install "puf-harness[dask]"``.
"""

from __future__ import annotations

__all__ = ["ATTEMPTS", "DaskExecutor", "CONNECT_TIMEOUT", "INSTALL_HINT"]

from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError
from typing import Any, Self

from .blocks import Scheduler, progress_bar

#: Seconds to wait for a scheduler before giving up, so that a wrong address
#: fails at once instead of after the preparation work.
CONNECT_TIMEOUT = 5

#: Times the tasks are run with the shared arrays scattered anew before a loss is an error.
ATTEMPTS = 3

#: What to install for ``engine="dask"``, said when dask.distributed is missing.
INSTALL_HINT = 'engine="dask" needs dask.distributed; install it with: pip install "puf-harness[dask]"'


def _import_distributed():
    try:
        import distributed
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return distributed


def _run_task(task, *, kernel, shared):
    return kernel(shared, task)


class DaskExecutor:
    """Run engine kernels as dask.distributed futures.

    Parameters
    ----------
    scheduler : str, distributed.Client or None
        A scheduler address (``"tcp://host:8786"``; connected with a
        ``CONNECT_TIMEOUT`` s timeout and closed afterwards), a client (left open),
        or None for the currently active client.

    Raises
    ------
    ImportError
        When dask.distributed is not installed (the message says what to install).
    ValueError
        When the scheduler cannot be reached, or no client is running and none is given.

    Examples
    --------
    >>> from distributed import Client, LocalCluster  # doctest: +SKIP
    >>> with LocalCluster(processes=False, n_workers=1) as cluster, Client(cluster) as client:
    ...     with DaskExecutor(client) as ex:
    ...         ex.map(lambda shared, t: shared + t, 10, [1, 2])  # doctest: +SKIP
    [11, 12]
    >>> DaskExecutor(42)  # doctest: +SKIP
    Traceback (most recent call last):
    ...
    ValueError: scheduler must be an address string, a distributed.Client or None, got 42
    """

    def __init__(self, scheduler: Scheduler = None, *, timeout: float | None = None) -> None:
        distributed = _import_distributed()
        timeout = CONNECT_TIMEOUT if timeout is None else timeout
        self._owned = False
        if scheduler is None:
            try:
                self.client = distributed.default_client()
            except ValueError:
                raise ValueError(
                    "engine='dask' needs scheduler= (an address such as 'tcp://host:8786' or a "
                    "distributed.Client), or a distributed.Client already running in this process"
                ) from None
        elif isinstance(scheduler, distributed.Client):
            self.client = scheduler
        elif isinstance(scheduler, str):
            try:
                self.client = distributed.Client(scheduler, timeout=timeout, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise ValueError(
                    f"cannot reach the dask scheduler at {scheduler!r} within {timeout} s: {exc}"
                ) from None
            self._owned = True
        else:
            raise ValueError(f"scheduler must be an address string, a distributed.Client or None, got {scheduler!r}")
        if self.client.status not in ("running", "connecting", "newly-created"):
            raise ValueError(f"the dask client is not running (status {self.client.status!r})")

    def map(
        self,
        kernel: Callable[[Any, Any], Any],
        shared: Any,
        tasks: Iterable[Any],
        *,
        progress: bool = False,
        desc: str | None = None,
    ) -> list[Any]:
        """Return ``[kernel(shared, t) for t in tasks]`` computed on the cluster, in order.

        Raises
        ------
        ValueError
            The workers holding the shared arrays were lost :data:`ATTEMPTS` times running;
            the message names them and what to do.
        """
        tasks = list(tasks)
        results: dict[int, Any] = {}
        lost: set[str] = set()
        with progress_bar(len(tasks), desc, progress) as bar:
            for _ in range(ATTEMPTS):
                if len(results) == len(tasks):
                    break
                workers = set(self.client.scheduler_info()["workers"])
                try:
                    self._attempt(kernel, shared, tasks, results, bar)
                except CancelledError:  # lost dependencies: the scattered arrays died with their workers
                    lost |= workers - set(self.client.scheduler_info()["workers"])
            else:
                if len(results) < len(tasks):
                    raise ValueError(
                        f"the dask workers holding the engine's shared arrays were lost {ATTEMPTS} times "
                        f"(lost: {', '.join(sorted(lost)) or 'not named by the scheduler'}); give the workers "
                        "more memory or check their logs, then run again, or use engine='local'"
                    )
        return [results[i] for i in range(len(tasks))]

    def _attempt(self, kernel, shared, tasks, results, bar):
        """Scatter ``shared`` and run the tasks not in ``results`` yet, adding theirs as they finish."""
        distributed = _import_distributed()
        pending = [i for i in range(len(tasks)) if i not in results]
        # A one-element list scatters the whole mapping as a single future.
        (shared_future,) = self.client.scatter([shared], broadcast=True, hash=False)
        futures = self.client.map(
            _run_task, [tasks[i] for i in pending], kernel=kernel, shared=shared_future, pure=False
        )
        try:
            for future in distributed.as_completed(futures, loop=self.client.loop):
                if future.status == "finished":
                    bar.update()
            results.update(zip(pending, self.client.gather(futures)))
        except CancelledError:
            finished = [(i, f) for i, f in zip(pending, futures) if f.status == "finished"]
            try:  # what finished before the loss need not run again, if its workers live
                results.update(zip([i for i, _ in finished], self.client.gather([f for _, f in finished])))
            except CancelledError:
                pass
            raise
        finally:
            self.client.cancel(futures + [shared_future])

    def close(self) -> None:
        """Close the client if this executor opened it."""
        if self._owned:
            self.client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
