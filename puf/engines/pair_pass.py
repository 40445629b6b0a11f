"""Every pair measure of one similarity in one pass over the tiles of user pairs.

A pair measure declares its per-pair term with :func:`puf.pair_kernel`; a
:class:`PairJob` is one such measure on one effectiveness array (a ranker's
P@k or NDCG@k) and, if it reads d_L, one set of lists. :func:`pair_sums`
computes, tile by tile over the strict upper triangle, the similarity block
once (Jaccard or sim_UF from the histories, or slices of a similarity matrix
that is already in memory) and d_L once per set of lists, and adds every job's
terms: all measures, metrics and rankers of one similarity cost one pass.
:func:`sampled_pair_means` gives the same jobs from uniformly drawn pairs, as
estimates with a 95% interval.
"""

from __future__ import annotations

__all__ = ["PairJob", "SIMILARITY_SOURCES", "pair_sums", "sampled_pair_means", "sample_chunks"]

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from puf.lipschitz import excess_gaps, violating_pairs
from puf.paper_score_measures import weighted_gaps
from puf.validation import check_histories, check_item_features, check_nonnegative_scalar, check_random_state

from ._uf_parts import list_distance_of, pair_jaccard, pair_similarity, prepare_uf, similarity_tile
from .blocks import Scheduler, check_block_size, check_choice, tile_tasks
from .executors import open_executor
from .jaccard import DEFAULT_BLOCK_SIZE, jaccard_tile, keep_upper, prepare_pattern
from .sampling import DEFAULT_CHUNK, check_sample_size, draw_pairs, pair_tasks


@dataclass(frozen=True)
class PairJob:
    """One pair measure on one effectiveness array and one set of lists.

    Attributes
    ----------
    form : puf.PairKernel
    options : dict
        Keyword options handed to the kernel.
    effectiveness : numpy.ndarray of shape (m,) or None
        S, when the kernel reads it.
    lists : int or None
        Index into the ``centroids`` of the pass, when the kernel reads d_L.
    """

    form: object
    options: dict
    effectiveness: np.ndarray | None = None
    lists: int | None = None


def _binary(histories):
    return sp.csr_matrix((np.ones(histories.nnz), histories.indices, histories.indptr), shape=histories.shape)


def _prepare_jaccard(inputs, segments, m):
    histories = check_histories(
        inputs["histories"], n_users=m
    )  # CSR without stored zeros: a stored 0 is no interaction
    shared = prepare_pattern(histories, segments=segments) if segments else {}
    binary = _binary(histories)
    shared.update(binary=binary, sizes=np.diff(binary.indptr).astype(np.float64))
    return shared


def _prepare_uf(inputs, segments, m):
    histories = check_histories(inputs["histories"], n_users=m)
    features = check_item_features(inputs["item_features"], n_items=histories.shape[1])
    return prepare_uf(histories, features, None, gamma=inputs["gamma"], segments=segments)


def _prepare_matrix(inputs, segments, m):
    matrix = inputs["matrix"]
    if matrix.shape != (m, m):
        raise ValueError(f"matrix has shape {matrix.shape}, expected ({m}, {m}) for m = {m} users")
    return {"matrix": matrix, "segments": segments}


def _matrix_tile(shared, r0, r1, j):
    c0, c1 = shared["segments"][j]
    return shared["matrix"][r0:r1, c0:c1]


def _matrix_pairs(shared, u, v):
    return np.asarray(shared["matrix"][u, v], dtype=np.float64)


#: Similarity name -> (prepare(inputs, segments, m), tile(shared, r0, r1, j), pairs(shared, u, v)).
#: "matrix" reads an (m, m) similarity already in memory.
SIMILARITY_SOURCES = {
    "jaccard": (_prepare_jaccard, jaccard_tile, pair_jaccard),
    "uf": (_prepare_uf, similarity_tile, pair_similarity),
    "matrix": (_prepare_matrix, _matrix_tile, _matrix_pairs),
}


def _reads(jobs):
    return {name for job in jobs for name in job.form.reads}


def _job_terms(shared, job, s_pair, similarity, distances):
    fields = {}
    if job.effectiveness is not None:
        fields["effectiveness"] = s_pair(job.effectiveness)
    if similarity is not None:
        fields["similarity"] = similarity
    if job.lists is not None:
        fields["list_distance"] = distances(job.lists)
    return job.form.terms(fields, job.options)


# The jobs run on sub-tiles of 64 x 1024 pairs (512 KB a float64 temporary), which stay in the
# cache while every job reads them; the similarity tile itself is computed at full size.
_SUB_ROWS, _SUB_COLUMNS = 64, 1024


def _gaps(memo, s, r0, r1, c0, c1):
    """|S(u) − S(v)| over the sub-tile, once per effectiveness array (as the built-in kernels write it)."""
    key = ("gaps", id(s))
    if key not in memo:
        memo[key] = np.abs(s[r0:r1, None] - s[None, c0:c1])
    return memo[key]


