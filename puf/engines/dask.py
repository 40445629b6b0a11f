"""``engine="dask"``: the engines' blocks as tasks on a dask.distributed cluster.

The shared arrays are scattered once to every worker; each task is one tile or
block (the same tasks the local engine runs on threads) and returns a small
partial result; partials are gathered and reduced in task order, so the answer
is the local engine's. dask is an optional extra: ``pip install "puf-harness[dask]"``.
"""

from __future__ import annotations

__all__ = ["DaskExecutor", "CONNECT_TIMEOUT", "INSTALL_HINT"]

from collections.abc import Callable, Iterable
from typing import Any, Self

from .blocks import Scheduler, progress_bar

#: Seconds to wait for a scheduler before giving up, so that a wrong address
#: fails at once instead of after the preparation work.
CONNECT_TIMEOUT = 5

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
        """Return ``[kernel(shared, t) for t in tasks]`` computed on the cluster, in order."""
        distributed = _import_distributed()
        tasks = list(tasks)
        if not tasks:
            return []
        # A one-element list scatters the whole mapping as a single future.
        (shared_future,) = self.client.scatter([shared], broadcast=True, hash=False)
        futures = self.client.map(_run_task, tasks, kernel=kernel, shared=shared_future, pure=False)
        try:
            with progress_bar(len(tasks), desc, progress) as bar:
                for _ in distributed.as_completed(futures, loop=self.client.loop):
                    bar.update()
            return self.client.gather(futures)
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
