"""The PUF scale engines against the dense form, hand arithmetic, and bad input."""

import functools
import types
import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import puf
from puf.engines import (
    PairEstimate,
    cosine_puf,
    inner_product_puf,
    jaccard_puf,
    puf_from_histories,
    sample_puf,
)
from puf.engines import blocks, jaccard
from puf.engines.jaccard import keep_upper


def close(a, b):
    return abs(a - b) <= 1e-10 * max(1.0, abs(b))


def random_histories(seed, m, n, density, weighted=False, empty_rows=0):
    rng = np.random.default_rng(seed)
    histories = sp.random(m, n, density=density, random_state=rng, format="csr")
    if not weighted:
        histories.data[:] = 1.0
    if empty_rows:
        histories = sp.csr_matrix(histories.toarray() * (np.arange(m) >= empty_rows)[:, None])
    return histories


@st.composite
def worlds(draw, max_users=40, max_items=25):
    """(effectiveness, histories) with ties in S and empty histories now and then."""
    seed = draw(st.integers(0, 2**32 - 1))
    m = draw(st.integers(2, max_users))
    n = draw(st.integers(1, max_items))
    density = draw(st.sampled_from([0.0, 0.05, 0.2, 0.6, 1.0]))
    rng = np.random.default_rng(seed)
    effectiveness = rng.random(m)
    if draw(st.booleans()):
        effectiveness = np.round(effectiveness * 3) / 3  # ties
    histories = random_histories(seed, m, n, density, weighted=draw(st.booleans()), empty_rows=draw(st.integers(0, 2)))
    return effectiveness, histories


# --- exact engines = dense form ------------------------------------------------------------


def on_road(mp, road, dense_fraction=None):
    """Run the Jaccard engine's compiled tile (numba) or its numpy road, splitting at dense_fraction."""
    if road == "numpy":
        mp.setattr(jaccard, "compiled_puf_tile", None)
    else:
        assert jaccard.compiled_puf_tile is not None  # numba is in the test extra
        mp.setattr(jaccard, "COMPILED_MIN_PAIRS", 0)
    if dense_fraction is not None:
        mp.setattr(jaccard, "DENSE_FRACTION", dense_fraction)
        mp.setattr(jaccard, "COMPILED_DENSE_FRACTION", dense_fraction)


ROADS = ["compiled", "numpy"]


@given(
    worlds(),
    st.integers(1, 9),
    st.integers(1, 30),
    st.sampled_from([0.0, 0.05, 2.0]),
    st.sampled_from([1, 2]),
    st.sampled_from(ROADS),
)
def test_jaccard_engine_equals_dense(world, block_size, width, dense_fraction, n_jobs, road):
    # dense_fraction 0: every item in bits; 2.0: every item in the sparse part.
    effectiveness, histories = world
    expected = puf.pairwise_user_unfairness(effectiveness, puf.jaccard_similarity(histories))
    with pytest.MonkeyPatch.context() as mp:
        on_road(mp, road, dense_fraction)
        mp.setattr(blocks, "SEGMENT_WIDTH", width)
        got = jaccard_puf(effectiveness, histories, block_size=block_size, n_jobs=n_jobs)
    assert close(got, expected)


def plain_jaccard_puf(effectiveness, histories):
    """The definition as a loop over pairs of Python sets."""
    sets = [set(histories.indices[histories.indptr[u] : histories.indptr[u + 1]]) for u in range(histories.shape[0])]
    m, total = len(sets), 0.0
    for u in range(m):
        for v in range(u + 1, m):
            union = len(sets[u] | sets[v])
            total += (len(sets[u] & sets[v]) / union if union else 0.0) * abs(effectiveness[u] - effectiveness[v])
    return 2.0 * total / (m * (m - 1))


