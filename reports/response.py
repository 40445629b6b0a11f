"""Trend labels: what a measure's curve does along a sweep, and how two pairings compare.

A sweep moves one generator parameter; each measure's curve is its mean over
seeds at every value. :func:`trend` names what that curve does against the x
axis, in a closed vocabulary (:data:`TRENDS`) a reader checks against the plot:

``flat``
    the curve's total change (max − min over its defined points) is within the
    tolerance, ``ATOL`` absolute or ``RTOL`` of its largest magnitude, whichever is
    larger;
``rising``, ``falling``
    it moves one way only (a move counts once it passes the tolerance, so a slow
    steady rise is a rise and noise within the tolerance is no move);
``rising then flat``, ``flat then rising``, ``falling then flat``, ``flat then falling``
    one way, with at least two steps within the tolerance at the end or start;
``rising then falling``, ``falling then rising``
    one turn (the text names where the curve peaks or bottoms out);
``non-monotone``
    more than one turn;
``undefined``
    fewer than two defined points.

Undefined points (NaN) are left out of the trend and listed on their own.
:func:`contrast` compares the most unfair pairing with the most fair one point
by point; :func:`label_table`, :func:`sweep_responses` and
:func:`pairing_contrasts` apply both to a tidy sweep table, and :func:`condition`
writes a crossed setting's level as tables show it.
"""

from __future__ import annotations

__all__ = [
    "ATOL",
    "RTOL",
    "TRENDS",
    "Contrast",
    "trend",
    "contrast",
    "label_table",
    "sweep_responses",
    "pairing_contrasts",
    "condition",
]

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    import pandas as pd

    from .sweeps import BuiltinSweep

#: Absolute flatness tolerance of a curve's total change.
ATOL = 1e-9
#: Relative flatness tolerance: a share of the curve's largest magnitude.
RTOL = 0.02
#: The words :func:`trend` starts with.
TRENDS = (
    "flat",
    "rising",
    "falling",
    "rising then flat",
    "flat then rising",
    "falling then flat",
    "flat then falling",
    "rising then falling",
    "falling then rising",
    "non-monotone",
    "undefined",
)
_WORD = {1: "rising", -1: "falling"}


def _tolerance(curve: NDArray[np.float64], atol: float, rtol: float) -> float:
    return max(atol, rtol * float(np.max(np.abs(curve))))


def _moves(curve: NDArray[np.float64], tolerance: float) -> list[tuple[int, int]]:
    """(direction, index of its extreme) of each move: a move begins once the curve passes the tolerance.

    Hysteresis rather than step signs: a slow rise of many small steps is one rise,
    and a wiggle within the tolerance is no turn.
    """
    moves: list[tuple[int, int]] = []
    low = high = 0
    for i in range(1, curve.size):
        if not moves:
            low = i if curve[i] < curve[low] else low
            high = i if curve[i] > curve[high] else high
            if curve[i] - curve[low] > tolerance:
                moves.append((1, i))
            elif curve[high] - curve[i] > tolerance:
                moves.append((-1, i))
            continue
        direction, extreme = moves[-1]
        if direction * (curve[i] - curve[extreme]) >= 0:
            moves[-1] = (direction, i)
        elif direction * (curve[extreme] - curve[i]) > tolerance:
            moves.append((-direction, i))
    return moves


def _still(curve: NDArray[np.float64], tolerance: float) -> tuple[int, int]:
    """How many steps at the start and at the end are a flat stretch (0 when fewer than two).

    A stretch is flat when it stays within the tolerance of its end point and moves, per
    step, less than a quarter of the curve's mean step: a slow steady rise has no flat end.
    """
    rate = float(np.ptp(curve)) / (curve.size - 1)

    def stretch(values: NDArray[np.float64]) -> int:
        steps = int(np.argmax(np.abs(values - values[0]) > tolerance)) - 1
        while steps >= 2 and abs(values[steps] - values[0]) > rate * steps / 4:
            steps -= 1
        return steps if steps >= 2 else 0

    return stretch(curve), stretch(curve[::-1])


