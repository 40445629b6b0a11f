"""The designer's output: a plain-text table, a JSON document and a Markdown report section."""

from __future__ import annotations

__all__ = ["format_design", "design_document", "design_markdown"]

from typing import Any
from collections.abc import Sequence
import numpy as np
from .design import Candidate, Cell


_SHORT = {"proven": "proven", "holds": "holds", "violated": "VIOLATED", "undefined": "undef", "not-applicable": "n/a"}


def _counterexample(cell: Cell) -> str:
    example = cell.example or {}
    before, after = example.get("before") or {}, example.get("after") or {}
    if "effectiveness" not in before:
        return ""
    text = "S = " + np.array2string(np.asarray(before["effectiveness"]), precision=4, separator=", ")
    if after.get("effectiveness") is not None:
        text += " → " + np.array2string(np.asarray(after["effectiveness"]), precision=4, separator=", ")
    return text


def _row(candidate: Candidate) -> str:
    return ", ".join(f"{c.property} {_SHORT.get(c.status, c.status)}" for c in candidate.cells)


def format_design(
    accepted: Sequence[Candidate], rejected: Sequence[Candidate], *, require: Sequence[str], forbid: Sequence[str] = ()
) -> str:
    """The accepted candidates ranked (each with its row), then every rejected one's first failing cell.

    Examples
    --------
    >>> from puf.properties.design import design
    >>> ok, no = design(["translation-invariance"], grammar={"index": {"cv": [None]}}, proofs="rules",
    ...                 max_examples=10)
    >>> print(format_design(ok, no, require=["translation-invariance"]).splitlines()[0])
    puf design: 0 of 1 candidates meet require translation-invariance
    """
    wanted = f"require {', '.join(require)}" + (f"; forbid {', '.join(forbid)}" if forbid else "")
    total = len(accepted) + len(rejected)
    lines = [f"puf design: {len(accepted)} of {total} candidates meet {wanted}"]
    if accepted:
        width = max(len(c.name) for c in accepted)
        lines.append(f"{'rank':>4}  {'form'.ljust(width)}  {'built-in':<16}  proven  row")
        for rank, c in enumerate(accepted, 1):
            lines.append(
                f"{rank:>4}  {c.name.ljust(width)}  {c.alias or '—':<16}  {c.n_proven:>3}/{len(c.cells):<3} {_row(c)}"
            )
    if rejected:
        lines.append("rejected (first failing cell and its counterexample):")
        width = max(len(c.name) for c in rejected)
        for c in rejected:
            cell = c.failed
            if cell is None:  # every rejected candidate has its failing cell
                continue
            lines.append(
                f"  {c.name.ljust(width)}  {cell.property}: {_SHORT.get(cell.status, cell.status)} "
                f"by {cell.by}" + (f"; {_counterexample(cell)}" if _counterexample(cell) else "")
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


def design_markdown(
    accepted: Sequence[Candidate],
    rejected: Sequence[Candidate],
    *,
    require: Sequence[str],
    forbid: Sequence[str] = (),
    note: str = "",
) -> str:
    """The designer's result as a Markdown section of a report."""
    out = [
        "## Measure design",
        "",
        note,
        "",
        f"Required: {', '.join(f'`{p}`' for p in require)}"
        + (f"; forbidden: {', '.join(f'`{p}`' for p in forbid)}" if forbid else "")
        + ".",
        "",
        f"{len(accepted)} of {len(accepted) + len(rejected)} candidates meet them, ranked by proven cells.",
        "",
        "| rank | form | built-in | proven | row |",
        "|---|---|---|---|---|",
    ]
    out += [
        f"| {i} | `{c.name}` | {c.alias or '—'} | {c.n_proven}/{len(c.cells)} | {_row(c)} |"
        for i, c in enumerate(accepted, 1)
    ]
    if rejected:
        out += ["", "| rejected form | first failing cell | decided by | counterexample |", "|---|---|---|---|"]
        out += [
            f"| `{c.name}` | {cell.property}: {cell.status} | {cell.by} | {_counterexample(cell) or '—'} |"
            for c in rejected
            if (cell := c.failed) is not None
        ]
    return "\n".join(out) + "\n"
