"""ME, MME and PEU from the cross-utility in blocks of users (never m x m), with closed forms
for the users whose own list holds none of their relevant items."""

from __future__ import annotations

__all__ = ["envy_measures"]


import numpy as np
from numpy.typing import ArrayLike

from puf.arrays import MatrixLike
from puf.ranking import ideal_grades, list_indicator, prepare_lists
from puf.validation import ENVY_TOLERANCE, check_min_users, check_nonnegative_scalar

from ._envy_pairs import list_pair_index, max_gain_kernel
from .blocks import Scheduler, check_block_size
from .executors import open_executor

# Block rows so that a block's (dense-at-worst) utility rows hold ~4M entries.
_BLOCK_ENTRIES = 1 << 22
# Users per block of the pair join (its size follows the users' relevant pairs, not m).
_PAIR_BLOCK = 2048
# The pair join costs ~ C(d, 2) per user with d listed relevant items, the product ~ d times
# the items' list counts: on ML-20M-sized data the join is cheaper below ~20 (measured).
_PAIR_JOIN_MAX_ITEMS = 20


def _scipy_matmat():
    """scipy's CSR x CSR kernel, or None where this scipy does not have it."""
    try:
        from scipy.sparse._sparsetools import csr_matmat
    except ImportError:
        return None
    return csr_matmat


def _product_rows(shared, users):
    """(indptr, data) of the rows ``users`` of G = R·Lᵀ, as ``R[users] @ Lᵀ`` stores them.

    ``@`` first counts the result's entries in a full symbolic pass over the terms;
    here the result is allocated at the bound Σ_{i∈R_u} c_i (each term makes at
    most one entry) and scipy's numeric kernel runs alone: 12-18% less time at
    ML-20M size (measured). The kernel is scipy's private ``csr_matmat`` (the one
    ``@`` calls); where it is missing or refuses the arguments, ``@`` runs instead.
    """
    block = shared["relevance"][users]
    lists_t = shared["lists_t"]
    kernel = _scipy_matmat()
    if kernel is not None:
        bound = int(shared["list_lengths"][block.indices].sum())
        index = np.int32 if max(bound, lists_t.nnz, *lists_t.shape, *block.shape) < 2**31 else np.int64
        indptr = np.empty(block.shape[0] + 1, dtype=index)
        data = np.empty(bound)
        try:
            kernel(
                block.shape[0],
                lists_t.shape[1],
                block.indptr.astype(index, copy=False),
                block.indices.astype(index, copy=False),
                block.data,
                lists_t.indptr.astype(index, copy=False),
                lists_t.indices.astype(index, copy=False),
                lists_t.data,
                indptr,
                np.empty(bound, dtype=index),
                data,
            )
        except (TypeError, ValueError):
            pass
        else:
            return indptr, data[: indptr[-1]]
    gained = block @ lists_t
    return gained.indptr, gained.data


def _envy_kernel(shared, task):
    """Σ envy and each row's max envy for the users ``shared["envied"][r0:r1]``."""
    r0, r1 = task
    users = shared["envied"][r0:r1]
    best = shared["best"][users]
    own = shared["own"][users]  # G[u, u] > 0, summed in the product's order
    indptr, gained = _product_rows(shared, users)  # (b, m): Σ_{i∈L_v} r_ui
    # Every row stores its own entry G[u, u] = own > 0, so no row is empty.
    starts = indptr[:-1]
    # envy(u, v)·z_u = max(G[u, v] − G[u, u], 0): 0 at v = u and for pairs not stored.
    excess = np.repeat(own, np.diff(indptr))
    np.subtract(gained, excess, out=excess)
    np.maximum(excess, 0.0, out=excess)
    total = float(np.sum(np.add.reduceat(excess, starts) / best))
    top = np.maximum.reduceat(gained, starts)
    # Division by z_u, the clip and the max are monotone: max_v of the dense envy.
    own_utility = np.clip(own / best, 0.0, 1.0)
    row_max = np.maximum(np.clip(top / best, 0.0, 1.0) - own_utility, 0.0)
    return total, row_max


def _max_product_kernel(shared, task):
    """max_v G[u, v] for the users ``shared["product_users"][r0:r1]``, from the product."""
    r0, r1 = task
    users = shared["product_users"][r0:r1]
    indptr, gained = _product_rows(shared, users)
    best = np.zeros(users.size)
    filled = np.diff(indptr) > 0
    if filled.any():
        best[filled] = np.maximum.reduceat(gained, indptr[:-1][filled])
    return best


