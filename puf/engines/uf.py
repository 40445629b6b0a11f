"""Exact UF over tiles of user pairs, in one pass in the common case.

UF = log Σ_{U*} sim_UF·d_L with U* = {u < v : sim_UF(u, v) >= t − 1e-12} and
t = mean + SD of sim_UF over all N = m(m−1)/2 pairs. Every part is a tile
computation: Jaccard shares the tiles of :func:`puf.engines.jaccard_puf`
(GEMM over popular items + sparse tail product), sim_JS runs over the small
genre space with one log per pair and genre (:mod:`puf.engines._uf_parts`),
and d_L(u, v) = 1 − ē_u·ē_v (ē_u the mean unit vector of u's list, as in
:func:`puf.list_distance`) is one GEMM of list centroids per tile.

Shortcut 1, the threshold window (one pass instead of two). Before the pass,
t is estimated from n iid uniform pairs: t̂ = mean + SD of their sim_UF, with
standard error from the influence function of mean + SD,
IF(s) = (s − μ) + ((s − μ)² − σ²)/(2σ). The window is [lo, hi] =
[t̂ − z·SE − 2e-12, t̂ + z·SE] (z = 4). The single pass then keeps, per
tile: the count, Σ(s − c) and Σ(s − c)² for a shift c (the sample mean; the
shift keeps the variance free of cancellation); Σ sim·d_L over pairs with
sim >= hi; and the (sim, sim·d_L) of every pair with lo <= sim < hi. After the
pass t is exact; write c* = t − 1e-12. *Claim*: if lo <= c* <= hi, then
U* = {sim >= hi} ∪ {lo <= sim < hi, sim >= c*}, so UF is exact. *Proof*: a
pair with sim >= hi has sim >= c* (as hi >= c*), so it is in U*; a pair with
sim < lo has sim < c* (as lo <= c*), so it is not; a pair in [lo, hi) is
stored and tested against c* directly. Which pairs fall in the window only
changes the order of the float additions. If c* is outside the window (the
sample was unlucky, about 1 run in 15,000 for z = 4 under the normal
approximation, or a degenerate population), the engine falls back to an exact
second pass.

Shortcut 2, an upper bound on sim_UF (the second pass only). Pinsker's
inequality gives KL(P‖M) >= ‖P − M‖₁²/(2 ln 2) in bits; with M = (P + Q)/2,
‖P − M‖₁ = ‖P − Q‖₁/2, and the same for Q, so JS(P, Q) >= ‖P − Q‖₁²/(8 ln 2)
>= ‖P − Q‖₂²/(8 ln 2). Hence sim_UF <= γ·J + (1 − γ)·(1 − ‖P_u − P_v‖₂²/(8 ln 2)),
where ‖P_u − P_v‖₂² = ‖P_u‖² + ‖P_v‖² − 2 P_u·P_v is one more GEMM (with a
1e-9 margin for its rounding). Pairs whose bound lies below c* cannot be in
U*; sim_JS and d_L are computed only for the others.
"""

from __future__ import annotations

__all__ = ["uf_streaming", "uf_streaming_runs", "WINDOW_Z"]

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from puf.arrays import MatrixLike
from puf.validation import LIST_DISTANCE_TOLERANCE, undefined

from ._uf_parts import (
    THRESHOLD_TOLERANCE,
    blend,
    check_uf_inputs,
    list_distance_of,
    pair_distance,
    pair_js,
    pair_similarity,
    prepare_uf,
    similarity_tile,
)
from .blocks import Scheduler, check_block_size, tile_tasks
from .executors import open_executor
from .jaccard import DEFAULT_BLOCK_SIZE, jaccard_tile, keep_upper
from .sampling import DEFAULT_CHUNK, draw_pairs, pair_tasks

#: Pairs drawn to place the threshold window before the exact pass.
WINDOW_SAMPLE_SIZE = 1_000_000
#: Half-width of the window in standard errors of the sampled threshold.
WINDOW_Z = 4.0
_PINSKER_MARGIN = 1e-9


def _pair_similarity_kernel(shared, task):
    return pair_similarity(shared, *task)


def _threshold_window(shared, m, executor, sample_size):
    """(lo, hi, shift): a window around the sampled threshold (module docstring)."""
    u, v = draw_pairs(np.random.default_rng(0), m, sample_size)
    tasks = pair_tasks(u, v, DEFAULT_CHUNK)
    sims = np.concatenate(executor.map(_pair_similarity_kernel, shared, tasks))
    mean, sd = float(sims.mean()), float(sims.std())
    centred = sims - mean
    influence = centred + (centred**2 - sd**2) / (2.0 * sd) if sd > 0 else centred
    half = WINDOW_Z * float(influence.std(ddof=1)) / math.sqrt(sample_size)
    return mean + sd - half - 2.0 * THRESHOLD_TOLERANCE, mean + sd + half, mean


