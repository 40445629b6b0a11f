"""Calling a measure safely: time limit, warnings silenced, a number required (private)."""

__all__ = ["MeasureError", "Timeout", "as_number", "call_measure", "check_returns_number"]

import contextlib
import numbers
import signal
import threading
import warnings

import numpy as np


class MeasureError(Exception):
    """The measure raised (or returned something that is not a number)."""


class Timeout(BaseException):
    """A measure call exceeded its time limit; a BaseException so Hypothesis stops at once."""

    snapshot = None


@contextlib.contextmanager
def _time_limit(seconds):
    """Raise :class:`Timeout` in this thread after ``seconds`` (main thread, POSIX only)."""
    usable = (seconds and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def expire(signum, frame):
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


def as_number(value):
    """Return ``value`` as a float, or None when it is not a real number.

    Examples
    --------
    >>> as_number(np.float64(0.5)), as_number(np.array(2)), as_number("x"), as_number(True)
    (0.5, 2.0, None, None)
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        return None
    return float(value)


def call_measure(measure, population, time_limit):
    """Evaluate ``measure`` on ``population`` and return a float.

    Warnings (including numpy's RuntimeWarnings, errors under pytest's
    ``-W error``) are silenced so the verdict depends only on the value.

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> call_measure(as_measure("sd"), Population([0.0, 1.0], [[1, 0], [0, 1]]), 1.0)
    0.5
    """
    fields = population.fields()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _time_limit(time_limit):
                value = measure(**fields)
    except Exception as exc:
        raise MeasureError(f"{type(exc).__name__}: {exc}".splitlines()[0]) from exc
    number = as_number(value)
    if number is None:
        raise MeasureError(f"returned {type(value).__name__}, not a number")
    return number


def _probe_population(measure):
    from puf import Population, World

    if {"utility", "list_distance"} & set(measure.reads):
        world = World(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]),
                      np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
                      [[0, 2], [1, 0]], np.eye(3))
        return world.population(metric="precision")
    return Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]])


def check_returns_number(measure, time_limit):
    """Raise ValueError unless ``measure`` returns a number on a small valid population.

    A measure that raises on it passes this check: raising is a finding the
    verdicts report, while a non-number return is a broken interface.

    Examples
    --------
    >>> from puf import as_measure
    >>> check_returns_number(as_measure(lambda effectiveness: "high"), 1.0)
    Traceback (most recent call last):
    ...
    ValueError: measure '<lambda>' does not return a number: it returned str
    """
    population = _probe_population(measure)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _time_limit(time_limit):
                value = measure(**population.fields())
    except (Exception, Timeout):
        return
    if as_number(value) is None:
        raise ValueError(
            f"measure {measure.name!r} does not return a number: it returned {type(value).__name__}"
        )
