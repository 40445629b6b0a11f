"""Conversion of user input to float64 arrays and CSR matrices, and the element checks.

The primitives under :mod:`puf.validation`: each raises ``ValueError`` naming
the argument and the first offending value (with its index) and never coerces
text, complex numbers or ragged sequences into numbers.
"""

from __future__ import annotations

__all__ = [
    "as_float_array",
    "as_csr_matrix",
    "check_finite",
    "check_unit_interval",
    "describe_value",
    "number_text",
    "raise_first",
]

from typing import TYPE_CHECKING, Any, TypeAlias
import reprlib
import sys

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    import scipy.sparse as sp

MatrixLike: TypeAlias = "ArrayLike | sp.spmatrix"
"""A user × item matrix as given: dense, scipy sparse, or a (user, item, value) DataFrame.

A DataFrame is array-like (it has ``__array__``); the alias names no pandas type so that
importing the measures does not import pandas.
"""


def describe_value(value: object) -> str:
    """At most 80 characters showing ``value``; never raises (it runs inside error paths).

    Examples
    --------
    >>> describe_value([0.5, "a"])
    "['0.5' 'a']"
    """
    try:
        text = np.array2string(np.asarray(value), threshold=6, precision=6)
    except Exception:  # ragged or exotic input: its repr is all there is to show
        text = reprlib.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_sparse(value: object) -> bool:
    # scipy.sparse is imported where a CSR matrix is built, not with the measures (it is most of a
    # measure's worker's start-up): until something imports it, no value can be one of its matrices.
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and bool(sparse.issparse(value))


def as_float_array(name: str, value: ArrayLike | sp.spmatrix) -> NDArray[np.float64]:
    """``value`` as float64; text, bytes, complex and ragged input are refused, not coerced.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : array_like or scipy.sparse matrix
        Real numbers (a sparse matrix is made dense).

    Returns
    -------
    numpy.ndarray
        ``value`` as float64, any shape; not checked for NaN or infinity (:func:`check_finite`).

    Examples
    --------
    >>> as_float_array("effectiveness", [1, 0.5])
    array([1. , 0.5])
    >>> as_float_array("effectiveness", [[1, 0.5], [1]])
    Traceback (most recent call last):
    ...
    ValueError: effectiveness must be a rectangular numeric array, got nested sequences of different lengths: [[1, 0.5], [1]]
    """
    if _is_sparse(value):
        value = value.toarray()
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":
        return np.asarray(value, dtype=np.float64)  # the common case: no element scan
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # numpy refuses ragged nested sequences
        raise ValueError(
            f"{name} must be a rectangular numeric array, got nested sequences "
            f"of different lengths: {describe_value(value)}"
        ) from exc
    if raw.dtype.kind == "O":
        odd = next(
            (x for x in raw.flat if isinstance(x, (str, bytes, complex, np.complexfloating, list, tuple, np.ndarray))),
            None,
        )
        if odd is not None:
            kind = (
                "nested sequences of different lengths"
                if isinstance(odd, (list, tuple, np.ndarray))
                else type(odd).__name__
            )
            raise ValueError(
                f"{name} must be numeric (a rectangular array of real numbers), got {kind}: {describe_value(value)}"
            )
    elif raw.dtype.kind in "USV":
        raise ValueError(f"{name} must be numeric (real numbers, not text), got {describe_value(value)}")
    elif raw.dtype.kind == "c":
        raise ValueError(f"{name} must be numeric (real numbers, not complex), got {describe_value(value)}")
    try:
        array = raw.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {describe_value(value)!s}") from exc
    return array


def number_text(value: object) -> str:
    """A numpy scalar as plain text: ``1.5`` rather than ``np.float64(1.5)``.

    Examples
    --------
    >>> import numpy as np
    >>> number_text(np.float64(1.5)), number_text(3)
    ('1.5', '3')
    """
    return repr(value.item()) if hasattr(value, "item") else repr(value)


def raise_first(message: str, array: NDArray[Any], flagged: NDArray[np.bool_], **details: object) -> None:
    """Raise ValueError naming the first flagged entry of ``array``: its value and index.

    ``message`` is a :meth:`str.format` template given ``value`` (the entry as
    :func:`number_text`), ``where`` (its index, a tuple) and ``details``.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([[0.5, -1.0]])
    >>> raise_first("{name} must be non-negative, got {value} at index {where}", scores,
    ...             scores < 0, name="scores")
    Traceback (most recent call last):
    ...
    ValueError: scores must be non-negative, got -1.0 at index (0, 1)
    """
    where = tuple(int(i) for i in np.argwhere(flagged)[0])
    raise ValueError(message.format(value=number_text(array[where]), where=where, **details))


