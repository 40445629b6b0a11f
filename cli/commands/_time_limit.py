"""The ``--time-limit`` and ``--time-budget`` options of the commands that judge measures: their
defaults, checks and notes."""

from __future__ import annotations

__all__ = ["add_time_limit", "add_time_budget", "time_limit_error", "timed_out_note", "stopped_note"]

import argparse
import math
from collections.abc import Iterable
from typing import Any

from puf.properties.running.budget import DEFAULT_TIME_BUDGET, DEFAULT_TIME_LIMIT, TIME_LIMIT_HINT


def add_time_limit(parser: argparse.ArgumentParser) -> None:
    """Add ``--time-limit SECONDS`` (default :data:`~puf.properties.running.budget.DEFAULT_TIME_LIMIT`)."""
    parser.add_argument(
        "--time-limit",
        type=float,
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help=f"seconds allowed per call of a measure (default {DEFAULT_TIME_LIMIT:g}); a measure's "
        "first call in a process, its warm-up, may take ten times as long",
    )


def add_time_budget(parser: argparse.ArgumentParser) -> None:
    """Add ``--time-budget SECONDS`` (default :data:`~puf.properties.running.budget.DEFAULT_TIME_BUDGET`)."""
    parser.add_argument(
        "--time-budget",
        type=float,
        default=DEFAULT_TIME_BUDGET,
        metavar="SECONDS",
        help=f"seconds one property's search may take (default {DEFAULT_TIME_BUDGET:g}); a search "
        "that reaches it stops and says so",
    )


def time_limit_error(value: float, option: str = "--time-limit") -> str | None:
    """The message for a ``--time-limit`` (or ``option``) that is not a finite number of seconds
    > 0, else None.

    Examples
    --------
    >>> time_limit_error(0.0), time_limit_error(2.5)
    ('--time-limit must be a finite number of seconds > 0, got 0.0', None)
    """
    if not (math.isfinite(value) and value > 0):
        return f"{option} must be a finite number of seconds > 0, got {value}"
    return None


def timed_out_note(results: Iterable[Any], time_limit: float) -> str | None:
    """A line for the verdicts that timed out, or set aside the sizes at which a call did, naming
    the limit and the option, else None.

    Examples
    --------
    >>> from types import SimpleNamespace as V
    >>> timed_out_note([V(reason="timed out after 2 s"), V(reason="")], 2.0)
    '1 verdict timed out at the limit of 2 s per call: raise it with --time-limit SECONDS (pytest: --measure-time-limit SECONDS)'
    >>> timed_out_note([V(reason="no counterexample (cases of m ≥ 40 set aside: a call there timed out after 2 s)")], 2.0)
    '1 verdict set aside the sizes at which a call timed out at the limit of 2 s per call: raise it with --time-limit SECONDS (pytest: --measure-time-limit SECONDS)'
    """
    reasons = [str(getattr(v, "reason", "")) for v in results]
    whole = sum(reason.startswith("timed out") for reason in reasons)
    sizes = sum("set aside: a call there timed out" in reason for reason in reasons)
    parts = [
        f"{count} verdict{'s' if count > 1 else ''} {what}"
        for count, what in ((whole, "timed out"), (sizes, "set aside the sizes at which a call timed out"))
        if count
    ]
    return f"{' and '.join(parts)} at the limit of {time_limit:g} s per call: {TIME_LIMIT_HINT}" if parts else None


def stopped_note(results: Iterable[Any], time_budget: float) -> str | None:
    """A line for the verdicts whose search stopped at its time budget, naming the budget, the
    time a call took and the options, else None.

    Examples
    --------
    >>> from types import SimpleNamespace as V
    >>> stopped_note([V(reason="no counterexample in 31 examples (search stopped at its time budget of 60 s)",
    ...                 n_examples=31, seconds=61.0)], 60.0)
    '1 search stopped at its time budget of 60 s (about 2 s an example): give it longer with --time-budget SECONDS (pytest: --measure-time-budget SECONDS), or fewer examples with --max-examples N'
    """
    stopped = [v for v in results if "stopped at its time budget" in str(getattr(v, "reason", ""))]
    if not stopped:
        return None
    examples = sum(max(1, getattr(v, "n_examples", 0) or 0) for v in stopped)
    each = sum(float(getattr(v, "seconds", 0.0) or 0.0) for v in stopped) / examples
    return (
        f"{len(stopped)} search{'es' if len(stopped) > 1 else ''} stopped at {'their' if len(stopped) > 1 else 'its'} "
        f"time budget of {time_budget:g} s (about {each:.2g} s an example): give {'them' if len(stopped) > 1 else 'it'} "
        "longer with --time-budget SECONDS (pytest: --measure-time-budget SECONDS), or fewer examples "
        "with --max-examples N"
    )
