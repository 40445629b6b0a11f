"""Shared input checks: every public function validates through these.

Each check raises ``ValueError`` naming the argument and the offending value
or shape *before* any computation, and returns the input converted to the
canonical float64 / int64 / CSR form the engines expect. The conversions and
element checks they share are :mod:`puf.arrays`.
"""

from __future__ import annotations

__all__ = [
    "UndefinedMeasureWarning",
    "check_effectiveness",
    "check_similarity",
    "check_pair_matrix",
    "check_log_base",
    "check_rankings",
    "check_relevance",
    "check_histories",
    "check_item_features",
    "check_k",
    "check_unit_scalar",
    "check_nonnegative_scalar",
    "check_min_users",
    "check_random_state",
    "check_index",
    "check_integer",
    "check_user_range",
    "check_permutation",
    "undefined",
    "lookup",
]

import math
import numbers
import warnings
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    import scipy.sparse as sp

from puf.arrays import (
    MatrixLike,
    as_csr_matrix,
    as_float_array,
    check_finite,
    check_unit_interval,
    describe_value,
    number_text,
    raise_first,
)

V = TypeVar("V")

SYMMETRY_TOLERANCE = 1e-12
# PEU counts envy > ε only when it exceeds ε by more than this: envy is U[u,v] − U[u,u]
# after both were divided by z_u, and that rounding can lift an exact ε above it. With
# U in [0, 1] the two divisions and the subtraction err by at most 3 half-ulps of 1, so
# four (2^-51 ≈ 4.4e-16) cover it while staying far below any meaningful envy.
ENVY_TOLERANCE = 2.0**-51
# UF's weighted sum Σ_{U*} sim·d_L counts as 0 when it is at most |U*| times this. d_L is
# 1 − ē_u·ē_v, a difference near 1 for lists pointing the same way: a GEMM and a row-wise
# dot round an exact 0 to 0 or to a few ulps (about d·1.1e-16 for d-dimensional vectors),
# so an exact sum of 0 would be undefined on one road and log(1e-16) ≈ −37 on another.
# No d_L below 1e-12 per pair is distinguishable from that rounding.
LIST_DISTANCE_TOLERANCE = 1e-12
_CHECK_BLOCK_ELEMENTS = 1 << 22
# Read-only arrays that own their data and passed a pair-matrix check: id -> (weak reference,
# the checks passed). An m x m check costs a pass over m² values (seconds at m = 6,000), and a
# frozen matrix (a Population's, a World's piece) is checked again each time it is handed on.
_PASSED: dict[int, tuple[weakref.ref, set[tuple[bool, bool]]]] = {}


def _immutable(array: NDArray[np.float64]) -> bool:
    return not array.flags.writeable and array.base is None


def _passed(array: NDArray[np.float64], checks: tuple[bool, bool]) -> bool:
    entry = _PASSED.get(id(array))
    return entry is not None and entry[0]() is array and checks in entry[1]


def _remember(array: NDArray[np.float64], checks: tuple[bool, bool]) -> None:
    entry = _PASSED.get(id(array))
    if entry is None or entry[0]() is not array:
        key = id(array)

        def forget(_: object, key: int = key) -> None:
            _PASSED.pop(key, None)

        entry = _PASSED[key] = (weakref.ref(array, forget), set())
    entry[1].add(checks)


class UndefinedMeasureWarning(UserWarning):
    """A measure is mathematically undefined on this (valid) input; NaN was returned.

    Examples
    --------
    >>> import warnings
    >>> from puf import gini, UndefinedMeasureWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = gini([0.0, 0.0])
    >>> value, caught[0].category is UndefinedMeasureWarning
    (nan, True)
    """


def undefined(reason: str) -> float:
    """Warn with :class:`UndefinedMeasureWarning` and return NaN."""
    warnings.warn(reason, UndefinedMeasureWarning, stacklevel=3)
    return float("nan")


