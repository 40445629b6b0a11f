"""Calling a measure safely: a time limit, warnings silenced, a number required. A user's measure runs
in its worker (:mod:`puf.properties.running.isolation`), killed at the time limit; a registered one, or
any where there is no ``os.fork``, runs here under a SIGALRM limit.
"""

from __future__ import annotations

__all__ = ["MeasureError", "Timeout", "call_measure", "first_call", "warning_of", "FreshCaller", "check_returns_number"]

from collections.abc import Mapping, Sequence
from types import FrameType
from typing import Any, NoReturn
import math
import signal
import threading

import numpy as np

from puf.metadata import Measure
from puf.parallel import WorkerDied, raised_again
from puf.population import Population
from puf.registry import is_registered
from puf.returned import RETURN_FIX, Outcome, not_a_number, outcome
from puf.world import World

from . import isolation  # (CAN_ISOLATE read at each call: switching it off takes effect at once)
from ..cases.large_draws import example_population, example_world
from .budget import warm_up_limit
from .isolation import MeasureWorker, worker_for


class MeasureError(Exception):
    """The measure raised (or returned something that is not a number)."""


class Timeout(BaseException):
    """A measure call exceeded its time limit; a BaseException so Hypothesis stops at once."""


def _expire(signum: int, frame: FrameType | None) -> NoReturn:
    raise Timeout()


def _in_process(measure: Measure, fields: Mapping[str, Any], seconds: float | None) -> Outcome:
    """A call's outcome here, under a SIGALRM limit in the main thread (an alarm set before is given back)."""
    if not (seconds and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()):
        return outcome(measure, fields, Exception)
    previous = signal.signal(signal.SIGALRM, _expire)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:  # (a Timeout dropped in a finaliser the measure ran: the alarm set anew)
        with raised_again(Timeout, lambda _: signal.setitimer(signal.ITIMER_REAL, 1e-3)):
            return outcome(measure, fields, Exception)
    finally:
        left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # someone else's alarm (e.g. pytest-timeout's): what remains of it
            signal.setitimer(signal.ITIMER_REAL, max(outer - (seconds - left), 1e-3))


def _outcomes(
    measure: Measure,
    fields: Sequence[Mapping[str, Any]],
    limit: float | None,
    worker: MeasureWorker | None = None,
    *,
    first_calls: bool = False,
) -> list[Outcome]:
    """The outcomes in ``worker`` (by default the measure's shared one, of first calls with
    ``first_calls``), or here (a registered measure, or no fork)."""
    if is_registered(measure) or not isolation.CAN_ISOLATE:  # (each call edits its own copy: outcome's)
        return [_in_process(measure, f, limit) for f in fields]
    try:
        return (worker or worker_for(measure, first_calls=first_calls)).call_many(fields, limit)
    except TimeoutError:
        raise Timeout() from None
    except (WorkerDied, ValueError) as exc:  # (ValueError: a new worker did not load the measure)
        raise MeasureError(str(exc)) from None


def _numbers(outcomes: list[Outcome], raised_as_nan: bool = False) -> list[float]:
    """The numbers of ``outcomes``; where the measure raised or returned no number, NaN with ``raised_as_nan``,
    else MeasureError."""
    if not raised_as_nan and (bad := next((o for o in outcomes if o.number is None), None)):
        raise MeasureError(bad.error or not_a_number(bad.kind))
    return [math.nan if o.number is None else o.number for o in outcomes]


def call_measure(measure: Measure, population: Population, time_limit: float | None) -> float:
    """The measure's value on ``population``, a float; MeasureError if it raised or returned no number,
    :class:`Timeout` over ``time_limit`` seconds (a worker is killed: the next call starts a new one).

    >>> from puf import Population, as_measure
    >>> call_measure(as_measure(lambda effectiveness: max(effectiveness)), Population([0.0, 1.0], [[1, 0], [0, 1]]), 1.0)
    1.0
    """
    return _numbers(_outcomes(measure, [population.fields()], time_limit))[0]


