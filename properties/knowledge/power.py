"""Search power: how often the verdict runner finds a flaw that is really there.

Runs the flaw corpus (:mod:`properties.knowledge.corpus`) through :func:`properties.verdicts`
at several example budgets and seeds, and tabulates the detection rate per
property (a planted cell is detected when the runner reaches its expected
verdict), the false alarms on the sound controls (a cell whose true verdict is
``holds`` reported otherwise) and the seconds spent. ``puf power`` and
``python benchmarks/power.py`` print it; the report's "how much is a holds
worth" section plots it. The measured table is stored in ``power_table.json``
and read once (:func:`~properties.knowledge.power_table.measured_power`): every ``holds``
verdict quotes it.

The runner quotes this module's table, so this module does not import the
runner: :func:`power_runs` is given it (``check``, :func:`properties.running.matrix.verdicts`).
A planted cell is detected when the runner reaches its expected verdict; for a
planted ``violated`` cell of a property that asks for a witness, ``not-found``
(the runner's word for a witness it searched for and did not find) counts too:
the search cannot prove an absence, and it flags the cell.
"""

from __future__ import annotations

__all__ = [
    "BUDGETS",
    "detected",
    "power_runs",
    "power_summary",
    "false_alarms_by_property",
    "detection_rate",
    "format_power",
]

from typing import Any
from collections.abc import Callable, Iterable
import time

import pandas as pd

import puf.lines


#: The example budgets the power table is measured at (``python benchmarks/power.py``).
BUDGETS = (10, 30, 60, 100, 300, 1000)


def detected(found: str, expected: str) -> bool:
    """True when a cell's verdict ``found`` detects its true verdict ``expected``: the same, or
    ``not-found`` for a ``violated`` cell (a witness searched for and not found flags it).

    Examples
    --------
    >>> detected("violated", "violated"), detected("not-found", "violated"), detected("not-found", "holds")
    (True, True, False)
    """
    return found == expected or (expected == "violated" and found == "not-found")


def _one(job: tuple[Callable[..., list[Any]], str, int, int, bool, tuple[str, ...] | None]) -> list[dict[str, Any]]:
    from .corpus import get_entry

    verdicts, name, budget, seed, known, only = job
    entry = get_entry(name)
    props = list(entry["expected"]) if not entry["control"] or only else None
    if only and props is not None:
        props = [p for p in props if p in only]
        if not props:  # none of this entry's cells is asked for
            return []
    start = time.perf_counter()
    found = verdicts(
        entry["measure"], properties=props, max_examples=budget, random_state=seed, known=known, proofs="none"
    )  # the search's own power, whatever proofs add
    rows = []
    for v in found:
        expected = entry["expected"].get(v.property)
        if expected is None:
            continue
        rows.append(
            {
                "measure": name,
                "family": entry["family"],
                "control": entry["control"],
                "property": v.property,
                "budget": budget,
                "seed": seed,
                "known": known,
                "expected": expected,
                "found": v.status,
                "seconds": v.seconds,
                "n_examples": v.n_examples,
            }
        )
    for row in rows:
        row["measure_seconds"] = round(time.perf_counter() - start, 3)
    return rows


def power_runs(
    *,
    check: Callable[..., list[Any]],
    budgets: Iterable[int] = (10, 30, 60),
    seeds: Iterable[int] = range(5),
    names: Iterable[str] | None = None,
    known: bool = False,
    n_jobs: int = 1,
    progress: bool = False,
    properties: Iterable[str] | None = None,
    plan: Iterable[tuple[str, int, int]] | None = None,
    skip: Iterable[tuple[str, int, int]] = (),
    on_run: Callable[[list[dict[str, Any]]], object] | None = None,
) -> pd.DataFrame:
    """Run the corpus and return one row per (entry, property, budget, seed) as a DataFrame.

    Parameters
    ----------
    check : callable
        The verdict runner, :func:`properties.running.matrix.verdicts` (a module-level function, so
        that worker processes receive it).
    budgets : iterable of int
        Example budgets (``max_examples`` of :func:`properties.verdicts`).
    seeds : iterable of int
        Seeds (``random_state``).
    names : iterable of str, optional
        Corpus entries; default every entry.
    known : bool, default False
        Let the runner try the stored examples of ``properties/knowledge/known/`` first.
        False (default) measures the search alone.
    n_jobs : int, default 1
        Worker processes.
    progress : bool, default False
        Show a tqdm progress bar.
    properties : iterable of str, optional
        Check only these properties (of each entry's expected cells); default all.
    plan : iterable of (name, budget, seed), optional
        The runs, in this order, instead of budgets × seeds × names.
    skip : collection of (name, budget, seed), default ()
        Runs not to do (already done, e.g. read back from a CSV).
    on_run : callable, optional
        Called in this process with the rows (a list of dicts) of each run as
        soon as it finishes, e.g. to append them to a file.

    Returns
    -------
    pandas.DataFrame
        Columns measure, family, control, property, budget, seed, known,
        expected, found, seconds, n_examples, measure_seconds.

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> runs = power_runs(check=verdicts, budgets=[5], seeds=[0], names=["sd-times-three"])
    >>> runs[["property", "expected", "found"]].to_dict("records")
    [{'property': 'range', 'expected': 'violated', 'found': 'violated'}]
    """
    import pandas as pd

    from .corpus import CORPUS

    names = list(CORPUS) if names is None else list(names)
    if plan is None:
        plan = [(n, b, s) for b in budgets for s in seeds for n in names]
    skip = {(n, int(b), int(s)) for n, b, s in skip}
    only = None if properties is None else tuple(properties)
    jobs = [(check, n, int(b), int(s), bool(known), only) for n, b, s in plan if (n, int(b), int(s)) not in skip]
    from puf.parallel import map_tasks

    def collect(index: int, result: list[dict[str, Any]]) -> None:
        if on_run is not None:
            on_run(result)

    # The runner (``check``) is loaded before the fork: later edits of the code on disk cannot
    # reach a running benchmark. Killed, not awaited, on Ctrl-C or SIGTERM; in the plan's order
    # whatever order the workers finished in: same table for the same seeds.
    results = map_tasks(_one, jobs, n_jobs=n_jobs, progress=progress, desc="puf power", unit="run", on_result=collect)
    return pd.DataFrame([row for result in results for row in result])


