"""Exact Jaccard PUF over tiles of user pairs: memory O(tile), never m x m.

Intersections |H_u ∩ H_v| of a tile of pairs come from two parts that add up:
AND and popcount over bit-packed words of the most popular items, and a sparse
product over the rest. Bits cost the same for every pair and item; a sparse
product costs per co-occurrence, so an item is cheaper in bits where it is dense
among the tile's users. Users are ordered by history length, so a tile's users
have similar histories, and each pair of column segments gets its own split: at
ML-20M size, tiles of the longest histories put thousands of items in bits, tiles
of the shortest a few words.

Two roads take a tile, to the same value (the same float operations per pair; only
the order of the final sum differs):

- compiled, with numba (the ``fast`` extra; :mod:`puf.engines._jaccard_kernel`):
  each row user's counts stay in L1 while its sparse rest is scattered from the
  items' user lists and the words are ANDed and counted, then J and the weighted row
  sum are taken in the same loop, with the GIL released. Split at
  :data:`COMPILED_DENSE_FRACTION`.
- numpy, without numba: numpy's AND and popcount per word over 32-row slices,
  scipy's sparse kernels for the rest, then numpy passes for J and Σ J·|S_u − S_v|.
  Split at :data:`DENSE_FRACTION`.

At ML-20M size on 2 threads the compiled road takes 2-3x less CPU time than the
numpy road, which took 1.6-1.9x less than the float32 GEMM road before it
(``benchmarks/jaccard_side_by_side.py``, docs/benchmarks/scale.md). Tiles run on a
thread pool: numba's loop, numpy's loops and scipy's kernels release the GIL.
"""

from __future__ import annotations

__all__ = [
    "jaccard_puf",
    "jaccard_puf_checked",
    "prepare_pattern",
    "jaccard_tile",
    "keep_upper",
    "DENSE_FRACTION",
    "COMPILED_DENSE_FRACTION",
    "COMPILED_MIN_PAIRS",
]

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from puf.arrays import MatrixLike
from puf.validation import check_effectiveness

from ._jaccard_kernel import compiled_puf_tile
from .blocks import Scheduler, check_block_size, check_user_matrix, tile_tasks
from .executors import open_executor

#: An item goes to the dense (bit) part of a tile when the geometric mean of its densities among
#: the tile's row users and among its column users is at least this (0: every item, > 1: none).
DENSE_FRACTION = 0.04
#: The same for the compiled tile (:mod:`puf.engines._jaccard_kernel`), where a word costs a
#: pair about 0.3 ns against numpy's 0.9 and the scatter of the rest several times less than
#: scipy's product; measured at ML-20M size, 0.02 to 0.1 were within noise of each other.
COMPILED_DENSE_FRACTION = 0.05
#: Fewer user pairs than this take the numpy road even with numba: they finish before numba
#: has loaded its cached kernels, about a second once a process (50 ms of the compiled tile
#: against 170 ms of numpy's at 4.5e6 pairs, after that second).
COMPILED_MIN_PAIRS = 20_000_000
#: At most this many dense items (below 65,536: a tile's bit counts add up in uint16), and at
#: most DENSE_BYTES for the bits (m/4 bytes an item: the users' words and their transpose).
MAX_DENSE_ITEMS = 4096
DENSE_BYTES = 1 << 29
DEFAULT_BLOCK_SIZE = 256
_WORD = 64  # items per bit word
# Rows of a tile handled at once by the bit counts and the ratios: their temporaries
# (a uint64, a float64 and a few narrow rows of a 4,096-wide segment) stay near L2.
_SUB_ROWS = 32


def _popcount_table(words, out):
    """``np.bitwise_count`` for numpy < 2: a byte table, summed over each word's 8 bytes."""
    table = np.array([bin(byte).count("1") for byte in range(256)], dtype=np.uint8)
    np.sum(table[words.view(np.uint8)].reshape(*words.shape, 8), axis=-1, dtype=np.uint8, out=out)
    return out


_popcount = getattr(np, "bitwise_count", _popcount_table)

try:  # scipy's compiled sparse kernels; the public product is the fallback
    from scipy.sparse import _sparsetools
except ImportError:  # a future scipy may move them (or change their arguments: _add_tail)
    _sparsetools = None


