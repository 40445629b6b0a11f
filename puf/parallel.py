"""Work in parallel: the one core count, the one process pool, and children that end with the harness.

Every default of one thread or process per core reads :func:`usable_cores`. Every
process pool of the harness (the property matrix, the power table, the designer, the
report's sweeps) is a :func:`worker_pool`, mapped over by :func:`map_tasks` or
collected with :func:`completed`: its workers start by fork where the platform has it
(they inherit what this process loaded, a measure read from a file included), may run
at a lower priority, ignore Ctrl-C (the terminal sends it to the whole group: the
parent handles it), and die with the parent even when it is killed with SIGKILL
(:func:`die_with_parent`). When the work fails, is interrupted or is ended by SIGTERM,
the workers are killed, not waited for; a worker that dies is named by how it ended
(:class:`WorkerDied`). The engines keep their thread and dask executors and the
measures' call boundary its own processes (:mod:`puf.properties.running.isolation`); both take
their core count and their parent-death rule from here.
"""

from __future__ import annotations

__all__ = [
    "usable_cores",
    "fork_available",
    "die_with_parent",
    "start_child",
    "raised_again",
    "describe_exit",
    "WorkerDied",
    "worker_pool",
    "progress_bar",
    "completed",
    "map_tasks",
    "tick_queue",
]

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar
import contextlib
import ctypes
import functools
import os
import signal
import sys
import threading
import time

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.queues import Queue

K = TypeVar("K")
_PR_SET_PDEATHSIG = 1


def usable_cores() -> int:
    """Return how many cores this process may run on (its CPU affinity where the OS has one).

    Returns
    -------
    int
        At least 1. On Linux, the size of the affinity mask (a container's or a
        ``taskset``'s limit), which ``os.cpu_count`` does not see.

    Examples
    --------
    >>> usable_cores() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def fork_available() -> bool:
    """Whether worker processes can be forked here (they inherit this process's state).

    Examples
    --------
    >>> isinstance(fork_available(), bool)
    True
    """
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def describe_exit(code: int | None) -> str:
    """Words for a process's exit code (negative, or 128 + n as shells say: killed by signal n).

    Examples
    --------
    >>> describe_exit(3), describe_exit(-9), describe_exit(143), describe_exit(None)
    ('exit code 3', 'killed by SIGKILL', 'killed by SIGTERM', 'unknown status')
    """
    if code is None:
        return "unknown status"
    if code < 0 or code > 128:
        number = -code if code < 0 else code - 128
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exit code {code}"


class WorkerDied(RuntimeError):
    """A worker process ended before it answered (``os._exit``, a crash, a kill)."""


def _parent_death_signal() -> bool:
    """Ask the kernel for SIGKILL when the parent ends; False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch(parent_pid: int, interval: float) -> None:
    while os.getppid() == parent_pid:
        time.sleep(interval)
    os._exit(1)


def die_with_parent(parent_pid: int, *, interval: float = 0.5) -> None:
    """End this process when the process ``parent_pid`` (its parent) ends.

    Call it first thing in a child process; the parent passes its own pid
    (``os.getpid()`` before starting the child), so a parent that ended before
    the call is noticed too. On Linux the kernel sends SIGKILL when the parent
    ends (``prctl(PR_SET_PDEATHSIG)``); elsewhere a watchdog thread polls the
    parent's pid between bytecodes, so a child stuck in C code is ended by its
    parent's cleanup instead.

    Parameters
    ----------
    parent_pid : int
        The pid of the parent, as the parent saw it.
    interval : float, default 0.5
        Seconds between two looks at the parent where the kernel cannot signal.

    Examples
    --------
    >>> import subprocess, sys
    >>> code = "import os; from puf.parallel import die_with_parent; die_with_parent(os.getppid())"
    >>> subprocess.run([sys.executable, "-c", code]).returncode
    0
    """
    if not _parent_death_signal():
        threading.Thread(target=_watch, args=(parent_pid, interval), daemon=True, name="puf-parent-watchdog").start()
    if os.getppid() != parent_pid:
        os._exit(1)  # the parent ended before the signal was asked for


def start_child(parent_pid: int, *, niceness: int = 0) -> None:
    """Start a child process of the harness (a pool's worker, a measure's keeper): it dies with its
    parent (:func:`die_with_parent`), leaves Ctrl-C to it, ends on SIGTERM and runs ``niceness`` lower.

    Examples
    --------
    >>> import subprocess, sys
    >>> code = "import os, signal; from puf.parallel import start_child; start_child(os.getppid()); "
    >>> code += "print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)"
    >>> subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    'True\\n'
    """
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent's
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if niceness and hasattr(os, "nice"):
        os.nice(niceness)


@contextlib.contextmanager
def raised_again(kind: type[BaseException], again: Callable[[BaseException], object]) -> Iterator[None]:
    """Within the body, an exception of ``kind`` that Python drops calls ``again`` with it: one
    raised by a signal's handler in an at-fork callback (as a pool forks its workers) or in a
    finaliser, which Python reports through ``sys.unraisablehook`` and goes on. ``again`` makes
    it come back where it unwinds the body (the signal sent anew, the alarm set anew); any other
    dropped exception is reported as before.

    Examples
    --------
    >>> class Dropped:
    ...     def __del__(self):
    ...         raise KeyboardInterrupt
    >>> seen = []
    >>> with raised_again(KeyboardInterrupt, seen.append):
    ...     dropped = Dropped()
    ...     del dropped
    >>> [type(exc).__name__ for exc in seen]
    ['KeyboardInterrupt']
    """
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, kind):
            again(unraisable.exc_value)
        else:
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


