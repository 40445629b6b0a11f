"""Per-user effectiveness of top-k ranked lists against graded test relevance.

Every metric has the signature ``f(rankings, relevance, *, k=None)`` and returns
an (m,) float64 vector S(u) in [0, 1] (higher = more effective). ``rankings`` is an
(m, k') int array of item ids with ``-1`` as padding (a padded slot keeps its
position and counts as a non-relevant item); ``relevance`` is a scipy sparse
(m, n) matrix or a pandas DataFrame with columns (user, item, relevance).
An item is *relevant* to u when r_ui > 0; ``k=None`` means ``k = k'``.
"""

from __future__ import annotations

__all__ = [
    "EFFECTIVENESS",
    "get_effectiveness",
    "precision_at_k",
    "recall_at_k",
    "ndcg_at_k",
    "hit_rate_at_k",
    "reciprocal_rank_at_k",
    "average_precision_at_k",
]

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from puf.arrays import MatrixLike
from puf.ranking import ideal_grades, listed_grades, prepare_lists
from puf.validation import lookup


def _n_relevant(relevance):
    return np.diff(relevance.indptr).astype(np.float64)  # explicit zeros were eliminated


def _safe_divide(numerator, denominator):
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    return np.divide(numerator, denominator, out=out, where=denominator > 0)


def precision_at_k(rankings: ArrayLike, relevance: MatrixLike, *, k: int | None = None) -> NDArray[np.float64]:
    """Precision@k: the fraction of the k slots holding a relevant item.

    Parameters
    ----------
    rankings : array_like of int, shape (m, k')
        Item ids, best first; ``-1`` pads short lists.
    relevance : scipy.sparse matrix (m, n) or pandas.DataFrame (user, item, relevance)
        Graded relevance r_ui >= 0.
    k : int, optional
        Cut-off, 1 <= k <= k'; default k'.

    Returns
    -------
    numpy.ndarray, shape (m,)
        P@k in [0, 1], higher is better.

    Notes
    -----
    P@k(u) = |L_u[:k] ∩ Rel_u| / k with Rel_u = {i : r_ui > 0}; padding counts as a miss.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> rankings = np.array([[1, 0, 2], [3, 2, -1]])
    >>> relevance = sp.csr_matrix([[2.0, 0, 1, 0], [0, 3, 0, 1]])
    >>> from puf.effectiveness import precision_at_k
    >>> precision_at_k(rankings, relevance)
    array([0.667, 0.333])
    """
    rankings, relevance, k = prepare_lists(rankings, relevance, k)
    return (listed_grades(rankings, relevance) > 0).sum(axis=1) / float(k)


def recall_at_k(rankings: ArrayLike, relevance: MatrixLike, *, k: int | None = None) -> NDArray[np.float64]:
    """Recall@k: the fraction of u's relevant items found in the top k.

    Parameters
    ----------
    rankings, relevance, k
        As in :func:`precision_at_k`.

    Returns
    -------
    numpy.ndarray, shape (m,)
        R@k in [0, 1]; 0 for a user with no relevant item.

    Notes
    -----
    R@k(u) = |L_u[:k] ∩ Rel_u| / |Rel_u| (the denominator is not capped at k).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> rankings = np.array([[1, 0, 2], [3, 2, -1]])
    >>> relevance = sp.csr_matrix([[2.0, 0, 1, 0], [0, 3, 0, 1]])
    >>> from puf.effectiveness import recall_at_k
    >>> recall_at_k(rankings, relevance)
    array([1. , 0.5])
    """
    rankings, relevance, k = prepare_lists(rankings, relevance, k)
    hits = (listed_grades(rankings, relevance) > 0).sum(axis=1)
    return _safe_divide(hits.astype(np.float64), _n_relevant(relevance))


_MAX_EXPONENTIAL_GRADE = 1000.0
_GAINS = {
    "linear": lambda grades: grades,
    "exponential": lambda grades: np.exp2(grades) - 1.0,
}


def ndcg_at_k(
    rankings: ArrayLike, relevance: MatrixLike, *, k: int | None = None, gain: str = "linear"
) -> NDArray[np.float64]:
    """Normalised discounted cumulative gain NDCG@k.

    Parameters
    ----------
    rankings, relevance, k
        As in :func:`precision_at_k`.
    gain : {"linear", "exponential"}, default "linear"
        g(r) = r, or g(r) = 2^r - 1.

    Returns
    -------
    numpy.ndarray, shape (m,)
        NDCG@k in [0, 1]; 0 for a user with no relevant item.

    Notes
    -----
    DCG@k = sum_{j=1..k} g(r_{u, L_u[j]}) / log2(j + 1); IDCG@k is the same sum over u's
    grades sorted descending and truncated at k; NDCG@k = DCG@k / IDCG@k.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> rankings = np.array([[1, 0, 2], [3, 2, -1]])
    >>> relevance = sp.csr_matrix([[2.0, 0, 1, 0], [0, 3, 0, 1]])
    >>> from puf.effectiveness import ndcg_at_k
    >>> ndcg_at_k(rankings, relevance)
    array([0.66967, 0.27541])
    >>> ndcg_at_k(rankings, relevance, gain="exponential")
    array([0.659  , 0.13105])
    """
    if not isinstance(gain, str) or gain not in _GAINS:
        raise ValueError(f"gain must be one of {sorted(_GAINS)}, got {gain!r}")
    rankings, relevance, k = prepare_lists(rankings, relevance, k)
    if gain == "exponential" and relevance.nnz and relevance.data.max() > _MAX_EXPONENTIAL_GRADE:
        # 2^r overflows float64 near r = 1024; such grades are certainly a unit mistake.
        raise ValueError(
            f"relevance grades above {_MAX_EXPONENTIAL_GRADE} overflow gain='exponential', got {relevance.data.max()!r}"
        )
    to_gain = _GAINS[gain]
    discount = 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))
    dcg = to_gain(listed_grades(rankings, relevance)) @ discount
    idcg = to_gain(ideal_grades(relevance, k)) @ discount
    # DCG <= IDCG exactly in theory; the clip only removes a possible last-ulp excess.
    return np.minimum(_safe_divide(dcg, idcg), 1.0)


