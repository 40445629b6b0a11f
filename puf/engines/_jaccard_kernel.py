"""The Jaccard-PUF tile as one compiled loop, with numba (the ``fast`` extra), or None without it.

numpy takes one operation a pass over a tile: the AND, the popcount and their sum per bit
word, the sparse product into a CSR matrix and its addition into the counts, then six passes
for J and Σ J·|S_u − S_v|. Here each row user counts its intersections with the tile's
column users in a row that stays in L1 (the sparse rest scattered from its items' user lists,
then AND and popcount per word) and takes J and the weighted row sum at once. Every float is
rounded as in the numpy road: J = |∩| / ((|H_u| + |H_v|) − |∩|) from exact integers, times
|S_u − S_v|; only the order of the sum differs (four running sums a row, rows in order).
"""

from __future__ import annotations

__all__ = ["compiled_puf_tile"]

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np


def _puf_tile(shared: dict[str, Any], r0: int, r1: int, j: int, words: int) -> float:
    """Σ_{u<v} J(u, v)·|S_u − S_v| over the tile of rows [r0, r1) and column segment j, compiled.

    ``shared`` is :func:`puf.engines.jaccard.prepare_pattern`'s, with ``scores``; the tile puts
    its first ``64·words`` items (by popularity) in bits and scatters the rest.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from puf.engines.jaccard import prepare_pattern
    >>> shared = prepare_pattern(sp.csr_matrix([[1.0, 1], [0, 1]]), segments=[(0, 2)])
    >>> shared["scores"] = np.array([0.0, 1.0])
    >>> compiled_puf_tile is None or compiled_puf_tile(shared, 0, 2, 0, 1) == 0.5  # J = 1/2, |ΔS| = 1
    True
    """
    from ._jaccard_numba import tile  # numba's import waits for the first compiled tile

    c0, c1 = shared["segments"][j]
    pattern, items = shared["pattern"], shared["pattern_t"][j]
    counts = np.empty(c1 - c0, dtype=np.int32)
    terms = np.empty(c1 - c0)
    return float(
        tile(
            r0,
            r1,
            c0,
            c1,
            words,
            shared["bits"],
            shared["bits_t"],
            (pattern.indptr, pattern.indices),
            (items.indptr, items.indices),
            shared["union_sizes"],
            shared["scores"],
            counts,
            terms,
        )
    )


#: The compiled tile, or None without numba (the default install: the numpy road runs instead).
compiled_puf_tile: Callable[[dict[str, Any], int, int, int, int], float] | None = (
    None if importlib.util.find_spec("numba") is None else _puf_tile
)
