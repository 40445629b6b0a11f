"""The PUF paper's measures of per-user effectiveness: PUF, its printed form, SD and Gini.

Each measure is a plain function whose parameter names say which
:class:`~puf.Population` fields it reads (``effectiveness``, ``similarity``,
``utility``, ``list_distance``), so the harness can pass fields by name; its
metadata (label, family, range, definition, reference) is declared with
:func:`puf.measure` on the function. The envy measures and UF, which compare
users' lists, are in :mod:`puf.paper_list_measures`. Lower is fairer for every one.
"""

from __future__ import annotations

__all__ = [
    "pairwise_user_unfairness",
    "puf",
    "puf_as_printed",
    "sd",
    "gini",
    "weighted_gaps",
]

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .metadata import FAMILIES, measure
from .pair_kernels import pair_kernel
from .validation import check_effectiveness, check_similarity, undefined

_INEQUALITY, _SIMILAR = FAMILIES[0], FAMILIES[2]
_PUF_PAPER = "Rampisela et al. ECIR 2026 (the PUF paper)"

# Row blocks keep PUF's temporaries at O(block * m) instead of a second m x m array.
_BLOCK_ELEMENTS = 1 << 22


def _pair_weighted_gap_sum(effectiveness, similarity):
    """Σ_{u<v} sim(u,v)·|S(u) − S(v)|, in row blocks over the upper triangle."""
    m = effectiveness.shape[0]
    block = max(1, _BLOCK_ELEMENTS // max(m, 1))
    total = 0.0
    for start in range(0, m, block):
        stop = min(m, start + block)
        gaps = np.abs(effectiveness[start:stop, None] - effectiveness[None, :])
        # Keep only v > u (global indices) so each unordered pair counts once, the diagonal never.
        gaps = np.triu(gaps, k=start + 1)
        total += float(np.einsum("ij,ij->", gaps, similarity[start:stop]))
    return total


def weighted_gaps(
    effectiveness: tuple[NDArray[np.float64], NDArray[np.float64]], similarity: NDArray[np.float64]
) -> NDArray[np.float64]:
    """PUF's pair term sim(u, v)·|S(u) − S(v)|, for arrays of pairs (:mod:`puf.pair_kernels`)."""
    s_u, s_v = effectiveness
    return similarity * np.abs(s_u - s_v)


@pair_kernel(weighted_gaps)
@measure(
    name="puf",
    label="PUF",
    family=_SIMILAR,
    reference=_PUF_PAPER,
    definition="2/(m(m−1)) Σ_{u<v} sim(u,v)·|S(u)−S(v)|",
    attainable="[0, 1]",
)
def pairwise_user_unfairness(effectiveness: ArrayLike, similarity: ArrayLike) -> float:
    """Pairwise User unFairness (PUF): similarity-weighted mean effectiveness gap.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness S(u) in [0, 1] (e.g. NDCG@k of u's own list).
    similarity : array-like of shape (m, m)
        Symmetric user similarity in [0, 1]; the diagonal is ignored. To
        compute PUF from histories without an m x m matrix (by similarity
        name, exactly or by sampling), use :func:`puf.engines.puf_from_histories`.

    Returns
    -------
    float
        PUF in [0, 1]; 0 is fairest (no similar users with different effectiveness).

    Notes
    -----
    .. math:: \\mathrm{PUF} = \\frac{2}{m(m-1)} \\sum_{u<v} \\mathrm{sim}(u,v)\\,|S(u)-S(v)|

    The sum runs in row blocks, so no m x m temporary is built beyond the
    given similarity matrix. Needs m >= 2.

    Examples
    --------
    >>> pairwise_user_unfairness([1.0, 0.0, 1.0],
    ...                          [[1, .5, 0], [.5, 1, 1], [0, 1, 1]])
    0.5
    """
    if isinstance(similarity, str):
        raise ValueError(
            f"similarity must be an (m, m) matrix, got the name {similarity!r}; for PUF "
            "from histories use puf.engines.puf_from_histories(effectiveness, histories, "
            f"similarity={similarity!r})"
        )
    effectiveness = check_effectiveness(effectiveness, min_users=2)
    similarity = check_similarity(similarity, m=effectiveness.shape[0])
    m = effectiveness.shape[0]
    return 2.0 * _pair_weighted_gap_sum(effectiveness, similarity) / (m * (m - 1))


puf = pairwise_user_unfairness


@pair_kernel(weighted_gaps, scale=2.0)
@measure(
    name="puf-as-printed",
    label="PUF-as-printed",
    family=_SIMILAR,
    reference=_PUF_PAPER,
    tables=False,
    definition="2/(m(m−1)) Σ_{u≠v} sim(u,v)·|S(u)−S(v)| (the paper's printed form, 2×PUF)",
    attainable="[0, 2]",
)
def puf_as_printed(effectiveness: ArrayLike, similarity: ArrayLike) -> float:
    """PUF as printed in the paper: the ordered-pair double sum, twice :func:`puf`.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].
    similarity : array-like of shape (m, m)
        Symmetric user similarity in [0, 1].

    Returns
    -------
    float
        In [0, 2]; exceeds 1 on some populations, which is why it is kept
        apart from :func:`puf` (the harness's ``range`` property flags it).

    Notes
    -----
    .. math:: \\frac{2}{m(m-1)} \\sum_{u \\ne v} \\mathrm{sim}(u,v)\\,|S(u)-S(v)|

    Examples
    --------
    >>> puf_as_printed([1.0, 0.0], [[1, 1], [1, 1]])
    2.0
    """
    return 2.0 * pairwise_user_unfairness(effectiveness, similarity)


@measure(
    label="SD",
    family=_INEQUALITY,
    reference=_PUF_PAPER,
    definition="standard deviation (ddof=0) of S",
    attainable="[0, 0.5]",
)
def sd(effectiveness: ArrayLike) -> float:
    """Population standard deviation (ddof=0) of per-user effectiveness.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].

    Returns
    -------
    float
        In [0, 0.5]; 0 is fairest.

    Notes
    -----
    .. math:: \\mathrm{SD} = \\sqrt{\\tfrac{1}{m}\\sum_u (S(u) - \\bar S)^2}

    Examples
    --------
    >>> sd([0.0, 1.0, 0.0, 1.0])
    0.5
    """
    effectiveness = check_effectiveness(effectiveness)
    return float(np.std(effectiveness, ddof=0))


@measure(
    label="Gini",
    family=_INEQUALITY,
    reference=_PUF_PAPER,
    definition="Σ_j (2j−m−1)·S_(j) / (m·Σ S); undefined when Σ S = 0",
    attainable="[0, (m−1)/m]",
)
def gini(effectiveness: ArrayLike) -> float:
    """Gini coefficient of per-user effectiveness.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].

    Returns
    -------
    float
        In [0, (m−1)/m]; 0 is fairest. NaN with
        :class:`~puf.UndefinedMeasureWarning` when every value is 0.

    Notes
    -----
    .. math:: G = \\frac{\\sum_{j=1}^m (2j - m - 1)\\, x_{(j)}}{m \\sum_j x_j}

    with :math:`x_{(j)}` sorted ascending.

    Examples
    --------
    >>> gini([0.0, 0.0, 1.0, 1.0])
    0.5
    """
    x = np.sort(check_effectiveness(effectiveness))
    total = x.sum()
    if total == 0.0:
        return undefined("gini is undefined when every effectiveness value is 0")
    m = x.shape[0]
    weights = 2.0 * np.arange(1, m + 1) - m - 1
    return float(weights @ x / (m * total))
