"""The example budget: ONE definition shared by ``puf check``, ``pytest --measure``,
``puf report`` (full and ``--quick``) and ``puf power``.

A budget is the number of Hypothesis examples per property, the same for every
property; :func:`example_budget` gives the default or refuses a bad value, for
every caller. (The seconds a property search may take are its ``time_budget``;
:func:`check_run_options` checks both limits of a run.) The seconds
one call of a measure may take have their default here too: :data:`DEFAULT_TIME_LIMIT`, for
every command's ``--time-limit``.
The same seed and budget give the same verdicts everywhere, and each
:class:`~puf.properties.Verdict` records both.
"""

__all__ = [
    "DEFAULT_MAX_EXAMPLES",
    "QUICK_MAX_EXAMPLES",
    "DEFAULT_TIME_LIMIT",
    "DEFAULT_TIME_BUDGET",
    "TIME_LIMIT_HINT",
    "warm_up_limit",
    "example_budget",
    "check_run_options",
]

from collections.abc import Iterable
from typing import Any
import math
import numbers

DEFAULT_MAX_EXAMPLES = 60
"""Examples per property of ``puf check``, ``pytest --measure`` and the full report."""

QUICK_MAX_EXAMPLES = 20
"""Examples per property of ``puf report --quick``."""

DEFAULT_TIME_LIMIT = 2.0
"""Seconds one call of a measure may take (``puf check``, ``puf design`` and ``puf report
--time-limit``, the report's sweeps, verdicts and designed measures alike; pytest:
``--measure-time-limit``); a measure's first call in a process, its warm-up, may take ten
times as long (:func:`warm_up_limit`)."""

DEFAULT_TIME_BUDGET = 60.0
"""Seconds one property's search may take (``puf check --time-budget``; pytest:
``--measure-time-budget``); a search that reaches it stops, and its verdict says so and quotes
no measured power (the corpus measured whole searches)."""

TIME_LIMIT_HINT = "raise it with --time-limit SECONDS (pytest: --measure-time-limit SECONDS)"
"""What a time-out message adds: the options that raise the limit."""


def warm_up_limit(time_limit: float) -> float:
    """Return the seconds a measure's first call in a process may take: ten times the calls' limit.

    An import, a compilation or a cache filled on the first call costs no verdict.

    Examples
    --------
    >>> warm_up_limit(2.0)
    20.0
    """
    return 10 * time_limit


def example_budget(max_examples: int | None = None, *, quick: bool = False, name: str = "max_examples") -> int:
    """Return the example budget: ``max_examples`` checked, or the default when it is None.

    Parameters
    ----------
    max_examples : int, optional
        Examples per property, >= 1.
    quick : bool, default False
        The default is :data:`QUICK_MAX_EXAMPLES` instead of :data:`DEFAULT_MAX_EXAMPLES`.
    name : str, default "max_examples"
        The option's name in the error (``"--max-examples"``).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``max_examples`` is not an integer >= 1 (the message names ``name`` and the value).

    Examples
    --------
    >>> example_budget(), example_budget(quick=True), example_budget(5)
    (60, 20, 5)
    >>> example_budget(0, name="--max-examples")
    Traceback (most recent call last):
    ...
    ValueError: --max-examples must be an integer >= 1, got 0
    """
    if max_examples is None:
        return QUICK_MAX_EXAMPLES if quick else DEFAULT_MAX_EXAMPLES
    if isinstance(max_examples, bool) or not isinstance(max_examples, numbers.Integral) or max_examples < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {max_examples!r}")
    return int(max_examples)


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
