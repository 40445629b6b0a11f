"""Running a user's measure where it cannot touch the harness and can be stopped for sure.

A measure named by a spec (``FILE.py:FUNCTION``, ``MODULE:FUNCTION``) is imported and called
only in a fresh interpreter (:func:`load_isolated`), so code that runs at import (replacing
``numpy.std``, ``chdir``, a fork, a thread that never ends, signal handlers) changes that
process, never the harness. A measure given as an object (a lambda, a function of the
caller's module) already lives in the caller's process: its worker is forked from it.

A :class:`MeasureWorker` is a keeper and its worker in a process group of their own
(:mod:`puf.properties._worker`): the keeper dies with the harness, even on SIGKILL, the
worker with the keeper. Each answer is JSON naming its request and the worker's pid
(:mod:`puf.properties._channel`): nothing the measure returns or writes can run code in
the harness or answer for the worker. A call over its time limit kills the group; the
next call starts a new worker, whose first call may take :func:`warm_up_limit` more (an
import, a compilation or a cache filled once per process). The fields cross a socket, so
a measure that edits its input edits a copy. A few workers live at a time, oldest closed
first. A pool library was not used: its workers are the harness's children and their
answers are unpickled in the harness, so a measure could kill the harness or run code in it.

The registered built-in measures (:data:`puf.MEASURES`) are trusted and called in-process.
Without ``os.fork`` (Windows) every measure runs in-process.
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
    "IsolatedFunction",
    "is_trusted",
    "unbounded",
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
import sys

from puf.loader import load_measure
from puf.metadata import Measure
from puf.parallel import WorkerDied, describe_exit
from puf.returned import not_a_number, returned_kind, returned_number

from ._channel import Channel, ChannelError
from .budget import TIME_LIMIT_HINT

#: True where a user's measure can run in a worker process (``os.fork``).
CAN_ISOLATE = hasattr(os, "fork")

IMPORT_TIME_LIMIT = 60.0
"""Seconds a fresh worker may take to start and import the measure's module."""


def warm_up_limit(time_limit: float) -> float:
    """Seconds a measure's first call in a process may take: ten times the calls' limit.

    Examples
    --------
    >>> warm_up_limit(2.0)
    20.0
    """
    return 10 * time_limit


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

    With ``warm`` (the default) a new process's first request may take :func:`warm_up_limit` more.

    Examples
    --------
    >>> from puf import as_measure
    >>> worker = MeasureWorker(as_measure(lambda effectiveness: sum(effectiveness)))
    >>> worker.call({"effectiveness": [0.25, 0.5]}, 1.0)
    (0.75, 'float')
    >>> _ = worker.close()
    """

    def __init__(self, source: str | Measure, *, warm: bool = True) -> None:
        self.source, self.warm = source, warm
        self.facts: dict[str, Any] | None = None  # a spec's measure metadata, once loaded
        self._channel: Channel | None = None
        self._called = False  # this process has had a call

    def start(self, time_limit: float = IMPORT_TIME_LIMIT) -> dict[str, Any] | None:
        """Start the worker if none runs; return the metadata of a spec's measure (else None).

        Raises ValueError (the loader's one-line message), WorkerTimeout or WorkerDied.
        """
        if self._channel is None:
            self._channel = Channel(self.source)
            self._ask(None, None, time_limit)  # the worker's hello: who it is
            if isinstance(self.source, str):
                status, facts = self._ask("load", self.source, time_limit)
                if status != "ready":
                    self.close()
                    raise ValueError(facts)
                self.facts = {k: tuple(v) if isinstance(v, list) else v for k, v in facts.items()}
        return self.facts

    def _ask(self, kind: str | None, payload: Any, time_limit: float | None) -> Any:
        if self._channel is None:
            raise WorkerDied("the worker is not running")
        try:
            return self._channel.ask(kind, payload, time_limit)
        except TimeoutError:
            self.close()
            raise WorkerTimeout(f"no answer within {time_limit:g} s") from None
        except ChannelError as exc:
            status = self.close(grace=2.0)
            raise (WorkerBroken if exc.foreign else WorkerDied)(f"{exc} ({describe_exit(status)})") from None

    def call_many(
        self, fields_list: Iterable[Mapping[str, Any]], time_limit: float | None, *, first: bool = False
    ) -> list[Outcome]:
        """One :class:`Outcome` per fields dict, all in one request of ``time_limit`` seconds a call.

        With ``first`` each is the measure's first call in a process (forked from the worker,
        which never calls the measure then), held to :func:`warm_up_limit` instead. Raises
        WorkerTimeout or WorkerDied (the worker is killed).
        """
        self.start()
        fields_list, limit = list(fields_list), None
        if time_limit is not None:
            warm = warm_up_limit(time_limit) if self.warm and not self._called else 0.0
            limit = warm_up_limit(time_limit) * len(fields_list) if first else time_limit * len(fields_list) + warm
        try:
            reply = self._ask("first" if first else "call", fields_list, limit)
        except WorkerTimeout:
            self.warm = self.warm and self._called  # a hang: no new process gets the warm-up
            raise
        self._called = True
        return [Outcome(*outcome) for outcome in reply]

    def call(self, fields: Mapping[str, Any], time_limit: float | None) -> tuple[float | None, str]:
        """``(number or None, type name)`` of one call; RuntimeError (first line) if the measure raised."""
        (outcome,) = self.call_many([fields], time_limit)
        if outcome.error is not None:
            raise RuntimeError(outcome.error)
        return outcome.number, outcome.kind

    @property
    def running(self) -> bool:
        """True while the worker's processes are up."""
        return self._channel is not None

    def close(self, grace: float = 0.0) -> int | None:
        """Kill the worker's process group and reap it; return the keeper's exit code (or None)."""
        channel, self._channel, self._called = self._channel, None, False
        return None if channel is None else channel.close(grace)