@pytest.mark.parametrize("road", ROADS)
@pytest.mark.parametrize("dense_fraction", [0.0, 0.05, 2.0])
def test_both_roads_equal_a_plain_loop_with_ties_and_empty_histories(road, dense_fraction, monkeypatch):
    # Ties in S (three levels), 20 empty histories, diagonal and off-diagonal tiles of several
    # widths; the compiled tile's row sums and skipped lower triangle must change nothing.
    histories = power_law_histories(8, 260, 150)
    histories = sp.csr_matrix(histories.toarray() * (np.arange(260) % 13 != 0)[:, None])
    effectiveness = np.round(np.random.default_rng(8).random(260) * 3) / 3
    on_road(monkeypatch, road, dense_fraction)
    monkeypatch.setattr(blocks, "SEGMENT_WIDTH", 70)
    expected = plain_jaccard_puf(effectiveness, histories)
    assert math.isclose(jaccard_puf(effectiveness, histories, block_size=24), expected, rel_tol=1e-12)


def test_compiled_tile_is_the_default_and_a_process_without_numba_runs_numpy_on_the_same_split(monkeypatch):
    histories = power_law_histories(9, 400, 200)
    s = np.random.default_rng(9).random(400)
    calls = []
    numpy_tile = jaccard._numpy_puf_tile
    monkeypatch.setattr(jaccard, "_numpy_puf_tile", lambda *args: calls.append(args) or numpy_tile(*args))
    # 79,800 pairs: below COMPILED_MIN_PAIRS the numpy road runs, numba stays unloaded.
    small = jaccard_puf(s, histories, block_size=32)
    assert calls
    calls.clear()
    on_road(monkeypatch, "compiled")
    compiled = jaccard_puf(s, histories, block_size=32)
    assert calls == [] and math.isclose(compiled, small, rel_tol=1e-12)
    # Tiles prepared for the compiled road, run where numba is missing (a dask worker
    # installed without the extra): the numpy road takes every tile, to the same value.
    order = np.argsort(np.diff(histories.indptr), kind="stable")
    segments, tasks = blocks.tile_tasks(400, 32)
    shared = jaccard.prepare_pattern(
        histories, order, segments=segments, dense_fraction=jaccard.COMPILED_DENSE_FRACTION
    )
    shared.update(scores=s[order], compiled=True)
    monkeypatch.setattr(jaccard, "compiled_puf_tile", None)
    worker = 2.0 * sum(jaccard._puf_tile(shared, task) for task in tasks) / (400 * 399)
    assert math.isclose(worker, compiled, rel_tol=1e-12) and len(calls) == len(tasks)


@pytest.mark.parametrize("fraction", [-0.1, float("nan"), float("inf"), "0.1"])
def test_prepare_pattern_refuses_a_bad_dense_fraction(fraction):
    with pytest.raises(ValueError, match="dense_fraction must be a finite number >= 0"):
        jaccard.prepare_pattern(sp.csr_matrix([[1.0]]), segments=[(0, 1)], dense_fraction=fraction)


@pytest.mark.parametrize("road", ROADS)
def test_two_users_one_empty_history(road, monkeypatch):
    on_road(monkeypatch, road)
    assert jaccard_puf([0.25, 0.75], sp.csr_matrix([[1.0, 0], [0, 0]])) == 0.0
    assert jaccard_puf([0.25, 0.75], sp.csr_matrix([[1.0, 1], [0, 1]])) == 0.5 * 0.5


@given(worlds(), st.integers(1, 9), st.sampled_from([1, 2]))
def test_cosine_engine_equals_dense(world, block_size, n_jobs):
    effectiveness, histories = world
    expected = puf.pairwise_user_unfairness(effectiveness, puf.cosine_similarity(histories))
    got = cosine_puf(effectiveness, histories, block_size=block_size, n_jobs=n_jobs)
    assert close(got, expected)


@pytest.mark.parametrize("seed", range(3))
def test_engines_equal_dense_on_a_medium_population(seed):
    # 600 users: several row blocks and column segments with the default sizes shrunk.
    rng = np.random.default_rng(seed)
    histories = random_histories(seed, 600, 120, 0.08)
    effectiveness = rng.random(600)
    for name, dense in (("jaccard", puf.jaccard_similarity), ("cosine", puf.cosine_similarity)):
        expected = puf.pairwise_user_unfairness(effectiveness, dense(histories))
        got = puf_from_histories(effectiveness, histories, similarity=name, block_size=64)
        assert close(got, expected)