def _context(start_method: str | None) -> Any:
    import multiprocessing

    if start_method is None:
        start_method = "fork" if fork_available() else "spawn"
    return multiprocessing.get_context(start_method)


def _kill(pool: ProcessPoolExecutor, *, broken: bool = False) -> str:
    """Kill the pool's processes and reap them; return how the first to die had ended."""
    import time

    # The pool's own table can be emptied by its manager thread once a worker dies, so the
    # processes are read from the record kept as they started (worker_pool's _Pool).
    processes = list(getattr(pool, "started", None) or (getattr(pool, "_processes", None) or {}).values())

    def ended() -> list[int]:
        return [p.exitcode for p in processes if p.exitcode not in (None, 0, -signal.SIGTERM)]

    # A broken pool has a dead worker, but its pipe can close before the kernel reports its
    # status: wait briefly for it, so that the death is named.
    deadline = time.monotonic() + 2.0
    while broken and not ended() and time.monotonic() < deadline:
        time.sleep(0.01)
    how = ended()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.join(5.0)
    return describe_exit(how[0] if how else None)


@contextlib.contextmanager
def worker_pool(n_jobs: int, *, start_method: str | None = None, niceness: int = 0) -> Iterator[ProcessPoolExecutor]:
    """A process pool whose workers die with this process and are killed if the body fails.

    Parameters
    ----------
    n_jobs : int
        Processes in the pool.
    start_method : str, optional
        A :mod:`multiprocessing` start method; default "fork" where the platform
        has it (the workers inherit this process's modules), else "spawn".
    niceness : int, default 0
        Added to the workers' Unix ``nice`` value (10: they take the cores the
        caller's own work leaves idle).

    Raises
    ------
    WorkerDied
        A worker ended during the body (``os._exit``, a crash, a kill), named by
        how it ended; the other workers are killed.

    Examples
    --------
    >>> with worker_pool(2) as pool:
    ...     sorted(pool.map(abs, [-1, 2]))
    [1, 2]
    """
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    class _Pool(ProcessPoolExecutor):
        started: list[Any] = []

        def _spawn_process(self) -> None:  # every worker it starts, kept for _kill
            super()._spawn_process()  # type: ignore[misc]
            self.started = [*self.started, *(p for p in self._processes.values() if p not in self.started)]

    pool = _Pool(
        max_workers=n_jobs,
        mp_context=_context(start_method),
        initializer=functools.partial(start_child, niceness=niceness),
        initargs=(os.getpid(),),
    )
    try:
        yield pool
    except BrokenProcessPool:
        how = _kill(pool, broken=True)
        raise WorkerDied(f"a worker process ended during its task ({how})") from None
    except BaseException:
        _kill(pool)
        raise
    pool.shutdown(wait=True)


