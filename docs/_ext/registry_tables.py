"""Tables that restate registry facts, generated so that they cannot drift.

The measure table (``puf.MEASURES``), the property list and each property's details
(``properties.CATALOG``), the composition rules' arguments (their docstrings), the verdict matrix, each violation's reason and the
literature table (the known files ``properties/knowledge/known/<measure>.json``) and the
power table (``properties/knowledge/power_table.json``) are written as Markdown into
``docs/_generated/`` when the site builds (``setup`` below, a Sphinx extension),
and the README's verdict matrix is rewritten between its markers by::

    python docs/_ext/registry_tables.py --readme

``tests/test_docs.py`` checks that the README's copy is current.
"""

__all__ = [
    "measure_table",
    "property_list",
    "formal_conventions",
    "property_details",
    "proof_rules",
    "verdict_matrix",
    "violation_reasons",
    "literature_table",
    "power_table",
    "performance_table",
    "readme_matrix",
    "write_all",
    "update_readme",
]

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
START, END = "<!-- verdict-matrix: start -->", "<!-- verdict-matrix: end -->"
SYMBOL = {"holds": "✓", "violated": "✗", "not-found": "○", "undefined": "?", "not-applicable": "–"}


def _cell(text):
    text = str(text).replace("|", "\\|").replace("\n", " ")
    return text if text.startswith("`") else text.replace("*", "\\*")  # U* is no emphasis


