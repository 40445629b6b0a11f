"""The cores this process may use: the one count behind every default of one thread or worker per core."""

from __future__ import annotations

__all__ = ["usable_cores"]

import os


def usable_cores() -> int:
    """Return how many cores this process may run on (its CPU affinity where the OS has one).

    Returns
    -------
    int
        At least 1. On Linux, the size of the affinity mask (a container's or a
        ``taskset``'s limit), which ``os.cpu_count`` does not see.

    Examples
    --------
    >>> usable_cores() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1