def test_inner_product_engine_equals_plain_loop():
    rng = np.random.default_rng(7)
    vectors = sp.random(12, 5, density=0.5, random_state=rng, format="csr") * 0.4
    s = rng.random(12)
    dense = vectors.toarray()
    loop = sum(dense[u] @ dense[v] * abs(s[u] - s[v]) for u in range(12) for v in range(u + 1, 12))
    assert close(inner_product_puf(s, vectors), 2 * loop / (12 * 11))


def test_hand_computed_jaccard_and_cosine():
    # H_0 = {0, 1}, H_1 = {1, 2}, H_2 = {2}; S = (0, 0.5, 1).
    # Jaccard: J01 = 1/3, J02 = 0, J12 = 1/2.
    # Σ_{u<v} J·|ΔS| = 1/3·0.5 + 0·1 + 1/2·0.5 = 5/12; PUF = 2/(3·2)·5/12 = 5/36.
    histories = sp.csr_matrix([[1.0, 1, 0], [0, 1, 1], [0, 0, 1]])
    s = [0.0, 0.5, 1.0]
    assert math.isclose(jaccard_puf(s, histories), 5 / 36, rel_tol=1e-15)
    # Cosine: c01 = 1/2, c02 = 0, c12 = 1/√2; Σ = 0.25 + 0.5/√2; PUF = (0.25 + 0.5/√2)/3.
    assert math.isclose(cosine_puf(s, histories), (0.25 + 0.5 / math.sqrt(2)) / 3, rel_tol=1e-14)


def test_dispatch_from_puf_from_histories():
    histories = random_histories(3, 50, 20, 0.2)
    s = np.random.default_rng(3).random(50)
    dense = puf.pairwise_user_unfairness(s, puf.jaccard_similarity(histories))
    assert close(puf_from_histories(s, histories), dense)
    assert close(
        puf_from_histories(s, histories, similarity="cosine"),
        puf.pairwise_user_unfairness(s, puf.cosine_similarity(histories)),
    )


def test_dataframe_histories_and_degenerate_cases():
    frame = pd.DataFrame({"user": [0, 1, 1], "item": [0, 0, 1], "weight": [1.0, 1.0, 1.0]})
    # One pair, J = 1/2, |ΔS| = 1: PUF = 2/(2·1) · 1/2 = 1/2. User 2 has no history.
    assert close(jaccard_puf([0.0, 1.0, 1.0], frame), 2 / 6 * 0.5)
    empty = sp.csr_matrix((4, 3))
    assert jaccard_puf([0, 1, 0, 1.0], empty) == 0.0
    assert cosine_puf([0, 1, 0, 1.0], empty) == 0.0
    full = sp.csr_matrix(np.ones((3, 2)))
    assert close(jaccard_puf([0.0, 0.0, 0.0], full), 0.0)  # equal S: no gap anywhere


def test_tiles_cover_the_upper_triangle_once():
    for m, block, width in [(1, 1, 1), (7, 1, 1), (10, 3, 4), (33, 5, 12), (20, 8, 100)]:
        seen = np.zeros((m, m), dtype=int)
        segments, tasks = blocks.tile_tasks(m, block, width=width)
        for r0, r1, j in tasks:
            c0, c1 = segments[j]
            keep = keep_upper(r0, r1, c0, c1)
            seen[r0:r1, c0:c1] += np.ones((r1 - r0, c1 - c0), int) if keep is None else keep
        assert (seen == np.triu(np.ones((m, m), int), 1)).all()


def power_law_histories(seed, m, n):
    """Histories of log-normal lengths over items of power-law popularity (MovieLens-like)."""
    rng = np.random.default_rng(seed)
    lengths = np.clip(rng.lognormal(np.log(6), 1.0, m).astype(int), 1, n)
    popularity = 1.0 / np.arange(1, n + 1) ** 1.1
    rows = [rng.choice(n, size=k, replace=False, p=popularity / popularity.sum()) for k in lengths]
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    return sp.csr_matrix((np.ones(indptr[-1]), np.concatenate(rows), indptr), shape=(m, n))


