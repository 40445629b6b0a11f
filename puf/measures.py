"""Fairness measures over a population of users: lower is fairer for every one.

Each measure is a plain function whose parameter names say which
:class:`~puf.Population` fields it reads (``effectiveness``, ``similarity``,
``utility``, ``list_distance``), so the harness can pass fields by name.
"""

__all__ = [
    "pairwise_user_unfairness",
    "puf",
    "puf_as_printed",
    "sd",
    "gini",
    "mean_envy",
    "mean_envy_as_printed",
    "mean_max_envy",
    "proportion_envious_users",
    "uf",
]

import math

import numpy as np

from .validation import (
    ENVY_TOLERANCE,
    check_effectiveness,
    check_nonnegative_scalar,
    check_pair_matrix,
    check_similarity,
    undefined,
)

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


def pairwise_user_unfairness(effectiveness, similarity=None, *, histories=None, **engine_options):
    """Pairwise User unFairness (PUF): similarity-weighted mean effectiveness gap.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness S(u) in [0, 1] (e.g. NDCG@k of u's own list).
    similarity : array-like of shape (m, m), optional
        Symmetric user similarity in [0, 1]; the diagonal is ignored.
    histories : scipy sparse matrix of shape (m, n), keyword-only, optional
        Instead of ``similarity``: training histories, from which the scale
        engines compute the similarity pair by pair without an m x m matrix
        (see :func:`puf.engines.puf_from_histories` for ``engine_options``).

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
    if histories is not None:
        if similarity is not None and not isinstance(similarity, str):
            raise ValueError("similarity must be a name ('jaccard', 'cosine') when histories is given")
        from .engines import puf_from_histories

        if similarity is not None:
            engine_options["similarity"] = similarity
        return puf_from_histories(effectiveness, histories, **engine_options)
    if engine_options:
        raise ValueError(
            f"engine options {sorted(engine_options)} need histories=; "
            "pass the similarity matrix alone for the dense form"
        )
    if similarity is None:
        raise ValueError("similarity is required (an (m, m) matrix), or pass histories=")
    effectiveness = check_effectiveness(effectiveness, min_users=2)
    similarity = check_similarity(similarity, m=effectiveness.shape[0])
    m = effectiveness.shape[0]
    return 2.0 * _pair_weighted_gap_sum(effectiveness, similarity) / (m * (m - 1))


puf = pairwise_user_unfairness


def puf_as_printed(effectiveness, similarity):
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


def sd(effectiveness):
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


def gini(effectiveness):
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


def _envy(utility):
    utility = check_pair_matrix(utility, name="utility")
    own = np.diag(utility)
    envy = np.maximum(utility - own[:, None], 0.0)
    np.fill_diagonal(envy, 0.0)
    return envy


def mean_envy(utility):
    """Mean envy (ME) over ordered pairs of distinct users.

    Parameters
    ----------
    utility : array-like of shape (m, m)
        ``utility[u, v]`` = phi_u(L_v) in [0, 1], u's utility of v's list;
        the diagonal is u's utility of its own list.

    Returns
    -------
    float
        In [0, 1]; 0 is fairest (nobody prefers another user's list).

    Notes
    -----
    envy(u, v) = max(phi_u(L_v) − phi_u(L_u), 0);
    ME = 1/(m(m−1)) · Σ_{u≠v} envy(u, v). Needs m >= 2.

    Examples
    --------
    >>> mean_envy([[0.0, 1.0], [0.0, 1.0]])
    0.5
    """
    envy = _envy(utility)
    m = envy.shape[0]
    return float(envy.sum() / (m * (m - 1)))


def mean_envy_as_printed(utility):
    """ME as printed in the paper's appendix, 2/(m(m−1))·Σ_{u≠v}: twice :func:`mean_envy`.

    Parameters
    ----------
    utility : array-like of shape (m, m)
        Cross utilities in [0, 1], as for :func:`mean_envy`.

    Returns
    -------
    float
        In [0, 2]; can exceed 1, which the ``range`` property flags.

    Examples
    --------
    >>> mean_envy_as_printed([[0.0, 1.0], [0.0, 1.0]])
    1.0
    """
    return 2.0 * mean_envy(utility)


def mean_max_envy(utility):
    """Mean over users of each user's largest envy (MME).

    Parameters
    ----------
    utility : array-like of shape (m, m)
        Cross utilities in [0, 1], as for :func:`mean_envy`.

    Returns
    -------
    float
        In [0, 1]; 0 is fairest.

    Notes
    -----
    MME = (1/m) · Σ_u max_{v≠u} envy(u, v). Needs m >= 2.

    Examples
    --------
    >>> mean_max_envy([[0.2, 1.0, 0.6], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    0.26666666666666666
    """
    return float(_envy(utility).max(axis=1).mean())


def proportion_envious_users(utility, *, epsilon=0.05):
    """Proportion of users whose largest envy exceeds ``epsilon`` (PEU).

    Parameters
    ----------
    utility : array-like of shape (m, m)
        Cross utilities in [0, 1], as for :func:`mean_envy`.
    epsilon : float, default 0.05
        Envy tolerance, >= 0.

    Returns
    -------
    float
        In [0, 1]; 0 is fairest.

    Notes
    -----
    PEU(ε) = (1/m) · Σ_u 1{max_{v≠u} envy(u, v) > ε}. Needs m >= 2. Envy is compared
    with ε + 2⁻⁵¹ ≈ 4.4e-16 (``puf.validation.ENVY_TOLERANCE``): the utilities arrive
    already divided by z_u, and that rounding can lift an envy of exactly ε above it
    (0.2 − 0.15 = 0.05000000000000002 for 4/20 − 3/20), which would count a user the
    definition does not; an envy within 4.4e-16 above ε is not counted.

    Examples
    --------
    >>> proportion_envious_users([[0.2, 1.0], [0.0, 1.0]], epsilon=0.5)
    0.5
    """
    epsilon = check_nonnegative_scalar(epsilon, name="epsilon")
    return float((_envy(utility).max(axis=1) > epsilon + ENVY_TOLERANCE).mean())


def uf(similarity, list_distance, *, base=math.e):
    """User fairness (UF): log of the similarity-weighted list distance of the most similar pairs.

    Parameters
    ----------
    similarity : array-like of shape (m, m)
        Symmetric sim_UF in [0, 1]; the diagonal is ignored.
    list_distance : array-like of shape (m, m)
        Symmetric non-negative d_L(u, v) between users' recommended lists.
    base : float, default e
        Base of the logarithm (the original paper does not state it).

    Returns
    -------
    float
        Unbounded; lower is fairer. NaN with :class:`~puf.UndefinedMeasureWarning`
        when no pair reaches the threshold or the weighted sum is 0.

    Notes
    -----
    t = mean + SD (ddof=0) of sim over unordered pairs u<v;
    U* = {(u, v): sim(u, v) >= t}, with an absolute tolerance of 1e-12 so that
    all-equal similarities, whose SD is 0, are not lost to rounding in the mean;
    UF = log_base Σ_{(u,v)∈U*} sim(u, v)·d_L(u, v). Needs m >= 2.

    Examples
    --------
    >>> import numpy as np
    >>> sim = np.array([[1, .9, .1], [.9, 1, .1], [.1, .1, 1]])
    >>> dist = np.array([[0, .5, 1], [.5, 0, 1], [1, 1, 0]])
    >>> round(uf(sim, dist), 6)  # only the pair (0, 1) is above mean + SD
    -0.798508
    """
    similarity = check_similarity(similarity)
    list_distance = check_pair_matrix(
        list_distance, name="list_distance", m=similarity.shape[0], symmetric=True, unit=False
    )
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not base > 1:
        raise ValueError(f"base must be a number > 1, got {base!r}")
    upper = np.triu_indices(similarity.shape[0], k=1)
    sims = similarity[upper]
    threshold = sims.mean() + sims.std(ddof=0)
    chosen = sims >= threshold - 1e-12
    if not chosen.any():
        return undefined("uf is undefined: no pair reaches the mean + SD similarity threshold")
    total = float(sims[chosen] @ list_distance[upper][chosen])
    if total <= 0.0:
        return undefined("uf is undefined: the weighted list-distance sum over U* is 0")
    return math.log(total) / math.log(base)
