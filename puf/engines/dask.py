"""``engine="dask"``: the engines' blocks as tasks on a dask.distributed cluster.

The shared arrays are scattered once to every worker; each task is one tile or
block (the same tasks the local engine runs on threads) and returns a small
partial result; partials are gathered and reduced in task order, so the answer
is the local engine's. Tasks that carry data (a sampled pass's drawn pairs) have
it scattered too, so that the task graph holds its name, not the arrays. When
the workers holding scattered data die, the scheduler cannot rebuild it: it is
scattered again and the unfinished tasks run again (up to :data:`ATTEMPTS`
times), so the answer is still exact; past that, one line names the lost
workers and what to do. dask is an optional extra:
``pip install "puf-harness[dask]"``.
"""

from __future__ import annotations

__all__ = ["ATTEMPTS", "DaskExecutor", "CONNECT_TIMEOUT", "INSTALL_HINT", "SCATTER_TASKS_FROM"]

from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any, Self
import re

from ..loader import file_modules
from .blocks import Scheduler, progress_bar

#: Seconds to wait for a scheduler before giving up, so that a wrong address
#: fails at once instead of after the preparation work.
CONNECT_TIMEOUT = 5

#: Times the tasks are run with the shared arrays (and the tasks' data) scattered anew before a loss is an error.
ATTEMPTS = 3

#: Bytes of the unfinished tasks' own data (dask's ``sizeof``) from which it is scattered, not sent
#: in the task graph: a sampled pass's drawn pairs are, the tiles' corners (a few ints each) are not.
SCATTER_TASKS_FROM = 2**20

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