def detection_rate(runs: pd.DataFrame) -> float:
    """Return the share of planted (non-control) cells found with their expected verdict.

    Examples
    --------
    >>> import pandas as pd
    >>> detection_rate(pd.DataFrame({"control": [False, False], "expected": ["violated"] * 2,
    ...                              "found": ["violated", "holds"]}))
    0.5
    """
    planted = runs[~runs["control"].astype(bool)]
    return float(planted.apply(lambda row: detected(row["found"], row["expected"]), axis=1).mean())


def power_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Return the power table: detection per property and overall, false alarms, seconds, per budget.

    Rows are the catalog's properties (detection rate of their planted cells),
    then ``overall`` (all planted cells), ``false alarms`` (share of control
    cells whose true verdict is holds that were reported otherwise) and
    ``seconds`` (the cells' wall time summed over one corpus pass, averaged over seeds); columns are the budgets.

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> runs = power_runs(check=verdicts, budgets=[5], seeds=[0], names=["sd-times-three", "sd-by-hand"])
    >>> table = power_summary(runs)
    >>> float(table.loc["range", 5]), float(table.loc["false alarms", 5])
    (1.0, 0.0)
    """
    import pandas as pd

    from ..catalog.listing import CATALOG

    planted = runs[~runs["control"].astype(bool)]
    planted = planted.assign(hit=[float(detected(f, e)) for f, e in zip(planted["found"], planted["expected"])])
    controls = runs[runs["control"].astype(bool) & (runs["expected"] == "holds")].assign(
        alarm=lambda f: (f["found"] != "holds").astype(float)
    )
    table = planted.pivot_table(index="property", columns="budget", values="hit", aggfunc="mean")
    table = table.reindex([p for p in CATALOG if p in table.index])
    table.loc["overall"] = planted.groupby("budget")["hit"].mean()
    table.loc["false alarms"] = controls.groupby("budget")["alarm"].mean() if len(controls) else float("nan")
    # One corpus pass: the planted entries' and the controls' cell seconds, each summed per seed
    # and averaged over the seeds it ran (the controls may run fewer seeds at large budgets).
    per_seed = runs.groupby(["budget", runs["control"].astype(bool), "seed"])["seconds"].sum()
    table.loc["seconds"] = per_seed.groupby(level=[0, 1]).mean().groupby(level=0).sum()
    table.columns.name = "budget"
    return pd.DataFrame(table)


def false_alarms_by_property(runs: pd.DataFrame) -> pd.DataFrame:
    """Return the false alarms per property: the share of the controls' cells whose true verdict
    is ``holds`` that were reported otherwise, one row per property, one column per budget.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"control": [True, True, True], "property": ["range", "range", "defined"],
    ...                      "budget": [60, 60, 60], "expected": ["holds", "holds", "holds"],
    ...                      "found": ["holds", "violated", "holds"]})
    >>> false_alarms_by_property(runs)[60].to_dict()
    {'range': 0.5, 'defined': 0.0}
    """
    import pandas as pd

    from ..catalog.listing import CATALOG

    controls = runs[runs["control"].astype(bool) & (runs["expected"] == "holds")]
    if controls.empty:
        return pd.DataFrame()
    alarms = controls.assign(alarm=(controls["found"] != "holds").astype(float))
    table = alarms.pivot_table(index="property", columns="budget", values="alarm", aggfunc="mean")
    table = table.reindex([p for p in CATALOG if p in table.index])
    table.columns.name = "budget"
    return pd.DataFrame(table)


def format_power(table: pd.DataFrame, *, width: int | None = None) -> str:
    """Render a power table as text: rates as percentages, seconds as numbers; ``width``: the
    characters a line may take (the budgets' columns come in blocks that fit; default one block).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({10: [0.5, 0.0, 1.25]}, index=["overall", "false alarms", "seconds"])
    >>> print(format_power(table))
    property      10
    overall       50%
    false alarms  0%
    seconds       1.2
    """
    rows = [["property", *map(str, table.columns)]]
    for name, row in table.iterrows():
        cells = [f"{v:.1f}" if name == "seconds" else ("—" if v != v else f"{100 * v:.0f}%") for v in row]
        rows.append([str(name), *cells])
    return puf.lines.table(rows, width)
