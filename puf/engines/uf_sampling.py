"""UF estimated from uniformly sampled user pairs, with a jackknife standard error and 95% CI."""

from __future__ import annotations

__all__ = ["sample_uf", "JACKKNIFE_GROUPS"]

import math
import warnings

import numpy as np
from numpy.typing import ArrayLike

from puf.arrays import MatrixLike
from puf.validation import LIST_DISTANCE_TOLERANCE, UndefinedMeasureWarning, check_random_state

from ._uf_parts import THRESHOLD_TOLERANCE, check_uf_inputs, pair_distance, pair_similarity, prepare_uf
from .blocks import Scheduler, check_block_size
from .executors import open_executor
from .sampling import DEFAULT_CHUNK, Z95, PairEstimate, check_sample_size, draw_pairs, pair_tasks

#: Groups of the delete-a-group jackknife behind the standard error.
JACKKNIFE_GROUPS = 100


def _sample_kernel(shared, task):
    u, v = task
    sim = pair_similarity(shared, u, v)
    return sim, sim * pair_distance(shared, u, v)


def _estimate(sims, weighted, n_all, base, groups):
    """UF from the sample and its delete-a-group jackknife replicates (threshold re-estimated)."""
    n = sims.size
    mean = float(sims.mean())
    centred_sq = (sims - mean) ** 2
    cut = mean + math.sqrt(float(centred_sq.mean())) - THRESHOLD_TOLERANCE
    chosen = sims >= cut
    tail = float(weighted[chosen].sum())
    defined = tail > LIST_DISTANCE_TOLERANCE * int(chosen.sum())
    value = math.log(n_all * tail / n) / math.log(base) if defined else math.nan
    if not defined or groups < 2:
        return value, math.nan
    order = np.argsort(sims, kind="stable")
    sorted_sims = sims[order]
    # above[i] = Σ of weighted over the sample pairs with the i-th smallest sim or larger.
    above = np.concatenate([np.cumsum(weighted[order][::-1])[::-1], [0.0]])
    bounds = np.linspace(0, n, groups + 1).astype(np.int64)
    replicates = np.empty(groups)
    sum_all, sq_all = float(sims.sum()), float(centred_sq.sum())
    for g in range(groups):
        a, b = bounds[g], bounds[g + 1]
        rest = n - (b - a)
        rest_mean = (sum_all - float(sims[a:b].sum())) / rest
        rest_var = (sq_all - float(centred_sq[a:b].sum())) / rest - (rest_mean - mean) ** 2
        rest_cut = rest_mean + math.sqrt(max(rest_var, 0.0)) - THRESHOLD_TOLERANCE
        group = sims[a:b] >= rest_cut
        rest_tail = above[np.searchsorted(sorted_sims, rest_cut, side="left")] - float(weighted[a:b][group].sum())
        if not rest_tail > 0:
            return value, math.inf
        replicates[g] = math.log(n_all * rest_tail / rest) / math.log(base)
    spread = float(((replicates - replicates.mean()) ** 2).sum())
    return value, math.sqrt((groups - 1) / groups * spread)


def sample_uf(
    histories: MatrixLike,
    item_features: ArrayLike,
    rankings: ArrayLike,
    item_vectors: ArrayLike,
    *,
    gamma: float = 1.0,
    k: int | None = None,
    base: float = math.e,
    sample_size: int | None = None,
    block_size: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    random_state: int | np.random.Generator | None = None,
    progress: bool = False,
) -> PairEstimate:
    """UF(γ) estimated from uniformly sampled pairs, with a standard error and a 95% CI.

    Parameters
    ----------
    histories, item_features, rankings, item_vectors, gamma, k, base
        As in :func:`puf.engines.uf_streaming`.
    sample_size : int, optional
        Pairs to draw (>= 2; default 1,000,000).
    block_size : int, optional
        Pairs per task (default 65,536).
    n_jobs, engine, scheduler, progress
        As in :func:`puf.engines.jaccard_puf`.
    random_state : None, int or numpy.random.Generator
        Seed for the pair draws; the same seed gives the same estimate.

    Returns
    -------
    PairEstimate
        ``value``, ``standard_error``, ``ci_low``, ``ci_high`` (value ∓ 1.96·SE, not
        clipped: UF is unbounded) and ``n_pairs``. All NaN but ``n_pairs``, with
        :class:`~puf.UndefinedMeasureWarning`, when no sampled pair above the
        threshold has a positive list distance.

    Notes
    -----
    With n pairs drawn uniformly and independently from the N = m(m−1)/2
    (:func:`puf.engines.sampling.draw_pairs`), the threshold is estimated from
    the same sample, t̂ = mean + SD of the sampled sim_UF, and
    Σ_{U*} sim·d_L by N · (1/n) Σ_i sim_i·d_i·1{sim_i >= t̂ − 1e-12}; UF is the
    log of that (consistent; its bias is O(1/n)). The standard error is a
    delete-a-group jackknife over 100 groups of the draws: each replicate
    re-estimates the threshold from the pairs it keeps, so the threshold's own
    sampling error is carried into the SE, as it is into the estimate. Over 100-200
    seeds on 150-600 users (the tests) the SE was 1.0-1.4x the spread of the
    estimates and the 95% interval covered the exact UF in 92-98% of runs. Where
    sim_UF has atoms next to the threshold (γ = 1 on a small population, where
    Jaccard takes few values) U* jumps with t̂: the estimate can then be off by
    a step and the SE is wide (2-3x the spread there), so check with
    :func:`uf_streaming` where it fits.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from puf.engines import sample_uf
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [1, 1, 0], [0, 0, 1]])
    >>> rankings = np.array([[0, 2], [1, 2], [0, 1]])
    >>> est = sample_uf(histories, np.eye(3), rankings, np.eye(3), sample_size=3000, random_state=0)
    >>> bool(est.ci_low <= -0.287682 <= est.ci_high)  # the exact UF, ln 0.75 (uf_streaming)
    True
    """
    gamma, base, histories, features, centroids = check_uf_inputs(
        histories, item_features, rankings, item_vectors, gamma=gamma, k=k, base=base
    )
    n_pairs = check_sample_size(sample_size)
    chunk = check_block_size(block_size, default=DEFAULT_CHUNK)
    rng = check_random_state(random_state)
    m = centroids.shape[0]
    with open_executor(engine, n_jobs=n_jobs, scheduler=scheduler) as executor:
        u, v = draw_pairs(rng, m, n_pairs)
        shared = prepare_uf(histories, features, centroids, gamma=gamma)
        parts = executor.map(_sample_kernel, shared, pair_tasks(u, v, chunk), progress=progress, desc="UF sample")
    sims = np.concatenate([p[0] for p in parts])
    weighted = np.concatenate([p[1] for p in parts])
    value, se = _estimate(sims, weighted, m * (m - 1) / 2, base, min(JACKKNIFE_GROUPS, n_pairs))
    if math.isnan(value):
        warnings.warn(
            "uf is undefined on this sample: no sampled pair above the threshold has a positive list distance",
            UndefinedMeasureWarning,
            stacklevel=2,
        )
        return PairEstimate(math.nan, math.nan, math.nan, math.nan, n_pairs)
    return PairEstimate(
        value=value, standard_error=se, ci_low=value - Z95 * se, ci_high=value + Z95 * se, n_pairs=n_pairs
    )
