"""Benchmark: the harness's search power on the flaw corpus, per example budget.

Runs ``properties.power.power_runs`` (the search alone: no stored examples) at
budgets 10, 30, 60, 100, 300, 1000 over 5 seeds and prints the power table:
detection rate per property and overall, false alarms on the sound controls,
and the seconds of one corpus pass. The controls are run over
``--control-seeds`` seeds at budgets above 100 (a control is checked on every
property, so it costs the full budget each time).

    python benchmarks/power.py                       # everything (long at 300 and 1000)
    python benchmarks/power.py --budgets 10,30,60    # the small budgets only
    python benchmarks/power.py --write               # also store the table the verdicts quote

``--write`` stores properties/power_table.json, which every ``holds`` verdict
quotes ("this search finds N% of the corpus's planted flaws of the property").
Other engineers share the CPU: note ``uptime``'s load average beside the seconds.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puf.properties.corpus import CONTROLS, FLAWED  # noqa: E402
from puf.properties.power import POWER_TABLE, format_power, power_runs, power_summary  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="10,30,60,100,300,1000")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--control-seeds", type=int, default=1,
                        help="seeds for the controls at budgets above 100 (default 1)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--csv", default=None, help="write every run as CSV")
    parser.add_argument("--write", action="store_true", help=f"store the table in {POWER_TABLE.name}")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--from-csv", nargs="+", metavar="FILE",
                        help="summarise (and --write) earlier --csv outputs instead of running")
    args = parser.parse_args(argv)
    if args.from_csv:
        runs = pd.concat([pd.read_csv(f) for f in args.from_csv], ignore_index=True)
        return _report(runs, args, elapsed=None, loads=(os.getloadavg(), os.getloadavg()))
    budgets = [int(b) for b in args.budgets.split(",")]
    load_before = os.getloadavg()
    start = time.perf_counter()
    flawed = [e["name"] for e in FLAWED]
    controls = [e["name"] for e in CONTROLS]
    parts = [power_runs(budgets=budgets, seeds=range(args.seeds), names=flawed, n_jobs=args.jobs,
                        progress=not args.quiet)]
    small = [b for b in budgets if b <= 100]
    large = [b for b in budgets if b > 100]
    if small:
        parts.append(power_runs(budgets=small, seeds=range(args.seeds), names=controls,
                                n_jobs=args.jobs, progress=not args.quiet))
    if large:
        parts.append(power_runs(budgets=large, seeds=range(args.control_seeds), names=controls,
                                n_jobs=args.jobs, progress=not args.quiet))
    runs = pd.concat(parts, ignore_index=True)
    if args.csv:
        runs.to_csv(args.csv, index=False)
    _report(runs, args, elapsed=time.perf_counter() - start, loads=(load_before, os.getloadavg()))


def _report(runs, args, *, elapsed, loads):
    table = power_summary(runs)
    seeds = sorted(runs["seed"].unique())
    print(format_power(table))
    wall = "" if elapsed is None else f"wall {elapsed:.0f} s; "
    print(f"\n{len(FLAWED)} planted flaws, {len(CONTROLS)} controls; seeds {seeds[0]}..{seeds[-1]}; "
          f"{wall}load average {loads[0][0]:.1f} → {loads[1][0]:.1f} (2 cores)")
    if args.write:
        load_before, load_after = loads
        rates = table.drop(index=["false alarms", "seconds"])
        stored = {
            "what": "detection rate of the search alone (no stored examples) on the flaw corpus, "
                    "per example budget; written by benchmarks/power.py --write",
            "seeds": len(seeds), "control_seeds_above_100": args.control_seeds,
            "load_average": [round(load_before[0], 1), round(load_after[0], 1)],
            "detection": {str(b): {p: round(float(v), 4) for p, v in rates[b].items() if v == v}
                          for b in table.columns},
            "false_alarms": {str(b): round(float(table.loc["false alarms", b]), 4) for b in table.columns},
            "seconds": {str(b): round(float(table.loc["seconds", b]), 1) for b in table.columns},
        }
        POWER_TABLE.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {POWER_TABLE}")


if __name__ == "__main__":
    main()
