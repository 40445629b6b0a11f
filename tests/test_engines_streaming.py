"""Streaming ME/MME/PEU and UF against the dense measures, hand arithmetic, and bad input."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import puf
from puf import UndefinedMeasureWarning
from puf.validation import ENVY_TOLERANCE, LIST_DISTANCE_TOLERANCE
from puf.engines import envy_measures, uf_streaming


def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-10 * max(1.0, abs(b))


@st.composite
def list_worlds(draw, max_users=30, max_items=20):
    """Random histories, features, lists (some padded), relevance and vectors."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = draw(st.integers(2, max_users))
    n = draw(st.integers(2, max_items))
    f = draw(st.integers(1, 5))
    width = draw(st.integers(1, min(n, 5)))
    rankings = np.array([rng.permutation(n)[:width] for _ in range(m)])
    if width > 1 and draw(st.booleans()):
        rankings[:, 1:][rng.random((m, width - 1)) < 0.3] = -1  # padding, first slot kept
    histories = sp.random(m, n, density=draw(st.sampled_from([0.0, 0.1, 0.4, 0.9])), random_state=rng, format="csr")
    relevance = sp.random(m, n, density=draw(st.sampled_from([0.0, 0.2, 0.6])), random_state=rng, format="csr")
    relevance.data = np.ceil(relevance.data * 4)  # grades 1..4
    features = (rng.random((n, f)) < 0.5).astype(float)
    features[np.arange(n), rng.integers(0, f, n)] = 1.0
    vectors = rng.normal(size=(n, 3)) if draw(st.booleans()) else None
    return rankings, relevance, histories, features, vectors


@given(list_worlds(), st.integers(1, 8), st.sampled_from([0.0, 0.05, 0.3]), st.sampled_from([1, 2]), st.booleans())
def test_envy_measures_equal_dense(world, block_size, epsilon, n_jobs, cut):
    rankings, relevance, *_ = world
    k = 1 if cut else None
    utility = puf.utility_matrix(rankings, relevance, k=k)
    got = envy_measures(rankings, relevance, k=k, epsilon=epsilon, block_size=block_size, n_jobs=n_jobs)
    assert close(got["me"], puf.mean_envy(utility))
    assert close(got["mme"], puf.mean_max_envy(utility))
    # PEU counts max envy > ε + ENVY_TOLERANCE (an envy of exactly ε is not envious).
    envy = np.maximum(utility - np.diag(utility)[:, None], 0.0)
    np.fill_diagonal(envy, 0.0)
    assert got["peu"] == np.mean(envy.max(axis=1) > epsilon + ENVY_TOLERANCE)


def test_peu_does_not_count_envy_of_exactly_epsilon():
    # User 0's five best grades are 4s: z_0 = 20; its own list gains 3 (item 0), the other
    # list 4 (item 1): envy 4/20 − 3/20,
    # exactly 0.05 but 0.05000000000000002 in floats. Not envious at ε = 0.05.
    rankings = np.array([[0, 5, 6, 7, 8], [1, 5, 6, 7, 8]])
    relevance = sp.csr_matrix(np.array([[3.0, 4, 4, 4, 4, 0, 0, 0, 0, 4], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]))
    got = envy_measures(rankings, relevance, epsilon=0.05)
    assert got["peu"] == 0.0 and got["mme"] == pytest.approx(0.05 / 2)  # user 1 envies no one


@given(list_worlds(), st.integers(1, 8), st.sampled_from([0.0, 0.3, 1.0]), st.sampled_from([1, 2]))
def test_uf_streaming_equals_dense(world, block_size, gamma, n_jobs):
    rankings, _, histories, features, vectors = world
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        expected = puf.uf(
            puf.uf_similarity(histories, features, gamma=gamma),
            puf.list_distance(rankings, features if vectors is None else vectors),
        )
        got = uf_streaming(
            histories,
            features,
            rankings,
            features if vectors is None else vectors,
            gamma=gamma,
            block_size=block_size,
            n_jobs=n_jobs,
        )
    assert close(got, expected)


def test_uf_of_a_rounding_level_sum_is_undefined_on_both_roads():
    # Every list is item 1 alone, so d_L = 1 − ē·ē is exactly 0 for every pair. The dense
    # GEMM rounds it to 1.1e-16 for this vector, the engine's row-wise dot to 0: without
    # the |U*|·LIST_DISTANCE_TOLERANCE rule the dense UF was log(1.1e-16) and the engine's NaN.
    vectors = np.random.default_rng(2).random((3, 4)) + 0.01
    rankings = np.full((6, 1), 1)
    histories = sp.csr_matrix(np.array([[1.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1], [1, 1, 0]]))
    features = np.array([[1.0, 0], [0, 1], [1, 1]])
    distance = puf.list_distance(rankings, vectors)
    assert 0.0 < distance.max() <= LIST_DISTANCE_TOLERANCE  # the case is really a rounding one
    similarity = puf.uf_similarity(histories, features, gamma=0.0)
    with pytest.warns(UndefinedMeasureWarning, match="sum over U"):
        assert math.isnan(puf.uf(similarity, distance))
    with pytest.warns(UndefinedMeasureWarning, match="sum over U"):
        assert math.isnan(uf_streaming(histories, features, rankings, vectors, gamma=0.0, block_size=1))


