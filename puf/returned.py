"""What a measure returned, read as its number: one real number in whatever wrapper it came.

A measure may return a Python or numpy scalar, a 0-d or one-element array, a one-element
list or tuple, or a one-element tensor (anything with ``shape`` and ``item()``): each is
read as its number; a masked one (numpy's missing value) is NaN, the measure undefined there.
Anything else (text, a complex number, a vector, None) is not a number, and the message says
what it was (type and shape) and what to return instead. One
call's :class:`Outcome` holds its number, its type, what it raised and its float type's
epsilon, wherever the call ran (here, or in a measure's worker process).
"""

from __future__ import annotations

__all__ = [
    "Outcome",
    "outcome",
    "returned_number",
    "returned_kind",
    "returned_epsilon",
    "not_a_number",
    "raised_line",
    "RETURN_FIX",
]

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple
import decimal
import math
import numbers
import warnings

import numpy as np

RETURN_FIX = "return one real number (a float, or a 0-d or one-element array, list or tensor)"
"""What a measure that returned something else should return instead."""


def returned_number(value: object) -> float | None:
    """Return ``value`` as a float when it holds one real number (a ``Decimal`` too), else None (bools
    are not numbers).

    Examples
    --------
    >>> import numpy as np
    >>> returned_number(np.float64(0.5)), returned_number(np.array([[2]])), returned_number([0.25])
    (0.5, 2.0, 0.25)
    >>> import decimal, fractions
    >>> returned_number(decimal.Decimal("0.1")), returned_number(fractions.Fraction(1, 4))
    (0.1, 0.25)
    >>> returned_number(10**400), returned_number(-(10**400)), returned_number(decimal.Decimal("1e400"))
    (inf, -inf, inf)
    >>> returned_number("x"), returned_number(True), returned_number(np.array([1.0, 2.0])), returned_number(1j)
    (None, None, None, None)
    >>> returned_number(np.ma.masked), returned_number(np.ma.array([0.5], mask=[True]))  # missing: undefined
    (nan, nan)
    >>> import pandas as pd
    >>> returned_number(pd.NA), returned_number(pd.array([None], dtype="Float64"))  # pandas' missing too
    (nan, nan)
    """
    while isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, numbers.Number) and hasattr(value, "item") and hasattr(value, "shape"):
        try:
            if math.prod(value.shape) != 1:
                return None
            if np.ma.is_masked(value):  # numpy's missing value: NaN, as float() reads it (item() gives its data)
                return math.nan
            value = value.item()
        except (TypeError, ValueError):
            return None
    if type(value).__name__ == "NAType" and type(value).__module__.startswith("pandas"):
        return math.nan  # pandas' missing value (a nullable mean over no value): undefined, as masked is
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        return None
    try:
        return float(value)
    except OverflowError:  # an int or a fraction beyond the float range is ±inf there, as Decimal's is
        return math.inf if value > 0 else -math.inf  # type: ignore[operator]


_EPSILONS = {"bfloat16": 2.0**-7, "float16": 2.0**-10, "float32": 2.0**-23}


def returned_epsilon(value: object) -> float:
    """The machine epsilon of the float type ``value`` holds its number in: 2⁻⁵² for a Python
    float or float64 (and for integers, which are exact), 2⁻²³ for float32, 2⁻¹⁰ for float16,
    2⁻⁷ for bfloat16; a one-element list or tuple is read through, an array or tensor by its dtype.

    Examples
    --------
    >>> import numpy as np
    >>> returned_epsilon(0.5) == 2.0**-52, returned_epsilon(np.array([0.5], dtype=np.float32)) == 2.0**-23
    (True, True)
    >>> returned_epsilon([np.float16(1.0)]) == 2.0**-10
    True
    """
    while isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    dtype = str(getattr(value, "dtype", ""))  # numpy's "float32", torch's "torch.float32"
    return next((eps for name, eps in _EPSILONS.items() if dtype.rpartition(".")[2] == name), 2.0**-52)


