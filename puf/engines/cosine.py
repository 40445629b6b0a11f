"""Exact PUF for inner-product similarities in O(nnz + m log m), without pairs.

For cosine (and any similarity of the form sim(u, v) = x_u · x_v with x_u a
row of a sparse non-negative matrix) the sum over all m(m−1)/2 pairs
collapses to one pass over the non-zeros once users are sorted by
effectiveness. The proof is in :func:`inner_product_puf`.
"""

from __future__ import annotations

__all__ = ["inner_product_puf", "inner_product_puf_checked", "cosine_puf", "normalized_rows"]

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from puf.arrays import MatrixLike
from puf.validation import check_effectiveness

from .blocks import Scheduler, check_block_size, check_user_matrix
from .executors import open_executor

# Items per task; the pass is memory-bound, so tasks only need to be big
# enough that per-task overhead vanishes (and few enough for a dask cluster).
DEFAULT_ITEMS_PER_TASK = 2048


def _exclusive_segment_cumsum(values, bounds):
    """Within each segment [bounds[i], bounds[i+1]), the sum of the earlier values."""
    running = np.concatenate(([0.0], np.cumsum(values)))
    before = running[:-1]
    offsets = np.repeat(running[bounds[:-1]], np.diff(bounds))
    return before - offsets


def _column_block_kernel(shared, task):
    """Σ over the non-zeros of columns [c0, c1) of x_vi · (S_v P_vi − Q_vi)."""
    c0, c1 = task
    indptr = shared["indptr"]
    lo, hi = indptr[c0], indptr[c1]
    if hi == lo:
        return 0.0
    values = shared["data"][lo:hi]
    gains = shared["effectiveness"][shared["ranks"][lo:hi]]
    bounds = indptr[c0 : c1 + 1] - lo
    before = _exclusive_segment_cumsum(values, bounds)  # P_vi
    weighted_before = _exclusive_segment_cumsum(values * gains, bounds)  # Q_vi
    return float(values @ (gains * before - weighted_before))


def _sorted_columns(effectiveness, vectors):
    """Shared arrays for the kernel: vectors' rows ranked by effectiveness, in CSC."""
    order = np.argsort(effectiveness, kind="stable")
    ranked = vectors[order].tocsc()
    ranked.sort_indices()  # row order within a column = effectiveness order
    gains = effectiveness[order]
    return {
        "data": ranked.data,
        "ranks": ranked.indices,
        "indptr": ranked.indptr.astype(np.int64),
        # S_v P_v − Q_v is unchanged by a shift of S; shifting to min 0 keeps both terms small.
        "effectiveness": gains - gains[0] if gains.size else gains,
    }


def _pair_sum(effectiveness, vectors, *, block_size, executor, progress):
    shared = _sorted_columns(effectiveness, vectors)
    n = vectors.shape[1]
    tasks = [(c0, min(c0 + block_size, n)) for c0 in range(0, n, block_size)]
    partials = executor.map(_column_block_kernel, shared, tasks, progress=progress, desc="PUF (inner product)")
    return float(np.sum(partials))


