"""Figures of sweep tables: matplotlib's Agg renderer (no pyplot, no display), one PNG each.

Panels follow the PUF paper's layout: one panel per measure family (SD-P and
SD-NDCG together, ME/MME/PEU together, ...) or, for a crossed sweep, one panel
per measure with a line per level. Panels share the x axis; each y axis starts
at 0 for non-negative scores and never zooms a near-constant curve into
apparent noise (at least 10% of its level is shown). Every line is the mean
over seeds with a band from the smallest to the largest seed's value. Colours
are the Okabe-Ito palette (safe for the common colour-vision deficiencies),
and every line also has its own marker and dash, so the plots read in
greyscale too. An undefined value (NaN, e.g. Gini when every user scores 0)
leaves a gap in the line and is marked with a cross on the axis, never drawn
as 0.
"""

__all__ = ["OKABE_ITO", "plot_sweep", "plot_heatmap", "save_figure"]

import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

# Okabe & Ito (2008), in an order that keeps the low-contrast yellow for last.
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
# Lines that coincide (P and NDCG on 0/1 effectiveness) stay visible: each dash shows the one below.
_STYLES = ("-", "--", "-.", ":")


def _summary(table, keys):
    grouped = table.groupby(keys + ["value"], sort=False, dropna=False)["score"]
    # min/max/mean of an all-NaN group are NaN, so undefined points stay undefined.
    stats = grouped.agg(mean="mean", low="min", high="max", n="count").reset_index()
    return stats.sort_values(keys + ["value"], kind="stable")


def _panels(table, families, hue):
    if hue is not None:
        return {label: [(level, frame) for level, frame in sub.groupby(hue, sort=False)]
                for label, sub in table.groupby("measure", sort=False)}
    panels = {}
    for label, sub in table.groupby("measure", sort=False):
        panels.setdefault((families or {}).get(label, label), []).append((label, sub))
    return panels


def _line(ax, frame, label, index):
    """Draw one mean line with its band; return (x of undefined points, finite values)."""
    stats = _summary(frame, [])
    x, mean = stats["value"].to_numpy(float), stats["mean"].to_numpy(float)
    colour = OKABE_ITO[index % len(OKABE_ITO)]
    ax.plot(x, mean, color=colour, marker=_MARKERS[index % len(_MARKERS)], markersize=4,
            linewidth=1.6, linestyle=_STYLES[index % len(_STYLES)], label=label)
    if (stats["n"] > 1).any():
        ax.fill_between(x, stats["low"], stats["high"], color=colour, alpha=0.18, linewidth=0)
    finite = np.concatenate([a[np.isfinite(a)] for a in (mean, stats["low"].to_numpy(float),
                                                         stats["high"].to_numpy(float))])
    return x[~np.isfinite(mean)], finite


def _limits(ax, values):
    """Start non-negative scores at 0, and never zoom a near-constant curve into apparent noise."""
    if values.size == 0:
        return
    low, high = float(values.min()), float(values.max())
    if low >= 0:
        low = 0.0
    centre, half = (low + high) / 2, (high - low) / 2
    half = max(half, 0.05 * abs(centre), 1e-3)
    pad = 0.08 * half
    ax.set_ylim(centre - half - pad, centre + half + pad)


