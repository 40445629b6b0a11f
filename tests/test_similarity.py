"""Tests for puf.similarity: hand-computed cases, reference loops, bad input."""

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import puf.similarity as similarity_module
from puf.similarity import (
    SIMILARITIES,
    cosine_similarity,
    get_similarity,
    jaccard_similarity,
    js_similarity,
    uf_similarity,
)

# 4 users, 4 items; u3 has an empty history.
HISTORIES = sp.csr_matrix(np.array([[1.0, 1, 0, 0], [0, 2, 1, 0], [1, 1, 1, 1], [0, 0, 0, 0]]))
# Item features: items 0, 1 pure genres, item 2 both genres equally, item 3 = [3, 1].
FEATURES = np.array([[1.0, 0], [0, 1], [1, 1], [3, 1]])


def _h2(p):
    """Entropy in bits of a probability vector (0 log 0 = 0)."""
    return -sum(x * math.log2(x) for x in p if x > 0)


def test_jaccard_hand():
    # H0 = {0,1}, H1 = {1,2}, H2 = {0,1,2,3}, H3 = {}  (weights binarised)
    # J01 = |{1}| / |{0,1,2}| = 1/3; J02 = 2/4; J12 = 2/4; J with u3 = 0 (union non-empty or both empty)
    want = np.array([[1, 1 / 3, 0.5, 0], [1 / 3, 1, 0.5, 0], [0.5, 0.5, 1, 0], [0, 0, 0, 0]])
    np.testing.assert_allclose(jaccard_similarity(HISTORIES), want, rtol=0, atol=1e-15)


def test_cosine_hand_keeps_weights():
    # h0 = (1,1,0,0), h1 = (0,2,1,0), h2 = (1,1,1,1): |h0| = √2, |h1| = √5, |h2| = 2
    # cos01 = 2/(√2 √5) = 2/√10; cos02 = 2/(2√2) = 1/√2; cos12 = 3/(2√5); zero vector h3 -> 0
    c01, c02, c12 = 2 / math.sqrt(10), 1 / math.sqrt(2), 3 / (2 * math.sqrt(5))
    want = np.array([[1, c01, c02, 0], [c01, 1, c12, 0], [c02, c12, 1, 0], [0, 0, 0, 0]])
    np.testing.assert_allclose(cosine_similarity(HISTORIES), want, rtol=0, atol=1e-15)


def test_js_hand():
    # Normalised feature rows: x0 = (1,0), x1 = (0,1), x2 = (1/2,1/2), x3 = (3/4,1/4).
    # P0 = mean(x0, x1) = (1/2, 1/2); P1 = mean(x1, x2) = (1/4, 3/4);
    # P2 = mean(x0..x3) = ((1 + 0 + 1/2 + 3/4)/4, ...) = (9/16, 7/16); u3 has no distribution.
    p = [(0.5, 0.5), (0.25, 0.75), (9 / 16, 7 / 16)]

    def sim(a, b):  # 1 − [H((a+b)/2) − (H(a) + H(b))/2]
        mix = [(x + y) / 2 for x, y in zip(a, b)]
        return 1 - (_h2(mix) - (_h2(a) + _h2(b)) / 2)

    # e.g. sim01: M = (3/8, 5/8), H(M) = 0.954434, H(P0) = 1, H(P1) = 0.811278 -> JS = 0.048795
    assert sim(p[0], p[1]) == pytest.approx(1 - (0.954434 - (1 + 0.811278) / 2), abs=1e-6)
    got = js_similarity(HISTORIES, FEATURES)
    for u in range(3):
        for v in range(3):
            want = 1.0 if u == v else sim(p[u], p[v])
            assert got[u, v] == pytest.approx(want, abs=1e-14)
    # Empty history: similarity 0 to everyone, itself included.
    np.testing.assert_array_equal(got[3], 0.0)
    np.testing.assert_array_equal(got[:, 3], 0.0)


def test_js_extremes():
    # Disjoint pure genres: P = (1,0) vs (0,1): M = (1/2,1/2), H(M) = 1, H(P) = 0 -> JS = 1 -> sim 0.
    # Equal distributions from different items: {2} gives (1/2,1/2), {0,1} gives the same -> sim 1.
    histories = sp.csr_matrix(np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 1, 0, 0]]))
    got = js_similarity(histories, FEATURES)
    assert got[0, 1] == 0.0
    assert got[2, 3] == 1.0


def test_uf_hand_blend():
    # gamma = 0.25: 0.25 * J + 0.75 * sim_JS, pair (0, 1): J = 1/3.
    jac, js = jaccard_similarity(HISTORIES), js_similarity(HISTORIES, FEATURES)
    got = uf_similarity(HISTORIES, FEATURES, gamma=0.25)
    assert got[0, 1] == pytest.approx(0.25 / 3 + 0.75 * js[0, 1], abs=1e-15)
    np.testing.assert_array_equal(uf_similarity(HISTORIES, FEATURES, gamma=1), jac)
    np.testing.assert_array_equal(uf_similarity(HISTORIES, FEATURES, gamma=0.0), js)
    np.testing.assert_array_equal(got[3], 0.0)


def test_dataframe_histories():
    frame = pd.DataFrame(
        {"user": [0, 0, 1, 1, 2, 2, 2, 2], "item": [0, 1, 1, 2, 0, 1, 2, 3], "weight": [1.0, 1, 2, 1, 1, 1, 1, 1]}
    )
    # The frame cannot say that a 4th user exists, so compare the first 3 users.
    np.testing.assert_array_equal(cosine_similarity(frame), cosine_similarity(HISTORIES[:3]))
    np.testing.assert_array_equal(js_similarity(frame, FEATURES), js_similarity(HISTORIES[:3], FEATURES))


