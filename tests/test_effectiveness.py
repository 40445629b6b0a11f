"""Tests for puf.effectiveness: hand-computed cases, reference loops, bad input."""

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from puf.effectiveness import (
    EFFECTIVENESS,
    average_precision_at_k,
    get_effectiveness,
    hit_rate_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
)

# Shared hand example: 2 users, 5 items.
#   u0 grades: item0=3, item2=1, item4=2    list [2, 1, 0, 3] -> grades 1, 0, 3, 0
#   u1 grades: none                          list [4, 3, -1, -1]
RANKINGS = np.array([[2, 1, 0, 3], [4, 3, -1, -1]])
RELEVANCE = sp.csr_matrix(np.array([[3.0, 0, 1, 0, 2], [0, 0, 0, 0, 0]]))
LOG3 = math.log2(3)


def test_precision_hand():
    # u0: 2 relevant among 4 slots -> 2/4; at k=2: 1/2; u1: none -> 0.
    np.testing.assert_allclose(precision_at_k(RANKINGS, RELEVANCE), [0.5, 0.0])
    np.testing.assert_allclose(precision_at_k(RANKINGS, RELEVANCE, k=2), [0.5, 0.0])
    np.testing.assert_allclose(precision_at_k(RANKINGS, RELEVANCE, k=1), [1.0, 0.0])


def test_recall_hand():
    # u0 has |Rel| = 3 (items 0, 2, 4): k=4 finds 2 -> 2/3; k=1 finds 1 -> 1/3. u1: 0.
    np.testing.assert_allclose(recall_at_k(RANKINGS, RELEVANCE), [2 / 3, 0.0])
    np.testing.assert_allclose(recall_at_k(RANKINGS, RELEVANCE, k=1), [1 / 3, 0.0])


def test_ndcg_hand_linear_and_exponential():
    # linear: DCG = 1/log2(2) + 0/log2(3) + 3/log2(4) + 0 = 1 + 1.5 = 2.5
    #         IDCG over sorted grades 3, 2, 1: 3/1 + 2/log2(3) + 1/2
    idcg = 3 + 2 / LOG3 + 0.5
    np.testing.assert_allclose(ndcg_at_k(RANKINGS, RELEVANCE), [2.5 / idcg, 0.0], rtol=1e-14)
    # k=2 truncates both: DCG = 1, IDCG = 3 + 2/log2(3)
    np.testing.assert_allclose(ndcg_at_k(RANKINGS, RELEVANCE, k=2), [1 / (3 + 2 / LOG3), 0.0], rtol=1e-14)
    # exponential gains 2^r - 1: 3 -> 7, 2 -> 3, 1 -> 1. DCG = 1 + 7/2 = 4.5; IDCG = 7 + 3/log2(3) + 1/2
    np.testing.assert_allclose(
        ndcg_at_k(RANKINGS, RELEVANCE, gain="exponential"), [4.5 / (7 + 3 / LOG3 + 0.5), 0.0], rtol=1e-14
    )


def test_ndcg_perfect_list_is_one():
    # List in ideal order [0, 4, 2]: DCG == IDCG -> exactly 1 for both gains.
    rankings = np.array([[0, 4, 2]])
    relevance = sp.csr_matrix(np.array([[3.0, 0, 1, 0, 2]]))
    assert ndcg_at_k(rankings, relevance)[0] == 1.0
    assert ndcg_at_k(rankings, relevance, gain="exponential")[0] == 1.0


def test_hit_rate_and_reciprocal_rank_hand():
    # u0: first relevant item at position 1 -> HR 1, RR 1/1. u1: no hit -> 0, 0.
    np.testing.assert_array_equal(hit_rate_at_k(RANKINGS, RELEVANCE), [1.0, 0.0])
    np.testing.assert_array_equal(reciprocal_rank_at_k(RANKINGS, RELEVANCE), [1.0, 0.0])
    # List [1, 3, 2]: first hit (item 2) at position 3 -> RR = 1/3; k=2 sees no hit -> 0.
    rankings = np.array([[1, 3, 2]])
    relevance = RELEVANCE[:1]
    np.testing.assert_allclose(reciprocal_rank_at_k(rankings, relevance), [1 / 3])
    np.testing.assert_array_equal(reciprocal_rank_at_k(rankings, relevance, k=2), [0.0])
    np.testing.assert_array_equal(hit_rate_at_k(rankings, relevance, k=2), [0.0])


