"""Population and World: validation, immutability, derivation."""

import numpy as np
import pytest
import scipy.sparse as sp

import puf
from puf import Population, World


def test_population_is_read_only_float64_copy():
    s = np.array([0, 1], dtype=np.int64)
    pop = Population(s, [[1, 0], [0, 1]])
    assert pop.effectiveness.dtype == np.float64
    with pytest.raises(ValueError):
        pop.effectiveness[0] = 0.5
    s[0] = 1
    assert pop.effectiveness[0] == 0.0
    with pytest.raises(AttributeError):
        pop.effectiveness = np.zeros(2)


def test_permute_moves_every_field_consistently():
    pop = Population(
        [0.1, 0.2, 0.3],
        [[1, 0.1, 0.2], [0.1, 1, 0.3], [0.2, 0.3, 1]],
        utility=np.arange(9).reshape(3, 3) / 10,
        list_distance=[[0, 1, 2], [1, 0, 3], [2, 3, 0]],
    )
    moved = pop.permute([2, 0, 1])
    assert moved.similarity[1, 2] == pop.similarity[0, 1]
    assert moved.utility[0, 1] == pop.utility[2, 0]
    assert moved.list_distance[0, 2] == pop.list_distance[2, 1]
    # nan_ok: inconsistency is undefined (NaN) below six users, on both sides alike
    assert puf.evaluate_measures(moved) == pytest.approx(puf.evaluate_measures(pop), nan_ok=True)
    with pytest.raises(ValueError, match="permutation"):
        pop.permute([0, 0, 1])


def test_population_equality():
    a = Population([0.0, 1.0], [[1, 0.5], [0.5, 1]])
    assert a == Population([0.0, 1.0], [[1, 0.5], [0.5, 1]])
    assert a != Population([0.0, 1.0], [[1, 0.4], [0.4, 1]])


def small_world():
    # user 0: history {0, 1}, relevant {2: 2, 3: 1}, list [2, 3]
    # user 1: history {1, 2}, relevant {0: 1, 3: 3}, list [0, 4]
    return World(
        histories=sp.csr_matrix(np.array([[1, 1, 0, 0, 0], [0, 1, 1, 0, 0]])),
        relevance=np.array([[0, 0, 2, 1, 0], [1, 0, 0, 3, 0]]),
        rankings=[[2, 3], [0, 4]],
        item_features=np.array([[1, 0], [1, 1], [0, 1], [1, 0], [0, 1]]),
    )


def test_world_population_derives_every_field():
    pop = small_world().population(metric="precision", similarity="jaccard")
    assert pop.effectiveness.tolist() == [1.0, 0.5]
    assert pop.similarity[0, 1] == pytest.approx(1 / 3)  # {1} / {0, 1, 2}
    # phi_0(L_1) = r_0(0) + r_0(4) = 0 over ideal 2 + 1 = 3; phi_1(L_0) = (0 + 3) / (3 + 1)
    np.testing.assert_allclose(pop.utility, [[1.0, 0.0], [0.75, 0.25]], atol=1e-12)
    assert pop.list_distance.shape == (2, 2)
    assert pop.list_distance[0, 1] == pop.list_distance[1, 0] >= 0


def test_world_population_with_uf_similarity_and_k():
    world = small_world()
    pop = world.population(metric="ndcg", k=1, similarity="uf", gamma=1.0)
    assert pop.similarity[0, 1] == pytest.approx(1 / 3)  # gamma = 1 is Jaccard
    assert pop.effectiveness.tolist() == [1.0, 1 / 3]  # user 1: gain 1 at rank 1 over ideal 3
    with pytest.raises(ValueError, match="k must be <= the list length 2, got 3"):
        world.population(k=3)


def test_world_rejects_inconsistent_fields():
    good = small_world()
    with pytest.raises(ValueError, match="rankings has 1 users"):
        good.replace(rankings=[[2, 3]])
    with pytest.raises(ValueError, match="out of range"):
        good.replace(rankings=[[2, 3], [0, 5]])
    with pytest.raises(ValueError, match="item_features row 1 sums to zero"):
        good.replace(item_features=np.array([[1, 0], [0, 0], [0, 1], [1, 0], [0, 1]]))


def test_the_field_names_are_the_dataclass_fields():
    import dataclasses

    from puf import population

    assert population.FIELDS == tuple(f.name for f in dataclasses.fields(Population))


def test_replace_checks_what_it_is_given_and_shares_the_rest():
    pop = Population([0.0, 1.0, 0.5], np.eye(3), utility=np.eye(3))
    moved = pop.replace(effectiveness=[1.0, 0.0, 0.5])
    assert moved.similarity is pop.similarity and moved.utility is pop.utility
    assert not moved.effectiveness.flags.writeable
    with pytest.raises(ValueError, match="effectiveness must lie in"):
        pop.replace(effectiveness=[0.0, 2.0, 0.5])
    with pytest.raises(ValueError, match="similarity"):
        pop.replace(similarity=np.eye(2))
    with pytest.raises(ValueError, match="similarity"):  # a new m: the old similarity no longer fits
        pop.replace(effectiveness=[0.0, 1.0])
    with pytest.raises(TypeError, match="nope"):
        pop.replace(nope=1)
    assert pop.replace(utility=None).utility is None
    assert pop.replace(list_distance=np.zeros((3, 3))).list_distance.shape == (3, 3)
