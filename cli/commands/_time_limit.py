"""The ``--time-limit`` option of the commands that judge measures: its default, check and note."""

from __future__ import annotations

__all__ = ["add_time_limit", "time_limit_error", "timed_out_note"]

import argparse
import math
from collections.abc import Iterable
from typing import Any

from puf.properties.running.budget import DEFAULT_TIME_LIMIT, TIME_LIMIT_HINT


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


def time_limit_error(value: float) -> str | None:
    """The message for a ``--time-limit`` that is not a finite number of seconds > 0, else None.

    Examples
    --------
    >>> time_limit_error(0.0), time_limit_error(2.5)
    ('--time-limit must be a finite number of seconds > 0, got 0.0', None)
    """
    if not (math.isfinite(value) and value > 0):
        return f"--time-limit must be a finite number of seconds > 0, got {value}"
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
