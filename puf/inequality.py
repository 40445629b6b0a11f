"""Relative inequality indices of per-user effectiveness: the field's measures that read S alone.

Every index here reads ``effectiveness`` only (so it ignores who is similar to
whom), is unchanged when every S is multiplied by the same factor, and lower is
fairer (variance, the mean difference and max-min are in :mod:`puf.dispersion`).
μ is the mean of S over the m users. An index that
divides by μ (or by a geometric mean) is undefined when that is 0: it returns
NaN with :class:`~puf.UndefinedMeasureWarning`, as :func:`puf.gini` does.
"""

from __future__ import annotations

__all__ = [
    "generalized_entropy",
    "atkinson",
    "coefficient_of_variation",
    "jain_unfairness",
    "hoover",
]

import numbers

import numpy as np
from numpy.typing import ArrayLike

from .metadata import FAMILIES, NONNEGATIVE, measure
from .validation import check_effectiveness, check_nonnegative_scalar, undefined

_INEQUALITY = FAMILIES[0]


def _ratios(effectiveness, name):
    """S/μ, or None (after warning) when μ = 0."""
    mean = effectiveness.mean()
    if mean == 0.0:
        undefined(f"{name} is undefined when every effectiveness value is 0 (mean 0)")
        return None
    return effectiveness / mean


