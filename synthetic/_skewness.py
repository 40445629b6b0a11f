"""Exact control of a sample's skewness: draw once, then solve a one-parameter transform.

A base sample ``w`` is drawn from the family; ``T_theta(w) = (exp(theta * w) - 1) / theta``
(``T_0(w) = w``) is a convex transform for ``theta > 0`` and a concave one for ``theta < 0``,
so the sample skewness of ``T_theta(w)`` increases monotonically in ``theta`` (van Zwet's
convex ordering), from ``-B`` as ``theta -> -inf`` to ``+B`` as ``theta -> +inf``, with
``B = (N - 2) / sqrt(N - 1)`` the largest skewness any N values can have. The root
``theta`` at which the *sample* skewness equals the target is found on a subsample and
refined on the whole sample. Skewness is invariant under affine maps, so the final
affine map can then set the mean exactly, without touching the skewness.
"""

from __future__ import annotations

__all__ = [
    "FAMILIES",
    "MAX_SKEWNESS",
    "check_family",
    "check_skewness",
    "skewness_bound",
    "sample_skewness",
    "shape_at_mean",
    "solved_shape",
    "skewed_sample",
    "skewed_shape",
    "sorted_skewed_sample",
]

from typing import Any
from collections.abc import Callable
import numbers

import numpy as np
from scipy.optimize import brentq
from numpy.typing import ArrayLike, NDArray

MAX_SKEWNESS = 10.0
_SHARE_OF_LIMIT = 0.75  # of (N-2)/sqrt(N-1): stays clear of the one-outlier limit
_CHUNK = 1 << 18  # elements per pass: keeps the temporaries at 2 MB
_SUBSAMPLE = 1 << 17
_TOLERANCE = 1e-6  # on the achieved sample skewness
_MAX_THETA = 2.0**40


def _draw_beta(rng: np.random.Generator, n: int) -> NDArray[np.float64]:
    # log of a uniform: exp(theta * w) = U**theta ~ Beta(1/theta, 1), a J-shaped law on [0, 1].
    w = rng.standard_exponential(n)
    return np.negative(w, out=w)  # in place: at m = 10,000 a copy is 400 MB


def _draw_lognormal(rng: np.random.Generator, n: int) -> NDArray[np.float64]:
    return rng.standard_normal(n)


# name -> (draw base sample, mirror): a mirrored family solves for |skewness| and negates,
# so a negative target gives the mirror image Beta(1, a) instead of a Pareto-like tail.
FAMILIES = {"beta": (_draw_beta, True), "lognormal": (_draw_lognormal, False)}


def skewness_bound(n: int) -> float:
    """Half-width of the achievable skewness interval for ``n`` values (0 when n <= 2)."""
    if n <= 2:
        return 0.0
    return float(min(MAX_SKEWNESS, _SHARE_OF_LIMIT * (n - 2) / np.sqrt(n - 1)))


def check_family(family: str) -> tuple[Callable[[np.random.Generator, int], NDArray[np.float64]], bool]:
    """Return the registry entry of ``family`` or raise ValueError listing the known ones."""
    try:
        return FAMILIES[family]
    except (KeyError, TypeError):
        raise ValueError(f"unknown family {family!r}; known: {', '.join(sorted(FAMILIES))}") from None


def check_skewness(skewness: float, n: int, *, what: str) -> float:
    """Return ``skewness`` as a float inside the achievable interval for ``n`` values."""
    if isinstance(skewness, bool) or not isinstance(skewness, numbers.Real) or not np.isfinite(skewness):
        raise ValueError(f"skewness must be a finite real number, got {skewness!r}")
    bound = skewness_bound(n)
    if abs(skewness) > bound + 1e-12:
        raise ValueError(
            f"skewness {skewness!r} is unreachable for {what}: the achievable interval is "
            f"[{0.0 - bound:.6g}, {bound:.6g}] (|skewness| <= min({MAX_SKEWNESS:g}, 0.75 (N-2)/sqrt(N-1)) "
            f"for N = {n} values, whatever the mean)"
        )
    return float(skewness)


def _transform(theta: float, w: NDArray[np.float64], out: NDArray[np.float64], lowest: float) -> NDArray[np.float64]:
    """Write an increasing affine image of T_theta(w) into ``out``; ``w`` is <= 0 with max 0."""
    if theta > 0:
        np.multiply(w, theta, out=out)
        np.expm1(out, out=out)  # in (-1, 0]: no overflow, and exact near theta = 0
    elif theta < 0:
        np.subtract(w, lowest, out=out)
        out *= theta
        np.expm1(out, out=out)
        np.negative(out, out=out)
    else:
        out[...] = w
    return out