def _allowance(memo, job, sim):
    """L·(1 − sim) over the sub-tile, once per Lipschitz constant (as the Lipschitz kernels write it)."""
    constant = check_nonnegative_scalar(job.options.get("lipschitz_constant", 1.0), name="lipschitz_constant")
    key = ("allowance", constant)
    if key not in memo:
        memo[key] = constant * (1.0 - sim)
    return memo[key]


def _fused_terms(memo, job, sim, corner):
    """A built-in kernel's terms from the sub-tile's shared gaps and allowance: the same arrays, bit for bit.

    PUF's weighted gaps and the two Lipschitz kernels of every ranker and metric all read
    |S(u) − S(v)| and L·(1 − sim); computed once a sub-tile, each job adds one or two passes.
    A violation count is returned as an int (its float sum of 0/1 terms is that integer exactly).
    """
    kernel = job.form.kernel
    gaps = _gaps(memo, job.effectiveness, *corner)
    if kernel is weighted_gaps:
        return sim * gaps
    allowance = _allowance(memo, job, sim)
    if kernel is violating_pairs:
        return gaps > allowance
    return np.maximum(gaps - allowance, 0.0)


_FUSED = (weighted_gaps, violating_pairs, excess_gaps)


def _sub_tile_sums(shared, block, r0, c0, sums):
    """Add every job's Σ of terms over the pairs u < v of one sub-tile to ``sums``."""
    similarity, distances, rows, columns = block
    r1, c1 = r0 + rows.stop - rows.start, c0 + columns.stop - columns.start
    keep = keep_upper(r0, r1, c0, c1)
    shape = (r1 - r0, c1 - c0)
    sim = similarity[rows, columns] if similarity is not None else None
    memo = {}
    for index, job in enumerate(shared["jobs"]):
        if job.form.kernel in _FUSED and sim is not None and job.effectiveness is not None and job.lists is None:
            terms = _fused_terms(memo, job, sim, (r0, r1, c0, c1))
            if terms.dtype == bool:
                sums[index] += float(np.count_nonzero(terms if keep is None else terms[keep]))
                continue
        else:
            terms = _job_terms(
                shared,
                job,
                lambda s: (s[r0:r1, None], s[None, c0:c1]),
                sim,
                lambda lists: distances(lists)[rows, columns],
            )
        terms = np.broadcast_to(np.asarray(terms, dtype=np.float64), shape)
        sums[index] += float(terms.sum() if keep is None else terms[keep].sum())


def _tile_kernel(shared, task):
    """Every job's Σ of terms over the tile's pairs u < v."""
    r0, r1, j = task
    c0, c1 = shared["segments"][j]
    tile = shared["tile"]
    similarity = tile(shared["source"], r0, r1, j) if tile is not None else None
    centroids, cache = shared["centroids"], {}

    def distances(index):
        if index not in cache:
            cache[index] = list_distance_of(centroids[index][r0:r1] @ centroids[index][c0:c1].T)
        return cache[index]

    sums = [0.0] * len(shared["jobs"])
    for a in range(r0, r1, _SUB_ROWS):
        for c in range(c0, c1, _SUB_COLUMNS):
            if min(c + _SUB_COLUMNS, c1) - 1 <= a:  # every column left of every row: no pair
                continue
            rows = slice(a - r0, min(a + _SUB_ROWS, r1) - r0)
            columns = slice(c - c0, min(c + _SUB_COLUMNS, c1) - c0)
            _sub_tile_sums(shared, (similarity, distances, rows, columns), a, c, sums)
    return sums


def _source(similarity, inputs, segments, jobs, m):
    if "similarity" not in _reads(jobs):
        return None, None, None
    check_choice(similarity, name="similarity", known=SIMILARITY_SOURCES)
    prepare, tile, pairs = SIMILARITY_SOURCES[similarity]
    return prepare(inputs, segments, m), tile, pairs


