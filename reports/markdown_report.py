"""The Markdown report, ``report.md``: figures and data linked as the files beside it.

:mod:`reports.render` re-exports :func:`render_markdown`.
"""

__all__ = ["render_markdown"]

from pathlib import Path

import pandas as pd

from .report_parts import VERDICT_STYLE, Section, cell_text, flagged_cells, verdict_pivot  # noqa: F401 (Section: the doctest)


def _md_cell(value):
    return cell_text(value).replace("|", "\\|").replace("\n", " ")


def _md_table(frame):
    lines = ["| " + " | ".join(_md_cell(c) for c in frame.columns) + " |",
             "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def render_markdown(*, title, provenance, sections, verdicts=None, verdict_note="", notes=(),
                    statements=None, caveat="", after_verdicts=()):
    """Return the Markdown report (figures and data linked as the files beside it).

    Parameters are those of :func:`render_html`; ``statements`` are listed under the matrix.

    Examples
    --------
    >>> text = render_markdown(title="t", provenance={"seeds": "0"}, sections=[Section("a", "A")])
    >>> text.splitlines()[0]
    '# t'
    """
    out = [f"# {title}", ""] + ([f"> {caveat}", ""] if caveat else [])
    if verdicts is not None:
        measures, properties, cells = verdict_pivot(verdicts)
        rows = [[m] + [" ".join(filter(None, (VERDICT_STYLE.get(cells.get((m, p), ("", ""))[0], ("", ""))[1],
                                             cells.get((m, p), ("", ""))[0]))) for p in properties]
                for m in measures]
        out += ["## Property verdicts", "", verdict_note, "",
                _md_table(pd.DataFrame(rows, columns=["measure"] + properties)), ""]
        if statements:
            out += [f"- *{p}*: {statements[p]}" for p in properties if p in statements] + [""]
        out += [f"- **{r.measure}** / {r.property} ({r.verdict}): {reason}"
                for r, reason in flagged_cells(verdicts)]
        out.append("")
    for s in list(after_verdicts) + list(sections):
        out += [f"## {s.title}", "", s.text, ""]
        if s.figure is not None:
            out += [f"![{s.title}]({Path(s.figure).name})", ""]
        if s.table_note:
            out += [s.table_note, ""]
        if s.table is not None and len(s.table):
            out += [_md_table(s.table), ""]
        if s.files:
            out += ["Data (next to this file): " + ", ".join(f"[{f}]({f})" for f in s.files), ""]
    out += ["## How this report was made", "",
            _md_table(pd.DataFrame(list(provenance.items()), columns=["setting", "value"])), ""]
    out += [n + "\n" for n in notes]
    return "\n".join(out).rstrip() + "\n"
