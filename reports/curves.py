"""Response labels: does a measure's curve follow what the sweep changes?

A sweep moves one generator parameter; each measure's curve (its mean over
seeds at every value) is compared with the sweep's *driver*, the quantity the
parameter is meant to move (for the zero-relevance share p it is the planted
effectiveness disparity p(1 − p)). Four labels:

``flat``
    the curve's total change (max − min of the mean curve) is within the
    tolerance: ``ATOL`` absolute or ``RTOL`` of the curve's largest magnitude,
    whichever is larger;
``responds``
    not flat, and monotone in the expected direction: Spearman's rho between
    driver and curve has the expected sign and ``|rho| >= RHO_MIN``
    (any sign when no direction is expected);
``wrong direction``
    not flat, monotone, but against the expected direction;
``non-monotone``
    not flat and ``|rho| < RHO_MIN``.

A curve with fewer than two defined points is ``undefined``.

Ties in the driver (p and 1 − p plant the same disparity p(1 − p)) are handled
so that a curve that is an exact function of the driver gets rho = ±1: when the
curve agrees (within the tolerance) at every tied driver value, each tie is one
point; otherwise the raw points are ranked, ties sharing their mean rank.

Next to the label, :func:`shape` says in words what the curve itself does
against the x axis (rises, falls, peaks at ..., V-shaped, lowest at ...,
flat, irregular), so a reader can check the label against the plot.
"""

from __future__ import annotations

__all__ = ["ATOL", "RTOL", "RHO_MIN", "LABELS", "Response", "response", "shape", "contrast"]

from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr
from numpy.typing import ArrayLike, NDArray

#: Absolute flatness tolerance of a curve's total change.
ATOL = 1e-9
#: Relative flatness tolerance: a share of the curve's largest magnitude.
RTOL = 0.02
#: Smallest ``|rho|`` counted as monotone.
RHO_MIN = 0.8
#: The response labels a curve can get.
LABELS = ("responds", "flat", "wrong direction", "non-monotone", "undefined")


@dataclass(frozen=True)
class Response:
    """How one curve responds to a sweep.

    Attributes
    ----------
    label : str
        One of :data:`LABELS`.
    rho : float
        Spearman's rho between the driver and the mean curve (NaN when flat
        or undefined, where a rank correlation means nothing).
    change : float
        Total change: max − min of the mean curve over its defined points.
    tolerance : float
        The flatness tolerance that applied to this curve.

    Examples
    --------
    >>> str(Response("responds", 0.98, 0.25, 0.001))
    'responds (ρ = +0.98, change 0.25)'
    """

    label: str
    rho: float
    change: float
    tolerance: float

    def __str__(self) -> str:
        if self.label == "undefined":
            return self.label
        if self.label == "flat":
            return f"flat (change {self.change:.3g} ≤ {self.tolerance:.3g})"
        return f"{self.label} (ρ = {self.rho:+.2f}, change {self.change:.3g})"


def _tolerance(curve: NDArray[np.float64], atol: float, rtol: float) -> float:
    return max(atol, rtol * float(np.max(np.abs(curve))))


def response(
    driver: ArrayLike,
    curve: ArrayLike,
    *,
    expected: int = 1,
    atol: float = ATOL,
    rtol: float = RTOL,
    rho_min: float = RHO_MIN,
) -> Response:
    """Label how ``curve`` responds to ``driver``.

    Parameters
    ----------
    driver : array-like of shape (n,)
        The quantity the sweep moves, one value per sweep point.
    curve : array-like of shape (n,)
        The measure's mean over seeds at each point; NaN points (undefined
        values) are left out.
    expected : {1, -1, 0}, default 1
        Expected sign of the response: 1 means the measure should rise with
        the driver (more unfair), -1 fall, 0 either (no expectation, so no
        ``wrong direction`` label).
    atol, rtol : float
        Flatness tolerance: flat when ``max − min <= max(atol, rtol * max|curve|)``.
    rho_min : float, default 0.8
        Smallest ``|rho|`` counted as monotone.

    Returns
    -------
    Response

    Examples
    --------
    >>> p = [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> disparity = [x * (1 - x) for x in p]
    >>> response(disparity, [d ** 0.5 for d in disparity]).label
    'responds'
    >>> response(disparity, [0.3, 0.3, 0.3, 0.3, 0.3]).label
    'flat'
    >>> response(disparity, [0.5, 0.2, 0.0, 0.2, 0.5]).label
    'wrong direction'
    >>> response(disparity, [0.0, 0.25, 0.5, 0.75, float("nan")]).label  # Gini = p
    'non-monotone'
    """
    if expected not in (1, -1, 0):
        raise ValueError(f"expected must be 1, -1 or 0, got {expected!r}")
    driver = np.asarray(driver, dtype=np.float64)
    curve = np.asarray(curve, dtype=np.float64)
    if driver.shape != curve.shape or driver.ndim != 1:
        raise ValueError(f"driver and curve must be 1-D of one length, got {driver.shape} and {curve.shape}")
    keep = np.isfinite(curve)
    # p(1 − p) and (1 − p)p may differ in the last bit: equal to 12 digits is a tie.
    driver, curve = np.round(driver[keep], 12), curve[keep]
    if curve.size < 2:
        return Response("undefined", float("nan"), float("nan"), float("nan"))
    change = float(curve.max() - curve.min())
    tolerance = _tolerance(curve, atol, rtol)
    if change <= tolerance:
        return Response("flat", float("nan"), change, tolerance)
    if np.ptp(driver) == 0:
        return Response("non-monotone", float("nan"), change, tolerance)
    driver, curve = _merge_ties(driver, curve, tolerance)
    rho = float(spearmanr(driver, curve).statistic)
    if abs(rho) < rho_min:
        label = "non-monotone"
    elif expected == 0 or np.sign(rho) == expected:
        label = "responds"
    else:
        label = "wrong direction"
    return Response(label, rho, change, tolerance)