def pair_sums(
    jobs: Sequence[PairJob],
    *,
    m: int,
    similarity: str | None = None,
    inputs: dict[str, Any] | None = None,
    centroids: Sequence[NDArray[np.float64]] = (),
    block_size: int | None = None,
    width: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> list[float]:
    """Σ_{u<v} of every job's terms, in one pass over tiles of user pairs.

    Parameters
    ----------
    jobs : sequence of PairJob
    m : int
        Number of users (>= 2).
    similarity : {"jaccard", "uf", "matrix"}, optional
        Where sim(u, v) comes from (:data:`SIMILARITY_SOURCES`), when a job reads it.
    inputs : dict, optional
        What the source reads: ``histories`` (CSR) for Jaccard; ``histories``,
        ``item_features`` and ``gamma`` for sim_UF; ``matrix`` for a similarity
        matrix in memory.
    centroids : sequence of numpy.ndarray, shape (m, d)
        List centroids ē_u (:func:`puf.lists.list_centroids`), for jobs reading d_L.
    width : int, optional
        Columns per tile (default :data:`puf.engines.blocks.SEGMENT_WIDTH`).
    block_size, n_jobs, engine, scheduler, progress
        As in :func:`puf.engines.jaccard_puf`.

    Returns
    -------
    list of float
        One total per job, in order; :meth:`puf.PairKernel.value` with
        ``n_pairs = m(m−1)/2`` turns it into the measure's value.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, puf
    >>> from puf.pair_kernels import pair_kernel_of
    >>> form, options = pair_kernel_of(puf.pairwise_user_unfairness)
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [0, 1, 1], [0, 0, 1]])
    >>> s = np.array([0.0, 0.5, 1.0])
    >>> (total,) = pair_sums([PairJob(form, options, s)], m=3, similarity="jaccard",
    ...                      inputs={"histories": histories})
    >>> round(form.value(total=total, n_pairs=3), 6)  # as puf.engines.jaccard_puf
    0.138889
    """
    block_size = check_block_size(block_size, default=DEFAULT_BLOCK_SIZE)
    jobs = list(jobs)
    segments, tasks = tile_tasks(m, block_size, width=width)
    with open_executor(engine, n_jobs=n_jobs, scheduler=scheduler) as executor:
        source, tile, _ = _source(similarity, inputs or {}, segments, jobs, m)
        shared = {"source": source, "tile": tile, "segments": segments, "jobs": jobs, "centroids": list(centroids)}
        parts = executor.map(_tile_kernel, shared, tasks, progress=progress, desc="pair measures")
    return [math.fsum(part[index] for part in parts) for index in range(len(jobs))]


def _sample_kernel(shared, task):
    """Per job (count, mean, M2) of the terms of one chunk of drawn pairs."""
    u, v = task
    pairs = shared["pairs"]
    similarity = pairs(shared["source"], u, v) if pairs is not None else None
    centroids = shared["centroids"]
    moments = []
    for job in shared["jobs"]:
        terms = _job_terms(
            shared,
            job,
            lambda s: (s[u], s[v]),
            similarity,
            lambda index: list_distance_of(np.einsum("ij,ij->i", centroids[index][u], centroids[index][v])),
        )
        terms = np.broadcast_to(np.asarray(terms, dtype=np.float64), u.shape)
        mean = float(terms.mean())
        moments.append((terms.size, mean, float(((terms - mean) ** 2).sum())))
    return moments


def _merged(moments):
    """(count, mean, M2) of chunks merged in order (Chan et al.'s pairwise update)."""
    count, mean, m2 = 0, 0.0, 0.0
    for n, chunk_mean, chunk_m2 in moments:
        total = count + n
        delta = chunk_mean - mean
        mean += delta * n / total
        m2 += chunk_m2 + delta * delta * count * n / total
        count = total
    return count, mean, m2


def sample_chunks(
    m: int, sample_size: int | None, random_state: int | np.random.Generator | None, block_size: int | None = None
) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """The drawn pairs of a sampled pass, each as u < v (as the tiles read them), cut into tasks
    (:func:`sampled_pair_means`)."""
    n_pairs = check_sample_size(sample_size)
    chunk = check_block_size(block_size, default=DEFAULT_CHUNK)
    u, v = draw_pairs(check_random_state(random_state), m, n_pairs)
    return pair_tasks(np.minimum(u, v), np.maximum(u, v), chunk)


def sampled_pair_means(
    jobs: Sequence[PairJob],
    *,
    m: int,
    sample_size: int | None = None,
    similarity: str | None = None,
    inputs: dict[str, Any] | None = None,
    centroids: Sequence[NDArray[np.float64]] = (),
    random_state: int | np.random.Generator | None = None,
    block_size: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> list[tuple[float, float]]:
    """Every job's mean term over ``sample_size`` uniformly drawn pairs, with its standard error.

    The pairs are drawn as in :func:`puf.engines.sample_puf` (independent,
    uniform over the unordered pairs), the same pairs for every job.

    Returns
    -------
    list of (float, float)
        Per job, the sample mean of its terms and that mean's standard error
        sd(ddof=1)/√n; the mean is unbiased for the mean over all pairs.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, puf
    >>> from puf.pair_kernels import pair_kernel_of
    >>> form, options = pair_kernel_of(puf.pairwise_user_unfairness)
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [0, 1, 1], [0, 0, 1]])
    >>> ((mean, se),) = sampled_pair_means([PairJob(form, options, np.array([0.0, 0.5, 1.0]))],
    ...     m=3, sample_size=20_000, similarity="jaccard", inputs={"histories": histories},
    ...     random_state=0)
    >>> abs(mean - 0.138889) < 4 * se
    True
    """
    jobs = list(jobs)
    tasks = sample_chunks(m, sample_size, random_state, block_size)
    with open_executor(engine, n_jobs=n_jobs, scheduler=scheduler) as executor:
        source, _, pairs = _source(similarity, inputs or {}, None, jobs, m)
        shared = {"source": source, "pairs": pairs, "jobs": jobs, "centroids": list(centroids)}
        parts = executor.map(_sample_kernel, shared, tasks, progress=progress, desc="pair measures (sample)")
    estimates = []
    for index in range(len(jobs)):
        count, mean, m2 = _merged(part[index] for part in parts)
        estimates.append((mean, math.sqrt(m2 / (count - 1) / count) if count > 1 else math.nan))
    return estimates
