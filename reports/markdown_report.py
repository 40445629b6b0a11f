"""The Markdown report, ``report.md``: figures and data linked as the files beside it.

:mod:`reports.render` re-exports :func:`render_markdown`.
"""

__all__ = ["render_markdown"]

from pathlib import Path

import pandas as pd

from .report_parts import Section, cell_look, cell_text, example_lines, flagged_cells, legend_items, verdict_pivot


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
        measures, properties, _ = verdict_pivot(verdicts)
        looks = {(r.measure, r.property): cell_look(r) for r in verdicts.itertuples()}
        rows = [[m] + [" ".join(looks[m, p][1:]) if (m, p) in looks else "" for p in properties]
                for m in measures]
        out += ["## Property verdicts", "", verdict_note, "",
                _md_table(pd.DataFrame(rows, columns=["measure"] + properties)), "",
                "Legend: " + "; ".join(f"{s} {v}" for _, s, v in legend_items()), ""]
        if statements:
            out += [f"- *{p}*: {statements[p]}" for p in properties if p in statements] + [""]
        for r, reason in flagged_cells(verdicts):
            out.append(f"- **{r.measure}** / {r.property} ({cell_look(r)[2]}): {reason}")
            lines = example_lines(r)
            out += ["", "  ```", *(f"  {line}" for line in lines), "  ```", ""] if lines else []
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
