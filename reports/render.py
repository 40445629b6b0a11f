"""The report documents: a self-contained ``index.html`` and a ``report.md``.

The HTML embeds every figure as a base64 ``data:`` URI and every data file
(CSV) as a ``data:`` download link, carries its own CSS and no script, so the
single file opens offline in any browser and its links work when it is copied
alone. The Markdown links the PNGs and CSVs next to it. Both put the measure x
property verdict matrix near the top (coloured, with a symbol per verdict so
it reads without colour too; in the HTML every header shows the property's
statement on hover and every cell its reason in plain language), then each
sweep's figure with its response labels, then which data, seeds and settings
produced the report. Text may mark code with Markdown backticks: the HTML
shows it as ``<code>``, never as literal backticks.
"""

from __future__ import annotations

__all__ = ["Section", "VERDICT_STYLE", "LABEL_STYLE", "render_html", "render_markdown"]

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
import os
import base64
import html
import re
from pathlib import Path

import pandas as pd

from .report_parts import (
    LABEL_STYLE,
    VERDICT_STYLE,
    Section,
    cell_look,
    cell_text,
    example_lines,
    flagged_cells,
    legend_items,
    verdict_pivot,
)

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}
th,td{border:1px solid #bbb;padding:.25em .55em;text-align:left;vertical-align:top}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}
img{max-width:100%;height:auto;border:1px solid #ddd}
.scroll{overflow-x:auto;max-width:100%}
.verdicts{font-size:.85em}
.verdicts td{text-align:center;white-space:nowrap;min-width:1.6em;padding:.2em .3em;cursor:help}
.verdicts thead th{vertical-align:bottom;padding:.3em .2em;cursor:help}
.verdicts thead th span{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap}
.verdicts th:first-child{position:sticky;left:0;z-index:1;background:#f2f2f2;white-space:nowrap;
text-align:left;padding:.2em .5em}
.note{color:#555;font-size:.9em}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.verdicts td{position:relative}
.verdicts td.family{text-align:left;font-weight:600;background:#fafafa;cursor:default}
.caveat{background:#fbe3a6;border:1px solid #d9b44a;padding:.5em .8em}
code{background:#f4f4f4;padding:0 .2em}
td code{white-space:nowrap}
"""


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _text(value: object) -> str:
    """Escaped text with `code` in backticks shown as <code>, never as literal backticks."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _esc(value)).replace("`", "")


def _plain(value: object) -> str:
    """Text for a title attribute (hover): backticks dropped."""
    return _esc(str(value).replace("`", ""))


def _td(column: str, value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f'<td class="num">{_esc(cell_text(value))}</td>'
    colour = LABEL_STYLE.get(value) if column in ("label", "against the driver") else None
    style = f' style="background:{colour}"' if colour else ""
    return f"<td{style}>{_text(cell_text(value))}</td>"


def _html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(_td(c, v) for c, v in zip(frame.columns, row)) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    return f"<div class=scroll><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


def _hover(row: Any) -> str:
    """A cell's hover text: its verdict, its plain-language reason, and this run's detail if other."""
    reason = getattr(row, "reason", "") or row.detail
    name = cell_look(row)[2]
    text = f"{name}: {reason}" if reason else name
    if row.detail and row.detail not in reason:
        text += f" (this run: {row.detail})"
    return "\n".join([text] + example_lines(row))


def _html_verdicts(verdicts: pd.DataFrame, statements: Mapping[str, str]) -> str:
    measures, properties, _ = verdict_pivot(verdicts)
    rows = {(r.measure, r.property): r for r in verdicts.itertuples()}
    head = "<th>measure</th>" + "".join(
        f'<th title="{_plain(p)}: {_plain(statements.get(p, ""))}"><span>{_esc(p)}</span></th>' for p in properties
    )
    families = dict(zip(verdicts["measure"], verdicts["family"])) if "family" in verdicts else {}
    body, shown = [], None
    for m in measures:
        if families.get(m, shown) != shown:  # a group row where the family changes
            shown = families[m]
            body.append(f"<tr><td class=family colspan={len(properties) + 1}>{_esc(shown)}</td></tr>")
        tds = []
        for p in properties:
            row = rows.get((m, p))
            if row is None:
                tds.append("<td></td>")
                continue
            colour, symbol, name = cell_look(row)
            tds.append(
                f'<td style="background:{colour}" title="{_plain(_hover(row))}">'
                f"{symbol}<span class=sr> {_esc(name)}</span></td>"
            )
        body.append(f"<tr><th>{_esc(m)}</th>{''.join(tds)}</tr>")
    legend = " ".join(
        f'<span style="background:{c};padding:0 .4em;border:1px solid #bbb">{s} {v}</span>'
        for c, s, v in legend_items()
    )
    violations = [
        f"<li><b>{_esc(r.measure)}</b> / {_esc(r.property)} ({_esc(cell_look(r)[2])}): "
        f"{_text(reason)}"
        + (f"<pre>{_esc(chr(10).join(example_lines(r)))}</pre>" if example_lines(r) else "")
        + "</li>"
        for r, reason in flagged_cells(verdicts)
    ]
    return (
        f'<div class="scroll" id=verdict-matrix><table class="verdicts"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div><p class=note>{legend}</p>"
        + (
            f"<details><summary>Every violated or undefined cell, one line each</summary>"
            f"<ul>{''.join(violations)}</ul></details>"
            if violations
            else ""
        )
    )


def _data_uri(path: str | os.PathLike[str], kind: str = "image/png") -> str:
    return f"data:{kind};base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")


def _file_links(files: Sequence[str], folder: str | os.PathLike[str] | None) -> str:
    if folder is None:
        return (
            "<p class=note>Data (next to this file): "
            + ", ".join(f'<a href="{_esc(f)}">{_esc(f)}</a>' for f in files)
            + "</p>"
        )
    kinds = {".csv": "text/csv", ".json": "application/json"}
    links = ", ".join(
        f'<a href="{_data_uri(Path(folder) / f, kinds.get(Path(f).suffix, "text/plain"))}" '
        f'download="{_esc(f)}">{_esc(f)}</a>'
        for f in files
    )
    return (
        f"<p class=note>Data: {links} (embedded in this page, so the links work when index.html "
        "is copied alone; the same files are written next to it).</p>"
    )


def _html_section(s: Section, folder: str | os.PathLike[str] | None) -> str:
    parts = [f'<h2 id="{_esc(s.key)}">{_esc(s.title)}</h2><p>{_text(s.text)}</p>']
    if s.figure is not None:
        parts.append(f'<img src="{_data_uri(s.figure)}" alt="{_esc(s.title)}">')
    if s.table_note:
        parts.append(f"<p class=note>{_text(s.table_note)}</p>")
    if s.table is not None and len(s.table):
        parts.append(_html_table(s.table))
    for note, table in s.more_tables:
        parts += [f"<p class=note>{_text(note)}</p>" if note else "", _html_table(table) if len(table) else ""]
    if s.files:
        parts.append(_file_links(s.files, folder))
    return "\n".join(parts)


def render_html(
    *,
    title: str,
    provenance: Mapping[str, object],
    sections: Sequence[Section],
    verdicts: pd.DataFrame | None = None,
    verdict_note: str = "",
    notes: Iterable[str] = (),
    statements: Mapping[str, str] | None = None,
    caveat: str = "",
    after_verdicts: Sequence[Section] = (),
    folder: str | os.PathLike[str] | None = None,
) -> str:
    """Return the self-contained HTML report as a string.

    Parameters
    ----------
    title : str
        Page title.
    provenance : dict of str to str
        Which data, seeds and settings produced the report (shown as a table).
    sections : list of Section
        In order; each figure is embedded as a base64 PNG.
    verdicts : pandas.DataFrame, optional
        Long table ``measure, property, verdict, detail`` and optionally ``reason``
        (the plain-language line shown on hover; default ``detail``).
    verdict_note : str
        How the verdicts were obtained (examples per property, seed).
    notes : iterable of str
        Further paragraphs at the end (plain text).
    statements : dict of str to str, optional
        Property -> one-line statement, shown on hover over its column header.
    caveat : str
        A warning shown at the top (e.g. that a --quick search was small).
    after_verdicts : list of Section
        Shown right after the verdict matrix, before the sweeps.
    folder : pathlib.Path, optional
        Where the sections' data files are: they are embedded as ``data:`` links.
        Without it the links are relative (the files must sit next to the page).

    Returns
    -------
    str

    Examples
    --------
    >>> page = render_html(title="t", provenance={"seeds": "0, 1"}, sections=[Section("a", "A <b>")])
    >>> '<h2 id="a">A &lt;b&gt;</h2>' in page, "<script" in page
    (True, False)
    """
    statements = statements or {}
    parts = [
        f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body><h1>{_esc(title)}</h1>"
    ]
    if caveat:
        parts.append(f"<p class=caveat>{_text(caveat)}</p>")
    toc = "<li><a href=#verdicts>Property verdicts</a></li>" if verdicts is not None else ""
    toc += "".join(
        f'<li><a href="#{_esc(s.key)}">{_esc(s.title)}</a></li>' for s in list(after_verdicts) + list(sections)
    )
    parts.append(f"<ul>{toc}<li><a href=#provenance>How this report was made</a></li></ul>")
    if verdicts is not None:
        parts.append(
            f"<h2 id=verdicts>Property verdicts</h2><p>{_text(verdict_note)}</p>" + _html_verdicts(verdicts, statements)
        )
    parts.extend(_html_section(s, folder) for s in list(after_verdicts) + list(sections))
    parts += [
        "<h2 id=provenance>How this report was made</h2>",
        _html_table(pd.DataFrame(list(provenance.items()), columns=["setting", "value"])),
    ]
    parts.extend(f"<p class=note>{_text(n)}</p>" for n in notes)
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _md_cell(value: object) -> str:
    return cell_text(value).replace("|", "\\|").replace("\n", " ")


def _md_table(frame: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(_md_cell(c) for c in frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def render_markdown(
    *,
    title: str,
    provenance: Mapping[str, object],
    sections: Sequence[Section],
    verdicts: pd.DataFrame | None = None,
    verdict_note: str = "",
    notes: Iterable[str] = (),
    statements: Mapping[str, str] | None = None,
    caveat: str = "",
    after_verdicts: Sequence[Section] = (),
) -> str:
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
        rows = [[m] + [" ".join(looks[m, p][1:]) if (m, p) in looks else "" for p in properties] for m in measures]
        out += [
            "## Property verdicts",
            "",
            verdict_note,
            "",
            _md_table(pd.DataFrame(rows, columns=["measure"] + properties)),
            "",
            "Legend: " + "; ".join(f"{s} {v}" for _, s, v in legend_items()),
            "",
        ]
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
        for note, table in s.more_tables:
            out += ([note, ""] if note else []) + ([_md_table(table), ""] if len(table) else [])
        if s.files:
            out += ["Data (next to this file): " + ", ".join(f"[{f}]({f})" for f in s.files), ""]
    out += [
        "## How this report was made",
        "",
        _md_table(pd.DataFrame(list(provenance.items()), columns=["setting", "value"])),
        "",
    ]
    out += [n + "\n" for n in notes]
    return "\n".join(out).rstrip() + "\n"