def _plateau(x: NDArray[np.float64], curve: NDArray[np.float64], turn: int, tolerance: float, fmt: str) -> str:
    """Where a curve turns: "at X", or "from X to Y" across a plateau (0, 1, 1, ..., 1, 0)."""
    near = np.abs(curve - curve[turn]) <= tolerance / 2
    low = high = turn
    while low > 0 and near[low - 1]:
        low -= 1
    while high < curve.size - 1 and near[high + 1]:
        high += 1
    if low == high:
        return f"at {fmt.format(x[turn])}"
    return f"from {fmt.format(x[low])} to {fmt.format(x[high])}"


def trend(x: ArrayLike, curve: ArrayLike, *, atol: float = ATOL, rtol: float = RTOL, fmt: str = "{:g}") -> str:
    """Name what a curve does against its x axis (one of :data:`TRENDS`, with where it turns).

    Parameters
    ----------
    x, curve : array-like of shape (n,)
        The sweep values (increasing) and the mean curve; NaN points are left out.
    atol, rtol : float
        Flatness tolerance: a change within ``max(atol, rtol * max|curve|)`` is no change.
    fmt : str
        Format of an x value in the text (e.g. ``"{:.0%}"`` for a share).

    Returns
    -------
    str
        A word of :data:`TRENDS`; a turn adds where (``"rising then falling (highest at
        50%)"``), a flat stretch where it begins or ends (``"rising then flat (from 10%)"``).

    Examples
    --------
    >>> p = [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> trend(p, [0.0, 0.25, 0.5, 0.75, float("nan")])  # Gini = p, undefined at p = 1
    'rising'
    >>> trend(p, [0.0, 1.0, 1.0, 1.0, 1.0], fmt="{:.0%}")
    'rising then flat (from 25%)'
    >>> trend(p, [0.0, 0.43, 0.5, 0.43, 0.0], fmt="{:.0%}")
    'rising then falling (highest at 50%)'
    >>> trend(p, [3.0, 3.0, 3.01, 3.0, 3.0]), trend(p, [1.0, 2.0, 1.0, 2.0, 1.0])
    ('flat', 'non-monotone')
    """
    x = np.asarray(x, dtype=np.float64)
    curve = np.asarray(curve, dtype=np.float64)
    if x.shape != curve.shape or x.ndim != 1:
        raise ValueError(f"x and curve must be 1-D of one length, got {x.shape} and {curve.shape}")
    keep = np.isfinite(curve)
    x, curve = x[keep], curve[keep]
    if curve.size < 2:
        return "undefined"
    tolerance = _tolerance(curve, atol, rtol)
    if np.ptp(curve) <= tolerance:
        return "flat"
    moves = _moves(curve, tolerance)
    if len(moves) == 2:
        (first, turn), (second, _) = moves
        where = "highest" if first == 1 else "lowest"
        return f"{_WORD[first]} then {_WORD[second]} ({where} {_plateau(x, curve, turn, tolerance, fmt)})"
    if len(moves) > 2:
        return "non-monotone"
    word = _WORD[moves[0][0]]
    start, end = _still(curve, tolerance)
    if end >= 2:
        return f"{word} then flat (from {fmt.format(x[-1 - end])})"
    if start >= 2:
        return f"flat then {word} (from {fmt.format(x[start])})"
    return word


@dataclass(frozen=True)
class Contrast:
    """How the most unfair pairing's curve compares with the most fair one's.

    Attributes
    ----------
    verdict : str
        ``"unfair above"``, ``"no difference"`` (the mean gap within the tolerance),
        ``"unfair below"`` or ``"undefined"`` (no point defined under both).
    gap : float
        Mean of most_unfair − most_fair over the points defined under both.
    above : int
        Points where most_unfair is higher by more than the tolerance.
    points : int
        Points defined under both pairings.
    tolerance : float
        The tolerance that applied.

    Examples
    --------
    >>> str(Contrast("unfair above", 0.02, 9, 11, 1e-4))
    'unfair above at 9 of 11 points (mean gap 0.02)'
    """

    verdict: str
    gap: float
    above: int
    points: int
    tolerance: float

    def __str__(self) -> str:
        return f"{self.verdict} at {self.above} of {self.points} points (mean gap {self.gap:.3g})"


