"""Calling a measure safely: time limit, warnings silenced, a number required (private).

A user's measure runs in a worker process (:mod:`puf.properties.isolation`) killed at the
time limit, so nothing it does (C code that ignores signals, ``except BaseException``,
``sys.exit``, editing its input) reaches the caller; the built-in measures run in-process
under a SIGALRM limit. A measure's first call in a process is not held to the limit.
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
from types import FrameType
from typing import Any, NoReturn
import contextlib
import math
import numbers
import signal
import threading
import warnings

import numpy as np

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
        if outer_delay:  # someone else (e.g. pytest-timeout) had an alarm set: give back what remains
            signal.setitimer(signal.ITIMER_REAL, max(outer_delay - (seconds - left), 1e-3))


def _evaluate(measure: Measure, fields: Mapping[str, Any], time_limit: float | None) -> tuple[float | None, str]:
    """``(number or None, type name)`` of the measure's value on ``fields``."""
    if not isolation.is_trusted(measure):
        if isolation.CAN_ISOLATE:
            try:
                return isolation.worker_for(measure).call(fields, time_limit)
            except isolation.WorkerTimeout:
                raise Timeout() from None
            except (WorkerDied, RuntimeError) as exc:
                raise MeasureError(str(exc)) from None
        fields = {name: np.array(value, copy=True) for name, value in fields.items()}  # no worker
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _time_limit(time_limit):
                value = measure(**fields)
    except Exception as exc:
        raise MeasureError(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
    number = returned_number(value)
    return number, "" if number is not None else returned_kind(value)


def call_measure(measure: Measure, population: Population, time_limit: float | None) -> float:
    """Evaluate ``measure`` on ``population`` and return a float.

    Warnings (including numpy's RuntimeWarnings, errors under pytest's ``-W error``) are
    silenced so the verdict depends only on the value. A user's measure runs in a worker
    process on copies of the fields; a call over ``time_limit`` seconds raises
    :class:`Timeout` (the worker is killed and the next call starts a new one).

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> call_measure(as_measure(lambda effectiveness: max(effectiveness)),
    ...              Population([0.0, 1.0], [[1, 0], [0, 1]]), 1.0)
    1.0
    """
    number, kind = _evaluate(isolation.unbounded(measure), population.fields(), time_limit)
    if number is None:
        raise MeasureError(not_a_number(kind))
    return number


class FreshCaller:
    """Evaluate one measure in a worker process of its own, started fresh
    (:func:`~puf.properties.isolation.fresh_worker`): nothing the measure kept from earlier
    calls elsewhere (a cache, a running normaliser) reaches it.

    With ``first_calls`` every population asked is the measure's first call in a process
    (forked for it from the worker, which has loaded the measure and never called it), so a
    measure that fixes something on its first call is seen doing so. A registered built-in
    measure is called in-process. :meth:`close` ends the worker.

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> caller = FreshCaller(as_measure(lambda effectiveness: max(effectiveness)), 1.0)
    >>> caller.many([Population([0.0, 1.0], [[1, 0], [0, 1]])])
    [1.0]
    >>> caller.close()
    """

    def __init__(self, measure: Measure, time_limit: float, *, first_calls: bool = False) -> None:
        self.measure, self.time_limit, self.first_calls = isolation.unbounded(measure), time_limit, first_calls
        self._worker: isolation.MeasureWorker | None = None

    def many(self, populations: Sequence[Population]) -> list[float]:
        """The values on ``populations``, asked in this order (one request to the worker)."""
        if isolation.is_trusted(self.measure) or not isolation.CAN_ISOLATE:
            return [call_measure(self.measure, pop, self.time_limit) for pop in populations]
        if self._worker is None:
            self._worker = isolation.fresh_worker(self.measure)
            try:
                self._worker.start()
            except (isolation.WorkerTimeout, WorkerDied, ValueError) as exc:
                self.close()
                raise MeasureError(f"the measure's fresh worker did not start: {exc}") from None
        fields = [pop.fields() for pop in populations]
        try:
            outcomes = self._worker.call_many(fields, self.time_limit, first=self.first_calls)
        except (isolation.WorkerTimeout, WorkerDied) as exc:
            self.close()
            raise Timeout() if isinstance(exc, isolation.WorkerTimeout) else MeasureError(str(exc)) from None
        for outcome in outcomes:
            if outcome.error is not None or outcome.number is None:
                raise MeasureError(outcome.error or not_a_number(outcome.kind))
        return [outcome.number for outcome in outcomes]  # type: ignore[misc]

    def close(self) -> None:
        """End the worker (a later call starts a fresh one)."""
        if self._worker is not None:
            self._worker.close()
            self._worker = None


def end_calls() -> None:
    """Stop the worker processes of user measures (the runner calls this when done)."""
    isolation.release_workers()


def check_returns_number(measure: Measure, time_limit: float | None) -> None:
    """Raise ValueError unless ``measure`` returns a number on a small valid population.

    This is the measure's first call, held to
    :func:`~puf.properties.isolation.warm_up_limit` of ``time_limit``. A measure that
    raises passes: raising is a finding the verdicts report, a non-number a broken interface.

    Examples
    --------
    >>> from puf import as_measure
    >>> check_returns_number(as_measure(lambda effectiveness: "high"), 1.0)
    Traceback (most recent call last):
    ...
    ValueError: measure '<lambda>' does not return a number: it returned str; return one real number (a float, or a 0-d or one-element array, list or tensor)
    """
    measure = isolation.unbounded(measure)
    in_worker = isolation.CAN_ISOLATE and not isolation.is_trusted(measure)
    if time_limit is not None and not in_worker:  # (a worker gives its first call the warm-up itself)
        time_limit = isolation.warm_up_limit(time_limit)
    try:
        number, kind = _evaluate(measure, warm_up_fields(measure.reads or ()), time_limit)
    except (MeasureError, Timeout):
        return
    if number is None:
        raise ValueError(f"measure {measure.name!r} does not return a number: it returned {kind}; {RETURN_FIX}")


def check_run_options(
    *, time_limit: float, time_budget: float, properties: str | Iterable[object] | None
) -> list[Any] | None:
    """Raise ValueError naming the option unless the runner's options make sense.

    Returns ``properties`` as a list of names (a single string is one name), or None for
    the whole catalog.

    Examples
    --------
    >>> check_run_options(time_limit=0, time_budget=60.0, properties=None)
    Traceback (most recent call last):
    ...
    ValueError: time_limit must be a finite number of seconds > 0, got 0
    """
    for name, value in (("time_limit", time_limit), ("time_budget", time_budget)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"{name} must be a finite number of seconds > 0, got {value!r}")
    if properties is None or isinstance(properties, str):
        return None if properties is None else [properties]
    if not (properties := list(properties)):
        raise ValueError("properties must name at least one property, got an empty list")
    return properties