def _upper_pairs(tile, keep):
    return tile.ravel() if keep is None else tile[keep]


def _pass_kernel(shared, task):
    """Moments, the sure sums above the window and the pairs inside it, for one tile (sums per list set)."""
    r0, r1, j = task
    c0, c1 = shared["segments"][j]
    keep = keep_upper(r0, r1, c0, c1)
    values = _upper_pairs(similarity_tile(shared, r0, r1, j), keep)
    centred = values - shared["shift"]
    moments = (values.size, float(centred.sum()), float(centred @ centred))
    del centred
    sure = values >= shared["hi"]
    inside = values >= shared["lo"]
    inside ^= sure  # lo <= sim < hi, as hi >= lo
    window = values[inside]
    sure_values = values[sure]
    sure_sums, weighted = [], []
    # d_L only where it is needed: 1 − ē_u·ē_v from one GEMM, the rest on the chosen pairs.
    for centroids in shared["runs"]:
        products = _upper_pairs(centroids[r0:r1] @ centroids[c0:c1].T, keep)
        sure_sums.append(float(sure_values @ list_distance_of(products[sure])))
        weighted.append(window * list_distance_of(products[inside]))
    return (moments, int(np.count_nonzero(sure)), sure_sums, window, weighted)


def _bounded_sum_kernel(shared, task):
    """(count, Σ sim·d_L) over the tile's pairs in U*, skipping pairs bounded below c*."""
    r0, r1, j = task
    c0, c1 = shared["segments"][j]
    gamma, cut = shared["gamma"], shared["cut"]
    jac = jaccard_tile(shared, r0, r1, j) if gamma > 0.0 else np.zeros((r1 - r0, c1 - c0))
    if gamma < 1.0:
        dist = shared["dist"]
        gap = dist[r0:r1] @ dist[c0:c1].T
        gap *= -2.0
        gap += shared["squares"][r0:r1, None]
        gap += shared["squares"][None, c0:c1]
        np.maximum(gap, 0.0, out=gap)
        js_bound = np.minimum(1.0, 1.0 - gap / (8.0 * math.log(2.0)) + _PINSKER_MARGIN)
        bound = gamma * jac + (1.0 - gamma) * js_bound
    else:
        bound = jac
    candidates = bound >= cut
    keep = keep_upper(r0, r1, c0, c1)
    if keep is not None:
        candidates &= keep
    rows, cols = np.nonzero(candidates)
    if rows.size == 0:
        return 0, 0.0
    u, v = rows + r0, cols + c0
    js = pair_js(shared, u, v) if gamma < 1.0 else None
    sim = blend(gamma, jac[rows, cols], js)
    chosen = sim >= cut
    return int(chosen.sum()), float(sim[chosen] @ pair_distance(shared, u[chosen], v[chosen]))


