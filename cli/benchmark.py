"""Benchmark cases for the scale engines: synthetic MovieLens-like data and timed runs.

``puf bench`` (:mod:`puf.cli.commands.bench`) and ``benchmarks/scale.py`` generate
a data bundle once per size, then run every case in a fresh subprocess
(``python -m puf.cli.benchmark CASE BUNDLE``) so that each case's peak
memory (``ru_maxrss``) is its own. It lives with the command line, not in
:mod:`puf.engines`: it times the engines against the dense measures, so it sits
above both.
"""

from __future__ import annotations

__all__ = [
    "SIZES",
    "CASES",
    "DEFAULT_CASES",
    "BASELINES",
    "SAMPLED",
    "synthetic_interactions",
    "make_bundle",
    "save_bundle",
    "load_bundle",
    "run_case",
    "baseline_bytes",
]

from collections.abc import Callable, Mapping
from typing import Any
import os
import json
import math
import resource
import sys
import time

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

#: name -> (users, items, median history length, log-normal sigma).
SIZES = {
    "small": (3_000, 1_500, 40.0, 1.0),
    "ml1m": (6_040, 3_706, 125.0, 1.0),
    "ml20m": (138_000, 27_000, 70.0, 1.15),
}
_K = 10
_GENRES = 18


def synthetic_interactions(
    m: int,
    n: int,
    *,
    median_degree: float,
    sigma: float,
    alpha: float = 1.1,
    offset: float = 30.0,
    random_state: int = 0,
) -> sp.csr_matrix:
    """A binary (m, n) CSR matrix with power-law item popularity and log-normal activity.

    Parameters
    ----------
    m, n : int
        Users and items.
    median_degree, sigma : float
        History lengths ~ LogNormal(log median_degree, sigma), clipped to [20, n/3]
        (MovieLens keeps users with >= 20 ratings); below 60 items every length is n/3.
    alpha, offset : float
        Item of popularity rank r is drawn with probability ∝ (r + offset)^−alpha.
    random_state : int
        Seed.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (m, n)
        Binary, duplicates removed (so lengths are slightly below the draws).

    Examples
    --------
    >>> x = synthetic_interactions(100, 50, median_degree=20, sigma=0.5, random_state=0)
    >>> x.shape, bool(x.nnz > 1000), set(x.data.tolist())
    ((100, 50), True, {1.0})
    """
    rng = np.random.default_rng(random_state)
    degree = np.clip(np.round(rng.lognormal(math.log(median_degree), sigma, m)), 20, n // 3)
    rows = np.repeat(np.arange(m, dtype=np.int64), degree.astype(np.int64))
    # Inverse CDF of the continuous power law on [0, n): one vectorised draw per interaction.
    lo, hi = offset ** (1 - alpha), (n + offset) ** (1 - alpha)
    rank = np.floor((lo - rng.random(rows.size) * (lo - hi)) ** (1 / (1 - alpha)) - offset)
    items = rng.permutation(n)[np.clip(rank.astype(np.int64), 0, n - 1)]
    keys = np.sort(rows * n + items)
    # np.unique would do, but numpy 2.4's takes ~65 s on 17M int64 keys here; sort + mask 0.5 s.
    keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    owners = keys // n
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(owners, minlength=m), out=indptr[1:])
    return sp.csr_matrix((np.ones(keys.size), (keys - owners * n).astype(np.int32), indptr), shape=(m, n))


