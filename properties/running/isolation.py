"""Running a user's measure where it cannot touch the harness and can be stopped for sure.

A measure named by a spec (``FILE.py:FUNCTION``, ``MODULE:FUNCTION``) is imported and
called only in a fresh interpreter (:func:`load_isolated`): code that runs at import
(replacing ``numpy.std``, rebinding ``puf.paper_score_measures``, ``chdir``, a fork, a thread that
never ends, signal handlers) changes that process, never the harness. The harness holds
a :class:`RemoteFunction` with the measure's metadata. A measure function given as an
object (a lambda, a function of the caller's own module) already lives in the caller's
process; its worker is forked from it.

Either way a :class:`MeasureWorker` is a pair of processes in a process group of their own
(:mod:`puf.properties._worker`): a keeper that dies with the harness, even on SIGKILL
(:func:`puf.parallel.die_with_parent`), and the worker, its child, that dies with the
keeper. A measure that signals its parent ends its own worker. Every answer names the
request it answers and the worker's pid, and is read by an unpickler that builds only
plain values (:mod:`puf.properties._channel`), so a measure that forks, or writes on the
socket, cannot answer for the worker, nor run code in the harness. (A pool library's
workers are the harness's children and its answers are unpickled in full: a measure could
kill the harness or run code in it.) A call over its time limit kills the group
(SIGKILL); the next call starts a fresh worker. A new worker's first call is a warm-up
on a small population, with :func:`warm_up_limit` instead of the call's limit, so an
import, a compilation or a cache filled on the first call is not timed. Each call gets
the fields as copies (they cross a socket), so a measure that edits its input cannot
change what the caller later prints. A few workers live at a time, oldest closed first.

The registered built-in measures (:data:`puf.MEASURES`) are trusted and called
in-process. Without ``os.fork`` (Windows) every measure runs in-process.
"""

from __future__ import annotations

__all__ = [
    "CAN_ISOLATE",
    "IMPORT_TIME_LIMIT",
    "warm_up_limit",
    "WorkerTimeout",
    "WorkerBroken",
    "Outcome",
    "MeasureWorker",
    "RemoteFunction",
    "IsolatedFunction",
    "is_trusted",
    "load_isolated",
    "fresh_worker",
    "fresh_outcomes",
    "worker_for",
    "release_workers",
    "live_workers",
]

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple
import atexit
import functools
import inspect
import os
import socket
import sys

from puf.loader import load_measure
from puf.metadata import Measure
from puf.parallel import WorkerDied, describe_exit
from puf.returned import not_a_number, returned_kind, returned_number

from ._channel import Channel, ChannelError
from .budget import TIME_LIMIT_HINT

#: True where a user's measure can run in a worker process (``os.fork`` and socket pairs).
CAN_ISOLATE = hasattr(os, "fork") and hasattr(socket, "socketpair")

IMPORT_TIME_LIMIT = 60.0
"""Seconds a fresh worker may take to start and import the measure's module."""

_WARM_UP_FACTOR = 10


def warm_up_limit(time_limit: float) -> float:
    """Seconds a measure's first call in a process may take: ten times the calls' limit.

    Examples
    --------
    >>> warm_up_limit(2.0)
    20.0
    """
    return _WARM_UP_FACTOR * time_limit


class WorkerTimeout(Exception):
    """The worker did not answer within the time limit; it has been killed."""


class WorkerBroken(WorkerDied):
    """An answer did not belong to its request (another process wrote it); the worker is killed."""


class Outcome(NamedTuple):
    """One call's outcome in a worker: the number (None when not a real number), type, error."""

    number: float | None
    kind: str
    error: str | None


