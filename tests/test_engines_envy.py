"""The envy engine's shortcuts (closed-form ME, pair join, product maxima) against the dense measures."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import puf
from puf.validation import ENVY_TOLERANCE
from puf.engines import envy as envy_engine
from puf.engines import envy_measures
from puf.engines._envy_pairs import list_pair_index
from puf.ranking import list_indicator


@st.composite
def crowded_worlds(draw):
    """Few items, long lists (many lists share items, many hit 2+ relevant items), graded ties."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = draw(st.integers(2, 25))
    n = draw(st.integers(2, 12))
    width = draw(st.integers(1, min(n, 6)))
    rankings = np.array([rng.permutation(n)[:width] for _ in range(m)])
    if width > 1 and draw(st.booleans()):
        rankings[:, 1:][rng.random((m, width - 1)) < 0.3] = -1
    grades = draw(st.sampled_from(["binary", "integer", "real"]))
    dense = rng.random((m, n)) < draw(st.sampled_from([0.1, 0.4, 0.8]))
    values = {
        "binary": np.ones((m, n)),
        "integer": rng.integers(1, 4, (m, n)).astype(float),
        "real": rng.random((m, n)) + 0.01,
    }[grades]
    relevance = dense * values
    relevance[rng.random(m) < 0.2] = 0.0  # users with no relevant item
    if draw(st.booleans()):  # users whose own list holds none of their relevant items
        own_zero = rng.random(m) < 0.5
        for u in np.flatnonzero(own_zero):
            relevance[u, rankings[u][rankings[u] >= 0]] = 0.0
    return rankings, sp.csr_matrix(relevance)


def dense_envy(rankings, relevance, k, epsilon):
    utility = puf.utility_matrix(rankings, relevance, k=k)
    envy = np.maximum(utility - np.diag(utility)[:, None], 0.0)
    np.fill_diagonal(envy, 0.0)
    return (
        puf.mean_envy(utility),
        puf.mean_max_envy(utility),
        float(np.mean(envy.max(axis=1) > epsilon + ENVY_TOLERANCE)),
    )


@pytest.mark.parametrize("join_below", [0, 3, 10**9])  # product only, mixed, pair join only
@given(
    crowded_worlds(),
    st.sampled_from([None, 2]),
    st.sampled_from([0.0, 0.05, 0.3]),
    st.sampled_from([None, 1, 4]),
    st.sampled_from([1, 2]),
)
def test_every_path_equals_dense(join_below, world, k, epsilon, block_size, n_jobs):
    rankings, relevance = world
    k = None if k is None or k > rankings.shape[1] else k
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(envy_engine, "_PAIR_JOIN_MAX_ITEMS", join_below)
        got = envy_measures(rankings, relevance, k=k, epsilon=epsilon, block_size=block_size, n_jobs=n_jobs)
    me, mme, peu = dense_envy(rankings, relevance, k, epsilon)
    assert abs(got["me"] - me) <= 1e-12
    assert abs(got["mme"] - mme) <= 1e-12
    assert got["peu"] == peu


def test_pair_join_hand_computed(monkeypatch):
    # User 0: grades {0: 1, 1: 2, 2: 4, 3: 8}, own list (4, 5) gains nothing; z_0 (k = 4) = 15.
    # L_1 = (0, 1, 2, 5) hits 3 items: G = 7; L_2 = (3, 4, 5, 6) hits 1: G = 8;
    # L_3 = (1, 3, 6, 7) hits 2: G = 10, the largest. Sum over lists: Σ_i r_i c_i = 1 + 2·2 + 4 + 8·2 = 25.
    rankings = np.array([[4, 5, -1, -1], [0, 1, 2, 5], [3, 4, 5, 6], [1, 3, 6, 7]])
    relevance = sp.csr_matrix(([1.0, 2, 4, 8], ([0, 0, 0, 0], [0, 1, 2, 3])), shape=(4, 8))
    for join_below in (0, 10**9):
        monkeypatch.setattr(envy_engine, "_PAIR_JOIN_MAX_ITEMS", join_below)
        got = envy_measures(rankings, relevance, epsilon=0.5)
        assert got == pytest.approx({"me": 25 / 15 / 12, "mme": 10 / 15 / 4, "peu": 1 / 4}, abs=1e-15)


