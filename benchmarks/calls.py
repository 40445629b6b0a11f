"""Time one measure call as the property runner makes it (run by hand, not by pytest).

    python benchmarks/calls.py            # m = 10 users, 3,000 calls per case
    python benchmarks/calls.py --m 50 --calls 1000
    python benchmarks/calls.py --starts 40   # and the median start of a spec's worker

Compares a built-in measure (trusted: in-process, SIGALRM limit) with the same
computation as a user's function: given as an object (a worker forked from this
process), loaded from a spec (a fresh interpreter: how ``puf check FILE.py:f``,
``puf report --measure`` and ``pytest --measure`` run it), and the spec's measure
asked 100 calls per request (``MeasureWorker.call_many``). The difference is the
isolation's cost per call. With ``--starts``, the median time to start a spec's
worker (a fresh interpreter that imports the harness's end and loads the measure),
what a ``deterministic`` check, a crash or a timeout pays each time. Also times the item lookup of
``precision_at_k``/``ndcg_at_k`` on a 6,000 x 3,700 relevance matrix (the common
path, which the int64-safe renumbering must not slow). Report ``uptime`` beside
the numbers: on a shared machine, compare ratios of runs made side by side.
"""

import argparse
import pathlib
import tempfile
import time

import numpy as np
import scipy.sparse as sp

import puf
from puf.properties.running.calls import call_measure
from puf.properties.running import isolation


def _user_sd(effectiveness):
    return float(np.std(effectiveness))


def _best_of(function, repeat, number):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def _start(spec):
    """Seconds from nothing to a spec's worker ready to answer (its hello and its load), then closed."""
    worker = isolation.MeasureWorker(spec)
    start = time.perf_counter()
    worker.start()
    seconds = time.perf_counter() - start
    worker.close()
    return seconds


def main(argv=None):
    """Print the per-call times; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=10, help="users in the population (default 10)")
    parser.add_argument("--calls", type=int, default=3000, help="calls per timing (default 3000)")
    parser.add_argument("--starts", type=int, default=0, help="worker starts to time (default 0: none)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    similarity = rng.random((args.m, args.m))
    similarity = (similarity + similarity.T) / 2
    np.fill_diagonal(similarity, 1.0)
    population = puf.Population(rng.random(args.m), similarity)
    cases = [("built-in sd (in-process)", puf.as_measure("sd")), ("user sd (forked worker)", puf.as_measure(_user_sd))]
    if hasattr(isolation, "load_isolated"):
        cases.append(("user sd (fresh worker)", isolation.load_isolated(f"{__file__}:_user_sd")))
    for label, measure in cases:
        call_measure(measure, population, 2.0)  # the worker starts on the first call
        seconds = _best_of(lambda measure=measure: call_measure(measure, population, 2.0), 5, args.calls)
        print(f"{label:36s} {seconds * 1e6:8.1f} µs per call")
    if hasattr(isolation, "load_isolated"):
        worker = isolation.worker_for(cases[-1][1])
        batch = [population.fields()] * 100
        seconds = _best_of(lambda: worker.call_many(batch, 10.0), 5, max(args.calls // 100, 1))
        print(f"{'user sd (fresh worker, 100 a request)':36s} {seconds / 100 * 1e6:8.1f} µs per call")
    isolation.release_workers()
    if args.starts:
        with tempfile.TemporaryDirectory() as folder:  # (this file imports more than a measure's module does)
            path = pathlib.Path(folder) / "mine.py"
            path.write_text("import numpy as np\n\ndef sd(effectiveness):\n    return float(np.std(effectiveness))\n")
            seconds = sorted(_start(f"{path}:sd") for _ in range(args.starts))[args.starts // 2]
        print(f"{'start of a spec worker (median)':36s} {seconds * 1e3:8.1f} ms")

    m, n, k = 6000, 3700, 10
    relevance = sp.random(m, n, density=0.02, random_state=1, format="csr")
    relevance.data = np.ceil(relevance.data * 5)
    rankings = np.argsort(rng.random((m, n)), axis=1)[:, :k]
    for metric in (puf.precision_at_k, puf.ndcg_at_k):
        seconds = _best_of(lambda metric=metric: metric(rankings, relevance), 20, 1)
        print(f"{metric.__name__ + f' {m}x{n}':36s} {seconds * 1e3:8.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
