"""Running a user's measure where it cannot touch the harness and can be stopped for sure.

A measure named by a spec (``FILE.py:FUNCTION``, ``MODULE:FUNCTION``) is imported and
called only in a fresh interpreter (:func:`load_isolated`): code that runs at import
(replacing ``numpy.std``, rebinding ``puf.paper_score_measures``, ``chdir``, a fork, a thread that
never ends, signal handlers) changes that process, never the harness. The harness holds
a :class:`RemoteFunction` with the measure's metadata. A measure function given as an
object (a lambda, a function of the caller's own module) already lives in the caller's
process; its worker is forked from it.

Either way a worker is a pair of processes in a process group of their own
(:mod:`puf.properties._worker`): a keeper that dies with the harness, even on SIGKILL
(:func:`puf.parallel.die_with_parent`), and the worker, its child, that dies with the
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

from __future__ import annotations

__all__ = [
    "CAN_ISOLATE",
    "IMPORT_TIME_LIMIT",
    "WorkerTimeout",
    "WorkerDied",
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
    "real_number",
]

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
import functools
import inspect
import os
import socket
import sys

from puf.loader import load_measure
from puf.metadata import Measure

from ._worker import real_number
from .workers import (
    IMPORT_TIME_LIMIT,
    MeasureWorker,
    Outcome,
    WorkerBroken,
    WorkerDied,
    WorkerTimeout,
    live_workers,
    release_workers,
    worker_of,
)

#: True where a user's measure can run in a worker process (``os.fork`` and socket pairs).
CAN_ISOLATE = hasattr(os, "fork") and hasattr(socket, "socketpair")


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
    """A worker of ``measure`` of the caller's own, not started: a new interpreter importing
    the measure by its spec, or a fork where it has none (a lambda, a closure). Call
    ``start`` before use and ``close`` after.

    Examples
    --------
    >>> from puf import as_measure
    >>> worker = fresh_worker(as_measure("sd"))
    >>> worker.source
    'sd'
    """
    spec = _fresh_spec(measure)
    return MeasureWorker(measure if spec is None else spec)


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
        return [Outcome(real_number(v), type(v).__name__, None) for v in (measure(**fields) for fields in fields_list)]
    worker = fresh_worker(measure)
    try:
        worker.start(max(time_limit, IMPORT_TIME_LIMIT))
        return worker.call_many(fields_list, time_limit)
    finally:
        worker.close()


def worker_for(measure: Measure) -> MeasureWorker:
    """The worker of ``measure`` (a few measures keep theirs, e.g. in a sweep that alternates)."""
    function = measure.function
    if isinstance(function, IsolatedFunction):
        return worker_for(function.measure)
    return worker_of(function.spec if isinstance(function, RemoteFunction) else measure)
