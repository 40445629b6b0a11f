"""Tests for puf.lists: envy utilities and list distances."""

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from puf.effectiveness import recall_at_k
from puf.lists import list_distance, utility_matrix

# 3 users, 5 items.
#   u0 grades: item0=3, item1=2, item2=1      L0 = [0, 3, 4]
#   u1 grades: item3=1                        L1 = [1, 2, -1]
#   u2 grades: none                           L2 = [3, 4, 0]
RANKINGS = np.array([[0, 3, 4], [1, 2, -1], [3, 4, 0]])
RELEVANCE = sp.csr_matrix(np.array([[3.0, 2, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 0]]))


def test_utility_hand():
    # z_0 = 3 + 2 + 1 = 6 (top-3 of u0); phi_0(L0) = 3/6, phi_0(L1) = (2 + 1)/6, phi_0(L2) = 3/6
    # z_1 = 1; phi_1(L0) = 1 (item 3), phi_1(L1) = 0, phi_1(L2) = 1
    # u2 has no relevant item -> row of zeros
    want = np.array([[0.5, 0.5, 0.5], [1, 0, 1], [0, 0, 0]])
    np.testing.assert_allclose(utility_matrix(RANKINGS, RELEVANCE), want, rtol=0, atol=1e-15)


def test_utility_hand_k_truncates_lists_and_ideal():
    # k = 1: z_0 = 3 (u0's single best), L0[:1] = [0] -> 1, L1[:1] = [1] -> 2/3, L2[:1] = [3] -> 0
    #        z_1 = 1, L2[:1] = [3] -> 1
    want = np.array([[1, 2 / 3, 0], [0, 0, 1], [0, 0, 0]])
    np.testing.assert_allclose(utility_matrix(RANKINGS, RELEVANCE, k=1), want, rtol=0, atol=1e-15)


def test_utility_dataframe_matches_sparse():
    frame = pd.DataFrame({"user": [0, 0, 0, 1], "item": [0, 1, 2, 3], "relevance": [3.0, 2, 1, 1]})
    np.testing.assert_array_equal(utility_matrix(RANKINGS, frame), utility_matrix(RANKINGS, RELEVANCE))


def test_utility_diagonal_is_recall_for_binary_relevance_within_k():
    # With binary relevance and |Rel_u| <= k, phi_u(L_u) = hits / |Rel_u| = recall@k.
    rankings = np.array([[0, 1, 2], [3, 0, 4]])
    relevance = sp.csr_matrix(np.array([[1.0, 0, 1, 0, 0], [1, 1, 0, 0, 0]]))
    np.testing.assert_allclose(np.diag(utility_matrix(rankings, relevance)), recall_at_k(rankings, relevance))


def test_list_distance_hand():
    # Unit vectors: e0 = (1,0), e1 = (0,1), e2 = (1,1)/√2, e3 = (-1,0).
    # L0 = [0, 1]: ē0 = (1/2, 1/2); L1 = [2]: ē1 = (1/√2, 1/√2); L2 = [3, -1]: ē2 = (-1, 0)
    # d(0,1) = 1 − 1/√2; d(0,2) = 1 − (−1/2) = 3/2; d(1,2) = 1 + 1/√2; d(0,0) = 1 − 1/2
    vectors = np.array([[1.0, 0], [0, 1], [2, 2], [-1, 0]])
    got = list_distance(np.array([[0, 1], [2, -1], [3, -1]]), vectors)
    r = 1 / math.sqrt(2)
    want = np.array([[0.5, 1 - r, 1.5], [1 - r, 0, 1 + r], [1.5, 1 + r, 0]])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
    # Explicit double sum for d(0, 2): (1/(2·1)) [(1 − cos(e0, e3)) + (1 − cos(e1, e3))] = (2 + 1)/2
    assert got[0, 2] == pytest.approx((2 + 1) / 2, abs=1e-15)


def test_list_distance_k_truncates():
    # k = 1: L0 = [0], L1 = [2]: d = 1 − cos(e0, e2) = 1 − 1/√2
    vectors = np.array([[1.0, 0], [0, 1], [1, 1]])
    got = list_distance(np.array([[0, 1], [2, 1]]), vectors, k=1)
    assert got[0, 1] == pytest.approx(1 - 1 / math.sqrt(2), abs=1e-15)


# ---- reference loops -------------------------------------------------------------------------


@st.composite
def lists_and_grades(draw, min_length=0):
    m = draw(st.integers(1, 6))
    n = draw(st.integers(1, 8))
    width = draw(st.integers(max(1, min_length), n))
    grade = st.sampled_from([0.0, 0.0, 0.0, 0.5, 1.0, 2.0, 3.0])
    grades = [[draw(grade) for _ in range(n)] for _ in range(m)]
    rows = []
    for _ in range(m):
        items = draw(st.permutations(range(n)))[: draw(st.integers(min_length, width))]
        row = list(items) + [-1] * (width - len(items))
        rows.append(draw(st.permutations(row)) if draw(st.booleans()) else row)
    k = draw(st.none() | st.integers(1, width))
    return np.array(rows, dtype=np.int64), grades, k


