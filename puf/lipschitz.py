"""Similarity-aware individual fairness: similar users should get similar effectiveness.

These measures read ``effectiveness`` and ``similarity``. The Lipschitz
measures take 1 − sim(u, v) as the distance between users (Dwork et al., ITCS
2012: |S(u) − S(v)| <= L·d(u, v)); inconsistency compares each user with its
most similar others (Zemel et al., ICML 2013). Lower is fairer.
"""

from __future__ import annotations

__all__ = ["inconsistency", "lipschitz_violation", "lipschitz_excess", "violating_pairs", "excess_gaps"]

import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .metadata import FAMILIES, measure
from .pair_kernels import pair_kernel
from .validation import check_effectiveness, check_nonnegative_scalar, check_similarity, undefined

_SIMILAR = FAMILIES[2]

# Row blocks keep the temporaries at O(block * m) on real data (m in the thousands).
_BLOCK_ELEMENTS = 1 << 22
#: Similarities are ranked rounded to this many decimals: values equal in exact arithmetic but a
#: few ulps apart from the way they were computed (tiles or the dense matrix) are tied.
TIE_DECIMALS = 12


def _inputs(effectiveness, similarity):
    effectiveness = check_effectiveness(effectiveness, min_users=2)
    return effectiveness, check_similarity(similarity, m=effectiveness.shape[0])


def _blocks(m):
    step = max(1, _BLOCK_ELEMENTS // max(m, 1))
    return ((start, min(m, start + step)) for start in range(0, m, step))


@measure(
    label="Inconsistency",
    family=_SIMILAR,
    reference="Zemel et al. ICML 2013",
    definition="(1/m) Σ_u |S(u) − mean S over the n = 5 most similar others|; undefined when m < 6",
    attainable="[0, 1]",
)
def inconsistency(effectiveness: ArrayLike, similarity: ArrayLike, *, n_neighbors: int = 5) -> float:
    """Mean gap between each user's effectiveness and that of its most similar users.

    One minus the *consistency* of Zemel et al. (ICML 2013), as AIF360's
    ``consistency_score`` computes it, with neighbours chosen by the given
    similarity instead of a k-NN over features.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].
    similarity : array-like of shape (m, m)
        Symmetric user similarity in [0, 1]; the diagonal is ignored.
    n_neighbors : int, default 5
        n, the number of most similar other users each user is compared with.

    Returns
    -------
    float
        In [0, 1] (1 when every user's n neighbours all have the opposite
        extreme, e.g. two groups of n at 0 and at 1 similar only across groups);
        0 is fairest. NaN with :class:`~puf.UndefinedMeasureWarning` when
        m < n + 1 (some user has fewer than n others).

    Notes
    -----
    .. math:: \\frac1m \\sum_u \\Bigl|S(u) - \\frac1n \\sum_{v \\in N_n(u)} S(v)\\Bigr|

    N_n(u) holds the n users v ≠ u of highest sim(u, v); ties (similarities equal
    to 12 decimals) go to the lower user index. Because the neighbours are chosen by rank, the value ignores
    how similar they are: with no two users similar, N_n(u) is the first n
    others by index, and the value is usually above 0.

    References
    ----------
    .. [1] R. Zemel, Y. Wu, K. Swersky, T. Pitassi and C. Dwork, "Learning fair representations",
        ICML 2013.

    Examples
    --------
    >>> import numpy as np
    >>> sim = np.array([[1, .9, .1], [.9, 1, .2], [.1, .2, 1]])
    >>> inconsistency([1.0, 0.5, 0.0], sim, n_neighbors=1)  # neighbours 0→1, 1→0, 2→1
    0.5
    """
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, numbers.Integral) or n_neighbors < 1:
        raise ValueError(f"n_neighbors must be a positive integer, got {n_neighbors!r}")
    n = int(n_neighbors)
    s, sim = _inputs(effectiveness, similarity)
    m = s.shape[0]
    if m < n + 1:
        return undefined(f"inconsistency with n_neighbors={n} is undefined for m = {m} < {n + 1} users")
    total = 0.0
    for start, stop in _blocks(m):
        rows = np.arange(start, stop)
        distance = -np.round(sim[start:stop], TIE_DECIMALS)
        distance[rows - start, rows] = np.inf  # a user is not its own neighbour
        # The n-th smallest distance per row; everything closer is a neighbour, and the
        # ties at that distance fill the remaining places in index order (lower index first).
        nth = np.partition(distance, n - 1, axis=1)[:, n - 1 : n]
        closer = distance < nth
        tied = distance == nth
        places = n - closer.sum(axis=1, keepdims=True)
        chosen = closer | (tied & (np.cumsum(tied, axis=1) <= places))
        total += float(np.abs(s[start:stop] - chosen @ s / n).sum())
    return total / m


def _gaps_and_allowance(s, sim, start, stop, lipschitz_constant):
    gaps = np.abs(s[start:stop, None] - s[None, :])
    allowance = lipschitz_constant * (1.0 - sim[start:stop])
    upper = np.triu(np.ones((stop - start, s.shape[0]), dtype=bool), k=start + 1)
    return gaps, allowance, upper


def _pair_excess(effectiveness, similarity, lipschitz_constant):
    s_u, s_v = effectiveness
    lipschitz_constant = check_nonnegative_scalar(lipschitz_constant, name="lipschitz_constant")
    return np.abs(s_u - s_v), lipschitz_constant * (1.0 - similarity)