def hit_rate_at_k(rankings: ArrayLike, relevance: MatrixLike, *, k: int | None = None) -> NDArray[np.float64]:
    """Hit rate@k: 1 if any of the top k items is relevant, else 0.

    Parameters
    ----------
    rankings, relevance, k
        As in :func:`precision_at_k`.

    Returns
    -------
    numpy.ndarray, shape (m,)
        Values in {0, 1}.

    Notes
    -----
    HR@k(u) = 1{|L_u[:k] ∩ Rel_u| > 0}.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> rankings = np.array([[1, 0, 2], [3, 2, -1]])
    >>> relevance = sp.csr_matrix([[2.0, 0, 1, 0], [0, 3, 0, 1]])
    >>> from puf.effectiveness import hit_rate_at_k
    >>> hit_rate_at_k(rankings, relevance, k=1)
    array([0., 1.])
    """
    rankings, relevance, k = prepare_lists(rankings, relevance, k)
    return (listed_grades(rankings, relevance) > 0).any(axis=1).astype(np.float64)


def reciprocal_rank_at_k(rankings: ArrayLike, relevance: MatrixLike, *, k: int | None = None) -> NDArray[np.float64]:
    """Reciprocal rank@k: 1 / (position of the first relevant item in the top k).

    Parameters
    ----------
    rankings, relevance, k
        As in :func:`precision_at_k`.

    Returns
    -------
    numpy.ndarray, shape (m,)
        RR@k in [0, 1]; 0 when no relevant item is in the top k.

    Notes
    -----
    RR@k(u) = 1 / min{j <= k : L_u[j] ∈ Rel_u} (positions from 1; padding keeps its slot).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> rankings = np.array([[1, 0, 2], [3, 2, -1]])
    >>> relevance = sp.csr_matrix([[2.0, 0, 1, 0], [0, 3, 0, 1]])
    >>> from puf.effectiveness import reciprocal_rank_at_k
    >>> reciprocal_rank_at_k(rankings, relevance)
    array([0.5, 1. ])
    """
    rankings, relevance, k = prepare_lists(rankings, relevance, k)
    relevant = listed_grades(rankings, relevance) > 0
    first = relevant.argmax(axis=1).astype(np.float64) + 1.0
    return np.where(relevant.any(axis=1), 1.0 / first, 0.0)


def average_precision_at_k(rankings: ArrayLike, relevance: MatrixLike, *, k: int | None = None) -> NDArray[np.float64]:
    """Average precision@k, normalised by min(k, |Rel_u|).

    Parameters
    ----------
    rankings, relevance, k
        As in :func:`precision_at_k`.

    Returns
    -------
    numpy.ndarray, shape (m,)
        AP@k in [0, 1]; 0 for a user with no relevant item.

    Notes
    -----
    AP@k(u) = (1 / min(k, |Rel_u|)) * sum_{j <= k, L_u[j] ∈ Rel_u} P@j(u). The normaliser
    min(k, |Rel_u|) is the most hits a k-list can hold, so a perfect list scores 1 even
    when u has more than k relevant items.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> rankings = np.array([[1, 0, 2], [3, 2, -1]])
    >>> relevance = sp.csr_matrix([[2.0, 0, 1, 0], [0, 3, 0, 1]])
    >>> from puf.effectiveness import average_precision_at_k
    >>> average_precision_at_k(rankings, relevance)  # (1/2 + 2/3) / 2, (1/1) / 2
    array([0.58333, 0.5    ])
    """
    rankings, relevance, k = prepare_lists(rankings, relevance, k)
    relevant = listed_grades(rankings, relevance) > 0
    precision_at_j = np.cumsum(relevant, axis=1) / np.arange(1, k + 1, dtype=np.float64)
    total = (precision_at_j * relevant).sum(axis=1)
    return _safe_divide(total, np.minimum(_n_relevant(relevance), float(k)))


#: The effectiveness metrics by name, each ``f(rankings, relevance, *, k=None)`` -> one value per user.
EFFECTIVENESS = {
    "precision": precision_at_k,
    "recall": recall_at_k,
    "ndcg": ndcg_at_k,
    "hit_rate": hit_rate_at_k,
    "reciprocal_rank": reciprocal_rank_at_k,
    "average_precision": average_precision_at_k,
}


def get_effectiveness(name: str) -> Callable[..., NDArray[np.float64]]:
    """Return the effectiveness metric registered under ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`EFFECTIVENESS`.

    Returns
    -------
    callable
        ``f(rankings, relevance, *, k=None) -> (m,)`` in [0, 1].

    Raises
    ------
    ValueError
        If ``name`` is not registered; the message lists the known names.

    Examples
    --------
    >>> from puf.effectiveness import get_effectiveness
    >>> get_effectiveness("ndcg").__name__
    'ndcg_at_k'
    """
    return lookup(EFFECTIVENESS, name, what="effectiveness metric")
