"""The PUF paper's real-data study as a figure: every measure's value per ranker on one dataset.

One bar panel per measure (P@10, NDCG@10, then every fairness measure), one
bar per ranker in the table's order (the registry's, :data:`puf.rankers.RANKERS`,
for the report's table).
Fairness panels say "lower is fairer" and effectiveness panels "higher is
better", so a reader never has to remember each measure's direction. An
undefined value (NaN) is a cross at 0, never a bar of height 0.
"""

from __future__ import annotations

__all__ = [
    "agreement_rankers",
    "plot_measures_per_ranker",
    "dense_similarity_beyond_memory",
    "skipped_text",
    "raised_runs_text",
]

from typing import Any
import math

import numpy as np
from matplotlib.figure import Figure

from puf.reports.figures import OKABE_ITO
import pandas as pd

from .sweeps import BuiltinSweep


def agreement_rankers(scores: pd.DataFrame) -> tuple[list[Any], str]:
    """The rankers the agreement analysis runs over: the paper's seven when all were run.

    Returns ``(names, note)``: the index labels to use and a sentence saying which.

    Examples
    --------
    >>> import pandas as pd
    >>> names, note = agreement_rankers(pd.DataFrame(index=["random", "mostpop"]))
    >>> names
    ['random', 'mostpop']
    >>> print(note)
    all 2 rankers (the PUF paper's seven need the neural extra; over fewer than 3 rankers every τ is +1 or −1 by construction, so it says nothing yet)
    """
    from puf.rankers import PAPER_RANKERS

    if set(PAPER_RANKERS) <= set(scores.index):
        return list(PAPER_RANKERS), "the PUF paper's seven rankers"
    few = (
        "; over fewer than 3 rankers every τ is +1 or −1 by construction, so it says nothing yet"
        if len(scores) < 3
        else ""
    )
    return list(scores.index), f"all {len(scores)} rankers (the PUF paper's seven need the neural extra{few})"


def plot_measures_per_ranker(scores: pd.DataFrame, *, title: str, ncols: int = 4) -> Figure:
    """Bar panels of every measure per ranker.

    Parameters
    ----------
    scores : pandas.DataFrame
        One row per ranker, one column per measure (:func:`puf.evaluation.evaluate_runs`).
    title : str
    ncols : int, default 4

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"P@10": [0.1, 0.2], "SD-P": [0.3, float("nan")]},
    ...                      index=pd.Index(["a", "b"], name="ranker"))
    >>> figure = plot_measures_per_ranker(table, title="toy")
    >>> [ax.get_title() for ax in figure.axes]
    ['P@10 (higher is better)', 'SD-P (lower is fairer)']
    """
    if scores.empty or scores.shape[1] == 0:
        raise ValueError(f"scores must have at least one ranker and one measure, got shape {scores.shape}")
    measures, rankers = list(scores.columns), [str(r) for r in scores.index]
    ncols = min(ncols, len(measures))
    nrows = math.ceil(len(measures) / ncols)
    figure = Figure(figsize=(3.2 * ncols, 2.4 * nrows + 0.6), layout="constrained")
    axes = figure.subplots(nrows, ncols, squeeze=False).ravel()
    colours = [OKABE_ITO[i % len(OKABE_ITO)] for i in range(len(rankers))]
    x = np.arange(len(rankers))
    for ax, measure in zip(axes, measures):
        values = scores[measure].to_numpy(dtype=float)
        defined = np.isfinite(values)
        ax.bar(x[defined], values[defined], color=[c for c, d in zip(colours, defined) if d])
        if (~defined).any():
            ax.plot(x[~defined], np.zeros((~defined).sum()), "x", color="black", markersize=8, label="undefined")
        effectiveness = measure.startswith(("P@", "NDCG@"))
        ax.set_title(f"{measure} ({'higher is better' if effectiveness else 'lower is fairer'})", fontsize=9)
        ax.set_xticks(x, rankers, rotation=60, fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[len(measures) :]:
        ax.set_visible(False)
    figure.suptitle(title)
    return figure


def dense_similarity_beyond_memory(spec: BuiltinSweep, m: int) -> str:
    """Why a sweep cannot run on m users (it reshapes or pairs on the m x m similarity), or ''.

    Examples
    --------
    >>> from puf.reports.sweeps import SWEEPS
    >>> dense_similarity_beyond_memory(SWEEPS["skewness"], 6040)
    ''
    >>> dense_similarity_beyond_memory(SWEEPS["skewness"], 138493)[-36:]
    'needs 460.3 GB (memory limit 4.0 GB)'
    """
    from puf.evaluation.planner import dense_bytes, format_bytes
    from puf.memory import memory_budget

    if spec.parameter != "skewness" and spec.cross != "pairing":
        return ""
    needs, budget = dense_bytes(m, 1), memory_budget()
    if needs <= budget:
        return ""
    return (
        f"the sweep reshapes (or pairs users on) the m x m similarity matrix, which needs "
        f"{format_bytes(needs)} (memory limit {format_bytes(budget)})"
    )


def skipped_text(scores: pd.DataFrame) -> str:
    """A sentence per measure the evaluation skipped at this size, or ''.

    Examples
    --------
    >>> import pandas as pd
    >>> skipped_text(pd.DataFrame())
    ''
    """
    skipped = scores.attrs.get("skipped", {})
    return "".join(f" Skipped at this size: {label} ({reason})." for label, reason in skipped.items())


def raised_runs_text(scores: pd.DataFrame) -> str:
    """A sentence per measure that raised on some rankers' runs (undefined there), or ''.

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame(index=pd.Index(["ease", "bpr", "pop"], name="ranker"))
    >>> scores.attrs["raised"] = [{"ranker": r, "measure": "mine-P", "error": "ValueError: math domain error"}
    ...                           for r in ("ease", "bpr")]
    >>> print(raised_runs_text(scores))
     mine-P raised on 2 of the 3 rankers' lists (ease, bpr), undefined there: ValueError: math domain error.
    """
    from puf.evaluation import raised_runs

    return "".join(
        f" {label} raised on {len(where)} of the {len(scores)} rankers' lists ({', '.join(where)}), "
        f"undefined there: {error}."
        for label, (where, error) in raised_runs(scores).items()
    )
