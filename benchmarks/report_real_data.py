"""CPU time of the real-data worlds of ``puf report --data`` (run by hand, not by pytest).

    python benchmarks/report_real_data.py                  # ML-1M, EASE lists, the quick grids, one seed
    python benchmarks/report_real_data.py --full --seeds 5 # the full report's 175 worlds
    python benchmarks/report_real_data.py --sweeps skewness --values 0,2 --pairings random,most_fair --out a.csv
    python benchmarks/report_real_data.py --data DIR --ranker mostpop --sweeps zero_relevance --values 0.5 \
        --registered --max-pairs 1e9 --sample 1000000   # one world of the report at any size

Runs the report's two real-data sweeps (zero relevance; skewness x pairing) on the
dataset's histories and EASE's top-10 lists, as ``puf report --data`` does, and
prints the number of worlds, wall and CPU seconds (this process, user + system)
per world (``--workers N``: this process and its workers). Run it with the interpreter of each version of the code to compare
(the ratio of CPU seconds per world is the speed-up; ``--out`` writes the sweeps'
tables, to compare byte for byte); report ``uptime`` beside it. ``--sweeps``,
``--values`` and ``--pairings`` cut the grid (a short run of the skewness sweep). ``--ranker``
takes another ranker's lists, ``--registered`` adds every registered measure the report adds to
the sweep (:func:`reports.report.sweep_extra`), and ``--max-pairs`` and ``--sample`` are
``puf report``'s options of those names.
"""

import dataclasses

import argparse
import resource
import sys
import time


def _cpu():
    """CPU seconds of this process and of its ended workers (user + system)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="ml-1m")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--full", action="store_true", help="the full grids (default: the quick ones)")
    parser.add_argument("--sweeps", default="zero_relevance,skewness", help="comma-separated sweep names")
    parser.add_argument("--values", default=None, help="comma-separated sweep values (default: the grid's)")
    parser.add_argument("--pairings", default=None, help="comma-separated pairings of a crossed sweep")
    parser.add_argument("--out", default=None, help="write the sweeps' tables to this CSV")
    parser.add_argument("--workers", type=int, default=1, help="processes for the worlds (the tables are the same)")
    parser.add_argument("--ranker", default="ease", help="whose top-10 lists the worlds hold (default ease)")
    parser.add_argument("--registered", action="store_true", help="add the measures the report adds (sweep_extra)")
    parser.add_argument("--max-pairs", default=None, help="as puf report --max-pairs")
    parser.add_argument("--sample", type=int, default=None, help="as puf report --sample")
    args = parser.parse_args(argv)
    from puf.cli.commands._evaluate_options import pair_options
    from puf.reports.report import sweep_extra

    pairs = pair_options(args)
    from puf.data import load, to_world
    from puf.evaluation import run_rankers
    from puf.reports.sweeps import Base
    from puf.reports.artificial_relevance import RelabelledWorlds
    from puf.reports.sweeps import SWEEPS

    dataset = load(args.data)
    runs = run_rankers(dataset, args.ranker, k=10, random_state=0)
    source = RelabelledWorlds(to_world(dataset, runs[args.ranker]))
    name = f"{args.data} ({args.ranker} lists)"
    base = Base(n_users=source.world.m, n_items=source.world.n_items, k=10, worlds=source, name=name, **pairs)
    seeds, tables = list(range(args.seeds)), []
    for key in args.sweeps.split(","):
        spec = _cut(SWEEPS[key], args.values, args.pairings)
        worlds = spec.n_worlds(quick=not args.full, n_seeds=len(seeds))
        wall, cpu = time.perf_counter(), _cpu()
        extra = sweep_extra(spec) if args.registered else ()
        table = spec.run(seeds=seeds, base=base, extra=extra, quick=not args.full, cache={}, workers=args.workers)
        tables.append(table.assign(sweep=key))
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
        print(
            f"{key}: {worlds} worlds, {wall:.0f} s wall, {cpu:.0f} s CPU, {cpu / worlds:.1f} CPU s a world", flush=True
        )
    if args.out:
        import pandas as pd

        pd.concat(tables, ignore_index=True).to_csv(args.out, index=False)
    return 0


def _cut(spec, values, pairings):
    """The sweep on the given values and pairing levels only."""
    if values:
        grid = tuple(float(v) for v in values.split(","))
        spec = dataclasses.replace(spec, values=grid, quick_values=grid)
    if pairings and spec.cross == "pairing":
        levels = tuple(pairings.split(","))
        spec = dataclasses.replace(spec, levels=levels, quick_levels=levels)
    return spec


if __name__ == "__main__":
    sys.exit(main())