def uf_streaming(
    histories: MatrixLike,
    item_features: ArrayLike,
    rankings: ArrayLike,
    item_vectors: ArrayLike,
    *,
    gamma: float = 1.0,
    k: int | None = None,
    base: float = math.e,
    block_size: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> float:
    """UF(γ) exactly, without m x m matrices: one pass over tiles of user pairs.

    Parameters
    ----------
    histories : scipy.sparse matrix, DataFrame (user, item, weight) or array, shape (m, n)
        Training histories (binarised).
    item_features : array_like, shape (n, f)
        Non-negative item features, rows summing > 0 (for sim_JS).
    rankings : array_like of int, shape (m, k')
        Each user's list; ``-1`` pads; every list needs an item.
    item_vectors : array_like, shape (n, d)
        Item vectors for d_L (non-zero rows), e.g. ``world.item_vectors``; required,
        because the dense UF of a :class:`puf.World` measures d_L with these, not the
        features (pass ``item_features`` again to use the features).
    gamma : float in [0, 1], default 1.0
        Weight of Jaccard in sim_UF = γ·J + (1−γ)·sim_JS.
    k : int, optional
        List cut-off, 1 <= k <= k'; default k'.
    base : float, default e
        Base of the logarithm.
    block_size : int, optional
        Users per tile row block (default 256); tiles are block_size x 4096.
    n_jobs, engine, scheduler, progress
        As in :func:`puf.engines.jaccard_puf`.

    Returns
    -------
    float
        UF, unbounded, lower is fairer; NaN with :class:`~puf.UndefinedMeasureWarning`
        when no pair reaches the threshold or the sum is 0. Equal to
        ``puf.uf(uf_similarity(...), list_distance(rankings, item_vectors), base=base)``
        up to rounding.

    Notes
    -----
    See the module docstring for the one-pass threshold window and the upper
    bound used by the fallback pass, with their proofs. Memory
    O(tile + m·(f + d) + pairs in the window); time O(N·(f + head items) + tail
    co-occurrences), one pass in the common case. :func:`uf_streaming_runs`
    gives the same value for several rankings in one pass.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from puf.engines import uf_streaming
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [1, 1, 0], [0, 0, 1]])
    >>> rankings = np.array([[0, 2], [1, 2], [0, 1]])
    >>> round(uf_streaming(histories, np.eye(3), rankings, np.eye(3)), 6)  # J = 1, d_L = 0.75
    -0.287682
    """
    return uf_streaming_runs(
        histories,
        item_features,
        [rankings],
        item_vectors,
        gamma=gamma,
        k=k,
        base=base,
        block_size=block_size,
        n_jobs=n_jobs,
        engine=engine,
        scheduler=scheduler,
        progress=progress,
    )[0]


def uf_streaming_runs(
    histories: MatrixLike,
    item_features: ArrayLike,
    runs: Sequence[ArrayLike],
    item_vectors: ArrayLike,
    *,
    gamma: float = 1.0,
    k: int | None = None,
    base: float = math.e,
    block_size: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> list[float]:
    """UF(γ) of each of several rankings of the same users, in one pass over the pair tiles.

    sim_UF, its threshold and the pairs above it depend on the histories
    alone, so one pass computes them once and the list distances of every
    ranking beside them: each value is the float :func:`uf_streaming` gives
    for that ranking alone (the same operations in the same order), at
    about the cost of one.

    Parameters
    ----------
    histories, item_features, item_vectors, gamma, k, base, block_size, n_jobs, engine, scheduler, progress
        As in :func:`uf_streaming`.
    runs : sequence of array_like of int, each shape (m, k')
        The rankings, one per run; at least one.

    Returns
    -------
    list of float
        UF of each ranking, in order (NaN with :class:`~puf.UndefinedMeasureWarning` where undefined).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [1, 1, 0], [0, 0, 1]])
    >>> runs = [np.array([[0, 2], [1, 2], [0, 1]]), np.array([[0, 1], [0, 1], [2, 1]])]  # d_L 0.75, 0.5
    >>> [round(value, 6) for value in uf_streaming_runs(histories, np.eye(3), runs, np.eye(3))]
    [-0.287682, -0.693147]
    """
    if isinstance(runs, np.ndarray) or len(runs) == 0:
        raise ValueError(f"runs must be a non-empty sequence of rankings, got {type(runs).__name__} of {len(runs)}")
    checked = [
        check_uf_inputs(histories, item_features, rankings, item_vectors, gamma=gamma, k=k, base=base)
        for rankings in runs
    ]
    gamma, base, histories, features, _ = checked[0]
    block_size = check_block_size(block_size, default=DEFAULT_BLOCK_SIZE)
    m = checked[0][4].shape[0]
    with open_executor(engine, n_jobs=n_jobs, scheduler=scheduler) as executor:
        segments, tasks = tile_tasks(m, block_size)
        shared = prepare_uf(histories, features, checked[0][4], gamma=gamma, segments=segments)
        shared["runs"] = [c[4] for c in checked]
        # The sample costs 2-40 µs a pair (sparse row gathers), the pass ~0.1 µs a pair.
        sample_size = min(WINDOW_SAMPLE_SIZE, max(2_000, m * (m - 1) // 512))
        lo, hi, shift = _threshold_window(shared, m, executor, sample_size)
        shared.update(lo=lo, hi=hi, shift=shift)
        parts = executor.map(_pass_kernel, shared, tasks, progress=progress, desc="UF")
        n_pairs = sum(p[0][0] for p in parts)
        first = math.fsum(p[0][1] for p in parts) / n_pairs
        second = math.fsum(p[0][2] for p in parts) / n_pairs
        cut = shift + first + math.sqrt(max(second - first * first, 0.0)) - THRESHOLD_TOLERANCE
        if lo <= cut <= hi:
            count = sum(p[1] + int(np.count_nonzero(p[3] >= cut)) for p in parts)
            sums = [
                (count, math.fsum([p[2][r] for p in parts] + [float(p[4][r][p[3] >= cut].sum()) for p in parts]))
                for r in range(len(checked))
            ]
        else:
            del parts
            shared.update(cut=cut, squares=np.einsum("ij,ij->i", shared["dist"], shared["dist"]))
            sums = [_second_pass(shared, centroids, tasks, executor, progress) for centroids in shared["runs"]]
    return [_uf_value(count, total, base) for count, total in sums]


def _second_pass(shared, centroids, tasks, executor, progress):
    """(count, total) of one ranking's exact second pass (the window missed the threshold)."""
    shared["centroids"] = centroids
    sums = executor.map(_bounded_sum_kernel, shared, tasks, progress=progress, desc="UF (second pass)")
    return sum(s[0] for s in sums), math.fsum(s[1] for s in sums)


def _uf_value(count, total, base):
    if count == 0:
        return undefined("uf is undefined: no pair reaches the mean + SD similarity threshold")
    if total <= LIST_DISTANCE_TOLERANCE * count:
        return undefined("uf is undefined: the weighted list-distance sum over U* is 0")
    return math.log(total) / math.log(base)