def _task(shared, task):
    """Dispatch: ("full" | "product" | "pairs", r0, r1)."""
    kind, r0, r1 = task
    if kind == "full":
        return _envy_kernel(shared, (r0, r1))
    if kind == "product":
        return 0.0, _max_product_kernel(shared, (r0, r1))
    return 0.0, max_gain_kernel(shared, (r0, r1))


def _own_gains(relevance, lists):
    """G[u, u] = Σ_{i∈L_u} r_ui for every u, as (R ⊙ L)·1.

    A sparse matrix-vector product adds a row's terms one by one over ascending
    items, starting from 0, the order in which the product R·Lᵀ accumulates
    G[u, u]; so the two agree to the last bit (``.sum(axis=1)`` sums pairwise).
    """
    return relevance.multiply(lists).tocsr() @ np.ones(relevance.shape[1])


def _clustered_lists(rankings, list_counts):
    """An order of the lists that puts lists sharing popular items next to each other.

    Each list's items sorted by popularity (list count, descending), then the lists
    sorted by those tuples. Only the labels of the lists change, never a value of
    G = R·Lᵀ (the product adds a cell's terms in the order of R's items), but the
    product's accumulator touches neighbouring cells: 25-30% less time at ML-20M
    size (measured).
    """
    n = list_counts.size
    popularity_rank = np.empty(n, dtype=np.int64)
    popularity_rank[np.argsort(-list_counts, kind="stable")] = np.arange(n)
    ranks = np.where(rankings >= 0, popularity_rank[np.maximum(rankings, 0)], n)
    ranks.sort(axis=1)
    return np.lexsort(ranks.T[::-1])


