"""Benchmark: the harness's search power on the flaw corpus, per example budget.

Runs ``properties.knowledge.power.power_runs`` (the search alone: no stored examples) at
budgets 10, 30, 60, 100, 300, 1000 over 5 seeds and prints the power table:
detection rate per property and overall, false alarms on the sound controls,
and the seconds of one corpus pass. The controls are run over
``--control-seeds`` seeds at budgets above 100 (a control is checked on every
property, so it costs the full budget each time).

    python benchmarks/power.py                       # everything (long at 300 and 1000)
    python benchmarks/power.py --budgets 10,30,60    # the small budgets only
    python benchmarks/power.py --write               # also store the table the verdicts quote
    python benchmarks/power.py --budgets 300 --csv runs.csv   # resumable: rerun to continue
    python benchmarks/power.py --from-csv a.csv b.csv --write # table from earlier runs

Runs go budget by budget, seed by seed (a seed's planted entries, then its
controls), so a stopped run leaves whole seeds behind. With ``--csv`` every
finished run (one entry at one budget and seed) is appended to the file at once,
with the load average and the time, and the runs already in the file are
skipped: a stopped benchmark loses at most the runs in progress and continues
where it stopped. ``--from-csv`` summarises such files; a run present in several
files counts once, the later file's rows winning (so a rerun of some properties,
``--properties``, replaces those cells).

``--write`` stores properties/knowledge/power_table.json, which every ``holds`` verdict
quotes ("this search finds N% of the corpus's planted flaws of the property"),
with the seeds each budget covers and where, when and how it was measured
(machine, date, command). The seconds compare only between runs on one machine
under a similar load (each CSV row records the 1-minute load average).
"""

import argparse
import csv
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puf.properties.knowledge.corpus import CONTROLS, FLAWED  # noqa: E402
from puf.properties.running.matrix import verdicts  # noqa: E402
from puf.properties.knowledge.power_table import POWER_TABLE  # noqa: E402
from puf.properties.knowledge.power import (  # noqa: E402
    false_alarms_by_property,
    format_power,
    power_runs,
    power_summary,
)

COLUMNS = [
    "measure",
    "family",
    "control",
    "property",
    "budget",
    "seed",
    "known",
    "expected",
    "found",
    "seconds",
    "n_examples",
    "measure_seconds",
    "load1",
    "finished",
]
RUN = ["measure", "budget", "seed"]
CELL = ["measure", "property", "budget", "seed", "known"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="10,30,60,100,300,1000")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument(
        "--control-seeds", type=int, default=1, help="seeds for the controls at budgets above 100 (default 1)"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--csv", default=None, help="append every finished run to this CSV; skip the runs already in it"
    )
    parser.add_argument("--properties", default=None, help="comma-separated properties: check only these cells")
    parser.add_argument("--names", default=None, help="comma-separated corpus entries (default all)")
    parser.add_argument(
        "--no-controls", action="store_true", help="run the planted flaws only (e.g. extra seeds; default: both)"
    )
    parser.add_argument(
        "--known", action="store_true", help="let the runner try the stored examples first (default: search alone)"
    )
    parser.add_argument("--write", action="store_true", help=f"store the table in {POWER_TABLE.name}")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument(
        "--from-csv", nargs="+", metavar="FILE", help="summarise (and --write) earlier --csv outputs instead of running"
    )
    args = parser.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    if args.write:
        outside = [p for p in (args.from_csv or []) + [args.csv or ROOT] if not _inside(p)]
        if outside:
            parser.error(f"--write records a command a reader can rerun: {outside[0]} is outside the repository")
    if args.from_csv:
        runs = read_runs(args.from_csv)
        return _report(runs[runs["budget"].isin(budgets)], args, elapsed=None, argv=argv)
    properties = None if args.properties is None else args.properties.split(",")
    chosen = None if args.names is None else set(args.names.split(","))
    flawed = [e["name"] for e in FLAWED if chosen is None or e["name"] in chosen]
    controls = [e["name"] for e in CONTROLS if (chosen is None or e["name"] in chosen) and not args.no_controls]
    plan = [
        (name, budget, seed)
        for budget in budgets
        for seed in range(args.seeds)
        for name in flawed + (controls if budget <= 100 or seed < args.control_seeds else [])
    ]
    done = []
    if args.csv and Path(args.csv).is_file():
        done = read_runs([args.csv])[RUN].drop_duplicates().itertuples(index=False, name=None)
        done = [(m, int(b), int(s)) for m, b, s in done]
    print(
        f"{len(plan)} runs planned, {len(set(done) & set(plan))} already in {args.csv}; "
        f"load average {os.getloadavg()[0]:.2f}",
        file=sys.stderr,
    )
    start = time.perf_counter()
    power_runs(
        check=verdicts,
        plan=plan,
        skip=done,
        n_jobs=args.jobs,
        progress=not args.quiet,
        known=args.known,
        properties=properties,
        on_run=_appender(args.csv),
    )
    elapsed = time.perf_counter() - start
    runs = read_runs([args.csv]) if args.csv else None
    if runs is None:
        print("no --csv: nothing kept", file=sys.stderr)
        return
    runs = runs[runs["budget"].isin(budgets)]
    _report(runs, args, elapsed=elapsed, argv=argv)


