"""Exact Jaccard-PUF: the engine and the roads before it, side by side in one run (not a test).

    python benchmarks/jaccard_side_by_side.py                      # ML-20M size, every core
    python benchmarks/jaccard_side_by_side.py --size ml1m --repeat 3
    python benchmarks/jaccard_side_by_side.py --roads engine,numpy,gemm
    python benchmarks/jaccard_side_by_side.py --parts 20         # where the numpy road's time goes

The roads read the same generated data (``puf bench``'s bundle for the size: at ML-20M
138,000 users x 27,000 items, power-law popularity, log-normal history lengths) in this one
process, one after the other, and rotate which goes first on each repetition. Each run
reports wall and CPU seconds (all threads), the peak of numpy memory it allocated
(tracemalloc; the input excluded) and its value; the start and the end print the load
average, and the end the median times of each road against the first and the largest
relative difference of the values (the exit status is 1 above 1e-12).

The roads: ``engine`` is :func:`puf.engines.jaccard_puf` as installed (its compiled tile
with numba, the ``fast`` extra; its numpy road without). ``numpy`` is the engine's numpy
road, the one an install without numba runs: bit-packed popular items with numpy's AND and
popcount, scipy's sparse product over the rest, numpy's passes for the ratios.
``gemm`` is the road before that (kept here only to be timed against): users sorted by S,
a float32 GEMM over the items held by at least 3% of the users (at most 1,024, and 512
MB), a scipy sparse product over the rest, and per tile Σ J·(S_v − S_u) as J @ [S, 1].

``--parts K`` instead times the numpy road's three parts, in CPU seconds on one thread,
over the tiles of every K-th row block, and scales them to all tiles: the bit counts (AND
and popcount over the popular items' words), the sparse product of the rest (scipy's
kernel and its addition into the counts), and the ratios with Σ J·|S_u − S_v|.
"""

import argparse
import math
import os
import statistics
import sys
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp

# Run from anywhere: the repository first, so the engine timed is this checkout's.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from puf.engines import jaccard_puf  # noqa: E402
from puf.engines.blocks import check_user_matrix, tile_tasks  # noqa: E402
from puf.engines.executors import open_executor  # noqa: E402
from puf.validation import check_effectiveness  # noqa: E402

_FRACTION, _MAX_ITEMS, _BYTES, _BLOCK = 0.03, 1024, 1 << 29, 256


def _toarray_accumulates():
    probe = np.ones((1, 1), dtype=np.float32)
    sp.csr_matrix(np.ones((1, 1), dtype=np.float32)).toarray(out=probe)
    return probe[0, 0] == 2.0


_ACCUMULATES = _toarray_accumulates()


