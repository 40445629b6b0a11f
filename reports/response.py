"""Response labels of whole sweep tables: every curve of a sweep judged against its driver.

The labels themselves (``responds``, ``flat``, ``wrong direction``,
``non-monotone``, ``undefined``), the curve's shape in words and the paired
contrast are defined in :mod:`reports.curves` and re-exported here;
:func:`label_table` and :func:`sweep_responses` apply them to a tidy sweep
table, and :func:`condition` writes a crossed setting's level as tables show it.
"""

from __future__ import annotations

__all__ = [
    "ATOL",
    "RTOL",
    "RHO_MIN",
    "LABELS",
    "Response",
    "response",
    "shape",
    "contrast",
    "label_table",
    "sweep_responses",
    "condition",
]

from collections.abc import Callable, Collection, Sequence

from .curves import ATOL, LABELS, RHO_MIN, RTOL, Response, contrast, response, shape
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .sweeps import BuiltinSweep


def label_table(
    table: pd.DataFrame,
    *,
    driver: Callable[[NDArray[np.float64]], ArrayLike],
    expected: int = 1,
    by: Sequence[str] = ("measure",),
    skip: Collection[str] = (),
    atol: float = ATOL,
    rtol: float = RTOL,
    rho_min: float = RHO_MIN,
    x_format: str = "{:g}",
) -> pd.DataFrame:
    """Label every curve of a tidy sweep table.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``measure, value, seed, score`` (plus any ``by`` columns).
    driver : callable
        Maps the array of x values to the driver at each (e.g. p -> p(1 − p)).
    expected : {1, -1, 0}
        Expected sign, as in :func:`response`.
    by : tuple of str
        Columns that identify one curve.
    skip : collection of str
        Measure labels not to label (reference curves such as mean effectiveness).
    x_format : str
        Format of an x value in the ``shape`` text.

    Returns
    -------
    pandas.DataFrame
        ``by`` columns, then ``shape`` (the curve against x in words, :func:`shape`),
        ``label, rho, change, tolerance`` (against the driver, :func:`response`).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"measure": ["SD"] * 3 + ["UF"] * 3, "value": [0.0, 0.5, 1.0] * 2,
    ...                   "seed": 0, "score": [0.0, 0.5, 0.0, 2.0, 2.0, 2.0]})
    >>> label_table(t, driver=lambda p: p * (1 - p))[["measure", "shape", "label"]]
      measure           shape     label
    0      SD  peaks at 0.5  responds
    1      UF            flat      flat
    """
    import pandas as pd

    rows = []
    for key, curve in table.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        if dict(zip(by, key)).get("measure") in skip:
            continue
        means = curve.groupby("value", sort=True)["score"].mean()
        x = means.index.to_numpy(dtype=float)
        got = response(driver(x), means.to_numpy(), expected=expected, atol=atol, rtol=rtol, rho_min=rho_min)
        words = shape(x, means.to_numpy(), atol=atol, rtol=rtol, fmt=x_format)
        rows.append(key + (words, got.label, got.rho, got.change, got.tolerance))
    return pd.DataFrame(rows, columns=list(by) + ["shape", "label", "rho", "change", "tolerance"])


def sweep_responses(
    spec: BuiltinSweep, table: pd.DataFrame, *, skip: Collection[str] = ("P@k", "NDCG@k")
) -> pd.DataFrame:
    """All response labels of one built-in sweep, in one table.

    Each curve (measure, and level of the crossed setting) is labelled against
    the sweep's driver; a sweep crossed with the pairing adds, per measure, the
    contrast of ``most_unfair`` against ``most_fair`` over the whole x axis
    (condition ``"unfair − fair"``).

    Parameters
    ----------
    spec : reports.sweeps.BuiltinSweep
        Gives ``name``, ``driver``, ``expected``, ``cross`` and ``driver_values``.
    table : pandas.DataFrame
        The sweep's output.
    skip : collection of str
        Reference curves not labelled.

    Returns
    -------
    pandas.DataFrame
        ``sweep, measure, condition, shape, driver, label, rho, change, tolerance``:
        ``shape`` describes the curve against the x axis, ``label`` and ``rho`` judge it
        against the driver.

    Examples
    --------
    >>> from puf.reports.sweeps import SWEEPS
    >>> import pandas as pd
    >>> t = pd.DataFrame({"measure": "UF", "parameter": "zero_relevance", "value": [0.0, 0.5, 1.0],
    ...                   "seed": 0, "score": 4.2})
    >>> sweep_responses(SWEEPS["zero_relevance"], t)[["measure", "label"]].to_dict("records")
    [{'measure': 'UF', 'label': 'flat'}]
    """
    import pandas as pd

    by = ("measure",) if spec.cross is None else ("measure", spec.cross)
    x_format = "{:.0%}" if spec.parameter == "zero_relevance" else "{:g}"
    labels = label_table(table, driver=spec.driver_values, expected=spec.expected, by=by, skip=skip, x_format=x_format)
    labels["condition"] = "" if spec.cross is None else [condition(spec.cross, v) for v in labels[spec.cross]]
    labels["driver"] = spec.driver
    frames = [labels]
    if spec.cross == "pairing":
        rows = []
        for measure, curve in table.groupby("measure", sort=False):
            means = curve.groupby(["pairing", "value"])["score"].mean()
            got = contrast(means["most_fair"].to_numpy(), means["most_unfair"].to_numpy())
            rows.append(
                (
                    measure,
                    "unfair − fair",
                    "",
                    "most_unfair above most_fair",
                    got.label,
                    got.rho,
                    got.change,
                    got.tolerance,
                )
            )
        frames.append(
            pd.DataFrame(
                rows, columns=["measure", "condition", "shape", "driver", "label", "rho", "change", "tolerance"]
            )
        )
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "sweep", spec.name)
    return out[["sweep", "measure", "condition", "shape", "driver", "label", "rho", "change", "tolerance"]]


def condition(setting: str, level: object) -> str:
    """How a level of a crossed setting is written in tables and legends (γ, never gamma).

    Examples
    --------
    >>> condition("gamma", 0.5), condition("pairing", "most_fair")
    ('γ = 0.5', 'pairing = most_fair')
    """
    name = {"gamma": "γ"}.get(setting, setting)
    return f"{name} = {level:g}" if isinstance(level, float) else f"{name} = {level}"