def test_envy_hand_computed():
    # Lists: L_0 = (0, 1), L_1 = (2, 3), L_2 = (1, 2).
    # Grades: r_0 = {0: 1, 2: 3}, r_1 = {3: 2}, r_2 = {}.
    # z_0 = 3 + 1 = 4: phi_0(L_0) = 1/4, phi_0(L_1) = 3/4, phi_0(L_2) = 3/4 -> envies 1/2, 1/2.
    # z_1 = 2: phi_1(L_1) = 1, others 0 -> no envy. User 2 has no grades -> no envy.
    # ME = (1/2 + 1/2) / (3·2) = 1/6; MME = (1/2 + 0 + 0)/3 = 1/6; PEU(0.05) = 1/3.
    rankings = np.array([[0, 1], [2, 3], [1, 2]])
    relevance = sp.csr_matrix([[1.0, 0, 3, 0], [0, 0, 0, 2], [0, 0, 0, 0]])
    got = envy_measures(rankings, relevance)
    assert got == pytest.approx({"me": 1 / 6, "mme": 1 / 6, "peu": 1 / 3}, abs=1e-15)


def test_uf_hand_computed():
    # J: (0,1) = 1, (0,2) = (1,2) = 0; mean 1/3, SD √2/3, t ≈ 0.805: U* = {(0, 1)}.
    # Unit item vectors e_0, e_1, e_2; ē_0 = (e_0 + e_2)/2, ē_1 = (e_1 + e_2)/2, ē_0·ē_1 = 1/4.
    # UF = ln(1 · (1 − 1/4)) = ln 0.75; in base 2: log2 0.75.
    histories = sp.csr_matrix([[1.0, 1, 0], [1, 1, 0], [0, 0, 1]])
    rankings = np.array([[0, 2], [1, 2], [0, 1]])
    assert math.isclose(uf_streaming(histories, np.eye(3), rankings, np.eye(3)), math.log(0.75), rel_tol=1e-14)
    assert math.isclose(uf_streaming(histories, np.eye(3), rankings, np.eye(3), base=2), math.log2(0.75), rel_tol=1e-14)


def test_uf_all_equal_similarities_keep_every_pair():
    # Identical histories: every J = 1, SD = 0, so every pair is in U* (the 1e-12 tolerance).
    # Lists (0), (1), (0): d_L = 1, 0, 1 over pairs (0,1), (0,2), (1,2) -> ln 2.
    histories = sp.csr_matrix(np.ones((3, 2)))
    rankings = np.array([[0], [1], [0]])
    assert math.isclose(uf_streaming(histories, np.eye(2), rankings, np.eye(2)), math.log(2.0), rel_tol=1e-14)


def test_uf_undefined_when_the_sum_is_zero():
    histories = sp.csr_matrix(np.ones((3, 2)))
    rankings = np.array([[0], [0], [0]])  # identical lists: d_L = 0 everywhere
    with pytest.warns(UndefinedMeasureWarning):
        assert math.isnan(uf_streaming(histories, np.eye(2), rankings, np.eye(2)))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: envy_measures([[0], [1]], sp.csr_matrix([[1.0, -1], [0, 1]])), "non-negative"),
        (lambda: envy_measures([[0], [1]], sp.csr_matrix([[1.0, 0], [0, 1]]), block_size=0), "block_size"),
        (lambda: envy_measures([[0], [1]], sp.csr_matrix([[1.0, 0], [0, 1]]), epsilon=-1), "epsilon"),
        (lambda: envy_measures([[0]], sp.csr_matrix([[1.0]])), "at least 2"),
        (lambda: envy_measures([[0], [1]], sp.csr_matrix(np.ones((3, 2)))), "3 users"),
        (lambda: uf_streaming(sp.csr_matrix(np.ones((3, 2))), np.eye(2), [[0], [1]], np.eye(2)), "user counts"),
        (lambda: uf_streaming(sp.csr_matrix([[np.nan, 1], [1, 1]]), np.eye(2), [[0], [1]], np.eye(2)), "finite"),
        (lambda: uf_streaming(sp.csr_matrix(np.ones((2, 2))), np.eye(2), [[0], [1]], np.eye(2), gamma=2), "gamma"),
        (
            lambda: uf_streaming(sp.csr_matrix(np.ones((2, 2))), np.eye(2), [[0], [1]], np.eye(2), block_size=-1),
            "block_size",
        ),
        (lambda: uf_streaming(sp.csr_matrix(np.ones((2, 2))), np.eye(2), [[0], [-1]], np.eye(2)), "no item"),
        (
            lambda: uf_streaming(sp.csr_matrix(np.ones((2, 2))), np.eye(2), [[0], [1]], np.eye(3)),
            "item_vectors has 3 rows",
        ),
    ],
)
def test_streaming_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@given(list_worlds(), st.sampled_from([0.0, 0.3, 1.0]), st.integers(1, 8))
def test_envy_of_users_given_every_listed_item_equals_dense(world, share, block_size):
    # As the report's artificial relevance: a share of users has exactly its listed items
    # relevant (own utility 1, no envy, a closed form); the others keep their relevance.
    rankings, relevance, *_ = world
    rng = np.random.default_rng(len(rankings))
    lists = puf.ranking.list_indicator(rankings, relevance.shape[1]).toarray()
    full = rng.random(len(rankings)) < share
    grades = relevance.toarray()
    grades[full] = lists[full]
    relevance = sp.csr_matrix(grades)
    utility = puf.utility_matrix(rankings, relevance)
    got = envy_measures(rankings, relevance, block_size=block_size)
    assert close(got["me"], puf.mean_envy(utility))
    assert close(got["mme"], puf.mean_max_envy(utility))
    assert got["peu"] == puf.proportion_envious_users(utility)
