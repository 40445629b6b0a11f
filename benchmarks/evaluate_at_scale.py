"""``puf evaluate`` end to end on a generated MovieLens-sized dataset (run by hand, not by pytest).

    python benchmarks/evaluate_at_scale.py --size ml1m            # ~1M interactions, a few minutes
    python benchmarks/evaluate_at_scale.py --size ml20m           # ~18M interactions
    python benchmarks/evaluate_at_scale.py --size ml1m --memory 100MB --compare-dense
    python benchmarks/evaluate_at_scale.py --data ml-1m --memory 100MB --compare-dense  # the cached ML-1M
    python benchmarks/evaluate_at_scale.py --size ml1m --rankers mostpop,als --scheduler local:2 --json out.json

Writes ``DIR/<size>.inter`` and ``DIR/<size>.item`` (RecBole atomic files:
log-normal history lengths >= 20, power-law item popularity, ratings 1-5,
1-3 of 18 genres per item), then runs
``puf evaluate --inter ... --item ... --rankers mostpop,itemknn,als`` in a
subprocess under ``/usr/bin/time -v`` and prints one Markdown row: the
command, wall time, CPU time (user + system) and peak resident memory; the
command's whole stderr (each pass's progress bar with its time) goes to
``DIR/<size>-evaluate.stderr.txt``.
``--compare-dense`` then rebuilds the same lists in this process and computes
every measure on the dense Population (each measure function on its m x m
pieces), and prints the largest difference from the command's table, per
measure and over all; with a small ``--memory`` the command takes the engines'
tiled roads, so this is the engine road against the dense one. ``--data NAME``
runs ``puf evaluate --data NAME`` on a cached dataset instead of generated files. Report ``uptime`` beside the numbers: on a
shared machine the CPU time is the steadier figure.
``--scheduler local:N`` starts a LocalCluster of N one-thread worker processes here and
runs the command with ``--scheduler`` at its address; it then prints, per pass, the wall
seconds, the tasks and their compute seconds, the peak memory of the command and of the
workers, and the tasks' projected wall on more workers (``benchmarks/cluster_measure.py``);
the CPU time is then the command's plus the workers'. ``--json FILE`` keeps those rows.
The workers keep their arrays in the heap (``MALLOC_MMAP_THRESHOLD_``); ``--dask-allocator``
starts them with dask's own environment instead, for the comparison in docs/benchmarks/cluster.md.
"""

import argparse
import datetime
import math
import pathlib
import platform
import re
import subprocess
import sys
import time

import numpy as np
import pandas as pd

# Run from anywhere: the helper module sits next to this script.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from cluster_measure import pass_rows, run_watched, start_cluster  # noqa: E402

SIZES = {  # users, items, mean history length (before the rating threshold and the 5-core)
    "ml1m": (6_040, 3_706, 165),
    "ml20m": (138_493, 26_744, 180),
}
GENRES = 18


