"""The UF engines: every path of the exact one against the dense UF, the bound it prunes
with, and the sampled UF's interval over many seeds."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import puf
from puf import UndefinedMeasureWarning
from puf.engines import PairEstimate, sample_uf, uf_streaming
from puf.engines import _uf_parts, blocks, jaccard
from puf.engines import uf as uf_engine


def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-10 * max(1.0, abs(b))


def world(seed, m=120, n=50, f=6, density=0.12, empty_rows=0):
    rng = np.random.default_rng(seed)
    histories = sp.random(m, n, density=density, random_state=rng, format="csr")
    if empty_rows:
        histories = sp.csr_matrix(histories.toarray() * (np.arange(m) >= empty_rows)[:, None])
    features = (rng.random((n, f)) < 0.3).astype(float)
    features[np.arange(n), rng.integers(0, f, n)] = 1.0
    rankings = np.array([rng.permutation(n)[:5] for _ in range(m)])
    vectors = rng.normal(size=(n, 4))
    return histories, features, rankings, vectors


def dense_uf(histories, features, rankings, vectors, gamma):
    return puf.uf(puf.uf_similarity(histories, features, gamma=gamma), puf.list_distance(rankings, vectors))


# Window z: 0 puts c* outside the window almost surely (the fallback pass runs);
# 4 is the default (one pass); 1e9 stores every pair in the window.
@pytest.mark.parametrize("window_z", [0.0, 4.0, 1e9])
@pytest.mark.parametrize("gamma", [0.0, 0.5, 1.0])
def test_every_path_equals_dense(window_z, gamma, monkeypatch):
    # With empty histories sim_JS is 0 for a few pairs and ~1 for the rest, so mean + SD
    # exceeds every value at γ = 0 (UF undefined): keep them for γ > 0 only.
    histories, features, rankings, vectors = world(1, empty_rows=3 if gamma > 0 else 0)
    expected = dense_uf(histories, features, rankings, vectors, gamma)
    monkeypatch.setattr(uf_engine, "WINDOW_Z", window_z)
    # Small tiles and segments: many tiles, diagonal and off-diagonal ones.
    monkeypatch.setattr(blocks, "SEGMENT_WIDTH", 40)
    monkeypatch.setattr(_uf_parts, "_JS_ROWS", 7)
    monkeypatch.setattr(_uf_parts, "_JS_COLUMNS", 9)
    got = uf_streaming(histories, features, rankings, vectors, gamma=gamma, block_size=16)
    assert close(got, expected)


def test_fallback_pass_runs_when_the_window_misses(monkeypatch):
    histories, features, rankings, vectors = world(2)
    calls = []
    original = uf_engine._bounded_sum_kernel
    monkeypatch.setattr(
        uf_engine, "_bounded_sum_kernel", lambda shared, task: calls.append(task) or original(shared, task)
    )
    monkeypatch.setattr(uf_engine, "WINDOW_Z", 0.0)
    got = uf_streaming(histories, features, rankings, vectors, gamma=0.5, n_jobs=1)
    assert calls  # the window [t̂ − 2e-12, t̂] missed the exact threshold
    assert close(got, dense_uf(histories, features, rankings, vectors, 0.5))
    calls.clear()
    monkeypatch.setattr(uf_engine, "WINDOW_Z", 4.0)
    again = uf_streaming(histories, features, rankings, vectors, gamma=0.5, n_jobs=1)
    assert not calls and close(again, got)


def test_head_and_tail_jaccard_parts_and_dask_free_threads(monkeypatch):
    # Every item in bits, then every item in the sparse part; 1 and 2 threads.
    histories, features, rankings, vectors = world(3, m=90)
    expected = dense_uf(histories, features, rankings, vectors, 0.3)
    for fraction in (0.0, 2.0):
        monkeypatch.setattr(jaccard, "DENSE_FRACTION", fraction)
        for n_jobs in (1, 2):
            got = uf_streaming(histories, features, rankings, vectors, gamma=0.3, block_size=8, n_jobs=n_jobs)
            assert close(got, expected)


@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.floats(0.0, 1.0))
def test_pinsker_bound_is_above_sim_js(seed, f, skew):
    # sim_JS <= 1 − ‖P − Q‖₂² / (8 ln 2), the bound the fallback pass prunes with.
    rng = np.random.default_rng(seed)
    p, q = rng.dirichlet(np.ones(f), size=2) ** (1 + 5 * skew)
    p, q = p / p.sum(), q / q.sum()
    shared = {
        "dist": np.where(np.vstack([p, q]) > 0, np.vstack([p, q]), np.finfo(float).tiny),
        "entropy": np.array([-(x[x > 0] * np.log2(x[x > 0])).sum() for x in (p, q)]),
        "nonempty": np.ones(2),
    }
    js = _uf_parts.pair_js(shared, np.array([0]), np.array([1]))[0]
    assert js <= 1.0 - ((p - q) ** 2).sum() / (8 * math.log(2)) + 1e-12


def test_js_shortcut_matches_the_dense_similarity():
    histories, features, _, _ = world(4, m=40, empty_rows=2)
    shared = _uf_parts.prepare_uf(histories, features, np.zeros((40, 1)), gamma=0.0)
    u, v = np.triu_indices(40, k=1)
    dense = puf.js_similarity(histories, features)[u, v]
    assert np.abs(_uf_parts.pair_js(shared, u, v) - dense).max() <= 1e-14


def test_item_vectors_are_required():
    histories, features, rankings, _ = world(5, m=10)
    with pytest.raises(ValueError, match="item_vectors is required"):
        uf_streaming(histories, features, rankings, None)
    with pytest.raises(TypeError):
        uf_streaming(histories, features, rankings)  # pylint: disable=no-value-for-parameter


# --- the sampled UF --------------------------------------------------------------------------


@pytest.mark.parametrize("gamma", [0.0, 0.5])
def test_sample_uf_ci_coverage_over_seeds(gamma):
    histories, features, rankings, vectors = world(3, m=150, n=60, f=5)
    exact = uf_streaming(histories, features, rankings, vectors, gamma=gamma)
    estimates = [
        sample_uf(histories, features, rankings, vectors, gamma=gamma, sample_size=3000, random_state=seed, n_jobs=1)
        for seed in range(100)
    ]
    covered = sum(e.ci_low <= exact <= e.ci_high for e in estimates)
    # Binomial(100, 0.95): sd ≈ 2.2; 4 sd below 95 is 86.
    assert 86 <= covered <= 100
    # The jackknife SE tracks the spread of the estimates over seeds: measured 0.99-1.4x
    # (conservative: the indicator at the estimated threshold is not smooth in a sample).
    spread = np.std([e.value for e in estimates], ddof=1)
    assert 0.7 <= np.mean([e.standard_error for e in estimates]) / spread <= 1.6


def test_sample_uf_is_reproducible_and_shaped():
    histories, features, rankings, vectors = world(6, m=60)
    a = sample_uf(histories, features, rankings, vectors, gamma=0.5, sample_size=2000, random_state=7)
    b = sample_uf(
        histories,
        features,
        rankings,
        vectors,
        gamma=0.5,
        sample_size=2000,
        random_state=np.random.default_rng(7),
        n_jobs=1,
        block_size=300,
    )
    assert a == b and isinstance(a, PairEstimate) and a.n_pairs == 2000
    assert a.ci_low < a.value < a.ci_high and a.standard_error > 0


def test_sample_uf_undefined_and_bad_input():
    histories = sp.csr_matrix(np.ones((3, 2)))
    rankings = np.array([[0], [0], [0]])  # identical lists: d_L = 0 everywhere
    with pytest.warns(UndefinedMeasureWarning):
        est = sample_uf(histories, np.eye(2), rankings, np.eye(2), sample_size=50, random_state=0)
    assert math.isnan(est.value) and math.isnan(est.ci_low) and est.n_pairs == 50
    good = (sp.csr_matrix(np.ones((2, 2))), np.eye(2), [[0], [1]], np.eye(2))
    for options, message in [
        ({"sample_size": 1}, "sample_size"),
        ({"gamma": -0.1}, "gamma"),
        ({"random_state": -1}, "random_state"),
        ({"block_size": 0}, "block_size"),
        ({"base": 1}, "base"),
    ]:
        with pytest.raises(ValueError, match=message):
            sample_uf(*good, **options)


def test_uf_engines_on_a_world_agree_with_its_population():
    # The README's call: the World's own item_vectors give the dense number.
    from puf import synthetic

    w = synthetic.world(60, 80, k=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        dense = puf.uf(w.similarity("uf", gamma=0.5), w.population().list_distance)
    got = uf_streaming(w.histories, w.item_features, w.rankings, w.item_vectors, gamma=0.5)
    assert close(got, dense)


def test_bench_table_checks_the_sampled_uf_against_the_exact_one():
    from puf.cli.commands.bench import benchmark_table

    common = {"size": "ml1m", "users": 6040, "interactions": 10**6, "dense": None}
    timing = {"seconds": 1.0, "cpu_seconds": 1.5, "peak_mb": 100.0}
    estimate = {"value": 11.7, "standard_error": 0.01, "ci_low": 11.68, "ci_high": 11.72, "n_pairs": 1000}
    table = benchmark_table(
        [
            {**common, "case": "uf", "engine": {**timing, "value": 11.69}},
            {**common, "case": "uf-sample", "engine": {**timing, "value": estimate}},
        ]
    )
    # z = (11.7 − 11.69) / 0.01 = +1.00, inside [11.68, 11.72].
    assert "exact 11.69: error 0.09% (z = +1.00, inside the 95% CI)" in table


@pytest.mark.parametrize("window_z", [0.0, 4.0])
def test_runs_in_one_pass_equal_each_run_alone(window_z, monkeypatch):
    # The same float, bit for bit, on the one-pass road and on the fallback pass.
    histories, features, rankings, vectors = world(5)
    others = [rankings, np.roll(rankings, 1, axis=0), rankings[:, ::-1].copy()]
    monkeypatch.setattr(uf_engine, "WINDOW_Z", window_z)
    monkeypatch.setattr(blocks, "SEGMENT_WIDTH", 40)
    alone = [uf_streaming(histories, features, r, vectors, gamma=0.5, block_size=16) for r in others]
    together = uf_engine.uf_streaming_runs(histories, features, others, vectors, gamma=0.5, block_size=16)
    assert together == alone
    assert close(together[1], dense_uf(histories, features, others[1], vectors, 0.5))


def test_runs_must_be_a_sequence_of_rankings():
    histories, features, rankings, vectors = world(6)
    with pytest.raises(ValueError, match="runs must be a non-empty sequence"):
        uf_engine.uf_streaming_runs(histories, features, [], vectors)
    with pytest.raises(ValueError, match="runs must be a non-empty sequence"):
        uf_engine.uf_streaming_runs(histories, features, rankings, vectors)