@given(case=lists_and_grades())
def test_utility_matches_reference_loop(case):
    rankings, grades, k = case
    k_eff = k or rankings.shape[1]
    m = len(grades)
    want = np.zeros((m, m))
    for u in range(m):
        best = sum(sorted(grades[u], reverse=True)[:k_eff])
        for v in range(m):
            gained = sum(grades[u][int(i)] for i in rankings[v][:k_eff] if i >= 0)
            want[u, v] = gained / best if best > 0 else 0.0
    got = utility_matrix(rankings, sp.csr_matrix(np.array(grades)), k=k)
    assert got.shape == (m, m) and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert ((got >= 0) & (got <= 1)).all()


vector_entry = st.sampled_from([-2.0, -1.0, -0.5, 0.0, 0.0, 0.3, 1.0, 2.5])


@given(case=lists_and_grades(min_length=1), d=st.integers(1, 4), data=st.data())
def test_list_distance_identity_matches_double_sum(case, d, data):
    rankings, grades, k = case
    n = len(grades[0])
    vectors = []
    for _ in range(n):
        row = [data.draw(vector_entry) for _ in range(d)]
        if all(x == 0 for x in row):
            row[0] = 1.0
        vectors.append(row)
    # truncating at k may empty a padded list; keep only rows that stay non-empty
    k_eff = k or rankings.shape[1]
    rankings = rankings[(rankings[:, :k_eff] >= 0).any(axis=1)]
    if len(rankings) == 0:
        return

    def cos(a, b):
        return sum(x * y for x, y in zip(a, b)) / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))

    m = len(rankings)
    want = np.zeros((m, m))
    for u in range(m):
        for v in range(m):
            lu = [int(i) for i in rankings[u][:k_eff] if i >= 0]
            lv = [int(j) for j in rankings[v][:k_eff] if j >= 0]
            total = sum(1 - cos(vectors[i], vectors[j]) for i in lu for j in lv)
            want[u, v] = total / (len(lu) * len(lv))
    got = list_distance(rankings, np.array(vectors), k=k)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(got, got.T)
    assert ((got >= 0) & (got <= 2)).all()


# ---- bad input -------------------------------------------------------------------------------

VECTORS = np.array([[1.0, 0], [0, 1], [1, 1], [2, 0], [0, 3]])
BAD_UTILITY = [
    ("k=0", dict(k=0), "k must be >= 1"),
    ("k too large", dict(k=4), "k=4"),
    ("rankings duplicate", dict(rankings=np.array([[0, 0, 4], [1, 2, -1], [3, 4, 0]])), "rankings row 0"),
    ("rankings out of range", dict(rankings=np.array([[0, 3, 9], [1, 2, -1], [3, 4, 0]])), "rankings item id 9"),
    ("relevance negative", dict(relevance=-RELEVANCE), "relevance must be non-negative"),
    ("relevance users", dict(relevance=RELEVANCE[:2]), "relevance has 2 users"),
]
BAD_DISTANCE = [
    ("k=0", dict(k=0), "k must be >= 1"),
    ("k too large", dict(k=4), "k=4"),
    ("empty list", dict(rankings=np.array([[0, 1, 2], [-1, -1, -1], [3, 4, 0]])), "rankings row 1 holds no item"),
    ("empty after k", dict(rankings=np.array([[0, 1, 2], [-1, 1, -1], [3, 4, 0]]), k=1), "rankings row 1"),
    ("rankings out of range", dict(rankings=np.array([[0, 1, 5], [1, 2, -1], [3, 4, 0]])), "rankings item id 5"),
    ("vectors zero row", dict(item_vectors=np.array([[1.0, 0], [0, 0], [1, 1], [2, 0], [0, 3]])), "item_vectors row 1"),
    ("vectors NaN", dict(item_vectors=VECTORS * np.nan), "item_vectors must be finite"),
    ("vectors 1-D", dict(item_vectors=VECTORS[:, 0]), "item_vectors must be a 2-D"),
]


@pytest.mark.parametrize("label, override, message", BAD_UTILITY, ids=[b[0] for b in BAD_UTILITY])
def test_utility_bad_input(label, override, message):
    arguments = dict(rankings=RANKINGS, relevance=RELEVANCE, k=None) | override
    with pytest.raises(ValueError, match=message):
        utility_matrix(arguments["rankings"], arguments["relevance"], k=arguments["k"])


@pytest.mark.parametrize("label, override, message", BAD_DISTANCE, ids=[b[0] for b in BAD_DISTANCE])
def test_list_distance_bad_input(label, override, message):
    arguments = dict(rankings=np.array([[0, 1, 2], [1, 2, -1], [3, 4, 0]]), item_vectors=VECTORS, k=None) | override
    with pytest.raises(ValueError, match=message):
        list_distance(arguments["rankings"], arguments["item_vectors"], k=arguments["k"])