def generate(size, folder, *, seed=0):
    """Write ``folder/<size>.inter`` and ``.item``; return their paths."""
    users, items, mean = SIZES[size]
    rng = np.random.default_rng(seed)
    lengths = np.maximum(20, rng.lognormal(np.log(mean) - 0.5, 1.0, users)).astype(np.int64)
    lengths = np.minimum(lengths, items // 2)
    popularity = 1.0 / np.arange(1, items + 1) ** 0.9
    popularity /= popularity.sum()
    owner = np.repeat(np.arange(users), lengths)
    item = rng.choice(items, size=owner.size, p=popularity)
    frame = pd.DataFrame({"user": owner, "item": item}).drop_duplicates()
    frame["rating"] = rng.choice([1, 2, 3, 4, 5], size=len(frame), p=[0.03, 0.07, 0.25, 0.35, 0.30])
    frame["timestamp"] = np.arange(len(frame)) + rng.integers(0, 1000, len(frame))
    inter, item_file = folder / f"{size}.inter", folder / f"{size}.item"
    with open(inter, "w", encoding="utf-8") as handle:
        handle.write("user_id:token\titem_id:token\trating:float\ttimestamp:float\n")
        frame.to_csv(handle, sep="\t", header=False, index=False)
    genres = [
        " ".join(f"G{g}" for g in sorted(rng.choice(GENRES, rng.integers(1, 4), replace=False))) for _ in range(items)
    ]
    pd.DataFrame({"item_id:token": np.arange(items), "genre:token_seq": genres}).to_csv(
        item_file, sep="\t", index=False
    )
    return inter, item_file, len(frame)


def run_evaluate(inter, item, out, *, rankers, memory, extra, data=None, client=None):
    """Run the command under /usr/bin/time -v; return (command, wall s, cpu s, peak bytes, passes).

    With a dask ``client``, the command runs with ``--scheduler`` at its address, watched
    pass by pass (:func:`cluster_measure.run_watched`); the CPU seconds add the workers'.
    """
    source = ["--data", data] if data else ["--inter", str(inter), "--item", str(item)]
    command = [
        sys.executable,
        "-m",
        "puf.cli",
        "evaluate",
        *source,
        "--rankers",
        rankers,
        "--memory",
        memory,
        "--out",
        str(out),
        "--force",
        "--format",
        "csv",
        *([] if data else ["--cache", str(out.parent / "cache")]),
        *extra,
        *(["--scheduler", client.scheduler.address] if client is not None else []),
    ]
    passes, worker_cpu = None, 0.0
    if client is None:
        done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True)
        returncode, stderr = done.returncode, done.stderr
    else:
        returncode, _, stderr, bars, samples, tasks, worker_cpu = run_watched(["/usr/bin/time", "-v", *command], client)
        passes = pass_rows(bars, samples, tasks)
    # The whole stderr (each pass's progress bar ends with its time) next to the output folder.
    out.parent.joinpath(f"{out.name}.stderr.txt").write_text(stderr, encoding="utf-8")
    sys.stderr.write(stderr[-3000:])
    if returncode != 0:
        raise SystemExit(f"puf evaluate failed ({returncode})")
    facts = dict(re.findall(r"^\s*(.+?): (.+)$", stderr, flags=re.MULTILINE))
    wall = facts["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
    seconds = sum(float(part) * 60**i for i, part in enumerate(reversed(wall)))
    cpu = float(facts["User time (seconds)"]) + float(facts["System time (seconds)"]) + worker_cpu
    peak = int(facts["Maximum resident set size (kbytes)"]) * 1024
    return " ".join(["python", *command[1:]]), seconds, cpu, peak, passes


def dense_difference(inter, item, out, rankers, data=None):
    """Largest |command − dense| per measure (over the rankers) of ``out/scores.csv``: {label: (diff, n)}."""
    import puf
    from puf.data import load, load_atomic, to_world
    from puf.evaluation import run_rankers, study_similarity
    from puf.variant import METRICS

    dataset = load(data) if data else load_atomic(inter, item)
    from puf.data.dataset_cache import cache_dir

    runs_cache = cache_dir() / "runs" if data else out.parent / "cache" / "runs"
    runs = run_rankers(dataset, rankers, k=10, random_state=0, cache=runs_cache)
    table = pd.read_csv(out / "scores.csv", index_col="ranker")
    worst = {}
    for name, rankings in runs.items():
        world = to_world(dataset, rankings)
        for variant in puf.variants():
            column = variant.label.replace("@k", "@10")
            if column not in table:
                continue
            own = 0.5 if variant.gamma is not None else 1.0
            population = world.population(
                metric=METRICS[variant.metric or "NDCG"], k=10, similarity=study_similarity(variant), gamma=own
            )
            want, got = variant(population.fields()), float(table.loc[name, column])
            if math.isnan(want) and math.isnan(got):
                continue
            before, count = worst.get(column, (0.0, 0))
            worst[column] = (max(before, abs(want - got)), count + 1)
    return worst


def _workers(spec):
    """N of ``local:N`` (default 2)."""
    name, _, count = spec.partition(":")
    if name != "local" or (count and not count.isdigit()):
        raise SystemExit(f"--scheduler must be local or local:N, got {spec!r}")
    return int(count or 2)


def _print_passes(passes, path, run):
    """Print one Markdown row a pass; write them and the run's totals as JSON to ``path``."""
    counts = list(passes[0]["projected"]) if passes else []
    print(
        "| pass | wall s | tasks | task s | largest task s | workers' CPU s | command peak MB | workers' peak MB | "
        + " | ".join(f"T({n}) s" for n in counts)
        + " |"
    )
    print("|---" * (7 + len(counts)) + "|---|")
    for row in passes:
        print(
            f"| {row['pass']} | {row['wall']:.1f} | {row['tasks']} | {row['task_seconds']:.1f} | "
            f"{row['largest_task']:.2f} | {row['workers_cpu']:.1f} | {row['command_peak'] / 1e6:.0f} | {row['workers_peak'] / 1e6:.0f} | "
            + " | ".join(f"{row['projected'][n]:.1f}" for n in counts)
            + " |"
        )
    if path is not None:
        import json

        path.write_text(json.dumps({"run": run, "passes": passes}, indent=1), encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=SIZES, default="ml1m")
    parser.add_argument("--folder", type=pathlib.Path, default=pathlib.Path("benchmark-data"))
    parser.add_argument("--rankers", default="mostpop,itemknn,als")
    parser.add_argument("--memory", default="4GB", help="puf evaluate --memory")
    parser.add_argument("--compare-dense", action="store_true")
    parser.add_argument(
        "--data", default=None, help="a cached dataset (puf evaluate --data) instead of generated files"
    )
    parser.add_argument(
        "--scheduler", default=None, metavar="local:N", help="run on a LocalCluster of N worker processes"
    )
    parser.add_argument(
        "--dask-allocator",
        action="store_true",
        help="with --scheduler: keep dask's worker environment (arrays over 128 KiB mapped afresh)",
    )
    parser.add_argument("--json", type=pathlib.Path, default=None, help="write the passes' rows here")
    parser.add_argument("extra", nargs="*", help="more puf evaluate options, after --")
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)
    inter, item = args.folder / f"{args.size}.inter", args.folder / f"{args.size}.item"
    if not args.data and (not inter.exists() or not item.exists()):
        inter, item, rows = generate(args.size, args.folder)
        print(f"generated {inter}: {rows} interactions", file=sys.stderr)
    out = args.folder / f"{args.data or args.size}-evaluate"
    cluster, client = (
        start_cluster(_workers(args.scheduler), heap=not args.dask_allocator) if args.scheduler else (None, None)
    )
    try:
        command, wall, cpu, peak, passes = run_evaluate(
            inter, item, out, rankers=args.rankers, memory=args.memory, extra=args.extra, data=args.data, client=client
        )
    finally:
        if cluster is not None:
            client.close()
            cluster.close()
    if passes is not None:
        _print_passes(passes, args.json, {"command": command, "wall": wall, "cpu": cpu, "peak": peak})
    skipped = (out / "skipped.csv").read_text().strip() if (out / "skipped.csv").exists() else "none"
    print(
        f"| {datetime.date.today()} | {platform.machine()} | `{command}` | {wall:.0f} s | "
        f"{cpu:.0f} s | {peak / 2**30:.2f} GiB | skipped: {skipped} |"
    )
    if args.compare_dense:
        started = time.perf_counter()
        worst = dense_difference(inter, item, out, args.rankers, data=args.data)
        print(f"dense road: {time.perf_counter() - started:.0f} s wall\n\n| measure | max abs difference | values |")
        print("|---|---|---|")
        for label, (difference, count) in worst.items():
            print(f"| {label} | {difference:.3g} | {count} |")
        overall = max((d for d, _ in worst.values()), default=0.0)
        print(f"\nlargest |engine − dense| over {sum(c for _, c in worst.values())} values: {overall:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
