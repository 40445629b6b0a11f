"""Time the synthetic generators at their documented target sizes (run by hand, not by pytest).

    python benchmarks/synthetic.py            # the target sizes
    python benchmarks/synthetic.py --quick    # small sizes, a smoke test
    python benchmarks/synthetic.py --only pair  # the cases whose name holds "pair"

Each case runs in a fresh child process, so the peak resident memory it reports is that
case's own (the parent's imports excluded only approximately: about 100 MB).
"""

import argparse
import multiprocessing as mp
import os
import resource
import sys
import time

# This file is named like the package it times: put the repository, not benchmarks/, first.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(_HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

CASES = {
    "similarity_matrix m=10,000 skewness=8": ("similarity_matrix", {"m": 10_000, "skewness": 8.0}),
    "similarity_matrix m=10,000 skewness=-1.5": ("similarity_matrix", {"m": 10_000, "skewness": -1.5}),
    "similarity_matrix m=10,000 lognormal skewness=3": (
        "similarity_matrix",
        {"m": 10_000, "skewness": 3.0, "family": "lognormal"},
    ),
    "world 5,000 users x 5,000 items": ("world", {"n_users": 5_000, "n_items": 5_000}),
    "world 5,000 x 5,000, zero_relevance=0.3": ("world", {"n_users": 5_000, "n_items": 5_000, "zero_relevance": 0.3}),
    "reshape_skewness of a 2,000-user Jaccard": ("reshape", {"m": 2_000}),
    "pair most_fair m=1,000 (binary effectiveness)": ("pair", {"m": 1_000, "mode": "most_fair"}),
    "pair most_unfair m=1,000 (binary effectiveness)": ("pair", {"m": 1_000, "mode": "most_unfair"}),
    "pair most_fair m=2,000 (binary effectiveness)": ("pair", {"m": 2_000, "mode": "most_fair"}),
    "pair most_unfair m=2,000 (binary effectiveness)": ("pair", {"m": 2_000, "mode": "most_unfair"}),
    "pair most_fair m=1,000 (uniform effectiveness)": ("pair", {"m": 1_000, "mode": "most_fair", "uniform": True}),
    "pair most_unfair m=1,000 (uniform effectiveness)": ("pair", {"m": 1_000, "mode": "most_unfair", "uniform": True}),
}
QUICK = {
    "similarity_matrix m=1,000 skewness=8": ("similarity_matrix", {"m": 1_000, "skewness": 8.0}),
    "world 500 x 500": ("world", {"n_users": 500, "n_items": 500}),
    "pair most_unfair m=200": ("pair", {"m": 200, "mode": "most_unfair"}),
}


def _run(kind, options, queue):
    try:
        queue.put(_timed(kind, options))
    except BaseException as error:  # the parent must not wait forever on a failed child
        queue.put(error)
        raise


def _timed(kind, options):
    import numpy as np

    from puf import synthetic

    start = time.perf_counter()
    if kind == "similarity_matrix":
        synthetic.similarity_matrix(options.pop("m"), random_state=0, **options)
    elif kind == "world":
        synthetic.world(options.pop("n_users"), options.pop("n_items"), random_state=0, **options)
    elif kind == "reshape":
        from puf.similarity import jaccard_similarity

        jaccard = jaccard_similarity(synthetic.world(options["m"], 2_000, random_state=0).histories)
        start = time.perf_counter()
        synthetic.reshape_skewness(jaccard, skewness=6.0, random_state=0)
    elif kind == "pair":
        m = options["m"]
        s = synthetic.similarity_matrix(m, skewness=2.0, random_state=0)
        if options.get("uniform"):
            e = np.random.default_rng(0).random(m)
        else:
            e = synthetic.zero_relevance_effectiveness(m, 0.3, random_state=0)
        start = time.perf_counter()
        synthetic.pair(e, s, mode=options["mode"], random_state=0)
    seconds = time.perf_counter() - start
    return seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case; the best is kept")
    parser.add_argument("--only", default="", help="the cases whose name holds this text")
    args = parser.parse_args(argv)
    context = mp.get_context("spawn")
    print(f"{'case':<52} {'seconds':>8} {'peak MB':>8}")
    for name, (kind, options) in (QUICK if args.quick else CASES).items():
        if args.only not in name:
            continue
        best = None
        for _ in range(args.repeat):
            queue = context.Queue()
            child = context.Process(target=_run, args=(kind, dict(options), queue))
            child.start()
            result = queue.get()
            child.join()
            if isinstance(result, BaseException):
                raise SystemExit(f"{name}: {result!r}")
            best = result if best is None or result[0] < best[0] else best
        print(f"{name:<52} {best[0]:>8.2f} {best[1]:>8.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
