"""``puf_from_histories``: PUF from interaction histories at any scale.

The public entry point for PUF from histories (the core
:func:`puf.pairwise_user_unfairness` takes the similarity matrix): picks the exact
engine for the similarity (or the sampler) from registries, validates everything
first, and never builds an m x m matrix.
"""

from __future__ import annotations

__all__ = ["puf_from_histories", "EXACT_ENGINES", "METHODS"]

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from puf.arrays import MatrixLike
from puf.validation import check_effectiveness

from .blocks import Scheduler, check_block_size, check_choice, check_n_jobs, check_user_matrix
from .cosine import inner_product_puf_checked, normalized_rows
from .executors import ENGINES
from .jaccard import jaccard_puf_checked
from .sampling import PairEstimate, check_sample_size, sample_puf_checked


def _exact_cosine(effectiveness, histories, **options):
    return inner_product_puf_checked(effectiveness, normalized_rows(histories), **options)


#: similarity name -> exact engine on validated inputs.
EXACT_ENGINES = {"jaccard": jaccard_puf_checked, "cosine": _exact_cosine}
#: How the pairwise engines compute: every pair exactly, or a sample of pairs with an interval.
METHODS = ("exact", "sample")


def puf_from_histories(
    effectiveness: ArrayLike,
    histories: MatrixLike,
    *,
    similarity: str = "jaccard",
    method: str = "exact",
    block_size: int | None = None,
    n_jobs: int | None = None,
    sample_size: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    random_state: int | np.random.Generator | None = None,
    progress: bool = False,
) -> float | PairEstimate:
    """Pairwise User unFairness computed from histories, without an m x m matrix.

    Parameters
    ----------
    effectiveness : array_like, shape (m,)
        S(u) in [0, 1].
    histories : scipy.sparse matrix, DataFrame (user, item, weight) or array, shape (m, n)
        Interaction weights >= 0 (finite); Jaccard binarises them, cosine keeps them.
    similarity : {"jaccard", "cosine"}
        User similarity, as defined for :data:`puf.SIMILARITIES`.
    method : {"exact", "sample"}
        "exact": every pair (Jaccard: tiled products, O(m² · tile) time, O(tile)
        memory; cosine: O(nnz + m log m)). "sample": unbiased estimate from
        ``sample_size`` uniformly drawn pairs, with a 95% CI.
    block_size : int, optional
        Work unit: users per tile row block (Jaccard, default 256), item columns
        per task (cosine, default 2048), pairs per task (sample, default 65,536).
    n_jobs : int, optional
        Threads for the local engine (default: all usable cores).
    sample_size : int, optional
        Pairs to draw, >= 2 (sample only; default 1,000,000).
    engine : {"local", "dask"}
        "dask" runs the same tasks on a dask.distributed cluster
        (``pip install "puf-harness[dask]"``).
    scheduler : str or distributed.Client, optional
        Dask only: scheduler address (5 s connection timeout) or client; default
        the running client.
    random_state : None, int or numpy.random.Generator
        Sample only: seed of the pair draws.
    progress : bool
        Show a tqdm progress bar.

    Returns
    -------
    float or PairEstimate
        PUF in [0, 1] (lower is fairer) for "exact", equal to the dense
        ``pairwise_user_unfairness(effectiveness, <similarity>(histories))``
        up to rounding; a :class:`PairEstimate` for "sample".

    Raises
    ------
    ValueError
        Before any computation, for NaN/negative entries, mismatched user counts,
        block_size < 1, sample_size < 2, unknown names, or an unreachable scheduler.

    Notes
    -----
    PUF = 2/(m(m−1)) · Σ_{u<v} sim(u, v)·|S(u) − S(v)|. See
    :func:`puf.engines.jaccard_puf`, :func:`puf.engines.inner_product_puf` (with
    the proof of the cosine algorithm) and :func:`puf.engines.sample_puf`.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from puf.engines import puf_from_histories
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [0, 1, 1], [0, 0, 1]])
    >>> round(puf_from_histories([0.0, 0.5, 1.0], histories), 6)
    0.138889
    >>> round(puf_from_histories([0.0, 0.5, 1.0], histories, similarity="cosine"), 6)
    0.201184
    >>> est = puf_from_histories([0.0, 0.5, 1.0], histories, method="sample",
    ...                          sample_size=10_000, random_state=0)
    >>> est.n_pairs, est.ci_low <= 0.138889 <= est.ci_high
    (10000, True)
    """
    check_choice(similarity, name="similarity", known=EXACT_ENGINES)
    check_choice(method, name="method", known=METHODS)
    check_choice(engine, name="engine", known=ENGINES)
    check_block_size(block_size, default=1)  # checked here; each engine has its own default
    check_n_jobs(n_jobs)
    if method == "sample":
        check_sample_size(sample_size)
    elif sample_size is not None:
        raise ValueError(f"sample_size is only used with method='sample', got {sample_size!r}")
    effectiveness = check_effectiveness(effectiveness, min_users=2)
    histories = check_user_matrix(histories, effectiveness.shape[0])
    options: dict[str, Any] = {
        "block_size": block_size,
        "n_jobs": n_jobs,
        "engine": engine,
        "scheduler": scheduler,
        "progress": progress,
    }
    if method == "sample":
        return sample_puf_checked(
            effectiveness,
            histories,
            similarity=similarity,
            sample_size=sample_size,
            random_state=random_state,
            **options,
        )
    return EXACT_ENGINES[similarity](effectiveness, histories, **options)
