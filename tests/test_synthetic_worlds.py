"""synthetic.worlds: the generator's guarantees, reproducibility, knobs, summary, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puf import ndcg_at_k, precision_at_k, puf, uf
from puf.synthetic import summary, world


@st.composite
def world_settings(draw):
    k = draw(st.integers(1, 5))
    return {
        "n_users": draw(st.integers(2, 15)),
        "n_items": draw(st.integers(k + 2, 60)),
        "k": k,
        "communities": draw(st.integers(1, 10)),
        "concentration": draw(st.floats(0.0, 1.0)),
        "zero_relevance": draw(st.floats(0.0, 1.0)),
        "grades": draw(st.integers(1, 5)),
        "random_state": draw(st.integers(0, 2**32 - 1)),
    }


@settings(max_examples=60, deadline=None)
@given(options=world_settings())
def test_generator_guarantees(options):
    w = world(**options)
    m, k = options["n_users"], options["k"]
    precision = precision_at_k(w.rankings, w.relevance)
    ndcg = ndcg_at_k(w.rankings, w.relevance)
    zero = precision == 0
    # Exactly round(p m) users with no relevant item listed; the rest fully relevant and ideal.
    assert zero.sum() == round(options["zero_relevance"] * m)
    assert np.all(ndcg[zero] == 0) and np.all(precision[~zero] == 1) and np.all(ndcg[~zero] == 1)
    relevant_counts = np.diff(w.relevance.indptr)
    assert np.all(relevant_counts[~zero] >= k) and np.all(relevant_counts >= 1)
    # Relevance is graded 1..grades and disjoint from the history; lists avoid the history.
    assert set(np.unique(w.relevance.data)) <= set(range(1, options["grades"] + 1))
    assert w.histories.multiply(w.relevance).nnz == 0
    history = w.histories.toarray() > 0
    assert not np.take_along_axis(history, w.rankings, axis=1).any()
    assert np.all(w.rankings >= 0) and all(len(set(row)) == k for row in w.rankings.tolist())
    assert np.all(w.histories.data == 1.0) and np.all(history.sum(axis=1) >= 1)
    # Multi-label genre features: binary, every row non-zero; vectors finite.
    assert set(np.unique(w.item_features)) <= {0.0, 1.0} and np.all(w.item_features.sum(axis=1) >= 1)
    assert w.item_vectors.shape == (options["n_items"], 16) and np.isfinite(w.item_vectors).all()


def _arrays(w):
    return [
        w.histories.data,
        w.histories.indices,
        w.histories.indptr,
        w.relevance.data,
        w.relevance.indices,
        w.relevance.indptr,
        w.rankings,
        w.item_features,
        w.item_vectors,
    ]


def test_same_random_state_is_byte_identical():
    a = world(60, 150, k=5, zero_relevance=0.3, pairing="most_unfair", random_state=11)
    b = world(60, 150, k=5, zero_relevance=0.3, pairing="most_unfair", random_state=np.random.default_rng(11))
    assert all(x.tobytes() == y.tobytes() for x, y in zip(_arrays(a), _arrays(b)))
    c = world(60, 150, k=5, zero_relevance=0.3, pairing="most_unfair", random_state=12)
    assert a.rankings.tobytes() != c.rankings.tobytes()


def test_zero_relevance_changes_relevance_only_and_nests():
    worlds = [world(80, 300, k=5, zero_relevance=p, random_state=3) for p in np.linspace(0, 1, 11)]
    previous = np.zeros(80, dtype=bool)
    for w, p in zip(worlds, np.linspace(0, 1, 11)):
        for name in ("rankings", "item_features", "item_vectors"):
            assert np.array_equal(getattr(w, name), getattr(worlds[0], name))
        assert (w.histories != worlds[0].histories).nnz == 0
        zero = precision_at_k(w.rankings, w.relevance) == 0
        assert zero.sum() == round(p * 80) and np.all(zero[previous])
        previous = zero


def test_paper_identities_on_worlds():
    # p = 0.3: SD-NDCG = sqrt(0.3 * 0.7), mean P@k = 0.7, Gini = 0.3
    s = summary(world(100, 400, k=5, zero_relevance=0.3, random_state=0))
    assert s["ndcg_sd"] == pytest.approx(math.sqrt(0.21), abs=1e-12)
    assert s["precision_mean"] == pytest.approx(0.7, abs=1e-12)
    assert s["zero_share"] == pytest.approx(0.3)
    assert set(s) >= {"jaccard_mean", "jaccard_skewness", "uf_mean", "uf_skewness", "history_mean"}
    assert all(type(s[c]) is int for c in ("n_users", "n_items", "k", "history_min", "history_max"))


def test_concentration_moves_similarity_skewness():
    low = summary(world(300, 1000, concentration=0.0, random_state=0))["jaccard_skewness"]
    high = summary(world(300, 1000, concentration=1.0, communities=12, random_state=0))["jaccard_skewness"]
    assert low < 1.0 and high > low + 1.5


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 1000), p=st.sampled_from([0.1, 0.3, 0.5, 0.7]))
def test_pairing_order_and_uf_unchanged(seed, p):
    pops = {
        mode: world(40, 200, k=5, zero_relevance=p, pairing=mode, random_state=seed).population(metric="precision")
        for mode in ("most_fair", "random", "most_unfair")
    }
    values = {mode: puf(pop.effectiveness, pop.similarity) for mode, pop in pops.items()}
    assert values["most_fair"] <= values["random"] + 1e-12 <= values["most_unfair"] + 2e-12
    ufs = {mode: uf(pop.similarity, pop.list_distance) for mode, pop in pops.items()}
    assert len(set(ufs.values())) == 1  # histories and lists do not depend on the pairing


@pytest.mark.parametrize(
    "options, message",
    [
        ({"n_users": 5, "n_items": 10, "k": 11}, "k must be <= n_items = 10, got 11"),
        ({"n_users": 5, "n_items": 6, "k": 5}, r"n_items must be >= k \+ 2 = 7"),
        ({"n_users": 1, "n_items": 10}, "n_users must be >= 2"),
        ({"n_users": 5, "n_items": 30, "k": 5, "history_size": 25}, "history_size 25 leaves no room"),
        ({"n_users": 5, "n_items": 30, "k": 5, "history_size": (5, 2)}, "low <= high"),
        ({"n_users": 5, "n_items": 30, "k": 5, "zero_relevance": 1.5}, r"zero_relevance must lie in \[0, 1\]"),
        ({"n_users": 5, "n_items": 30, "k": 5, "concentration": -0.1}, r"concentration must lie in \[0, 1\]"),
        ({"n_users": 5, "n_items": 30, "k": 5, "communities": 0}, "communities must be >= 1"),
        ({"n_users": 5, "n_items": 30, "k": 5, "pairing": "fair"}, "unknown pairing 'fair'"),
    ],
)
def test_bad_input(options, message):
    with pytest.raises(ValueError, match=message):
        world(**options)