def contrast(fair: ArrayLike, unfair: ArrayLike, *, atol: float = ATOL, rtol: float = RTOL) -> Contrast:
    """Compare a most-unfair curve with the most-fair one of the same populations, point by point.

    A measure that reads similarity and effectiveness together should score the
    unfair pairing (similar users with unequal effectiveness) higher; a measure
    blind to similarity cannot tell them apart.

    Parameters
    ----------
    fair, unfair : array-like of shape (n,)
        Mean curves under each pairing; points NaN under either are left out.
    atol, rtol : float
        Tolerance, as in :func:`trend`, on the mean gap and on each point's gap.

    Returns
    -------
    Contrast

    Examples
    --------
    >>> contrast([0.0, 0.1, 0.2], [0.0, 0.3, 0.5]).verdict
    'unfair above'
    >>> contrast([0.4, 0.4], [0.4, 0.4]).verdict
    'no difference'
    """
    fair = np.asarray(fair, dtype=np.float64)
    unfair = np.asarray(unfair, dtype=np.float64)
    keep = np.isfinite(fair) & np.isfinite(unfair)
    if not keep.any():
        return Contrast("undefined", float("nan"), 0, 0, float("nan"))
    gap = unfair[keep] - fair[keep]
    tolerance = _tolerance(np.concatenate([fair[keep], unfair[keep]]), atol, rtol)
    mean = float(gap.mean())
    verdict = "no difference" if abs(mean) <= tolerance else "unfair above" if mean > 0 else "unfair below"
    return Contrast(verdict, mean, int((gap > tolerance).sum()), int(keep.sum()), tolerance)


def label_table(
    table: pd.DataFrame,
    *,
    by: Sequence[str] = ("measure",),
    skip: Collection[str] = (),
    atol: float = ATOL,
    rtol: float = RTOL,
    x_format: str = "{:g}",
) -> pd.DataFrame:
    """The trend of every curve of a tidy sweep table.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``measure, value, seed, score`` (plus any ``by`` columns).
    by : tuple of str
        Columns that identify one curve.
    skip : collection of str
        Measure labels not to label (reference curves such as mean effectiveness).
    atol, rtol : float
        Flatness tolerance, as in :func:`trend`.
    x_format : str
        Format of an x value in the text.

    Returns
    -------
    pandas.DataFrame
        ``by`` columns, then ``trend`` (:func:`trend`), ``undefined_at`` (the x values
        where the mean is NaN, or ""), ``change`` (max − min of the mean curve) and
        ``tolerance``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"measure": ["Gini"] * 3 + ["UF"] * 3, "value": [0.0, 0.5, 1.0] * 2,
    ...                   "seed": 0, "score": [0.0, 0.5, float("nan"), 2.0, 2.0, 2.0]})
    >>> label_table(t)[["measure", "trend", "undefined_at", "change"]]
      measure   trend undefined_at  change
    0    Gini  rising            1     0.5
    1      UF    flat                  0.0
    """
    import pandas as pd

    rows = []
    for key, curve in table.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        if dict(zip(by, key)).get("measure") in skip:
            continue
        means = curve.groupby("value", sort=True)["score"].mean()
        x, y = means.index.to_numpy(dtype=float), means.to_numpy(dtype=float)
        defined = np.isfinite(y)
        words = trend(x, y, atol=atol, rtol=rtol, fmt=x_format)
        missing = ", ".join(x_format.format(v) for v in x[~defined])
        change = float(np.ptp(y[defined])) if defined.any() else float("nan")
        tolerance = _tolerance(y[defined], atol, rtol) if defined.any() else float("nan")
        rows.append(key + (words, missing, change, tolerance))
    return pd.DataFrame(rows, columns=list(by) + ["trend", "undefined_at", "change", "tolerance"])


