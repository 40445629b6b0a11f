"""Low-level draws behind the strategies and the property cases: sizes, kinds, byte-string
arrays, effectiveness vectors and similarity matrices.

The ``draw_*`` functions take Hypothesis' ``draw`` (inside an ``st.composite``)
and return a value; the strategies of :mod:`puf.properties.cases.strategies` and the
cases of the catalog are built from them. Arrays come from fixed-length byte
strings (one Hypothesis choice each), reversed so that shrinking, which zeroes
a string from its start, clears the last users and items first and the nonzero
values gather at user 0, 1, ...
"""

from __future__ import annotations

__all__ = [
    "GRID_VALUES",
    "EFFECTIVENESS_KINDS",
    "SIMILARITY_KINDS",
    "kinds",
    "unit_float_arrays",
    "draw_size",
    "draw_bytes",
    "draw_grid",
    "draw_bits",
    "symmetric",
    "draw_user_row",
    "draw_effectiveness",
    "draw_similarity",
]

from collections.abc import Sequence
import functools

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import ArrayLike, NDArray


def draw_size(draw: st.DrawFn, low: int, high: int, edge_cases: bool) -> int:
    """A size in [low, high], stratified: sizes low, low + 1, up to low + 4 and the rest each
    get a fixed share of the draws (a flaw that shows only for m >= 5 or m >= 9 is reached).

    One uniform 16-bit draw mapped monotonically to sizes, so shrinking it still shrinks
    the size. Without edge cases the size is uniform on [low, high].
    """
    if low == high:
        return low
    u = int(draw_bytes(draw, 2) @ np.array([1, 256])) / 65536.0
    if not edge_cases:
        return low + min(int(u * (high - low + 1)), high - low)
    # shares: 20% low, 15% low + 1, 25% low + 2 .. low + 4, 40% the rest (uniform)
    bands = [
        (0.20, low, low),
        (0.35, low + 1, low + 1),
        (0.60, low + 2, min(low + 4, high)),
        (1.00, min(low + 5, high), high),
    ]
    start = 0.0
    for end, first, last in bands:
        if u < end and first <= high:
            span = last - first + 1
            return first + min(int((u - start) / (end - start) * span), span - 1)
        start = end
    return high


def kinds(edge_cases: bool, names: Sequence[str]) -> st.SearchStrategy[str]:
    """Strategy of the kinds ``names`` (the general case first), or the general case alone."""
    return st.sampled_from(names if edge_cases else names[:1])


@functools.lru_cache(maxsize=None)
def _blob(n_bytes: int) -> st.SearchStrategy[bytes]:
    return st.binary(min_size=n_bytes, max_size=n_bytes)


@functools.lru_cache(maxsize=None)
def unit_float_arrays(count: int) -> st.SearchStrategy[NDArray[np.float64]]:
    """Strategy of ``count`` arbitrary floats in [0, 1] (the ``continuous`` kinds)."""
    return hnp.arrays(np.float64, count, elements=st.floats(0.0, 1.0, allow_subnormal=False))


def draw_bytes(draw: st.DrawFn, count: int) -> NDArray[np.int64]:
    """``count`` bytes as int64 values in [0, 255], last first."""
    # Reversed: Hypothesis shrinks a byte string towards zero from its start, so the
    # start must hold the last users (and items). Their values vanish first and the
    # nonzero ones gather at user 0, 1, ... where cutting m keeps them.
    return np.frombuffer(draw(_blob(count)), dtype=np.uint8)[::-1].astype(np.int64)


def draw_grid(draw: st.DrawFn, count: int) -> NDArray[np.float64]:
    """``count`` values in [0, 1] on a 0.01 grid."""
    return (draw_bytes(draw, count) % 101) / 100.0


