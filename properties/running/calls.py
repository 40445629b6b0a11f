"""Calling a measure safely: time limit, warnings silenced, a number required (private).

A user's measure runs in a worker process (:mod:`puf.properties.isolation`) that is
killed at the time limit, so nothing it does (C code that ignores signals,
``except BaseException``, ``sys.exit``, editing its input) reaches the caller; the
built-in measures run in-process under a SIGALRM limit. Every measure's first call
(:func:`check_returns_number`, and a new worker's warm-up) is not held to the limit.
"""

from __future__ import annotations

__all__ = [
    "MeasureError",
    "Timeout",
    "call_measure",
    "FreshCaller",
    "check_returns_number",
    "check_run_options",
    "end_calls",
]

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NoReturn
import contextlib
import math
import numbers
import signal
import threading
import warnings

import numpy as np

from types import FrameType

from puf.metadata import Measure
from puf.parallel import WorkerDied
from puf.population import Population
from puf.returned import RETURN_FIX, not_a_number, returned_kind, returned_number

from . import isolation
from ._worker import warm_up_fields


class MeasureError(Exception):
    """The measure raised (or returned something that is not a number)."""


class Timeout(BaseException):
    """A measure call exceeded its time limit; a BaseException so Hypothesis stops at once."""

    snapshot: dict[str, Any] | None = None  # the example being evaluated, set by the search


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`Timeout` in this thread after ``seconds`` (main thread, POSIX only)."""
    if not (seconds and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()):
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> NoReturn:
        raise Timeout()

    previous = signal.signal(signal.SIGALRM, expire)
    outer_delay, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_delay:
            # Someone else (e.g. pytest-timeout) had an alarm set: give it back what remains.
            signal.setitimer(signal.ITIMER_REAL, max(outer_delay - (seconds - left), 1e-3))


def call_measure(measure: Measure, population: Population, time_limit: float | None) -> float:
    """Evaluate ``measure`` on ``population`` and return a float.

    Warnings (including numpy's RuntimeWarnings, errors under pytest's
    ``-W error``) are silenced so the verdict depends only on the value. A
    user's measure runs in a worker process on copies of the fields; a call
    over ``time_limit`` seconds raises :class:`Timeout` (the worker is killed
    and the next call starts a new one).

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> call_measure(as_measure("sd"), Population([0.0, 1.0], [[1, 0], [0, 1]]), 1.0)
    0.5
    >>> call_measure(as_measure(lambda effectiveness: max(effectiveness)),
    ...              Population([0.0, 1.0], [[1, 0], [0, 1]]), 1.0)
    1.0
    """
    value = _evaluate(measure, population.fields(), time_limit)
    number = _number(value)
    if number is None:
        raise MeasureError(not_a_number(_kind(value)))
    return number


class _Returned:
    """What a worker reports instead of the value itself: its number (or None) and kind."""

    def __init__(self, number: float | None, kind: str) -> None:
        self.number, self.kind = number, kind


def _number(value: object) -> float | None:
    return value.number if isinstance(value, _Returned) else returned_number(value)


def _kind(value: object) -> str:
    """The type (and shape) the measure returned (a worker reports it in a _Returned)."""
    return value.kind if isinstance(value, _Returned) else returned_kind(value)


def _unbounded(measure: Measure) -> Measure:
    if isinstance(measure.function, isolation.IsolatedFunction):
        return measure.function.measure  # already bounded for other callers: bound it here
    return measure


def _in_worker(worker: isolation.MeasureWorker, fields: Mapping[str, Any], time_limit: float | None) -> _Returned:
    try:
        return _Returned(*worker.call(fields, time_limit))
    except isolation.WorkerTimeout:
        raise Timeout() from None
    except (WorkerDied, RuntimeError) as exc:
        raise MeasureError(str(exc)) from None


def _evaluate(measure: Measure, fields: Mapping[str, Any], time_limit: float | None) -> Any:
    """The measure's value on ``fields`` (a :class:`_Returned` from a worker)."""
    measure = _unbounded(measure)
    if not isolation.is_trusted(measure):
        if isolation.CAN_ISOLATE:
            return _in_worker(isolation.worker_for(measure), fields, time_limit)
        fields = {name: np.array(value, copy=True) for name, value in fields.items()}  # no fork
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _time_limit(time_limit):
                return measure(**fields)
    except Exception as exc:
        raise MeasureError(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc


class FreshCaller:
    """Evaluate one measure in a worker process of its own, started fresh: nothing the measure
    kept from earlier calls elsewhere (a cache, a running normaliser) reaches it.

    The worker is never warmed up: its first call is the first population asked, with
    :func:`~puf.properties.isolation.warm_up_limit` added to its request's limit. With
    ``first_calls``, every population asked is the measure's first call in a process (a
    process forked for it from the worker, which has loaded the measure and never called
    it), so a measure that fixes something (a normaliser) on its first call in a process
    is seen doing so, whatever it was asked before. A registered built-in measure
    (trusted, the package's own stateless code) is called in-process, as for every other
    property. :meth:`close` ends the worker.

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> caller = FreshCaller(as_measure(lambda effectiveness: max(effectiveness)), 1.0)
    >>> caller.many([Population([0.0, 1.0], [[1, 0], [0, 1]])])
    [1.0]
    >>> caller.close()
    """

    def __init__(self, measure: Measure, time_limit: float, *, first_calls: bool = False) -> None:
        self.measure, self.time_limit, self.first_calls = _unbounded(measure), time_limit, first_calls
        self._worker: isolation.MeasureWorker | None = None

    def many(self, populations: Sequence[Population]) -> list[float]:
        """The values on ``populations``, asked in this order (one request to the worker)."""
        if isolation.is_trusted(self.measure) or not isolation.CAN_ISOLATE:
            return [call_measure(self.measure, pop, self.time_limit) for pop in populations]
        warm_up = isolation.warm_up_limit(self.time_limit)  # what a process's first call may take
        limit = (warm_up if self.first_calls else self.time_limit) * len(populations)
        if self._worker is None:
            limit += 0.0 if self.first_calls else warm_up
            self._worker = isolation.fresh_worker(self.measure)
            try:
                self._worker.start(max(self.time_limit, isolation.IMPORT_TIME_LIMIT))
            except (isolation.WorkerTimeout, WorkerDied, ValueError) as exc:
                self.close()
                raise MeasureError(f"the measure's fresh worker did not start: {exc}") from None
        try:
            outcomes = self._worker.call_many([pop.fields() for pop in populations], limit, first=self.first_calls)
        except isolation.WorkerTimeout:
            self.close()
            raise Timeout() from None
        except WorkerDied as exc:
            self.close()
            raise MeasureError(str(exc)) from None
        values = []
        for outcome in outcomes:
            if outcome.error is not None:
                raise MeasureError(outcome.error)
            if outcome.number is None:
                raise MeasureError(not_a_number(outcome.kind))
            values.append(outcome.number)
        return values

    def close(self) -> None:
        """End the worker (a later call starts a fresh one)."""
        if self._worker is not None:
            self._worker.close()
            self._worker = None


def end_calls() -> None:
    """Stop the worker process of the last user measure (the runner calls this when done)."""
    isolation.release_workers()


def check_returns_number(measure: Measure, time_limit: float | None) -> None:
    """Raise ValueError unless ``measure`` returns a number on a small valid population.

    This is the measure's first call (its warm-up where it runs in-process): it may
    take :func:`~puf.properties.isolation.warm_up_limit` of ``time_limit``. A measure
    that raises on it passes this check: raising is a finding the verdicts report,
    while a non-number return is a broken interface.

    Examples
    --------
    >>> from puf import as_measure
    >>> check_returns_number(as_measure(lambda effectiveness: "high"), 1.0)
    Traceback (most recent call last):
    ...
    ValueError: measure '<lambda>' does not return a number: it returned str; return one real number (a float, or a 0-d or one-element array, list or tensor)
    """
    in_worker = isolation.CAN_ISOLATE and not isolation.is_trusted(_unbounded(measure))
    if time_limit is not None and not in_worker:  # (a worker warms itself up)
        time_limit = isolation.warm_up_limit(time_limit)
    try:
        value = _evaluate(measure, warm_up_fields(measure.reads or ()), time_limit)
    except (MeasureError, Timeout):
        return
    if _number(value) is None:
        raise ValueError(f"measure {measure.name!r} does not return a number: it returned {_kind(value)}; {RETURN_FIX}")


def check_run_options(
    *, time_limit: float, time_budget: float, properties: str | Iterable[object] | None
) -> list[Any] | None:
    """Raise ValueError naming the option unless the runner's options make sense.

    Returns ``properties`` as a list of names (a single string is one name, not
    a sequence of one-letter names), or None for the whole catalog.

    Examples
    --------
    >>> check_run_options(time_limit=2.0, time_budget=60.0, properties="range")
    ['range']
    >>> check_run_options(time_limit=0, time_budget=60.0, properties=None)
    Traceback (most recent call last):
    ...
    ValueError: time_limit must be a finite number of seconds > 0, got 0
    """
    for name, value in (("time_limit", time_limit), ("time_budget", time_budget)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"{name} must be a finite number of seconds > 0, got {value!r}")
    if properties is None:
        return None
    if isinstance(properties, str):
        return [properties]
    properties = list(properties)
    if not properties:
        raise ValueError("properties must name at least one property, got an empty list")
    return properties
