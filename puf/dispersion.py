"""Dispersion of per-user effectiveness: variance, the Gini mean difference and max-min.

All three read ``effectiveness`` only, and lower is fairer. Variance and the
mean difference are absolute: unchanged when every S is shifted by the same
amount (they read gaps, not ratios) and defined on every population. Max-min
compares the extremes as a ratio: unchanged when every S is multiplied by the
same factor, undefined when every S is 0.
"""

from __future__ import annotations

__all__ = ["variance", "mean_difference", "max_min", "absolute_gaps"]

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .metadata import FAMILIES, measure
from .pair_kernels import pair_kernel
from .validation import check_effectiveness, undefined

_INEQUALITY = FAMILIES[0]


@measure(
    label="Variance",
    family=_INEQUALITY,
    range=(0.0, 0.25),
    reference="Rastegarpanah et al. WSDM 2019",
    definition="(1/m) Σ (S − μ)² (Rastegarpanah et al. 2019)",
    attainable="[0, 0.25]",
)
def variance(effectiveness: ArrayLike) -> float:
    """Population variance (ddof = 0) of per-user effectiveness.

    The individual unfairness of Rastegarpanah, Gummadi and Crovella (WSDM 2019).

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].

    Returns
    -------
    float
        In [0, 1/4]: at most μ(1 − μ) <= 1/4, reached by half the users at 0
        and half at 1; 0 is fairest.

    References
    ----------
    .. [1] B. Rastegarpanah, K. P. Gummadi and M. Crovella, "Fighting fire with fire: using
        antidote data to improve polarization and fairness of recommender systems", WSDM 2019.

    Examples
    --------
    >>> variance([0.0, 1.0, 0.0, 1.0])
    0.25
    """
    return float(np.var(check_effectiveness(effectiveness), ddof=0))


def absolute_gaps(effectiveness: tuple[NDArray[np.float64], NDArray[np.float64]]) -> NDArray[np.float64]:
    """The mean difference's pair term |S(u) − S(v)|, for arrays of pairs."""
    s_u, s_v = effectiveness
    return np.abs(s_u - s_v)


@pair_kernel(absolute_gaps)
@measure(
    name="mean-difference",
    label="MD",
    family=_INEQUALITY,
    reference="Gini mean difference",
    definition="1/(m(m−1)) Σ_{u≠v} |S(u)−S(v)| (PUF with every similarity 1)",
    attainable="[0, 1]",
)
def mean_difference(effectiveness: ArrayLike) -> float:
    """Gini mean difference: the mean absolute gap over ordered pairs of distinct users.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1], m >= 2.

    Returns
    -------
    float
        In [0, 1] (1 at S = (0, 1)); 0 is fairest. Equals :func:`puf.puf` with
        every similarity 1.

    Notes
    -----
    .. math:: MD = \\frac{1}{m(m-1)} \\sum_{u \\ne v} |S(u) - S(v)|
              = \\frac{2}{m(m-1)} \\sum_{j=1}^m (2j - m - 1)\\, S_{(j)}

    with :math:`S_{(j)}` sorted ascending (the right-hand form runs in O(m log m)).

    References
    ----------
    .. [1] F. A. Cowell, Measuring Inequality, 3rd ed., Oxford University Press, 2011 (the Gini
        mean difference).

    Examples
    --------
    >>> mean_difference([0.0, 0.5, 1.0])  # gaps 0.5, 1, 0.5 over 3 pairs, each twice
    0.6666666666666666
    """
    x = np.sort(check_effectiveness(effectiveness, min_users=2))
    m = x.shape[0]
    weights = 2.0 * np.arange(1, m + 1) - m - 1
    return max(float(2.0 * (weights @ x) / (m * (m - 1))), 0.0)


@measure(
    name="max-min",
    label="Max-min",
    family=_INEQUALITY,
    definition="1 − min S / max S; undefined when max S = 0",
    attainable="[0, 1]",
)
def max_min(effectiveness: ArrayLike) -> float:
    """One minus the ratio of the worst-off to the best-off user's effectiveness.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].

    Returns
    -------
    float
        In [0, 1]: 1 as soon as someone has 0 and someone more; 0 is fairest.
        NaN with :class:`~puf.UndefinedMeasureWarning` when every value is 0.

    Notes
    -----
    .. math:: 1 - \\frac{\\min_u S(u)}{\\max_u S(u)}

    Examples
    --------
    >>> max_min([0.25, 0.5, 1.0])
    0.75
    """
    s = check_effectiveness(effectiveness)
    high = s.max()
    if high == 0.0:
        return undefined("max-min is undefined when every effectiveness value is 0")
    return float(1.0 - s.min() / high)
