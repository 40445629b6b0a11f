"""Exact Jaccard PUF over tiles of user pairs: memory O(tile), never m x m.

Intersections |H_u ∩ H_v| of a tile of pairs come from two products that add
up: a dense float32 GEMM over the most popular items (held by at least
``DENSE_FRACTION`` of the users), and a scipy sparse product over the long
tail. A sparse product pays per co-occurrence (Σ_i c_i² over item counts c_i,
dominated by the head), a GEMM per pair and dense item, so the split puts the
head in the GEMM. Measured on the 2-core reference machine at ML-20M size
(138k users, 13-16M interactions, power-law popularity), single-core seconds
for the whole upper triangle: sparse products only ~540; a bit-packed popcount
(``np.bitwise_count``) of the 512 most popular items ~1080 against ~250 for a
float32 GEMM of the same items (so popcount was dropped); the hybrid at
DENSE_FRACTION = 0.03 (489 items) ~220 (GEMM 96, sparse 72, the ratio and
reduction 52), flat within noise for fractions 0.025-0.065. Tiles run on a
thread pool, each thread with a single-threaded BLAS (two threads over a
two-thread BLAS were 1.9x slower).
"""

from __future__ import annotations

__all__ = ["jaccard_puf", "jaccard_puf_checked", "prepare_pattern", "jaccard_tile", "keep_upper", "DENSE_FRACTION"]

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from puf.arrays import MatrixLike
from puf.validation import check_effectiveness

from .blocks import Scheduler, check_block_size, check_user_matrix, tile_tasks
from .executors import open_executor

#: Items held by at least this fraction of users go to the dense GEMM part.
DENSE_FRACTION = 0.03
#: At most this many dense items, and at most DENSE_BYTES for the dense part (4·m bytes an item).
MAX_DENSE_ITEMS = 1024
DENSE_BYTES = 1 << 29
DEFAULT_BLOCK_SIZE = 256


def _toarray_accumulates():
    """Whether ``csr.toarray(out=a)`` adds into ``a`` (scipy's csr_todense does)."""
    probe = np.ones((1, 1), dtype=np.float32)
    sp.csr_matrix(np.ones((1, 1), dtype=np.float32)).toarray(out=probe)
    return probe[0, 0] == 2.0


_ACCUMULATES = _toarray_accumulates()


def prepare_pattern(
    histories: sp.csr_matrix, order: NDArray[np.int64] | None = None, *, segments: Sequence[tuple[int, int]]
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

    Returns
    -------
    dict
        ``head`` (m, h) dense 0/1 of popular items, ``tail`` (m, n−h) CSR,
        ``tail_t`` per segment the transposed tail rows, ``sizes`` |H_u|,
        ``segments``; all in the new user order.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> shared = prepare_pattern(sp.csr_matrix([[1.0, 1], [0, 1]]), segments=[(0, 2)])
    >>> shared["sizes"].tolist(), shared["head"].shape
    ([2.0, 1.0], (2, 2))
    """
    pattern = histories if order is None else histories[order]
    pattern = sp.csr_matrix((np.ones(pattern.nnz, np.float32), pattern.indices, pattern.indptr), shape=pattern.shape)
    m, n = pattern.shape
    sizes = np.diff(pattern.indptr)
    # Counts are exact in float32 below 2**24; beyond that use float64.
    dtype = np.float32 if sizes.max(initial=0) < 2**24 else np.float64
    counts = np.bincount(pattern.indices, minlength=n)
    by_popularity = np.argsort(-counts, kind="stable")
    n_dense = int(
        min(MAX_DENSE_ITEMS, DENSE_BYTES // (4 * max(m, 1)), np.count_nonzero(counts >= max(DENSE_FRACTION * m, 1)))
    )
    head_items = np.sort(by_popularity[:n_dense])
    is_head = np.zeros(n, dtype=bool)
    is_head[head_items] = True
    head = np.ascontiguousarray(pattern[:, head_items].toarray(), dtype=dtype)
    tail = pattern[:, np.flatnonzero(~is_head)].astype(dtype).tocsr()
    return {
        "head": head,
        "tail": tail,
        "tail_t": [tail[c0:c1].T.tocsr() for c0, c1 in segments] if tail.nnz else None,
        "sizes": sizes.astype(dtype),
        # An empty history has size 0; counting it as 0.5 in the union makes
        # 0 / (0.5 + |H_v|) = 0, the convention for two empty histories, with no branch.
        "union_sizes": np.where(sizes > 0, sizes, 0.5).astype(dtype),
        "segments": segments,
    }


def _intersections(shared, r0, r1, j):
    """(r1−r0, c1−c0) |H_u ∩ H_v| for rows [r0, r1) and segment j's columns."""
    c0, c1 = shared["segments"][j]
    head = shared["head"]
    if head.shape[1]:
        counts = np.matmul(head[r0:r1], head[c0:c1].T)
    else:
        counts = np.zeros((r1 - r0, c1 - c0), dtype=head.dtype)
    if shared["tail_t"] is not None:
        product = shared["tail"][r0:r1] @ shared["tail_t"][j]
        if _ACCUMULATES:
            product.toarray(out=counts)
        else:
            counts += product.toarray()
    return counts


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
    inter = _intersections(shared, r0, r1, j)
    sizes = shared["union_sizes"]
    union = np.add(sizes[r0:r1, None], sizes[None, c0:c1])
    union -= inter
    return np.divide(inter, union, dtype=np.float64)


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
    """Σ_{u<v in tile} J(u, v)·(S_v − S_u), users sorted by S."""
    r0, r1, j = task
    c0, c1 = shared["segments"][j]
    jac = jaccard_tile(shared, r0, r1, j)
    keep = keep_upper(r0, r1, c0, c1)
    if keep is not None:
        jac *= keep
    # With users sorted by S, |S_u − S_v| = S_v − S_u for v > u, so the tile's sum
    # is rows · (J @ S) − S_u · (J @ 1): one GEMM instead of an |S_u − S_v| tile.
    sums = jac @ shared["weights"][c0:c1]
    return float(sums[:, 0].sum() - shared["gains"][r0:r1] @ sums[:, 1])


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
        order = np.argsort(effectiveness, kind="stable")
        gains = effectiveness[order] - effectiveness[order[0]]  # a shift leaves S_v − S_u alone
        segments, tasks = tile_tasks(m, block_size)
        shared = prepare_pattern(histories, order, segments=segments)
        shared["gains"] = gains
        shared["weights"] = np.column_stack([gains, np.ones(m)])
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
    histories). Users are sorted by S, so for v after u
    |S_u − S_v| = S_v − S_u and a tile's contribution is Σ_u (J_u· S − S_u J_u· 1).
    Only tiles meeting the strict upper triangle are computed, so each unordered
    pair is visited once. Intersection counts are exact integers (float32 below
    2²⁴); the ratio is taken in float64.

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