def check_finite(name: str, array: NDArray[Any]) -> None:
    """Raise ValueError naming the first NaN or infinite entry of ``array`` and its index.

    Examples
    --------
    >>> import numpy as np
    >>> check_finite("similarity", np.array([[1.0, np.nan]]))
    Traceback (most recent call last):
    ...
    ValueError: similarity must be finite, got nan at index (0, 1)
    """
    bad = ~np.isfinite(array)
    if bad.any():
        raise_first("{name} must be finite, got {value} at index {where}", array, bad, name=name)


def check_unit_interval(name: str, array: NDArray[Any]) -> None:
    """Raise ValueError naming the first entry of ``array`` outside [0, 1] and its index.

    Examples
    --------
    >>> import numpy as np
    >>> check_unit_interval("effectiveness", np.array([0.5, 1.5]))
    Traceback (most recent call last):
    ...
    ValueError: effectiveness must lie in [0, 1], got 1.5 at index (1,)
    """
    outside = (array < 0.0) | (array > 1.0)
    if outside.any():
        raise_first("{name} must lie in [0, 1], got {value} at index {where}", array, outside, name=name)


def as_csr_matrix(name: str, matrix: MatrixLike, n_users: int | None, n_items: int | None) -> sp.csr_matrix:
    """An (m, n) float64 CSR copy of scipy sparse, dense 2-D, or a (user, item, value) DataFrame.

    Duplicates are summed and every stored value checked finite; ``n_users`` and ``n_items``
    (None: from the data) fix the shape. Signs are the caller's to check.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user": [0, 1, 1], "item": [2, 0, 0], "value": [1.0, 2.0, 3.0]})
    >>> as_csr_matrix("relevance", frame, None, None).toarray()
    array([[0., 0., 1.],
           [5., 0., 0.]])
    """
    import scipy.sparse as sp

    try:
        import pandas as pd
    except ImportError:  # pandas is a core dependency; this only guards odd installs
        pd = None
    if pd is not None and isinstance(matrix, pd.DataFrame):
        if matrix.shape[1] < 3:
            raise ValueError(f"{name} DataFrame must have columns (user, item, value), got {list(matrix.columns)}")
        users = matrix.iloc[:, 0].to_numpy()
        items = matrix.iloc[:, 1].to_numpy()
        values = as_float_array(name, matrix.iloc[:, 2].to_numpy())
        for label, ids in (("user", users), ("item", items)):
            if ids.size and (ids.dtype.kind not in "iu" or ids.min() < 0):
                raise ValueError(f"{name} {label} ids must be non-negative integers")
            if ids.size and ids.max() >= np.iinfo(np.int64).max:
                raise ValueError(
                    f"{name} {label} id {number_text(ids.max())} is too large; ids must be "
                    f"below {np.iinfo(np.int64).max} (int64)"
                )
        shape = (
            n_users if n_users is not None else (int(users.max()) + 1 if users.size else 0),
            n_items if n_items is not None else (int(items.max()) + 1 if items.size else 0),
        )
        if users.size and (users.max() >= shape[0] or items.max() >= shape[1]):
            raise ValueError(f"{name} ids out of range for shape {shape}")
        check_finite(name, values)
        csr = sp.csr_matrix((values, (users, items)), shape=shape)
        csr.sum_duplicates()
        return csr
    if sp.issparse(matrix):
        csr = sp.csr_matrix(matrix, dtype=np.float64, copy=True)  # never edit the caller's
    else:
        array = as_float_array(name, matrix)
        if array.ndim != 2:
            raise ValueError(f"{name} must be a 2-D (m, n) matrix, got shape {array.shape}")
        csr = sp.csr_matrix(array)
    csr.sum_duplicates()
    check_finite(name, csr.data)
    if n_users is not None and csr.shape[0] != n_users:
        raise ValueError(f"{name} has {csr.shape[0]} users, expected {n_users}")
    if n_items is not None and csr.shape[1] != n_items:
        raise ValueError(f"{name} has {csr.shape[1]} items, expected {n_items}")
    return csr