def lookup(registry: Mapping[str, V], name: str, *, what: str) -> V:
    """Return ``registry[name]``; an unknown name raises ValueError listing the known ones."""
    try:
        return registry[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown {what} {name!r}; known: {', '.join(sorted(registry))}") from None


def _shift_index(message, start):
    """Report a row-block index as a row of the whole matrix."""
    head, sep, tail = message.rpartition("at index (")
    if not sep or start == 0:
        return message
    row, rest = tail.split(",", 1)
    return f"{head}at index ({int(row) + start},{rest}"


def check_min_users(m: int, name: str = "effectiveness", minimum: int = 2) -> None:
    """Raise unless there are at least ``minimum`` users (pairwise measures need 2)."""
    if m < minimum:
        purpose = " for a pairwise measure" if minimum >= 2 else ""
        raise ValueError(f"{name} must describe at least {minimum} user{'s' if minimum != 1 else ''}{purpose}, got {m}")


def check_effectiveness(
    effectiveness: ArrayLike, *, name: str = "effectiveness", min_users: int = 1
) -> NDArray[np.float64]:
    """Return ``effectiveness`` as a finite float64 vector in [0, 1]."""
    array = as_float_array(name, effectiveness)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (m,), got shape {array.shape}")
    check_finite(name, array)
    check_unit_interval(name, array)
    check_min_users(array.shape[0], name, min_users)
    return array


def check_pair_matrix(
    matrix: ArrayLike,
    *,
    name: str,
    m: int | None = None,
    symmetric: bool = False,
    unit: bool = True,
    min_users: int = 2,
    against: str = "effectiveness",
) -> NDArray[np.float64]:
    """Return an (m, m) finite float64 matrix, optionally symmetric and in [0, 1]; m from ``against``."""
    array = as_float_array(name, matrix)
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"{name} must be a square (m, m) matrix, got shape {array.shape}")
    if m is not None and array.shape[0] != m:
        raise ValueError(f"{name} has {array.shape[0]} users but {against} has {m}; they must match")
    checks = (symmetric, unit)
    if _immutable(array) and _passed(array, checks):
        check_min_users(array.shape[0], name, min_users)
        return array
    _check_blocks(array, name, symmetric, unit)
    if _immutable(array):
        _remember(array, checks)
    check_min_users(array.shape[0], name, min_users)
    return array


