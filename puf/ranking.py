"""Ranked-list kernels shared by the effectiveness metrics, the envy utilities and the engines.

Top-k lists are (m, k) int64 item ids with ``-1`` padding; relevance is a CSR
matrix with sorted indices (:func:`prepare_lists` makes both). The kernels
read every user's list at once: the grades of the listed items, each user's
ideal grades, and the list indicator matrix.
"""

from __future__ import annotations

__all__ = ["prepare_lists", "listed_grades", "ideal_grades", "list_indicator"]

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from puf.arrays import MatrixLike
from puf.validation import check_k, check_rankings, check_relevance


def prepare_lists(
    rankings: ArrayLike, relevance: MatrixLike, k: int | None
) -> tuple[NDArray[np.int64], sp.csr_matrix, int]:
    """Validate top-k lists and their relevance, in the form every kernel here reads.

    Parameters
    ----------
    rankings : array_like of int, shape (m, k')
        Item ids, best first; ``-1`` pads short lists.
    relevance : scipy.sparse matrix (m, n) or pandas.DataFrame (user, item, relevance)
        Graded relevance r_ui >= 0. A DataFrame holds judged items only: a listed item it
        does not name is not relevant.
    k : int or None
        Cut-off, 1 <= k <= k'; None means k'.

    Returns
    -------
    rankings : numpy.ndarray of int64, shape (m, k)
        The first k columns (item ids renumbered, in order, if they come near the int64
        limit; only an item's identity matters to the kernels).
    relevance : scipy.sparse.csr_matrix, shape (m, n')
        Sorted indices, explicit zeros removed, wide enough for every listed item.
    k : int

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> lists, grades, k = prepare_lists([[1, 0, 2], [3, 2, -1]],
    ...                                  sp.csr_matrix([[2.0, 0, 1, 0], [0, 3, 0, 1]]), 2)
    >>> lists, grades.shape, k
    (array([[1, 0],
           [3, 2]]), (2, 4), 2)
    """
    if k is not None:
        k = check_k(k)
    rankings = check_rankings(rankings)
    m, width = rankings.shape
    if k is None:
        k = width
    elif k > width:
        raise ValueError(f"k={k} exceeds the length of the ranked lists (rankings has {width} columns)")
    from_frame = isinstance(relevance, pd.DataFrame)
    relevance = check_relevance(relevance, n_users=m)
    needed = int(rankings.max()) + 1 if rankings.size else 0
    if needed > relevance.shape[1] and not from_frame:
        check_rankings(rankings, n_items=relevance.shape[1])  # raises the standard message
    if not relevance.has_sorted_indices:
        relevance = relevance.sorted_indices()
    if m * max(needed, relevance.shape[1]) >= _KEY_LIMIT:
        # Item ids near the int64 limit: the lookup key u * n + i would overflow.
        rankings, relevance = _compact_items(rankings, relevance)
    elif needed > relevance.shape[1]:
        # A DataFrame holds judged items only: a listed, unjudged item is just not relevant.
        relevance.resize((m, needed))
    return rankings[:, :k], relevance, k


_KEY_LIMIT = 2**62


def _compact_items(rankings, relevance):
    """Renumber the items that occur (listed or judged) as 0..n'-1, keeping their order.

    Only an item's identity matters to every metric, so the values are unchanged;
    the renumbering is monotonic, so each row's column indices stay sorted.
    """
    listed = rankings >= 0
    items = np.unique(np.concatenate([relevance.indices.astype(np.int64), rankings[listed]]))
    renumbered = np.full(rankings.shape, -1, dtype=np.int64)
    renumbered[listed] = np.searchsorted(items, rankings[listed])
    columns = np.searchsorted(items, relevance.indices.astype(np.int64))
    compact = sp.csr_matrix((relevance.data, columns, relevance.indptr), shape=(relevance.shape[0], max(items.size, 1)))
    return renumbered, compact


def listed_grades(rankings: NDArray[np.int64], relevance: sp.csr_matrix) -> NDArray[np.float64]:
    """(m, k) grades r_{u, L_u[j]}: 0 for padding and for items u has no grade for.

    ``rankings`` and ``relevance`` as returned by :func:`prepare_lists`.

    Each CSR entry gets the global key ``u * n + i``; rows are stored in order and
    indices are sorted within rows, so the keys are sorted and one searchsorted
    finds every listed item at once.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> listed_grades(np.array([[1, 0, 2], [3, 2, -1]]),
    ...               sp.csr_matrix([[2.0, 0, 1, 0], [0, 3, 0, 1]]))
    array([[0., 2., 1.],
           [1., 0., 0.]])
    """
    m, n = relevance.shape
    grades = np.zeros(rankings.shape, dtype=np.float64)
    if relevance.nnz == 0 or rankings.size == 0:
        return grades
    owners = np.repeat(np.arange(m, dtype=np.int64), np.diff(relevance.indptr))
    keys = owners * n + relevance.indices
    query = np.arange(m, dtype=np.int64)[:, None] * n + rankings
    where = np.minimum(np.searchsorted(keys, query), keys.size - 1)
    found = (rankings >= 0) & (keys[where] == query)
    grades[found] = relevance.data[where[found]]
    return grades


def ideal_grades(relevance: sp.csr_matrix, k: int) -> NDArray[np.float64]:
    """(m, k) each user's grades sorted descending, zero-padded: the grades of R_u^k.

    ``relevance`` as returned by :func:`prepare_lists` (sorted CSR, no explicit zero).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> ideal_grades(sp.csr_matrix([[2.0, 0, 3, 1], [0, 0, 0, 0]]), 2)
    array([[3., 2.],
           [0., 0.]])
    """
    m = relevance.shape[0]
    owners = np.repeat(np.arange(m, dtype=np.int64), np.diff(relevance.indptr))
    # lexsort keeps rows grouped in ascending order, so owners[order] == owners.
    order = np.lexsort((-relevance.data, owners))
    rank = np.arange(relevance.nnz) - relevance.indptr[owners]
    keep = rank < k
    ideal = np.zeros((m, k), dtype=np.float64)
    ideal[owners[keep], rank[keep]] = relevance.data[order][keep]
    return ideal


def list_indicator(rankings: NDArray[np.int64], n_items: int, weights: ArrayLike | None = None) -> sp.csr_matrix:
    """(m, n) CSR whose row u holds ``weights[u]`` (default 1) at the items of L_u.

    Examples
    --------
    >>> import numpy as np
    >>> list_indicator(np.array([[2, 0], [1, -1]]), 3).toarray()
    array([[1., 0., 1.],
           [0., 1., 0.]])
    """
    listed = rankings >= 0
    owners = np.broadcast_to(np.arange(rankings.shape[0])[:, None], rankings.shape)[listed]
    values = np.ones(owners.size) if weights is None else weights[owners]
    return sp.csr_matrix((values, (owners, rankings[listed])), shape=(rankings.shape[0], n_items))