def _moments(
    theta: float, w: NDArray[np.float64], lowest: float, keep: NDArray[np.float64] | None = None
) -> tuple[float, float, float, float, float]:
    """(mean, m2, m3, min, max) of T_theta(w) in cache-sized passes; ``keep`` receives the values."""
    n = w.shape[0]
    buffer = np.empty(min(n, _CHUNK))
    sums = np.zeros(3)
    centre = None
    low, high = np.inf, -np.inf
    for start in range(0, n, _CHUNK):
        part = w[start : start + _CHUNK]
        values = _transform(theta, part, buffer[: part.shape[0]], lowest)
        if keep is not None:
            keep[start : start + part.shape[0]] = values
        low, high = min(low, values.min()), max(high, values.max())
        if centre is None:
            centre = values.mean()  # moments about a near-mean centre avoid cancellation
        values -= centre
        # einsum, not np.dot: BLAS threads cost far more than they save on short vectors
        sums += (values.sum(), np.einsum("i,i->", values, values), np.einsum("i,i,i->", values, values, values))
    d = sums[0] / n
    m2 = sums[1] / n - d * d
    m3 = sums[2] / n - 3.0 * d * sums[1] / n + 2.0 * d**3
    return centre + d, max(m2, 0.0), m3, low, high


def sample_skewness(values: ArrayLike) -> float:
    """Fisher-Pearson sample skewness m3 / m2**1.5 of all values (0 if they are constant).

    Parameters
    ----------
    values : array-like
        Flattened; e.g. :func:`synthetic.off_diagonal` of a similarity matrix.

    Returns
    -------
    float
        As ``scipy.stats.skew(values, bias=True)``, computed in cache-sized passes.

    Examples
    --------
    >>> round(sample_skewness([0.0, 0.0, 0.0, 1.0]), 6)
    1.154701
    """
    values = np.asarray(values, dtype=np.float64).ravel()
    if values.size == 0:
        return 0.0
    low = values.min()
    _, m2, m3, _, _ = _moments(0.0, values - values.max(), low - values.max())
    if m2 <= 1e-300 or values.max() == low:
        return 0.0
    return float(m3 / m2**1.5)


def _skewness(stats: tuple[float, float, float, float, float]) -> float:
    _, m2, m3, _, _ = stats
    return m3 / m2**1.5 if m2 > 0 else 0.0


def _skew_of(theta: float, w: NDArray[np.float64], lowest: float) -> float:
    return _skewness(_moments(theta, w, lowest))


def _bracket(g: Callable[[float], float], start: float = 0.0) -> tuple[float, float]:
    """Return (a, b) with g(a) <= 0 <= g(b), expanding geometrically from ``start``."""
    value = g(start)
    if value == 0:
        return start, start
    step = 1.0 if start == 0 else 0.05 * max(1.0, abs(start))
    while step < _MAX_THETA:
        probe = start + step if value < 0 else start - step
        if np.sign(g(probe)) != np.sign(value):
            return (start, probe) if value < 0 else (probe, start)
        start, step = probe, step * 2.0
    raise RuntimeError("sample skewness could not be bracketed; the target is too extreme")


def _root(g: Callable[[float], float], a: float, b: float) -> float:
    """Root of g in [a, b]; stops as soon as |g| < tolerance (Brent's method returns at g = 0)."""
    if a == b:
        return a

    def stopping(theta: float) -> float:
        value = g(theta)
        return 0.0 if abs(value) < _TOLERANCE else value

    return brentq(stopping, a, b, xtol=1e-15, rtol=1e-15, maxiter=200)


def _solve(
    w: NDArray[np.float64], target: float, lowest: float, keep: NDArray[np.float64]
) -> tuple[float, tuple[float, float, float, float, float]]:
    """theta such that the sample skewness of T_theta(w) equals ``target``.

    Returns theta and the moments of T_theta(w), whose values are left in ``keep``.
    """
    # The closures reach the arrays only through ``arrays``, emptied on exit: scipy's
    # brentq wraps its callable in a reference cycle, which would otherwise keep
    # hundreds of MB alive until the next garbage collection.
    arrays = {"w": w, "keep": keep}
    last: dict[str, Any] = {}

    def full(theta: float) -> float:
        last["theta"], last["stats"] = theta, _moments(theta, arrays["w"], lowest, arrays["keep"])
        return _skewness(last["stats"]) - target

    def partial(theta: float) -> float:
        return _skew_of(theta, arrays["sub"], arrays["sub_lowest"]) - target

    try:
        return _search(w.shape[0], full, partial, arrays, last)
    finally:
        arrays.clear()


def _search(
    n: int,
    full: Callable[[float], float],
    partial: Callable[[float], float],
    arrays: dict[str, Any],
    last: dict[str, Any],
) -> tuple[float, tuple[float, float, float, float, float]]:
    start = 0.0
    if n > 4 * _SUBSAMPLE:
        arrays["sub"] = arrays["w"][:_SUBSAMPLE]  # the draws are iid: a prefix is a random subsample
        arrays["sub_lowest"] = arrays["sub"].min()
        theta = _root(partial, *_bracket(partial))
        h = 1e-4 * max(1.0, abs(theta))
        slope = (partial(theta + h) - partial(theta - h)) / (2 * h)
        # Secant steps on the full sample, the first with the subsample's slope: the two
        # curves differ by sampling noise only, so three full passes (each O(N)) usually do.
        previous = None
        for _ in range(8):
            value = full(theta)
            if abs(value) < _TOLERANCE:
                return theta, last["stats"]
            if previous is not None and value != previous[1]:
                slope = (value - previous[1]) / (theta - previous[0])
            if not np.isfinite(slope) or slope <= 0:
                break
            previous = (theta, value)
            theta -= value / slope
        start = theta
    theta = _root(full, *_bracket(full, start))
    if last["theta"] != theta:
        full(theta)
    return theta, last["stats"]


