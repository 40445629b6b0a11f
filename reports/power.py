"""The report's "How much is a holds worth" section: the measured search power.

A ``holds`` verdict means the search found no counterexample; this section says
how often that search finds a flaw that is really there. It reads the table
that ``python benchmarks/power.py --write`` measured on the flaw corpus
(``properties/knowledge/power_table.json``; running the corpus inside the report would
cost minutes) and plots the detection rate per property against the example
budget, with the report's own budgets marked.
"""

from __future__ import annotations

__all__ = ["plot_power", "power_section"]

from pathlib import Path
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
import json
import shutil
import pandas as pd
from matplotlib.figure import Figure

from .render import Section


def _frame(stored: Mapping[str, Any]) -> pd.DataFrame:
    import pandas as pd

    detection = pd.DataFrame(stored["detection"]).sort_index(axis=1, key=lambda c: c.astype(int))
    detection.columns = [int(c) for c in detection.columns]
    return detection


def _provenance(stored: Mapping[str, Any]) -> str:
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

    def seeds(values: Sequence[Any]) -> str:
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


def _count_seeds(seeds):
    """ "1 seed", "3 seeds" ("? seeds" when unknown).

    Examples
    --------
    >>> _count_seeds(1), _count_seeds(3)
    ('1 seed', '3 seeds')
    """
    return f"{seeds if seeds is not None else '?'} seed{'' if seeds == 1 else 's'}"


def _table(stored, detection):
    """The section's table: per budget the search alone, then where measured with the stored
    examples tried first and the false alarms per property on the controls (percentages).

    Examples
    --------
    >>> import pandas as pd
    >>> stored = {"detection": {"60": {"range": 1.0, "overall": 1.0}},
    ...           "false_alarms_by_property": {"60": {"range": 0.0}}}
    >>> _table(stored, _frame(stored)).columns.tolist()
    ['property', '60: search alone', '60: false alarms']
    """
    import pandas as pd

    columns = {}
    for budget in detection.columns:
        columns[f"{budget}: search alone"] = detection[budget]
        for key, label in (
            ("detection_with_stored_examples", "with stored examples"),
            ("false_alarms_by_property", "false alarms"),
        ):
            if str(budget) in stored.get(key, {}):
                columns[f"{budget}: {label}"] = pd.Series(stored[key][str(budget)], dtype=float)
    frame = pd.DataFrame(columns).reindex(detection.index)
    table = frame.map(lambda v: "" if v != v else f"{100 * v:.0f}%")
    table.index.name = "property"
    return table.reset_index()


