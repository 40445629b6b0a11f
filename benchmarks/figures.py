"""Time the report's sweep figures, drawn and written as PNG (run by hand, not by pytest).

    puf report --quick --out REPORT          # once: the sweeps' tables
    python benchmarks/figures.py REPORT      # CPU seconds a figure, best of 3 rounds

Draws each sweep's table (``REPORT/NAME.csv``) as the report does
(:func:`puf.reports.figures.plot_sweep` with the sweep's title, axis label, crossed setting,
percent and log axes; without the skewness marker, which needs the sweep's worlds) and writes
it with :func:`puf.reports.figures.save_figure` into a temporary folder. A figure's cost is
its process's CPU time (matplotlib draws on one thread). To compare two commits, run it on
each, side by side, and report the ratio with ``uptime``.
"""

import argparse
import pathlib
import tempfile
import time

import pandas as pd

from puf.reports.figures import plot_sweep, save_figure
from puf.reports.sections import _XLABEL, _families
from puf.reports.sweeps import SWEEPS


def draw(spec, table, folder):
    """Draw and write one sweep's figure, as the report's sweep section does."""
    fig = plot_sweep(
        table,
        title=spec.title,
        xlabel=_XLABEL[spec.parameter],
        families=_families(table),
        hue=spec.cross,
        percent=spec.parameter == "zero_relevance",
        logy=spec.name == "skewness_free_mean",
    )
    save_figure(fig, folder / f"{spec.name}.png")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=pathlib.Path, help="a folder `puf report` wrote")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the best is shown (default 3)")
    args = parser.parse_args()
    tables = {
        name: pd.read_csv(args.report / f"{name}.csv") for name in SWEEPS if (args.report / f"{name}.csv").is_file()
    }
    if not tables:
        parser.error(f"report: no sweep table (NAME.csv for NAME in {sorted(SWEEPS)}) in {args.report}")
    best = dict.fromkeys(tables, float("inf"))
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.rounds):
            for name, table in tables.items():
                start = time.process_time()
                draw(SWEEPS[name], table, pathlib.Path(folder))
                best[name] = min(best[name], time.process_time() - start)
    for name, seconds in best.items():
        panels = tables[name]["measure"].nunique()
        print(f"{name:<20} {panels:>3} panels  {seconds:6.2f} CPU s")
    print(f"{'all':<20} {'':>3}          {sum(best.values()):6.2f} CPU s (best of {args.rounds} rounds each)")


if __name__ == "__main__":
    main()