def _inside(path):
    """True when ``path`` lies inside the repository (a recorded command can name it)."""
    return Path(path).resolve().is_relative_to(ROOT)


def command_line(argv: list[str]) -> str:
    """The command as a reader reruns it from the repository's root: file paths relative to it.

    Examples
    --------
    >>> command_line(["--budgets", "60", "--from-csv", str(ROOT / "benchmarks" / "a.csv"), "--write"])
    'python benchmarks/power.py --budgets 60 --from-csv benchmarks/a.csv --write'
    """
    words = []
    for word in argv:
        path = Path(word)
        if word.endswith(".csv") and _inside(path):
            word = path.resolve().relative_to(ROOT).as_posix()
        words.append(word)
    return " ".join(["python benchmarks/power.py", *words])


def _appender(path):
    """Return a callback that appends a run's rows to ``path`` (header first if new)."""
    if path is None:
        return None

    def append(rows):
        new = not Path(path).is_file() or Path(path).stat().st_size == 0
        load1 = round(os.getloadavg()[0], 2)
        finished = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        with open(path, "a", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS)
            if new:
                writer.writeheader()
            for row in rows:
                writer.writerow({**row, "load1": load1, "finished": finished})
            handle.flush()
            os.fsync(handle.fileno())

    return append


def read_runs(paths):
    """Read CSVs of runs; a cell present in several files counts once (the later file wins)."""
    frames = [pd.read_csv(p).assign(source=Path(p).name) for p in paths]
    runs = pd.concat(frames, ignore_index=True)
    for column in ("control", "known"):
        runs[column] = runs[column].astype(str).str.lower().eq("true")
    runs = runs.drop_duplicates(CELL, keep="last")
    return runs.reset_index(drop=True)


def coverage(runs):
    """Per budget: the seeds of the planted entries and of the controls, complete or not."""
    flawed = {e["name"] for e in FLAWED}
    controls = {e["name"] for e in CONTROLS}
    out = {}
    for budget, group in runs.groupby("budget"):
        planted = group[~group["control"]]
        ctrl = group[group["control"]]
        cells = len(planted.drop_duplicates(["measure", "property", "seed"]))
        full = [int(s) for s, g in planted.groupby("seed") if set(g["measure"]) == flawed]
        part = [int(s) for s in planted["seed"].unique() if int(s) not in full]
        ctrl_full = [int(s) for s, g in ctrl.groupby("seed") if set(g["measure"]) == controls]
        sources = group["source"].value_counts() if "source" in group else pd.Series(dtype=int)
        out[str(int(budget))] = {
            "cells_per_file": {str(f): int(n) for f, n in sources.items()},
            "seeds": full,
            "partial_seeds": {str(s): sorted(planted.loc[planted["seed"] == s, "measure"].unique()) for s in part},
            "control_seeds": ctrl_full,
            "planted_cells_run": cells,
        }
    return out


