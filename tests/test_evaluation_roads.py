"""The engine road equals the dense road for every measure; the skipped listing; sampled estimates."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import puf
from puf.evaluation import study_similarity
from puf.evaluation.planner import plan_roads
from puf.evaluation.roads import score_worlds
from puf.evaluation.study import Study
from puf.validation import UndefinedMeasureWarning


def _worlds(m=180, n=90, k=6, runs=2, seed=0):
    rng = np.random.default_rng(seed)
    popularity = 1.0 / np.arange(1, n + 1) ** 0.8
    histories = sp.csr_matrix((rng.random((m, n)) < 0.25 * popularity / popularity.mean()).astype(float))
    relevance = sp.csr_matrix(np.where(rng.random((m, n)) < 0.08, rng.integers(1, 6, (m, n)), 0.0))
    features = (rng.random((n, 5)) < 0.4).astype(float)
    features[features.sum(axis=1) == 0, 0] = 1.0
    worlds = {}
    for r in range(runs):
        rankings = np.argsort(-rng.random((m, n)) - r * popularity, axis=1)[:, :k]
        worlds[f"r{r}"] = puf.World(histories, relevance, rankings, features)
    return worlds


def _dense(world, variant, gamma=0.5):
    own = gamma if variant.gamma is not None else 1.0
    population = world.population(
        metric=puf.variant.METRICS[variant.metric or "NDCG"], similarity=study_similarity(variant), gamma=own
    )
    return variant(population.fields())


@pytest.fixture(scope="module")
def worlds():
    return _worlds()


def test_engine_road_equals_dense_road_for_every_measure(worlds):
    chosen = puf.variants()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        engine = score_worlds(worlds, chosen, Study(gamma=0.5), memory=1)
        dense = {name: [_dense(w, v) for v in chosen] for name, w in worlds.items()}
    kinds = {v.label: r.kind for v, r in zip(chosen, engine.roads)}
    assert kinds["PUF-P"] == "pairs" and engine.roads[[v.label for v in chosen].index("PUF-P")].source == "jaccard"
    assert kinds["ME"] == "envy" and kinds["UF"] == "uf"
    assert kinds["Inconsistency-P"] == "neighbours"
    assert not [label for label, kind in kinds.items() if kind == "skipped"]
    for name in worlds:
        for variant, road, got, want in zip(chosen, engine.roads, engine.values[name], dense[name]):
            if road.kind == "skipped":
                assert math.isnan(got)
            elif math.isnan(want):
                assert math.isnan(got), variant.label
            else:
                assert got == pytest.approx(want, abs=1e-10, rel=1e-10), (name, variant.label, road)


def test_the_matrix_road_equals_the_tiled_road(worlds):
    chosen = (
        puf.variants("PUF-P")
        + puf.variants("Lipschitz-excess-P")
        + puf.variants("Lipschitz-excess-NDCG")
        + puf.variants("MD-NDCG")
    )
    tiled = score_worlds(worlds, chosen, memory=1).values
    matrix = score_worlds(worlds, chosen).values
    for name in worlds:
        assert matrix[name] == pytest.approx(tiled[name], abs=1e-12)


def test_a_skipped_measure_names_the_memory_it_needs():
    def widest_gap(effectiveness, similarity):
        return 0.0

    (road,) = plan_roads(puf.variants(widest_gap)[:1], m=138_493)
    assert road.kind == "skipped" and road.needs == 8 * 138_493**2 * 3
    assert "460.3 GB" in road.reason and "memory limit" in road.reason


def test_measures_reading_item_features_are_skipped_without_them():
    chosen = puf.variants("UF") + puf.variants("PUF-P")
    roads = plan_roads(chosen, m=100, features_from="an .item file (--item)")
    assert [r.kind for r in roads] == ["skipped", "pairs"]
    assert "an .item file (--item)" in roads[0].reason


def test_sampled_estimates_cover_the_exact_values(worlds):
    chosen = (
        puf.variants("PUF-P") + puf.variants("PUF-NDCG") + puf.variants("Lipschitz-violation-P") + puf.variants("UF")
    )
    exact = score_worlds(worlds, chosen, Study(gamma=0.5)).values
    sampled = score_worlds(worlds, chosen, Study(gamma=0.5, sample=40_000, random_state=1))
    again = score_worlds(worlds, chosen, Study(gamma=0.5, sample=40_000, random_state=1))
    assert sampled.values == again.values
    for name in worlds:
        for variant, value in zip(chosen, exact[name]):
            estimate = sampled.estimates[name][variant.label]
            assert estimate.n_pairs == 40_000
            assert estimate.ci_low <= estimate.value <= estimate.ci_high
            assert abs(estimate.value - value) <= 5 * estimate.standard_error + 1e-12, variant.label


def _histories(m, n, seed):
    rng = np.random.default_rng(seed)
    return sp.csr_matrix((rng.random((m, n)) < 3.0 / n).astype(float))  # many ties at 0


@pytest.mark.parametrize("width", [64, 200, None])
def test_nearest_neighbours_merge_tiles_exactly(width):
    from puf.engines.neighbors import inconsistency_from_neighbors, nearest_neighbors

    histories = _histories(300, 40, 3)
    s = np.random.default_rng(4).random(300)
    matrix = puf.jaccard_similarity(histories)
    for source, inputs in (("jaccard", {"histories": histories}), ("matrix", {"matrix": matrix})):
        found = nearest_neighbors(300, 5, similarity=source, inputs=inputs, block_size=32, width=width, n_jobs=2)
        assert inconsistency_from_neighbors(s, found) == pytest.approx(puf.inconsistency(s, matrix), abs=1e-12)


@pytest.mark.parametrize("width", [64, 1500, None])
def test_the_pair_pass_visits_each_pair_once(width):
    from puf.engines.pair_pass import PairJob, pair_sums
    from puf.pair_kernels import pair_kernel_of

    m = 1300
    histories = _histories(m, 30, 5)
    s = np.random.default_rng(6).random(m)
    forms = [pair_kernel_of(f) for f in (puf.mean_difference, puf.pairwise_user_unfairness, puf.lipschitz_violation)]
    totals = pair_sums(
        [PairJob(form, options, s) for form, options in forms],
        m=m,
        similarity="jaccard",
        inputs={"histories": histories},
        block_size=96,
        width=width,
    )
    n_pairs = m * (m - 1) / 2
    matrix = puf.jaccard_similarity(histories)
    want = [puf.mean_difference(s), puf.puf(s, matrix), puf.lipschitz_violation(s, matrix)]
    assert [f.value(total=t, n_pairs=n_pairs) for (f, _), t in zip(forms, totals)] == pytest.approx(want, abs=1e-12)


def test_the_pair_pass_and_the_neighbours_read_stored_zeros_as_no_interaction():
    from puf.engines.neighbors import inconsistency_from_neighbors, nearest_neighbors
    from puf.engines.pair_pass import PairJob, pair_sums, sampled_pair_means
    from puf.pair_kernels import pair_kernel_of

    m = 40
    histories = sp.csr_matrix(np.random.default_rng(7).integers(0, 4, (m, 12)).astype(float))
    histories.data[::3] = 0.0  # stored zeros: no interaction, as puf.jaccard_similarity reads them
    s = np.random.default_rng(8).random(m)
    matrix = puf.jaccard_similarity(histories)
    form, options = pair_kernel_of(puf.pairwise_user_unfairness)
    features = np.eye(12)
    for similarity, inputs, want in (
        ("jaccard", {"histories": histories}, matrix),
        ("uf", {"histories": histories, "item_features": features, "gamma": 0.5}, None),
    ):
        if want is None:
            want = puf.uf_similarity(histories, features, gamma=0.5)
        (total,) = pair_sums([PairJob(form, options, s)], m=m, similarity=similarity, inputs=inputs)
        assert form.value(total=total, n_pairs=m * (m - 1) / 2) == pytest.approx(puf.puf(s, want), abs=1e-12)
        ((mean, se),) = sampled_pair_means(
            [PairJob(form, options, s)], m=m, sample_size=20_000, similarity=similarity, inputs=inputs, random_state=0
        )
        assert abs(mean - puf.puf(s, want)) <= 5 * se
    found = nearest_neighbors(m, 3, similarity="jaccard", inputs={"histories": histories})
    assert inconsistency_from_neighbors(s, found) == pytest.approx(puf.inconsistency(s, matrix, n_neighbors=3))


def test_the_neighbours_road_breaks_ties_of_sim_uf_as_the_dense_measure():
    # Users whose sim_UF ties in exact arithmetic get values a few ulps apart from the tiles'
    # arithmetic and the dense one's: both read them as tied, and take the lower index.
    from puf.engines.neighbors import inconsistency_from_neighbors, nearest_neighbors

    m = 40
    histories = sp.csr_matrix(np.random.default_rng(7).integers(0, 4, (m, 12)).astype(float))
    s = np.random.default_rng(8).random(m)
    inputs = {"histories": histories, "item_features": np.eye(12), "gamma": 0.5}
    found = nearest_neighbors(m, 3, similarity="uf", inputs=inputs)
    want = puf.inconsistency(s, puf.uf_similarity(histories, np.eye(12), gamma=0.5), n_neighbors=3)
    assert inconsistency_from_neighbors(s, found) == pytest.approx(want, abs=1e-12)


def test_inconsistency_reads_similarities_a_few_ulps_apart_as_tied():
    s = np.array([0.0, 1.0, 0.0, 0.5])
    sim = np.full((4, 4), 0.8)
    np.fill_diagonal(sim, 1.0)
    nudged = sim.copy()
    nudged[0, 3] = nudged[3, 0] = np.nextafter(0.8, 1.0)  # 0.8 in other arithmetic
    assert puf.inconsistency(s, nudged, n_neighbors=1) == puf.inconsistency(s, sim, n_neighbors=1)


def test_sampled_pairs_are_read_as_u_below_v_as_the_tiles_read_them():
    # A kernel need not be symmetric: the measure is its mean over the pairs u < v.
    from puf.engines.pair_pass import PairJob, pair_sums, sampled_pair_means
    from puf.pair_kernels import PairKernel

    def rise(effectiveness):
        s_u, s_v = effectiveness
        return s_v - s_u

    m, s = 50, np.linspace(0.0, 1.0, 50)
    job = PairJob(PairKernel(rise), {}, s)
    (total,) = pair_sums([job], m=m)
    ((mean, se),) = sampled_pair_means([job], m=m, sample_size=20_000, random_state=0)
    assert abs(mean - total / (m * (m - 1) / 2)) <= 5 * se + 1e-12


@pytest.mark.parametrize("name", list(puf.SIMILARITIES))
@pytest.mark.parametrize("copies", [1, 2, 3, 4, 5])
def test_a_matrix_road_planned_within_memory_is_one_the_similarity_builds_within_it(name, copies, monkeypatch):
    # The planner and the dense builder use one estimate: a road the planner sends to the
    # matrix is never refused by the builder's memory check at the same limit.
    m = 40
    memory = copies * 8 * m * m
    monkeypatch.setenv("PUF_MAX_MEMORY", str(memory))
    (road,) = plan_roads(puf.variants("PUF-P"), m=m, memory=memory, similarity=name)
    if road.source == "matrix":
        histories = sp.csr_matrix(np.random.default_rng(0).random((m, 30)) < 0.3, dtype=np.float64)
        extra = {"item_features": np.ones((30, 2)), "gamma": 0.5} if name == "uf" else {}
        extra = {"item_features": np.ones((30, 2))} if name == "js" else extra
        puf.SIMILARITIES[name](histories, **extra)


def test_uf_of_every_run_comes_from_one_pass_and_equals_each_run_alone(monkeypatch):
    from puf import engines

    uf_variants = puf.variants("UF")
    alone = {
        name: score_worlds({name: w}, uf_variants).values[name] for name, w in _worlds(90, 60, runs=3, seed=4).items()
    }
    calls = []
    original = engines.uf_streaming_runs
    monkeypatch.setattr(engines, "uf_streaming_runs", lambda *a, **o: calls.append(1) or original(*a, **o))
    together = score_worlds(_worlds(90, 60, runs=3, seed=4), uf_variants).values  # fresh worlds: nothing memoised
    assert together == alone and len(calls) == 1
    # Worlds of other users: each on its own road, the same values.
    other = _worlds(m=90, n=60, runs=1, seed=5)["r0"]
    mixed = score_worlds({"a": _worlds(90, 60, runs=3, seed=4)["r0"], "b": other}, uf_variants).values
    assert len(calls) == 1 and mixed["a"] == alone["r0"]
    assert mixed["b"] == score_worlds({"b": _worlds(90, 60, runs=1, seed=5)["r0"]}, uf_variants).values["b"]


def test_the_shared_gaps_of_the_built_in_kernels_give_the_generic_totals_bit_for_bit(monkeypatch):
    # PUF and both Lipschitz kernels of two effectiveness arrays (and a non-default L), on the
    # fused road and on the generic one (each kernel called on its own): the same floats.
    from puf.engines import pair_pass
    from puf.engines.pair_pass import PairJob, pair_sums
    from puf.pair_kernels import pair_kernel_of

    m = 700
    histories = _histories(m, 30, 7)
    rng = np.random.default_rng(8)
    arrays = [rng.random(m).round(1), rng.random(m)]
    forms = [pair_kernel_of(f) for f in (puf.puf, puf.lipschitz_violation, puf.lipschitz_excess)]
    jobs = [PairJob(form, options, s) for form, options in forms for s in arrays]
    jobs.append(PairJob(forms[1][0], {"lipschitz_constant": 0.5}, arrays[0]))
    options = dict(m=m, similarity="jaccard", inputs={"histories": histories}, block_size=96, width=200)
    fused = pair_sums(jobs, **options)
    with pytest.raises(ValueError, match="lipschitz_constant"):
        pair_sums([PairJob(forms[2][0], {"lipschitz_constant": -1.0}, arrays[0])], **options)
    monkeypatch.setattr(pair_pass, "_FUSED", ())
    assert fused == pair_sums(jobs, **options)


def test_a_value_of_a_given_matrix_and_the_lists_is_computed_once_for_every_relevance(worlds, monkeypatch):
    # UF reads the similarity and the lists: worlds differing in relevance alone, reading one
    # given (frozen) matrix, compute it once, and its value is the one computed afresh.
    from puf.reports.artificial_relevance import artificial_relevance

    world = worlds["r0"]
    matrix = np.array(world.shared_similarity("uf", gamma=0.5)) ** 2
    matrix.flags.writeable = False
    relabelled = [artificial_relevance(world, share, random_state=0) for share in (0.2, 0.7)]
    uf = puf.variants("UF")
    calls = []
    real = uf[0].__call__
    monkeypatch.setattr(type(uf[0]), "__call__", lambda self, *a, **k: calls.append(1) or real(*a, **k))
    values = [score_worlds({"w": w}, uf, Study(overrides={("uf", 0.5): matrix})).values["w"] for w in relabelled]
    assert values[0] == values[1] and len(calls) == 1
    fresh = matrix.copy()  # writeable: computed afresh, the same value
    assert score_worlds({"w": relabelled[0]}, uf, Study(overrides={("uf", 0.5): fresh})).values["w"] == values[0]


def test_the_envy_road_reads_the_output_each_measure_declares():
    """ME, ME-as-printed, MME and PEU name their engine output in ``@measure``; one pass serves them."""
    from puf.engines import envy_measures

    world = _worlds(60, 40, runs=1, seed=7)["r0"]
    labels = ("ME", "ME-as-printed", "MME", "PEU")
    chosen = [v for label in labels for v in puf.variants(label)]
    assert [v.measure.engine_output for v in chosen] == [("me", 1.0), ("me", 2.0), ("mme", 1.0), ("peu", 1.0)]
    values = score_worlds({"w": world}, chosen).values["w"]
    found = envy_measures(world.rankings, world.relevance, k=world.k)
    assert values == pytest.approx([found["me"], 2 * found["me"], found["mme"], found["peu"]], abs=1e-15)
    with pytest.raises(ValueError, match=r"engine_output must be \(output name, factor\), got 'me'"):
        puf.metadata.Measure(puf.mean_envy, "mine", engine_output="me")
