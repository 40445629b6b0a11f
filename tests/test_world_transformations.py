"""puf.World's own transformations: permute, replicate, set_relevance (the data model's primitives)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puf import Population, World
from puf.synthetic import world


@st.composite
def small_worlds(draw):
    k = draw(st.integers(1, 3))
    return world(
        draw(st.integers(2, 8)),
        draw(st.integers(k + 2, 30)),
        k=k,
        zero_relevance=draw(st.floats(0, 1)),
        random_state=draw(st.integers(0, 2**32 - 1)),
    )


def arrays(w):
    return [w.histories.toarray(), w.relevance.toarray(), w.rankings.copy()]


@settings(max_examples=25, deadline=None)
@given(w=small_worlds(), seed=st.integers(0, 1000), r=st.integers(1, 3))
def test_permute_and_replicate_commute_with_deriving_the_population(w, seed, r):
    before = arrays(w)
    order = np.random.default_rng(seed).permutation(w.m)
    base = w.population(metric="ndcg", similarity="jaccard")
    moved = w.permute(order).population(metric="ndcg", similarity="jaccard")
    copies = w.replicate(r).population(metric="ndcg", similarity="jaccard")
    for name, value in base.fields().items():
        np.testing.assert_allclose(getattr(moved, name), getattr(base.permute(order), name), atol=1e-12)
        tiled = np.tile(value, r) if value.ndim == 1 else np.tile(value, (r, r))
        if name == "similarity":  # a user and its copy hold the same history: Jaccard 1
            tiled[np.arange(r * w.m)[:, None] % w.m == np.arange(r * w.m)[None, :] % w.m] = 1.0
        np.testing.assert_allclose(getattr(copies, name), tiled, atol=1e-12)
    assert all(np.array_equal(a, b) for a, b in zip(before, arrays(w)))
    assert w.replicate(r).n_items == w.n_items


def test_set_relevance_changes_one_grade_and_guards_the_history():
    w = World(np.eye(2, 3), np.zeros((2, 3)), [[1], [2]], np.ones((3, 1)))
    changed = w.set_relevance(1, 2, 3.0)
    assert changed.relevance.toarray().tolist() == [[0, 0, 0], [0, 0, 3]]
    assert w.relevance.nnz == 0  # the input is untouched
    with pytest.raises(ValueError, match="item 0 is in user 0's history"):
        w.set_relevance(0, 0, 1.0)
    inside = w.set_relevance(0, 0, 2.0, allow_history=True)
    assert inside.relevance.toarray()[0].tolist() == [2.0, 0.0, 0.0]
    assert inside.set_relevance(0, 0, 0.0, allow_history=True).relevance.nnz == 0
    for args, message in [
        ((2, 0, 1.0), "user must be < 2"),
        ((0, 3, 1.0), "item must be < 3"),
        ((-1, 0, 1.0), "user must be >= 0"),
        ((0.5, 0, 1.0), "user must be an integer"),
        ((0, 1, -1.0), "grade must be >= 0"),
        ((0, 1, np.nan), "grade must be a finite"),
    ]:
        with pytest.raises(ValueError, match=message):
            w.set_relevance(*args)


def test_bad_orders_and_counts_are_refused():
    w = World(np.eye(2), np.eye(2), [[0], [1]], np.eye(2))
    with pytest.raises(ValueError, match="permutation of range"):
        w.permute([0, 0])
    with pytest.raises(ValueError, match="permutation of range"):
        w.permute([0, 1, 2])
    with pytest.raises(ValueError, match="r must be >= 1"):
        w.replicate(0)
    with pytest.raises(ValueError, match="r must be a positive integer"):
        w.replicate(1.5)
    assert isinstance(w.permute([1, 0]).population(metric="precision"), Population)


def test_replacing_item_features_moves_the_item_vectors_derived_from_them():
    import numpy as np

    from puf import World

    world = World(np.eye(3), np.eye(3), [[0], [1], [2]], np.eye(3))
    features = np.array([[1.0, 0], [1, 0], [0, 1]])
    new = world.replace(item_features=features)
    assert new.item_vectors.tolist() == features.tolist()  # derived: follows its source
    assert new.population(metric="precision", similarity="jaccard").list_distance[0, 1] == 0.0
    given = World(np.eye(3), np.eye(3), [[0], [1], [2]], np.eye(3), item_vectors=np.ones((3, 2)))
    assert given.replace(item_features=features).item_vectors.tolist() == np.ones((3, 2)).tolist()  # explicit: kept
    assert (
        new.replace(item_vectors=np.eye(3)).replace(item_features=np.eye(3)).item_vectors.tolist() == np.eye(3).tolist()
    )