def _dense_words(pattern, segments, cap, fraction):
    """(segments, segments) bit words of each pair of segments' tiles, and items by popularity.

    A tile of row segment s and column segment j puts its first ``64·words[s, j]`` items (by
    popularity) in bits: as many as the items, among the ``cap`` most popular, whose
    densities satisfy p_s·p_j >= fraction². Bits cost the same for every pair and
    item, a sparse product costs per co-occurrence (p_s·p_j a pair and item), so each tile
    splits where its own users make an item cheaper in bits: with users ordered by history
    length, tiles of long histories take many items into bits, tiles of short ones few.
    """
    n = pattern.shape[1]
    counts = np.bincount(pattern.indices, minlength=n)
    by_popularity = np.argsort(-counts, kind="stable")
    top = by_popularity[: min(cap, np.count_nonzero(counts))]
    rank = np.full(n, top.size, dtype=pattern.indices.dtype)  # top.size: not among the top
    rank[top] = np.arange(top.size)
    density = np.empty((len(segments), top.size))
    for s, (c0, c1) in enumerate(segments):
        held = rank[pattern.indices[pattern.indptr[c0] : pattern.indptr[c1]]]
        density[s] = np.bincount(held, minlength=top.size + 1)[: top.size] / (c1 - c0)
    threshold = fraction**2
    items = np.array([np.count_nonzero(row * density >= threshold, axis=1) for row in density], dtype=np.int64)
    words = np.minimum(-(-items // _WORD), cap // _WORD)
    return words.reshape(len(segments), len(segments)), by_popularity


def _packed(ranked, words):
    """(m, words) uint64: bit b of word k is item 64·k + b (items numbered by popularity)."""
    m, n = ranked.shape
    bits = np.zeros((m, words), dtype=np.uint64)
    for r0 in range(0, m, 8192):
        held = ranked[r0 : r0 + 8192, : words * _WORD].toarray() != 0
        block = np.zeros((held.shape[0], words * _WORD), dtype=bool)  # words may reach past n
        block[:, : held.shape[1]] = held
        bits[r0 : r0 + 8192] = np.packbits(block, axis=1, bitorder="little").view("<u8")
    return bits


def prepare_pattern(
    histories: sp.csr_matrix,
    order: NDArray[np.int64] | None = None,
    *,
    segments: Sequence[tuple[int, int]],
    dense_fraction: float | None = None,
) -> dict[str, Any]:
    """Split the binarised histories into the arrays every tile reads.

    Parameters
    ----------
    histories : scipy.sparse.csr_matrix, shape (m, n)
        Validated histories; any positive weight means "in the history".
    order : ndarray of int, shape (m,), optional
        Relabelling of users: tile row/column p is user ``order[p]``.
    segments : list of (int, int)
        Column segments of the tile plan (:func:`puf.engines.blocks.tile_tasks`).
    dense_fraction : float, optional
        An item goes to a tile's bits when the geometric mean of its densities among the
        tile's row and column users is at least this (:data:`DENSE_FRACTION` for the numpy
        road, the default; :data:`COMPILED_DENSE_FRACTION` for the compiled one).

    Returns
    -------
    dict
        ``bits`` (m, w) uint64 of the 64·w most popular items and ``bits_t`` its
        transpose, ``pattern`` (m, n) CSR with items numbered by popularity,
        ``pattern_t`` per segment its transposed rows, ``dense_words`` the words in bits
        per pair of segments, ``union_sizes`` |H_u| (0.5 for an empty history),
        ``segments``; all in the new user order.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> shared = prepare_pattern(sp.csr_matrix([[1.0, 1], [0, 1]]), segments=[(0, 2)])
    >>> shared["union_sizes"].tolist(), shared["bits"].tolist(), shared["dense_words"].tolist()
    ([2.0, 1.0], [[3], [1]], [[1]])
    >>> prepare_pattern(sp.csr_matrix([[1.0]]), segments=[(0, 1)], dense_fraction=2.0)["dense_words"].tolist()
    [[0]]
    """
    m, n = histories.shape
    sizes = np.diff(histories.indptr) if order is None else np.diff(histories.indptr)[order]
    # Counts are exact in float32 below 2**24; beyond that use float64.
    dtype = np.float32 if sizes.max(initial=0) < 2**24 else np.float64
    pattern = sp.csr_matrix((np.ones(histories.nnz, dtype), histories.indices, histories.indptr), shape=(m, n))
    if order is not None:
        pattern = pattern[order]
    cap = min(MAX_DENSE_ITEMS, DENSE_BYTES // max(m // 4, 1))
    fraction = DENSE_FRACTION if dense_fraction is None else dense_fraction
    if not (isinstance(fraction, (int, float)) and fraction >= 0 and np.isfinite(fraction)):
        raise ValueError(f"dense_fraction must be a finite number >= 0, got {dense_fraction!r}")
    words, by_popularity = _dense_words(pattern, segments, cap, fraction)
    rank = np.empty(n, dtype=pattern.indices.dtype)
    rank[by_popularity] = np.arange(n)
    # Items renumbered by popularity: a tile's dense items are a prefix of the columns.
    ranked = sp.csr_matrix((pattern.data, rank[pattern.indices], pattern.indptr), shape=(m, n))
    ranked.sort_indices()
    bits = _packed(ranked, int(words.max(initial=0)))
    return {
        "bits": bits,
        "bits_t": np.ascontiguousarray(bits.T),
        "pattern": ranked,
        "pattern_t": [ranked[c0:c1].T.tocsr() for c0, c1 in segments],
        "dense_words": words,
        "segment_starts": np.array([c0 for c0, _ in segments], dtype=np.int64),
        # An empty history has size 0; counting it as 0.5 in the union makes
        # 0 / (0.5 + |H_v|) = 0, the convention for two empty histories, with no branch.
        "union_sizes": np.where(sizes > 0, sizes, 0.5),
        "segments": segments,
    }


def _bit_counts(shared, r0, r1, c0, c1, words, out):
    """Write |H_u ∩ H_v| over the first 64·words items into ``out`` (rows [r0, r1), columns [c0, c1))."""
    bits, bits_t = shared["bits"], shared["bits_t"]
    width = c1 - c0
    both = np.empty((_SUB_ROWS, width), dtype=np.uint64)
    ones = np.empty((_SUB_ROWS, width), dtype=np.uint8)
    three = np.empty((_SUB_ROWS, width), dtype=np.uint8)
    total = np.empty((_SUB_ROWS, width), dtype=np.uint16)
    for a in range(r0, r1, _SUB_ROWS):
        rows = min(_SUB_ROWS, r1 - a)
        both_, ones_, three_, total_ = both[:rows], ones[:rows], three[:rows], total[:rows]
        total_.fill(0)
        # Up to three words' counts (<= 192) add up in uint8 before joining the uint16 total.
        for k0 in range(0, words, 3):
            for k in range(k0, min(k0 + 3, words)):
                np.bitwise_and(bits[a : a + rows, k, None], bits_t[k, None, c0:c1], out=both_)
                _popcount(both_, out=three_ if k == k0 else ones_)
                if k > k0:
                    np.add(three_, ones_, out=three_)
            np.add(total_, three_, out=total_)
        out[a - r0 : a - r0 + rows] = total_


def _tail_parts(shared, r0, r1, j, first):
    """CSR arrays of rows [r0, r1) and of segment j's items, both from item ``first`` on."""
    pattern, items = shared["pattern"], shared["pattern_t"][j]
    index = pattern.indices.dtype
    lo, hi = pattern.indptr[r0], pattern.indptr[r1]
    indices = pattern.indices[lo:hi]
    kept = indices >= first
    running = np.zeros(hi - lo + 1, dtype=index)
    np.cumsum(kept, out=running[1:])
    rows = (running[pattern.indptr[r0 : r1 + 1] - lo], indices[kept] - index.type(first))
    start = items.indptr[first]
    columns = (
        (items.indptr[first:] - start).astype(index, copy=False),
        items.indices[start:].astype(index, copy=False),
    )
    return rows, columns, pattern.data, items.data[start:]


def _add_tail(shared, r0, r1, j, first, counts):
    """Add the sparse product of items >= ``first`` to ``counts``.

    scipy's own kernels, called directly: ``A @ B`` would first count the product's entries
    in a pass of its own, and build four matrices a tile; the co-occurrences Σ_i a_i·b_i
    bound the entries instead, from two counts.
    """
    (row_ptr, row_items), (item_ptr, item_users), ones, item_ones = _tail_parts(shared, r0, r1, j, first)
    n_rows, width = counts.shape
    per_item = np.diff(item_ptr)
    held = np.bincount(row_items, minlength=per_item.size)
    bound = min(int(held @ per_item), n_rows * width)
    if bound == 0:
        return
    if _sparsetools is not None:
        index = row_items.dtype
        ptr, columns, values = np.empty(n_rows + 1, index), np.empty(bound, index), np.empty(bound, counts.dtype)
        try:
            _sparsetools.csr_matmat(
                n_rows,
                width,
                row_ptr,
                row_items,
                ones[: row_items.size],
                item_ptr,
                item_users,
                item_ones,
                ptr,
                columns,
                values,
            )
            _sparsetools.csr_todense(n_rows, width, ptr, columns, values, counts)  # adds into counts
            return
        except (AttributeError, TypeError):  # a scipy whose private kernels changed: the public product
            pass
    product = sp.csr_matrix((ones[: row_items.size], row_items, row_ptr), shape=(n_rows, per_item.size)) @ (
        sp.csr_matrix((item_ones, item_users, item_ptr), shape=(per_item.size, width))
    )
    counts += product.toarray()


def _tile_words(shared, r0, j):
    """The bit words of the tile of rows [r0, ...) and column segment j."""
    row_segment = int(np.searchsorted(shared["segment_starts"], r0, side="right")) - 1
    return int(shared["dense_words"][row_segment, j])


def _intersections(shared, r0, r1, j):
    """(r1−r0, c1−c0) |H_u ∩ H_v| for rows [r0, r1) and segment j's columns: bits, then the sparse rest."""
    c0, c1 = shared["segments"][j]
    words = _tile_words(shared, r0, j)
    pattern = shared["pattern"]
    counts = np.empty((r1 - r0, c1 - c0), dtype=pattern.dtype)
    if words:
        _bit_counts(shared, r0, r1, c0, c1, words, counts)
    else:
        counts.fill(0)
    first = min(words * _WORD, pattern.shape[1])
    if first < pattern.shape[1]:
        _add_tail(shared, r0, r1, j, first, counts)
    return counts


def _ratios(shared, counts, a, r0, c0, c1, out):
    """J = |∩| / (|H_u| + |H_v| − |∩|) into ``out`` for tile rows a.. of ``counts`` (user r0 + a)."""
    sizes = shared["union_sizes"]
    rows = out.shape[0]
    inter = counts[a : a + rows]
    np.add(sizes[r0 + a : r0 + a + rows, None], sizes[None, c0:c1], out=out)
    np.subtract(out, inter, out=out)
    np.divide(inter, out, out=out)


def jaccard_tile(shared: dict[str, Any], r0: int, r1: int, j: int) -> NDArray[np.float64]:
    """Float64 Jaccard similarities of a tile (entries below the diagonal included).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> shared = prepare_pattern(sp.csr_matrix([[1.0, 1, 0], [0, 1, 1], [0, 0, 0]]),
    ...                          segments=[(0, 3)])
    >>> jaccard_tile(shared, 0, 3, 0).round(3).tolist()
    [[1.0, 0.333, 0.0], [0.333, 1.0, 0.0], [0.0, 0.0, 0.0]]
    """
    c0, c1 = shared["segments"][j]
    counts = _intersections(shared, r0, r1, j)
    jac = np.empty((r1 - r0, c1 - c0))
    for a in range(0, r1 - r0, _SUB_ROWS):
        _ratios(shared, counts, a, r0, c0, c1, jac[a : a + _SUB_ROWS])
    return jac


def keep_upper(r0: int, r1: int, c0: int, c1: int) -> NDArray[np.bool_] | None:
    """Boolean (r1−r0, c1−c0) mask of column > row, or None when the tile is all above.

    Examples
    --------
    >>> keep_upper(0, 2, 0, 3).astype(int).tolist()
    [[0, 1, 1], [0, 0, 1]]
    >>> keep_upper(0, 2, 2, 4) is None
    True
    """
    if c0 >= r1:  # every column is right of every row
        return None
    rows = np.arange(r0, r1)[:, None]
    cols = np.arange(c0, c1)[None, :]
    return cols > rows


def _puf_tile(shared, task):
    """Σ_{u<v in tile} J(u, v)·|S_u − S_v|: compiled where the pattern was split for it, else numpy's."""
    r0, r1, j = task
    # compiled_puf_tile is None where this process has no numba (a dask worker without the extra).
    if shared["compiled"] and compiled_puf_tile is not None:
        return compiled_puf_tile(shared, r0, r1, j, _tile_words(shared, r0, j))
    return _numpy_puf_tile(shared, r0, r1, j)


def _numpy_puf_tile(shared, r0, r1, j):
    """Σ_{u<v in tile} J(u, v)·|S_u − S_v|, in row slices that stay in cache."""
    c0, c1 = shared["segments"][j]
    counts = _intersections(shared, r0, r1, j)
    keep = keep_upper(r0, r1, c0, c1)
    scores = shared["scores"]
    jac = np.empty((min(_SUB_ROWS, r1 - r0), c1 - c0))
    gaps = np.empty_like(jac)
    total = 0.0
    for a in range(0, r1 - r0, _SUB_ROWS):
        rows = min(_SUB_ROWS, r1 - r0 - a)
        jac_, gaps_ = jac[:rows], gaps[:rows]
        _ratios(shared, counts, a, r0, c0, c1, jac_)
        np.subtract(scores[r0 + a : r0 + a + rows, None], scores[None, c0:c1], out=gaps_)
        np.abs(gaps_, out=gaps_)
        if keep is not None:
            gaps_ *= keep[a : a + rows]
        total += float(np.vdot(jac_, gaps_))
    return total


def jaccard_puf_checked(
    effectiveness: NDArray[np.float64],
    histories: sp.csr_matrix,
    *,
    block_size: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> float:
    """:func:`jaccard_puf` on validated (m,) float64 and (m, n) CSR inputs.

    For callers that validated once for several engines (:func:`puf.engines.puf_from_histories`);
    the options are checked here, the arrays are not.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [0, 1, 1], [0, 0, 1]])
    >>> round(jaccard_puf_checked(np.array([0.0, 0.5, 1.0]), histories), 6)
    0.138889
    """
    block_size = check_block_size(block_size, default=DEFAULT_BLOCK_SIZE)
    m = effectiveness.shape[0]
    with open_executor(engine, n_jobs=n_jobs, scheduler=scheduler) as executor:
        # Users by history length, so that a tile's users have similar histories and the
        # tile's GEMM takes the items that are dense among them (:func:`prepare_pattern`).
        order = np.argsort(np.diff(histories.indptr), kind="stable")
        segments, tasks = tile_tasks(m, block_size)
        compiled = compiled_puf_tile is not None and m * (m - 1) // 2 >= COMPILED_MIN_PAIRS
        fraction = COMPILED_DENSE_FRACTION if compiled else DENSE_FRACTION
        shared = prepare_pattern(histories, order, segments=segments, dense_fraction=fraction)
        shared["scores"] = effectiveness[order]
        shared["compiled"] = compiled
        partials = executor.map(_puf_tile, shared, tasks, progress=progress, desc="PUF (jaccard)")
    return 2.0 * float(np.sum(partials)) / (m * (m - 1))


def jaccard_puf(
    effectiveness: ArrayLike,
    histories: MatrixLike,
    *,
    block_size: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> float:
    """PUF with Jaccard similarity, exactly, in tiles: memory O(block_size · 4096).

    Parameters
    ----------
    effectiveness : array_like, shape (m,)
        S(u) in [0, 1].
    histories : scipy.sparse matrix, DataFrame (user, item, weight) or array, shape (m, n)
        Interaction weights >= 0; binarised (H_u = items with a positive weight).
    block_size : int, optional
        Users per row block of a tile (default 256); tiles are block_size x ~4096.
    n_jobs : int, optional
        Threads for the local engine (default: all usable cores).
    engine : {"local", "dask"}
        Where the tiles run.
    scheduler : str or distributed.Client, optional
        Dask only.
    progress : bool
        Show a tqdm bar over the tiles.

    Returns
    -------
    float
        PUF in [0, 1], equal to
        ``pairwise_user_unfairness(effectiveness, jaccard_similarity(histories))``.

    Notes
    -----
    J(u, v) = |H_u ∩ H_v| / (|H_u| + |H_v| − |H_u ∩ H_v|) (0 for two empty
    histories). Users are ordered by history length, so that a tile's users have
    similar histories and the tile splits its items between bits and a sparse
    product where its own users make each part cheaper (module docstring).
    Only tiles meeting the strict upper triangle are computed, so each unordered
    pair is visited once. Intersection counts are exact integers (popcounts, and
    float32 below 2²⁴); the ratio and the sum of J·|S_u − S_v| are taken in float64.
    With numba installed (the ``fast`` extra) and at least :data:`COMPILED_MIN_PAIRS`
    pairs, each tile runs as one compiled loop, else as numpy passes; the two differ
    only in the order of the sum.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from puf.engines import jaccard_puf
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [0, 1, 1], [0, 0, 1]])
    >>> round(jaccard_puf([0.0, 0.5, 1.0], histories), 6)  # (1/3·.5 + 0·1 + 1/2·.5) / 3
    0.138889
    """
    effectiveness = check_effectiveness(effectiveness, min_users=2)
    histories = check_user_matrix(histories, effectiveness.shape[0])
    return jaccard_puf_checked(
        effectiveness,
        histories,
        block_size=block_size,
        n_jobs=n_jobs,
        engine=engine,
        scheduler=scheduler,
        progress=progress,
    )
