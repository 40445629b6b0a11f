"""ME, MME and PEU from the cross-utility, streamed in blocks of users (never m x m)."""

__all__ = ["envy_measures"]

import numpy as np

from puf._validation import ENVY_TOLERANCE, check_min_users, check_nonnegative_scalar
from puf.effectiveness import _ideal_grades, _prepare
from puf.lists import _list_indicator

from ._blocks import check_block_size, open_executor

# Block rows so that a block's (dense-at-worst) utility rows hold ~4M entries.
_BLOCK_ENTRIES = 1 << 22


def _envy_kernel(shared, task):
    """Σ envy and each row's max envy for users [r0, r1)."""
    r0, r1 = task
    gained = shared["relevance"][r0:r1] @ shared["lists_t"]  # (b, m): Σ_{i∈L_v} r_ui
    counts = np.diff(gained.indptr)
    rows = np.repeat(np.arange(r1 - r0), counts)
    # Rows with best = 0 have no relevant item, hence no entries: no division by 0.
    utility = np.clip(gained.data / shared["best"][r0 + rows], 0.0, 1.0)
    own_entry = gained.indices == r0 + rows
    own = np.zeros(r1 - r0)
    own[rows[own_entry]] = utility[own_entry]
    envy = np.maximum(utility - own[rows], 0.0)
    envy[own_entry] = 0.0
    row_max = np.zeros(r1 - r0)
    filled = counts > 0
    if filled.any():
        # Envy >= 0 and absent entries mean utility 0, i.e. envy 0: the max over
        # stored entries is the max over all v != u.
        row_max[filled] = np.maximum.reduceat(envy, gained.indptr[:-1][filled])
    return float(envy.sum()), row_max


def envy_measures(rankings, relevance, *, k=None, epsilon=0.05, block_size=None, n_jobs=None,
                  engine="local", scheduler=None, progress=False):
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
    PEU(ε) = mean_u 1{max_{v≠u} envy(u, v) > ε}, compared as ``> ε + 1e-12``
    (``puf._validation.ENVY_TOLERANCE``) so that an envy of exactly ε, lifted a few
    ulps above it by the division by z_u, is not counted.
    A block of users B gets its utility rows as the sparse product R_B · Lᵀ
    (R relevance, L the m x n list indicator), so only pairs where u finds a
    relevant item in v's list are stored; every other pair has utility 0 and
    envy 0. Memory is O(block · m) at worst, time O(Σ_u Σ_{i: r_ui>0} #lists holding i).

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
    rankings, relevance, k = _prepare(rankings, relevance, k)
    m = rankings.shape[0]
    check_min_users(m, "rankings")
    block_size = check_block_size(block_size, default=max(1, _BLOCK_ENTRIES // m))
    with open_executor(engine, n_jobs=n_jobs, scheduler=scheduler) as executor:
        shared = {
            "relevance": relevance,
            "lists_t": _list_indicator(rankings, relevance.shape[1]).T.tocsr(),
            "best": _ideal_grades(relevance, k).sum(axis=1),
        }
        tasks = [(r0, min(r0 + block_size, m)) for r0 in range(0, m, block_size)]
        parts = executor.map(_envy_kernel, shared, tasks, progress=progress, desc="ME/MME/PEU")
    total = float(np.sum([p[0] for p in parts]))
    row_max = np.concatenate([p[1] for p in parts])
    return {
        "me": total / (m * (m - 1)),
        "mme": float(row_max.mean()),
        "peu": float((row_max > epsilon + ENVY_TOLERANCE).mean()),
    }