def envy_measures(
    rankings: ArrayLike,
    relevance: MatrixLike,
    *,
    k: int | None = None,
    epsilon: float = 0.05,
    block_size: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> dict[str, float]:
    """ME, MME and PEU(ε) in one streaming pass over blocks of users.

    Parameters
    ----------
    rankings : array_like of int, shape (m, k')
        Item ids, best first; ``-1`` pads short lists.
    relevance : scipy.sparse matrix (m, n) or pandas.DataFrame (user, item, relevance)
        Graded relevance r_ui >= 0.
    k : int, optional
        Cut-off, 1 <= k <= k'; default k'.
    epsilon : float, default 0.05
        PEU's envy tolerance, >= 0.
    block_size : int, optional
        Users per block (default: about 4M / m, so a block's utilities stay small).
    n_jobs, engine, scheduler, progress
        As in :func:`puf.engines.jaccard_puf`.

    Returns
    -------
    dict
        ``{"me": float, "mme": float, "peu": float}``, each in [0, 1], lower is
        fairer; equal to :func:`puf.mean_envy`, :func:`puf.mean_max_envy` and
        :func:`puf.proportion_envious_users` of :func:`puf.utility_matrix`.

    Notes
    -----
    phi_u(L_v) = Σ_{i∈L_v[:k]} r_ui / Σ_{i∈R_u^k} r_ui,
    envy(u, v) = max(phi_u(L_v) − phi_u(L_u), 0);
    ME = Σ_{u≠v} envy / (m(m−1)), MME = mean_u max_{v≠u} envy(u, v),
    PEU(ε) = mean_u 1{max_{v≠u} envy(u, v) > ε}, compared as ``> ε + 2**-51``
    (``puf.validation.ENVY_TOLERANCE``) so that an envy of exactly ε, lifted a few
    ulps above it by the division by z_u, is not counted.

    Write G = R · Lᵀ (R relevance, L the m x n list indicator), so phi_u(L_v) =
    G[u, v] / z_u. Three kinds of user:

    * no relevant item, or an own list of utility 1 (G[u, u] >= z_u: it holds a best
      k, as every user does whom the report's artificial relevance gives all listed
      items): no envy, since phi_u(L_v) <= 1 for every list;
    * own list holding a relevant item (14% at ML-20M size): block rows of the sparse
      product R_B · Lᵀ, envy per stored pair (every other pair has utility 0, envy 0),
      with G[u, u] taken from (R ⊙ L)·1, the same float as the product's cell;
    * own list holding none (86%): envy(u, v) = phi_u(L_v), so Σ_v envy(u, v) =
      Σ_i r_ui c_i / z_u with c_i the number of lists holding item i (u's own list adds
      0), and max_v envy(u, v) = max_v G[u, v] / z_u (the own list gives 0, so v = u
      need not be excluded). That maximum comes from the single-hit lists (max r_ui over
      listed items) and the lists hitting >= 2 of u's relevant items, found by joining
      item pairs (:mod:`puf.engines._envy_pairs`) for users with few listed relevant
      items, and from the product's row maxima for the rest.

    Division by z_u, the clip to [0, 1] and the max are monotone, so taking the max of
    G before dividing gives the same number as the dense measure. The lists are
    relabelled so that lists sharing popular items are neighbours (the product's
    accumulator then touches nearby cells); no cell of G changes, only the order in
    which ME's terms are added.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from puf.engines import envy_measures
    >>> rankings = np.array([[0], [1]])
    >>> relevance = sp.csr_matrix([[0.0, 1], [0, 1]])  # user 0 prefers user 1's list
    >>> envy_measures(rankings, relevance)
    {'me': 0.5, 'mme': 0.5, 'peu': 0.5}
    """
    epsilon = check_nonnegative_scalar(epsilon, name="epsilon")
    rankings, relevance, k = prepare_lists(rankings, relevance, k)
    m = rankings.shape[0]
    check_min_users(m, "rankings")
    chosen = block_size
    block_size = check_block_size(block_size, default=max(1, _BLOCK_ENTRIES // m))
    pair_block = _PAIR_BLOCK if chosen is None else block_size
    n = relevance.shape[1]
    lists = list_indicator(rankings, n)
    best = ideal_grades(relevance, k).sum(axis=1)
    list_counts = np.asarray(lists.sum(axis=0)).ravel()  # c_i: lists holding item i
    own = _own_gains(relevance, lists)
    # Own utility 1 (the own list holds a best k): phi_u <= 1 for every list, so no envy.
    # Tested as the dense utility is, own / z_u rounded, so both roads see the same users.
    content = np.divide(own, best, out=np.zeros(m), where=best > 0) >= 1.0
    envied = np.flatnonzero((own > 0) & ~content)
    # Own gain 0 (and some grade): envy(u, v) = phi_u(L_v), so Σ_v envy = Σ_i r_ui c_i / z_u.
    closed = np.flatnonzero((own <= 0) & (best > 0))
    closed_sum = float(np.sum((relevance[closed] @ list_counts) / best[closed]))
    # Their largest envy is max_v G[u, v] / z_u: by the pair join for users with few
    # listed relevant items, by the sparse product (row maxima only) for the rest.
    holders = np.repeat(np.arange(m), np.diff(relevance.indptr))
    listed_relevant = np.bincount(holders[list_counts[relevance.indices] > 0], minlength=m)
    light = listed_relevant[closed] < _PAIR_JOIN_MAX_ITEMS
    join_users, product_users = closed[light], closed[~light]
    with open_executor(engine, n_jobs=n_jobs, scheduler=scheduler) as executor:
        order = _clustered_lists(rankings, list_counts)
        pair_keys, pair_indptr, pair_lists = list_pair_index(rankings[order], n)
        lists_t = lists[order].T.tocsr()
        shared = {
            "relevance": relevance,
            "lists_t": lists_t,
            "list_lengths": np.diff(lists_t.indptr),
            "best": best,
            "own": own,
            "envied": envied,
            "join_users": join_users,
            "product_users": product_users,
            "listed": list_counts > 0,
            "pair_keys": pair_keys,
            "pair_indptr": pair_indptr,
            "pair_lists": pair_lists,
            "n_lists": m,
        }
        tasks = (
            [("full", r0, min(r0 + block_size, envied.size)) for r0 in range(0, envied.size, block_size)]
            + [
                ("product", r0, min(r0 + block_size, product_users.size))
                for r0 in range(0, product_users.size, block_size)
            ]
            + [("pairs", r0, min(r0 + pair_block, join_users.size)) for r0 in range(0, join_users.size, pair_block)]
        )
        parts = executor.map(_task, shared, tasks, progress=progress, desc="ME/MME/PEU")
    n_full = -(-envied.size // block_size)
    total = float(np.sum([p[0] for p in parts[:n_full]])) + closed_sum
    row_max = np.zeros(m)
    if envied.size:
        row_max[envied] = np.concatenate([p[1] for p in parts[:n_full]])
    if closed.size:
        gain = np.concatenate([p[1] for p in parts[n_full:]])
        # The tasks' order: the product's users, then the pair join's (not the lists' order).
        closed_users = np.concatenate([product_users, join_users])
        row_max[closed_users] = np.clip(gain / best[closed_users], 0.0, 1.0)  # own utility 0
    return {
        "me": total / (m * (m - 1)),
        "mme": float(row_max.mean()),
        "peu": float((row_max > epsilon + ENVY_TOLERANCE).mean()),
    }
