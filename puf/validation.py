"""Shared input checks: every public function validates through these.

Each check raises ``ValueError`` naming the argument and the offending value
or shape *before* any computation, and returns the input converted to the
canonical float64 / int64 / CSR form the engines expect.
"""

__all__ = [
    "UndefinedMeasureWarning",
    "check_effectiveness",
    "check_similarity",
    "check_pair_matrix",
    "check_rankings",
    "check_relevance",
    "check_histories",
    "check_item_features",
    "check_k",
    "check_unit_scalar",
    "check_nonnegative_scalar",
    "check_min_users",
    "check_random_state",
    "check_same_users",
    "undefined",
    "lookup",
]

import numbers
import reprlib
import warnings

import numpy as np
import scipy.sparse as sp

SYMMETRY_TOLERANCE = 1e-12
# PEU counts envy > ε only when it exceeds ε by more than this: envy is U[u,v] − U[u,u]
# after both were divided by z_u, and that rounding can lift an exact ε above it. With
# U in [0, 1] the two divisions and the subtraction err by at most 3 half-ulps of 1, so
# four (2^-51 ≈ 4.4e-16) cover it while staying far below any meaningful envy.
ENVY_TOLERANCE = 2.0**-51
_CHECK_BLOCK_ELEMENTS = 1 << 22


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


def undefined(reason):
    """Warn with :class:`UndefinedMeasureWarning` and return NaN."""
    warnings.warn(reason, UndefinedMeasureWarning, stacklevel=3)
    return float("nan")


def lookup(registry, name, *, what):
    """Return ``registry[name]``; an unknown name raises ValueError listing the known ones."""
    try:
        return registry[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown {what} {name!r}; known: {', '.join(sorted(registry))}") from None


def _describe(value):
    """At most 80 characters showing ``value``; never raises (it runs inside error paths)."""
    try:
        text = np.array2string(np.asarray(value), threshold=6, precision=6)
    except Exception:  # ragged or exotic input: its repr is all there is to show
        text = reprlib.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _as_float_array(name, value):
    """``value`` as float64; text, bytes, complex and ragged input are refused, not coerced."""
    if sp.issparse(value):
        value = value.toarray()
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":
        return np.asarray(value, dtype=np.float64)  # the common case: no element scan
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # numpy refuses ragged nested sequences
        raise ValueError(f"{name} must be a rectangular numeric array, got nested sequences "
                         f"of different lengths: {_describe(value)}") from exc
    if raw.dtype.kind == "O":
        odd = next((x for x in raw.flat if isinstance(x, (str, bytes, complex, np.complexfloating,
                                                           list, tuple, np.ndarray))), None)
        if odd is not None:
            kind = "nested sequences of different lengths" if isinstance(
                odd, (list, tuple, np.ndarray)) else type(odd).__name__
            raise ValueError(f"{name} must be numeric (a rectangular array of real numbers), "
                             f"got {kind}: {_describe(value)}")
    elif raw.dtype.kind in "USV":
        raise ValueError(f"{name} must be numeric (real numbers, not text), got {_describe(value)}")
    elif raw.dtype.kind == "c":
        raise ValueError(f"{name} must be numeric (real numbers, not complex), got {_describe(value)}")
    try:
        array = raw.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {_describe(value)!s}") from exc
    return array


def _num(value):
    """A numpy scalar as plain text: ``1.5`` rather than ``np.float64(1.5)``."""
    return repr(value.item()) if hasattr(value, "item") else repr(value)


def _check_finite(name, array):
    bad = ~np.isfinite(array)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} must be finite, got {_num(array[where])} at index {where}")


def _check_in_unit_interval(name, array):
    outside = (array < 0.0) | (array > 1.0)
    if outside.any():
        where = tuple(int(i) for i in np.argwhere(outside)[0])
        raise ValueError(f"{name} must lie in [0, 1], got {_num(array[where])} at index {where}")


def _shift_index(message, start):
    """Report a row-block index as a row of the whole matrix."""
    head, sep, tail = message.rpartition("at index (")
    if not sep or start == 0:
        return message
    row, rest = tail.split(",", 1)
    return f"{head}at index ({int(row) + start},{rest}"


def check_min_users(m, name="effectiveness", minimum=2):
    """Raise unless there are at least ``minimum`` users (pairwise measures need 2)."""
    if m < minimum:
        purpose = " for a pairwise measure" if minimum >= 2 else ""
        raise ValueError(f"{name} must describe at least {minimum} "
                         f"user{'s' if minimum != 1 else ''}{purpose}, got {m}")


