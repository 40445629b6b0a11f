"""The report documents: a self-contained ``index.html`` and a ``report.md``.

The HTML embeds every figure as a base64 ``data:`` URI and every data file
(CSV) as a ``data:`` download link, carries its own CSS and no script, so the
single file opens offline in any browser and its links work when it is copied
alone. The Markdown links the PNGs and CSVs next to it. Both open with the
findings (:mod:`reports.findings`), then each sweep's figure with its trend
tables (collapsed in the HTML), then the measure x property verdict matrix
(coloured, with a symbol per verdict so it reads without colour too; in the
HTML every header shows the property's statement on hover and every cell its
reason in plain language), then which data, seeds and settings produced the
report. This module also holds what both documents share: the
:class:`Section`, the verdict and trend styles, cell text and the verdict
pivot. Text may mark code with Markdown backticks: the HTML shows it as
``<code>``, never as literal backticks.
"""

from __future__ import annotations

__all__ = [
    "Section",
    "VERDICT_STYLE",
    "INFORMATIONAL",
    "TREND_STYLE",
    "render_html",
    "render_markdown",
    "cell_text",
    "verdict_pivot",
    "flagged_cells",
    "cell_look",
    "legend_items",
    "example_lines",
    "FINDING_FILES",
]

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from dataclasses import dataclass, field
import os
import base64
import html
import re
from pathlib import Path

import pandas as pd

#: The tables the findings are read from, linked under them.
FINDING_FILES = ("findings.csv", "responses.csv", "contrasts.csv")
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
#: The background of a trend cell (:data:`reports.response.TRENDS`, by its words before any "("):
#: a flat curve grey, a one-way move green, one turn yellow, more turns orange.
TREND_STYLE = {"flat": "#d9d9d9", "rising": "#cfeee3", "falling": "#cfeee3", "non-monotone": "#f7c9ad"}
TREND_STYLE |= {
    f"{a} then {b}": "#e3f4ed" for a in ("rising", "falling", "flat") for b in ("flat", "rising", "falling") if a != b
}
TREND_STYLE |= {"rising then falling": "#fbe3a6", "falling then rising": "#fbe3a6"}


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
        One line shown right above the table (e.g. what its trend column reads against).
    more_tables : list of (str, pandas.DataFrame)
        Further tables after the first, each with the line shown above it.
    details : str
        How to read the figure at length (why curves merge or turn): collapsed in the HTML.

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
    details: str = ""


