"""The pieces of one round of the swap search: every swap's change, the best ones, the batch taken.

:func:`synthetic.pairing._local_search` runs the rounds; this module holds what one
round computes, and the same round on the pairs across the two groups of a
two-valued assignment (:func:`two_valued_search`), which gives the same swaps.
"""

from __future__ import annotations

__all__ = [
    "swap_changes",
    "best_swaps",
    "exact_gain",
    "may_improve",
    "batch",
    "distinct_columns",
    "times_gaps",
    "cross_changes",
    "cross_best",
    "whole_best",
    "two_valued_search",
]

import numpy as np
from numpy.typing import NDArray

_ROWS = 256  # rows of the swap-change matrix computed at a time: a block of cost.T stays in cache
_LOWER = np.tril(np.ones((_ROWS, _ROWS), dtype=bool))


def swap_changes(
    a: NDArray[np.float64],
    similarity: NDArray[np.float64],
    gaps: NDArray[np.float64],
    cost: NDArray[np.float64],
    sign: float,
    out: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """sign * (change of Σ sim |gap| when users i and j swap values) for i < j; +inf for i >= j.

    With A = |a_u - a_v| and G = S A (G[i, j]: i's weighted gap sum if i held j's value),
    the change is G[i,j] + G[j,i] - G[i,i] - G[j,j] + 2 S[i,j] A[i,j]. Computed in row
    blocks (G.T read a block at a time), the upper triangle only, each value by the
    same operations in the same order as on the whole matrix.
    """
    m = cost.shape[0]
    change = np.empty((m, m)) if out is None else out
    diagonal = np.diag(cost).copy()
    buffer = np.empty(min(m, _ROWS) * m)
    for start in range(0, m, _ROWS):
        stop = min(m, start + _ROWS)
        block = change[start:stop, start:]
        np.add(cost[start:stop, start:], cost[start:, start:stop].T, out=block)
        block -= diagonal[start:stop, None]
        block -= diagonal[None, start:]
        weighted = buffer[: block.size].reshape(block.shape)
        np.multiply(similarity[start:stop, start:], 2.0, out=weighted)
        weighted *= gaps[start:stop, start:]
        block += weighted
        if sign != 1.0:  # x * 1.0 is x: the pass is skipped, not the value changed
            block *= sign
        change[start:stop, :start] = np.inf
        square = block[:, : stop - start]
        square[_LOWER[: stop - start, : stop - start]] = np.inf
    return change


def best_swaps(change: NDArray[np.float64], tolerance: float, most: int) -> NDArray[np.int64]:
    """Flat indices of the (at most ``most``) smallest entries below ``-tolerance``, smallest first.

    The entries :func:`np.argpartition` of the whole matrix, then a stable
    argsort of their values, give (so ties keep its order): found among the
    improving entries alone when no two of the chosen are equal and the last
    chosen is below the first left out, which fixes both the set and the order;
    otherwise by that very computation.
    """
    values = change.ravel()
    improving = np.flatnonzero(values < -tolerance)
    if improving.size == 0:
        return improving
    found = _strictly_best(improving, values[improving], improving.size, most)
    if found is not None:
        return found[0]
    size = min(improving.size, most)
    flat = np.argpartition(values, size - 1)[:size]
    return flat[np.argsort(values[flat], kind="stable")]


def _strictly_best(
    improving: NDArray[np.int64], gains: NDArray[np.float64], count: int, most: int
) -> tuple[NDArray[np.int64], NDArray[np.float64]] | None:
    """The ``most`` smallest ``gains`` of ``count`` improving swaps and their indices, smallest first.

    ``improving``/``gains`` hold at least the ``most + 1`` smallest of them. None when
    equal values could order them (a tie among the chosen, or with the first left out):
    then the whole matrix decides, as :func:`best_swaps` has it.
    """
    size = min(count, most)
    if size < count:
        parted = np.argpartition(gains, size)
        boundary = gains[parted[size]]
        improving, gains = improving[parted[:size]], gains[parted[:size]]
        if gains.max() >= boundary:
            return None
    order = np.argsort(gains, kind="stable")
    gains = gains[order]
    if bool((gains[1:] == gains[:-1]).any()):
        return None
    return improving[order], gains


_WINDOW = 512  # candidate swaps screened at a time against the batch so far
_EPS = float(np.finfo(np.float64).eps)


def exact_gain(
    gain: float,
    a: NDArray[np.float64],
    similarity: NDArray[np.float64],
    sign: float,
    k: int,
    l: int,
    first: NDArray[np.int64],
    second: NDArray[np.int64],
) -> float:
    """A swap's change (``gain`` alone) once the batch's swaps are accounted for, computed as the plain loop does."""
    if first.size:
        h = np.abs(a[l] - a[second]) - np.abs(a[k] - a[second])
        h -= np.abs(a[l] - a[first]) - np.abs(a[k] - a[first])
        weights = similarity[k, first] - similarity[l, first]
        weights -= similarity[k, second] - similarity[l, second]
        gain += sign * float(np.einsum("i,i->", weights, h))
    return gain


def may_improve(
    gains: NDArray[np.float64],
    a: NDArray[np.float64],
    similarity: NDArray[np.float64],
    sign: float,
    tolerance: float,
    k: NDArray[np.int64],
    l: NDArray[np.int64],
    first: NDArray[np.int64],
    second: NDArray[np.int64],
) -> NDArray[np.bool_]:
    """Which of the swaps (k, l) :func:`exact_gain` could find improving, for a batch: all others cannot.

    The same products in one sum per swap, in another order: the two sums differ by
    at most (B + 1) eps Σ|products| (B the batch size); the slack is several times that
    plus the rounding of the last addition, so no improving swap is screened out.
    """
    h = np.abs(a[l][:, None] - a[second][None, :]) - np.abs(a[k][:, None] - a[second][None, :])
    h -= np.abs(a[l][:, None] - a[first][None, :]) - np.abs(a[k][:, None] - a[first][None, :])
    weights = similarity[np.ix_(k, first)] - similarity[np.ix_(l, first)]
    weights -= similarity[np.ix_(k, second)] - similarity[np.ix_(l, second)]
    products = weights * h
    dot = products.sum(axis=1)
    slack = 8.0 * (first.size + 2) * _EPS * np.abs(products).sum(axis=1)
    slack += 8.0 * _EPS * (np.abs(gains) + np.abs(dot))
    return gains + sign * dot - slack < -tolerance


def batch(
    flat: NDArray[np.int64],
    gains: NDArray[np.float64],
    a: NDArray[np.float64],
    similarity: NDArray[np.float64],
    sign: float,
    tolerance: float,
) -> tuple[list[int], list[int]]:
    """The round's swaps on disjoint users, best first, each improving once the earlier ones are taken.

    ``flat`` are the candidates' flat indices i * m + j and ``gains`` their changes.
    What the plain loop over ``flat`` takes (each candidate whose users are free, accepted
    when its :func:`exact_gain` is below ``-tolerance``), with the candidates that cannot
    be accepted screened out a window at a time (:func:`may_improve`); the gains of the
    others are computed exactly as that loop computes them.
    """
    m = a.shape[0]
    ks, ls = np.divmod(flat, m)
    used = np.zeros(m, dtype=bool)
    first, second, n = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), 0
    start = 0
    while start < ks.size:
        stop = min(ks.size, start + _WINDOW)
        k, l, g = ks[start:stop], ls[start:stop], gains[start:stop]
        maybe = ~(used[k] | used[l])
        if n:
            maybe &= may_improve(g, a, similarity, sign, tolerance, k, l, first[:n], second[:n])
        start, taken = stop, False
        for offset in np.flatnonzero(maybe):
            kk, ll = k[offset], l[offset]
            if exact_gain(g[offset], a, similarity, sign, kk, ll, first[:n], second[:n]) < -tolerance:
                used[kk] = used[ll] = True
                first[n], second[n], n = kk, ll, n + 1
                start, taken = stop - k.size + offset + 1, True
                break
        if not taken:
            start = stop
    return first[:n].tolist(), second[:n].tolist()