def draw_bits(draw: st.DrawFn, shape: int | tuple[int, ...]) -> NDArray[np.bool_]:
    """Booleans of ``shape`` from one byte string."""
    count = int(np.prod(shape))
    bits = np.unpackbits(draw_bytes(draw, -(-count // 8)).astype(np.uint8))[:count]
    return bits.reshape(shape).astype(bool)


def symmetric(size: int, upper: ArrayLike) -> NDArray[np.float64]:
    """Unit-diagonal symmetric matrix; pairs filled column by column, so the pairs of the
    first j users come first and a matrix cut to fewer users keeps its values."""
    matrix = np.ones((size, size))
    rows, cols = np.triu_indices(size, k=1)
    order = np.lexsort((rows, cols))
    matrix[rows[order], cols[order]] = upper
    matrix[cols[order], rows[order]] = upper
    return matrix


def _fields(raw: NDArray[np.int64], n_items: int, width: int) -> NDArray[np.int64]:
    """Read ``n_items`` unsigned integers of ``width`` bits from the byte array ``raw``."""
    bits = np.unpackbits(raw.astype(np.uint8))[: n_items * width].reshape(n_items, width)
    return bits @ (1 << np.arange(width - 1, -1, -1))


def draw_user_row(
    draw: st.DrawFn, n_items: int, max_grade: int
) -> tuple[NDArray[np.bool_], NDArray[np.float64], NDArray[np.int64]]:
    """One user's history bits, relevance grades and list scores over ``n_items`` items.

    Packed into few bytes (3 bits a grade, 4 a score, 1 a history entry), because
    the shrinker's cost grows with the square of a byte string's length.
    """
    sizes = [-(-n_items * width // 8) for width in (3, 4, 1)]
    raw = draw_bytes(draw, sum(sizes))
    grades_raw, scores_raw, history_raw = np.split(raw, np.cumsum(sizes)[:-1])
    grades = _fields(grades_raw, n_items, 3)
    # Half the grades 0: relevance is sparse in real data.
    grades = np.where(grades < 4, 0, (grades - 4) % max_grade + 1).astype(np.float64)
    bits = _fields(history_raw, n_items, 1).astype(bool)
    return bits, grades, _fields(scores_raw, n_items, 4)


GRID_VALUES = st.integers(0, 100).map(lambda i: i / 100)
"""Strategy of one score in [0, 1] on the 0.01 grid."""
#: The kinds of effectiveness vector :func:`draw_effectiveness` draws, the general case first.
EFFECTIVENESS_KINDS = ("general", "all-equal", "all-zero", "one-far", "two-valued", "continuous")
#: The kinds of similarity matrix :func:`draw_similarity` draws, the general case first.
SIMILARITY_KINDS = ("general", "all-zero", "all-one", "all-equal", "one-far", "continuous")


def draw_effectiveness(draw: st.DrawFn, size: int, largest: int, edge_cases: bool) -> NDArray[np.float64]:
    """An effectiveness vector of ``size`` users, drawn at the ``largest`` size and cut."""
    kind = draw(kinds(edge_cases, EFFECTIVENESS_KINDS))
    if kind == "general":
        return draw_grid(draw, largest)[:size]
    if kind == "continuous":
        return draw(unit_float_arrays(largest))[:size].copy()
    if kind == "all-zero":
        return np.zeros(size)
    if kind == "two-valued":
        return draw_bits(draw, largest)[:size].astype(np.float64)
    values = np.full(size, draw(GRID_VALUES))
    if kind == "one-far":
        values[draw(st.integers(0, size - 1))] = 1.0 if values[0] < 0.5 else 0.0
    return values


def draw_similarity(draw: st.DrawFn, size: int, largest: int, edge_cases: bool) -> NDArray[np.float64]:
    """A similarity matrix of ``size`` users, drawn at the ``largest`` size and cut."""
    kind = draw(kinds(edge_cases, SIMILARITY_KINDS))
    if kind in ("general", "continuous"):
        pairs = largest * (largest - 1) // 2
        upper = draw_grid(draw, pairs) if kind == "general" else draw(unit_float_arrays(pairs))
        return symmetric(largest, upper)[:size, :size].copy()
    pairs = size * (size - 1) // 2
    if kind in ("all-zero", "all-one"):
        return symmetric(size, np.full(pairs, float(kind == "all-one")))
    matrix = symmetric(size, np.full(pairs, draw(GRID_VALUES)))
    if kind == "one-far":
        far = draw(st.integers(0, size - 1))
        matrix[far, :] = matrix[:, far] = 0.0
        matrix[far, far] = 1.0
    return matrix