def check_effectiveness(effectiveness, *, name="effectiveness", min_users=1):
    """Return ``effectiveness`` as a finite float64 vector in [0, 1]."""
    array = _as_float_array(name, effectiveness)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (m,), got shape {array.shape}")
    _check_finite(name, array)
    _check_in_unit_interval(name, array)
    check_min_users(array.shape[0], name, min_users)
    return array


def check_pair_matrix(matrix, *, name, m=None, symmetric=False, unit=True, min_users=2):
    """Return an (m, m) finite float64 matrix, optionally symmetric and in [0, 1]."""
    array = _as_float_array(name, matrix)
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"{name} must be a square (m, m) matrix, got shape {array.shape}")
    if m is not None and array.shape[0] != m:
        raise ValueError(
            f"{name} has {array.shape[0]} users but effectiveness has {m}; they must match"
        )
    # Row blocks keep the checks' temporaries at O(block * m): a measure such as PUF promises
    # no m x m array beyond the one it is given.
    rows = max(1, _CHECK_BLOCK_ELEMENTS // max(array.shape[0], 1))
    for start in range(0, array.shape[0], rows):
        block = array[start:start + rows]
        try:
            _check_finite(name, block)
            if unit:
                _check_in_unit_interval(name, block)
            elif (block < 0).any():
                where = tuple(int(i) for i in np.argwhere(block < 0)[0])
                raise ValueError(f"{name} must be non-negative, got {_num(block[where])} at index {where}")
        except ValueError as exc:
            raise ValueError(_shift_index(str(exc), start)) from None
        if symmetric:
            gap = np.abs(block - array[:, start:start + rows].T)
            if gap.size and gap.max() > SYMMETRY_TOLERANCE:
                i, j = (int(x) for x in np.unravel_index(np.argmax(gap), gap.shape))
                i += start
                raise ValueError(
                    f"{name} must be symmetric, got {name}[{i},{j}]={_num(array[i, j])} "
                    f"but {name}[{j},{i}]={_num(array[j, i])}"
                )
    check_min_users(array.shape[0], name, min_users)
    return array


def check_similarity(similarity, *, m=None, name="similarity", min_users=2):
    """Return a symmetric (m, m) float64 similarity matrix in [0, 1]."""
    return check_pair_matrix(similarity, name=name, m=m, symmetric=True, min_users=min_users)


def check_same_users(**arrays):
    """Raise unless every named array has the same first dimension."""
    sizes = {name: np.shape(a)[0] for name, a in arrays.items() if a is not None}
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"{name} has {n}" for name, n in sizes.items())
        raise ValueError(f"user counts differ: {listed}")


def check_k(k, *, name="k"):
    """Return ``k`` as a positive int."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise ValueError(f"{name} must be a positive integer, got {k!r}")
    if k < 1:
        raise ValueError(f"{name} must be >= 1, got {k}")
    return int(k)


def check_unit_scalar(value, *, name):
    """Return ``value`` as a float in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a real number in [0, 1], got {value!r}")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    return float(value)


