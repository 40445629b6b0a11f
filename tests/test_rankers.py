"""Baseline rankers: unseen, distinct, deterministic top-k lists; hand-computed scores."""

import sys
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from puf.rankers import (
    EASE,
    RANKERS,
    ItemKNN,
    MostPop,
    Random,
    UserKNN,
    available_rankers,
    implicit_available,
    make_ranker,
)

FAST = {
    "als": {"factors": 4, "iterations": 3},
    "bpr": {"factors": 4, "iterations": 3},
    "nmf": {"n_components": 4},
    # Two epochs: these tests check the lists' form; tests/test_rankers_neural.py their quality.
    "multvae": {"hidden_size": 16, "latent_size": 8, "max_epochs": 2},
    "ngcf": {"embedding_size": 8, "layers": (8,), "max_epochs": 2},
    "ncl": {"embedding_size": 8, "num_clusters": 4, "warm_up": 1, "max_epochs": 2},
}


def random_train(seed, m=12, n=15, density=0.3):
    rng = np.random.default_rng(seed)
    return sp.csr_matrix((rng.random((m, n)) < density).astype(np.float64))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 16))
@pytest.mark.parametrize("name", available_rankers())
def test_lists_are_unseen_distinct_and_padded(name, seed, k):
    train = random_train(seed)
    lists = make_ranker(name, random_state=1, **FAST.get(name, {})).fit(train).recommend(k=k)
    assert lists.shape == (12, k) and lists.dtype == np.int64
    dense = train.toarray() > 0
    for u, row in enumerate(lists):
        real = row[row >= 0]
        assert len(set(real)) == len(real)  # distinct
        assert not dense[u, real].any()  # never a training item
        assert len(real) == min(k, (~dense[u]).sum())  # full unless too few unseen
        assert (row[len(real) :] == -1).all()  # padding only at the end


@pytest.mark.parametrize("name", available_rankers())
def test_same_random_state_same_lists(name):
    train = random_train(7)
    params = FAST.get(name, {})
    first = make_ranker(name, random_state=3, **params).fit(train).recommend(k=5)
    second = make_ranker(name, random_state=3, **params).fit(train).recommend(k=5)
    assert np.array_equal(first, second)
    # asking for a subset of users, in small batches, gives those users' rows
    subset = make_ranker(name, random_state=3, **params).fit(train).recommend([5, 0, 9], k=5, batch_size=2)
    assert np.array_equal(subset, first[[5, 0, 9]])


def test_random_differs_across_seeds():
    train = random_train(7, m=20, n=200, density=0.05)
    a = Random(random_state=0).fit(train).recommend(k=10)
    b = Random(random_state=1).fit(train).recommend(k=10)
    assert not np.array_equal(a, b)


def test_mostpop_hand_computed():
    # popularity: item0 2, item1 1, item2 3, item3 0; user 2 saw item2
    train = np.array([[1, 0, 1, 0], [1, 1, 1, 0], [0, 0, 1, 0]])
    ranker = MostPop().fit(train)
    assert ranker.popularity_.tolist() == [2, 1, 3, 0]
    assert ranker.recommend([2], k=3).tolist() == [[0, 1, 3]]


def test_ease_hand_computed():
    # G = XᵀX + I = [[3,1,0],[1,2,0],[0,0,1]]; P = G⁻¹ has block [[2,-1],[-1,3]]/5, P22 = 1
    # B_ij = -P_ij / P_jj: B01 = (1/5)/(3/5) = 1/3, B10 = (1/5)/(2/5) = 1/2, diagonal 0
    ranker = EASE(l2=1.0).fit(np.array([[1, 1, 0], [1, 0, 0]]))
    np.testing.assert_allclose(ranker.weights_, [[0, 1 / 3, 0], [1 / 2, 0, 0], [0, 0, 0]], atol=1e-12)
    np.testing.assert_allclose(ranker.scores([1]), [[0, 1 / 3, 0]], atol=1e-12)


def test_itemknn_hand_computed():
    # items 0: users {0,1,2}, 1: {0,1}, 2: {2}; cos(0,1) = 2/(√3·√2), cos(0,2) = 1/√3, cos(1,2) = 0
    train = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1]])
    ranker = ItemKNN(neighbors=None).fit(train)
    expected = [[0, 2 / np.sqrt(6), 1 / np.sqrt(3)], [2 / np.sqrt(6), 0, 0], [1 / np.sqrt(3), 0, 0]]
    assert sp.issparse(ranker.similarity_)  # sparse neighbourhoods: no n x n dense matrix
    np.testing.assert_allclose(ranker.similarity_.toarray(), expected, atol=1e-12)
    # with one neighbour per item, item 0's column keeps only its best (item 1)
    pruned = ItemKNN(neighbors=1).fit(train).similarity_.toarray()
    assert np.count_nonzero(pruned, axis=0).tolist() == [1, 1, 1]
    assert pruned[1, 0] == pytest.approx(2 / np.sqrt(6))


