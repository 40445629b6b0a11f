"""Running a user's measure where it can be stopped for sure: a forked worker process (private).

A measure stuck in C code never sees a signal, one that catches ``BaseException``
swallows the alarm, one that calls ``sys.exit`` ends the caller. So a user's measure
runs in a worker forked from this process (the measure and its module are already
in memory: nothing is pickled but the fields and the reply). At the time limit the
worker is killed (SIGKILL) and the next call forks a fresh one. Each call gets the
fields as copies (they cross a pipe), so a measure that edits its input cannot
change what the caller later prints. One call costs a pipe round trip (tens of
microseconds for the property runner's small populations).

The registered built-in measures (:data:`puf.MEASURES`) are trusted and called
in-process. Without ``os.fork`` (Windows) every measure runs in-process.
"""

__all__ = ["CAN_ISOLATE", "WorkerDied", "WorkerTimeout", "MeasureWorker", "IsolatedFunction",
           "is_trusted", "worker_for", "release_workers", "real_number"]

import atexit
import numbers
import os
import signal
import warnings
from multiprocessing import Pipe

import numpy as np

CAN_ISOLATE = hasattr(os, "fork")


class WorkerTimeout(Exception):
    """The worker did not answer within the time limit; it has been killed."""


class WorkerDied(Exception):
    """The worker process ended during a call (``os._exit``, a crash, a kill)."""


def is_trusted(measure):
    """True for the registered built-in measures, which run in-process (fast, no fork).

    Examples
    --------
    >>> from puf import as_measure
    >>> from puf.measures import gini
    >>> is_trusted(as_measure("sd")), is_trusted(as_measure(gini))
    (True, True)
    >>> is_trusted(as_measure(lambda effectiveness: 0.0))
    False
    """
    from puf import MEASURES

    if len(_BUILT_IN) != len(MEASURES) + 1:  # (re)built when the registry grows
        _BUILT_IN.clear()
        _BUILT_IN.update({id(m.function): m.function for m in MEASURES.values()})
        _BUILT_IN[None] = None
    # The dict holds the functions, so their ids are never reused by other objects.
    return id(measure.function) in _BUILT_IN


_BUILT_IN = {}


def real_number(value):
    """Return ``value`` as a float, or None when it is not a real number (bools are not).

    Examples
    --------
    >>> real_number(np.float64(0.5)), real_number(np.array(2)), real_number("x"), real_number(True)
    (0.5, 2.0, None, None)
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        return None
    return float(value)


def _serve(measure, connection, parent_pid):
    """The worker's loop: receive fields, reply ("ok", float or None, type name) or ("raised", text)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        try:
            while not connection.poll(1.0):
                if os.getppid() != parent_pid:
                    return  # the caller died without closing us: do not linger
            fields = connection.recv()
        except (EOFError, OSError):
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = measure(**fields)
            reply = ("ok", real_number(value), type(value).__name__)
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too: reported, not obeyed
            text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            reply = ("raised", text.splitlines()[0])
        try:
            connection.send(reply)
        except (OSError, ValueError):
            return


class MeasureWorker:
    """One forked process evaluating one measure; replaced after a timeout or a crash.

    Examples
    --------
    >>> from puf import as_measure
    >>> worker = MeasureWorker(as_measure(lambda effectiveness: sum(effectiveness)))
    >>> worker.call({"effectiveness": [0.25, 0.5]}, 1.0)
    (0.75, 'float')
    >>> _ = worker.close()
    """

    def __init__(self, measure):
        self.measure = measure
        self._pid = None
        self._connection = None

    def _start(self):
        parent, child = Pipe()
        parent_pid = os.getpid()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
            pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            code = 0
            try:
                parent.close()
                for _, other in _WORKERS.values():  # the other workers' pipes are not ours
                    if other._connection is not None:
                        other._connection.close()
                _serve(self.measure, child, parent_pid)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        child.close()
        self._pid, self._connection = pid, parent

    def call(self, fields, time_limit):
        """Return ``(number or None, type name)`` of the measure's value on ``fields``.

        Raises
        ------
        WorkerTimeout
            No answer within ``time_limit`` seconds (the worker is killed).
        WorkerDied
            The worker ended during the call.
        RuntimeError
            The measure raised; the message is its first line.
        """
        if self._pid is None:
            self._start()
        try:
            self._connection.send(fields)
            ready = self._connection.poll(time_limit)
        except (OSError, ValueError):
            ready = True  # the worker is gone: recv below says how
        if not ready:
            self.close()
            raise WorkerTimeout(f"timed out after {time_limit:g} s")
        try:
            reply = self._connection.recv()
        except (EOFError, OSError):
            status = self.close()
            raise WorkerDied(f"the measure's process ended ({_describe_status(status)})") from None
        if reply[0] == "raised":
            raise RuntimeError(reply[1])
        return reply[1], reply[2]

    def close(self):
        """Kill and reap the worker; return its wait status (None if none was running)."""
        if self._pid is None:
            return None
        pid, self._pid = self._pid, None
        self._connection.close()
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return None


def _describe_status(status):
    if status is None:
        return "unknown status"
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exit code {os.WEXITSTATUS(status)}"


_WORKERS = {}  # id(measure) -> (measure, worker), oldest first
_MAX_WORKERS = 4


def worker_for(measure):
    """The worker of ``measure`` (a few measures keep theirs, e.g. in a sweep that alternates)."""
    entry = _WORKERS.get(id(measure))
    if entry is not None and entry[0] is measure:
        return entry[1]
    while len(_WORKERS) >= _MAX_WORKERS:
        _, oldest = _WORKERS.pop(next(iter(_WORKERS)))
        oldest.close()
    worker = MeasureWorker(measure)
    _WORKERS[id(measure)] = (measure, worker)
    return worker


def release_workers():
    """Close every worker (the runner does when a measure's verdicts are done; also at exit)."""
    while _WORKERS:
        _, worker = _WORKERS.pop(next(iter(_WORKERS)))
        worker.close()


atexit.register(release_workers)


class IsolatedFunction:
    """A measure function that runs in a worker with a time limit; a plain callable.

    For callers outside the property runner (the report's sweeps): a timeout
    raises ``TimeoutError``, a dead worker or a raising measure ``RuntimeError``,
    a non-number ``TypeError``, each naming the measure. Picklable (the worker
    is not carried along).

    Examples
    --------
    >>> from puf import as_measure
    >>> bounded = IsolatedFunction(as_measure(lambda effectiveness: max(effectiveness)), 5.0)
    >>> bounded(effectiveness=[0.25, 0.5])
    0.5
    """

    def __init__(self, measure, time_limit):
        self.measure = measure
        self.time_limit = float(time_limit)
        self.__name__ = getattr(measure.function, "__name__", measure.name)
        self.__wrapped__ = measure.function  # its signature, hence a Measure's reads, is the measure's

    def __getstate__(self):
        return {"measure": self.measure, "time_limit": self.time_limit, "__name__": self.__name__}

    def __call__(self, **fields):
        if not CAN_ISOLATE:
            return self.measure(**fields)
        try:
            number, kind = worker_for(self.measure).call(fields, self.time_limit)
        except WorkerTimeout as exc:
            raise TimeoutError(f"measure {self.measure.name!r} {exc}") from None
        except (WorkerDied, RuntimeError) as exc:
            raise RuntimeError(f"measure {self.measure.name!r}: {exc}") from None
        if number is None:
            raise TypeError(f"measure {self.measure.name!r} returned {kind}, not a number")
        return number