def inner_product_puf_checked(
    effectiveness: NDArray[np.float64],
    vectors: sp.csr_matrix,
    *,
    block_size: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> float:
    """:func:`inner_product_puf` on validated (m,) float64 and (m, n) CSR inputs.

    For callers that validated once for several engines (:func:`puf.engines.puf_from_histories`);
    the options are checked here, the arrays are not.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> vectors = normalized_rows(sp.csr_matrix([[1.0, 1, 0], [0, 1, 1], [0, 0, 1]]))
    >>> round(inner_product_puf_checked(np.array([0.0, 0.5, 1.0]), vectors), 6)
    0.201184
    """
    block_size = check_block_size(block_size, default=DEFAULT_ITEMS_PER_TASK)
    m = effectiveness.shape[0]
    with open_executor(engine, n_jobs=n_jobs, scheduler=scheduler) as executor:
        total = _pair_sum(effectiveness, vectors, block_size=block_size, executor=executor, progress=progress)
    return 2.0 * total / (m * (m - 1))


def inner_product_puf(
    effectiveness: ArrayLike,
    vectors: MatrixLike,
    *,
    block_size: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> float:
    """PUF for the similarity sim(u, v) = x_u · x_v, exactly, in O(nnz + m log m).

    Parameters
    ----------
    effectiveness : array_like, shape (m,)
        S(u) in [0, 1].
    vectors : scipy.sparse matrix or array, shape (m, n)
        Non-negative, finite rows x_u; their inner products should lie in [0, 1]
        (e.g. unit-norm rows) for the result to be a PUF value in [0, 1].
    block_size : int, optional
        Item columns per task (default 2048).
    n_jobs : int, optional
        Threads for the local engine (default: all usable cores).
    engine : {"local", "dask"}
        Where the column blocks run.
    scheduler : str or distributed.Client, optional
        Dask only.
    progress : bool
        Show a tqdm bar over the column blocks.

    Returns
    -------
    float
        2/(m(m−1)) · Σ_{u<v} (x_u · x_v) · |S(u) − S(v)|; lower is fairer.

    Notes
    -----
    **Claim.** Relabel users so that S_1 <= S_2 <= ... <= S_m and let
    P_v = Σ_{u<v} x_u and Q_v = Σ_{u<v} S_u x_u (prefix sums in that order). Then

        Σ_{u<v} (x_u · x_v) |S_u − S_v| = Σ_v x_v · (S_v P_v − Q_v).

    **Proof.** For u < v in the sorted order S_u <= S_v, so |S_u − S_v| = S_v − S_u
    (ties give 0 either way, so the order among equal scores is irrelevant).
    Grouping the pairs by their later member v and using bilinearity of the
    inner product,
    Σ_{u<v} (x_u·x_v)(S_v − S_u) = Σ_v x_v · Σ_{u<v} (S_v − S_u) x_u
    = Σ_v x_v · (S_v P_v − Q_v).  ∎

    **Cost.** x_v · P_v = Σ_{i: x_vi ≠ 0} x_vi P_vi only reads P at v's non-zeros,
    and P_vi is the sum of the entries above row v in column i. Sorting users is
    O(m log m); permuting rows and converting to CSC (row order within columns)
    is O(nnz + n); an exclusive cumulative sum inside each column then gives
    every P_vi and Q_vi in one O(nnz) pass. Memory is O(nnz); no pair is formed.
    Columns are independent, so blocks of columns run in parallel. Since
    S_v P_v − Q_v = Σ_{u<v}(S_v − S_u) x_u is invariant to shifting every S by a
    constant, S is shifted to start at 0 to limit cancellation.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from puf.engines import inner_product_puf
    >>> x = sp.csr_matrix([[1.0, 0], [0.6, 0.8], [0, 1]])  # unit rows
    >>> round(inner_product_puf([0.0, 0.5, 1.0], x), 12)  # (0.6·0.5 + 0·1 + 0.8·0.5) / 3
    0.233333333333
    """
    effectiveness = check_effectiveness(effectiveness, min_users=2)
    vectors = check_user_matrix(vectors, effectiveness.shape[0], name="vectors")
    return inner_product_puf_checked(
        effectiveness,
        vectors,
        block_size=block_size,
        n_jobs=n_jobs,
        engine=engine,
        scheduler=scheduler,
        progress=progress,
    )


def normalized_rows(histories: sp.csr_matrix) -> sp.csr_matrix:
    """Scale each row of a CSR matrix to unit Euclidean norm (zero rows stay zero).

    Parameters
    ----------
    histories : scipy.sparse.csr_matrix, shape (m, n)

    Returns
    -------
    scipy.sparse.csr_matrix, shape (m, n)
        x_u = h_u / ||h_u||, so that x_u · x_v is the cosine similarity.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> normalized_rows(sp.csr_matrix([[3.0, 4], [0, 0]])).toarray()
    array([[0.6, 0.8],
           [0. , 0. ]])
    """
    norms = np.sqrt(np.asarray(histories.multiply(histories).sum(axis=1)).ravel())
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    unit = histories.copy()
    unit.data *= np.repeat(scale, np.diff(unit.indptr))
    return unit


def cosine_puf(
    effectiveness: ArrayLike,
    histories: MatrixLike,
    *,
    block_size: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> float:
    """PUF with cosine similarity of history vectors, exactly, without an m x m matrix.

    Parameters
    ----------
    effectiveness : array_like, shape (m,)
        S(u) in [0, 1].
    histories : scipy.sparse matrix, DataFrame (user, item, weight) or array, shape (m, n)
        Interaction weights >= 0 (not binarised, as in :func:`puf.cosine_similarity`).
    block_size, n_jobs, engine, scheduler, progress
        As in :func:`inner_product_puf`.

    Returns
    -------
    float
        PUF in [0, 1], equal to
        ``pairwise_user_unfairness(effectiveness, cosine_similarity(histories))``.

    Notes
    -----
    cos(u, v) = x_u · x_v with x_u = h_u / ||h_u|| (x_u = 0 for an empty history,
    which makes its similarities 0 as in the dense form), so
    :func:`inner_product_puf` applies: O(nnz + m log m) time, O(nnz) memory.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from puf.engines import cosine_puf
    >>> histories = sp.csr_matrix([[1.0, 0], [1, 1], [0, 2]])
    >>> round(cosine_puf([0.0, 0.5, 1.0], histories), 6)  # (.7071·.5 + 0·1 + .7071·.5) / 3
    0.235702
    """
    effectiveness = check_effectiveness(effectiveness, min_users=2)
    histories = check_user_matrix(histories, effectiveness.shape[0])
    return inner_product_puf_checked(
        effectiveness,
        normalized_rows(histories),
        block_size=block_size,
        n_jobs=n_jobs,
        engine=engine,
        scheduler=scheduler,
        progress=progress,
    )