def first_call(measure: Measure, population: Population, time_limit: float | None) -> float:
    """The measure's value on ``population`` as :func:`call_measure` gives it, but as the first call of
    a process: forked for it from the measure's shared worker of first calls, which has made no call
    (``worker_for(measure, first_calls=True)``). A registered measure is called here.

    >>> from puf import Population, as_measure
    >>> first_call(as_measure(lambda effectiveness: max(effectiveness)), Population([0.0, 1.0], [[1, 0], [0, 1]]), 1.0)
    1.0
    """
    return _numbers(_outcomes(measure, [population.fields()], time_limit, first_calls=True))[0]


def warning_of(measure: Measure, population: Population, time_limit: float | None) -> str | None:
    """The first warning the measure gives on ``population`` (``"RuntimeWarning: ..."``), what may say
    why it returned NaN there; None if it gave none, raised or timed out.

    >>> from puf import Population, as_measure
    >>> warning_of(as_measure(lambda effectiveness: np.float64(0.0) / 0.0), Population([0.0, 0.0], np.eye(2)), 1.0)
    'RuntimeWarning: invalid value encountered in scalar divide'
    """
    try:
        return _outcomes(measure, [population.fields()], time_limit)[0].warning
    except (MeasureError, Timeout):
        return None


class FreshCaller(MeasureWorker):
    """A worker of one measure's own (``MeasureWorker(measure, fresh=True)``) that returns its values as
    :func:`call_measure` does; with ``first_calls``, each request's first population is a first call in a
    process. A registered measure is called here.

    >>> from puf import Population, as_measure
    >>> caller = FreshCaller(as_measure(lambda effectiveness: max(effectiveness)), 1.0)
    >>> caller.many([Population([0.0, 1.0], [[1, 0], [0, 1]])])
    [1.0]
    >>> _ = caller.close()
    """

    def __init__(self, measure: Measure, time_limit: float, *, first_calls: bool = False) -> None:
        super().__init__(measure, first_calls=first_calls, fresh=True)
        self.measure, self.time_limit = measure, time_limit

    def many(self, populations: Sequence[Population], *, raised_as_nan: bool = False) -> list[float]:
        """The values on ``populations``, asked in this order in one request (with ``raised_as_nan``,
        NaN where the measure raised or returned no number, instead of MeasureError)."""
        found = _outcomes(self.measure, [p.fields() for p in populations], self.time_limit, self)
        return _numbers(found, raised_as_nan)


def check_returns_number(measure: Measure, time_limit: float | None) -> float:
    """Raise ValueError unless ``measure`` returns a number on a small valid population or, failing
    that, on one of six users (a World's if it reads lists); return the machine epsilon of the float
    type it returned (2⁻⁵² if it raised or timed out).

    This is its first call, allowed :func:`~puf.properties.running.budget.warm_up_limit`. A measure that
    raises passes: raising is a finding the verdicts report, a non-number a broken interface. One that
    returns no number (None, say) on two users only passes too: it is undefined there, a finding.

    >>> from puf import as_measure
    >>> check_returns_number(as_measure(lambda effectiveness: "high"), 1.0)
    Traceback (most recent call last):
    ...
    ValueError: measure '<lambda>' does not return a number: it returned str; return one real number (a float, or a 0-d or one-element array, list or tensor)
    >>> check_returns_number(as_measure(lambda effectiveness: None if len(effectiveness) < 3 else 0.5), 1.0)
    2.220446049250313e-16
    """
    small = Population(np.array([0.0, 1.0]), np.array([[1.0, 0.5], [0.5, 1.0]]))
    larger = example_population(6)
    if {"utility", "list_distance"} & set(measure.reads or ()):
        relevance, items = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]), np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
        small = World(relevance, items, np.array([[0, 2], [1, 0]]), np.eye(3)).population(metric="precision")
        larger = example_world(6).population(metric="precision")
    in_worker = isolation.CAN_ISOLATE and not is_registered(measure)  # (a worker warms up itself)
    returned: list[str] = []  # the type of each answer that was no number
    for population in (small, larger):
        try:
            limit = time_limit if in_worker or time_limit is None or returned else warm_up_limit(time_limit)
            (found,) = _outcomes(measure, [population.fields()], limit)
        except (MeasureError, Timeout):
            return 2.0**-52
        if found.number is not None or found.error is not None:
            return found.epsilon
        returned.append(found.kind)
    raise ValueError(f"measure {measure.name!r} does not return a number: it returned {returned[0]}; {RETURN_FIX}")