def _table(header, rows):
    lines = ["| " + " | ".join(map(_cell, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(_cell, row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _interval(low, high):
    left = "(−∞" if low == float("-inf") else f"[{low:g}"
    right = "∞)" if high == float("inf") else f"{high:g}]"
    return f"{left}, {right}"


def _attainable(measure):
    value = getattr(measure, "attainable", None)
    if value is None:
        return "—"
    return value if isinstance(value, str) else _interval(*value)


def measure_table():
    """The registry, one row per measure in ``puf.MEASURES`` order."""
    from puf import MEASURES

    rows = [
        (
            m.family,
            f"`{m.name}`",
            ", ".join(m.reads),
            _interval(*m.range),
            _attainable(m),
            m.direction,
            m.definition,
            m.reference or "",
        )
        for m in MEASURES.values()
    ]
    return _table(
        ("family", "name", "reads", "declared range", "attainable values", "fairer", "definition", "reference"), rows
    )


def property_list():
    """The property catalog: name, kind, statement, formal statement, source."""
    from puf.properties import catalog_frame

    frame = catalog_frame()
    rows = [
        (f"`{name}`", row["kind"], row["statement"], row["formal"], row["source"]) for name, row in frame.iterrows()
    ]
    return _table(("property", "kind", "statement", "formal statement", "source"), rows)


def formal_conventions():
    """What every formal statement takes for granted (``properties.catalog.property.FORMAL_CONVENTIONS``)."""
    from puf.properties.catalog.property import FORMAL_CONVENTIONS

    return FORMAL_CONVENTIONS + "\n"


def property_details():
    """One section per catalog property: its statement, formal statement, source, the measures it
    is meant for and how it reads at world level, as the catalog states them (top-level headings:
    the page that includes it sets their level with ``:heading-offset:``)."""
    from puf.properties import catalog_frame

    sections = []
    for name, row in catalog_frame().iterrows():
        note = " Informational: neither outcome is a defect." if row["informational"] else ""
        sections.append(
            f"# `{name}`\n\n{row['statement'][:1].upper()}{row['statement'][1:]} ({row['kind']}).{note}\n\n"
            f"- **Formal statement**: {row['formal']}\n- **Source**: {row['source']}\n"
            f"- **Meant for**: {row['meant_for']}\n- **At world level**: {row['world']}\n"
        )
    return "\n".join(sections)


def proof_rules():
    """The composition rules, one item each: the rule, its property and its argument (the
    ``Notes`` of the rule's docstring, beside its catalog entry), in catalog order."""
    import inspect

    from puf.properties.catalog.listing import PROOF_RULES

    items = []
    for name, rule in PROOF_RULES.items():
        doc = inspect.cleandoc(rule.argue.__doc__ or "")
        notes = re.search(r"^Notes\n-----\n(.*?)(?:\n\n[A-Z][a-z]+\n-+\n|\Z)", doc, flags=re.S | re.M)
        if notes is None:
            raise ValueError(f"the proof rule of {name!r} states no argument (a Notes section in its docstring)")
        # A docstring escapes the bars of an absolute value from reStructuredText (``\\|``).
        argument = notes.group(1).strip().replace("\\|", "|").replace("\n", "\n  ")
        items.append(f"- **{rule.name} → `{name}`.** {argument}")
    return "\n".join(items) + "\n"


def _known_files():
    from puf import MEASURES

    known = Path(__import__("puf.properties.knowledge.known", fromlist=["_"]).__file__).parent
    files = {}
    for name in MEASURES:
        path = known / f"{name}.json"
        if path.is_file():
            files[name] = json.loads(path.read_text(encoding="utf-8"))
    return files


def violation_reasons():
    """Every violated cell of the built-ins with the reason it shows (stored, else derived from
    what the measure reads), one line per measure and property."""
    from puf.properties import CATALOG
    from puf.properties.knowledge.pinned import cell_reason

    lines = []
    for name, data in _known_files().items():
        cells = [p for p in CATALOG if data["verdicts"].get(p) == "violated"]
        if not cells:
            continue
        lines.append(f"- **{name}**:")
        for prop in cells:
            note = " (informational)" if CATALOG[prop].informational else ""
            lines.append(f"  - *{prop}*{note} — {cell_reason(data, prop, catalog=CATALOG)}")
    return "\n".join(lines) + "\n"


def literature_table():
    """Every cell the literature settles: the measure, the property, the source, what it says, the
    verdict it implies, the pinned verdict, and whether they agree (or why they differ)."""
    from puf.properties import CATALOG

    rows = []
    for name, data in _known_files().items():
        for prop in (p for p in CATALOG if p in data.get("literature", {})):
            cite, pinned = data["literature"][prop], data["verdicts"][prop]
            agrees = "agrees" if cite["verdict"] == pinned else "differs: " + cite.get("differs", "")
            rows.append((f"`{name}`", f"`{prop}`", cite["source"], cite["says"], cite["verdict"], pinned, agrees))
    header = ("measure", "property", "source", "what it says", "its verdict", "pinned", "agreement")
    return _table(header, rows) + f"\n{len(rows)} cells settled by the literature.\n"


def _known():
    from puf.properties import CATALOG

    cells = {name: data["verdicts"] for name, data in _known_files().items()}
    return list(CATALOG), cells


def verdict_matrix():
    """The pinned verdict of every built-in measure on every property (✓ ✗ ? –).

    The columns are numbered; the legend under the table names them.
    """
    from puf import MEASURES

    properties, cells = _known()
    header = ("family", "measure", *(str(i) for i in range(1, len(properties) + 1)))
    rows = [
        (MEASURES[name].family, f"`{name}`", *(SYMBOL.get(verdicts.get(p, ""), " ") for p in properties))
        for name, verdicts in cells.items()
    ]
    legend = ", ".join(f"{i} {p}" for i, p in enumerate(properties, 1))
    return (
        _table(header, rows)
        + f"\n✓ holds, ✗ violated, ○ witness not found (no proof either way), ? undefined, – not applicable. Columns: {legend}.\n"
    )


def readme_matrix():
    """The README's block: the verdict matrix between its markers."""
    return f"{START}\n{verdict_matrix()}{END}"


def _power_columns(stored):
    """The power table's columns: per budget the search alone, then (where measured) with the
    stored examples tried first and the false alarms per property on the controls."""
    columns = []
    for budget in sorted(stored["detection"], key=int):
        columns.append((f"{budget}: search alone", stored["detection"][budget]))
        if budget in stored.get("detection_with_stored_examples", {}):
            columns.append((f"{budget}: with stored examples", stored["detection_with_stored_examples"][budget]))
        if budget in stored.get("false_alarms_by_property", {}):
            columns.append((f"{budget}: false alarms", stored["false_alarms_by_property"][budget]))
    return columns


def _seeds(values):
    return "none" if not values else ", ".join(str(s) for s in values)


def power_table():
    """The measured search power (``properties/knowledge/power_table.json``), with its provenance."""
    from puf.properties.knowledge.power_table import POWER_TABLE

    stored = json.loads(POWER_TABLE.read_text(encoding="utf-8"))
    columns = _power_columns(stored)
    names = list(dict.fromkeys(p for _, rates in columns for p in rates if p != "overall")) + ["overall"]
    rows = [(p, *(f"{100 * rates[p]:.0f}%" if p in rates else "" for _, rates in columns)) for p in names]
    alarms, seconds = stored.get("false_alarms", {}), stored.get("seconds", {})
    coverage = {"search alone": stored.get("coverage", {}), "with stored examples": {}, "false alarms": {}}
    coverage["with stored examples"] = stored.get("coverage_with_stored_examples", {})
    extra = [("false alarms on the controls (all properties)", alarms), ("seconds (one corpus pass)", seconds)]
    for label, values in extra:
        cells = []
        for title, _ in columns:
            budget, kind = title.split(": ")
            show = kind == "search alone" and budget in values
            cells.append(
                ("" if not show else f"{100 * values[budget]:.1f}%" if "alarms" in label else f"{values[budget]:,.0f}")
            )
        rows.append((label, *cells))
    seeds = []
    for title, _ in columns:
        budget, kind = title.split(": ")
        info = (coverage["search alone"] if kind == "false alarms" else coverage.get(kind, {})).get(budget, {})
        key = "control_seeds" if kind == "false alarms" else "seeds"
        partial = (
            ""
            if kind == "false alarms" or not info.get("partial_seeds")
            else " (+ part of " + (", ".join(info["partial_seeds"])) + ")"
        )
        seeds.append(_seeds(info.get(key, [])) + partial if info else "")
    rows.append(("seeds measured", *seeds))
    text = _table(("property", *(title for title, _ in columns)), rows)
    facts = [
        f"machine: {stored['machine']}" if stored.get("machine") else "",
        f"date: {stored['date']}" if stored.get("date") else "",
        f"command: `{stored['command']}`" if stored.get("command") else "",
    ]
    facts = [fact for fact in facts if fact]
    return text + ("\n" + "; ".join(facts) + ".\n" if facts else "")


def performance_table():
    """The everyday jobs' measured times (``benchmarks/performance.json``), with their provenance."""
    stored = json.loads((ROOT / "benchmarks" / "performance.json").read_text(encoding="utf-8"))
    rows = [
        (
            job["what"],
            f"`{job['command']}`",
            f"{job['wall']:,.1f} s",
            f"{job['cpu']:,.1f} s",
            f"{job['peak_mb']:,} MB",
            f"{job['load'][0]:g} → {job['load'][1]:g}",
            f"{job['date']}, `{job['commit']}`",
        )
        for job in stored["jobs"].values()
    ]
    header = ("job", "command", "wall", "CPU", "peak memory", "load (start → end)", "measured (date, commit)")
    return _table(header, rows) + f"\nMachine: {stored['machine']}. Command: `python benchmarks/performance.py`.\n"


TABLES = {
    "measures": measure_table,
    "properties": property_list,
    "conventions": formal_conventions,
    "property-details": property_details,
    "proof-rules": proof_rules,
    "verdicts": verdict_matrix,
    "violations": violation_reasons,
    "literature": literature_table,
    "power": power_table,
    "performance": performance_table,
}


def write_all(folder):
    """Write every table as ``<name>.md`` into ``folder`` (only those whose text changed)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, make in TABLES.items():
        path, text = folder / f"{name}.md", make()
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def update_readme(path=README):
    """Rewrite the verdict matrix between the README's markers; return True if it changed."""
    text = path.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    if not rest:
        raise ValueError(f"{path} has no {START!r} marker")
    new = head + readme_matrix() + tail
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def _generate(app):
    write_all(Path(app.srcdir) / "_generated")


def setup(app):
    app.connect("builder-inited", _generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    if sys.argv[1:] == ["--readme"]:
        print("README.md updated" if update_readme() else "README.md already current")
    else:
        sys.exit("usage: python docs/_ext/registry_tables.py --readme")
