"""Running a user's measure where it cannot touch the harness and can be stopped for sure.

A measure named by a spec (``FILE.py:FUNCTION``, ``MODULE:FUNCTION``) is imported and
called only in a fresh interpreter (:func:`load_isolated`): code that runs at import
(replacing ``numpy.std``, rebinding ``puf.measures``, ``chdir``, a fork, a thread that
never ends, signal handlers) changes that process, never the harness. The harness holds
a :class:`RemoteFunction` with the measure's metadata. A measure function given as an
object (a lambda, a function of the caller's own module) already lives in the caller's
process; its worker is forked from it.

Either way a worker is a pair of processes in a process group of their own
(:mod:`puf.properties._worker`): a keeper that dies with the harness, even on SIGKILL
(:func:`puf.processes.die_with_parent`), and the worker, its child, that dies with the
keeper. A measure that signals its parent ends its own worker. Every answer names the
request it answers and the worker's pid, and is read by an unpickler that builds only
plain values, so a measure that forks, or writes on the socket, cannot answer for the
worker. A call over its time limit kills the group (SIGKILL); the next call starts a
fresh worker. Each call gets the fields as copies (they cross a socket), so a measure
that edits its input cannot change what the caller later prints. One call costs a
socket round trip (tens of microseconds for the property runner's small populations);
:meth:`MeasureWorker.call_many` answers many in one.

The registered built-in measures (:data:`puf.MEASURES`) are trusted and called
in-process. Without ``os.fork`` (Windows) every measure runs in-process.
"""

__all__ = ["CAN_ISOLATE", "IMPORT_TIME_LIMIT", "WorkerTimeout", "WorkerDied", "WorkerBroken",
           "Outcome", "MeasureWorker", "RemoteFunction", "IsolatedFunction", "is_trusted",
           "load_isolated", "fresh_outcomes", "worker_for", "release_workers", "real_number"]

import atexit
import inspect
import os
import socket
import sys
from typing import NamedTuple

from puf.loader import load_measure
from puf.metadata import Measure

from ._worker import real_number
from ._channel import Channel, ChannelError, describe_status

CAN_ISOLATE = hasattr(os, "fork") and hasattr(socket, "socketpair")
IMPORT_TIME_LIMIT = 60.0
"""Seconds a fresh worker may take to start and import the measure's module."""


class WorkerTimeout(Exception):
    """The worker did not answer within the time limit; it has been killed."""


class WorkerDied(Exception):
    """The worker process ended during a call (``os._exit``, a crash, a kill, a signalled parent)."""


class WorkerBroken(WorkerDied):
    """An answer did not belong to its request (another process wrote it); the worker is killed."""


class Outcome(NamedTuple):
    """One call's outcome in a worker: the number (None when not a real number), type, error."""

    number: float | None
    kind: str
    error: str | None