class MeasureWorker:
    """The worker of one measure: ``source`` is a spec (a fresh interpreter) or a Measure (forked).

    With ``warm`` (the default), each new process's first request is preceded by the
    warm-up call; a worker asked for a measure's first call in a process
    (:class:`puf.properties.calls.FreshCaller`) is made with ``warm=False``.

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

    def __init__(self, source: str | Measure, *, warm: bool = True) -> None:
        self.source, self.warm = source, warm
        self.facts: dict[str, Any] | None = None  # a spec's measure metadata, once loaded
        self._channel: Channel | None = None
        self._warmed = False  # this process had its warm-up call

    def start(self, time_limit: float = IMPORT_TIME_LIMIT) -> dict[str, Any] | None:
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

    def _ask(self, kind: str | None, payload: Any, time_limit: float | None) -> Any:
        if self._channel is None:
            raise WorkerDied("the worker is not running")
        try:
            return self._channel.ask(kind, payload, time_limit)
        except TimeoutError:
            self.close()
            raise WorkerTimeout(f"timed out after {time_limit:g} s") from None
        except ChannelError as exc:
            status = self.close(grace=2.0)
            kind_of = WorkerBroken if exc.foreign else WorkerDied
            raise kind_of(f"{exc} ({describe_exit(status)})") from None

    def _warm_up(self, time_limit: float | None) -> None:
        """The untimed first call of a new process (bounded by :func:`warm_up_limit`)."""
        if not self.warm or self._warmed or time_limit is None:
            return
        self._warmed = True
        try:
            self._ask("warm", None, warm_up_limit(time_limit))
        except WorkerTimeout:
            self.warm = False  # it hangs: the timed calls say so, without a warm-up each time
            self.start()

    def call(self, fields: Mapping[str, Any], time_limit: float | None) -> tuple[float | None, str]:
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
        self._warm_up(time_limit)
        reply = self._ask("call", fields, time_limit)
        if reply[0] == "raised":
            raise RuntimeError(reply[1])
        return reply[1], reply[2]

    def call_many(
        self, fields_list: Iterable[Mapping[str, Any]], time_limit: float | None, *, first: bool = False
    ) -> list[Outcome]:
        """Return one :class:`Outcome` per fields dict, all asked in one request.

        ``time_limit`` bounds the whole request; raises as :meth:`call` does,
        but a measure that raises gives an Outcome with ``error`` set. With
        ``first`` each value is the measure's first call in a process: the
        worker, which never calls the measure itself then, forks a process for it.
        """
        self.start()
        if not first:
            self._warm_up(time_limit)
        reply = self._ask("first" if first else "many", list(fields_list), time_limit)
        return [Outcome(None, "", r[1]) if r[0] == "raised" else Outcome(r[1], r[2], None) for r in reply[1]]

    @property
    def running(self) -> bool:
        """True while the worker's processes are up."""
        return self._channel is not None

    def close(self, grace: float = 0.0) -> int | None:
        """Kill the worker's process group and reap it; return the keeper's exit code (or None)."""
        channel, self._channel, self._warmed = self._channel, None, False
        return None if channel is None else channel.close(grace)


_WORKERS = {}  # a spec, or id(measure) -> MeasureWorker, oldest first
_MAX_WORKERS = 4


def worker_of(source: str | Measure) -> MeasureWorker:
    """The live worker of ``source`` (a spec or a Measure); a new one if none is alive."""
    key = source if isinstance(source, str) else id(source)
    worker = _WORKERS.get(key)
    if worker is not None and (worker.source is source or isinstance(source, str)):
        return worker
    while len(_WORKERS) >= _MAX_WORKERS:
        _WORKERS.pop(next(iter(_WORKERS))).close()
    worker = _WORKERS[key] = MeasureWorker(source)
    return worker


def release_workers() -> None:
    """Close every worker (the runner does when a measure's verdicts are done; also at exit)."""
    while _WORKERS:
        _WORKERS.pop(next(iter(_WORKERS))).close()


def live_workers() -> int:
    """How many workers are alive (each is a keeper and a worker process).

    Examples
    --------
    >>> release_workers(); live_workers()
    0
    """
    return sum(w.running for w in _WORKERS.values())


def _forget_in_child() -> None:
    """In a forked child: the workers are the parent's; close our copies of their sockets."""
    for worker in _WORKERS.values():
        if worker._channel is not None:
            worker._channel.abandon()
        worker._channel = None
    _WORKERS.clear()


atexit.register(release_workers)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def is_trusted(measure: Measure) -> bool:
    """True for the registered built-in measures, which run in-process (fast, no worker).

    Examples
    --------
    >>> from puf import as_measure
    >>> from puf.paper_score_measures import gini
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
    if id(measure.function) in _BUILT_IN:
        return True
    registered = MEASURES.get(measure.name)
    return registered is not None and _same_function(registered.function, measure.function)


def _same_function(a: object, b: object) -> bool:
    """``a`` is ``b``, or both bind the same options to one function: a parametrised built-in
    (a ``functools.partial``) comes back from a pool's pickle as a new, equal partial."""
    if a is b:
        return True
    return (
        isinstance(a, functools.partial)
        and isinstance(b, functools.partial)
        and a.func is b.func
        and a.args == b.args
        and a.keywords == b.keywords
    )


_BUILT_IN = {}


class RemoteFunction:
    """A user's function that exists only in a fresh worker: calling it asks that worker.

    Its signature names the fields the measure reads, so a :class:`puf.Measure`
    built on it reads what the measure reads. A call over ``time_limit`` raises
    ``TimeoutError``, a dead worker or a raising measure ``RuntimeError``, a
    non-number ``TypeError``, each naming the measure. Picklable (the worker is
    not carried along: another process starts its own).
    """

    def __init__(self, spec: str, *, reads: Iterable[str], name: str, origin: str, time_limit: float) -> None:
        self.spec, self.reads, self.origin = spec, tuple(reads), origin
        self.time_limit = float(time_limit)
        self.__name__ = self.__qualname__ = name
        self.__signature__ = inspect.Signature(
            [inspect.Parameter(r, inspect.Parameter.KEYWORD_ONLY) for r in self.reads]
        )

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k != "__signature__"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        RemoteFunction.__init__(
            self,
            state["spec"],
            reads=state["reads"],
            name=state["__name__"],
            origin=state["origin"],
            time_limit=state["time_limit"],
        )

    def __repr__(self) -> str:
        return f"<measure {self.spec} in a worker process>"

    def __call__(self, **fields: Any) -> float:
        return _bounded(worker_of(self.spec), self.__name__, fields, self.time_limit)


