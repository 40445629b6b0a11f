"""synthetic.relevance and synthetic.histories: each changes exactly what it says and leaves the input untouched."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puf import Population, World, ndcg_at_k, precision_at_k, recall_at_k
from puf.similarity import cosine_similarity, jaccard_similarity
from puf.synthetic import (
    add_shared_history,
    drop_shared_history,
    less_relevant,
    more_relevant,
    move_outcomes,
    permute_users,
    relevance_from_lists,
    replicate,
    set_relevance,
    share_items,
    world,
)


@st.composite
def small_worlds(draw):
    k = draw(st.integers(1, 4))
    return world(
        draw(st.integers(2, 10)),
        draw(st.integers(k + 2, 40)),
        k=k,
        zero_relevance=draw(st.floats(0, 1)),
        concentration=draw(st.floats(0, 1)),
        random_state=draw(st.integers(0, 2**32 - 1)),
    )


def snapshot(w):
    return [w.histories.toarray(), w.relevance.toarray(), w.rankings.copy(), w.item_features.copy()]


def assert_untouched(w, before):
    for old, new in zip(before, snapshot(w)):
        assert np.array_equal(old, new)


@settings(max_examples=60, deadline=None)
@given(w=small_worlds(), user=st.integers(0, 9), more=st.booleans())
def test_relevance_moves_one_user_only(w, user, more):
    user %= w.m
    before = snapshot(w)
    transform = more_relevant if more else less_relevant
    try:
        changed = transform(w, user)
    except ValueError as error:
        assert "cannot make user" in str(error)
        return
    assert_untouched(w, before)
    rel_before, rel_after = before[1], changed.relevance.toarray()
    others = np.arange(w.m) != user
    assert np.array_equal(rel_before[others], rel_after[others])
    assert np.array_equal(np.sort(rel_before[user]), np.sort(rel_after[user]))  # grades only move
    assert (changed.histories != w.histories).nnz == 0 and np.array_equal(changed.rankings, w.rankings)
    assert changed.histories.multiply(changed.relevance).nnz == 0  # still disjoint
    sign = 1 if more else -1
    for metric in (precision_at_k, recall_at_k):
        a, b = metric(w.rankings, w.relevance), metric(changed.rankings, changed.relevance)
        assert sign * (b[user] - a[user]) >= 0 and np.array_equal(a[others], b[others])
    a, b = ndcg_at_k(w.rankings, w.relevance), ndcg_at_k(changed.rankings, changed.relevance)
    assert sign * (b[user] - a[user]) > 0
    own_before = np.diag(w.population(metric="precision").utility)[user]
    own_after = np.diag(changed.population(metric="precision").utility)[user]
    assert sign * (own_after - own_before) > 0


def test_generated_worlds_explain_when_impossible():
    w = world(10, 60, k=3, zero_relevance=0.5, random_state=0)
    zero = precision_at_k(w.rankings, w.relevance) == 0
    full_user, zero_user = int(np.flatnonzero(~zero)[0]), int(np.flatnonzero(zero)[0])
    with pytest.raises(ValueError, match="already holds its highest grades"):
        more_relevant(w, full_user)  # the generator's full lists are ideal
    with pytest.raises(ValueError, match="no grade above"):
        less_relevant(w, zero_user)
    assert precision_at_k(w.rankings, more_relevant(w, zero_user).relevance)[zero_user] > 0


@settings(max_examples=60, deadline=None)
@given(w=small_worlds(), u=st.integers(0, 9), v=st.integers(0, 9), n=st.integers(1, 3))
def test_shared_history_raises_one_pair_only(w, u, v, n):
    u, v = u % w.m, v % w.m
    if u == v:
        return
    before = snapshot(w)
    try:
        changed = add_shared_history(w, u, v, n_items=n)
    except ValueError as error:
        assert "private items" in str(error)
        return
    assert_untouched(w, before)
    j0, j1 = jaccard_similarity(w.histories), jaccard_similarity(changed.histories)
    c0, c1 = cosine_similarity(w.histories), cosine_similarity(changed.histories)
    assert j1[u, v] > j0[u, v] or j0[u, v] == 1.0
    pair = np.zeros(j0.shape, dtype=bool)
    pair[u, v] = pair[v, u] = True
    assert np.array_equal(j0[~pair], j1[~pair]) and np.allclose(c0[~pair], c1[~pair], atol=1e-12)
    assert changed.n_items == w.n_items + n
    p0, p1 = w.population(metric="ndcg"), changed.population(metric="ndcg")
    for name in ("effectiveness", "utility", "list_distance"):
        assert np.array_equal(getattr(p0, name), getattr(p1, name))


def test_shared_history_by_hand():
    # H0 = {0, 1}, H1 = {1, 2}, H2 = {2, 3}. Pair (0, 2): J = 0. User 0 overlaps user 1 (item 1),
    # so its private item 0 is traded for the fresh item 4; likewise user 2 trades item 3.
    # New H0 = {1, 4}, H2 = {2, 4}: J(0, 2) = 1/3; J(0, 1) = |{1}| / |{1, 2, 4}| = 1/3 as before.
    w = World(np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]), np.zeros((3, 4)), [[3], [3], [0]], np.eye(4))
    changed = add_shared_history(w, 0, 2)
    assert changed.histories.toarray().tolist() == [[0, 1, 0, 0, 1], [0, 1, 1, 0, 0], [0, 0, 1, 0, 1]]
    assert changed.item_features[4].tolist() == [0.25, 0.25, 0.25, 0.25]
    with pytest.raises(ValueError, match="fewer than 2 private items"):
        add_shared_history(w, 0, 2, n_items=2)
    with pytest.raises(ValueError, match="different users"):
        add_shared_history(w, 1, 1)


@settings(max_examples=30, deadline=None)
@given(w=small_worlds(), seed=st.integers(0, 1000), r=st.integers(1, 3))
def test_permute_and_replicate_match_the_population(w, seed, r):
    before = snapshot(w)
    order = np.random.default_rng(seed).permutation(w.m)
    base = w.population(metric="ndcg")
    moved = permute_users(w, order).population(metric="ndcg")
    expected = base.permute(order)
    copies = replicate(w, r).population(metric="ndcg")
    tiled = replicate(base, r)
    for name in ("effectiveness", "similarity", "utility", "list_distance"):
        assert np.allclose(getattr(moved, name), getattr(expected, name), atol=1e-12)
        assert np.allclose(getattr(copies, name), getattr(tiled, name), atol=1e-12)
    assert_untouched(w, before)
    assert np.array_equal(permute_users(base, order).effectiveness, expected.effectiveness)


def test_set_relevance_and_bad_input():
    w = World(np.eye(2, 3), np.zeros((2, 3)), [[1], [2]], np.ones((3, 1)))
    assert set_relevance(w, 1, 2, 3.0).relevance.toarray().tolist() == [[0, 0, 0], [0, 0, 3]]
    with pytest.raises(ValueError, match="in user 0's history"):
        set_relevance(w, 0, 0, 1.0)
    with pytest.raises(ValueError, match="grade must be >= 0"):
        set_relevance(w, 0, 1, -1.0)
    with pytest.raises(ValueError, match="user must be < 2"):
        more_relevant(w, 2)
    with pytest.raises(ValueError, match="permutation of range"):
        permute_users(w, [0, 0])
    with pytest.raises(ValueError, match="r must be >= 1"):
        replicate(w, 0)
    with pytest.raises(ValueError, match="r must be >= 1"):
        replicate(Population([0.0, 1.0], np.eye(2)), 0)


@settings(max_examples=40, deadline=None)
@given(w=small_worlds(), u=st.integers(0, 9), v=st.integers(0, 9), n=st.integers(1, 3))
def test_share_items_raises_the_pair_and_never_fails(w, u, v, n):
    u, v = u % w.m, v % w.m
    if u == v:
        return
    before = snapshot(w)
    changed = share_items(w, u, v, n_items=n)
    assert_untouched(w, before)
    j0, j1 = jaccard_similarity(w.histories), jaccard_similarity(changed.histories)
    assert j1[u, v] > j0[u, v] or j0[u, v] == 1.0
    held0, held1 = w.histories.toarray() > 0, changed.histories.toarray() > 0
    added = held1 & ~held0
    assert not (held0 & ~held1).any() and not np.delete(added, [u, v], axis=0).any()
    both = held0[u] & held0[v]
    assert ((held1[u] & held1[v]) & ~both).sum() == min(n, int((~both).sum()))
    assert changed.n_items == w.n_items and np.array_equal(changed.rankings, w.rankings)


@settings(max_examples=30, deadline=None)
@given(w=small_worlds(), seed=st.integers(0, 1000))
def test_disjoint_histories_own_list_relevance_and_moved_outcomes(w, seed):
    before = snapshot(w)
    apart = drop_shared_history(w)
    sim = jaccard_similarity(apart.histories)
    assert np.all(sim[~np.eye(w.m, dtype=bool)] == 0)
    assert np.array_equal(apart.histories.toarray().sum(axis=0) > 0, w.histories.toarray().sum(axis=0) > 0)
    own = relevance_from_lists(w).population(metric="precision")
    assert np.all(own.effectiveness == 1.0) and np.all(np.diag(own.utility) == 1.0)
    order = np.random.default_rng(seed).permutation(w.m)
    base, moved = w.population(metric="ndcg"), move_outcomes(w, order).population(metric="ndcg")
    assert np.allclose(moved.effectiveness, base.effectiveness[order], atol=1e-12)
    assert np.array_equal(moved.similarity, base.similarity)
    assert_untouched(w, before)


def test_new_transforms_bad_input():
    w = World(np.eye(2, 3), np.zeros((2, 3)), [[1], [2]], np.ones((3, 1)))
    with pytest.raises(ValueError, match="different users"):
        share_items(w, 1, 1)
    with pytest.raises(ValueError, match="v must be < 2"):
        share_items(w, 0, 2)
    with pytest.raises(ValueError, match="n_items must be >= 1"):
        share_items(w, 0, 1, n_items=0)
    with pytest.raises(ValueError, match="permutation of range"):
        move_outcomes(w, [1, 1])