def distinct_columns(a: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]] | None:
    """(a user of each distinct value, each user's value index): A's columns are equal where the values are.

    None when most values are distinct (the plain product is then as quick).
    """
    _, first, inverse = np.unique(a, return_index=True, return_inverse=True)
    return (first, inverse.ravel()) if 4 * first.size <= a.shape[0] else None


def times_gaps(
    left: NDArray[np.float64],
    gaps: NDArray[np.float64],
    columns: tuple[NDArray[np.int64], NDArray[np.int64]] | None,
    rows: tuple[list[int], list[int]] | None = None,
) -> NDArray[np.float64]:
    """``left @ A``, or ``left @ (A[J] - A[I])`` for ``rows = (J, I)``, each distinct column of A multiplied once.

    The product of the distinct columns, gathered, is the whole product to rounding:
    O(m^2 d) for d distinct values instead of O(m^3); a binary assignment has d = 2.
    Its last bits are the machine's BLAS kernel's (on some the whole product rounds
    otherwise), so every road of the search takes the product of the distinct columns
    (here, or :func:`two_valued_search`'s G kept as its m x 2 columns, the same product
    before it is gathered), and the roads agree bit for bit on any machine.
    """
    picked = slice(None) if columns is None else columns[0]
    if rows is None:
        right = gaps[:, picked]
    else:
        right = gaps[rows[0]][:, picked] - gaps[rows[1]][:, picked]
    product = left @ right
    return product if columns is None else np.take(product, columns[1], axis=1)