def test_tiles_split_bits_and_sparse_by_their_users_and_stay_exact(monkeypatch):
    # Users ordered by history length: the segments of long histories put more items in bits
    # than those of short ones; every split gives the dense values to 1e-12.
    histories = power_law_histories(4, 700, 300)
    s = np.random.default_rng(4).random(700)
    expected = puf.pairwise_user_unfairness(s, puf.jaccard_similarity(histories))
    monkeypatch.setattr(blocks, "SEGMENT_WIDTH", 128)
    monkeypatch.setattr(jaccard, "DENSE_FRACTION", 0.05)
    order = np.argsort(np.diff(histories.indptr), kind="stable")
    segments, _ = blocks.tile_tasks(700, 32)
    words = jaccard.prepare_pattern(histories, order, segments=segments)["dense_words"]
    assert words[0, 0] < words[-1, -1] and (words == words.T).all()
    assert abs(jaccard_puf(s, histories, block_size=32) - expected) <= 1e-12 * expected


def test_public_sparse_product_and_byte_table_popcount_give_the_same_value(monkeypatch):
    histories = power_law_histories(5, 300, 200)
    s = np.random.default_rng(5).random(300)
    on_road(monkeypatch, "numpy", 0.1)
    kernels = jaccard_puf(s, histories, block_size=16)
    monkeypatch.setattr(jaccard, "_sparsetools", types.SimpleNamespace())  # a scipy that renamed them
    assert jaccard_puf(s, histories, block_size=16) == kernels

    def changed(*arguments):
        raise TypeError(f"csr_matmat() takes 12 arguments ({len(arguments)} given)")

    monkeypatch.setattr(jaccard, "_sparsetools", types.SimpleNamespace(csr_matmat=changed))
    assert jaccard_puf(s, histories, block_size=16) == kernels
    monkeypatch.setattr(jaccard, "_sparsetools", None)
    monkeypatch.setattr(jaccard, "_popcount", jaccard._popcount_table)
    assert jaccard_puf(s, histories, block_size=16) == kernels
    words = np.random.default_rng(5).integers(0, 2**64, (3, 7), dtype=np.uint64)
    out = np.empty((3, 7), dtype=np.uint8)
    assert (jaccard._popcount_table(words, out) == np.bitwise_count(words)).all()


