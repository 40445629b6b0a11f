"""The designer's output: a plain-text table, a JSON document and a Markdown report section."""

from __future__ import annotations

__all__ = ["format_design", "design_document", "design_frames", "design_markdown", "design_summary"]

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from puf.lines import folded

from ..catalog.judges import telling_decimals
from .candidate import Candidate, Cell

_SHORT = {
    "proven": "proven",
    "holds": "holds",
    "violated": "VIOLATED",
    "not-found": "not found",
    "undefined": "undef",
    "not-applicable": "n/a",
}


def _counterexample(cell: Cell) -> str:
    example = cell.example or {}
    before, after = example.get("before") or {}, example.get("after") or {}
    if "effectiveness" not in before:
        return ""
    moved = after.get("effectiveness")
    digits = None if moved is None else telling_decimals(before["effectiveness"], moved)
    text = "S = " + _one_line(before["effectiveness"], digits)
    if moved is not None:
        text += " → " + _one_line(moved, digits)
    return text


def _one_line(values: Any, digits: int | None) -> str:
    """``values`` as numpy prints them, with ``digits`` decimals (:func:`telling_decimals`), in
    one line (folded where the row is shown)."""
    return np.array2string(np.asarray(values), precision=digits or 4, separator=", ", max_line_width=10**9)


def _row(candidate: Candidate) -> str:
    return ", ".join(f"{c.property} {_SHORT.get(c.status, c.status)}" for c in candidate.cells)


def _grouped_row(candidate: Candidate) -> str:
    """The row grouped by status: "proven: a, b; holds: c; violated: d" (a report's table cell)."""
    groups = {}
    for cell in candidate.cells:
        groups.setdefault(cell.status, []).append(cell.property)
    order = [s for s in _SHORT if s in groups] + [s for s in groups if s not in _SHORT]
    return "; ".join(f"{status}: {', '.join(groups[status])}" for status in order)


def format_design(
    accepted: Sequence[Candidate],
    rejected: Sequence[Candidate],
    *,
    require: Sequence[str],
    forbid: Sequence[str] = (),
    width: int | None = None,
) -> str:
    """The accepted candidates ranked (each with its row), then every rejected one's first failing cell.

    ``width``: characters a line may take (a row folds under its column); default: lines not folded.

    Examples
    --------
    >>> from puf.properties.proving.design import design
    >>> ok, no = design(["translation-invariance"], grammar={"index": {"cv": [None]}}, proofs="rules",
    ...                 max_examples=10)
    >>> print(format_design(ok, no, require=["translation-invariance"]).splitlines()[0])
    puf design: 0 of 1 candidates meet require translation-invariance
    """
    wanted = f"require {', '.join(require)}" + (f"; forbid {', '.join(forbid)}" if forbid else "")
    total = len(accepted) + len(rejected)

    def add(line: str, hang: int) -> None:
        lines.append(line if width is None else folded(line, width, hang=hang))

    lines: list[str] = []
    add(f"puf design: {len(accepted)} of {total} candidates meet {wanted}", 4)
    if accepted:
        form = max(len(c.name) for c in accepted)
        lines.append(f"{'rank':>4}  {'form'.ljust(form)}  {'built-in':<16}  proven  row")
        for rank, c in enumerate(accepted, 1):
            add(
                f"{rank:>4}  {c.name.ljust(form)}  {c.alias or '—':<16}  {c.n_proven:>3}/{len(c.cells):<3} {_row(c)}",
                form + 32,
            )
    if rejected:
        lines.append("rejected (first failing cell and its counterexample):")
        form = max(len(c.name) for c in rejected)
        for c in rejected:
            cell = c.failed
            if cell is None:  # every rejected candidate has its failing cell
                continue
            add(
                f"  {c.name.ljust(form)}  {cell.property}: {_SHORT.get(cell.status, cell.status)} "
                f"by {cell.by}" + (f"; {_counterexample(cell)}" if _counterexample(cell) else ""),
                form + 4,
            )
    return "\n".join(lines)