def test_userknn_hand_computed():
    # user 0 = {0,1}; cos(0,1) = 2/(√2·√3), cos(0,2) = 0 ({2}); one neighbour: user 1
    train = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [0, 0, 1, 1]])
    scores = UserKNN(neighbors=1).fit(train).scores([0])
    np.testing.assert_allclose(scores, [[2 / np.sqrt(6)] * 3 + [0]], atol=1e-12)


def test_exclude_masks_more_items():
    train = np.array([[1, 0, 0, 0], [0, 1, 0, 0]])
    exclude = sp.csr_matrix(np.array([[0, 1, 1, 0], [0, 0, 0, 0]]))
    lists = MostPop().fit(train).recommend(k=3, exclude=exclude)
    assert lists.tolist() == [[3, -1, -1], [0, 2, 3]]
    with pytest.raises(ValueError, match="exclude has 1 users, expected 2"):
        MostPop().fit(train).recommend(k=3, exclude=np.zeros((1, 4)))


def test_registry_and_errors():
    assert list(RANKERS) == [
        "random",
        "mostpop",
        "userknn",
        "itemknn",
        "ease",
        "als",
        "bpr",
        "nmf",
        "multvae",
        "ngcf",
        "ncl",
    ]
    assert isinstance(make_ranker("EASE"), EASE)
    with pytest.raises(ValueError, match="unknown ranker 'svd'; known rankers: random, mostpop"):
        make_ranker("svd")
    with pytest.raises(ValueError, match="itemknn takes no parameter 'k'; it takes neighbors, shrink, random_state"):
        make_ranker("itemknn", k=20)  # was a TypeError from the constructor
    with pytest.raises(ValueError, match="MostPop is not fitted"):
        MostPop().recommend()
    ranker = MostPop().fit(np.eye(3))
    with pytest.raises(ValueError, match=r"users holds index 3 outside \[0, 3\)"):
        ranker.recommend([3])
    with pytest.raises(ValueError, match="k must be >= 1"):
        ranker.recommend(k=0)
    with pytest.raises(ValueError, match="neighbors must be >= 1"):
        ItemKNN(neighbors=0).fit(np.eye(3))
    with pytest.raises(ValueError, match="l2 must be >= 0"):
        EASE(l2=-1).fit(np.eye(3))
    with pytest.raises(ValueError, match="l2=0 leaves XᵀX"):  # was numpy's LinAlgError
        EASE(l2=0).fit(np.array([[1, 0, 0], [1, 0, 0]]))
    with pytest.raises(ValueError, match="train must be non-negative"):
        MostPop().fit(-np.eye(3))


def test_factorization_without_implicit_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "implicit", None)  # makes `import implicit` fail
    monkeypatch.setitem(sys.modules, "implicit.cpu", None)
    monkeypatch.setitem(sys.modules, "implicit.cpu.als", None)
    monkeypatch.setitem(sys.modules, "implicit.cpu.bpr", None)
    with pytest.raises(ImportError, match="needs the optional 'implicit' library: pip install"):
        make_ranker("als").fit(np.eye(3))


@pytest.mark.skipif(not implicit_available(), reason="optional 'implicit' not installed")
def test_implicit_rankers_are_listed_when_installed():
    assert {"als", "bpr"} <= set(available_rankers())


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(1, 12),
    n=st.integers(1, 30),
    levels=st.sampled_from([2, 4, 1000]),
    block=st.sampled_from([1, 7, 40, 1 << 18]),
    data=st.data(),
)
def test_top_k_items_is_the_stable_argsort_cut(seed, rows, n, levels, block, data):
    # Few distinct levels make ties at the cut, which must go to the lower index as a stable sort does.
    # A small block makes top_k_items order the rows a few (or one) at a time.
    from puf.rankers import _base, top_k_items

    k = data.draw(st.integers(1, n))
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, (rows, n)).astype(np.float64)
    scores[rng.random((rows, n)) < 0.2] = -np.inf
    scores[rng.random((rows, n)) < 0.05] = np.inf
    scores[scores == 0] = -0.0
    expected = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    with mock.patch.object(_base, "_TOP_K_BLOCK", block):
        assert np.array_equal(top_k_items(scores, k), expected)