def _check_real(value, *, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


@measure(
    label="GE",
    family=_INEQUALITY,
    range=NONNEGATIVE,
    reference="Shorrocks 1980",
    definition="GE(α) = 1/(m α(α−1)) Σ [(S/μ)^α − 1]; undefined when μ = 0",
    instances=[
        dict(
            name="ge-0",
            label="GE-0",
            options={"alpha": 0.0},
            attainable="[0, ∞)",
            definition="mean log deviation −(1/m) Σ ln(S/μ); undefined when μ = 0 or some S = 0",
        ),
        dict(
            name="ge-1",
            label="GE-1",
            options={"alpha": 1.0},
            attainable="[0, ln m]",
            definition="Theil T (1/m) Σ (S/μ) ln(S/μ), 0·ln 0 = 0; undefined when μ = 0",
        ),
        dict(
            name="ge-2",
            label="GE-2",
            options={"alpha": 2.0},
            attainable="[0, (m−1)/2]",
            reference="Shorrocks 1980; Speicher et al. KDD 2018",
            definition="GE(2) = 1/(2m) Σ [(S/μ)² − 1] = CV²/2; undefined when μ = 0",
        ),
    ],
)
def generalized_entropy(effectiveness: ArrayLike, *, alpha: float = 2.0) -> float:
    """Generalized entropy index GE(α) of per-user effectiveness (Shorrocks 1980).

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].
    alpha : float, default 2.0
        Sensitivity: α = 0 is the mean log deviation, α = 1 Theil's T, α = 2
        half the squared coefficient of variation.

    Returns
    -------
    float
        In [0, ∞); 0 is fairest. The attainable maximum grows with m (one user
        at 1, the rest at 0: ln m for α = 1, (m − 1)/2 for α = 2). NaN with
        :class:`~puf.UndefinedMeasureWarning` when μ = 0, and for α ≤ 0 when
        some S(u) = 0 (ln 0, or 0 to a negative power).

    Notes
    -----
    .. math:: GE(\\alpha) = \\frac{1}{m\\,\\alpha(\\alpha-1)} \\sum_u
              \\left[\\left(\\frac{S(u)}{\\mu}\\right)^{\\alpha} - 1\\right]

    with the limits :math:`GE(1) = \\frac1m \\sum_u \\frac{S(u)}{\\mu} \\ln\\frac{S(u)}{\\mu}`
    (0 · ln 0 = 0, so GE(1) is defined with zeros) and
    :math:`GE(0) = -\\frac1m \\sum_u \\ln\\frac{S(u)}{\\mu}`. Speicher et al.
    (KDD 2018) use GE(2) as an individual unfairness of benefits.
    AIF360 0.6.1's ``generalized_entropy_index`` with α = 0 returns
    −mean(ln(S/μ))/μ, one division by μ more: 0.0676 instead of 0.2027 on
    benefits [1, 2, 3, 6] (benefits beyond [0, 1] only illustrate the formula).

    References
    ----------
    .. [1] A. F. Shorrocks, "The class of additively decomposable inequality measures",
        Econometrica 48(3), 1980.
    .. [2] T. Speicher et al., "A unified approach to quantifying algorithmic unfairness", KDD 2018.

    Examples
    --------
    >>> round(generalized_entropy([0.25, 0.5, 0.75, 1.0], alpha=2), 12)  # CV² / 2
    0.1
    >>> round(generalized_entropy([0.0, 1.0], alpha=1), 12)  # ln 2: one user has all
    0.69314718056
    >>> round(generalized_entropy([1/6, 2/6, 3/6, 1.0], alpha=0), 4)
    0.2027
    """
    alpha = _check_real(alpha, name="alpha")
    s = check_effectiveness(effectiveness)
    r = _ratios(s, f"ge({alpha:g})")
    if r is None:
        return float("nan")
    if alpha <= 0.0 and not r.all():
        return undefined(f"ge({alpha:g}) is undefined when some effectiveness value is 0")
    if alpha == 0.0:
        value = -np.log(r).mean()
    elif alpha == 1.0:
        positive = r[r > 0.0]
        value = (positive * np.log(positive)).sum() / r.shape[0]
    else:
        value = (r**alpha - 1.0).mean() / (alpha * (alpha - 1.0))
    # Non-negative by Jensen's inequality; rounding alone can dip below 0 at equality.
    return max(float(value), 0.0)


@measure(
    label="Atkinson",
    family=_INEQUALITY,
    reference="Atkinson 1970",
    definition="A(ε) = 1 − [(1/m) Σ (S/μ)^(1−ε)]^(1/(1−ε)); undefined when μ = 0",
    instances=[
        dict(
            name="atkinson-0.5",
            label="Atkinson-0.5",
            options={"epsilon": 0.5},
            attainable="[0, 1 − 1/m]",
            definition="1 − [(1/m) Σ (S/μ)^½]²; undefined when μ = 0",
        ),
        dict(
            name="atkinson-1",
            label="Atkinson-1",
            options={"epsilon": 1.0},
            attainable="[0, 1)",
            definition="1 − geometric mean / μ; undefined when some S = 0",
        ),
        dict(
            name="atkinson-2",
            label="Atkinson-2",
            options={"epsilon": 2.0},
            attainable="[0, 1)",
            definition="1 − harmonic mean / μ; undefined when some S = 0",
        ),
    ],
)
def atkinson(effectiveness: ArrayLike, *, epsilon: float = 0.5) -> float:
    """Atkinson index A(ε) of per-user effectiveness (Atkinson 1970).

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].
    epsilon : float >= 0, default 0.5
        Inequality aversion (0: indifferent, A = 0 always).

    Returns
    -------
    float
        In [0, 1); 0 is fairest. For ε < 1 one user at 1 and the rest at 0
        gives 1 − m^(−ε/(1−ε)) (1 − 1/m at ε = 0.5), so the supremum over m is 1.
        NaN with :class:`~puf.UndefinedMeasureWarning` when μ = 0, and for
        ε >= 1 when some S(u) = 0 (the geometric or harmonic mean is 0).

    Notes
    -----
    .. math:: A(\\varepsilon) = 1 - \\left[\\frac1m \\sum_u
              \\left(\\frac{S(u)}{\\mu}\\right)^{1-\\varepsilon}\\right]^{1/(1-\\varepsilon)}

    and :math:`A(1) = 1 - \\left(\\prod_u S(u)\\right)^{1/m} / \\mu`.

    References
    ----------
    .. [1] A. B. Atkinson, "On the measurement of inequality", Journal of Economic Theory 2(3),
        1970.

    Examples
    --------
    >>> round(atkinson([0.0, 1.0], epsilon=0.5), 12)  # 1 − 1/m
    0.5
    >>> round(atkinson([0.25, 1.0], epsilon=1), 12)  # 1 − geometric mean / mean
    0.2
    >>> round(atkinson([0.25, 1.0], epsilon=2), 12)  # 1 − harmonic mean / mean
    0.36
    """
    epsilon = check_nonnegative_scalar(epsilon, name="epsilon")
    s = check_effectiveness(effectiveness)
    r = _ratios(s, f"atkinson({epsilon:g})")
    if r is None:
        return float("nan")
    if epsilon >= 1.0 and not r.all():
        return undefined(f"atkinson({epsilon:g}) is undefined when some effectiveness value is 0")
    if epsilon == 1.0:
        value = 1.0 - np.exp(np.log(r).mean())
    else:
        value = 1.0 - (r ** (1.0 - epsilon)).mean() ** (1.0 / (1.0 - epsilon))
    # In [0, 1) by the power-mean inequality; rounding alone can dip below 0 at equality.
    return max(float(value), 0.0)


@measure(
    name="cv",
    label="CV",
    family=_INEQUALITY,
    range=NONNEGATIVE,
    definition="σ/μ (ddof=0); undefined when μ = 0",
    attainable="[0, √(m−1)]",
)
def coefficient_of_variation(effectiveness: ArrayLike) -> float:
    """Coefficient of variation σ/μ of per-user effectiveness (σ with ddof = 0).

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].

    Returns
    -------
    float
        In [0, √(m − 1)] (the maximum: one user at 1, the rest at 0), so
        unbounded over m; 0 is fairest. NaN with
        :class:`~puf.UndefinedMeasureWarning` when μ = 0.

    Examples
    --------
    >>> coefficient_of_variation([0.0, 1.0])
    1.0
    """
    r = _ratios(check_effectiveness(effectiveness), "cv")
    # On S/μ, so that tiny values do not underflow in the squares.
    return float("nan") if r is None else float(np.std(r, ddof=0))


@measure(
    name="jain",
    label="Jain",
    family=_INEQUALITY,
    reference="Jain, Chiu and Hawe 1984",
    definition="1 − (Σ S)² / (m Σ S²), one minus Jain's index; undefined when μ = 0",
    attainable="[0, 1 − 1/m]",
)
def jain_unfairness(effectiveness: ArrayLike) -> float:
    """One minus Jain's fairness index of per-user effectiveness (Jain, Chiu and Hawe 1984).

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].

    Returns
    -------
    float
        In [0, 1 − 1/m] (the maximum: one user at 1, the rest at 0); 0 is
        fairest. NaN with :class:`~puf.UndefinedMeasureWarning` when μ = 0.

    Notes
    -----
    .. math:: 1 - \\frac{(\\sum_u S(u))^2}{m \\sum_u S(u)^2} = \\frac{\\sigma^2}{\\sigma^2 + \\mu^2}
              = \\frac{CV^2}{1 + CV^2}

    computed as the right-hand form on S/μ, which neither cancels near
    equality nor underflows for tiny values.

    References
    ----------
    .. [1] R. Jain, D.-M. Chiu and W. Hawe, "A quantitative measure of fairness and discrimination
        for resource allocation in shared computer systems", DEC-TR-301, 1984.

    Examples
    --------
    >>> jain_unfairness([0.0, 0.0, 0.0, 1.0])  # Jain's index 1/4
    0.75
    """
    r = _ratios(check_effectiveness(effectiveness), "jain")
    if r is None:
        return float("nan")
    var = np.var(r, ddof=0)  # of S/μ, whose mean is 1
    return float(var / (var + 1.0))


@measure(
    label="Hoover",
    family=_INEQUALITY,
    reference="Hoover 1936",
    definition="½ Σ |S − μ| / Σ S; undefined when μ = 0",
    attainable="[0, 1 − 1/m]",
)
def hoover(effectiveness: ArrayLike) -> float:
    """Hoover index (relative mean deviation / 2) of per-user effectiveness (Hoover 1936).

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].

    Returns
    -------
    float
        In [0, 1 − 1/m]: the share of total effectiveness that would have to
        move for equality; 0 is fairest. NaN with
        :class:`~puf.UndefinedMeasureWarning` when μ = 0.

    Notes
    -----
    .. math:: H = \\frac{\\sum_u |S(u) - \\mu|}{2 \\sum_u S(u)}

    References
    ----------
    .. [1] E. M. Hoover, "The measurement of industrial localization", Review of Economics and
        Statistics 18(4), 1936.

    Examples
    --------
    >>> hoover([0.0, 0.0, 0.5, 0.5])
    0.5
    """
    s = check_effectiveness(effectiveness)
    total = s.sum()
    if total == 0.0:
        return undefined("hoover is undefined when every effectiveness value is 0 (mean 0)")
    return float(np.abs(s - s.mean()).sum() / (2.0 * total))