@functools.cache
def side_by_side():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "jaccard_side_by_side.py"
    spec = importlib.util.spec_from_file_location("jaccard_side_by_side", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@given(worlds(max_users=60, max_items=40))
def test_engine_equals_the_gemm_road_before_it(world):
    effectiveness, histories = world
    before = side_by_side().gemm_road_puf(effectiveness, histories, n_jobs=1)
    assert math.isclose(jaccard_puf(effectiveness, histories), before, rel_tol=1e-12, abs_tol=1e-15)


def test_side_by_side_benchmark_runs_both_roads_on_one_data_set(capsys):
    assert side_by_side().main(["--size", "small", "--n-jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("engine:") == 1 and out.count("numpy:") == 1 and "median: engine" in out
    assert out.count("load average") == 2


# --- sampling ------------------------------------------------------------------------------


def test_sample_ci_coverage_over_200_seeds():
    histories = random_histories(11, 150, 40, 0.12)
    s = np.random.default_rng(11).random(150)
    exact = jaccard_puf(s, histories)
    estimates = [sample_puf(s, histories, sample_size=800, random_state=seed) for seed in range(200)]
    covered = sum(e.ci_low <= exact <= e.ci_high for e in estimates)
    # Binomial(200, 0.95): sd = sqrt(200·0.95·0.05) ≈ 3.1; ±4 sd around 190 is [178, 200].
    assert 178 <= covered <= 200
    # Unbiased: the mean of 200 estimates is within 4 of its standard errors of the exact value.
    mean = np.mean([e.value for e in estimates])
    se = np.mean([e.standard_error for e in estimates]) / math.sqrt(200)
    assert abs(mean - exact) <= 4 * se


def test_sample_cosine_and_reproducibility():
    histories = random_histories(5, 80, 30, 0.2, weighted=True)
    s = np.random.default_rng(5).random(80)
    a = puf_from_histories(s, histories, similarity="cosine", method="sample", sample_size=3000, random_state=42)
    b = puf_from_histories(
        s,
        histories,
        similarity="cosine",
        method="sample",
        sample_size=3000,
        random_state=np.random.default_rng(42),
        n_jobs=1,
        block_size=500,
    )
    assert a == b and isinstance(a, PairEstimate) and a.n_pairs == 3000
    assert float(a) == a.value and a.ci_low <= a.value <= a.ci_high
    assert abs(a.value - cosine_puf(s, histories)) <= 5 * a.standard_error


def test_two_users_sample_is_exact():
    histories = sp.csr_matrix([[1.0, 1], [0, 1]])
    est = sample_puf([0.0, 1.0], histories, sample_size=10, random_state=0)
    assert est.value == 0.5 and est.standard_error == 0.0  # the only pair: J = 1/2, gap 1


# --- bad input: ValueError before any work -------------------------------------------------

GOOD_S = [0.1, 0.5, 0.9]
GOOD_H = sp.csr_matrix([[1.0, 0], [1, 1], [0, 1]])

BAD_CALLS = [
    ("negative", dict(histories=sp.csr_matrix([[1.0, 0], [-1, 1], [0, 1]])), "non-negative"),
    ("nan", dict(histories=sp.csr_matrix([[1.0, 0], [np.nan, 1], [0, 1]])), "finite"),
    ("users", dict(histories=sp.csr_matrix(np.ones((4, 2)))), "user counts differ"),
    ("block0", dict(block_size=0), "block_size"),
    ("block_float", dict(block_size=2.5), "block_size"),
    ("sample1", dict(method="sample", sample_size=1), "sample_size"),
    ("sample_exact", dict(sample_size=100), "sample_size"),
    ("similarity", dict(similarity="js"), "similarity"),
    ("method", dict(method="approx"), "method"),
    ("engine", dict(engine="spark"), "engine"),
    ("n_jobs", dict(n_jobs=0), "n_jobs"),
    ("scheduler_local", dict(scheduler="tcp://127.0.0.1:1"), "scheduler"),
    ("effectiveness", dict(effectiveness=[0.1, 1.5, 0.2]), "effectiveness"),
    ("one_user", dict(effectiveness=[0.5], histories=sp.csr_matrix([[1.0]])), "at least 2"),
    ("random_state", dict(method="sample", random_state=-3), "random_state"),
]


@pytest.mark.parametrize("label, change, message", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_input_raises_value_error(label, change, message):
    kwargs = {"effectiveness": GOOD_S, "histories": GOOD_H, **change}
    with pytest.raises(ValueError, match=message):
        puf_from_histories(kwargs.pop("effectiveness"), kwargs.pop("histories"), **kwargs)


@pytest.mark.parametrize("rows", [3, 5])
def test_pair_pass_and_neighbours_refuse_histories_of_another_user_count(rows):
    from puf.engines.neighbors import nearest_neighbors
    from puf.engines.pair_pass import PairJob, pair_sums
    from puf.pair_kernels import pair_kernel_of

    form, options = pair_kernel_of(puf.pairwise_user_unfairness)
    histories = sp.csr_matrix(np.eye(rows, 6))
    features = np.ones((6, 2))
    job = PairJob(form, options, np.linspace(0, 1, 4))
    for similarity, inputs in [
        ("jaccard", {"histories": histories}),
        ("uf", {"histories": histories, "item_features": features, "gamma": 0.5}),
    ]:
        with pytest.raises(ValueError, match=f"histories has {rows} users, expected 4"):
            pair_sums([job], m=4, similarity=similarity, inputs=inputs)
        with pytest.raises(ValueError, match=f"histories has {rows} users, expected 4"):
            nearest_neighbors(4, 1, similarity=similarity, inputs=inputs)


def test_pair_pass_refuses_item_features_of_another_item_count():
    from puf.engines.pair_pass import PairJob, pair_sums
    from puf.pair_kernels import pair_kernel_of

    form, options = pair_kernel_of(puf.pairwise_user_unfairness)
    inputs = {"histories": sp.csr_matrix(np.eye(4, 6)), "item_features": np.ones((5, 2)), "gamma": 0.5}
    with pytest.raises(ValueError, match="item_features has 5 rows but there are 6 items"):
        pair_sums([PairJob(form, options, np.linspace(0, 1, 4))], m=4, similarity="uf", inputs=inputs)