def _gemm_pattern(histories, order, segments):
    pattern = histories[order]
    pattern = sp.csr_matrix((np.ones(pattern.nnz, np.float32), pattern.indices, pattern.indptr), shape=pattern.shape)
    m, n = pattern.shape
    sizes = np.diff(pattern.indptr)
    dtype = np.float32 if sizes.max(initial=0) < 2**24 else np.float64
    counts = np.bincount(pattern.indices, minlength=n)
    n_dense = int(min(_MAX_ITEMS, _BYTES // (4 * max(m, 1)), np.count_nonzero(counts >= max(_FRACTION * m, 1))))
    head_items = np.sort(np.argsort(-counts, kind="stable")[:n_dense])
    is_head = np.zeros(n, dtype=bool)
    is_head[head_items] = True
    tail = pattern[:, np.flatnonzero(~is_head)].astype(dtype).tocsr()
    return {
        "head": np.ascontiguousarray(pattern[:, head_items].toarray(), dtype=dtype),
        "tail": tail,
        "tail_t": [tail[c0:c1].T.tocsr() for c0, c1 in segments] if tail.nnz else None,
        "union_sizes": np.where(sizes > 0, sizes, 0.5).astype(dtype),
        "segments": segments,
    }


def _gemm_tile(shared, task):
    r0, r1, j = task
    c0, c1 = shared["segments"][j]
    head = shared["head"]
    if head.shape[1]:
        inter = np.matmul(head[r0:r1], head[c0:c1].T)
    else:
        inter = np.zeros((r1 - r0, c1 - c0), dtype=head.dtype)
    if shared["tail_t"] is not None:
        product = shared["tail"][r0:r1] @ shared["tail_t"][j]
        if _ACCUMULATES:
            product.toarray(out=inter)
        else:
            inter += product.toarray()
    sizes = shared["union_sizes"]
    union = np.add(sizes[r0:r1, None], sizes[None, c0:c1])
    union -= inter
    jac = np.divide(inter, union, dtype=np.float64)
    if c0 < r1:
        jac *= np.arange(c0, c1)[None, :] > np.arange(r0, r1)[:, None]
    sums = jac @ shared["weights"][c0:c1]
    return float(sums[:, 0].sum() - shared["gains"][r0:r1] @ sums[:, 1])


def gemm_road_puf(effectiveness, histories, *, n_jobs=None):
    """Jaccard-PUF exactly by the road before the bit-packed one (see the module docstring)."""
    effectiveness = check_effectiveness(effectiveness, min_users=2)
    histories = check_user_matrix(histories, effectiveness.shape[0])
    m = effectiveness.shape[0]
    with open_executor("local", n_jobs=n_jobs) as executor:
        order = np.argsort(effectiveness, kind="stable")
        gains = effectiveness[order] - effectiveness[order[0]]
        segments, tasks = tile_tasks(m, _BLOCK)
        shared = _gemm_pattern(histories, order, segments)
        shared["gains"] = gains
        shared["weights"] = np.column_stack([gains, np.ones(m)])
        partials = executor.map(_gemm_tile, shared, tasks)
    return 2.0 * float(np.sum(partials)) / (m * (m - 1))


def numpy_road_puf(effectiveness, histories, *, n_jobs=None):
    """Jaccard-PUF exactly by the engine's numpy road, as an install without numba runs it."""
    from puf.engines import jaccard

    compiled, jaccard.compiled_puf_tile = jaccard.compiled_puf_tile, None
    try:
        return jaccard_puf(effectiveness, histories, n_jobs=n_jobs)
    finally:
        jaccard.compiled_puf_tile = compiled


ROADS = {
    "engine": lambda s, h, n_jobs: jaccard_puf(s, h, n_jobs=n_jobs),
    "numpy": lambda s, h, n_jobs: numpy_road_puf(s, h, n_jobs=n_jobs),
    "gemm": lambda s, h, n_jobs: gemm_road_puf(s, h, n_jobs=n_jobs),
}


def _timed(road, bundle, n_jobs):
    tracemalloc.start()
    cpu, wall = time.process_time(), time.perf_counter()
    value = ROADS[road](bundle["effectiveness"], bundle["histories"], n_jobs)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return {"road": road, "wall": wall, "cpu": cpu, "peak_mb": peak, "value": value}


def parts(bundle, every):
    """Projected one-thread CPU seconds of the engine's bit counts, sparse product and ratios."""
    from threadpoolctl import threadpool_limits

    from puf.engines import jaccard

    histories, effectiveness = bundle["histories"], bundle["effectiveness"]
    order = np.argsort(np.diff(histories.indptr), kind="stable")
    segments, tasks = tile_tasks(histories.shape[0], _BLOCK)
    shared = jaccard.prepare_pattern(histories, order, segments=segments)
    shared["scores"] = effectiveness[order]
    shared["compiled"] = False
    chosen = [task for task in tasks if (task[0] // _BLOCK) % every == 0]
    seconds = {"bit counts": 0.0, "sparse product": 0.0, "ratios and sum": 0.0}
    with threadpool_limits(limits=1, user_api="blas"):
        for r0, r1, j in chosen:
            row_segment = int(np.searchsorted(shared["segment_starts"], r0, side="right")) - 1
            words = int(shared["dense_words"][row_segment, j])
            c0, c1 = segments[j]
            counts = np.zeros((r1 - r0, c1 - c0), dtype=shared["pattern"].dtype)
            start = time.process_time()
            if words:
                jaccard._bit_counts(shared, r0, r1, c0, c1, words, counts)
            middle = time.process_time()
            jaccard._add_tail(shared, r0, r1, j, min(words * 64, histories.shape[1]), counts)
            counted = time.process_time()
            jaccard._puf_tile(shared, (r0, r1, j))
            seconds["bit counts"] += middle - start
            seconds["sparse product"] += counted - middle
            # The whole tile counts again inside _puf_tile: its ratios are the rest.
            seconds["ratios and sum"] += (time.process_time() - counted) - (counted - start)
    scale = len(tasks) / len(chosen)
    return {part: value * scale for part, value in seconds.items()}, len(chosen), len(tasks)


def _load():
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} at {time.strftime('%H:%M:%S', time.gmtime())} UTC"


def _compare(runs, roads):
    """The summary line: each road's median wall and CPU seconds against the first road's."""
    median = {road: statistics.median(r["wall"] for r in runs if r["road"] == road) for road in roads}
    cpu = {road: statistics.median(r["cpu"] for r in runs if r["road"] == road) for road in roads}
    values = [r["value"] for r in runs]
    spread = max(abs(v - values[0]) for v in values) / max(abs(values[0]), math.ulp(0.0))
    first = roads[0]
    against = "; ".join(
        f"{road} {median[road]:.2f} s wall ({median[road] / median[first]:.2f}x), {cpu[road]:.1f} s CPU "
        f"({cpu[road] / cpu[first]:.2f}x)"
        for road in roads[1:]
    )
    against = f"; {against}" if against else ""
    print(
        f"median: {first} {median[first]:.2f} s wall, {cpu[first]:.1f} s CPU{against}; "
        f"largest relative difference of the values {spread:.1e}"
    )
    return spread


def _roads(text):
    roads = tuple(text.split(","))
    unknown = [road for road in roads if road not in ROADS]
    if unknown or not roads or len(set(roads)) < len(roads):
        raise argparse.ArgumentTypeError(f"roads must be distinct names among {', '.join(ROADS)}, got {text!r}")
    return roads


def main(argv=None):
    from puf.cli.benchmark import SIZES, make_bundle
    from puf.engines.blocks import check_n_jobs

    parser = argparse.ArgumentParser(prog="benchmarks/jaccard_side_by_side.py", description=__doc__.split("\n")[0])
    parser.add_argument("--size", choices=tuple(SIZES), default="ml20m", help="data size (default ml20m)")
    parser.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    parser.add_argument("--n-jobs", type=int, default=None, help="threads (default: every usable core)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each road (default 1)")
    parser.add_argument(
        "--roads", type=_roads, default=("engine", "numpy"), help="roads to time, the first the reference"
    )
    parser.add_argument("--parts", type=int, default=None, metavar="K", help="time the numpy road's parts instead")
    args = parser.parse_args(argv)
    n_jobs = check_n_jobs(args.n_jobs)
    start = time.perf_counter()
    bundle = make_bundle(args.size, random_state=args.seed)
    m, n = bundle["histories"].shape
    print(
        f"{args.size}: {m:,} users x {n:,} items, {bundle['histories'].nnz:,} interactions "
        f"(generated in {time.perf_counter() - start:.1f} s); {n_jobs} threads",
        flush=True,
    )
    if args.parts:
        projected, chosen, total = parts(bundle, args.parts)
        everything = sum(projected.values())
        print(f"engine parts, one thread, {chosen} of {total} tiles timed, CPU s scaled to all tiles:")
        for part, value in projected.items():
            print(f"  {part:>15}: {value:7.1f} s ({value / everything:.0%})")
        print(f"  {'all':>15}: {everything:7.1f} s")
        return 0
    print(_load(), flush=True)
    runs = []
    for repetition in range(args.repeat):
        shift = repetition % len(args.roads)
        for road in args.roads[shift:] + args.roads[:shift]:
            run = _timed(road, bundle, n_jobs)
            runs.append(run)
            print(
                f"  {road:>6}: {run['wall']:8.2f} s wall {run['cpu']:8.2f} s CPU "
                f"{run['peak_mb']:8.0f} MB  value {run['value']!r}",
                flush=True,
            )
    print(_load())
    spread = _compare(runs, args.roads)
    return 0 if spread <= 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
