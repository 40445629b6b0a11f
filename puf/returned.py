"""What a measure returned, read as its number: one real number in whatever wrapper it came.

A measure may return a Python or numpy scalar, a 0-d or one-element array, a one-element
list or tuple, or a one-element tensor (anything with ``shape`` and ``item()``): each is
read as its number. Anything else (text, a complex number, a vector, None) is not a
number, and the message says what it was (type and shape) and what to return instead.
"""

from __future__ import annotations

__all__ = ["returned_number", "returned_kind", "returned_epsilon", "not_a_number", "RETURN_FIX"]

import math
import numbers

import numpy as np

RETURN_FIX = "return one real number (a float, or a 0-d or one-element array, list or tensor)"
"""What a measure that returned something else should return instead."""


def returned_number(value: object) -> float | None:
    """Return ``value`` as a float when it holds one real number, else None (bools are not numbers).

    Examples
    --------
    >>> import numpy as np
    >>> returned_number(np.float64(0.5)), returned_number(np.array([[2]])), returned_number([0.25])
    (0.5, 2.0, 0.25)
    >>> returned_number("x"), returned_number(True), returned_number(np.array([1.0, 2.0])), returned_number(1j)
    (None, None, None, None)
    """
    while isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, numbers.Number) and hasattr(value, "item") and hasattr(value, "shape"):
        try:
            if math.prod(value.shape) != 1:
                return None
            value = value.item()
        except (TypeError, ValueError):
            return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return None
    return float(value)


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