def violating_pairs(
    effectiveness: tuple[NDArray[np.float64], NDArray[np.float64]],
    similarity: NDArray[np.float64],
    *,
    lipschitz_constant: float = 1.0,
) -> NDArray[np.float64]:
    """1 where |S(u) − S(v)| > L·(1 − sim(u, v)), else 0, for arrays of pairs."""
    gaps, allowance = _pair_excess(effectiveness, similarity, lipschitz_constant)
    return (gaps > allowance).astype(np.float64)


def excess_gaps(
    effectiveness: tuple[NDArray[np.float64], NDArray[np.float64]],
    similarity: NDArray[np.float64],
    *,
    lipschitz_constant: float = 1.0,
) -> NDArray[np.float64]:
    """max(0, |S(u) − S(v)| − L·(1 − sim(u, v))), for arrays of pairs."""
    gaps, allowance = _pair_excess(effectiveness, similarity, lipschitz_constant)
    return np.maximum(gaps - allowance, 0.0)


@pair_kernel(violating_pairs)
@measure(
    name="lipschitz-violation",
    label="Lipschitz-violation",
    family=_SIMILAR,
    reference="Dwork et al. ITCS 2012",
    definition="share of pairs u<v with |S(u)−S(v)| > L·(1 − sim(u,v)), L = 1",
    attainable="[0, 1]",
)
def lipschitz_violation(effectiveness: ArrayLike, similarity: ArrayLike, *, lipschitz_constant: float = 1.0) -> float:
    """Share of user pairs whose effectiveness gap exceeds L times their distance 1 − sim.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1], m >= 2.
    similarity : array-like of shape (m, m)
        Symmetric user similarity in [0, 1]; the diagonal is ignored.
    lipschitz_constant : float >= 0, default 1.0
        L in Dwork et al.'s condition |S(u) − S(v)| <= L·(1 − sim(u, v)).

    Returns
    -------
    float
        In [0, 1]; 0 is fairest (every pair satisfies the condition). With
        L >= 1 pairs of similarity 0 never violate it (gaps are at most 1).

    Notes
    -----
    .. math:: \\frac{2}{m(m-1)} \\sum_{u<v} \\mathbf{1}\\{|S(u)-S(v)| > L\\,(1-\\mathrm{sim}(u,v))\\}

    References
    ----------
    .. [1] C. Dwork, M. Hardt, T. Pitassi, O. Reingold and R. Zemel, "Fairness through awareness",
        ITCS 2012.

    Examples
    --------
    >>> lipschitz_violation([0.0, 0.5, 1.0], [[1, .9, 0], [.9, 1, .4], [0, .4, 1]])
    0.3333333333333333
    """
    lipschitz_constant = check_nonnegative_scalar(lipschitz_constant, name="lipschitz_constant")
    s, sim = _inputs(effectiveness, similarity)
    m = s.shape[0]
    count = 0
    for start, stop in _blocks(m):
        gaps, allowance, upper = _gaps_and_allowance(s, sim, start, stop, lipschitz_constant)
        count += int(np.count_nonzero((gaps > allowance) & upper))
    return 2.0 * count / (m * (m - 1))


@pair_kernel(excess_gaps)
@measure(
    name="lipschitz-excess",
    label="Lipschitz-excess",
    family=_SIMILAR,
    reference="Dwork et al. ITCS 2012",
    definition="2/(m(m−1)) Σ_{u<v} max(0, |S(u)−S(v)| − L·(1 − sim(u,v))), L = 1",
    attainable="[0, 1]",
)
def lipschitz_excess(effectiveness: ArrayLike, similarity: ArrayLike, *, lipschitz_constant: float = 1.0) -> float:
    """Mean over user pairs of how far the effectiveness gap exceeds L·(1 − sim).

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1], m >= 2.
    similarity : array-like of shape (m, m)
        Symmetric user similarity in [0, 1]; the diagonal is ignored.
    lipschitz_constant : float >= 0, default 1.0
        L in Dwork et al.'s condition |S(u) − S(v)| <= L·(1 − sim(u, v)).

    Returns
    -------
    float
        In [0, 1] (1 at S = (0, 1) with similarity 1); 0 is fairest. With
        L = 0 it is the mean difference.

    Notes
    -----
    .. math:: \\frac{2}{m(m-1)} \\sum_{u<v} \\max\\bigl(0,\\ |S(u)-S(v)| - L\\,(1-\\mathrm{sim}(u,v))\\bigr)

    References
    ----------
    .. [1] C. Dwork, M. Hardt, T. Pitassi, O. Reingold and R. Zemel, "Fairness through awareness",
        ITCS 2012.

    Examples
    --------
    >>> round(lipschitz_excess([0.0, 0.5, 1.0], [[1, .9, 0], [.9, 1, .4], [0, .4, 1]]), 12)
    0.133333333333
    """
    lipschitz_constant = check_nonnegative_scalar(lipschitz_constant, name="lipschitz_constant")
    s, sim = _inputs(effectiveness, similarity)
    m = s.shape[0]
    total = 0.0
    for start, stop in _blocks(m):
        gaps, allowance, upper = _gaps_and_allowance(s, sim, start, stop, lipschitz_constant)
        total += float(np.maximum(gaps - allowance, 0.0)[upper].sum())
    return 2.0 * total / (m * (m - 1))