def test_registry():
    assert set(SIMILARITIES) == {"jaccard", "cosine", "js", "uf"}
    assert get_similarity("js") is js_similarity
    with pytest.raises(ValueError, match="known: cosine, jaccard, js, uf"):
        get_similarity("pearson")


# ---- reference loops -------------------------------------------------------------------------


def _reference(name, weights, features, gamma=0.5):
    m = len(weights)
    sets = [{i for i, w in enumerate(row) if w > 0} for row in weights]
    dists = []
    for items in sets:
        if not items:
            dists.append(None)
            continue
        rows = [[x / sum(features[i]) for x in features[i]] for i in items]
        dists.append([sum(col) / len(items) for col in zip(*rows)])
    out = np.zeros((m, m))
    for u in range(m):
        for v in range(m):
            if name in ("jaccard", "uf"):
                union = sets[u] | sets[v]
                jac = len(sets[u] & sets[v]) / len(union) if union else 0.0
            if name in ("js", "uf"):
                a, b = dists[u], dists[v]
                if a is None or b is None:
                    js = 0.0
                else:
                    js = 1 - (_h2([(x + y) / 2 for x, y in zip(a, b)]) - (_h2(a) + _h2(b)) / 2)
            if name == "cosine":
                dot = sum(x * y for x, y in zip(weights[u], weights[v]))
                norm = math.sqrt(sum(x * x for x in weights[u])) * math.sqrt(sum(y * y for y in weights[v]))
                value = dot / norm if norm > 0 else 0.0
            else:
                value = {"jaccard": lambda: jac, "js": lambda: js, "uf": lambda: gamma * jac + (1 - gamma) * js}[name]()  # noqa: B023 (called at once)
            out[u, v] = value
    return out


@st.composite
def worlds(draw):
    m = draw(st.integers(1, 7))
    n = draw(st.integers(1, 6))
    f = draw(st.integers(1, 4))
    weight = st.sampled_from([0.0, 0.0, 0.0, 1.0, 1.0, 0.5, 3.0])
    weights = [[draw(weight) for _ in range(n)] for _ in range(m)]
    feature = st.sampled_from([0.0, 0.0, 1.0, 0.25, 2.0])
    features = []
    for _ in range(n):
        row = [draw(feature) for _ in range(f)]
        if sum(row) == 0:
            row[draw(st.integers(0, f - 1))] = 1.0
        features.append(row)
    return weights, features


@given(
    case=worlds(),
    name=st.sampled_from(sorted(SIMILARITIES)),
    gamma=st.sampled_from([0.0, 0.3, 1.0]),
    block=st.sampled_from([1, 7, 10**9]),
)
def test_matches_reference_loop(case, name, gamma, block):
    weights, features = case
    histories = sp.csr_matrix(np.array(weights))
    args = (histories,) if name in ("jaccard", "cosine") else (histories, np.array(features))
    kwargs = {"gamma": gamma} if name == "uf" else {}
    with pytest.MonkeyPatch.context() as patch:
        # A small element budget forces js into many row blocks (rows per block = budget // (m * f)).
        patch.setattr(similarity_module, "_BLOCK_ELEMENTS", block)
        got = SIMILARITIES[name](*args, **kwargs)
    want = _reference(name, weights, features, gamma)
    nonempty = np.array([any(w > 0 for w in row) for row in weights])
    np.fill_diagonal(want, nonempty.astype(float))
    assert got.shape == (len(weights),) * 2 and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(got, got.T)
    assert ((got >= 0) & (got <= 1)).all()


def test_uf_requires_gamma_keyword():
    with pytest.raises(TypeError, match="gamma"):
        uf_similarity(HISTORIES, FEATURES)


# ---- bad input -------------------------------------------------------------------------------

NEG = sp.csr_matrix(np.array([[1.0, -1, 0, 0]]))
NAN = sp.csr_matrix(np.array([[np.nan, 1, 0, 0]]))
ZERO_ROW = np.array([[1.0, 0], [0, 0], [1, 1], [3, 1]])
BAD = [
    ("gamma below 0", "uf", (HISTORIES, FEATURES), {"gamma": -0.1}, "gamma must lie in \\[0, 1\\], got -0.1"),
    ("gamma above 1", "uf", (HISTORIES, FEATURES), {"gamma": 1.5}, "gamma.*1.5"),
    ("gamma NaN", "uf", (HISTORIES, FEATURES), {"gamma": float("nan")}, "gamma"),
    ("gamma string", "uf", (HISTORIES, FEATURES), {"gamma": "0.5"}, "gamma"),
    ("features zero row js", "js", (HISTORIES, ZERO_ROW), {}, "item_features row 1 sums to zero"),
    ("features zero row uf", "uf", (HISTORIES, ZERO_ROW), {"gamma": 0.5}, "item_features row 1"),
    ("features negative", "js", (HISTORIES, -FEATURES), {}, "item_features must be non-negative"),
    ("features NaN", "js", (HISTORIES, FEATURES * np.nan), {}, "item_features must be finite"),
    ("features wrong rows", "js", (HISTORIES, FEATURES[:3]), {}, "item_features has 3 rows"),
    ("features 1-D", "js", (HISTORIES, FEATURES[:, 0]), {}, "item_features must be a 2-D"),
    ("histories negative jaccard", "jaccard", (NEG,), {}, "histories must be non-negative"),
    ("histories negative cosine", "cosine", (NEG,), {}, "histories must be non-negative"),
    ("histories NaN", "js", (NAN, FEATURES), {}, "histories must be finite"),
    ("histories 1-D", "jaccard", (np.ones(3),), {}, "histories must be a 2-D"),
]


@pytest.mark.parametrize("label, name, args, kwargs, message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises(label, name, args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        SIMILARITIES[name](*args, **kwargs)