def cell_text(value: object) -> str:
    """A table cell as text: floats to 4 significant digits, NaN empty.

    Examples
    --------
    >>> cell_text(0.123456), cell_text(float("nan")), cell_text("flat"), cell_text(3), cell_text(-0.0)
    ('0.1235', '', 'flat', '3', '0')
    """
    if isinstance(value, float):
        return "" if pd.isna(value) else f"{value + 0.0:.4g}"  # (+ 0.0: a negative zero prints as 0)
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
    ['✓✓', '✓', 'i', '✗', '○', '?', '–']
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
    from puf.properties import CATALOG
    from puf.properties.running.display import format_example

    example = getattr(row, "example", None)
    if not isinstance(example, dict) or not example.get("before"):
        return []
    numbers = {
        k: float(v) if isinstance(v, str) else v
        for k, v in example.items()
        if k in ("value_before", "value_after", "violation")
    }
    prop = CATALOG.get(getattr(row, "property", ""))
    repeated = prop is not None and prop.fresh_workers
    return format_example(
        {**example, **numbers},
        status=row.verdict,
        indent=0,
        width=100,  # (as the terminal's lines: a long change folds under itself, not off the page)
        repeated=repeated,
        whole="properties.json holds them whole",
    ).splitlines()


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
.findings li{margin:.35em 0}.yes{color:#0b6e4f}.no{color:#b3261e}
details{margin:.5em 0}summary{cursor:pointer;color:#333}
pre{overflow-x:auto}
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
    colour = TREND_STYLE.get(str(value).split(" (")[0]) if column.startswith("trend") else None
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
    """A section: heading, text, figure; its tables collapsed under one line (the CSVs hold every number)."""
    parts = [f'<h2 id="{_esc(s.key)}">{_esc(s.title)}</h2><p>{_text(s.text)}</p>']
    if s.details:
        parts.append(f"<details><summary>Reading this figure</summary><p>{_text(s.details)}</p></details>")
    if s.figure is not None:
        parts.append(f'<img src="{_data_uri(s.figure)}" alt="{_esc(s.title)}">')
    tables = []
    if s.table_note:
        tables.append(f"<p class=note>{_text(s.table_note)}</p>")
    if s.table is not None and len(s.table):
        tables.append(_html_table(s.table))
    for note, table in s.more_tables:
        tables += [f"<p class=note>{_text(note)}</p>" if note else "", _html_table(table) if len(table) else ""]
    rows = (0 if s.table is None else len(s.table)) + sum(len(t) for _, t in s.more_tables)
    if rows and s.figure is None:  # a table is the section itself: shown open
        parts += tables
    elif rows:
        parts.append(f"<details><summary>The table of this figure ({rows} rows)</summary>{''.join(tables)}</details>")
    if s.files:
        parts.append(_file_links(s.files, folder))
    return "\n".join(parts)


def _html_findings(found: Sequence[Any]) -> str:
    """The findings list: per data source, each claim as reproduced or not, its sentence, its figures."""
    if not found:
        return ""
    items, data = [], None
    for f in found:
        if f.data != data:
            data = f.data
            items.append(f"</ul><h3>On {_esc(data)} data</h3><ul class=findings>")
        mark = {
            True: "<b class=yes>✓ reproduced</b>",
            False: "<b class=no>✗ not reproduced</b>",
            None: "<b>reading</b>",
        }
        links = ", ".join(f'<a href="#{_esc(k)}">figure {_esc(k)}</a>' for k in dict.fromkeys(f.figures) if k)
        items.append(f"<li>{mark[f.reproduced]} — <b>{_esc(f.claim)}</b>. {_text(f.sentence)} ({links})</li>")
    return (
        "<h2 id=findings>Findings</h2><p>The PUF paper's claims that these sweeps test, each read off this "
        "run's own tables (findings.csv, responses.csv, contrasts.csv).</p><ul>" + "".join(items) + "</ul>"
    )


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
    findings: Sequence[Any] = (),
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
        Shown right after the verdict matrix.
    folder : pathlib.Path, optional
        Where the sections' data files are: they are embedded as ``data:`` links.
        Without it the links are relative (the files must sit next to the page).
    findings : list of reports.findings.Finding
        What the run found, first on the page, each with links to its figures.

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
    toc = "<li><a href=#findings>Findings</a></li>" if findings else ""
    toc += "".join(f'<li><a href="#{_esc(s.key)}">{_esc(s.title)}</a></li>' for s in sections)
    toc += "<li><a href=#verdicts>Property verdicts</a></li>" if verdicts is not None else ""
    toc += "".join(f'<li><a href="#{_esc(s.key)}">{_esc(s.title)}</a></li>' for s in after_verdicts)
    if findings:
        parts += [_html_findings(findings), _file_links(list(FINDING_FILES), folder)]
    parts.append(
        f"<details><summary>Contents</summary><ul>{toc}<li><a href=#provenance>How this report was made</a></li></ul></details>"
    )
    parts.extend(_html_section(s, folder) for s in sections)
    if verdicts is not None:
        parts.append(
            f"<h2 id=verdicts>Property verdicts</h2><p>{_text(verdict_note)}</p>" + _html_verdicts(verdicts, statements)
        )
    parts.extend(_html_section(s, folder) for s in after_verdicts)
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


def _md_verdicts(verdicts: pd.DataFrame, verdict_note: str, statements: Mapping[str, str] | None) -> list[str]:
    measures, properties, _ = verdict_pivot(verdicts)
    looks = {(r.measure, r.property): cell_look(r) for r in verdicts.itertuples()}
    rows = [[m] + [" ".join(looks[m, p][1:]) if (m, p) in looks else "" for p in properties] for m in measures]
    out = [
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
    return out + [""]


def _md_section(s: Section) -> list[str]:
    out = [f"## {s.title}", "", s.text, ""] + ([s.details, ""] if s.details else [])
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
    return out


def _md_findings(found: Sequence[Any]) -> list[str]:
    if not found:
        return []
    out, data = ["## Findings", ""], None
    mark = {True: "✓ reproduced", False: "✗ not reproduced", None: "reading"}
    for f in found:
        if f.data != data:
            data = f.data
            out += ["", f"On {data} data:", ""]
        figures = ", ".join(f"[{k}]({k}.png)" for k in dict.fromkeys(f.figures) if k)
        out.append(f"- **{mark[f.reproduced]}: {f.claim}.** {f.sentence} ({figures})")
    return out + ["", "Data (next to this file): " + ", ".join(f"[{f}]({f})" for f in FINDING_FILES), ""]


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
    findings: Sequence[Any] = (),
) -> str:
    """Return the Markdown report (figures and data linked as the files beside it).

    Parameters are those of :func:`render_html`; ``statements`` are listed under the matrix.
    The order is the page's: findings, figures, verdicts, the sections after them.

    Examples
    --------
    >>> text = render_markdown(title="t", provenance={"seeds": "0"}, sections=[Section("a", "A")])
    >>> text.splitlines()[0]
    '# t'
    """
    out = [f"# {title}", ""] + ([f"> {caveat}", ""] if caveat else []) + _md_findings(findings)
    for s in sections:
        out += _md_section(s)
    out += _md_verdicts(verdicts, verdict_note, statements) if verdicts is not None else []
    for s in after_verdicts:
        out += _md_section(s)
    out += [
        "## How this report was made",
        "",
        _md_table(pd.DataFrame(list(provenance.items()), columns=["setting", "value"])),
        "",
    ]
    out += [n + "\n" for n in notes]
    return "\n".join(out).rstrip() + "\n"