def cross_changes(
    cost: NDArray[np.float64],
    similarity: NDArray[np.float64],
    low: NDArray[np.int64],
    high: NDArray[np.int64],
    gap: float,
    sign: float,
) -> NDArray[np.float64]:
    """The changes of the swaps of ``low[r]`` and ``high[c]``, as :func:`swap_changes` computes them.

    ``cost`` holds G's two distinct columns (the low value's, then the high one's). For the
    pair i < j the plain round computes ((G[i,j] + G[j,i]) - G[i,i]) - G[j,j] + (2 S[i,j]) A[i,j],
    then times ``sign``: the two subtractions are taken in that order whichever user is i.
    """
    both = cost[low, 1][:, None] + cost[high, 0][None, :]
    change = both - cost[low, 0][:, None]
    change -= cost[high, 1][None, :]
    both -= cost[high, 1][None, :]  # the pairs whose high user comes first
    both -= cost[low, 0][:, None]
    np.copyto(change, both, where=low[:, None] > high[None, :])
    del both
    weighted = similarity[low][:, high]  # a few rows at a time (cross_best): twice as quick as np.ix_
    weighted *= 2.0
    if gap != 1.0:  # x * 1.0 is x: the pass is skipped, not the value changed
        weighted *= gap
    change += weighted
    if sign != 1.0:
        change *= sign
    return change


