"""The report documents: a self-contained ``index.html`` and a ``report.md``.

The HTML embeds every figure as a base64 ``data:`` URI and carries its own
CSS and no script, so the single file opens offline in any browser. The
Markdown links the PNGs next to it. Both say which data, seeds and settings
produced the report, show each sweep's figure with its response labels, and
the measure x property verdict matrix, coloured and with a symbol per
verdict so it reads without colour too.
"""

__all__ = ["Section", "VERDICT_STYLE", "LABEL_STYLE", "render_html", "render_markdown"]

import base64
import html
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

# Background (Okabe-Ito hues, lightened), symbol: colour is never the only cue.
VERDICT_STYLE = {
    "holds": ("#cfeee3", "✓"),
    "violated": ("#f7c9ad", "✗"),
    "undefined": ("#d9d9d9", "?"),
    "not-applicable": ("#ffffff", "–"),
}
LABEL_STYLE = {"responds": "#cfeee3", "flat": "#d9d9d9", "wrong direction": "#f7c9ad",
               "non-monotone": "#fbe3a6"}
_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}
th,td{border:1px solid #bbb;padding:.25em .55em;text-align:left;vertical-align:top}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}
img{max-width:100%;height:auto;border:1px solid #ddd}
.verdicts{font-size:.8em}.verdicts td{text-align:center;white-space:nowrap}.note{color:#555;font-size:.9em}
code{background:#f4f4f4;padding:0 .2em}
"""


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
        What was varied and how to read the figure (plain text).
    figure : pathlib.Path, optional
        The PNG, embedded in the HTML and linked from the Markdown.
    table : pandas.DataFrame, optional
        Response labels (or any small table) shown under the figure.
    files : list of str
        Data files of this section, linked by name (e.g. its CSV).
    """

    key: str
    title: str
    text: str = ""
    figure: Path | None = None
    table: pd.DataFrame | None = None
    files: list = field(default_factory=list)


def _esc(value):
    return html.escape(str(value), quote=True)


def _cell(value):
    if isinstance(value, float):
        return "" if pd.isna(value) else f"{value:.4g}"
    return str(value)


def _td(column, value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f'<td class="num">{_esc(_cell(value))}</td>'
    colour = LABEL_STYLE.get(value) if column == "label" else None
    style = f' style="background:{colour}"' if colour else ""
    return f"<td{style}>{_esc(_cell(value))}</td>"


def _html_table(frame):
    head = "".join(f"<th>{_esc(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(_td(c, v) for c, v in zip(frame.columns, row)) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _verdict_pivot(verdicts):
    """Long table (measure, property, verdict, detail) -> ordered measures, properties."""
    measures = list(dict.fromkeys(verdicts["measure"]))
    properties = list(dict.fromkeys(verdicts["property"]))
    cells = {(r.measure, r.property): (r.verdict, r.detail) for r in verdicts.itertuples()}
    return measures, properties, cells


def _html_verdicts(verdicts):
    measures, properties, cells = _verdict_pivot(verdicts)
    head = "<th>measure</th>" + "".join(f"<th>{_esc(p)}</th>" for p in properties)
    rows = []
    for m in measures:
        tds = []
        for p in properties:
            verdict, detail = cells.get((m, p), ("", ""))
            colour, symbol = VERDICT_STYLE.get(verdict, ("#ffffff", ""))
            tds.append(f'<td style="background:{colour}" title="{_esc(detail)}">'
                       f"{symbol} {_esc(verdict)}</td>")
        rows.append(f"<tr><th>{_esc(m)}</th>{''.join(tds)}</tr>")
    legend = " ".join(f'<span style="background:{c};padding:0 .4em;border:1px solid #bbb">{s} {v}</span>'
                      for v, (c, s) in VERDICT_STYLE.items())
    violations = [f"<li><b>{_esc(r.measure)}</b> / {_esc(r.property)} ({_esc(r.verdict)}): {_esc(r.detail)}</li>"
                  for r in verdicts.itertuples() if r.verdict not in ("holds", "not-applicable") and r.detail]
    return (f'<div style="overflow-x:auto"><table class="verdicts"><thead><tr>{head}</tr></thead><tbody>'
            f"{''.join(rows)}</tbody></table></div><p class=note>{legend}</p>"
            + (f"<details><summary>Every violation, one line each</summary><ul>{''.join(violations)}</ul></details>"
               if violations else ""))


def _data_uri(path):
    return "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")


def render_html(*, title, provenance, sections, verdicts=None, verdict_note="", notes=()):
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
        Long table ``measure, property, verdict, detail``.
    verdict_note : str
        How the verdicts were obtained (examples per property, seed).
    notes : iterable of str
        Further paragraphs at the end (plain text).

    Returns
    -------
    str

    Examples
    --------
    >>> page = render_html(title="t", provenance={"seeds": "0, 1"}, sections=[Section("a", "A <b>")])
    >>> "<h2 id=\\"a\\">A &lt;b&gt;</h2>" in page, "<script" in page
    (True, False)
    """
    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
             f"<meta name=viewport content='width=device-width,initial-scale=1'>"
             f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body><h1>{_esc(title)}</h1>",
             "<h2 id=provenance>How this report was made</h2>",
             _html_table(pd.DataFrame(list(provenance.items()), columns=["setting", "value"]))]
    toc = "".join(f'<li><a href="#{_esc(s.key)}">{_esc(s.title)}</a></li>' for s in sections)
    parts.append(f"<ul>{toc}{'<li><a href=#verdicts>Property verdicts</a></li>' if verdicts is not None else ''}</ul>")
    for s in sections:
        parts.append(f'<h2 id="{_esc(s.key)}">{_esc(s.title)}</h2><p>{_esc(s.text)}</p>')
        if s.figure is not None:
            parts.append(f'<img src="{_data_uri(s.figure)}" alt="{_esc(s.title)}">')
        if s.table is not None and len(s.table):
            parts.append(_html_table(s.table))
        if s.files:
            parts.append("<p class=note>Data: " + ", ".join(
                f'<a href="{_esc(f)}">{_esc(f)}</a>' for f in s.files) + "</p>")
    if verdicts is not None:
        parts.append(f"<h2 id=verdicts>Property verdicts</h2><p>{_esc(verdict_note)}</p>"
                     + _html_verdicts(verdicts))
    parts.extend(f"<p class=note>{_esc(n)}</p>" for n in notes)
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _md_cell(value):
    return _cell(value).replace("|", "\\|").replace("\n", " ")


def _md_table(frame):
    lines = ["| " + " | ".join(_md_cell(c) for c in frame.columns) + " |",
             "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def render_markdown(*, title, provenance, sections, verdicts=None, verdict_note="", notes=()):
    """Return the Markdown report (figures linked as the PNG files beside it).

    Parameters are those of :func:`render_html`.

    Examples
    --------
    >>> text = render_markdown(title="t", provenance={"seeds": "0"}, sections=[Section("a", "A")])
    >>> text.splitlines()[0]
    '# t'
    """
    out = [f"# {title}", "", "## How this report was made", "",
           _md_table(pd.DataFrame(list(provenance.items()), columns=["setting", "value"])), ""]
    for s in sections:
        out += [f"## {s.title}", "", s.text, ""]
        if s.figure is not None:
            out += [f"![{s.title}]({Path(s.figure).name})", ""]
        if s.table is not None and len(s.table):
            out += [_md_table(s.table), ""]
        if s.files:
            out += ["Data: " + ", ".join(f"[{f}]({f})" for f in s.files), ""]
    if verdicts is not None:
        measures, properties, cells = _verdict_pivot(verdicts)
        rows = [[m] + [" ".join(filter(None, (VERDICT_STYLE.get(cells.get((m, p), ("", ""))[0], ("", ""))[1],
                                             cells.get((m, p), ("", ""))[0]))) for p in properties]
                for m in measures]
        out += ["## Property verdicts", "", verdict_note, "",
                _md_table(pd.DataFrame(rows, columns=["measure"] + properties)), ""]
        out += [f"- **{r.measure}** / {r.property} ({r.verdict}): {r.detail}" for r in verdicts.itertuples()
                if r.verdict not in ("holds", "not-applicable") and r.detail]
        out.append("")
    out += [n + "\n" for n in notes]
    return "\n".join(out).rstrip() + "\n"