def test_average_precision_hand():
    # u0: hits at positions 1 and 3: P@1 = 1, P@3 = 2/3; normaliser min(4, 3) = 3
    #     -> (1 + 2/3) / 3 = 5/9.  At k=2: hit at 1 only, normaliser min(2, 3) = 2 -> 1/2.
    np.testing.assert_allclose(average_precision_at_k(RANKINGS, RELEVANCE), [5 / 9, 0.0], rtol=1e-14)
    np.testing.assert_allclose(average_precision_at_k(RANKINGS, RELEVANCE, k=2), [0.5, 0.0])
    # A perfect top-2 for a user with 3 relevant items: (1 + 1) / min(2, 3) = 1.
    np.testing.assert_allclose(average_precision_at_k(np.array([[0, 4]]), RELEVANCE[:1]), [1.0])


def test_padding_in_the_middle_keeps_its_slot():
    # [-1, 0]: the hit is at position 2 -> RR 1/2, P@2 = 1/2, DCG = 3/log2(3), IDCG@2 = 3 + 2/log2(3).
    rankings = np.array([[-1, 0]])
    relevance = RELEVANCE[:1]
    assert reciprocal_rank_at_k(rankings, relevance)[0] == 0.5
    assert precision_at_k(rankings, relevance)[0] == 0.5
    assert ndcg_at_k(rankings, relevance)[0] == pytest.approx((3 / LOG3) / (3 + 2 / LOG3), rel=1e-14)


def test_dataframe_matches_sparse_and_widens_to_listed_items():
    frame = pd.DataFrame({"user": [0, 0, 0], "item": [0, 2, 4], "relevance": [3.0, 1.0, 2.0]})
    for metric in EFFECTIVENESS.values():
        np.testing.assert_array_equal(metric(RANKINGS, frame), metric(RANKINGS, RELEVANCE))
    # The frame knows items 0..4 only; item 7 in a list is simply unjudged (grade 0).
    rankings = np.array([[7, 0], [1, -1]])
    np.testing.assert_allclose(precision_at_k(rankings, frame), [0.5, 0.0])


def test_registry():
    assert set(EFFECTIVENESS) == {"precision", "recall", "ndcg", "hit_rate", "reciprocal_rank", "average_precision"}
    assert get_effectiveness("recall") is recall_at_k
    with pytest.raises(ValueError, match="known: average_precision, hit_rate, ndcg"):
        get_effectiveness("mrr")


def test_caller_inputs_not_modified():
    rankings = RANKINGS.copy()
    relevance = RELEVANCE.copy()
    for metric in EFFECTIVENESS.values():
        metric(rankings, relevance, k=3)
    np.testing.assert_array_equal(rankings, RANKINGS)
    np.testing.assert_array_equal(relevance.toarray(), RELEVANCE.toarray())


# ---- reference loops -------------------------------------------------------------------------


def _reference(rankings, grades, k, name, gain="linear"):
    to_gain = (lambda r: r) if gain == "linear" else (lambda r: 2.0**r - 1.0)
    out = []
    for u in range(len(rankings)):
        row = [int(i) for i in rankings[u][:k]]
        listed = [float(grades[u][i]) if i >= 0 else 0.0 for i in row]
        hits = [g > 0 for g in listed]
        n_rel = sum(1 for g in grades[u] if g > 0)
        if name == "precision":
            value = sum(hits) / k
        elif name == "recall":
            value = sum(hits) / n_rel if n_rel else 0.0
        elif name == "hit_rate":
            value = 1.0 if any(hits) else 0.0
        elif name == "reciprocal_rank":
            value = next((1.0 / (j + 1) for j, h in enumerate(hits) if h), 0.0)
        elif name == "average_precision":
            total = 0.0
            for j in range(len(hits)):
                if hits[j]:
                    total += sum(hits[: j + 1]) / (j + 1)
            value = total / min(k, n_rel) if n_rel else 0.0
        else:
            dcg = sum(to_gain(g) / math.log2(j + 2) for j, g in enumerate(listed))
            ideal = sorted((float(g) for g in grades[u] if g > 0), reverse=True)[:k]
            idcg = sum(to_gain(g) / math.log2(j + 2) for j, g in enumerate(ideal))
            value = dcg / idcg if idcg > 0 else 0.0
        out.append(value)
    return np.array(out)