def cross_best(
    cost: NDArray[np.float64],
    similarity: NDArray[np.float64],
    low: NDArray[np.int64],
    high: NDArray[np.int64],
    gap: float,
    sign: float,
    tolerance: float,
    most: int,
) -> tuple[NDArray[np.int64], NDArray[np.float64]] | None:
    """:func:`best_swaps` of the whole matrix, as flat indices i * m + j (i < j) and their gains, or None.

    The improving swaps of the whole matrix are the improving ones of the cross block
    (:func:`cross_changes`); when no two of the chosen are equal and the last chosen is
    below the first left out, the set and its order are fixed whatever order the entries
    are read in. Otherwise (None) the whole matrix decides, as :func:`best_swaps` has it.

    The block is computed a few rows at a time (each row's changes are what the whole
    block's are, to the bit), keeping from each the ``most + 1`` best improving entries:
    the ``most`` chosen and the first left out are among them. A whole block of
    |low| x |high| entries, ten passes over it in memory, is never built.
    """
    rows = max(1, _CROSS_BLOCK_ENTRIES // max(high.size, 1))
    found, gained, count = [np.empty(0, dtype=np.int64)], [np.empty(0)], 0
    for start in range(0, low.size, rows):
        values = cross_changes(cost, similarity, low[start : start + rows], high, gap, sign).ravel()
        improving = np.flatnonzero(values < -tolerance)
        count += improving.size
        if improving.size > most + 1:  # only a block's best most + 1 can be chosen or be the first left out
            improving = improving[np.argpartition(values[improving], most)[: most + 1]]
        found.append(improving + start * high.size)
        gained.append(values[improving])
    chosen = _strictly_best(np.concatenate(found), np.concatenate(gained), count, most)
    if chosen is None:
        return None
    improving, gains = chosen
    rows_of, columns = np.divmod(improving, high.size)
    i, j = low[rows_of], high[columns]
    m = low.size + high.size
    return np.minimum(i, j) * m + np.maximum(i, j), gains


_CROSS_BLOCK_ENTRIES = 1 << 17  # changes computed at a time: 1 MB, with its temporaries, stays in cache


def whole_best(
    a: NDArray[np.float64],
    cost: NDArray[np.float64],
    similarity: NDArray[np.float64],
    high: float,
    sign: float,
    tolerance: float,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The best swaps and their gains from the whole matrix, as the plain round computes it."""
    m = a.shape[0]
    gaps = np.abs(a[:, None] - a[None, :])
    change = swap_changes(a, similarity, gaps, np.take(cost, (a == high).astype(np.intp), axis=1), sign)
    flat = best_swaps(change, tolerance, 4 * m)
    return flat, change.ravel()[flat]


def two_valued_search(
    a: NDArray[np.float64], similarity: NDArray[np.float64], sign: float, tolerance: float, rounds: int
) -> NDArray[np.float64]:
    """The rounds of the swap search on an assignment of two values (in place): the same swaps, quicker.

    Only a swap across the two groups changes anything: G's columns of users with
    equal values are one column, so a swap inside a group changes the sum by a few
    ulps, never below ``-tolerance``. G is kept as its two distinct columns (m x 2,
    the products :func:`times_gaps` takes), the changes are computed on the cross
    block alone (:func:`cross_changes`, a quarter of the matrix) and the best swaps
    found there (:func:`cross_best`; where equal gains could order them, from the
    whole matrix). A is never built: its entries are |a_u - value|. ``similarity``
    must be exactly symmetric (the block reads S[low, high] for S[min, max]).
    """
    m = a.shape[0]
    levels = np.unique(a)  # the low value, the high one
    gap = float(np.abs(levels[0] - levels[1]))
    cost = similarity @ np.abs(a[:, None] - levels[None, :])
    for round_ in range(1, rounds + 1):
        on_high = a == levels[1]
        low, high = np.flatnonzero(~on_high), np.flatnonzero(on_high)
        found = cross_best(cost, similarity, low, high, gap, sign, tolerance, 4 * m)
        flat, gains = whole_best(a, cost, similarity, levels[1], sign, tolerance) if found is None else found
        if flat.size == 0:
            break
        first, second = batch(flat, gains, a, similarity, sign, tolerance)
        rows = np.abs(a[second][:, None] - levels[None, :]) - np.abs(a[first][:, None] - levels[None, :])
        cost += (similarity[:, first] - similarity[:, second]) @ rows
        a[first + second] = a[second + first]
        if round_ % 50 == 0:  # as the plain search: G afresh
            cost = similarity @ np.abs(a[:, None] - levels[None, :])
    return a