def check_nonnegative_scalar(value, *, name):
    """Return ``value`` as a finite float >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number >= 0, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return float(value)


def check_rankings(rankings, *, n_items=None, name="rankings"):
    """Return (m, k) int64 item ids, ``-1`` for padding, no duplicate in a row."""
    array = np.asarray(rankings)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (m, k) array of item ids, got shape {array.shape}")
    if array.shape[1] < 1:
        raise ValueError(f"{name} must hold at least one column (k >= 1), got shape {array.shape}")
    if array.dtype.kind == "f":
        _check_finite(name, array)
        if (array != np.round(array)).any():
            raise ValueError(f"{name} must hold integer item ids, got {_describe(array)}")
    elif array.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integer item ids, got dtype {array.dtype}")
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        where = tuple(int(i) for i in np.argwhere(array > np.iinfo(np.int64).max)[0])
        raise ValueError(f"{name} item id {_num(array[where])} at {where} exceeds the largest "
                         f"supported id {np.iinfo(np.int64).max} (int64)")
    if array.dtype.kind == "f" and array.size and np.abs(array).max() >= 2.0**63:
        where = tuple(int(i) for i in np.argwhere(np.abs(array) >= 2.0**63)[0])
        raise ValueError(f"{name} item id {_num(array[where])} at {where} does not fit in int64")
    array = array.astype(np.int64)
    if (array < -1).any():
        where = tuple(int(i) for i in np.argwhere(array < -1)[0])
        raise ValueError(f"{name} item ids must be >= 0 (or -1 for padding), got {_num(array[where])} at {where}")
    if n_items is not None and (array >= n_items).any():
        where = tuple(int(i) for i in np.argwhere(array >= n_items)[0])
        raise ValueError(
            f"{name} item id {_num(array[where])} at {where} is out of range for {n_items} items"
        )
    ordered = np.sort(array, axis=1)
    dup = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
    if dup.any():
        row = int(np.argwhere(dup)[0][0])
        item = int(ordered[row, 1:][dup[row]][0])
        raise ValueError(f"{name} row {row} lists item {item} more than once")
    return array


def _as_csr(name, matrix, n_users, n_items):
    """Accept scipy sparse, dense 2-D, or a (user, item, value) DataFrame."""
    try:
        import pandas as pd
    except ImportError:  # pandas is a core dependency; this only guards odd installs
        pd = None
    if pd is not None and isinstance(matrix, pd.DataFrame):
        if matrix.shape[1] < 3:
            raise ValueError(
                f"{name} DataFrame must have columns (user, item, value), got {list(matrix.columns)}"
            )
        users = matrix.iloc[:, 0].to_numpy()
        items = matrix.iloc[:, 1].to_numpy()
        values = _as_float_array(name, matrix.iloc[:, 2].to_numpy())
        for label, ids in (("user", users), ("item", items)):
            if ids.size and (ids.dtype.kind not in "iu" or ids.min() < 0):
                raise ValueError(f"{name} {label} ids must be non-negative integers")
            if ids.size and ids.max() >= np.iinfo(np.int64).max:
                raise ValueError(f"{name} {label} id {_num(ids.max())} is too large; ids must be "
                                 f"below {np.iinfo(np.int64).max} (int64)")
        shape = (
            n_users if n_users is not None else (int(users.max()) + 1 if users.size else 0),
            n_items if n_items is not None else (int(items.max()) + 1 if items.size else 0),
        )
        if users.size and (users.max() >= shape[0] or items.max() >= shape[1]):
            raise ValueError(f"{name} ids out of range for shape {shape}")
        _check_finite(name, values)
        csr = sp.csr_matrix((values, (users, items)), shape=shape)
        csr.sum_duplicates()
        return csr
    if sp.issparse(matrix):
        csr = sp.csr_matrix(matrix, dtype=np.float64, copy=True)  # never edit the caller's
    else:
        array = _as_float_array(name, matrix)
        if array.ndim != 2:
            raise ValueError(f"{name} must be a 2-D (m, n) matrix, got shape {array.shape}")
        csr = sp.csr_matrix(array)
    csr.sum_duplicates()
    _check_finite(name, csr.data)
    if n_users is not None and csr.shape[0] != n_users:
        raise ValueError(f"{name} has {csr.shape[0]} users, expected {n_users}")
    if n_items is not None and csr.shape[1] != n_items:
        raise ValueError(f"{name} has {csr.shape[1]} items, expected {n_items}")
    return csr


def check_relevance(relevance, *, n_users=None, n_items=None, name="relevance"):
    """Return graded relevance as an (m, n) float64 CSR matrix with entries >= 0."""
    csr = _as_csr(name, relevance, n_users, n_items)
    if (csr.data < 0).any():
        raise ValueError(f"{name} must be non-negative, got {_num(csr.data[csr.data < 0][0])}")
    csr.eliminate_zeros()
    return csr


def check_histories(histories, *, n_users=None, n_items=None, name="histories"):
    """Return interaction histories as an (m, n) float64 CSR matrix with entries >= 0."""
    return check_relevance(histories, n_users=n_users, n_items=n_items, name=name)


def check_item_features(item_features, *, n_items=None, name="item_features", positive_rows=True):
    """Return (n, f) non-negative finite item features; rows must not sum to 0."""
    array = _as_float_array(name, item_features)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (n_items, n_features) array, got shape {array.shape}")
    if n_items is not None and array.shape[0] != n_items:
        raise ValueError(f"{name} has {array.shape[0]} rows but there are {n_items} items")
    _check_finite(name, array)
    if (array < 0).any():
        where = tuple(int(i) for i in np.argwhere(array < 0)[0])
        raise ValueError(f"{name} must be non-negative, got {_num(array[where])} at {where}")
    if positive_rows:
        zero = np.flatnonzero(array.sum(axis=1) <= 0)
        if zero.size:
            raise ValueError(f"{name} row {int(zero[0])} sums to zero; every item needs a feature")
    return array


def check_random_state(random_state):
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
