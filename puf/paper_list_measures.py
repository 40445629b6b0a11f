"""Measures that compare users' recommended lists: envy (ME, MME, PEU) and UF.

Envy reads ``utility`` (``utility[u, v]`` = φ_u(L_v), u's utility of v's
list): how much a user would gain from another's list. UF reads
``similarity`` and ``list_distance``: how far apart the lists of the most
similar users are. Lower is fairer for every one. Each measure's metadata is
declared with :func:`puf.measure` on the function.
"""

from __future__ import annotations

__all__ = [
    "mean_envy",
    "mean_envy_as_printed",
    "mean_max_envy",
    "proportion_envious_users",
    "uf",
]

import math

import numpy as np
from numpy.typing import ArrayLike

from .metadata import FAMILIES, UNBOUNDED, measure
from .validation import (
    ENVY_TOLERANCE,
    LIST_DISTANCE_TOLERANCE,
    check_log_base,
    check_nonnegative_scalar,
    check_pair_matrix,
    check_similarity,
    undefined,
)

_ENVY, _SIMILAR = FAMILIES[1], FAMILIES[2]
_PUF_PAPER = "Rampisela et al. ECIR 2026 (the PUF paper)"


def _envy(utility):
    utility = check_pair_matrix(utility, name="utility")
    own = np.diag(utility)
    envy = np.maximum(utility - own[:, None], 0.0)
    np.fill_diagonal(envy, 0.0)
    return envy


@measure(
    name="me",
    engine_output=("me", 1.0),
    label="ME",
    family=_ENVY,
    panel="Envy",
    reference=_PUF_PAPER,
    definition="1/(m(m−1)) Σ_{u≠v} max(φ_u(L_v) − φ_u(L_u), 0)",
    attainable="[0, 1]",
)
def mean_envy(utility: ArrayLike) -> float:
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


@measure(
    name="me-as-printed",
    engine_output=("me", 2.0),
    label="ME-as-printed",
    family=_ENVY,
    panel="Envy",
    reference=_PUF_PAPER,
    tables=False,
    definition="2/(m(m−1)) Σ_{u≠v} envy(u,v) (the appendix's printed form, 2×ME)",
    attainable="[0, 2]",
)
def mean_envy_as_printed(utility: ArrayLike) -> float:
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


@measure(
    name="mme",
    engine_output=("mme", 1.0),
    label="MME",
    family=_ENVY,
    panel="Envy",
    reference=_PUF_PAPER,
    definition="(1/m) Σ_u max_{v≠u} envy(u,v)",
    attainable="[0, 1]",
)
def mean_max_envy(utility: ArrayLike) -> float:
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


@measure(
    name="peu",
    engine_output=("peu", 1.0),
    label="PEU",
    family=_ENVY,
    panel="Envy",
    reference=_PUF_PAPER,
    definition="(1/m) Σ_u 1{max_{v≠u} envy(u,v) > ε}, ε = 0.05",
    attainable="[0, 1]",
    study_options=("epsilon",),
)
def proportion_envious_users(utility: ArrayLike, *, epsilon: float = 0.05) -> float:
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


@measure(
    label="UF",
    family=_SIMILAR,
    range=UNBOUNDED,
    similarity="uf",
    gamma=0.5,
    reference=_PUF_PAPER,
    definition="ln Σ_{sim ≥ mean+SD} sim(u,v)·d_L(u,v)",
    attainable="(−∞, ∞)",
)
def uf(similarity: ArrayLike, list_distance: ArrayLike, *, base: float = math.e) -> float:
    """User fairness (UF): log of the similarity-weighted list distance of the most similar pairs.

    Parameters
    ----------
    similarity : array-like of shape (m, m)
        Symmetric sim_UF in [0, 1]; the diagonal is ignored.
    list_distance : array-like of shape (m, m)
        Symmetric non-negative d_L(u, v) between users' recommended lists.
    base : float, default e
        Base of the logarithm, finite and > 1 (the original paper does not state it).

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
    UF = log_base Σ_{(u,v)∈U*} sim(u, v)·d_L(u, v). Needs m >= 2. The sum counts as 0
    (UF undefined) when it is at most |U*|·1e-12 (``puf.validation.LIST_DISTANCE_TOLERANCE``):
    d_L = 1 − ē_u·ē_v rounds an exact 0 to a few ulps, and two exact roads would otherwise
    disagree between NaN and log(1e-16).

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
        list_distance,
        name="list_distance",
        m=similarity.shape[0],
        symmetric=True,
        unit=False,
        against="similarity",
    )
    base = check_log_base(base)
    upper = np.triu_indices(similarity.shape[0], k=1)
    sims = similarity[upper]
    threshold = sims.mean() + sims.std(ddof=0)
    chosen = sims >= threshold - 1e-12
    if not chosen.any():
        return undefined("uf is undefined: no pair reaches the mean + SD similarity threshold")
    total = float(sims[chosen] @ list_distance[upper][chosen])
    if total <= LIST_DISTANCE_TOLERANCE * int(chosen.sum()):
        return undefined("uf is undefined: the weighted list-distance sum over U* is 0")
    return math.log(total) / math.log(base)
