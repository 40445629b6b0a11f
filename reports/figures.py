"""Figures of sweep tables: matplotlib's Agg renderer (no pyplot, no display), one PNG each.

Small multiples: one panel per measure, each with its own y scale (PUF at 0.02 and
UF at 7 never share an axis), titled with the measure's label (a direct label:
no legend to look up). The PUF paper's comparison comes first (effectiveness,
PUF, SD, Gini, UF, ME, MME, PEU; :func:`reports.layout.panel_order`), then the
field's measures, then a user's. A crossed sweep draws one line per level in
each panel, named once in a legend under the grid. Each y axis starts at 0 for
non-negative scores and never zooms a near-constant curve into apparent noise
(at least 10% of its level is shown), or is logarithmic (``logy``) where a curve
spans decades. Every line is the mean over seeds with a band from the smallest
to the largest seed's value. Colours are the Okabe-Ito palette (safe for the
common colour-vision deficiencies); a pairing has one colour, marker and dash
in every figure (:data:`LEVEL_STYLE`), and the levels of any other crossed
setting (γ) each their own. An undefined value (NaN, e.g. Gini when every user
scores 0, or ±inf, a ratio over a zero) leaves a gap in the line over a hatched
grey band, never a point at some value; a measure undefined on the whole sweep
gets no panel, only its name in one line under the figure; lines that coincide
are named on their panel.
"""

from __future__ import annotations

__all__ = ["OKABE_ITO", "LEVEL_STYLE", "plot_sweep", "plot_heatmap", "save_figure"]

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar
import math
import os

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter
from numpy.typing import NDArray
import pandas as pd
from matplotlib.axes import Axes


P = TypeVar("P", bound="str | os.PathLike[str]")  # a figure's path, returned as given

#: Okabe & Ito (2008), in an order that keeps the low-contrast yellow for last.
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
# Lines that coincide stay visible: each dash shows the one below.
_STYLES = ("-", "--", "-.", ":")
#: One look per pairing in every figure (colour, marker, dash): fair green, unfair vermillion.
LEVEL_STYLE = {
    "random": ("#000000", "o", "-"),
    "most_fair": ("#009E73", "^", "-."),
    "most_unfair": ("#D55E00", "s", "--"),
}
# Okabe-Ito leaves four colours once the pairings' three are set aside; Tol's wine makes a fifth, so
# the five γ levels never share one (the low-contrast yellow stays unused).
_LINE_COLOURS = tuple(c for c in OKABE_ITO[:-1] if c not in {c for c, _, _ in LEVEL_STYLE.values()}) + ("#882255",)