def _check_blocks(array: NDArray[np.float64], name: str, symmetric: bool, unit: bool) -> None:
    """Finite, in [0, 1] (or non-negative) and symmetric, in row blocks."""
    # Row blocks keep the checks' temporaries at O(block * m): a measure such as PUF promises
    # no m x m array beyond the one it is given.
    rows = max(1, _CHECK_BLOCK_ELEMENTS // max(array.shape[0], 1))
    for start in range(0, array.shape[0], rows):
        block = array[start : start + rows]
        try:
            check_finite(name, block)
            if unit:
                check_unit_interval(name, block)
            elif (block < 0).any():
                raise_first("{name} must be non-negative, got {value} at index {where}", block, block < 0, name=name)
        except ValueError as exc:
            raise ValueError(_shift_index(str(exc), start)) from None
        if symmetric and not _symmetric_rows(array, start, rows):
            gap = np.abs(block - array[:, start : start + rows].T)  # the first failing block: its worst entry
            if gap.size and gap.max() > SYMMETRY_TOLERANCE:
                i, j = (int(x) for x in np.unravel_index(np.argmax(gap), gap.shape))
                i += start
                raise ValueError(
                    f"{name} must be symmetric, got {name}[{i},{j}]={number_text(array[i, j])} "
                    f"but {name}[{j},{i}]={number_text(array[j, i])}"
                )


def _symmetric_rows(array: NDArray[np.float64], start: int, rows: int) -> bool:
    """Whether rows ``start:start + rows`` equal their columns (to the tolerance), read in square tiles.

    Only the columns from ``start`` on: an earlier column's pair was read with its own rows.
    Tiles keep both sides in cache; the whole transposed column block is read with a
    stride of m and costs several times more.
    """
    stop = min(start + rows, array.shape[0])
    for column in range(start, array.shape[1], _SYMMETRY_TILE):
        end = min(column + _SYMMETRY_TILE, array.shape[1])
        gap = np.abs(array[start:stop, column:end] - array[column:end, start:stop].T)
        if gap.size and gap.max() > SYMMETRY_TOLERANCE:
            return False
    return True


_SYMMETRY_TILE = 256  # columns per tile: a tile and its mirror, 2 x rows x 256 doubles, stay in cache


def check_log_base(base: float, *, name: str = "base") -> float:
    """Return ``base``, a finite real > 1 (an infinite base would make every log 0, silently)."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real) or not 1 < base < math.inf:
        raise ValueError(f"{name} must be a finite number > 1, got {base!r}")
    return base


def check_similarity(
    similarity: ArrayLike, *, m: int | None = None, name: str = "similarity", min_users: int = 2
) -> NDArray[np.float64]:
    """Return a symmetric (m, m) float64 similarity matrix in [0, 1]."""
    return check_pair_matrix(similarity, name=name, m=m, symmetric=True, min_users=min_users)


def check_k(k: object, *, name: str = "k") -> int:
    """Return ``k`` as a positive int."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise ValueError(f"{name} must be a positive integer, got {k!r}")
    if k < 1:
        raise ValueError(f"{name} must be >= 1, got {k}")
    return int(k)


def check_unit_scalar(value: object, *, name: str) -> float:
    """Return ``value`` as a float in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a real number in [0, 1], got {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    return float(value)


def check_nonnegative_scalar(value: object, *, name: str) -> float:
    """Return ``value`` as a finite float >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number >= 0, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return float(value)


def check_rankings(rankings: ArrayLike, *, n_items: int | None = None, name: str = "rankings") -> NDArray[np.int64]:
    """Return (m, k) int64 item ids, ``-1`` for padding, no duplicate in a row."""
    array = np.asarray(rankings)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (m, k) array of item ids, got shape {array.shape}")
    if array.shape[1] < 1:
        raise ValueError(f"{name} must hold at least one column (k >= 1), got shape {array.shape}")
    if array.dtype.kind == "f":
        check_finite(name, array)
        if (array != np.round(array)).any():
            raise ValueError(f"{name} must hold integer item ids, got {describe_value(array)}")
    elif array.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integer item ids, got dtype {array.dtype}")
    largest = np.iinfo(np.int64).max
    if array.dtype.kind == "u" and array.size and array.max() > largest:
        raise_first(
            "{name} item id {value} at {where} exceeds the largest supported id {largest} (int64)",
            array,
            array > largest,
            name=name,
            largest=largest,
        )
    if array.dtype.kind == "f" and array.size and np.abs(array).max() >= 2.0**63:
        raise_first(
            "{name} item id {value} at {where} does not fit in int64", array, np.abs(array) >= 2.0**63, name=name
        )
    array = array.astype(np.int64)
    if (array < -1).any():
        raise_first(
            "{name} item ids must be >= 0 (or -1 for padding), got {value} at {where}", array, array < -1, name=name
        )
    if n_items is not None and (array >= n_items).any():
        raise_first(
            "{name} item id {value} at {where} is out of range for {n_items} items",
            array,
            array >= n_items,
            name=name,
            n_items=n_items,
        )
    ordered = np.sort(array, axis=1)
    dup = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
    if dup.any():
        row = int(np.argwhere(dup)[0][0])
        item = int(ordered[row, 1:][dup[row]][0])
        raise ValueError(f"{name} row {row} lists item {item} more than once")
    return array


def check_relevance(
    relevance: MatrixLike, *, n_users: int | None = None, n_items: int | None = None, name: str = "relevance"
) -> sp.csr_matrix:
    """Return graded relevance as an (m, n) float64 CSR matrix with entries >= 0."""
    csr = as_csr_matrix(name, relevance, n_users, n_items)
    if (csr.data < 0).any():
        raise ValueError(f"{name} must be non-negative, got {number_text(csr.data[csr.data < 0][0])}")
    csr.eliminate_zeros()
    return csr


def check_histories(
    histories: MatrixLike, *, n_users: int | None = None, n_items: int | None = None, name: str = "histories"
) -> sp.csr_matrix:
    """Return interaction histories as an (m, n) float64 CSR matrix with entries >= 0."""
    return check_relevance(histories, n_users=n_users, n_items=n_items, name=name)


def check_item_features(
    item_features: ArrayLike, *, n_items: int | None = None, name: str = "item_features", positive_rows: bool = True
) -> NDArray[np.float64]:
    """Return (n, f) non-negative finite item features; rows must not sum to 0."""
    array = as_float_array(name, item_features)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (n_items, n_features) array, got shape {array.shape}")
    if n_items is not None and array.shape[0] != n_items:
        raise ValueError(f"{name} has {array.shape[0]} rows but there are {n_items} items")
    check_finite(name, array)
    if (array < 0).any():
        raise_first("{name} must be non-negative, got {value} at {where}", array, array < 0, name=name)
    if positive_rows:
        zero = np.flatnonzero(array.sum(axis=1) <= 0)
        if zero.size:
            raise ValueError(f"{name} row {int(zero[0])} sums to zero; every item needs a feature")
    return array


def check_random_state(random_state: int | np.random.Generator | None) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` from None, an int, or a Generator."""
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        if isinstance(random_state, bool):
            raise ValueError(f"random_state must be None, an int or a Generator, got {random_state!r}")
        if random_state is not None and random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    raise ValueError(f"random_state must be None, an int or a numpy Generator, got {random_state!r}")


def check_index(value: object, *, name: str, size: int, what: str) -> int:
    """Return ``value`` as an int in [0, size): a user or item id.

    Examples
    --------
    >>> check_index(2, name="user", size=3, what="users")
    2
    >>> check_index(3, name="user", size=3, what="users")
    Traceback (most recent call last):
    ...
    ValueError: user must be < 3 (the number of users), got 3
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    index = int(value)
    if index < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    if index >= size:
        raise ValueError(f"{name} must be < {size} (the number of {what}), got {value}")
    return index


def check_integer(value: object, *, name: str, low: int, high: int | None = None) -> int:
    """Return ``value`` as an int in [low, high] (no upper bound when ``high`` is None).

    Examples
    --------
    >>> check_integer(3, name="max_k", low=1)
    3
    >>> check_integer(0, name="max_k", low=1)
    Traceback (most recent call last):
    ...
    ValueError: max_k must be >= 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    number = int(value)
    if number < low or (high is not None and number > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return number


def check_user_range(m: int | None, min_users: int, max_users: int) -> tuple[int, int]:
    """Return the (low, high) range of a drawn number of users: ``(m, m)`` when ``m`` is given.

    Examples
    --------
    >>> check_user_range(None, 2, 12), check_user_range(5, 2, 12)
    ((2, 12), (5, 5))
    >>> check_user_range(None, 1, 12)
    Traceback (most recent call last):
    ...
    ValueError: min_users must be >= 2, got 1
    """
    if m is not None:
        m = check_integer(m, name="m", low=2)
        return m, m
    low = check_integer(min_users, name="min_users", low=2)
    high = check_integer(max_users, name="max_users", low=low)
    return low, high


def check_permutation(order: ArrayLike, m: int, *, name: str = "order") -> NDArray[np.int64]:
    """Return ``order`` as an int array, checked to be a permutation of ``range(m)``.

    Examples
    --------
    >>> check_permutation([1, 0], 2).tolist()
    [1, 0]
    >>> check_permutation([0, 0], 2)
    Traceback (most recent call last):
    ...
    ValueError: order must be a permutation of range(2), got array([0, 0])
    """
    order = np.asarray(order)
    integral = order.dtype.kind in "iu" or order.size == 0
    if not integral or order.shape != (m,) or not np.array_equal(np.sort(order), np.arange(m)):
        raise ValueError(f"{name} must be a permutation of range({m}), got {order!r}")
    return order
