"""Calling a measure safely: time limit, warnings silenced, a number required (private).

A user's measure runs in a worker process (:mod:`puf.properties.running.isolation`) killed at the time
limit, so nothing it does (C code that ignores signals, ``sys.exit``, editing its input)
reaches the caller; a built-in runs in-process under a SIGALRM limit. A measure's first call
in a process may take :func:`~puf.properties.running.isolation.warm_up_limit`.
"""

from __future__ import annotations

__all__ = ["MeasureError", "Timeout", "call_measure", "FreshCaller", "check_returns_number"]

from collections.abc import Mapping, Sequence
from types import FrameType
from typing import Any, NoReturn
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


def _expire(signum: int, frame: FrameType | None) -> NoReturn:
    raise Timeout()


def _in_process(measure: Measure, fields: Mapping[str, Any], seconds: float | None) -> Any:
    """The value, under a SIGALRM limit in the main thread (an alarm set before is given back)."""
    if not (seconds and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()):
        with warnings.catch_warnings(action="ignore"):
            return measure(**fields)
    previous = signal.signal(signal.SIGALRM, _expire)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return _in_process(measure, fields, None)
    finally:
        left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # someone else's alarm (e.g. pytest-timeout's): what remains of it
            signal.setitimer(signal.ITIMER_REAL, max(outer - (seconds - left), 1e-3))


def _in_worker(
    worker: isolation.MeasureWorker,
    fields: Sequence[Mapping[str, Any]],
    time_limit: float | None,
    *,
    first: bool = False,
    together: bool = False,
) -> list[isolation.Outcome]:
    """The outcomes of calls in ``worker``: :class:`Timeout` over the limit, MeasureError if it died."""
    try:
        return worker.call_many(fields, time_limit, first=first, together=together)
    except TimeoutError:
        raise Timeout() from None
    except WorkerDied as exc:
        raise MeasureError(str(exc)) from None


def _evaluate(measure: Measure, fields: Mapping[str, Any], time_limit: float | None) -> isolation.Outcome:
    """The outcome of one call of ``measure`` on ``fields``: in its worker, or here (a built-in, or no fork)."""
    if not isolation.is_trusted(measure):
        if isolation.CAN_ISOLATE:
            return _in_worker(isolation.worker_for(measure), [fields], time_limit)[0]
        fields = {name: np.array(value, copy=True) for name, value in fields.items()}  # no worker
    try:
        value = _in_process(measure, fields, time_limit)
    except Exception as exc:
        return isolation.Outcome(None, "", f"{type(exc).__name__}: {exc}".splitlines()[0])
    number = returned_number(value)
    return isolation.Outcome(number, "" if number is not None else returned_kind(value), None)


def _number(outcome: isolation.Outcome) -> float:
    """The outcome's number; MeasureError if the measure raised or returned no number."""
    if outcome.number is None:
        raise MeasureError(outcome.error or not_a_number(outcome.kind))
    return outcome.number


def call_measure(measure: Measure, population: Population, time_limit: float | None) -> float:
    """The measure's value on ``population``, a float; warnings (numpy's, errors under pytest's
    ``-W error``) silenced. MeasureError if it raised or returned no number, :class:`Timeout`
    over ``time_limit`` seconds (a worker is killed: the next call starts a new one).

    >>> from puf import Population, as_measure
    >>> call_measure(as_measure(lambda effectiveness: max(effectiveness)), Population([0.0, 1.0], [[1, 0], [0, 1]]), 1.0)
    1.0
    """
    return _number(_evaluate(measure, population.fields(), time_limit))


class FreshCaller:
    """Evaluate one measure in a worker of its own, started fresh
    (:func:`~puf.properties.running.isolation.fresh_worker`): nothing it kept from calls elsewhere (a
    cache, a running normaliser) reaches it. With ``first_calls`` each population is its first
    call in a process, so a measure that fixes something on its first call is seen doing so.
    A built-in is called in-process. :meth:`close` ends the worker.

    >>> from puf import Population, as_measure
    >>> caller = FreshCaller(as_measure(lambda effectiveness: max(effectiveness)), 1.0)
    >>> caller.many([Population([0.0, 1.0], [[1, 0], [0, 1]])]), caller.close()
    ([1.0], None)
    """

    def __init__(self, measure: Measure, time_limit: float, *, first_calls: bool = False) -> None:
        self.measure, self.time_limit, self.first_calls = measure, time_limit, first_calls
        self._worker: isolation.MeasureWorker | None = None

    def many(self, populations: Sequence[Population], *, together: bool = False) -> list[float]:
        """The values on ``populations``, asked in this order (one request to the worker);
        ``together`` (with ``first_calls``): all in one process forked for them, the first its
        first call, so the last is asked after the others and nothing else."""
        if isolation.is_trusted(self.measure) or not isolation.CAN_ISOLATE:
            return [call_measure(self.measure, pop, self.time_limit) for pop in populations]
        self._worker = self._worker or isolation.fresh_worker(self.measure)
        try:
            self._worker.start()
        except (TimeoutError, WorkerDied, ValueError) as exc:
            self.close()
            raise MeasureError(f"the measure's fresh worker did not start: {exc}") from None
        try:
            outcomes = _in_worker(
                self._worker,
                [p.fields() for p in populations],
                self.time_limit,
                first=self.first_calls,
                together=together and self.first_calls,
            )
        except (Timeout, MeasureError):
            self.close()  # (the next call starts a fresh worker)
            raise
        return [_number(outcome) for outcome in outcomes]

    def close(self) -> None:
        """End the worker (a later call starts a fresh one)."""
        if self._worker is not None:
            self._worker.close()
        self._worker = None


def check_returns_number(measure: Measure, time_limit: float | None) -> None:
    """Raise ValueError unless ``measure`` returns a number on a small valid population.

    This is its first call, allowed :func:`~puf.properties.running.isolation.warm_up_limit`. A measure
    that raises passes: raising is a finding the verdicts report, a non-number a broken interface.

    >>> from puf import as_measure
    >>> check_returns_number(as_measure(lambda effectiveness: "high"), 1.0)
    Traceback (most recent call last):
    ...
    ValueError: measure '<lambda>' does not return a number: it returned str; return one real number (a float, or a 0-d or one-element array, list or tensor)
    """
    in_worker = isolation.CAN_ISOLATE and not isolation.is_trusted(measure)  # (a worker warms up itself)
    limit = time_limit if in_worker or time_limit is None else isolation.warm_up_limit(time_limit)
    try:
        outcome = _evaluate(measure, warm_up_fields(measure.reads or ()), limit)
    except (MeasureError, Timeout):
        return
    if outcome.number is None and outcome.error is None:
        raise ValueError(f"measure {measure.name!r} does not return a number: it returned {outcome.kind}; {RETURN_FIX}")