_WORKERS: dict[Any, MeasureWorker] = {}  # a spec, or id(measure) -> its worker, oldest first


def _worker_of(source: str | Measure) -> MeasureWorker:
    key = source if isinstance(source, str) else id(source)
    worker = _WORKERS.get(key)
    if worker is None or not (worker.source is source or isinstance(source, str)):
        while len(_WORKERS) >= 4:
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


def _same_function(a: object, b: object) -> bool:
    """``a`` is ``b``, or both bind the same options to one function (a parametrised built-in
    comes back from a pool's pickle as a new, equal ``functools.partial``)."""
    if a is b:
        return True
    partials = isinstance(a, functools.partial) and isinstance(b, functools.partial)
    return partials and (a.func, a.args, a.keywords) == (b.func, b.args, b.keywords)  # type: ignore[attr-defined]


def is_trusted(measure: Measure) -> bool:
    """True for the registered built-in measures, which run in-process (fast, no worker).

    Examples
    --------
    >>> from puf import as_measure
    >>> is_trusted(as_measure("sd")), is_trusted(as_measure(lambda effectiveness: 0.0))
    (True, False)
    """
    from puf import MEASURES

    registered = MEASURES.get(measure.name)
    if registered is not None and _same_function(registered.function, measure.function):
        return True
    return any(m.function is measure.function for m in MEASURES.values())


def unbounded(measure: Measure) -> Measure:
    """``measure`` without the time limit an :class:`IsolatedFunction` of a Measure put on it.

    Examples
    --------
    >>> from puf import as_measure
    >>> sd = as_measure("sd")
    >>> unbounded(as_measure(IsolatedFunction(sd, 1.0))) is sd
    True
    """
    while isinstance(measure.function, IsolatedFunction) and isinstance(measure.function.source, Measure):
        measure = measure.function.source
    return measure


class IsolatedFunction:
    """A measure function called in a worker with a time limit; a plain, picklable callable.

    ``source`` is a Measure (its worker is forked from this process) or the spec of a measure
    loaded only in a worker, whose ``reads``, ``name`` and ``origin`` :func:`load_isolated`
    gives. A call over ``time_limit`` raises ``TimeoutError``, a dead worker or a raising
    measure ``RuntimeError``, a non-number ``TypeError``, each naming the measure.

    Examples
    --------
    >>> from puf import as_measure
    >>> bounded = IsolatedFunction(as_measure(lambda effectiveness: max(effectiveness)), 5.0)
    >>> bounded(effectiveness=[0.25, 0.5])
    0.5
    """

    def __init__(
        self, source: str | Measure, time_limit: float, *, reads: Iterable[str] = (), name: str = "", origin: str = ""
    ) -> None:
        if isinstance(source, Measure):
            reads, name = source.reads, getattr(source.function, "__name__", source.name)
        self.source, self.time_limit, self.reads, self.origin = source, float(time_limit), tuple(reads), origin
        self.__name__ = self.__qualname__ = name

    @property
    def __signature__(self) -> inspect.Signature:  # a Measure built on it reads what the measure reads
        return inspect.Signature([inspect.Parameter(r, inspect.Parameter.KEYWORD_ONLY) for r in self.reads])

    def __repr__(self) -> str:
        return f"<measure {self.__name__} in a worker process>"

    def __call__(self, **fields: Any) -> float:
        if isinstance(self.source, Measure) and not CAN_ISOLATE:
            return self.source(**fields)  # type: ignore[no-any-return]
        try:
            number, kind = worker_for(self.source).call(fields, self.time_limit)
        except WorkerTimeout:
            raise TimeoutError(f"measure {self.__name__!r} timed out after {self.time_limit:g} s; {TIME_LIMIT_HINT}")
        except (WorkerDied, RuntimeError) as exc:
            raise RuntimeError(f"measure {self.__name__!r}: {exc}") from None
        if number is None:
            raise TypeError(f"measure {self.__name__!r} {not_a_number(kind)}")
        return number