def _merge_ties(
    driver: NDArray[np.float64], curve: NDArray[np.float64], tolerance: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One point per tied driver value when the curve agrees there (a function of the driver)."""
    order = np.argsort(driver, kind="stable")
    driver, curve = driver[order], curve[order]
    unique, start = np.unique(driver, return_index=True)
    if unique.size == driver.size:
        return driver, curve
    groups = np.split(curve, start[1:])
    if all(np.ptp(g) <= tolerance for g in groups):
        return unique, np.array([g.mean() for g in groups])
    return driver, curve


def shape(x: ArrayLike, curve: ArrayLike, *, atol: float = ATOL, rtol: float = RTOL, fmt: str = "{:g}") -> str:
    """Describe a curve against its own x axis in words a reader checks against the plot.

    Parameters
    ----------
    x, curve : array-like of shape (n,)
        The sweep values and the mean curve; NaN points are left out (and named).
    atol, rtol : float
        Flatness tolerance, as in :func:`response`; a step smaller than it is no step.
    fmt : str
        Format of an x value in the text (e.g. ``"{:.0%}"`` for a share).

    Returns
    -------
    str
        ``flat``, ``rises``, ``falls``, ``peaks at X`` (rises, then falls),
        ``V-shaped, lowest at X`` (falls, then rises), or ``irregular``; then
        ``; undefined at X, ...`` when some points are NaN.

    Examples
    --------
    >>> p = [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> shape(p, [0.0, 0.43, 0.5, 0.43, 0.0], fmt="{:.0%}")
    'peaks at 50%'
    >>> shape(p, [0.0, 0.25, 0.5, 0.75, float("nan")], fmt="{:.0%}")
    'rises; undefined at 100%'
    >>> shape(p, [3.0, 2.0, 1.0, 2.0, 2.5])
    'V-shaped, lowest at 0.5'
    >>> shape(p, [1.0, 1.0, 1.0, 1.0, 1.0])
    'flat'
    """
    x = np.asarray(x, dtype=np.float64)
    curve = np.asarray(curve, dtype=np.float64)
    keep = np.isfinite(curve)
    missing = "" if keep.all() else "; undefined at " + ", ".join(fmt.format(v) for v in x[~keep])
    x, curve = x[keep], curve[keep]
    if curve.size < 2:
        return "undefined" if curve.size == 0 else "one defined point" + missing
    tolerance = _tolerance(curve, atol, rtol)
    if np.ptp(curve) <= tolerance:
        return "flat" + missing
    steps = np.diff(curve)
    signs = np.where(steps > tolerance / 2, 1, np.where(steps < -tolerance / 2, -1, 0))
    signs = signs[signs != 0]
    runs = [int(v) for i, v in enumerate(signs) if i == 0 or v != signs[i - 1]]
    words: dict[tuple[int, ...], str] = {(1,): "rises", (-1,): "falls"}
    if tuple(runs) in words:
        return words[tuple(runs)] + missing
    if runs == [1, -1]:
        return f"peaks at {fmt.format(x[np.argmax(curve)])}" + missing
    if runs == [-1, 1]:
        return f"V-shaped, lowest at {fmt.format(x[np.argmin(curve)])}" + missing
    return "irregular" + missing


def contrast(fair: ArrayLike, unfair: ArrayLike, *, atol: float = ATOL, rtol: float = RTOL) -> Response:
    """Label a paired comparison: is ``unfair`` above ``fair`` point by point?

    Used for the pairing sweep, where the same populations are paired most
    fairly and most unfairly: a measure that reads similarity and
    effectiveness together should score the unfair pairing higher.

    Parameters
    ----------
    fair, unfair : array-like of shape (n,)
        Mean curves under the fair and the unfair condition; NaN points are
        left out.
    atol, rtol : float
        Tolerance on the mean difference, as in :func:`response`.

    Returns
    -------
    Response
        ``rho`` is the share of defined points where ``unfair > fair`` (a sign
        agreement, not a correlation); ``change`` the mean of ``unfair − fair``.
        ``flat`` when ``|change|`` is within the tolerance; ``responds`` when
        positive, ``wrong direction`` when negative.

    Examples
    --------
    >>> contrast([0.0, 0.1, 0.2], [0.0, 0.3, 0.5]).label
    'responds'
    >>> contrast([0.4, 0.4], [0.4, 0.4]).label
    'flat'
    """
    fair = np.asarray(fair, dtype=np.float64)
    unfair = np.asarray(unfair, dtype=np.float64)
    keep = np.isfinite(fair) & np.isfinite(unfair)
    if not keep.any():
        return Response("undefined", float("nan"), float("nan"), float("nan"))
    gap = unfair[keep] - fair[keep]
    change = float(gap.mean())
    tolerance = _tolerance(np.concatenate([fair[keep], unfair[keep]]), atol, rtol)
    if abs(change) <= tolerance:
        return Response("flat", float("nan"), change, tolerance)
    share = float((gap > 0).mean())
    return Response("responds" if change > 0 else "wrong direction", share, change, tolerance)