def test_list_pair_index_lists_every_pair_once():
    rankings = np.array([[2, 0, -1], [0, 2, 1], [1, -1, -1]])
    keys, indptr, lists = list_pair_index(rankings, 3)
    # Pairs (0, 1) in list 1; (0, 2) in lists 0 and 1; (1, 2) in list 1; list 2 has no pair.
    assert keys.tolist() == [0 * 3 + 1, 0 * 3 + 2, 1 * 3 + 2]
    assert [lists[a:b].tolist() for a, b in zip(indptr[:-1], indptr[1:])] == [[1], [0, 1], [1]]


def test_no_pairs_anywhere():
    # Lists of one item: no list pairs; every max comes from single hits.
    rankings = np.array([[0], [1], [1]])
    relevance = sp.csr_matrix([[0.0, 2.0], [0.0, 0.0], [1.0, 0.0]])
    got = envy_measures(rankings, relevance)
    me, mme, peu = dense_envy(rankings, relevance, None, 0.05)
    assert got == pytest.approx({"me": me, "mme": mme, "peu": peu}, abs=1e-15)


@given(crowded_worlds())
def test_own_gains_equal_the_products_diagonal_to_the_bit(world):
    # The envied kernel subtracts G[u, u] from every cell of u's row: it must be the very
    # float the product R·Lᵀ stores at (u, u), or an envy of 0 would come out as ±1 ulp.
    rankings, relevance = world
    lists = list_indicator(rankings, relevance.shape[1])
    diagonal = (relevance @ lists.T).toarray().diagonal()
    assert envy_engine._own_gains(relevance, lists).tolist() == diagonal.tolist()


@given(crowded_worlds(), st.sampled_from([0, 3, 10**9]))
def test_clustering_the_lists_changes_no_value(world, join_below):
    rankings, relevance = world
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(envy_engine, "_PAIR_JOIN_MAX_ITEMS", join_below)
        clustered = envy_measures(rankings, relevance, epsilon=0.0)
        patch.setattr(envy_engine, "_clustered_lists", lambda lists, counts: np.arange(len(lists)))
        as_given = envy_measures(rankings, relevance, epsilon=0.0)
    # Every cell of G is the same float; only the order of ME's additions changes.
    assert clustered["me"] == pytest.approx(as_given["me"], rel=1e-14, abs=1e-300)
    assert (clustered["mme"], clustered["peu"]) == (as_given["mme"], as_given["peu"])


def test_clustered_lists_hand_computed():
    # List counts: item 3 in 3 lists, item 1 in 2, items 0, 2, 4 in 1. By popularity rank
    # (3 → 0, 1 → 1, 0 → 2, 2 → 3, 4 → 4) the lists read (0, 1), (2, 4), (0, 3), (0, 1), (1, 5=pad);
    # sorted: (0, 1) lists 0 and 3, (0, 3) list 2, (1, pad) list 4, (2, 4) list 1.
    rankings = np.array([[3, 1], [0, 4], [2, 3], [1, 3], [1, -1]])
    counts = np.array([1.0, 3, 1, 3, 1])
    counts[1] = 2.5  # item 1 below item 3 (3 lists), above the singletons
    assert envy_engine._clustered_lists(rankings, counts).tolist() == [0, 3, 2, 4, 1]


@given(crowded_worlds())
def test_product_rows_store_what_the_sparse_product_stores(world):
    rankings, relevance = world
    lists_t = list_indicator(rankings, relevance.shape[1]).T.tocsr()
    shared = {"relevance": relevance, "lists_t": lists_t, "list_lengths": np.diff(lists_t.indptr)}
    users = np.arange(relevance.shape[0])[::2]
    expected = relevance[users] @ lists_t
    for kernel in (envy_engine._scipy_matmat, lambda: None):  # scipy's kernel, then the fallback
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(envy_engine, "_scipy_matmat", kernel)
            indptr, data = envy_engine._product_rows(shared, users)
        assert indptr.tolist() == expected.indptr.tolist()
        assert data.tolist() == expected.data.tolist()


def test_fallback_product_gives_the_same_measures(monkeypatch):
    rng = np.random.default_rng(3)
    rankings = np.array([rng.permutation(9)[:4] for _ in range(12)])
    relevance = sp.csr_matrix(np.where(rng.random((12, 9)) < 0.5, rng.random((12, 9)) + 0.1, 0.0))
    fast = envy_measures(rankings, relevance)
    monkeypatch.setattr(envy_engine, "_scipy_matmat", lambda: None)
    assert envy_measures(rankings, relevance) == fast
    me, mme, peu = dense_envy(rankings, relevance, None, 0.05)
    assert fast == pytest.approx({"me": me, "mme": mme, "peu": peu}, abs=1e-12)
