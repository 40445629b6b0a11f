"""Time ``puf check --all``: every registered measure through the property catalog.

Runs :func:`properties.all_verdicts` exactly as ``puf check --all`` does
(default settings, ``random_state=0``, ``--jobs`` worker processes) and prints
the wall time, the load average before and after (timings on a shared machine
are upper bounds), and each measure's summed property seconds, by family.

Usage: ``python benchmarks/check_all.py [--jobs 2] [--measures NAME ...]``
"""

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

# This folder holds benchmarks/synthetic.py, which would shadow the synthetic package.
sys.path[0] = str(Path(__file__).resolve().parent.parent)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2, as puf check)")
    parser.add_argument("--measures", nargs="+", default=None, help="default: every registered measure")
    args = parser.parse_args(argv)

    from puf import properties
    from puf import MEASURES

    names = args.measures or list(MEASURES)
    load_before = os.getloadavg()
    start, cpu_start = time.perf_counter(), os.times()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = properties.all_verdicts(names, n_jobs=args.jobs, random_state=0)
    wall = time.perf_counter() - start
    cpu_end = os.times()
    cpu = (
        cpu_end.user
        + cpu_end.children_user
        + cpu_end.system
        + cpu_end.children_system
        - cpu_start.user
        - cpu_start.children_user
        - cpu_start.system
        - cpu_start.children_system
    )
    seconds = {}
    for v in results:
        seconds[v.measure] = seconds.get(v.measure, 0.0) + v.seconds
    print("| family | measure | seconds (summed over properties) |\n|---|---|---|")
    for name in names:
        print(f"| {MEASURES[name].family} | `{name}` | {seconds[name]:.1f} |")
    print(
        f"\n{len(names)} measures x {len(properties.CATALOG)} properties, {args.jobs} jobs: "
        f"{wall:.1f} s wall, {cpu:.1f} s CPU (this process and its workers)"
    )
    print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