def _loads(group):
    """The 1-minute load average at the start, middle and end of a budget's runs (if recorded)."""
    if "load1" not in group or group["load1"].isna().all():
        return None
    if "source" in group:  # the file with most of the budget's cells: the main run, not reruns
        group = group[group["source"] == group["source"].value_counts().index[0]]
    timed = group.dropna(subset=["load1"]).drop_duplicates(RUN).sort_values("finished")
    loads = timed["load1"].tolist()
    return {
        "start": loads[0],
        "middle": loads[len(loads) // 2],
        "end": loads[-1],
        "from": timed["finished"].iloc[0],
        "to": timed["finished"].iloc[-1],
    }


def machine():
    """The machine in neutral terms: cores, architecture and memory ("2-core x86-64, 24 GB")."""
    import platform

    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GB"
    except (ValueError, OSError, AttributeError):
        memory = ""
    return f"{os.cpu_count()}-core {platform.machine().replace('_', '-')}{memory}"


def _dates(runs):
    """The UTC day (or first and last days) on which the runs finished."""
    if "finished" not in runs or runs["finished"].isna().all():
        return datetime.now(timezone.utc).date().isoformat()
    days = sorted({str(t)[:10] for t in runs["finished"].dropna()})
    return days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"


def _report(runs, args, *, elapsed, argv=None):
    with_known = runs[runs["known"]]
    runs = runs[~runs["known"]]
    if runs.empty:  # only runs with the stored examples: their table is the one shown
        runs, with_known = with_known, with_known.iloc[:0]
    table = power_summary(runs)
    covered = coverage(runs)
    print(format_power(table))
    by_property = false_alarms_by_property(runs)
    if len(by_property):
        print("\nfalse alarms on the controls, per property:\n" + format_power(by_property))
    wall = "" if elapsed is None else f"wall {elapsed:.0f} s; "
    print(f"\n{len(FLAWED)} planted flaws, {len(CONTROLS)} controls; {wall}{machine()}")
    loads = {str(int(b)): _loads(group) for b, group in runs.groupby("budget")}
    for budget, info in covered.items():
        print(
            f"budget {budget}: seeds {info['seeds']}, controls {info['control_seeds']}, "
            f"partial {list(info['partial_seeds'])}, load {loads[budget]}"
        )
    if args.write:
        rates = table.drop(index=["false alarms", "seconds"])
        stored = {
            "what": "detection rate of the search alone (no stored examples) on the flaw corpus, "
            "per example budget; written by benchmarks/power.py --write",
            "seeds": max(len(info["seeds"]) for info in covered.values()),
            "coverage": covered,
            "machine": machine(),
            "date": _dates(runs),
            "command": command_line(sys.argv[1:] if argv is None else argv),
            "detection": {
                str(b): {p: round(float(v), 4) for p, v in rates[b].items() if v == v} for b in table.columns
            },
            "false_alarms": {  # the budgets whose controls ran
                str(b): round(float(table.loc["false alarms", b]), 4)
                for b in table.columns
                if table.loc["false alarms", b] == table.loc["false alarms", b]
            },
            "seconds": {str(b): round(float(table.loc["seconds", b]), 1) for b in table.columns},
        }
        if len(by_property):  # which properties the controls' false alarms (if any) came from
            stored["false_alarms_by_property"] = {
                str(b): {p: round(float(v), 4) for p, v in by_property[b].items() if v == v}
                for b in by_property.columns
            }
        if len(with_known):  # the same corpus with the stored examples tried first
            known_table = power_summary(with_known).drop(index=["false alarms", "seconds"])
            print("with the stored examples:\n" + format_power(known_table))
            stored["detection_with_stored_examples"] = {
                str(b): {p: round(float(v), 4) for p, v in known_table[b].items() if v == v}
                for b in known_table.columns
            }
            stored["coverage_with_stored_examples"] = coverage(with_known)
        POWER_TABLE.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {POWER_TABLE}")


if __name__ == "__main__":
    main()
