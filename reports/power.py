"""The report's "How much is a holds worth" section: the measured search power.

A ``holds`` verdict means the search found no counterexample; this section says
how often that search finds a flaw that is really there. It reads the table
that ``python benchmarks/power.py --write`` measured on the flaw corpus
(``properties/power_table.json``; running the corpus inside the report would
cost minutes) and plots the detection rate per property against the example
budget, with the report's own budgets marked.
"""

__all__ = ["power_section"]

import json
import shutil


def _frame(stored):
    import pandas as pd

    detection = pd.DataFrame(stored["detection"]).sort_index(axis=1, key=lambda c: c.astype(int))
    detection.columns = [int(c) for c in detection.columns]
    return detection


def _provenance(stored):
    """One sentence per budget (the seeds it covers), then the machine, date and command.

    Examples
    --------
    >>> _provenance({"coverage": {"60": {"seeds": [0, 1], "control_seeds": [0, 1],
    ...                                  "partial_seeds": {}}},
    ...              "machine": "2-core x86-64, 24 GB", "date": "2026-11-30",
    ...              "command": "python benchmarks/power.py --write"})
    ' Budget 60: seeds 0–1, controls on seeds 0–1. Measured on 2-core x86-64, 24 GB, 2026-11-30, with python benchmarks/power.py --write.'
    """
    coverage = stored.get("coverage", {})
    if not isinstance(coverage, dict) or not coverage:
        return ""

    def seeds(values):
        return "none" if not values else (f"{values[0]}–{values[-1]}" if len(values) > 1 else str(values[0]))

    parts = []
    for budget in sorted(coverage, key=int):
        info = coverage[budget]
        text = f"Budget {budget}: seeds {seeds(info.get('seeds', []))}"
        if info.get("partial_seeds"):
            text += f" (seeds {', '.join(info['partial_seeds'])} partly)"
        text += f", controls on seeds {seeds(info.get('control_seeds', []))}"
        parts.append(text)
    where = ", ".join(str(stored[key]) for key in ("machine", "date") if stored.get(key))
    how = f", with {stored['command']}" if stored.get("command") else ""
    return " " + "; ".join(parts) + "." + (f" Measured on {where}{how}." if where else "")


def power_section(out, *, budgets=()):
    """Write ``power.png`` and ``power_table.json`` into ``out``; return the report Section.

    Parameters
    ----------
    out : pathlib.Path
        The report directory.
    budgets : iterable of int
        The example budgets this report used, marked on the plot.

    Returns
    -------
    reports.render.Section or None
        None when no power table was measured.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> section = power_section(pathlib.Path(tempfile.mkdtemp()), budgets=[60])
    >>> section.key, section.figure.name
    ('power', 'power.png')
    """
    from matplotlib.figure import Figure

    from puf.properties.power import POWER_TABLE
    from puf.reports.figures import save_figure
    from puf.reports.render import Section

    if not POWER_TABLE.is_file():
        return None
    stored = json.loads(POWER_TABLE.read_text(encoding="utf-8"))
    detection = _frame(stored)
    fig = Figure(figsize=(7.5, 4.2))
    ax = fig.subplots()
    for name, row in detection.drop(index="overall").iterrows():
        ax.plot(row.index, 100 * row.values, color="0.75", linewidth=0.8)
        ax.annotate(name, (row.index[-1], 100 * row.values[-1]), fontsize=6, color="0.5")
    overall = detection.loc["overall"]
    ax.plot(overall.index, 100 * overall.values, color="C0", linewidth=2.5, marker="o",
            label="overall (planted flaws found)")
    alarms = stored.get("false_alarms", {})
    if alarms:
        xs = sorted(int(b) for b in alarms)
        ax.plot(xs, [100 * alarms[str(b)] for b in xs], color="C3", marker="x",
                label="false alarms on sound controls")
    for budget in budgets:
        ax.axvline(budget, color="C2", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("examples per property (budget)")
    ax.set_ylabel("% of cells")
    ax.set_ylim(-2, 102)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    figure = save_figure(fig, out / "power.png", dpi=120)  # no version in the PNG: reruns match
    shutil.copyfile(POWER_TABLE, out / "power_table.json")
    table = (100 * detection).round(0).astype(int).astype(str) + "%"
    table.index.name = "property"
    table = table.reset_index()
    used = ", ".join(str(b) for b in budgets) or "the budget used"
    text = (f"A holds verdict means no counterexample was found, not that none exists. The flaw "
            f"corpus (properties.corpus: measures with planted flaws on every property, and sound "
            f"controls) measures how often the search finds a flaw that is there: the share of "
            f"planted cells detected per property (grey) and overall (blue), over "
            f"{stored.get('seeds', '?')} seeds, against the example budget; dashed: this report's "
            f"budget ({used}). The search alone is measured; the verdicts also replay the stored "
            f"counterexamples of properties/known first, which finds every known flaw of the "
            f"built-in measures at any budget. Each holds verdict quotes its property's rate."
            f"{_provenance(stored)}")
    return Section("power", "How much is a holds worth", text, figure, table, ["power_table.json"])