def plot_sweep(table, *, title, xlabel, families=None, hue=None, percent=False,
               marker=None, marker_label=None, ncols=3):
    """Draw a sweep table as a grid of panels.

    Parameters
    ----------
    table : pandas.DataFrame
        Tidy sweep output (``measure, value, seed, score`` and the ``hue`` column).
    title, xlabel : str
        Figure title and x-axis label.
    families : dict of str to str, optional
        Measure label -> panel name; measures of one family share a panel.
        Ignored when ``hue`` is given. Default one panel per measure.
    hue : str, optional
        A column whose levels become separate lines within each measure's panel.
    percent : bool, default False
        Show x (a share in [0, 1]) as a percentage.
    marker : float, optional
        Draw a dashed vertical line at this x (e.g. the base world's observed
        skewness), labelled ``marker_label``.
    ncols : int, default 3
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"measure": ["Gini-P"] * 3, "value": [0.0, 0.5, 1.0],
    ...                   "seed": 0, "score": [0.0, 0.5, float("nan")]})
    >>> fig = plot_sweep(t, title="Gini", xlabel="share", percent=True)
    >>> [ax.get_title() for ax in fig.axes]
    ['Gini-P']
    """
    panels = _panels(table, families, hue)
    ncols = max(1, min(ncols, len(panels)))
    nrows = math.ceil(len(panels) / ncols)
    fig = Figure(figsize=(4.2 * ncols, 3.2 * nrows + 0.6), layout="constrained")
    axes = fig.subplots(nrows, ncols, sharex=True, squeeze=False).ravel()
    for ax, (name, lines) in zip(axes, panels.items()):
        missing, finite = [], []
        for index, (label, frame) in enumerate(lines):
            gaps, values = _line(ax, frame, f"{hue} = {label:g}" if isinstance(label, float)
                                 else f"{hue} = {label}" if hue else label, index)
            missing.append(gaps)
            finite.append(values)
        _limits(ax, np.concatenate(finite))
        missing = np.unique(np.concatenate(missing))
        if missing.size:
            ax.plot(missing, np.zeros_like(missing), linestyle="none", marker="x", markersize=9,
                    markeredgewidth=2, color="0.2", transform=ax.get_xaxis_transform(),
                    clip_on=False, label="undefined (NaN)")
        if marker is not None and np.isfinite(marker):
            ax.axvline(marker, color="0.35", linestyle="--", linewidth=1, label=marker_label)
        ax.set_title(name)
        ax.set_ylabel("score (lower = fairer)" if name != "Effectiveness" else "mean effectiveness")
        ax.grid(True, color="0.9", linewidth=0.6)
        if hue is None:
            ax.legend(fontsize="small", frameon=False)
        if percent:
            ax.xaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    for ax in axes[max(0, len(panels) - ncols):len(panels)]:
        ax.set_xlabel(xlabel)
        ax.tick_params(labelbottom=True)
    if hue is not None:  # the same levels in every panel: one legend under the grid
        handles = {}
        for ax in axes[:len(panels)]:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                handles.setdefault(label, handle)
        fig.legend(handles.values(), handles.keys(), loc="outside lower center", frameon=False,
                   ncols=min(6, len(handles)), fontsize="small")
    n_seeds = table["seed"].nunique()
    fig.suptitle(f"{title}\nmean over {n_seeds} seed{'s' * (n_seeds != 1)}"
                 f"{', band = min to max over seeds' if n_seeds > 1 else ''}", fontsize="medium")
    return fig


def plot_heatmap(matrix, *, title, label="Kendall's τ", vmin=-1.0, vmax=1.0):
    """Draw a square matrix (e.g. measure agreement) with every value written in its cell.

    Parameters
    ----------
    matrix : pandas.DataFrame
        Rows and columns labelled by measure.
    title, label : str
        Figure title and colour-bar label.
    vmin, vmax : float
        Colour range; the diverging purple-orange map is colour-blind safe.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame([[1.0, -0.2], [-0.2, 1.0]], index=["SD", "PUF"], columns=["SD", "PUF"])
    >>> plot_heatmap(m, title="agreement").axes[0].get_title()
    'agreement'
    """
    values = matrix.to_numpy(dtype=np.float64)
    size = 1.0 + 0.55 * max(values.shape)
    fig = Figure(figsize=(size + 1.2, size), layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(values, cmap="PuOr", vmin=vmin, vmax=vmax)
    ax.set_xticks(range(values.shape[1]), [str(c) for c in matrix.columns], rotation=45, ha="right")
    ax.set_yticks(range(values.shape[0]), [str(i) for i in matrix.index])
    for (i, j), v in np.ndenumerate(values):
        text = "n/a" if not np.isfinite(v) else f"{v:.2f}"
        ax.text(j, i, text, ha="center", va="center", fontsize="small",
                color="white" if np.isfinite(v) and abs(v) > 0.6 else "black")
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(title)
    return fig


def save_figure(fig, path, *, dpi=110):
    """Write ``fig`` as a PNG (no timestamp or version in the metadata, so reruns match).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> fig = Figure(); _ = fig.subplots().plot([0, 1])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = save_figure(fig, pathlib.Path(d) / "f.png")
    ...     p.read_bytes()[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    fig.savefig(path, format="png", dpi=dpi, metadata={"Software": None})
    return path