def returned_kind(value: object) -> str:
    """The type of ``value``, with its shape or length when it has one.

    Examples
    --------
    >>> import numpy as np
    >>> returned_kind(np.zeros((2, 3))), returned_kind([1, 2]), returned_kind("high")
    ('ndarray of shape (2, 3)', 'list of 2 elements', 'str')
    """
    kind = type(value).__name__
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        return f"{kind} of shape {tuple(int(n) for n in shape)}"
    if isinstance(value, (list, tuple)):
        return f"{kind} of {len(value)} elements"
    return kind


def not_a_number(kind: str) -> str:
    """The message for a value of ``kind`` (see :func:`returned_kind`) that is not one number.

    Examples
    --------
    >>> not_a_number("ndarray of shape (2,)")
    'returned ndarray of shape (2,), not a number: return one real number (a float, or a 0-d or one-element array, list or tensor)'
    """
    return f"returned {kind}, not a number: {RETURN_FIX}"


def raised_line(exc: BaseException, *, named: bool = True) -> str:
    """The first line of ``Type: message`` (of the message alone unless ``named``), or the type's name.

    Examples
    --------
    >>> raised_line(ValueError("no users\\nat all")), raised_line(KeyError()), raised_line(OSError("full"), named=False)
    ('ValueError: no users', 'KeyError', 'full')
    """
    return (f"{type(exc).__name__}: {exc}" if named else str(exc)).splitlines()[0] if str(exc) else type(exc).__name__


class Outcome(NamedTuple):
    """What one call of a measure gave: its number (None: not one real number), the type it returned,
    what it raised (:func:`raised_line`; None if it returned), its float type's epsilon and the
    first warning it gave (``"RuntimeWarning: ..."``; None: none)."""

    number: float | None
    kind: str
    error: str | None
    epsilon: float = 2.0**-52
    warning: str | None = None


def outcome(
    measure: Callable[..., Any] | None, fields: Mapping[str, Any], catch: type[BaseException] = BaseException
) -> Outcome:
    """Call ``measure`` on ``fields`` with its warnings kept from the caller (the first is in the
    :class:`Outcome`), and read what it gave.

    ``catch`` is what counts as the measure's own failure (in a worker process SystemExit and
    KeyboardInterrupt too: reported, not obeyed); anything else propagates.

    Examples
    --------
    >>> outcome(lambda effectiveness: max(effectiveness), {"effectiveness": [0.0, 0.5]})
    Outcome(number=0.5, kind='float', error=None, epsilon=2.220446049250313e-16, warning=None)
    >>> outcome(lambda effectiveness: "high", {"effectiveness": [0.0]}).kind
    'str'
    >>> outcome(lambda effectiveness: np.float64(0.0) / 0.0, {"effectiveness": [0.0]}).warning
    'RuntimeWarning: invalid value encountered in scalar divide'
    >>> outcome(lambda effectiveness: 1 / 0, {"effectiveness": [0.0]}).error
    'ZeroDivisionError: division by zero'
    >>> s = np.array([0.0, 1.0])
    >>> def centred_in_place(effectiveness):
    ...     effectiveness -= effectiveness.mean()
    ...     return float(abs(effectiveness).max())
    >>> outcome(centred_in_place, {"effectiveness": s}).number, s  # the caller's array as it was
    (0.5, array([0., 1.]))
    """
    # Each call gets its own copy of every array: a measure that edits its input in place (an SD
    # computed with -=) must not change what a later call is given, and one request's populations
    # share arrays (pickle sends an array once however often it is listed).
    fields = {name: value.copy() if isinstance(value, np.ndarray) else value for name, value in fields.items()}
    with warnings.catch_warnings(record=True) as given:
        warnings.simplefilter("default")  # (once a place: a warning in a loop is recorded once)
        try:
            value = measure(**fields)  # type: ignore[misc]
        except catch as exc:
            return Outcome(None, "", raised_line(exc))
    warning = f"{given[0].category.__name__}: {given[0].message}".splitlines()[0] if given else None
    return Outcome(returned_number(value), returned_kind(value), None, returned_epsilon(value), warning)