def is_trusted(measure):
    """True for the registered built-in measures, which run in-process (fast, no worker).

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


class MeasureWorker:
    """The worker of one measure: ``source`` is a spec (a fresh interpreter) or a Measure (forked).

    Examples
    --------
    >>> from puf import as_measure
    >>> worker = MeasureWorker(as_measure(lambda effectiveness: sum(effectiveness)))
    >>> worker.call({"effectiveness": [0.25, 0.5]}, 1.0)
    (0.75, 'float')
    >>> [o.number for o in worker.call_many([{"effectiveness": [1.0]}] * 2, 1.0)]
    [1.0, 1.0]
    >>> _ = worker.close()
    """

    def __init__(self, source):
        self.source = source
        self.facts = None  # a spec's measure metadata, once loaded
        self._channel = None

    def start(self, time_limit=IMPORT_TIME_LIMIT):
        """Start the worker if none runs; return the metadata of a spec's measure (else None).

        Raises
        ------
        ValueError
            The spec cannot be loaded (the loader's one-line message).
        WorkerTimeout, WorkerDied
            Loading took over ``time_limit`` seconds, or the worker ended while loading.
        """
        if self._channel is not None:
            return self.facts
        others = [w._channel for w in _WORKERS.values() if w._channel is not None]
        self._channel = Channel(self.source, others)
        reply = self._ask(None, None, time_limit)  # the worker's hello: who it is
        if isinstance(self.source, str):
            reply = self._ask("load", self.source, time_limit)
            if reply[0] == "failed":
                self.close()
                raise ValueError(reply[1])
            self.facts = reply[1]
        return self.facts

    def _ask(self, kind, payload, time_limit):
        try:
            return self._channel.ask(kind, payload, time_limit)
        except TimeoutError:
            self.close()
            raise WorkerTimeout(f"timed out after {time_limit:g} s") from None
        except ChannelError as exc:
            status = self.close(grace=2.0)
            kind_of = WorkerBroken if exc.foreign else WorkerDied
            raise kind_of(f"{exc} ({describe_status(status)})") from None

    def call(self, fields, time_limit):
        """Return ``(number or None, type name)`` of the measure's value on ``fields``.

        Raises
        ------
        WorkerTimeout
            No answer within ``time_limit`` seconds (the worker is killed).
        WorkerDied
            The worker ended during the call, or an answer came from another process.
        RuntimeError
            The measure raised; the message is its first line.
        """
        self.start()
        reply = self._ask("call", fields, time_limit)
        if reply[0] == "raised":
            raise RuntimeError(reply[1])
        return reply[1], reply[2]

    def call_many(self, fields_list, time_limit):
        """Return one :class:`Outcome` per fields dict, all asked in one request.

        ``time_limit`` bounds the whole request; raises as :meth:`call` does,
        but a measure that raises gives an Outcome with ``error`` set.
        """
        self.start()
        reply = self._ask("many", list(fields_list), time_limit)
        return [Outcome(None, "", r[1]) if r[0] == "raised" else Outcome(r[1], r[2], None)
                for r in reply[1]]

    def close(self, grace=0.0):
        """Kill the worker's process group and reap it; return the keeper's exit code (or None)."""
        channel, self._channel = self._channel, None
        return None if channel is None else channel.close(grace)


class RemoteFunction:
    """A user's function that exists only in a fresh worker: calling it asks that worker.

    Its signature names the fields the measure reads, so a :class:`puf.Measure`
    built on it reads what the measure reads. A call over ``time_limit`` raises
    ``TimeoutError``, a dead worker or a raising measure ``RuntimeError``, a
    non-number ``TypeError``, each naming the measure. Picklable (the worker is
    not carried along: another process starts its own).
    """

    def __init__(self, spec, *, reads, name, origin, time_limit):
        self.spec, self.reads, self.origin = spec, tuple(reads), origin
        self.time_limit = float(time_limit)
        self.__name__ = self.__qualname__ = name
        self.__signature__ = inspect.Signature(
            [inspect.Parameter(r, inspect.Parameter.KEYWORD_ONLY) for r in self.reads])

    def __getstate__(self):
        return {k: v for k, v in vars(self).items() if k != "__signature__"}

    def __setstate__(self, state):
        self.__init__(state["spec"], reads=state["reads"], name=state["__name__"],
                      origin=state["origin"], time_limit=state["time_limit"])

    def __repr__(self):
        return f"<measure {self.spec} in a worker process>"

    def __call__(self, **fields):
        return _bounded(_worker(self.spec), self.__name__, fields, self.time_limit)


def _bounded(worker, name, fields, time_limit):
    try:
        number, kind = worker.call(fields, time_limit)
    except WorkerTimeout as exc:
        raise TimeoutError(f"measure {name!r} {exc}") from None
    except (WorkerDied, RuntimeError) as exc:
        raise RuntimeError(f"measure {name!r}: {exc}") from None
    if number is None:
        raise TypeError(f"measure {name!r} returned {kind}, not a number")
    return number


class IsolatedFunction:
    """A measure function that runs in a worker with a time limit; a plain callable.

    For callers outside the property runner (the report's sweeps): raises as
    :class:`RemoteFunction` does. Picklable (the worker is not carried along).

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
        return _bounded(worker_for(self.measure), self.measure.name, fields, self.time_limit)


def _runs_here(spec):
    """True for a spec of the harness's own code: a registered name or a ``puf`` module."""
    source, sep, _ = spec.strip().rpartition(":")
    return not sep or source == "puf" or source.startswith("puf.")


def _absolute(spec):
    source, sep, attribute = spec.strip().rpartition(":")
    if source.endswith(".py") or "/" in source or os.sep in source:
        source = os.path.abspath(os.path.expanduser(source))
    return f"{source}{sep}{attribute}"


def load_isolated(spec, *, time_limit=10.0, import_limit=IMPORT_TIME_LIMIT):
    """Return the :class:`puf.Measure` a spec names, its module imported only in a fresh worker.

    Parameters
    ----------
    spec : str or Measure
        As for :func:`puf.load_measure`. A registered name, or a function of
        the ``puf`` package, is the harness's own code and loads in-process;
        any other module or file is imported only in a new interpreter, and
        the measure returned stands for it (its function is a :class:`RemoteFunction`).
    time_limit : float, default 10.0
        Seconds allowed per call when the measure is called directly (the
        property runner gives its own limit).
    import_limit : float, default :data:`IMPORT_TIME_LIMIT`
        Seconds allowed to start the worker and import the module.

    Returns
    -------
    Measure

    Raises
    ------
    ValueError
        The loader's one-line message (no such file, an import error, no such
        attribute, a parameter that is not a field), or a worker that did not
        load the module within ``import_limit`` or died while loading it.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "mine.py"
    >>> _ = path.write_text("import numpy\\nnumpy.std = None\\n"
    ...                     "def spread(effectiveness):\\n    return float(max(effectiveness))\\n")
    >>> spread = load_isolated(f"{path}:spread")
    >>> spread.name, spread.reads, spread(effectiveness=[0.0, 0.5])
    ('spread', ('effectiveness',), 0.5)
    >>> import numpy; numpy.std is None  # the module ran in the worker, not here
    False
    >>> release_workers()
    """
    if isinstance(spec, Measure):
        return spec
    if not isinstance(spec, str) or not CAN_ISOLATE or _runs_here(spec):
        return load_measure(spec)
    spec = _absolute(spec)
    worker = _worker(spec)
    try:
        facts = dict(worker.start(import_limit))
    except (WorkerTimeout, WorkerDied) as exc:
        _WORKERS.pop(spec, None)
        raise ValueError(f"cannot import {spec.rpartition(':')[0]!r}: {exc}") from None
    function = RemoteFunction(spec, reads=facts["reads"], name=facts["name"],
                              origin=facts.pop("origin"), time_limit=time_limit)
    return Measure(function, **facts)


def _fresh_spec(measure):
    """A spec a fresh interpreter loads ``measure`` from, or None (a lambda, a closure, __main__)."""
    from puf import MEASURES

    function = measure.function
    if isinstance(function, IsolatedFunction):
        return _fresh_spec(function.measure)
    if isinstance(function, RemoteFunction):
        return function.spec
    if MEASURES.get(measure.name) is measure:
        return measure.name
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    qualname = getattr(function, "__qualname__", "")
    if module is None or module.__name__ == "__main__" or "<" in qualname:
        return None
    file = getattr(module, "__file__", None)
    source = file if file and module.__name__.startswith("_puf_measure_") else module.__name__
    return f"{source}:{qualname}"


def fresh_outcomes(measure, fields_list, *, time_limit):
    """Evaluate ``measure`` on each fields dict in a new process; one :class:`Outcome` each.

    The process is a new interpreter that imports the measure by its spec
    (built-ins by their registered name), so nothing this process did (a cache,
    a global, an earlier call) can reach the values; a measure that cannot be
    imported by name (a lambda, a closure) runs in a process forked for the
    purpose. The process is ended afterwards.

    Examples
    --------
    >>> from puf import as_measure
    >>> fresh_outcomes(as_measure("sd"), [{"effectiveness": [0.0, 1.0]}], time_limit=30.0)
    [Outcome(number=0.5, kind='float', error=None)]
    """
    spec = _fresh_spec(measure) if CAN_ISOLATE else None
    if not CAN_ISOLATE:
        return [Outcome(real_number(v), type(v).__name__, None)
                for v in (measure(**fields) for fields in fields_list)]
    worker = MeasureWorker(measure if spec is None else spec)
    try:
        worker.start(max(time_limit, IMPORT_TIME_LIMIT))
        return worker.call_many(fields_list, time_limit)
    finally:
        worker.close()


_WORKERS = {}  # a spec, or id(measure) -> MeasureWorker, oldest first
_MAX_WORKERS = 4


def _worker(source):
    key = source if isinstance(source, str) else id(source)
    worker = _WORKERS.get(key)
    if worker is not None and (worker.source is source or isinstance(source, str)):
        return worker
    while len(_WORKERS) >= _MAX_WORKERS:
        _WORKERS.pop(next(iter(_WORKERS))).close()
    worker = _WORKERS[key] = MeasureWorker(source)
    return worker


def worker_for(measure):
    """The worker of ``measure`` (a few measures keep theirs, e.g. in a sweep that alternates)."""
    function = measure.function
    if isinstance(function, IsolatedFunction):
        return worker_for(function.measure)
    return _worker(function.spec if isinstance(function, RemoteFunction) else measure)


def release_workers():
    """Close every worker (the runner does when a measure's verdicts are done; also at exit)."""
    while _WORKERS:
        _WORKERS.pop(next(iter(_WORKERS))).close()


atexit.register(release_workers)