def sweep_responses(
    spec: BuiltinSweep, table: pd.DataFrame, *, skip: Collection[str] = ("P@k", "NDCG@k")
) -> pd.DataFrame:
    """The trend of every curve of one built-in sweep (measure, and level of the crossed setting).

    Parameters
    ----------
    spec : reports.sweeps.BuiltinSweep
        Gives ``name``, ``parameter`` and ``cross``.
    table : pandas.DataFrame
        The sweep's output.
    skip : collection of str
        Reference curves not labelled.

    Returns
    -------
    pandas.DataFrame
        ``sweep, measure, condition, trend, undefined_at, change, tolerance``.

    Examples
    --------
    >>> from puf.reports.sweeps import SWEEPS
    >>> import pandas as pd
    >>> t = pd.DataFrame({"measure": "UF", "parameter": "zero_relevance", "value": [0.0, 0.5, 1.0],
    ...                   "seed": 0, "score": 4.2})
    >>> sweep_responses(SWEEPS["zero_relevance"], t)[["measure", "trend"]].to_dict("records")
    [{'measure': 'UF', 'trend': 'flat'}]
    """
    by = ("measure",) if spec.cross is None else ("measure", spec.cross)
    x_format = "{:.0%}" if spec.parameter == "zero_relevance" else "{:g}"
    labels = label_table(table, by=by, skip=skip, x_format=x_format)
    labels["condition"] = "" if spec.cross is None else [condition(spec.cross, v) for v in labels[spec.cross]]
    labels.insert(0, "sweep", spec.name)
    return labels[["sweep", "measure", "condition", "trend", "undefined_at", "change", "tolerance"]]


def pairing_contrasts(
    spec: BuiltinSweep, table: pd.DataFrame, *, skip: Collection[str] = ("P@k", "NDCG@k")
) -> pd.DataFrame:
    """Per measure, the most unfair pairing against the most fair one over the whole sweep (:func:`contrast`).

    Returns
    -------
    pandas.DataFrame
        ``sweep, measure, verdict, gap, above, points``; empty when the sweep is not
        crossed with both pairings.

    Examples
    --------
    >>> from puf.reports.sweeps import SWEEPS
    >>> import pandas as pd
    >>> t = pd.DataFrame({"measure": "PUF-P", "pairing": ["most_fair"] * 2 + ["most_unfair"] * 2,
    ...                   "value": [0.0, 0.5] * 2, "seed": 0, "score": [0.0, 0.1, 0.0, 0.3]})
    >>> pairing_contrasts(SWEEPS["pairing"], t)[["measure", "verdict", "above", "points"]].to_dict("records")
    [{'measure': 'PUF-P', 'verdict': 'unfair above', 'above': 1, 'points': 2}]
    """
    import pandas as pd

    columns = ["sweep", "measure", "verdict", "gap", "above", "points"]
    if spec.cross != "pairing" or not {"most_fair", "most_unfair"} <= set(table["pairing"]):
        return pd.DataFrame(columns=columns)
    rows = []
    for measure, curve in table.groupby("measure", sort=False):
        if measure in skip:
            continue
        means = curve.groupby(["pairing", "value"])["score"].mean()
        got = contrast(means["most_fair"].to_numpy(), means["most_unfair"].to_numpy())
        rows.append((spec.name, measure, got.verdict, got.gap, got.above, got.points))
    return pd.DataFrame(rows, columns=columns)


def condition(setting: str, level: object) -> str:
    """How a level of a crossed setting is written in tables and legends (γ, never gamma).

    Examples
    --------
    >>> condition("gamma", 0.5), condition("pairing", "most_fair")
    ('γ = 0.5', 'pairing = most_fair')
    """
    name = {"gamma": "γ"}.get(setting, setting)
    return f"{name} = {level:g}" if isinstance(level, float) else f"{name} = {level}"
