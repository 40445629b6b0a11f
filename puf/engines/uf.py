"""UF streamed over tiles of user pairs: threshold in one pass, the sum in a second."""

__all__ = ["uf_streaming"]

import math

import numpy as np
import scipy.sparse as sp
from scipy.special import entr

from puf._validation import (
    check_item_features,
    check_k,
    check_min_users,
    check_rankings,
    check_unit_scalar,
    undefined,
)
from puf.lists import _check_item_vectors, _list_indicator

from ._blocks import check_block_size, check_user_matrix, open_executor, tile_tasks
from .jaccard import jaccard_tile, keep_upper, prepare_pattern

_LN2 = math.log(2.0)
# Elements of one tile's (rows, columns) float64 arrays.
_TILE_ELEMENTS = 1 << 16
#: Same tolerance as :func:`puf.uf`: all-equal similarities (SD 0) must all pass.
THRESHOLD_TOLERANCE = 1e-12


def _mixture_entropy(dist_t, r0, r1, c0, c1):
    """Σ_f entr((P_uf + P_vf)/2) in nats for a tile, one feature at a time.

    A loop over the f features of 2-D (rows, columns) arrays runs ~3x faster than
    one (rows, columns, f) tensor reduced over its short last axis (measured).
    """
    total = np.zeros((r1 - r0, c1 - c0))
    mixture = np.empty_like(total)
    logs = np.empty_like(total)
    for row in dist_t:
        np.add(row[r0:r1, None], row[None, c0:c1], out=mixture)
        mixture *= 0.5
        mixture += mixture == 0.0  # log 1 = 0 gives 0·log 0 = 0 without a warning
        np.log(mixture, out=logs)
        logs *= mixture
        total -= logs
    return total


def _similarity_tile(shared, r0, r1, j):
    """sim_UF for a tile (float64), as :func:`puf.uf_similarity` computes it."""
    c0, c1 = shared["segments"][j]
    gamma = shared["gamma"]
    if gamma > 0.0:
        jac = jaccard_tile(shared, r0, r1, j)
        if gamma == 1.0:
            return jac
    divergence = _mixture_entropy(shared["dist_t"], r0, r1, c0, c1) / _LN2
    divergence -= (shared["entropy"][r0:r1, None] + shared["entropy"][None, c0:c1]) * 0.5
    js = np.clip(1.0 - divergence, 0.0, 1.0)
    js *= shared["nonempty"][r0:r1, None]
    js *= shared["nonempty"][None, c0:c1]
    if gamma == 0.0:
        return js
    return np.clip(gamma * jac + (1.0 - gamma) * js, 0.0, 1.0)


def _upper_values(shared, task):
    r0, r1, j = task
    c0, c1 = shared["segments"][j]
    sim = _similarity_tile(shared, r0, r1, j)
    keep = keep_upper(r0, r1, c0, c1)
    return sim, keep, c0, c1


def _moments_kernel(shared, task):
    """(count, mean, M2) of the tile's upper-triangle similarities."""
    sim, keep, _, _ = _upper_values(shared, task)
    values = sim.ravel() if keep is None else sim[keep]
    if values.size == 0:
        return 0, 0.0, 0.0
    mean = float(values.mean())
    return values.size, mean, float(np.sum((values - mean) ** 2))


def _sum_kernel(shared, task):
    """Σ sim·d_L over the tile's upper-triangle pairs with sim >= threshold."""
    r0, r1, _ = task
    sim, keep, c0, c1 = _upper_values(shared, task)
    chosen = sim >= shared["threshold"] - THRESHOLD_TOLERANCE
    if keep is not None:
        chosen &= keep
    if not chosen.any():
        return 0, 0.0
    centroids = shared["centroids"]
    distance = np.clip(1.0 - centroids[r0:r1] @ centroids[c0:c1].T, 0.0, 2.0)
    return int(chosen.sum()), float(sim[chosen] @ distance[chosen])


def _combine_moments(parts):
    """Chan et al.'s pairwise update of (count, mean, M2), in task order."""
    n, mean, m2 = 0, 0.0, 0.0
    for n_b, mean_b, m2_b in parts:
        if n_b == 0:
            continue
        total = n + n_b
        delta = mean_b - mean
        mean += delta * n_b / total
        m2 += m2_b + delta * delta * n * n_b / total
        n = total
    return n, mean, m2


def _centroids(rankings, item_vectors, k):
    vectors, norms = _check_item_vectors(item_vectors)
    rankings = check_rankings(rankings, n_items=vectors.shape[0])
    if k is not None and k > rankings.shape[1]:
        raise ValueError(f"k={k} exceeds the length of the ranked lists "
                         f"(rankings has {rankings.shape[1]} columns)")
    rankings = rankings if k is None else rankings[:, :k]
    lengths = (rankings >= 0).sum(axis=1)
    empty = np.flatnonzero(lengths == 0)
    if empty.size:
        raise ValueError(f"rankings row {int(empty[0])} holds no item (only -1 padding)")
    weights = _list_indicator(rankings, vectors.shape[0], 1.0 / lengths)
    return np.asarray(weights @ (vectors / norms[:, None])), vectors.shape[0]


