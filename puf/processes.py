"""Child processes that end with the harness: a parent-death signal and pools killed on the way out.

A process the harness starts (a pool worker, a user measure's worker) must not outlive it,
not even when the harness is killed with SIGKILL and runs no cleanup at all. On Linux the
kernel sees to it: :func:`die_with_parent` asks for SIGKILL when the parent ends
(``prctl(PR_SET_PDEATHSIG)``). Elsewhere a watchdog thread polls the parent's pid; it runs
between bytecodes, so a process stuck in C code is ended by its parent's cleanup instead.
"""

from __future__ import annotations

__all__ = ["die_with_parent", "worker_pool", "kill_pool"]

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

_PR_SET_PDEATHSIG = 1


def _parent_death_signal():
    """Ask the kernel for SIGKILL when the parent ends; False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent_pid, interval):
    while os.getppid() == parent_pid:
        time.sleep(interval)
    os._exit(1)


def die_with_parent(parent_pid: int, *, interval: float = 0.5) -> None:
    """End this process when the process ``parent_pid`` (its parent) ends.

    Call it first thing in a child process; the parent passes its own pid
    (``os.getpid()`` before starting the child), so a parent that ended before
    the call is noticed too.

    Parameters
    ----------
    parent_pid : int
        The pid of the parent, as the parent saw it.
    interval : float, default 0.5
        Seconds between two looks at the parent where the kernel cannot signal.

    Examples
    --------
    >>> import subprocess, sys
    >>> code = "import os; from puf.processes import die_with_parent; die_with_parent(os.getppid())"
    >>> subprocess.run([sys.executable, "-c", code]).returncode
    0
    """
    if not _parent_death_signal():
        threading.Thread(target=_watch, args=(parent_pid, interval), daemon=True, name="puf-parent-watchdog").start()
    if os.getppid() != parent_pid:
        os._exit(1)  # the parent ended before the signal was asked for


def _pool_worker_start(parent_pid):
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent's
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def kill_pool(pool: ProcessPoolExecutor) -> None:
    """Kill the processes of a :class:`concurrent.futures.ProcessPoolExecutor` and reap them.

    Examples
    --------
    >>> from concurrent.futures import ProcessPoolExecutor
    >>> pool = ProcessPoolExecutor(1)
    >>> kill_pool(pool)
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.join(5.0)


@contextlib.contextmanager
def worker_pool(max_workers: int, *, start_method: str | None = None) -> Iterator[ProcessPoolExecutor]:
    """A process pool whose workers die with this process and are killed if the body fails.

    The workers ignore Ctrl-C (the terminal sends it to the whole group: the
    parent handles it) and die with the parent even on SIGKILL. When the body
    raises (an error, Ctrl-C, SIGTERM) the workers are killed instead of being
    waited for; when it ends normally the pool is shut down as usual.

    Parameters
    ----------
    max_workers : int
        Processes in the pool.
    start_method : str, optional
        A :mod:`multiprocessing` start method ("fork", "spawn", ...); default
        the platform's.

    Examples
    --------
    >>> with worker_pool(2) as pool:
    ...     sorted(pool.map(abs, [-1, 2]))
    [1, 2]
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context(start_method)
    pool = ProcessPoolExecutor(
        max_workers=max_workers, mp_context=context, initializer=_pool_worker_start, initargs=(os.getpid(),)
    )
    try:
        yield pool
    except BaseException:
        kill_pool(pool)
        raise
    pool.shutdown(wait=True)
