"""Kendall's tau between fairness and effectiveness measures over rankers (PUF paper, Fig. 1)."""

from __future__ import annotations

__all__ = ["measure_agreement"]

from collections.abc import Sequence

import numpy as np
import pandas as pd


def measure_agreement(scores_table: pd.DataFrame, *, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Kendall's tau between every pair of measures over the rankers.

    Parameters
    ----------
    scores_table : pandas.DataFrame
        One row per ranker, one column per measure (e.g. :func:`evaluate_runs`).
    columns : sequence of str, optional
        Measures to compare; default every numeric column.

    Returns
    -------
    pandas.DataFrame
        Square, symmetric, indexed and columned by measure; tau-b in [-1, 1]
        over the rankers where both measures are finite, diagonal 1. NaN where
        fewer than two such rankers remain or either measure is constant on
        them (so also on the diagonal of a measure that never varies). Raw values are compared: a higher effectiveness and a lower
        (fairer) fairness value are opposite directions.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"P": [0.1, 0.2, 0.3], "SD": [0.3, 0.2, 0.1],
    ...                       "PUF": [0.1, 0.3, 0.2]}, index=["a", "b", "c"])
    >>> measure_agreement(table).round(3)
            P     SD    PUF
    P    1.000 -1.000  0.333
    SD  -1.000  1.000 -0.333
    PUF  0.333 -0.333  1.000
    """
    from scipy.stats import kendalltau

    if columns is None:
        columns = [c for c in scores_table.columns if pd.api.types.is_numeric_dtype(scores_table[c])]
    missing = [c for c in columns if c not in scores_table]
    if missing:
        raise ValueError(f"scores_table has no columns {missing}; it has {list(scores_table.columns)}")
    values = scores_table[list(columns)].to_numpy(dtype=np.float64)
    size = len(columns)
    tau = np.full((size, size), np.nan)
    for a in range(size):
        for b in range(a, size):
            both = np.isfinite(values[:, a]) & np.isfinite(values[:, b])
            x, y = values[both, a], values[both, b]
            if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
                continue
            tau[a, b] = tau[b, a] = 1.0 if a == b else kendalltau(x, y).statistic
    return pd.DataFrame(tau, index=list(columns), columns=list(columns))
