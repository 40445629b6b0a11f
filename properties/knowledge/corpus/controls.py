"""Sound controls: independent implementations of the built-in measures (and two harmless
variants), whose true verdicts are those of the measure they implement. A control flagged on
a property the original satisfies is a false alarm of the harness."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..known import load_known
from .planting import envy, planted


def _puf_double_loop(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    m = len(effectiveness)
    total = 0.0
    for u in range(m):
        for v in range(u + 1, m):
            total += similarity[u, v] * abs(effectiveness[u] - effectiveness[v])
    return 2.0 * total / (m * (m - 1))


def _puf_ordered_pairs(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    weights = np.array(similarity, dtype=np.float64)
    np.fill_diagonal(weights, 0.0)
    m = len(s)
    return float((weights * np.abs(s[:, None] - s[None, :])).sum() / (m * (m - 1)))


def _half_puf(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return 0.5 * _puf_ordered_pairs(effectiveness, similarity)


def _sd_by_hand(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return float(np.sqrt(np.mean((s - s.mean()) ** 2)))


def _variance(effectiveness: NDArray[np.float64]) -> float:
    return float(np.var(effectiveness))


def _mean_absolute_deviation(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return float(np.mean(np.abs(s - s.mean())))


def _gini_mean_difference(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    if s.sum() == 0:
        return float("nan")
    return float(np.abs(s[:, None] - s[None, :]).mean() / (2.0 * s.mean()))


def _theil_by_hand(effectiveness):
    s = np.asarray(effectiveness, dtype=np.float64)
    mu = s.mean()
    if mu == 0:
        return float("nan")
    x = s / mu
    terms = np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0)), 0.0)  # 0 · ln 0 = 0
    return max(float(terms.mean()), 0.0)  # ≥ 0 by Jensen; rounding alone dips below at equality


def _mean_envy_loop(utility: NDArray[np.float64]) -> float:
    m = len(utility)
    total = sum(max(utility[u][v] - utility[u][u], 0.0) for u in range(m) for v in range(m) if u != v)
    return total / (m * (m - 1))


def _mean_max_envy_by_rows(utility: NDArray[np.float64]) -> float:
    return float(np.mean([row.max() for row in envy(utility)]))


def _envious_share(utility: NDArray[np.float64]) -> float:
    return float(np.mean([row.max() > 0.05 for row in envy(utility)]))


def _row(name: str) -> dict[str, str]:
    known = load_known(name)
    if known is None:
        raise ValueError(f"no known file for measure {name!r}")
    return known["verdicts"]


_HOOVER_LIKE = ("strict-transfer", "subgroup-consistency")


#: The sound controls: measures whose true verdicts are known, for the false-alarm rate.
CONTROLS = [
    planted(
        _puf_double_loop, family="control", expected=_row("puf"), control=True, flaw="PUF as a double loop over pairs"
    ),
    planted(
        _puf_ordered_pairs, family="control", expected=_row("puf"), control=True, flaw="PUF over ordered pairs, halved"
    ),
    planted(_half_puf, family="control", expected=_row("puf"), control=True, flaw="PUF / 2 (a harmless rescaling)"),
    planted(
        _sd_by_hand, family="control", expected=_row("sd"), control=True, flaw="SD as the root mean squared deviation"
    ),
    planted(
        _variance,
        family="control",
        expected={**_row("sd"), "subgroup-decomposability": "holds"},
        control=True,
        flaw="variance of S (the verdicts of SD, but additively decomposable)",
    ),
    planted(
        _mean_absolute_deviation,
        family="control",
        control=True,
        expected={**_row("sd"), **{p: "violated" for p in _HOOVER_LIKE}},
        flaw="mean absolute deviation from the mean (the verdicts of SD, but blind to transfers "
        "on one side of the mean and not consistent by subgroups, as Hoover)",
    ),
    planted(
        _gini_mean_difference,
        family="control",
        expected=_row("gini"),
        control=True,
        flaw="Gini as the mean absolute difference over twice the mean",
    ),
    planted(
        _theil_by_hand,
        family="control",
        range=(0.0, float("inf")),
        expected=_row("ge-1"),
        control=True,
        flaw="Theil's T as the mean of (S/μ)·ln(S/μ), 0 · ln 0 = 0 (the one control whose transfer-sensitivity holds)",
    ),
    planted(
        _mean_envy_loop, family="control", expected=_row("me"), control=True, flaw="ME as a loop over ordered pairs"
    ),
    planted(
        _mean_max_envy_by_rows,
        family="control",
        expected=_row("mme"),
        control=True,
        flaw="MME as the mean of row maxima",
    ),
    planted(
        _envious_share,
        family="control",
        expected=_row("peu"),
        control=True,
        flaw="PEU as a share of rows whose max envy exceeds 0.05",
    ),
]