def _bounded(worker: MeasureWorker, name: str, fields: Mapping[str, Any], time_limit: float) -> float:
    try:
        number, kind = worker.call(fields, time_limit)
    except WorkerTimeout as exc:
        raise TimeoutError(f"measure {name!r} {exc}; {TIME_LIMIT_HINT}") from None
    except (WorkerDied, RuntimeError) as exc:
        raise RuntimeError(f"measure {name!r}: {exc}") from None
    if number is None:
        raise TypeError(f"measure {name!r} {not_a_number(kind)}")
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

    def __init__(self, measure: Measure, time_limit: float) -> None:
        self.measure = measure
        self.time_limit = float(time_limit)
        self.__name__ = getattr(measure.function, "__name__", measure.name)
        self.__wrapped__ = measure.function  # its signature, hence a Measure's reads, is the measure's

    def __getstate__(self) -> dict[str, Any]:
        return {"measure": self.measure, "time_limit": self.time_limit, "__name__": self.__name__}

    def __call__(self, **fields: Any) -> Any:
        if not CAN_ISOLATE:
            return self.measure(**fields)
        return _bounded(worker_for(self.measure), self.measure.name, fields, self.time_limit)


def _runs_here(spec: str) -> bool:
    """True for a spec of the harness's own code: a registered name or a ``puf`` module."""
    source, sep, _ = spec.strip().rpartition(":")
    return not sep or source == "puf" or source.startswith("puf.")


def _absolute(spec: str) -> str:
    source, sep, attribute = spec.strip().rpartition(":")
    if source.endswith(".py") or "/" in source or os.sep in source:
        source = os.path.abspath(os.path.expanduser(source))
    return f"{source}{sep}{attribute}"


def load_isolated(spec: str | Measure, *, time_limit: float = 10.0, import_limit: float = IMPORT_TIME_LIMIT) -> Measure:
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
    worker = worker_of(spec)
    try:
        facts = dict(worker.start(import_limit) or {})  # a spec's worker always reports its facts
    except (WorkerTimeout, WorkerDied) as exc:
        worker.close()
        raise ValueError(f"cannot import {spec.rpartition(':')[0]!r}: {exc}") from None
    function = RemoteFunction(
        spec, reads=facts["reads"], name=facts["name"], origin=facts.pop("origin"), time_limit=time_limit
    )
    return Measure(function, **facts)


def _fresh_spec(measure: Measure) -> str | None:
    """A spec a fresh interpreter loads ``measure`` from, or None (a lambda, a closure, __main__)."""
    from puf import MEASURES

    function = measure.function
    if isinstance(function, IsolatedFunction):
        return _fresh_spec(function.measure)
    if isinstance(function, RemoteFunction):
        return function.spec
    registered = MEASURES.get(measure.name)
    if registered is measure or (registered is not None and _same_function(registered.function, function)):
        return measure.name
    if isinstance(function, functools.partial):  # no importable name: the fork road
        return None
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    qualname = getattr(function, "__qualname__", "")
    if module is None or module.__name__ == "__main__" or not qualname or "<" in qualname:
        return None  # (no qualname: an instance, e.g. a grammar measure, which the fork road takes)
    file = getattr(module, "__file__", None)
    source = file if file and module.__name__.startswith("_puf_measure_") else module.__name__
    return f"{source}:{qualname}"


def fresh_worker(measure: Measure) -> MeasureWorker:
    """A worker of ``measure`` of the caller's own, not started and never warmed up: a new
    interpreter importing the measure by its spec, or a fork where it has none (a lambda, a
    closure), whose first call is the caller's. Call ``start`` before use and ``close`` after.

    Examples
    --------
    >>> from puf import as_measure
    >>> worker = fresh_worker(as_measure("sd"))
    >>> worker.source
    'sd'
    """
    spec = _fresh_spec(measure)
    return MeasureWorker(measure if spec is None else spec, warm=False)


def fresh_outcomes(measure: Measure, fields_list: Sequence[Mapping[str, Any]], *, time_limit: float) -> list[Outcome]:
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
    if not CAN_ISOLATE:
        values = [measure(**fields) for fields in fields_list]
        return [Outcome(returned_number(v), returned_kind(v), None) for v in values]
    worker = fresh_worker(measure)
    try:
        worker.start(max(time_limit, IMPORT_TIME_LIMIT))
        return worker.call_many(fields_list, warm_up_limit(time_limit) + time_limit * len(fields_list))
    finally:
        worker.close()


def worker_for(measure: Measure) -> MeasureWorker:
    """The worker of ``measure`` (a few measures keep theirs, e.g. in a sweep that alternates)."""
    function = measure.function
    if isinstance(function, IsolatedFunction):
        return worker_for(function.measure)
    return worker_of(function.spec if isinstance(function, RemoteFunction) else measure)
