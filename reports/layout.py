"""Where a figure's panels go and what they say: the PUF paper's comparison first, titles that fit,
undefined points as marked bands.

:func:`panel_order` sorts a sweep's measure labels so the PUF paper's own
comparison (effectiveness, PUF, SD, Gini, UF, the envy measures) comes first and a
user's measures last; :func:`fit_title` wraps a title at its ``=`` and spaces to
the panel's width; :func:`mark_undefined` shades, with a hatch, the x range of
every undefined point of a panel, so a NaN reads as "no value here", never as 0.
"""

from __future__ import annotations

__all__ = ["PAPER", "is_paper", "panel_order", "fit_title", "mark_undefined", "figure_legend", "UNDEFINED_STYLE"]

from typing import Any
from collections.abc import Iterable, Mapping, Sequence
import textwrap

import numpy as np
from numpy.typing import ArrayLike
from matplotlib.axes import Axes
from matplotlib.figure import Figure


PAPER = ("p@k", "ndcg@k", "puf", "sd", "gini", "uf", "me", "mme", "peu")
"""The PUF paper's comparison, in the order its panels come first (lower-case label stems)."""

UNDEFINED_STYLE: dict[str, Any] = {"facecolor": "0.92", "edgecolor": "0.6", "hatch": "///", "linewidth": 0}
"""The look of an undefined band (also its legend patch)."""


def _stem(label: str) -> str:
    """ "PUF-P = PUF-NDCG" -> "puf"; "P@k = NDCG@k" -> "p@k"."""
    first = label.split(" = ")[0].split(" ÷ ")[0].split(" (")[0]
    for suffix in ("-P", "-NDCG"):
        if first.endswith(suffix):
            first = first[: -len(suffix)]
    return first.lower()


def is_paper(label: str) -> bool:
    """True for a label of one of the PUF paper's measures (:data:`PAPER`).

    Examples
    --------
    >>> is_paper("PUF-P = PUF-NDCG"), is_paper("CV-P")
    (True, False)
    """
    return _stem(label) in PAPER


def panel_order(labels: Iterable[str], families: Mapping[str, str] | None = None) -> list[str]:
    """The labels in panel order: the PUF paper's measures first, a user's measures last.

    Parameters
    ----------
    labels : iterable of str
        Measure labels of a sweep (merged ones ``"A = B"`` included).
    families : dict of str to str, optional
        Label -> family; ``"your measures"`` go last. The rest keep their order.

    Returns
    -------
    list of str

    Examples
    --------
    >>> panel_order(["CV-P", "UF", "SD-P = SD-NDCG", "mine-P", "P@k = NDCG@k"],
    ...             {"mine-P": "your measures"})
    ['P@k = NDCG@k', 'SD-P = SD-NDCG', 'UF', 'CV-P', 'mine-P']
    """
    labels = list(dict.fromkeys(labels))
    family = (families or {}).get

    def rank(item: tuple[int, str]) -> tuple[int, int, int]:
        index, label = item
        stem = _stem(label)
        if stem in PAPER:
            return (0, PAPER.index(stem), index)
        return (2 if family(label) == "your measures" else 1, 0, index)

    return [label for _, label in sorted(enumerate(labels), key=rank)]


def fit_title(text: str, width: int) -> str:
    """Wrap a panel title to lines of at most ``width`` characters, at " = " first, then spaces.

    Examples
    --------
    >>> print(fit_title("Lipschitz-violation-P = Lipschitz-violation-NDCG", 26))
    Lipschitz-violation-P =
    Lipschitz-violation-NDCG
    >>> fit_title("SD-P", 26)
    'SD-P'
    """
    lines, current = [], ""
    for part in text.split(" = "):
        candidate = f"{current} = {part}" if current else part
        if current and len(candidate) + 2 > width:
            lines.append(current + " =")
            current = part
        else:
            current = candidate
    lines.append(current)
    return "\n".join(
        wrapped for line in lines for wrapped in (textwrap.wrap(line, width, break_long_words=False) or [""])
    )


def mark_undefined(ax: Axes, x_values: ArrayLike, missing: ArrayLike) -> bool:
    """Shade, hatched, the x range around each undefined point; return True when any was marked.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    x_values : array-like
        Every x of the sweep (sorted), to size each band to its neighbours.
    missing : array-like
        The x values where the panel's measure is undefined.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> mark_undefined(ax, [0.0, 0.5, 1.0], [1.0]), len(ax.patches)
    (True, 1)
    """
    x_values = np.unique(np.asarray(x_values, dtype=float))
    missing = np.unique(np.asarray(missing, dtype=float))
    if missing.size == 0:
        return False
    step = np.min(np.diff(x_values)) if x_values.size > 1 else 1.0
    for x in missing:
        index = int(np.searchsorted(x_values, x))
        low = x - (x - x_values[index - 1]) / 2 if index > 0 else x - step / 2
        high = x + (x_values[index + 1] - x) / 2 if index + 1 < x_values.size else x + step / 2
        ax.axvspan(low, high, zorder=0, **UNDEFINED_STYLE)
    return True


def figure_legend(fig: Figure, axes: Sequence[Axes], *, crossed: bool) -> None:
    """One legend under the grid: the levels of a crossed sweep, marker lines, undefined bands.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> ax = fig.subplots()
    >>> mark_undefined(ax, [0.0, 1.0], [1.0])
    True
    >>> figure_legend(fig, [ax], crossed=False)
    >>> [t.get_text() for t in fig.legends[0].get_texts()]
    ['undefined (NaN or ±inf): no value']
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if crossed or (
                isinstance(handle, Line2D) and handle.get_linestyle() in ("--", ":")
            ):  # levels, marker lines
                handles.setdefault(label, handle)
    if any(patch.get_hatch() for ax in axes for patch in ax.patches):
        handles["undefined (NaN or ±inf): no value"] = Patch(**UNDEFINED_STYLE)
    if handles:
        fig.legend(
            handles.values(),
            handles.keys(),
            loc="outside lower center",
            frameon=False,
            ncols=min(4, len(handles)),
            fontsize="small",
        )