def tick_queue(start_method: str | None = None) -> Queue[Any]:
    """A queue that the workers of a :func:`worker_pool` of ``start_method`` inherit and put on.

    Examples
    --------
    >>> queue = tick_queue()
    >>> queue.put(1); queue.get(timeout=5)
    1
    """
    queue: Queue[Any] = _context(start_method).Queue()
    return queue


def progress_bar(progress: Any, total: int, *, desc: str, unit: str) -> AbstractContextManager[Any]:
    """``progress`` as something with ``update(n)``: a bar of the caller's, a new tqdm bar, or None.

    Examples
    --------
    >>> with progress_bar(False, 3, desc="puf check", unit="check") as bar:
    ...     bar is None
    True
    """
    if hasattr(progress, "update"):
        return contextlib.nullcontext(progress)
    if progress:
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, unit=unit)
    return contextlib.nullcontext(None)


def completed(futures: Mapping[Future[Any], K]) -> Iterator[tuple[K, Any]]:
    """``(key, result)`` of each future of ``futures`` (future -> key) as it completes.

    Examples
    --------
    >>> with worker_pool(1) as pool:
    ...     list(completed({pool.submit(abs, -2): "a"}))
    [('a', 2)]
    """
    from concurrent.futures import as_completed

    for future in as_completed(futures):
        yield futures[future], future.result()


def map_tasks(
    function: Callable[[Any], Any],
    tasks: Iterable[Any],
    *,
    n_jobs: int = 1,
    niceness: int = 0,
    progress: Any = False,
    desc: str = "puf",
    unit: str = "task",
    on_result: Callable[[int, Any], object] | None = None,
) -> list[Any]:
    """``[function(task) for task in tasks]``, over ``n_jobs`` worker processes.

    Parameters
    ----------
    function : callable
        Of one task; it and the results must pickle (the tasks are inherited by fork).
    tasks : iterable
    n_jobs : int, default 1
        Processes; 1 (or one task) runs every task here, in order.
    niceness : int, default 0
        As in :func:`worker_pool`.
    progress : bool or object with ``update(n)``, default False
        True: a tqdm bar (``desc``, ``unit``) advancing per finished task; a bar of
        the caller's advances the same way.
    desc, unit : str
        The bar's label and unit.
    on_result : callable, optional
        ``on_result(index, result)``, called here as each task finishes (in the
        order they finish), e.g. to write it out at once.

    Returns
    -------
    list
        The results in the order of ``tasks``, whatever order they finished in.

    Raises
    ------
    WorkerDied
        A worker ended during its task; the run stops and the others are killed.

    Examples
    --------
    >>> map_tasks(abs, [-1, 2, -3], n_jobs=2)
    [1, 2, 3]
    """
    tasks = list(tasks)
    results: dict[int, Any] = {}
    with progress_bar(progress, len(tasks), desc=desc, unit=unit) as bar, contextlib.ExitStack() as stack:
        if n_jobs <= 1 or len(tasks) <= 1:
            outcomes: Iterable[tuple[int, Any]] = ((i, function(task)) for i, task in enumerate(tasks))
        else:
            pool = stack.enter_context(worker_pool(min(n_jobs, len(tasks)), niceness=niceness))
            outcomes = completed({pool.submit(function, task): i for i, task in enumerate(tasks)})
        for index, result in outcomes:
            results[index] = result
            if on_result is not None:
                on_result(index, result)
            if bar is not None:
                bar.update(1)
    return [results[i] for i in range(len(tasks))]
