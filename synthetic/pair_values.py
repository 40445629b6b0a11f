"""The off-diagonal pair values of a similarity matrix, and a power transform that skews them.

:func:`power_skewness` reaches a target skewness by raising every value to one power (the
mean is free to move); :mod:`synthetic.similarity` re-exports both names.
"""

from __future__ import annotations

__all__ = ["off_diagonal", "power_skewness"]

import numpy as np
from numpy.typing import ArrayLike, NDArray

from puf.validation import check_similarity

from ._skewness import sample_skewness


def off_diagonal(similarity: ArrayLike) -> NDArray[np.float64]:
    """The upper-triangle values of a square matrix, each unordered pair once, row by row.

    Parameters
    ----------
    similarity : array-like of shape (m, m)

    Returns
    -------
    numpy.ndarray of shape (m(m-1)/2,)

    Examples
    --------
    >>> off_diagonal([[1, .1, .2], [.1, 1, .3], [.2, .3, 1]])
    array([0.1, 0.2, 0.3])
    """
    array = np.asarray(similarity, dtype=np.float64)
    return array[np.triu(np.ones(array.shape, dtype=bool), 1)]


_ALPHA_RANGE = (1e-4, 1e4)  # exponents searched by power_skewness


def _power_skew(log_positive: NDArray[np.float64], zeros: int, alpha: float) -> float:
    """Sample skewness of x**alpha, from log x of the positive values and the count of zeros."""
    # Skewness is shift- and scale-free, so x**alpha / max(x)**alpha - 1 (expm1: exact when
    # alpha is tiny and every value is near 1) has the same skewness and cannot overflow.
    shifted = np.expm1(alpha * log_positive)
    return sample_skewness(np.concatenate([shifted, np.full(zeros, -1.0)]))


def power_skewness(similarity: ArrayLike, *, skewness: float) -> NDArray[np.float64]:
    """Raise every off-diagonal similarity to the power alpha that gives a target skewness.

    ``sim' = sim ** alpha`` with one alpha > 0 for the whole matrix: the order of the
    pairs is kept, 0 and 1 stay fixed, and the mean is free to move (it falls as
    alpha, and with it the skewness, rises). Compare :func:`reshape_skewness`, which
    imposes a skewness at a fixed mean.

    Parameters
    ----------
    similarity : array-like of shape (m, m)
        Symmetric, in [0, 1], m >= 2.
    skewness : float
        Target Fisher-Pearson sample skewness of the m(m-1)/2 off-diagonal values
        (``scipy.stats.skew`` with ``bias=True``), inside the achievable interval below.

    Returns
    -------
    numpy.ndarray of shape (m, m)
        Symmetric float64 in [0, 1]; the diagonal is copied from the input.

    Raises
    ------
    ValueError
        For a non-finite target, or one outside the achievable interval.

    Notes
    -----
    x**a2 is a convex increasing function of x**a1 when a2 > a1, so the sample skewness
    rises with alpha (van Zwet's convex ordering). alpha is searched in [1e-4, 1e4]
    (brentq on log alpha, to 1e-6 or better on the skewness), so the achievable interval
    is [S(1e-4), S(1e4)], S(alpha) the skewness of the powered values. These ends are
    close to the limits: as alpha -> 0 every positive value tends to 1, so S tends to
    the skewness of a 0/1 sample, (1 - 2q) / sqrt(q(1 - q)) with q the share of positive
    pairs (or, with no zero pair, to the skewness of log sim); as alpha -> inf only the
    largest value survives, so S tends to (1 - 2t) / sqrt(t(1 - t)) with t the share of
    pairs tied at the maximum. A matrix with fewer than two distinct positive
    off-diagonal values has a single reachable skewness. For sparse Jaccard (many
    zero pairs) the lower end is near 0 or even positive: negative targets may be out
    of reach. Very large alpha can underflow small values to 0, merging them with zeros.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import skew, spearmanr
    >>> rng = np.random.default_rng(0)
    >>> observed = rng.random((60, 60)); observed = (observed + observed.T) / 2
    >>> powered = power_skewness(observed, skewness=2.0)
    >>> round(float(skew(off_diagonal(powered))), 6)
    2.0
    >>> float(spearmanr(off_diagonal(observed), off_diagonal(powered))[0])
    1.0
    >>> bool(off_diagonal(powered).mean() < off_diagonal(observed).mean())  # the mean moved
    True
    >>> power_skewness(observed, skewness=60.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: skewness 60.0 is unreachable by a power transform of this matrix: ...
    """
    import numbers

    from scipy.optimize import brentq

    similarity = check_similarity(similarity)
    if isinstance(skewness, bool) or not isinstance(skewness, numbers.Real) or not np.isfinite(skewness):
        raise ValueError(f"skewness must be a finite real number, got {skewness!r}")
    skewness = float(skewness)
    observed = off_diagonal(similarity)
    positive = observed[observed > 0]
    log_positive = np.log(positive) - np.log(positive.max()) if positive.size else positive
    zeros = observed.size - positive.size

    def gap(log_alpha: float) -> float:
        return _power_skew(log_positive, zeros, float(np.exp(log_alpha))) - skewness

    low, high = np.log(_ALPHA_RANGE[0]), np.log(_ALPHA_RANGE[1])
    at_low, at_high = gap(low), gap(high)
    if at_low > 1e-12 or at_high < -1e-12:
        raise ValueError(
            f"skewness {skewness!r} is unreachable by a power transform of this matrix: the "
            f"achievable interval is [{at_low + skewness:.6g}, {at_high + skewness:.6g}] "
            f"(sim ** alpha for alpha in [{_ALPHA_RANGE[0]:g}, {_ALPHA_RANGE[1]:g}])"
        )
    if at_low >= 0:
        log_alpha = low
    elif at_high <= 0:
        log_alpha = high
    else:
        log_alpha = brentq(gap, low, high, xtol=1e-13, rtol=1e-15, maxiter=200)
    out = np.power(similarity, np.exp(log_alpha))
    out[np.diag_indices_from(out)] = np.diag(similarity)
    return out
