"""The per-ranker table ``puf evaluate`` prints: as text that fits the terminal, as JSON or as CSV.

The text form has one row per measure and one column per ranker, the rankers cut
into blocks as wide as the terminal (``COLUMNS``, else the terminal's width), so
no line wraps however many measures there are; ``scores.csv`` holds the same
table with full precision. Numbers have four significant digits, so a small
non-zero value never prints as 0.0000.
"""

from __future__ import annotations

__all__ = ["format_table", "number"]

from typing import TYPE_CHECKING
import json
import math

if TYPE_CHECKING:
    import pandas as pd


def number(value: float) -> str:
    """A score as printed: four significant digits, never a non-zero as 0; NaN as "undefined".

    Examples
    --------
    >>> number(0.123456), number(3.2e-06), number(0.0), number(1234.5), number(float("nan"))
    ('0.1235', '3.2e-06', '0', '1234', 'undefined')
    """
    if math.isnan(value):
        return "undefined"
    return f"{value:.4g}"


def _render(table: pd.DataFrame) -> str:
    """Rankers as columns, measures as rows, every number through :func:`number`."""
    block = table.T.map(lambda v: number(float(v)))
    block.index.name = "measure"
    return block.to_string()


def _fits(text: str, width: int) -> bool:
    return max(len(line) for line in text.splitlines()) <= width


def _text(table: pd.DataFrame, width: int) -> str:
    """Blocks of as many rankers as fit ``width`` (at least one each), one after another."""
    blocks, start = [], 0
    while start < len(table):
        end = start + 1
        while end < len(table) and _fits(_render(table.iloc[start : end + 1]), width):
            end += 1
        blocks.append(_render(table.iloc[start:end]))
        start = end
    return "\n\n".join(blocks)


def format_table(table: pd.DataFrame, fmt: str, *, width: int | None = None) -> str:
    """Render the per-ranker table as ``table`` (text), ``json`` or ``csv``.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per ranker, one column per measure (:func:`puf.evaluation.evaluate_runs`).
    fmt : {"table", "json", "csv"}
    width : int, optional
        Characters a line may take in the text form; default the terminal's width, at most
        :data:`puf.lines.WIDTH` (:func:`puf.lines.terminal_width`).

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"P@10": [0.5, float("nan")], "PUF-P": [1e-05, 0.02]},
    ...                      index=pd.Index(["a", "b"], name="ranker"))
    >>> print(format_table(table, "table", width=80))
    ranker        a     b
    measure
    P@10        0.5  undefined
    PUF-P     1e-05  0.02
    >>> print(format_table(table, "json"))
    {"a": {"P@10": 0.5, "PUF-P": 1e-05}, "b": {"P@10": null, "PUF-P": 0.02}}
    >>> print(format_table(table, "csv"))
    ranker,P@10,PUF-P
    a,0.5,1e-05
    b,,0.02
    """
    from puf.lines import terminal_width

    if fmt == "json":
        clean = {
            name: {c: (None if math.isnan(v) else float(v)) for c, v in row.items()}
            for name, row in table.to_dict(orient="index").items()
        }
        return json.dumps(clean)
    if fmt == "csv":
        return table.to_csv().rstrip("\n")
    return _text(table, width or terminal_width())
