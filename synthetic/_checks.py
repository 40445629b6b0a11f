"""Argument checks shared by the generators (the generic ones live in puf.validation)."""

from __future__ import annotations

__all__ = ["check_users", "check_open_unit", "check_count", "check_user"]

import numbers

import numpy as np

from puf.validation import check_index, check_k
from puf.world import World


def check_users(m: int, *, name: str = "m") -> int:
    """Return ``m`` as an int >= 2: every pairwise quantity needs a pair of users."""
    m = check_k(m, name=name)
    if m < 2:
        raise ValueError(f"{name} must be >= 2 (a pairwise measure needs two users), got {m}")
    return m


def check_open_unit(value: float, *, name: str) -> float:
    """Return ``value`` as a float strictly inside (0, 1)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a real number strictly inside (0, 1), got {value!r}")
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie strictly inside (0, 1), got {value!r}")
    return float(value)


def check_count(value: int, *, name: str, minimum: int = 0) -> int:
    """Return ``value`` as an int >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_user(world: World, user: int, name: str = "user") -> int:
    """Return ``user`` as an int id of one of ``world``'s users."""
    return check_index(user, name=name, size=world.m, what="users")
