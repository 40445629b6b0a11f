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

from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import numba
    from numba import types
    from numba.extending import intrinsic
except ImportError:  # the default install: the numpy road runs instead
    numba = None


if numba is not None:  # module-level kernels: numba caches them on disk after the first run

    @intrinsic
    def _popcount(typingctx: Any, word: Any) -> Any:
        """LLVM's ctpop: one POPCNT instruction where the CPU has it."""
        if word != types.uint64:
            return None
        return types.uint64(types.uint64), lambda context, builder, signature, args: builder.ctpop(args[0])

    @numba.njit(nogil=True, cache=True)
    def _add_bits(bits, bits_t, u, v0, c0, c1, words, counts):
        # Word by word along the row of column users: one vectorised AND and popcount a pass.
        # Slices indexed from 0 by a range: numba drops the negative-index check, LLVM vectorises.
        row = counts[v0 - c0 :]
        for k in range(words):
            word, column = bits[u, k], bits_t[k, v0:c1]
            for i in range(c1 - v0):
                row[i] += numba.int32(_popcount(word & column[i]))

    @numba.njit(nogil=True, cache=True)
    def _add_rest(row_ptr, row_items, item_ptr, item_users, u, first, counts):
        for p in range(row_ptr[u], row_ptr[u + 1]):
            item = row_items[p]
            if item >= first:
                for q in range(item_ptr[item], item_ptr[item + 1]):
                    counts[item_users[q]] += 1

    @numba.njit(nogil=True, cache=True)
    def _weighted_row(counts, size_u, score_u, sizes, scores, v0, c0, c1, terms):
        row, size_v, score_v, n = counts[v0 - c0 :], sizes[v0:c1], scores[v0:c1], c1 - v0
        for i in range(n):
            inter = numba.float64(row[i])
            terms[i] = inter / ((size_u + size_v[i]) - inter) * abs(score_u - score_v[i])
        s0 = s1 = s2 = s3 = 0.0
        for a in range(0, n - 3, 4):
            s0 += terms[a]
            s1 += terms[a + 1]
            s2 += terms[a + 2]
            s3 += terms[a + 3]
        for a in range(n - n % 4, n):
            s0 += terms[a]
        return (s0 + s1) + (s2 + s3)

    @numba.njit(nogil=True, cache=True)
    def _tile(r0, r1, c0, c1, words, bits, bits_t, rows, columns, sizes, scores, counts, terms):
        row_ptr, row_items = rows
        item_ptr, item_users = columns
        first = words * 64
        total = 0.0
        for u in range(r0, r1):
            v0 = max(c0, u + 1)  # the strict upper triangle: each pair once
            if v0 >= c1:
                continue
            counts[v0 - c0 :] = 0
            _add_rest(row_ptr, row_items, item_ptr, item_users, u, first, counts)
            if words:
                _add_bits(bits, bits_t, u, v0, c0, c1, words, counts)
            total += _weighted_row(counts, sizes[u], scores[u], sizes, scores, v0, c0, c1, terms)
        return total


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
    c0, c1 = shared["segments"][j]
    pattern, items = shared["pattern"], shared["pattern_t"][j]
    counts = np.empty(c1 - c0, dtype=np.int32)
    terms = np.empty(c1 - c0)
    return float(
        _TILE(
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


_TILE: Any = None if numba is None else _tile
#: The compiled tile, or None without numba.
compiled_puf_tile: Callable[[dict[str, Any], int, int, int, int], float] | None = None if _TILE is None else _puf_tile