def _popular_lists(histories: sp.csr_matrix, k: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """(m, k) lists drawn by popularity (a stand-in recommender), no duplicates."""
    m, n = histories.shape
    popularity = np.bincount(histories.indices, minlength=n) + 1.0
    cdf = np.cumsum(popularity) / popularity.sum()
    candidates = np.minimum(np.searchsorted(cdf, rng.random((m, 4 * k))), n - 1)
    ordered = np.sort(candidates, axis=1)
    first = np.argsort(candidates, axis=1, kind="stable")
    repeat = np.zeros(candidates.shape, dtype=bool)
    np.put_along_axis(repeat, first[:, 1:], ordered[:, 1:] == ordered[:, :-1], axis=1)
    keep = np.argsort(repeat, axis=1, kind="stable")[:, :k]
    lists = np.take_along_axis(candidates, keep, axis=1)
    lists[np.take_along_axis(repeat, keep, axis=1)] = -1
    return lists


def make_bundle(size: str, *, random_state: int = 0) -> dict[str, Any]:
    """Histories, relevance, lists, genres and NDCG@10 for one benchmark size.

    Examples
    --------
    >>> bundle = make_bundle("small")
    >>> bundle["histories"].shape, bundle["rankings"].shape, bundle["effectiveness"].shape
    ((3000, 1500), (3000, 10), (3000,))
    """
    from puf.effectiveness import ndcg_at_k

    m, n, median, sigma = SIZES[size]
    rng = np.random.default_rng(random_state)
    interactions = synthetic_interactions(m, n, median_degree=median, sigma=sigma, random_state=random_state)
    test = rng.random(interactions.nnz) < 0.2  # a random 80/20 split, graded 1..5
    coo = interactions.tocoo()
    histories = sp.csr_matrix((coo.data[~test], (coo.row[~test], coo.col[~test])), shape=(m, n))
    relevance = sp.csr_matrix(
        (rng.integers(1, 6, test.sum()).astype(float), (coo.row[test], coo.col[test])), shape=(m, n)
    )
    rankings = _popular_lists(histories, _K, rng)
    genre_weights = 1.0 / np.arange(1, _GENRES + 1)
    features = rng.random((n, _GENRES)) < 0.15 * genre_weights * _GENRES / genre_weights.sum()
    features[np.arange(n), rng.choice(_GENRES, n, p=genre_weights / genre_weights.sum())] = True
    return {
        "histories": histories,
        "relevance": relevance,
        "rankings": rankings,
        "item_features": features.astype(float),
        "effectiveness": ndcg_at_k(rankings, relevance, k=_K),
    }


def save_bundle(bundle: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Write a bundle to one uncompressed ``.npz`` file (sparse matrices as their CSR arrays).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "b.npz")
    >>> save_bundle({"histories": sp.csr_matrix(np.eye(2)), "effectiveness": np.ones(2)}, path)
    >>> bundle = load_bundle(path)
    >>> bundle["histories"].toarray(), bundle["effectiveness"]
    (array([[1., 0.],
           [0., 1.]]), array([1., 1.]))
    """
    arrays = {}
    for key, value in bundle.items():
        if sp.issparse(value):
            arrays.update(
                {
                    f"{key}.data": value.data,
                    f"{key}.indices": value.indices,
                    f"{key}.indptr": value.indptr,
                    f"{key}.shape": np.array(value.shape),
                }
            )
        else:
            arrays[key] = value
    np.savez(path, **arrays)


def load_bundle(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a bundle written by :func:`save_bundle` (example there)."""
    with np.load(path) as stored:
        bundle = {key: stored[key] for key in stored.files if "." not in key}
        for key in {name.split(".")[0] for name in stored.files if "." in name}:
            bundle[key] = sp.csr_matrix(
                (stored[f"{key}.data"], stored[f"{key}.indices"], stored[f"{key}.indptr"]),
                shape=tuple(stored[f"{key}.shape"]),
            )
    return bundle


def _engine_cases() -> dict[str, Callable[[Mapping[str, Any]], Any]]:
    from puf import declared_gamma
    from puf.engines import envy_measures, puf_from_histories, sample_uf, uf_streaming

    gamma = declared_gamma("uf")
    return {
        "cosine-puf": lambda b: puf_from_histories(b["effectiveness"], b["histories"], similarity="cosine"),
        "jaccard-puf": lambda b: puf_from_histories(b["effectiveness"], b["histories"]),
        "jaccard-puf-sample": lambda b: puf_from_histories(
            b["effectiveness"], b["histories"], method="sample", random_state=0
        ),
        "envy": lambda b: envy_measures(b["rankings"], b["relevance"]),
        "uf": lambda b: uf_streaming(
            b["histories"], b["item_features"], b["rankings"], b["item_features"], gamma=gamma
        ),
        "uf-sample": lambda b: sample_uf(
            b["histories"], b["item_features"], b["rankings"], b["item_features"], gamma=gamma, random_state=0
        ),
    }


def _baseline_cases() -> dict[str, Callable[[Mapping[str, Any]], Any]]:
    import puf

    def envy(b: Mapping[str, Any]) -> dict[str, float]:
        utility = puf.utility_matrix(b["rankings"], b["relevance"])
        return {
            "me": puf.mean_envy(utility),
            "mme": puf.mean_max_envy(utility),
            "peu": puf.proportion_envious_users(utility),
        }

    return {
        "cosine-puf": lambda b: puf.pairwise_user_unfairness(b["effectiveness"], puf.cosine_similarity(b["histories"])),
        "jaccard-puf": lambda b: puf.pairwise_user_unfairness(
            b["effectiveness"], puf.jaccard_similarity(b["histories"])
        ),
        "envy": envy,
        "uf": lambda b: puf.uf(
            puf.uf_similarity(b["histories"], b["item_features"], gamma=puf.declared_gamma("uf")),
            puf.list_distance(b["rankings"], b["item_features"]),
        ),
    }


#: Every benchmark case: an engine (and, where one exists, its dense baseline).
CASES = ("cosine-puf", "jaccard-puf", "jaccard-puf-sample", "envy", "uf", "uf-sample")
#: Cases run by default per size: all of them.
DEFAULT_CASES = {"small": CASES, "ml1m": CASES, "ml20m": CASES}
#: Cases with a dense baseline.
BASELINES = ("cosine-puf", "jaccard-puf", "envy", "uf")
#: Sampled case -> the exact case its interval is checked against.
SAMPLED = {"jaccard-puf-sample": "jaccard-puf", "uf-sample": "uf"}
# m x m float64 matrices alive at once in each dense baseline (measured peaks, rounded up).
_DENSE_COPIES = {"cosine-puf": 4, "jaccard-puf": 4, "envy": 4, "uf": 5}


def baseline_bytes(case: str, m: int) -> int:
    """Rough peak bytes of the dense baseline of ``case`` for m users.

    Examples
    --------
    >>> round(baseline_bytes("jaccard-puf", 138_000) / 1e9)
    609
    """
    return _DENSE_COPIES[case] * 8 * m * m


def _rss_mb() -> float:
    """Peak resident memory of this process so far, in MB.

    VmHWM first: Linux carries ``ru_maxrss`` across fork + exec, so a subprocess
    of a big parent would report the parent's peak.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux/BSD: KiB


def _jsonable(value: Any) -> Any:
    from puf.engines import PairEstimate

    if isinstance(value, PairEstimate):
        return {
            "value": value.value,
            "standard_error": value.standard_error,
            "ci_low": value.ci_low,
            "ci_high": value.ci_high,
            "n_pairs": value.n_pairs,
        }
    if isinstance(value, dict):
        return {k: float(v) for k, v in value.items()}
    return float(value)


def run_case(case: str, bundle_path: str | os.PathLike[str], *, baseline: bool = False) -> dict[str, Any]:
    """Load a bundle, run one case, return seconds, memory and the value.

    Memory is the process's peak resident set (MB), including the input bundle
    (``input_mb``, the peak right after loading it) and the interpreter;
    ``cpu_seconds`` is the process's CPU time for the call (all threads), which
    is steadier than wall time on a shared machine.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "b.npz")
    >>> save_bundle(make_bundle("small"), path)
    >>> out = run_case("cosine-puf", path)
    >>> sorted(out), 0 <= out["value"] <= 1
    (['baseline', 'case', 'cpu_seconds', 'input_mb', 'peak_mb', 'seconds', 'value'], True)
    """
    bundle = load_bundle(bundle_path)
    input_mb = _rss_mb()
    function = (_baseline_cases() if baseline else _engine_cases())[case]
    cpu, start = time.process_time(), time.perf_counter()
    value = function(bundle)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "case": case,
        "baseline": baseline,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "peak_mb": _rss_mb(),
        "input_mb": input_mb,
        "value": _jsonable(value),
    }


if __name__ == "__main__":  # python -m puf.cli.benchmark CASE BUNDLE [--baseline]
    print(json.dumps(run_case(sys.argv[1], sys.argv[2], baseline="--baseline" in sys.argv[3:])))
