"""What the flaw corpus's modules share: the record of one planted measure and its formulas."""

from __future__ import annotations

__all__ = ["upper_pairs", "pair_gaps", "puf_of", "envy", "planted"]

from collections.abc import Callable, Mapping
from typing import Any
import numpy as np
from numpy.typing import ArrayLike, NDArray

from puf import as_measure, measure


def upper_pairs(m: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Row and column indices of the pairs u < v of ``m`` users.

    Examples
    --------
    >>> [r.tolist() for r in upper_pairs(3)]
    [[0, 0, 1], [1, 2, 2]]
    """
    return np.triu_indices(m, k=1)


def pair_gaps(effectiveness: ArrayLike) -> NDArray[np.float64]:
    """The (m, m) matrix of gaps |S(u) − S(v)|.

    Examples
    --------
    >>> pair_gaps([0.0, 0.5]).tolist()
    [[0.0, 0.5], [0.5, 0.0]]
    """
    s = np.asarray(effectiveness, dtype=np.float64)
    return np.abs(s[:, None] - s[None, :])


def puf_of(effectiveness: ArrayLike, weights: ArrayLike) -> float:
    """2/(m(m−1)) Σ_{u<v} w(u,v)·|S(u) − S(v)| for a weight matrix ``weights``.

    Examples
    --------
    >>> puf_of([0.0, 1.0, 1.0], np.ones((3, 3)))
    0.6666666666666666
    """
    m = len(effectiveness)
    rows, cols = upper_pairs(m)
    return float(2.0 * np.sum(np.asarray(weights)[rows, cols] * pair_gaps(effectiveness)[rows, cols]) / (m * (m - 1)))


def envy(utility: ArrayLike) -> NDArray[np.float64]:
    """The (m, m) envy max(φ_u(L_v) − φ_u(L_u), 0), zero on the diagonal.

    Examples
    --------
    >>> envy([[0.2, 0.5], [0.0, 1.0]]).tolist()
    [[0.0, 0.3], [0.0, 0.0]]
    """
    utility = np.asarray(utility, dtype=np.float64)
    out = np.maximum(utility - np.diag(utility)[:, None], 0.0)
    np.fill_diagonal(out, 0.0)
    return out


def planted(
    function: Callable[..., float],
    *,
    family: str,
    flaw: str,
    expected: Mapping[str, str],
    range: tuple[float, float] = (0.0, 1.0),
    control: bool = False,
) -> dict[str, Any]:
    """Return the corpus entry of ``function``: its Measure, family, flaw and expected verdicts.

    Examples
    --------
    >>> def _doubled_sd(effectiveness):
    ...     return 2 * float(np.std(effectiveness))
    >>> entry = planted(_doubled_sd, family="normalisation", flaw="2 SD",
    ...                 expected={"range": "violated"})
    >>> entry["name"], entry["measure"].name
    ('doubled-sd', 'doubled-sd')
    """
    name = function.__name__.lstrip("_").replace("_", "-")
    return {
        "measure": as_measure(measure(function, name=name, range=range, definition=flaw)),
        "name": name,
        "family": family,
        "flaw": flaw,
        "expected": dict(expected),
        "control": control,
    }