def worker_for(source: str | Measure) -> MeasureWorker:
    """The worker of a spec or a measure (a few measures keep theirs, e.g. in a sweep that alternates)."""
    if isinstance(source, Measure):
        source = unbounded(source)
        function = source.function
        source = function.source if isinstance(function, IsolatedFunction) else source
    return _worker_of(source)


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
        As for :func:`puf.load_measure`. A registered name, or a function of the ``puf``
        package, is the harness's own code and loads in-process; any other module or file
        is imported only in a new interpreter (the function is an :class:`IsolatedFunction`).
    time_limit : float, default 10.0
        Seconds allowed per call when the measure is called directly (the runner gives its own).
    import_limit : float, default :data:`IMPORT_TIME_LIMIT`
        Seconds allowed to start the worker and import the module.

    Returns
    -------
    Measure

    Raises
    ------
    ValueError
        The loader's one-line message, or a worker that did not load the module in time.

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
    source, sep, _ = spec.strip().rpartition(":") if isinstance(spec, str) else ("", "", "")
    if not CAN_ISOLATE or not sep or source == "puf" or source.startswith("puf."):
        return load_measure(spec)  # the harness's own code: a registered name or a puf module
    spec = _absolute(spec)
    worker = _worker_of(spec)
    try:
        facts = dict(worker.start(import_limit) or {})  # a spec's worker always reports its facts
    except (WorkerTimeout, WorkerDied) as exc:
        worker.close()
        raise ValueError(f"cannot import {spec.rpartition(':')[0]!r}: {exc}") from None
    origin = facts.pop("origin")
    return Measure(IsolatedFunction(spec, time_limit, reads=facts["reads"], name=facts["name"], origin=origin), **facts)


def _fresh_spec(measure: Measure) -> str | None:
    """A spec a fresh interpreter loads ``measure`` from, or None (a lambda, a closure, __main__)."""
    measure, function = unbounded(measure), unbounded(measure).function
    if isinstance(function, IsolatedFunction):
        return function.source  # type: ignore[return-value]
    if is_trusted(measure):
        return measure.name
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    qualname = getattr(function, "__qualname__", "")
    if isinstance(function, functools.partial) or module is None or module.__name__ == "__main__":
        return None  # no importable name: the fork road
    if not qualname or "<" in qualname:
        return None  # (no qualname: an instance, e.g. a grammar measure, which the fork road takes)
    file = getattr(module, "__file__", None)
    return f"{file if file and module.__name__.startswith('_puf_measure_') else module.__name__}:{qualname}"


def fresh_worker(measure: Measure) -> MeasureWorker:
    """A worker of ``measure`` of the caller's own, not started: a new interpreter importing it by
    its spec, or a fork where it has none (a lambda, a closure). ``close`` it after use.

    Examples
    --------
    >>> from puf import as_measure
    >>> fresh_worker(as_measure("sd")).source
    'sd'
    """
    spec = _fresh_spec(measure)
    return MeasureWorker(measure if spec is None else spec)


def fresh_outcomes(measure: Measure, fields_list: Sequence[Mapping[str, Any]], *, time_limit: float) -> list[Outcome]:
    """Evaluate ``measure`` on each fields dict in a new process (:func:`fresh_worker`), then end it.

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
        return worker.call_many(fields_list, time_limit)
    finally:
        worker.close()