def _summary(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    grouped = table.groupby(keys + ["value"], sort=False, dropna=False)["score"]
    # min/max/mean of an all-NaN group are NaN, so undefined points stay undefined.
    stats = grouped.agg(mean="mean", low="min", high="max", n="count").reset_index()
    return stats.sort_values(keys + ["value"], kind="stable")


def _level_name(hue: str, level: Any, default: Any) -> str:
    from puf.reports.response import condition

    text = condition(hue, level)
    return text + " (default)" if default is not None and level == default else text


def _panels(
    table: pd.DataFrame, families: Mapping[str, str] | None, hue: str | None, default: Any
) -> dict[str, list[tuple[str, pd.DataFrame, Any, bool]]]:
    """Panel title -> [(line label, frame, style key, is default)], in :func:`panel_order`."""
    from puf.reports.layout import panel_order

    panels = {}
    for label in panel_order(table["measure"], families):
        sub = table[table["measure"] == label]
        if hue is None:
            panels[label] = [(label, sub, 0, False)]
            continue
        levels = list(dict.fromkeys(table[hue]))
        panels[label] = [
            (
                _level_name(hue, level, default),
                frame,
                level if level in LEVEL_STYLE else levels.index(level),
                default is not None and level == default,
            )
            for level, frame in sub.groupby(hue, sort=False)
        ]
    return panels


def _look(key: Any) -> tuple[str, str, str]:
    """Colour, marker, dash of a line: a pairing's own, else by its index among the levels.

    Other lines never take a pairing's colour (green, vermillion, black), so those colours mean
    one pairing wherever they appear.
    """
    if key in LEVEL_STYLE:
        return LEVEL_STYLE[key]
    index = key if isinstance(key, int) else 0
    n = len(_LINE_COLOURS)
    return (
        _LINE_COLOURS[index % n],
        _MARKERS[(index + index // n) % len(_MARKERS)],
        _STYLES[index % len(_STYLES)],
    )  # levels that coincide stay visible: each dash shows the one below


def _line(
    ax: Axes, frame: pd.DataFrame, label: str, look: tuple[str, str, str], *, bold: bool = False
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Draw one mean line with its band; return (x of undefined points, finite values)."""
    stats = _summary(frame, [])
    x, mean = stats["value"].to_numpy(float), stats["mean"].to_numpy(float)
    colour, marker, dash = look
    ax.plot(
        x,
        mean,
        color=colour,
        marker=marker,
        markersize=3.5,
        linewidth=2.6 if bold else 1.5,
        linestyle=dash,
        label=label,
    )
    if (stats["n"] > 1).any():
        ax.fill_between(x, stats["low"], stats["high"], color=colour, alpha=0.18, linewidth=0)
    finite = np.concatenate(
        [a[np.isfinite(a)] for a in (mean, stats["low"].to_numpy(float), stats["high"].to_numpy(float))]
    )
    return x[~np.isfinite(mean)], finite


def _limits(ax: Axes, values: NDArray[np.float64], logy: bool) -> bool:
    """Start non-negative scores at 0, and never zoom a near-constant curve into apparent noise.

    With ``logy``, a panel whose values are all positive and span at least a factor of 10
    gets a logarithmic axis instead (returns True then).
    """
    if values.size == 0:
        return False
    low, high = float(values.min()), float(values.max())
    if logy and low > 0 and high / low >= 10:
        ax.set_yscale("log")
        return True
    if low >= 0:  # from 0: a near-constant curve shows as flat at its level, an all-0 one at 0
        top = high if high > 0 else 1.0
        ax.set_ylim(-0.04 * top, 1.06 * top)
        return False
    centre, half = (low + high) / 2, (high - low) / 2
    half = max(half, 0.05 * abs(centre), 1e-3)
    pad = 0.08 * half
    ax.set_ylim(centre - half - pad, centre + half + pad)
    return False


def _marker_for(marker: Mapping[str, tuple[float | None, str | None]], name: str) -> tuple[float | None, str | None]:
    """(x, label) of the dashed line in panel ``name`` from a dict panel -> (x, label)."""
    return marker.get(name, marker.get("*", (None, None)))


def _unit(name: str, log: bool) -> str:
    unit = (
        "mean effectiveness"
        if _is_effectiveness(name)
        else "ratio to random pairing"
        if name.endswith("÷ random pairing")
        else ""
    )
    return unit + (", log" if log and unit else "log scale" if log else "")


def _is_effectiveness(name: str) -> bool:
    return name.split(" = ")[0] in ("P@k", "NDCG@k", "Effectiveness")


def _panel(
    ax: Axes,
    name: str,
    lines: Sequence[tuple[str, pd.DataFrame, Any, bool]],
    *,
    x_values: NDArray[np.float64],
    marker: Any,
    marker_label: str | None,
    logy: bool,
    width: int,
) -> None:
    """Draw one measure's panel: its lines, undefined bands, marker line, title and axis text."""
    from matplotlib.ticker import MaxNLocator

    from puf.reports.layout import fit_title, is_paper, mark_undefined

    missing, finite = [], []
    for label, frame, key, bold in lines:
        gaps, values = _line(ax, frame, label, _look(key), bold=bold)
        missing.append(gaps)
        finite.append(values)
    finite = np.concatenate(finite)
    log = _limits(ax, finite, logy)
    mark_undefined(ax, x_values, np.concatenate(missing))
    _coincidence_note(ax, lines)
    at, text = _marker_for(marker, name) if isinstance(marker, dict) else (marker, marker_label)
    at = None if at is None else float(at)
    if at is not None and np.isfinite(at):  # a per-panel marker (a dict) is dotted
        ax.axvline(
            at,
            color="0.35",
            linestyle="--" if not isinstance(marker, dict) or name not in marker else ":",
            linewidth=1.1,
            label=text,
        )
    ax.set_title(fit_title(name, width), fontsize="small", fontweight="bold" if is_paper(name) else "normal")
    unit = _unit(name, log)
    if unit:
        ax.set_ylabel(unit, fontsize="x-small")
    if not log and finite.size:
        ax.yaxis.set_major_locator(MaxNLocator(4))
    ax.tick_params(labelsize="x-small")
    ax.grid(True, color="0.9", linewidth=0.6)


def _means(frame: pd.DataFrame) -> NDArray[np.float64]:
    return frame.groupby("value", sort=True)["score"].mean().to_numpy(float)


def _coinciding(lines: Sequence[tuple[str, pd.DataFrame, Any, bool]], group: Sequence[int]) -> str:
    """One group of coinciding lines, short enough for a panel: "γ = 0, 0.25, 0.5 coincide"."""
    import textwrap

    labels = [lines[i][0].removesuffix(" (default)") for i in group]
    setting = {label.split(" = ", 1)[0] for label in labels}
    if len(setting) == 1 and all(" = " in label for label in labels):
        text = f"{setting.pop()} = {', '.join(label.split(' = ', 1)[1] for label in labels)} coincide"
    else:
        text = " and ".join(labels) + " coincide"
    return textwrap.fill(text, 34)


def _coincidence_note(ax: Axes, lines: Sequence[tuple[str, pd.DataFrame, Any, bool]]) -> None:
    """Write on the panel which of its lines coincide (equal at every point), since one hides the other.

    Dashes already let a line show through another; the words make sure a reader never
    takes two coinciding lines for one.
    """
    if len(lines) < 2:
        return
    curves = [_means(frame) for _, frame, _, _ in lines]
    scale = max((float(np.abs(c[np.isfinite(c)]).max()) for c in curves if np.isfinite(c).any()), default=0.0)
    groups: list[list[int]] = []
    for i, curve in enumerate(curves):
        for group in groups:
            other = curves[group[0]]
            if other.shape == curve.shape and np.allclose(
                other, curve, rtol=0, atol=1e-3 * scale + 1e-12, equal_nan=True
            ):
                group.append(i)
                break
        else:
            groups.append([i])
    shared = [g for g in groups if len(g) > 1]
    if not shared:
        return
    every = "both lines coincide" if len(lines) == 2 else f"all {len(lines)} lines coincide"
    text = every if len(shared[0]) == len(lines) else "\n".join(_coinciding(lines, g) for g in shared)
    ax.text(
        0.5,
        0.04,
        text,
        transform=ax.transAxes,
        ha="center",
        va="bottom",
        fontsize="x-small",
        color="0.2",
        bbox={"facecolor": "white", "edgecolor": "0.7", "alpha": 0.85, "pad": 1.5},
    )


def _defined_panels(
    panels: dict[str, list[tuple[str, pd.DataFrame, Any, bool]]],
) -> tuple[dict[str, list[tuple[str, pd.DataFrame, Any, bool]]], list[str]]:
    """(panels with a curve to draw, names of those with fewer than two defined points on every line)."""
    drawn, undefined = {}, []
    for name, lines in panels.items():
        if any(np.isfinite(_means(frame)).sum() >= 2 for _, frame, _, _ in lines):
            drawn[name] = lines
        else:
            undefined.append(name)
    return drawn, undefined


def _undrawn(names: Sequence[str], width: float) -> str:
    """The title's line naming the measures undefined on the whole sweep: text, not a hatched panel."""
    if not names:
        return ""
    import textwrap

    return "\n" + textwrap.fill(
        f"not drawn, NaN or ±inf at all but at most one point: {', '.join(names)}", int(width * 13)
    )


def _one_x_range(axes: Sequence[Axes]) -> None:
    """Give every panel the x range of all of them, as a shared x axis would.

    Not matplotlib's axis sharing: it looks up the group of shared axes on every read of a
    panel's view limits, and with 40 panels that bookkeeping was a sixth of a figure's drawing
    time. Each panel autoscales its x over the union of the panels' data, so all take the
    same limits and the same ticks.
    """
    spans = np.array([ax.dataLim.intervalx for ax in axes], dtype=float)
    spans = spans[np.isfinite(spans)]
    if spans.size:
        for ax in axes:
            ax.update_datalim([(spans.min(), 0.0), (spans.max(), 0.0)], updatey=False)
            ax.autoscale(axis="x")  # (a marker line may have read the limits already)


def plot_sweep(
    table: pd.DataFrame,
    *,
    title: str,
    xlabel: str,
    families: Mapping[str, str] | None = None,
    hue: str | None = None,
    percent: bool = False,
    marker: float | Mapping[str, tuple[float | None, str | None]] | None = None,
    marker_label: str | None = None,
    ncols: int | None = None,
    default: Any = None,
    logy: bool = False,
) -> Figure:
    """Draw a sweep table as small multiples, one panel per measure.

    Parameters
    ----------
    table : pandas.DataFrame
        Tidy sweep output (``measure, value, seed, score`` and the ``hue`` column).
    title, xlabel : str
        Figure title and x-axis label.
    families : dict of str to str, optional
        Measure label -> family; the ``"your measures"`` family comes last.
    hue : str, optional
        A column whose levels become separate lines within each measure's panel.
    percent : bool, default False
        Show x (a share in [0, 1]) as a percentage.
    marker : float or dict, optional
        Draw a dashed vertical line at this x (e.g. the base world's observed
        skewness), labelled ``marker_label``; or a dict panel title -> (x, label),
        key ``"*"`` for every other panel, where panels read different things.
    ncols : int, optional
        Panels per row; default 5 from 13 panels on, else up to 4.
    default : optional
        The ``hue`` level that is the default setting: drawn bold, "(default)" in the legend.
    logy : bool, default False
        Logarithmic y axis on panels whose values are positive and span a factor of 10 or more.

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
    from puf.reports.layout import figure_legend, fit_title

    panels, undefined = _defined_panels(_panels(table, families, hue, default))
    if not panels:
        raise ValueError(f"plot_sweep: every measure of {title!r} is undefined at every point")
    ncols = ncols or (5 if len(panels) > 12 else min(4, len(panels)))
    ncols = max(1, min(ncols, len(panels)))
    nrows = math.ceil(len(panels) / ncols)
    width = max(4.0, min(12.7, 2.55 * ncols))  # 1400 px at the report's 110 dpi
    fig = Figure(figsize=(width, 2.15 * nrows + 1.3), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    x_values = np.unique(table["value"].to_numpy(float))
    chars = int(width / ncols * 11)  # characters of a small title across one panel
    for ax, (name, lines) in zip(axes, panels.items()):
        _panel(ax, name, lines, x_values=x_values, marker=marker, marker_label=marker_label, logy=logy, width=chars)
        if percent:
            ax.xaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))
    _one_x_range(list(axes[: len(panels)]))
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    for ax in axes[: max(0, len(panels) - ncols)]:  # x read off the panels at the bottom of each column
        ax.tick_params(axis="x", which="both", labelbottom=False)
    for ax in axes[max(0, len(panels) - ncols) : len(panels)]:
        ax.set_xlabel(fit_title(xlabel, chars), fontsize="x-small")
    fig.supylabel("score (lower = fairer) unless the panel says otherwise", fontsize="small")
    figure_legend(fig, axes[: len(panels)], crossed=hue is not None)
    n_seeds = table["seed"].nunique()
    fig.suptitle(
        f"{title}\nmean over {n_seeds} seed{'s' * (n_seeds != 1)}"
        f"{', band = min to max over seeds' if n_seeds > 1 else ''}; "
        "bold titles: the PUF paper's measures" + _undrawn(undefined, width),
        fontsize="medium",
    )
    return fig


def plot_heatmap(
    matrix: pd.DataFrame, *, title: str, label: str = "Kendall's τ", vmin: float = -1.0, vmax: float = 1.0
) -> Figure:
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
        ax.text(
            j,
            i,
            text,
            ha="center",
            va="center",
            fontsize="small",
            color="white" if np.isfinite(v) and abs(v) > 0.6 else "black",
        )
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(title)
    return fig


def save_figure(fig: Figure, path: P, *, dpi: int = 110) -> P:
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
