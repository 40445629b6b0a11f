"""CPU time of the real-data worlds of ``puf report --data`` (run by hand, not by pytest).

    python benchmarks/report_real_data.py                  # ML-1M, EASE lists, the quick grids, one seed
    python benchmarks/report_real_data.py --full --seeds 5 # the full report's 175 worlds

Runs the report's two real-data sweeps (zero relevance; skewness x pairing) on the
dataset's histories and EASE's top-10 lists, as ``puf report --data`` does, and
prints the number of worlds, wall and CPU seconds (this process, user + system)
per world. Run it with the interpreter of each version of the code to compare
(the ratio of CPU seconds per world is the speed-up); report ``uptime`` beside it.
"""

import argparse
import resource
import sys
import time


def _cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="ml-1m")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--full", action="store_true", help="the full grids (default: the quick ones)")
    args = parser.parse_args(argv)
    from puf.data import load, to_world
    from puf.evaluation import run_rankers
    from puf.reports.bases import Base
    from puf.reports.artificial_relevance import RelabelledWorlds
    from puf.reports.sweeps import SWEEPS

    dataset = load(args.data)
    runs = run_rankers(dataset, "ease", k=10, random_state=0)
    source = RelabelledWorlds(to_world(dataset, runs["ease"]))
    base = Base(
        n_users=source.world.m, n_items=source.world.n_items, k=10, worlds=source, name=f"{args.data} (ease lists)"
    )
    seeds = list(range(args.seeds))
    for key in ("zero_relevance", "skewness"):
        spec = SWEEPS[key]
        worlds = spec.n_worlds(quick=not args.full, n_seeds=len(seeds))
        wall, cpu = time.perf_counter(), _cpu()
        spec.run(seeds=seeds, base=base, quick=not args.full, cache={})
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
        print(
            f"{key}: {worlds} worlds, {wall:.0f} s wall, {cpu:.0f} s CPU, {cpu / worlds:.1f} CPU s a world", flush=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
