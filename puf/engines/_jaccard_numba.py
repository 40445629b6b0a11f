"""The numba kernels of the compiled Jaccard-PUF tile (:mod:`puf.engines._jaccard_kernel`).

Imported on the first compiled tile, so that importing the engines does not import numba.
Defined at module level, so that numba's disk cache finds them: a new process loads them in
under a second instead of compiling them again.
"""

from __future__ import annotations

__all__ = ["tile"]

from typing import Any

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic


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
def tile(
    r0: int,
    r1: int,
    c0: int,
    c1: int,
    words: int,
    bits: np.ndarray,
    bits_t: np.ndarray,
    rows: tuple[np.ndarray, np.ndarray],
    columns: tuple[np.ndarray, np.ndarray],
    sizes: np.ndarray,
    scores: np.ndarray,
    counts: np.ndarray,
    terms: np.ndarray,
) -> float:
    """Σ J(u, v)·|S_u − S_v| over the pairs u < v of rows [r0, r1) and columns [c0, c1).

    ``bits``/``bits_t`` hold the first ``64·words`` items of each user as bit words, ``rows`` and
    ``columns`` the users' items and the items' users (CSR ``indptr, indices``); ``counts`` and
    ``terms`` are scratch rows of ``c1 − c0`` entries.
    """
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
