"""Absolute dispersion of per-user effectiveness: variance and the Gini mean difference.

Both read ``effectiveness`` only, are unchanged when every S is shifted by the
same amount (they read gaps, not ratios), are defined on every population, and
lower is fairer.
"""

__all__ = ["variance", "mean_difference"]

import numpy as np

from .validation import check_effectiveness


def variance(effectiveness):
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


def mean_difference(effectiveness):
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