def skewed_shape(
    n: int, skewness: float, mean: float, family: str, rng: np.random.Generator
) -> tuple[float, float, float, float | None] | None:
    """What maps the family's base draw onto :func:`skewed_sample`'s values: (theta, lowest, centre, spread).

    Draws the base sample from ``rng`` exactly as :func:`skewed_sample` does and
    solves for theta on it; ``spread`` is None when the values are all ``mean``.
    """
    return shape_at_mean(solved_shape(n, skewness, family, rng), skewness, mean, family)


def solved_shape(
    n: int, skewness: float, family: str, rng: np.random.Generator
) -> tuple[float, float, float, float, float] | None:
    """The part of :func:`skewed_shape` that no mean changes: (theta, lowest, centre, low, high), or None for n = 1.

    Draws the base sample from ``rng`` as :func:`skewed_shape` does; :func:`shape_at_mean`
    finishes it for a mean, so samples of one draw at several means solve for theta once.
    """
    draw, mirror = FAMILIES[family]
    w = draw(rng, n)
    if n == 1:
        return None
    target = abs(skewness) if mirror else skewness
    w -= w.max()  # T_theta is then evaluated on (-inf, 0]: exp never overflows
    lowest = w.min()
    theta, (centre, _, _, low, high) = _solve(w, target, lowest, None)
    del w
    return theta, lowest, centre, low, high


def shape_at_mean(
    solved: tuple[float, float, float, float, float] | None, skewness: float, mean: float, family: str
) -> tuple[float, float, float, float | None] | None:
    """:func:`skewed_shape` from its :func:`solved_shape` and the mean."""
    if solved is None:
        return None
    theta, lowest, centre, low, high = solved
    return theta, lowest, *_affine(centre, low, high, FAMILIES[family][1] and skewness < 0, mean)


def _affine(centre: float, low: float, high: float, negate: bool, mean: float) -> tuple[float, float | None]:
    """(centre, spread) of the final affine map; spread None when every value is the mean."""
    if negate:
        centre, low, high = -centre, -high, -low
    spread = min(
        mean / (centre - low) if centre > low else np.inf,
        (1.0 - mean) / (high - centre) if high > centre else np.inf,
    )
    return centre, (spread if np.isfinite(spread) else None)


def _finish(
    values: NDArray[np.float64], negate: bool, centre: float, spread: float, mean: float
) -> NDArray[np.float64]:
    """The affine map (in place) that sets the mean with the widest spread inside [0, 1]."""
    if negate:
        np.negative(values, out=values)
    values -= centre
    values *= spread
    values += mean
    return np.clip(values, 0.0, 1.0, out=values)


def sorted_skewed_sample(
    ordered: NDArray[np.float64],
    shape: tuple[float, float, float, float | None] | None,
    skewness: float,
    mean: float,
    family: str,
) -> NDArray[np.float64]:
    """``np.sort(skewed_sample(...))`` from the base draw sorted once (``ordered``) and its :func:`skewed_shape`.

    The map from a base value to its sample value is increasing (decreasing for
    a mirrored negative target), so it is applied to the sorted base draw;
    should rounding ever break the order, the values are sorted.
    """
    n = ordered.shape[0]
    if shape is None:
        return np.full(n, mean)
    theta, lowest, centre, spread = shape
    if spread is None:
        return np.full(n, mean)
    negate = FAMILIES[family][1] and skewness < 0
    values = _finish(_transform(theta, ordered, np.empty(n), lowest), negate, centre, spread, mean)
    if negate:
        values = values[::-1].copy()
    if n > 1 and bool((values[1:] < values[:-1]).any()):
        values.sort()
    return values


def skewed_sample(n: int, skewness: float, mean: float, family: str, rng: np.random.Generator) -> NDArray[np.float64]:
    """n values in [0, 1] with sample mean ``mean`` and sample skewness ``skewness``.

    The affine map uses the widest spread that keeps every value in [0, 1], so the
    result touches 0 or 1. Arguments are assumed checked by the caller.
    """
    draw, mirror = FAMILIES[family]
    w = draw(rng, n)
    if n == 1:
        return np.full(1, mean)
    target = abs(skewness) if mirror else skewness
    w -= w.max()  # T_theta is then evaluated on (-inf, 0]: exp never overflows
    lowest = w.min()
    values = np.empty(n)
    _, (centre, _, _, low, high) = _solve(w, target, lowest, values)
    del w
    negate = mirror and skewness < 0
    centre, spread = _affine(centre, low, high, negate, mean)
    if spread is None:
        return np.full(n, mean)
    return _finish(values, negate, centre, spread, mean)
