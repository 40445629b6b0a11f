"""synthetic.PairingSearch: the same orders as a plain pair_order, its searches kept and shared."""

import numpy as np
import pytest

from puf.reports.artificial_relevance import RelabelledWorlds, artificial_relevance
from puf.reports.sweeps import Base
from puf.synthetic import PairingSearch, pair, pair_order
from puf.synthetic import pairing as module
from puf.validation import check_random_state


def reference_order(e, s, *, mode, restarts=None, max_rounds=None, random_state=None):
    """pair_order's search road written out plainly: every piece computed afresh."""
    e = np.asarray(e, dtype=float)
    s = np.array(s, dtype=float)
    np.fill_diagonal(s, 0.0)
    m = e.shape[0]
    restarts = (module._SMALL_RESTARTS if m <= module._SMALL else 0) if restarts is None else restarts
    rng = check_random_state(random_state)
    start = rng.permutation(m)
    if mode == "random" or np.all(e == e[0]):
        return start
    sign = 1.0 if mode == "most_fair" else -1.0
    ranked = np.argsort(e, kind="stable")
    candidates = [start] + [rng.permutation(m) for _ in range(restarts)]
    for order in module._spectral_orders(s, mode):
        spectral = np.empty_like(ranked)
        spectral[order] = ranked
        candidates.append(spectral)
    if m > module._SMALL:
        candidates = [min(candidates, key=lambda c: sign * module.weighted_gap_sum(e[c], s))]
    best, best_cost = None, np.inf
    for candidate in candidates:
        improved = module._local_search(e[candidate], s, sign, max_rounds)
        cost = sign * module.weighted_gap_sum(improved, s)
        if cost < best_cost:
            best, best_cost = improved, cost
    return module._indices_for(e, best)


def instance(m, seed, binary):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((m, m)) ** 3, 1)
    e = (rng.random(m) < 0.4).astype(float) if binary else rng.random(m)
    return e, upper + upper.T + np.eye(m)


@pytest.mark.parametrize("m, binary", [(5, True), (12, False), (40, True), (70, True), (80, False)])
def test_one_search_object_gives_the_reference_orders(m, binary):
    e, s = instance(m, m, binary)
    search = PairingSearch(s)
    for seed in range(3):
        for mode in ("random", "most_fair", "most_unfair"):
            options = dict(mode=mode, random_state=seed)
            want = reference_order(e, s, **options)
            assert np.array_equal(search(e, **options), want)
            assert np.array_equal(pair_order(e, s, **options), want)
            shuffled = e[np.random.default_rng(seed).permutation(m)]  # other users with these values
            assert np.array_equal(search(shuffled, **options), reference_order(shuffled, s, **options))


def test_restarts_and_max_rounds_reach_the_reference():
    e, s = instance(70, 1, True)
    search = PairingSearch(s)
    for options in (dict(restarts=3), dict(max_rounds=1), dict(restarts=0, max_rounds=2)):
        for mode in ("most_fair", "most_unfair"):
            want = reference_order(e, s, mode=mode, random_state=4, **options)
            assert np.array_equal(search(e, mode=mode, random_state=4, **options), want)


def test_a_start_already_searched_is_not_searched_again(monkeypatch):
    e, s = instance(100, 2, True)
    calls = []
    real = module._local_search
    monkeypatch.setattr(module, "_local_search", lambda *a, **k: calls.append(1) or real(*a, **k))
    search = PairingSearch(s)
    orders = [
        search(e[np.random.default_rng(seed).permutation(100)], mode="most_fair", random_state=seed)
        for seed in range(4)
    ]
    assert len(calls) == 1  # the four seeds' best start is the spectral one: the same values
    assert all(len(set(o)) == 100 for o in orders)


def test_artificial_relevance_is_the_same_with_a_search_object():
    world = Base(n_users=90, n_items=300, k=5).world(zero_relevance=0.0, random_state=0)
    search = PairingSearch(world.similarity("jaccard"))
    for seed in range(3):
        for mode in ("most_fair", "most_unfair"):
            plain = artificial_relevance(world, 0.4, pairing=mode, random_state=seed)
            kept = artificial_relevance(world, 0.4, pairing=mode, similarity=search, random_state=seed)
            assert (plain.relevance != kept.relevance).nnz == 0
            values = (plain.effectiveness("precision") == 0).astype(float)
            # the zero users are the ones synthetic.pair puts the zeros on
            rng = np.random.default_rng(seed)
            zero = np.zeros(90, dtype=bool)
            zero[rng.permutation(90)[:36]] = True
            paired = pair(np.where(zero, 0.0, 1.0), world.similarity("jaccard"), mode=mode, random_state=rng)
            assert np.array_equal(values == 1.0, paired == 0.0)
    source = RelabelledWorlds(world)
    relabelled = source(zero_relevance=0.4, pairing="most_fair", random_state=1)
    assert (
        relabelled.relevance != artificial_relevance(world, 0.4, pairing="most_fair", random_state=1).relevance
    ).nnz == 0


def test_bad_input_names_the_argument():
    search = PairingSearch(np.eye(3))
    with pytest.raises(ValueError, match="similarity has 3 users but effectiveness has 2"):
        search([0.0, 1.0], mode="most_fair")
    with pytest.raises(ValueError, match="unknown mode 'best'"):
        search([0.0, 1.0, 0.5], mode="best")
    with pytest.raises(ValueError, match="similarity must be a square"):
        PairingSearch(np.ones((2, 3)))


@pytest.mark.parametrize("ties", [0, 3, 40])
def test_packed_rank_order_is_the_stable_sort_of_the_shuffled_values(ties):
    from puf.synthetic.similarity import _rank_order, _value_ranks

    rng = np.random.default_rng(ties)
    observed = rng.random(5_000)
    if ties:
        observed = np.round(observed, 1 if ties == 40 else 2) * (rng.random(5_000) < 0.7)
        observed[:ties] = -0.0  # equal to 0.0
    plain = _rank_order(observed, np.random.default_rng(7))
    packed = _rank_order(observed, np.random.default_rng(7), _value_ranks(observed))
    assert np.array_equal(plain, packed)


def test_a_frozen_matrix_reshapes_to_the_bit_with_its_value_ranks_kept():
    from puf.synthetic import SkewnessReshaper, reshape_skewness

    rng = np.random.default_rng(1)
    s = np.round(rng.random((60, 60)), 2)
    s = (s + s.T) / 2
    np.fill_diagonal(s, 1.0)
    frozen = s.copy()
    frozen.flags.writeable = False
    for seed in (0, 1):
        want = reshape_skewness(s, skewness=2.0, random_state=seed)
        assert np.array_equal(SkewnessReshaper(frozen, random_state=seed)(2.0), want)


def test_relabelled_worlds_and_their_sweep_compute_the_jaccard_once(monkeypatch):
    import puf.similarity as similarity_module
    from puf.reports.sweeps import SWEEPS

    world = Base(n_users=40, n_items=200, k=5).world(zero_relevance=0.0, random_state=0)
    names = []
    real = similarity_module.compute_similarity
    monkeypatch.setattr(
        similarity_module, "compute_similarity", lambda name, *a, **k: names.append(name) or real(name, *a, **k)
    )
    base = Base(n_users=40, n_items=200, k=5, worlds=RelabelledWorlds(world), name="fixed")
    spec = SWEEPS["skewness"]
    cut = type(spec)(**{**spec.__dict__, "values": (0.0, 2.0), "quick_values": (0.0, 2.0)})
    cut.run(seeds=[0, 1], base=base, cache={})
    assert names.count("jaccard") == 1