def plot_power(
    detection: pd.DataFrame, alarms: Mapping[str, float], budgets: Iterable[int], *, measured: str = ""
) -> Figure:
    """Small multiples: each property's detection rate against the budget, overall as reference.

    Properties whose planted flaws are all found at every measured budget get no panel
    (a flat line at 100% says nothing a list does not): they are named in one line under
    the figure. ``measured`` (when and how the stored table was measured) is printed
    under the title, so the figure never passes for this run's measurement.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({10: [0.5, 0.4], 60: [1.0, 0.9]}, index=["range", "overall"])
    >>> [ax.get_title() for ax in plot_power(d, {}, [60]).axes][:2]
    ['overall', 'range']
    """
    import math

    from matplotlib.figure import Figure
    from matplotlib.ticker import NullLocator, PercentFormatter

    from puf.reports.layout import fit_title

    full = [n for n in detection.index if n != "overall" and bool((detection.loc[n] >= 1.0).all())]
    names = ["overall"] + [n for n in detection.index if n != "overall" and n not in full]
    ncols = 5
    nrows = math.ceil(len(names) / ncols)
    fig = Figure(figsize=(12.7, 1.9 * nrows + 1.2), layout="constrained")
    axes: Any = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False).ravel()  # of Axes
    overall = detection.loc["overall"]
    for ax, name in zip(axes, names):
        row = detection.loc[name]
        if name != "overall":
            ax.plot(overall.index, 100 * overall.values, color="0.7", linewidth=1, label="overall")
        ax.plot(
            row.index,
            100 * row.values,
            color="#0072B2",
            linewidth=2,
            marker="o",
            markersize=3,
            label="planted flaws found",
        )
        if name == "overall" and alarms:
            xs = sorted(int(b) for b in alarms)
            ax.plot(
                xs,
                [100 * alarms[str(b)] for b in xs],
                color="#D55E00",
                marker="x",
                label="false alarms on sound controls",
            )
        for budget in budgets:
            ax.axvline(budget, color="#009E73", linestyle="--", linewidth=1, label="this report's budget")
        ax.set_title(fit_title(name, 24), fontsize="small", fontweight="bold" * (name == "overall") or None)
        ax.set_xscale("log")
        ax.set_ylim(-4, 104)
        ax.yaxis.set_major_formatter(PercentFormatter(decimals=0))
        ax.tick_params(labelsize="x-small")
        ax.grid(True, color="0.9", linewidth=0.6)
    # Ticks at the measured budgets and this report's, as plain counts: the default log ticks
    # read "2 x 10^1" and, with one budget measured, mark nothing real. The axes share x, so
    # setting them once sets them everywhere.
    ticks = sorted({int(b) for b in detection.columns} | {int(b) for b in budgets})
    axes[0].set_xticks(ticks, [f"{t:,}" for t in ticks])
    axes[0].xaxis.set_minor_locator(NullLocator())
    for ax in axes[len(names) :]:
        ax.set_visible(False)
    for ax in axes[max(0, len(names) - ncols) : len(names)]:
        ax.tick_params(labelbottom=True)
        ax.set_xlabel("examples per property", fontsize="x-small")
    handles = {}
    for ax in axes[: len(names)]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    fig.legend(
        handles.values(),
        handles.keys(),
        loc="outside lower center",
        ncols=len(handles),
        frameon=False,
        fontsize="small",
    )
    fig.supylabel("share of planted cells found", fontsize="small")
    title = "Search power per property on the flaw corpus"
    if measured:
        title += "\n" + _wrap(measured)
    if full:  # a flat line at 100% says nothing a list does not
        title += "\n" + _wrap(f"every planted flaw found at every measured budget (no panel): {', '.join(full)}")
    fig.suptitle(title, fontsize="medium")
    return fig


def _wrap(text: str) -> str:
    """``text`` wrapped to the figure's width: 150 characters a line (a line of file paths is
    wider than one of prose)."""
    import textwrap

    return textwrap.fill(text, 150)


def power_section(out: Path, *, budgets: Iterable[int] = ()) -> Section | None:
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
    from puf.properties.knowledge.power_table import POWER_TABLE
    from puf.reports.figures import save_figure
    from puf.reports.render import Section

    if not POWER_TABLE.is_file():
        return None
    stored = json.loads(POWER_TABLE.read_text(encoding="utf-8"))
    detection = _frame(stored)
    measured = "stored measurement, not made by this report: " + (
        ", ".join(str(stored[k]) for k in ("date", "machine") if stored.get(k)) or "date not recorded"
    )
    if stored.get("command"):
        measured += f"; {stored['command']}"
    fig = plot_power(detection, stored.get("false_alarms", {}), budgets, measured=measured)
    figure = save_figure(fig, out / "power.png")  # no version in the PNG: reruns match
    shutil.copyfile(POWER_TABLE, out / "power_table.json")
    table = _table(stored, detection)
    used = ", ".join(str(b) for b in budgets) or "the budget used"
    text = (
        f"A holds verdict means no counterexample was found, not that none exists. The flaw "
        f"corpus (properties.knowledge.corpus: measures with planted flaws on every property, and sound "
        f"controls) measures how often the search finds a flaw that is there: the share of "
        f"planted cells detected, overall (first panel) and per property (blue, with the overall rate in grey), over "
        f"{_count_seeds(stored.get('seeds'))}, against the example budget; dashed: this report's "
        f"budget ({used}). The plot shows the search alone; the verdicts also replay the stored "
        f"counterexamples of properties/knowledge/known first, which finds every known flaw of the "
        f"built-in measures at any budget (the table's 'with stored examples' columns, where "
        f"measured), and the table's 'false alarms' columns give, per property, the share of the "
        f"controls' holds cells reported otherwise. Each holds verdict quotes its property's rate."
        f"{_provenance(stored)}"
    )
    return Section("power", "How much is a holds worth", text, figure, table, ["power_table.json"])