def design_document(
    accepted: Sequence[Candidate],
    rejected: Sequence[Candidate],
    *,
    require: Sequence[str],
    forbid: Sequence[str] = (),
    note: str = "",
) -> dict[str, Any]:
    """The designer's result as a JSON-ready dict."""
    return {
        "note": note,
        "require": list(require),
        "forbid": list(forbid),
        "accepted": [c.to_dict() for c in accepted],
        "rejected": [c.to_dict() for c in rejected],
    }


def design_frames(accepted: Sequence[Any], rejected: Sequence[Any]) -> tuple[Any, Any]:
    """The accepted candidates and the rejected ones as two tables (forms in `backticks`).

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        ``rank, form, built-in, proven, row`` (ranked) and ``rejected form, first failing
        cell, decided by, counterexample`` (grid order).

    Examples
    --------
    >>> from puf.properties.proving.design import design
    >>> ok, no = design(["scale-invariance"], grammar={"index": {"cv": [None]}, "pair": {"gap": ["abs"]}},
    ...                 proofs="rules", max_examples=10)
    >>> kept, refused = design_frames(ok, no)
    >>> kept.loc[0, "form"], refused.loc[0, "first failing cell"]
    ('`cv`', 'scale-invariance: violated')
    """
    import pandas as pd

    kept = pd.DataFrame(
        [
            {
                "rank": i,
                "form": f"`{c.name}`",
                "built-in": c.alias or "—",
                "proven": f"{c.n_proven}/{len(c.cells)}",
                "row": _grouped_row(c),
            }
            for i, c in enumerate(accepted, 1)
        ],
        columns=["rank", "form", "built-in", "proven", "row"],
    )
    refused = pd.DataFrame(
        [
            {
                "rejected form": f"`{c.name}`",
                "first failing cell": f"{c.failed.property}: {c.failed.status}",
                "decided by": c.failed.by,
                "counterexample": _counterexample(c.failed) or "—",
            }
            for c in rejected
        ],
        columns=["rejected form", "first failing cell", "decided by", "counterexample"],
    )
    return kept, refused


def _md_table(frame: pd.DataFrame) -> list[str]:
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    return lines + [
        "| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |" for row in frame.itertuples(index=False)
    ]


def design_markdown(
    accepted: Sequence[Candidate],
    rejected: Sequence[Candidate],
    *,
    require: Sequence[str],
    forbid: Sequence[str] = (),
    note: str = "",
) -> str:
    """The designer's result as a Markdown section of a report.

    Examples
    --------
    >>> from puf.properties.proving.design import design
    >>> ok, no = design(["scale-invariance"], grammar={"index": {"cv": [None]}}, proofs="rules", max_examples=10)
    >>> design_markdown(ok, no, require=["scale-invariance"]).splitlines()[-1][:17]
    '| 1 | `cv` | cv |'
    """
    kept, refused = design_frames(accepted, rejected)
    out = ["## Measure design", "", note, "", design_summary(accepted, rejected, require=require, forbid=forbid), ""]
    out += _md_table(kept)
    if len(refused):
        out += ["", *_md_table(refused)]
    return "\n".join(out) + "\n"


def design_summary(
    accepted: Sequence[Any], rejected: Sequence[Any], *, require: Sequence[str], forbid: Sequence[str] = ()
) -> str:
    """One paragraph: what was required (and forbidden), and how many candidates meet it.

    Examples
    --------
    >>> design_summary([], [], require=["range"], forbid=["defined"])
    'Required: `range`; forbidden: `defined`. 0 of 0 candidates meet them, ranked by proven cells.'
    """
    return (
        f"Required: {', '.join(f'`{p}`' for p in require)}"
        + (f"; forbidden: {', '.join(f'`{p}`' for p in forbid)}" if forbid else "")
        + f". {len(accepted)} of {len(accepted) + len(rejected)} candidates meet them, ranked by proven cells."
    )
