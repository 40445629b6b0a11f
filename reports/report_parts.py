"""What both report documents share: sections, verdict and label styles, cell text, the verdict pivot.

:mod:`reports.render` re-exports :class:`Section`, :data:`VERDICT_STYLE` and :data:`LABEL_STYLE`.
"""

from __future__ import annotations

__all__ = [
    "Section",
    "VERDICT_STYLE",
    "INFORMATIONAL",
    "LABEL_STYLE",
    "cell_text",
    "verdict_pivot",
    "flagged_cells",
    "cell_look",
    "legend_items",
    "example_lines",
]

from typing import Any
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

#: Background (Okabe-Ito hues, lightened), symbol: colour is never the only cue.
VERDICT_STYLE = {
    "proven": ("#9fdcc6", "✓✓"),
    "holds": ("#cfeee3", "✓"),
    "violated": ("#f7c9ad", "✗"),
    "not-found": ("#fbe3a6", "○"),
    "undefined": ("#d9d9d9", "?"),
    "not-applicable": ("#ffffff", "–"),
}
#: A violated informational property (scale, translation invariance) describes the measure
#: (absolute or relative): its own colour and symbol, so it never reads as a defect.
INFORMATIONAL = ("#fdf3c4", "i", "violated (informational)")
#: The background colour of each response label in the report's tables.
LABEL_STYLE = {"responds": "#cfeee3", "flat": "#d9d9d9", "wrong direction": "#f7c9ad", "non-monotone": "#fbe3a6"}


@dataclass
class Section:
    """One sweep (or other figure) of the report.

    Attributes
    ----------
    key : str
        Anchor and file stem, e.g. ``"zero_relevance"``.
    title : str
        Heading.
    text : str
        What was varied and how to read the figure (plain text; `code` in backticks).
    figure : pathlib.Path, optional
        The PNG, embedded in the HTML and linked from the Markdown.
    table : pandas.DataFrame, optional
        Response labels (or any small table) shown under the figure.
    files : list of str
        Data files of this section, by name (e.g. its CSV): embedded in the HTML.
    table_note : str
        One line shown right above the table (e.g. the driver its labels judge against).
    more_tables : list of (str, pandas.DataFrame)
        Further tables after the first, each with the line shown above it.

    Examples
    --------
    >>> s = Section("gamma", "sim_UF's weight", files=["gamma.csv"])
    >>> s.key, s.figure, s.files
    ('gamma', None, ['gamma.csv'])
    """

    key: str
    title: str
    text: str = ""
    figure: Path | None = None
    table: pd.DataFrame | None = None
    files: list = field(default_factory=list)
    table_note: str = ""
    more_tables: list = field(default_factory=list)


def cell_text(value: object) -> str:
    """A table cell as text: floats to 4 significant digits, NaN empty.

    Examples
    --------
    >>> cell_text(0.123456), cell_text(float("nan")), cell_text("flat"), cell_text(3)
    ('0.1235', '', 'flat', '3')
    """
    if isinstance(value, float):
        return "" if pd.isna(value) else f"{value:.4g}"
    return str(value)


def verdict_pivot(verdicts: pd.DataFrame) -> tuple[list[str], list[str], dict[tuple[str, str], tuple[str, str]]]:
    """Long table (measure, property, verdict, detail[, reason]) -> (measures, properties, cells).

    Measures and properties keep their first-seen order; ``cells`` maps
    (measure, property) to (verdict, detail).

    Examples
    --------
    >>> long = pd.DataFrame({"measure": ["sd", "sd", "gini"], "property": ["range", "defined", "range"],
    ...                      "verdict": ["holds", "holds", "violated"], "detail": ["", "", "m=1"]})
    >>> measures, properties, cells = verdict_pivot(long)
    >>> measures, properties, cells["gini", "range"]
    (['sd', 'gini'], ['range', 'defined'], ('violated', 'm=1'))
    """
    measures = list(dict.fromkeys(verdicts["measure"]))
    properties = list(dict.fromkeys(verdicts["property"]))
    cells = {(r.measure, r.property): (r.verdict, r.detail) for r in verdicts.itertuples()}
    return measures, properties, cells


def cell_look(row: Any) -> tuple[str, str, str]:
    """(colour, symbol, name) of a verdict cell; an informational violation has its own look.

    ``row`` has ``verdict`` and, optionally, ``informational`` (the property's flag).

    Examples
    --------
    >>> from types import SimpleNamespace as Row
    >>> cell_look(Row(verdict="violated", informational=False))[1:]
    ('✗', 'violated')
    >>> cell_look(Row(verdict="violated", informational=True))[1]
    'i'
    """
    if row.verdict == "violated" and getattr(row, "informational", False):
        return INFORMATIONAL
    colour, symbol = VERDICT_STYLE.get(row.verdict, ("#ffffff", ""))
    return colour, symbol, row.verdict


def legend_items() -> list[tuple[str, str, str]]:
    """(colour, symbol, text) of every look a verdict cell can have, for the legend.

    Examples
    --------
    >>> [symbol for _, symbol, _ in legend_items()]
    ['✓✓', '✓', 'i', '✗', '?', '–']
    """
    items = [(c, s, v) for v, (c, s) in VERDICT_STYLE.items()]
    colour, symbol, name = INFORMATIONAL
    note = f"{name}: scale or translation invariance, which describe a measure, not a defect"
    return items[:2] + [(colour, symbol, note)] + items[2:]


def flagged_cells(verdicts: pd.DataFrame) -> list[tuple[Any, str]]:
    """The violated and undefined cells both documents list, one line each: (row, reason).

    ``reason`` is the plain-language one where the table has it, else the run's detail.

    Examples
    --------
    >>> long = pd.DataFrame({"measure": ["sd", "gini"], "property": ["range", "defined"],
    ...                      "verdict": ["holds", "violated"], "detail": ["", "NaN at S = 0"]})
    >>> [(row.measure, reason) for row, reason in flagged_cells(long)]
    [('gini', 'NaN at S = 0')]
    """
    return [
        (r, getattr(r, "reason", "") or r.detail)
        for r in verdicts.itertuples()
        if r.verdict not in ("holds", "not-applicable") and r.detail
    ]


def example_lines(row: Any) -> list[str]:
    """The counterexample (or undefined input) of a flagged cell as text lines, or [] without one.

    ``row`` may carry ``example`` (the verdict's example dict, as properties.json stores it).

    Examples
    --------
    >>> from types import SimpleNamespace as Row
    >>> ex = {"change": "every S halved", "value_before": 0.5, "value_after": 0.25,
    ...       "before": {"effectiveness": [0.0, 1.0], "similarity": [[1, 0], [0, 1]]},
    ...       "after": {"effectiveness": [0.0, 0.5], "similarity": [[1, 0], [0, 1]]}}
    >>> example_lines(Row(verdict="violated", example=ex))[:2]
    ['counterexample (m = 2): every S halved', 'value before 0.5, after 0.25']
    """
    from puf.properties.display import format_example

    example = getattr(row, "example", None)
    if not isinstance(example, dict) or not example.get("before"):
        return []
    numbers = {
        k: float(v) if isinstance(v, str) else v
        for k, v in example.items()
        if k in ("value_before", "value_after", "violation")
    }
    return format_example({**example, **numbers}, status=row.verdict, indent=0).splitlines()