def _file_modules_plugin(modules: dict[str, tuple[str, str]]) -> Any:
    """A dask worker plugin that gives each worker the ``FILE.py`` measures' modules (name -> (path,
    source)) under the names the harness loaded them by: named for their path, they import nowhere
    else, and what the tasks and the scattered arrays refer to by name then unpickles there, on
    workers that join later too. A module's sibling imports need its folder on the workers'
    PYTHONPATH. (Made here: dask.distributed is an optional extra, and its plugins must subclass
    its WorkerPlugin; dask sends the class by value.)"""
    distributed = _import_distributed()

    class FileModules(distributed.WorkerPlugin):  # type: ignore[name-defined]
        def setup(self, worker: Any) -> None:
            import sys
            import types

            for name, (path, source) in modules.items():
                if name in sys.modules:
                    continue
                module = types.ModuleType(name)
                module.__file__ = path
                sys.modules[name] = module
                try:
                    exec(compile(source, path, "exec"), module.__dict__)
                except BaseException:
                    del sys.modules[name]
                    raise

    return FileModules()


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
        self._sent: set[str] = set()  # the FILE.py modules the workers were given
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
            if not re.fullmatch(
                r"(tcp|tls|ucx|ws|wss)://\S+:\d+|inproc://\S+", scheduler
            ):  # (a malformed one hangs dask)
                raise ValueError(
                    f"{scheduler!r} is not a dask scheduler's address: give PROTOCOL://HOST:PORT, e.g. tcp://10.0.0.5:8786"
                )
            if (
                scheduler.startswith("tls://")
                and distributed.Security().get_connection_args("client")["ssl_context"] is None
            ):
                raise ValueError(  # (dask's client would fail, then hang 10 s at exit closing itself)
                    f"{scheduler!r} is a TLS address, and dask has no TLS settings here (distributed.comm.tls "
                    "in dask's configuration: the CA, the client's certificate and key)"
                )
            try:
                self.client = distributed.Client(scheduler, timeout=timeout, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                said = "" if "Timed out trying to connect" in str(exc) else f" ({exc})"
                raise ValueError(
                    f"cannot reach the dask scheduler at {scheduler!r} within {timeout} s{said}: is "
                    "`dask scheduler` running there, and reachable from here?"
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
            The workers holding the scattered data were lost :data:`ATTEMPTS` times running;
            the message names them and what to do.
        """
        tasks = list(tasks)
        results: dict[int, Any] = {}
        lost: set[str] = set()
        with progress_bar(len(tasks), desc, progress) as bar:
            for _ in range(ATTEMPTS):
                if len(results) == len(tasks):
                    break
                workers = self._workers()
                try:
                    self._attempt(kernel, shared, tasks, results, bar)
                except CancelledError:  # lost dependencies: the scattered data died with its workers
                    lost |= workers - self._workers()
                except (OSError, TimeoutError) as exc:  # the scheduler gone, or every worker
                    if self.client.status == "running" and self._workers():
                        raise  # (the cluster is there: the task's own error)
                    gone, fix = (
                        ("has no workers", "start its workers")
                        if self.client.status == "running"
                        else ("stopped answering", "start it again")
                    )
                    raise ValueError(
                        f"the dask cluster at {self.client.scheduler.address} {gone} ({type(exc).__name__}: "
                        f"{exc}); {fix} and rerun, or run without it"
                    ) from None
            else:
                if len(results) < len(tasks):
                    raise ValueError(
                        f"the dask workers holding the engine's shared arrays or its tasks' data were lost "
                        f"{ATTEMPTS} times (lost: {', '.join(sorted(lost)) or 'not named by the scheduler'}); give "
                        "the workers more memory or check their logs, then run again, or use engine='local'"
                    )
        return [results[i] for i in range(len(tasks))]

    def _workers(self) -> set[str]:
        """The workers the scheduler knows of (none, if it does not answer)."""
        try:
            return set(self.client.scheduler_info()["workers"])
        except (OSError, TimeoutError):
            return set()

    def _attempt(self, kernel, shared, tasks, results, bar):
        """Scatter ``shared`` and run the tasks not in ``results`` yet, adding theirs as they finish."""
        distributed = _import_distributed()
        self._send_file_modules()
        pending = [i for i in range(len(tasks)) if i not in results]
        # A one-element list scatters the whole mapping as a single future.
        (shared_future,) = self.client.scatter([shared], broadcast=True, hash=False)
        todo = [tasks[i] for i in pending]
        payloads = self._scattered_tasks(todo)
        futures = self.client.map(
            _run_task,
            payloads or todo,
            kernel=kernel,
            shared=shared_future,
            pure=False,
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
            self.client.cancel(futures + payloads + [shared_future])

    def _scattered_tasks(self, tasks: list[Any]) -> list[Any]:
        """The tasks scattered, a future each, when they hold :data:`SCATTER_TASKS_FROM` bytes or more; else ``[]``.

        A sampled pass's tasks carry their drawn pairs (1 MiB a task): inside the task graph
        they made it 305 MiB at 2e7 pairs, and dask warned "Sending large graph" past its 10 MB
        threshold (16 bytes a pair: from about 625,000 pairs). Tiles' corners stay in the graph:
        the scheduler reruns the tasks of a lost worker from there, where scattered data dies with it.
        """
        from dask.sizeof import sizeof

        if sum(sizeof(task) for task in tasks) < SCATTER_TASKS_FROM:
            return []
        return self.client.scatter(tasks, hash=False)

    def _send_file_modules(self) -> None:
        """Give the workers the ``FILE.py`` modules loaded since the last call (:func:`_file_modules_plugin`)."""
        modules = {m.__name__: m.__file__ for m in file_modules() if m.__name__ not in self._sent and m.__file__}
        if not modules:
            return
        with_source = {name: (path, Path(path).read_text(encoding="utf-8")) for name, path in modules.items()}
        try:
            self.client.register_plugin(_file_modules_plugin(with_source), name=f"puf-file-modules-{len(self._sent)}")
        except Exception as exc:  # the module's own import failed on a worker
            raise ValueError(
                f"cannot load {', '.join(sorted(modules.values()))} on the dask workers: "
                f"{type(exc).__name__}: {exc}; a module it imports must be on the workers' PYTHONPATH"
            ) from None
        self._sent |= set(modules)

    def close(self) -> None:
        """Close the client if this executor opened it."""
        if self._owned:
            self.client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
