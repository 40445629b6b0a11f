"""Per-user effectiveness vectors with a controlled disparity."""

from __future__ import annotations

__all__ = ["zero_relevance_effectiveness", "spread_effectiveness", "max_sd"]

import numpy as np
from scipy.optimize import brentq
from numpy.typing import NDArray

from puf.validation import check_nonnegative_scalar, check_random_state, check_unit_scalar

from ._checks import check_open_unit, check_users


def zero_relevance_effectiveness(
    m: int, fraction: float, *, high: float = 1.0, random_state: int | np.random.Generator | None = None
) -> NDArray[np.float64]:
    """Exactly round(fraction * m) users at 0, the others at ``high``.

    Parameters
    ----------
    m : int
        Number of users, >= 2.
    fraction : float in [0, 1]
        Share of users whose list holds no relevant item.
    high : float in [0, 1], default 1.0
        Effectiveness of the other users (1 = fully relevant lists).
    random_state : None, int or numpy.random.Generator
        Chooses which users are at 0.

    Returns
    -------
    numpy.ndarray of shape (m,)
        float64 in {0, high}.

    Notes
    -----
    The count uses Python's ``round`` (half to even). The zero users are the first
    round(fraction * m) of one random permutation of the users, so with the same
    ``random_state`` a larger fraction zeroes a superset of users: sweeps over the
    fraction change one thing at a time. With p = fraction and high = 1, SD = sqrt(p(1-p))
    and Gini = p (the PUF paper's identities), up to the rounding of p m.

    Examples
    --------
    >>> zero_relevance_effectiveness(5, 0.4, random_state=0)
    array([1., 1., 0., 1., 0.])
    >>> zero_relevance_effectiveness(5, 1.5)
    Traceback (most recent call last):
    ...
    ValueError: fraction must lie in [0, 1], got 1.5
    """
    m = check_users(m)
    fraction = check_unit_scalar(fraction, name="fraction")
    high = check_unit_scalar(high, name="high")
    rng = check_random_state(random_state)
    effectiveness = np.full(m, high)
    effectiveness[rng.permutation(m)[: int(round(fraction * m))]] = 0.0
    return effectiveness


def max_sd(m: int, mean: float) -> float:
    """Largest population SD that m values in [0, 1] with the given mean can have.

    Parameters
    ----------
    m : int
        Number of values, >= 2.
    mean : float in (0, 1)

    Returns
    -------
    float
        sqrt((j + f**2) / m - mean**2) with j + f = m * mean, j integer, f in [0, 1):
        j values at 1, one at f, the rest at 0. Tends to sqrt(mean (1 - mean)).

    Examples
    --------
    >>> max_sd(2, 0.25), max_sd(4, 0.5)
    (0.25, 0.5)
    """
    m = check_users(m)
    mean = check_open_unit(mean, name="mean")
    ones, fraction = divmod(m * mean, 1.0)
    return float(np.sqrt(max((ones + fraction**2) / m - mean**2, 0.0)))


def _clipped(z: NDArray[np.float64], centre: float, scale: float) -> NDArray[np.float64]:
    return np.clip(centre + scale * z, 0.0, 1.0)


def _fit_clipped(z: NDArray[np.float64], mean: float, sd: float) -> NDArray[np.float64]:
    """clip(c + s z, 0, 1) with exact mean and SD: c solved inside, s outside."""

    def centre_for(scale: float) -> float:
        spread = scale * np.abs(z).max() + 1.0
        return brentq(lambda c: _clipped(z, c, scale).mean() - mean, -spread, spread + 1.0, xtol=1e-15)

    def excess(scale: float) -> float:
        return _clipped(z, centre_for(scale), scale).std() - sd

    high = sd
    while excess(high) < 0:
        high *= 2.0
        if high > 1e12:  # unreachable for sd below max_sd: the clipped limit is the extreme vertex
            raise RuntimeError(f"cannot reach sd {sd} at mean {mean}")
    scale = brentq(excess, sd, high, xtol=1e-15)
    return _clipped(z, centre_for(scale), scale)


def spread_effectiveness(
    m: int, *, mean: float, sd: float, random_state: int | np.random.Generator | None = None
) -> NDArray[np.float64]:
    """Continuous effectiveness in [0, 1] with exact sample mean and SD.

    Parameters
    ----------
    m : int
        Number of users, >= 2.
    mean : float in (0, 1)
        Exact mean of the returned values.
    sd : float
        Exact population SD (ddof=0), 0 <= sd <= :func:`max_sd` (m, mean).
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of shape (m,)
        float64 in [0, 1]; mean and SD exact to about 1e-12.

    Notes
    -----
    Values are drawn from the Beta law with this mean and variance and standardised to
    the exact mean and SD. Near the largest SD that standardisation can leave [0, 1];
    then x = clip(c + s z, 0, 1) with (c, s) solved by nested root finding, which piles
    a few users at 0 and 1 (as real P@k does). sd = max_sd gives the extreme vertex:
    users at 0 and 1 and at most one in between.

    Examples
    --------
    >>> x = spread_effectiveness(1000, mean=0.3, sd=0.2, random_state=0)
    >>> round(float(x.mean()), 12), round(float(x.std()), 12)
    (0.3, 0.2)
    >>> spread_effectiveness(2, mean=0.2, sd=0.3)
    Traceback (most recent call last):
    ...
    ValueError: sd must be <= 0.2 (the largest SD of 2 values in [0, 1] with mean 0.2), got 0.3
    """
    m = check_users(m)
    mean = check_open_unit(mean, name="mean")
    sd = check_nonnegative_scalar(sd, name="sd")
    limit = max_sd(m, mean)
    if sd > limit * (1.0 + 1e-12):
        raise ValueError(
            f"sd must be <= {limit:.6g} (the largest SD of {m} values in [0, 1] with mean {mean:g}), got {sd!r}"
        )
    rng = check_random_state(random_state)
    if sd == 0.0:
        return np.full(m, mean)
    if sd >= limit * (1.0 - 1e-9):
        ones, fraction = divmod(m * mean, 1.0)
        vertex = np.zeros(m)
        vertex[: int(ones)] = 1.0
        vertex[int(ones) if int(ones) < m else m - 1] += fraction
        return vertex[rng.permutation(m)]
    variance = sd * sd  # may underflow to 0 for a tiny sd: then any narrow Beta will do
    concentration = min(max(mean * (1.0 - mean) / variance - 1.0, 1.0), 1e12) if variance > 0 else 1e12
    z = rng.beta(mean * concentration, (1.0 - mean) * concentration, size=m)
    if np.unique(z).size < m:
        # Draws that underflow to equal values would move together under clipping and
        # keep the SD below its maximum; a tiny jitter separates them.
        z = z + 1e-6 * (z.std() + 1e-3) * rng.standard_normal(m)
    z = (z - z.mean()) / z.std()
    values = mean + sd * z
    if values.min() >= 0.0 and values.max() <= 1.0:
        return values
    return _fit_clipped(z, mean, sd)
