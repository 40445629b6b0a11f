"""Pairwise quantities over the users' ranked lists: envy utilities and list distances.

``utility_matrix`` gives U[u, v] = phi_u(L_v), u's utility of v's list (read by the
envy-based measures); ``list_distance`` gives d_L(u, v), the mean pairwise cosine
distance between the items of u's and v's lists (read by UF).
"""

from __future__ import annotations

__all__ = ["utility_matrix", "list_centroids", "list_distance"]

import numpy as np
from numpy.typing import ArrayLike, NDArray

from puf.arrays import MatrixLike, as_float_array, check_finite
from puf.memory import check_memory, dense_bytes
from puf.ranking import ideal_grades, list_indicator, prepare_lists
from puf.validation import check_k, check_rankings


def utility_matrix(rankings: ArrayLike, relevance: MatrixLike, *, k: int | None = None) -> NDArray[np.float64]:
    """Each user's normalised utility of every user's top-k list.

    Parameters
    ----------
    rankings : array_like of int, shape (m, k')
        Item ids, best first; ``-1`` pads short lists.
    relevance : scipy.sparse matrix (m, n) or pandas.DataFrame (user, item, relevance)
        Graded relevance r_ui >= 0.
    k : int, optional
        Cut-off, 1 <= k <= k'; default k'. Truncates the lists and sizes R_u^k.

    Returns
    -------
    numpy.ndarray, shape (m, m)
        U[u, v] = phi_u(L_v) in [0, 1]; the diagonal is u's utility of its own list.
        Row u is 0 when u has no relevant item. Not symmetric.

    Notes
    -----
    phi_u(L) = Σ_{i∈L[:k]} r_ui / Σ_{i∈R_u^k} r_ui, with R_u^k u's k most relevant items,
    so U = (R · Lᵀ) / z with R the relevance matrix, L the list indicator matrix and
    z_u the sum of u's k largest grades.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from puf.lists import utility_matrix
    >>> rankings = np.array([[0, 1], [2, -1]])
    >>> relevance = sp.csr_matrix([[3.0, 0, 1], [0, 0, 0]])
    >>> utility_matrix(rankings, relevance)  # R_0^2 = {0, 2}: z_0 = 4
    array([[0.75, 0.25],
           [0.  , 0.  ]])
    """
    rankings, relevance, k = prepare_lists(rankings, relevance, k)
    m = rankings.shape[0]
    check_memory(dense_bytes(m, copies=3), what=f"the {m} x {m} utility matrix")
    lists = list_indicator(rankings, relevance.shape[1])
    gained = (relevance @ lists.T).toarray()
    best = ideal_grades(relevance, k).sum(axis=1)
    utility = np.divide(gained, best[:, None], out=np.zeros_like(gained), where=best[:, None] > 0)
    # phi <= 1 exactly (a k-list holds at most the k best grades); clip the last ulp.
    return np.clip(utility, 0.0, 1.0, out=utility)


def _check_item_vectors(item_vectors, name="item_vectors"):
    array = as_float_array(name, item_vectors)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (n_items, d) array, got shape {array.shape}")
    check_finite(name, array)
    norms = np.linalg.norm(array, axis=1)
    zero = np.flatnonzero(norms == 0)
    if zero.size:
        raise ValueError(f"{name} row {int(zero[0])} is a zero vector; its cosine is undefined")
    return array, norms


def list_centroids(rankings: ArrayLike, item_vectors: ArrayLike, *, k: int | None = None) -> NDArray[np.float64]:
    """Mean unit item vector ē_u of every user's top-k list (the factor of d_L and UF's engines).

    Parameters
    ----------
    rankings : array_like of int, shape (m, k')
        Item ids; ``-1`` pads short lists. Every list needs at least one item.
    item_vectors : array_like, shape (n, d)
        Item embeddings (or features); no row may be zero.
    k : int, optional
        Cut-off, 1 <= k <= k'; default k'.

    Returns
    -------
    numpy.ndarray, shape (m, d)
        ē_u = (1/k_u) Σ_{i∈L_u} e_i / ||e_i||, k_u the number of real items in L_u.

    Examples
    --------
    >>> import numpy as np
    >>> list_centroids(np.array([[0, 1], [2, -1]]), np.array([[1.0, 0], [0, 1], [3, 4]]))
    array([[0.5, 0.5],
           [0.6, 0.8]])
    """
    vectors, norms = _check_item_vectors(item_vectors)
    if k is not None:
        k = check_k(k)
    rankings = check_rankings(rankings, n_items=vectors.shape[0])
    if k is not None:
        if k > rankings.shape[1]:
            raise ValueError(f"k={k} exceeds the length of the ranked lists (rankings has {rankings.shape[1]} columns)")
        rankings = rankings[:, :k]
    lengths = (rankings >= 0).sum(axis=1)
    empty = np.flatnonzero(lengths == 0)
    if empty.size:
        raise ValueError(f"rankings row {int(empty[0])} holds no item (only -1 padding)")
    weights = list_indicator(rankings, vectors.shape[0], 1.0 / lengths)
    centroids = np.asarray(weights @ (vectors / norms[:, None]))
    return centroids


def list_distance(rankings: ArrayLike, item_vectors: ArrayLike, *, k: int | None = None) -> NDArray[np.float64]:
    """Mean pairwise cosine distance between the items of two users' lists.

    Parameters
    ----------
    rankings : array_like of int, shape (m, k')
        Item ids; ``-1`` pads short lists. Every list needs at least one item.
    item_vectors : array_like, shape (n, d)
        Item embeddings (or features); no row may be zero.
    k : int, optional
        Cut-off, 1 <= k <= k'; default k'.

    Returns
    -------
    numpy.ndarray, shape (m, m)
        d_L, symmetric; in [0, 2], and in [0, 1] for non-negative vectors. The diagonal
        d_L(u, u) = 1 − ||ē_u||² is the spread of u's own list (0 only if all its items
        point the same way).

    Notes
    -----
    d_L(u, v) = (1/(k_u k_v)) Σ_{i∈L_u} Σ_{j∈L_v} (1 − cos(e_i, e_j)), k_u the number of
    real (non-padding) items in L_u; k_u = k for full lists, as in the UF paper's 1/k².
    Since cos(e_i, e_j) = ê_i · ê_j for unit vectors ê, this equals 1 − ē_u · ē_v with
    ē_u the mean of the unit vectors of u's list, so the cost is O(m k d + m² d).

    Examples
    --------
    >>> import numpy as np
    >>> from puf.lists import list_distance
    >>> vectors = np.array([[1.0, 0], [0, 1], [1, 1]])
    >>> d = list_distance(np.array([[0, 1], [2, -1]]), vectors)  # ē_0 = (½, ½), ē_1 = (1/√2, 1/√2)
    >>> d.round(5)
    array([[0.5    , 0.29289],
           [0.29289, 0.     ]])
    """
    centroids = list_centroids(rankings, item_vectors, k=k)
    m = centroids.shape[0]
    check_memory(dense_bytes(m, copies=3), what=f"the {m} x {m} list distance")
    distance = 1.0 - centroids @ centroids.T
    distance = (distance + distance.T) * 0.5  # BLAS need not return an exactly symmetric product
    return np.clip(distance, 0.0, 2.0, out=distance)