@pytest.mark.parametrize("entries", [1, 30, 1 << 25])
def test_sparse_neighbourhoods_equal_the_dense_top_cut(entries):
    # entries=1 gives one row per block, spread over the threads; 1 << 25 one block.
    from puf.rankers import baselines

    vectors = random_train(11, m=25, n=9, density=0.4)
    dense = vectors.toarray()
    norms = np.sqrt((dense**2).sum(axis=1))
    denominator = np.outer(norms, norms) + 0.5
    expected = np.divide(dense @ dense.T, denominator, out=np.zeros((25, 25)), where=denominator > 0)
    np.fill_diagonal(expected, 0.0)
    expected = _base_keep_top(expected, 4)
    with mock.patch.object(baselines, "_BLOCK_ENTRIES", entries):
        got = baselines.sparse_neighbourhoods(vectors, 4, 0.5).toarray()
    assert np.array_equal(got, expected)


def _base_keep_top(matrix, neighbors):
    """Each row's ``neighbors`` largest entries kept, ties to the lower index (a stable sort's cut)."""
    kept = np.zeros_like(matrix)
    for r, row in enumerate(matrix):
        top = np.argsort(-row, kind="stable")[:neighbors]
        kept[r, top] = row[top]
    return kept


@pytest.mark.parametrize("name", available_rankers())
def test_threaded_batches_give_the_same_lists(name):
    ranker = make_ranker(name, random_state=3, **FAST.get(name, {})).fit(random_train(5, m=40))
    threaded = ranker.recommend(k=4, batch_size=3)
    with mock.patch.object(type(ranker), "threaded_batches", not ranker.threaded_batches):
        assert np.array_equal(ranker.recommend(k=4, batch_size=3), threaded)


def test_top_k_items_refuses_bad_input():
    from puf.rankers import top_k_items

    with pytest.raises(ValueError, match="k must be an integer in \\[1, 3\\]"):
        top_k_items(np.zeros((2, 3)), 0)
    with pytest.raises(ValueError, match="k must be an integer"):
        top_k_items(np.zeros((2, 3)), 2.0)
    with pytest.raises(ValueError, match="2-D"):
        top_k_items(np.zeros(3), 1)
    with pytest.raises(ValueError, match="NaN"):
        top_k_items(np.array([[0.0, np.nan]]), 1)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 20), batch=st.integers(1, 7), density=st.floats(0.0, 1.0))
def test_mostpop_walks_the_popularity_order_as_the_generic_sort_ranks(seed, k, batch, density):
    # MostPop's own top-k road (the first unseen items of one order) against the scores road.
    from puf.rankers._base import Ranker

    rng = np.random.default_rng(seed)
    train = random_train(seed, m=13, n=11, density=density)
    exclude = sp.csr_matrix((rng.random(train.shape) < 0.2).astype(float))
    ranker = MostPop(random_state=0).fit(train)
    got = ranker.recommend(k=k, exclude=exclude, batch_size=batch)
    expected = np.full_like(got, -1)
    width = min(k, train.shape[1])
    expected[:, :width] = Ranker._batch_top(ranker, np.arange(13), ranker.train_ + exclude, width)
    assert np.array_equal(got, expected)


def test_ease_at_60000_items_is_refused_before_its_gram_matrix_with_the_estimate(monkeypatch):
    """Allocated anyway, the 28.8 GB Gram matrix ended in a MemoryError (or the kernel's kill)."""
    from puf.memory import MemoryNeeded
    from puf.rankers import EASE

    monkeypatch.setenv("PUF_MAX_MEMORY", "20G")
    train = sp.csr_matrix(([1.0, 1.0], ([0, 1], [0, 59_999])), shape=(2, 60_000))

    def no_gram(*args, **kwargs):
        raise AssertionError("the Gram matrix was built before the memory check")

    monkeypatch.setattr(EASE, "_fit", no_gram)
    with pytest.raises(MemoryNeeded, match=r"fitting ease on 2 users and 60,000 items .* needs 86\.4 GB of memory"):
        EASE().fit(train)


def test_under_all_a_ranker_that_cannot_fit_is_skipped_saying_why(monkeypatch):
    import pandas as pd

    import puf.evaluation.runs as runs
    from puf.data import preprocess

    frame = pd.DataFrame(
        {"user_id": np.repeat(list("abcd"), 6), "item_id": np.tile(list("uvwxyz"), 4), "rating": 5.0, "timestamp": 1}
    )
    data = preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1)
    monkeypatch.setattr(runs, "available_rankers", lambda: ["mostpop", "ease"])
    monkeypatch.setenv("PUF_MAX_MEMORY", "500")  # bytes: EASE's three 6 x 6 matrices take 864
    with pytest.warns(UserWarning, match=r"skipping ease: fitting ease on 4 users and 6 items .* needs 864 bytes"):
        assert list(runs.run_rankers(data, "all", k=2)) == ["mostpop"]
    trained = []
    from puf.rankers import MostPop

    monkeypatch.setattr(MostPop, "fit", lambda self, train: trained.append(self))
    with pytest.raises(ValueError, match="needs 864 bytes"):  # named, it is refused, not skipped
        runs.run_rankers(data, "mostpop,ease", k=2)
    assert trained == []  # before any ranker trained