def uf_streaming(histories, item_features, rankings, item_vectors=None, *, gamma=1.0, k=None,
                 base=math.e, block_size=None, n_jobs=None, engine="local", scheduler=None,
                 progress=False):
    """UF(γ) without m x m matrices: two streaming passes over tiles of pairs.

    Parameters
    ----------
    histories : scipy.sparse matrix, DataFrame (user, item, weight) or array, shape (m, n)
        Training histories (binarised).
    item_features : array_like, shape (n, f)
        Non-negative item features, rows summing > 0 (for sim_JS).
    rankings : array_like of int, shape (m, k')
        Each user's list; ``-1`` pads; every list needs an item.
    item_vectors : array_like, shape (n, d), optional
        Item vectors for d_L (non-zero rows); default ``item_features``.
    gamma : float in [0, 1], default 1.0
        Weight of Jaccard in sim_UF = γ·J + (1−γ)·sim_JS.
    k : int, optional
        List cut-off, 1 <= k <= k'; default k'.
    base : float, default e
        Base of the logarithm.
    block_size : int, optional
        Users per tile row block (default 256 for γ = 1, else 64).
    n_jobs, engine, scheduler, progress
        As in :func:`puf.engines.jaccard_puf`.

    Returns
    -------
    float
        UF, unbounded, lower is fairer; NaN with :class:`~puf.UndefinedMeasureWarning`
        when no pair reaches the threshold or the sum is 0. Equal to
        ``puf.uf(uf_similarity(...), list_distance(...), base=base)``.

    Notes
    -----
    Pass 1 computes sim_UF tile by tile and keeps only (count, mean, M2) per tile,
    merged with Chan et al.'s update (exact up to rounding, no catastrophic
    cancellation): t = mean + sqrt(M2 / N) over the N = m(m−1)/2 pairs.
    Pass 2 recomputes each tile and adds sim·d_L over pairs with sim >= t (with
    :func:`puf.uf`'s 1e-12 tolerance). d_L(u, v) = 1 − ē_u·ē_v, ē_u the mean of the
    unit vectors of u's list (the mean-unit-vector identity of
    :func:`puf.list_distance`), so a tile of d_L is one GEMM of centroids.
    UF = log_base Σ_{U*} sim·d_L. Memory O(tile + m · (f + d)).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from puf.engines import uf_streaming
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [1, 1, 0], [0, 0, 1]])
    >>> rankings = np.array([[0, 2], [1, 2], [0, 1]])
    >>> round(uf_streaming(histories, np.eye(3), rankings), 6)  # only pair (0, 1): J = 1, d_L = 0.75
    -0.287682
    """
    gamma = check_unit_scalar(gamma, name="gamma")
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not base > 1:
        raise ValueError(f"base must be a number > 1, got {base!r}")
    if k is not None:
        k = check_k(k)
    vectors = item_features if item_vectors is None else item_vectors
    centroids, n_vectors = _centroids(rankings, vectors, k)
    m = centroids.shape[0]
    check_min_users(m, "rankings")
    histories = check_user_matrix(histories, m, other="rankings")
    if n_vectors != histories.shape[1]:
        raise ValueError(
            f"item_vectors has {n_vectors} rows but histories has {histories.shape[1]} items")
    features = check_item_features(item_features, n_items=histories.shape[1])
    block_size = check_block_size(block_size, default=256 if gamma == 1.0 else 64)
    width = max(block_size, _TILE_ELEMENTS // block_size)
    with open_executor(engine, n_jobs=n_jobs, scheduler=scheduler) as executor:
        segments, tasks = tile_tasks(m, block_size, width=width if gamma < 1.0 else None)
        # gamma = 0 never reads the Jaccard arrays.
        shared = ({"segments": segments} if gamma == 0.0
                  else prepare_pattern(histories, segments=segments))
        binary = sp.csr_matrix((np.ones(histories.nnz), histories.indices, histories.indptr),
                               shape=histories.shape)
        sizes = np.diff(binary.indptr).astype(np.float64)
        dist = np.asarray(binary @ (features / features.sum(axis=1, keepdims=True)))
        dist /= np.maximum(sizes, 1.0)[:, None]
        shared.update(gamma=gamma, dist_t=np.ascontiguousarray(dist.T),
                      entropy=entr(dist).sum(axis=1) / _LN2,
                      nonempty=(sizes > 0).astype(np.float64), centroids=centroids)
        moments = executor.map(_moments_kernel, shared, tasks, progress=progress, desc="UF threshold")
        n_pairs, mean, m2 = _combine_moments(moments)
        shared["threshold"] = mean + math.sqrt(max(m2, 0.0) / n_pairs)
        parts = executor.map(_sum_kernel, shared, tasks, progress=progress, desc="UF sum")
    if sum(p[0] for p in parts) == 0:
        return undefined("uf is undefined: no pair reaches the mean + SD similarity threshold")
    total = float(np.sum([p[1] for p in parts]))
    if total <= 0.0:
        return undefined("uf is undefined: the weighted list-distance sum over U* is 0")
    return math.log(total) / math.log(base)