@st.composite
def lists_and_grades(draw):
    m = draw(st.integers(1, 6))
    n = draw(st.integers(1, 8))
    width = draw(st.integers(1, n))
    grade = st.sampled_from([0.0, 0.0, 0.0, 0.5, 1.0, 2.0, 3.0])
    grades = [[draw(grade) for _ in range(n)] for _ in range(m)]
    rows = []
    for _ in range(m):
        items = draw(st.permutations(range(n)))[: draw(st.integers(0, width))]
        row = list(items) + [-1] * (width - len(items))
        rows.append(draw(st.permutations(row)) if draw(st.booleans()) else row)
    k = draw(st.none() | st.integers(1, width))
    return np.array(rows, dtype=np.int64), grades, k


@given(case=lists_and_grades(), name=st.sampled_from(sorted(EFFECTIVENESS)))
def test_matches_reference_loop(case, name):
    rankings, grades, k = case
    relevance = sp.csr_matrix(np.array(grades))
    got = EFFECTIVENESS[name](rankings, relevance, k=k)
    want = _reference(rankings, grades, k or rankings.shape[1], name)
    assert got.shape == (len(grades),) and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert ((got >= 0) & (got <= 1)).all()


@given(case=lists_and_grades())
def test_exponential_ndcg_matches_reference_loop(case):
    rankings, grades, k = case
    got = ndcg_at_k(rankings, sp.csr_matrix(np.array(grades)), k=k, gain="exponential")
    want = _reference(rankings, grades, k or rankings.shape[1], "ndcg", gain="exponential")
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@given(case=lists_and_grades())
def test_dataframe_input_matches_sparse(case):
    rankings, grades, k = case
    dense = np.array(grades)
    users, items = np.nonzero(dense)
    frame = pd.DataFrame({"user": users, "item": items, "relevance": dense[users, items]})
    for metric in EFFECTIVENESS.values():
        np.testing.assert_array_equal(metric(rankings, frame, k=k), metric(rankings, sp.csr_matrix(dense), k=k))


# ---- bad input -------------------------------------------------------------------------------

BAD = [
    ("k=0", dict(k=0), "k"),
    ("k too large", dict(k=5), "k=5"),
    ("k not an int", dict(k=2.0), "k"),
    ("k bool", dict(k=True), "k"),
    ("rankings 1-D", dict(rankings=np.array([0, 1])), "rankings"),
    ("rankings duplicate", dict(rankings=np.array([[0, 0, 1, 2], [4, 3, -1, -1]])), "rankings row 0"),
    ("rankings out of range", dict(rankings=np.array([[0, 1, 2, 5], [4, 3, -1, -1]])), "rankings item id 5"),
    ("rankings below -1", dict(rankings=np.array([[0, 1, 2, -2], [4, 3, -1, -1]])), "rankings"),
    ("rankings non-integer", dict(rankings=np.array([[0.5, 1, 2, 3], [4, 3, -1, -1]])), "rankings"),
    ("relevance negative", dict(relevance=sp.csr_matrix(np.array([[1.0, -1, 0, 0, 0], [0] * 5]))), "relevance"),
    ("relevance NaN", dict(relevance=sp.csr_matrix(np.array([[np.nan, 0, 0, 0, 0], [0] * 5]))), "relevance"),
    ("relevance inf", dict(relevance=sp.csr_matrix(np.array([[np.inf, 0, 0, 0, 0], [0] * 5]))), "relevance"),
    ("relevance user count", dict(relevance=sp.csr_matrix(np.ones((3, 5)))), "relevance has 3 users"),
    ("frame user out of range", dict(relevance=pd.DataFrame({"u": [5], "i": [0], "r": [1.0]})), "relevance"),
]


@pytest.mark.parametrize("name", sorted(EFFECTIVENESS))
@pytest.mark.parametrize("label, override, message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises(name, label, override, message):
    arguments = dict(rankings=RANKINGS, relevance=RELEVANCE, k=None) | override
    with pytest.raises(ValueError, match=message):
        EFFECTIVENESS[name](arguments["rankings"], arguments["relevance"], k=arguments["k"])


def test_bad_gain():
    with pytest.raises(ValueError, match="gain must be one of .* got 'log'"):
        ndcg_at_k(RANKINGS, RELEVANCE, gain="log")
    with pytest.raises(ValueError, match="gain"):
        ndcg_at_k(RANKINGS, RELEVANCE, gain=["linear"])
