"""The fairness measures against hand arithmetic, plain loops and the paper's identities."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import puf
from puf import paper_score_measures as measures_module
from puf import UndefinedMeasureWarning
from puf.validation import ENVY_TOLERANCE

unit_floats = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def score_populations(draw, min_users=2, max_users=9):
    """(effectiveness, symmetric similarity, utility) of a small random population."""
    m = draw(st.integers(min_users, max_users))
    effectiveness = draw(arrays(np.float64, m, elements=unit_floats))
    upper = draw(arrays(np.float64, (m, m), elements=unit_floats))
    similarity = np.triu(upper, 1) + np.triu(upper, 1).T + np.eye(m)
    utility = draw(arrays(np.float64, (m, m), elements=unit_floats))
    return effectiveness, similarity, utility


# --- plain reference loops, written straight from docs/design.md ---------------------------


def reference_puf(s, sim):
    m = len(s)
    total = sum(sim[u][v] * abs(s[u] - s[v]) for u in range(m) for v in range(u + 1, m))
    return 2 * total / (m * (m - 1))


def reference_envy(util, u, v):
    return max(util[u][v] - util[u][u], 0.0)


def reference_me(util):
    m = len(util)
    return sum(reference_envy(util, u, v) for u in range(m) for v in range(m) if u != v) / (m * (m - 1))


def reference_max_envy(util):
    m = len(util)
    return [max(reference_envy(util, u, v) for v in range(m) if v != u) for u in range(m)]


def reference_gini(x):
    x = sorted(x)
    m = len(x)
    return sum((2 * j - m - 1) * x[j - 1] for j in range(1, m + 1)) / (m * sum(x))


def reference_sd(x):
    mean = sum(x) / len(x)
    return math.sqrt(sum((v - mean) ** 2 for v in x) / len(x))


@given(score_populations())
def test_puf_matches_reference_loop(population):
    s, sim, _ = population
    assert puf.puf(s, sim) == pytest.approx(reference_puf(s, sim), abs=1e-12)
    assert puf.puf_as_printed(s, sim) == pytest.approx(2 * reference_puf(s, sim), abs=1e-12)


@given(score_populations(), st.integers(1, 5))
def test_puf_row_blocks_agree_with_one_block(population, block_elements):
    s, sim, _ = population
    whole = puf.puf(s, sim)
    # Force blocks of a single row or a few rows: the upper-triangle offsets must line up.
    original = measures_module._BLOCK_ELEMENTS
    measures_module._BLOCK_ELEMENTS = block_elements
    try:
        blocked = puf.puf(s, sim)
    finally:
        measures_module._BLOCK_ELEMENTS = original
    assert blocked == pytest.approx(whole, abs=1e-12)


@given(score_populations())
def test_envy_measures_match_reference_loops(population):
    _, _, util = population
    max_envy = reference_max_envy(util)
    assert puf.mean_envy(util) == pytest.approx(reference_me(util), abs=1e-12)
    assert puf.mean_envy_as_printed(util) == pytest.approx(2 * reference_me(util), abs=1e-12)
    assert puf.mean_max_envy(util) == pytest.approx(sum(max_envy) / len(util), abs=1e-12)
    for eps in (0.0, 0.05, 0.3):
        expected = sum(e > eps + ENVY_TOLERANCE for e in max_envy) / len(util)  # documented
        assert puf.proportion_envious_users(util, epsilon=eps) == pytest.approx(expected, abs=1e-12)


@given(arrays(np.float64, st.integers(1, 12), elements=unit_floats))
def test_sd_and_gini_match_reference_loops(x):
    assert puf.sd(x) == pytest.approx(reference_sd(x), abs=1e-12)
    if x.sum() > 0:
        assert puf.gini(x) == pytest.approx(reference_gini(x), abs=1e-12)


def reference_uf(sim, dist):
    m = len(sim)
    pairs = [(u, v) for u in range(m) for v in range(u + 1, m)]
    values = [sim[u][v] for u, v in pairs]
    mean = sum(values) / len(values)
    threshold = mean + math.sqrt(sum((x - mean) ** 2 for x in values) / len(values))
    chosen = [(u, v) for u, v in pairs if sim[u][v] >= threshold - 1e-12]
    total = sum(sim[u][v] * dist[u][v] for u, v in chosen)
    # A sum of at most 1e-12 per chosen pair is rounding of d_L, read as 0 (undefined).
    return math.log(total if total > 1e-12 * len(chosen) else 0.0)


@given(score_populations(min_users=3))
def test_uf_matches_reference_loop(population):
    _, sim, util = population
    dist = util + util.T
    np.fill_diagonal(dist, 0.0)
    try:
        expected = reference_uf(sim, dist)
    except ValueError:  # math.log(0): undefined, the measure must say so
        with pytest.warns(UndefinedMeasureWarning):
            assert math.isnan(puf.uf(sim, dist))
        return
    assert puf.uf(sim, dist) == pytest.approx(expected, abs=1e-12)


# --- hand-computed cases -----------------------------------------------------------------


def test_puf_hand_computed():
    s = [0.9, 0.5, 0.1]
    sim = [[1, 0.5, 0.2], [0.5, 1, 0.8], [0.2, 0.8, 1]]
    # pairs: (0,1) .5*.4 = .2; (0,2) .2*.8 = .16; (1,2) .8*.4 = .32; sum .68; 2/(3*2) * .68
    assert puf.puf(s, sim) == pytest.approx(0.68 / 3, abs=1e-12)
    assert puf.puf_as_printed(s, sim) == pytest.approx(2 * 0.68 / 3, abs=1e-12)


def test_sd_and_gini_hand_computed():
    # mean .5; squared deviations .25, .01, .01, .25 -> variance .13
    assert puf.sd([0.0, 0.4, 0.6, 1.0]) == pytest.approx(math.sqrt(0.13), abs=1e-12)
    # sorted 0, .4, .6, 1; weights -3, -1, 1, 3 -> -.4 + .6 + 3 = 3.2; / (4 * 2) = .4
    assert puf.gini([1.0, 0.4, 0.0, 0.6]) == pytest.approx(0.4, abs=1e-12)


def test_envy_hand_computed():
    util = [[0.5, 0.9, 0.1], [0.2, 0.2, 0.7], [0.0, 0.0, 0.3]]
    # envy(0,1)=.4 envy(0,2)=0; envy(1,0)=0 envy(1,2)=.5; envy(2,.)=0
    assert puf.mean_envy(util) == pytest.approx(0.9 / 6, abs=1e-12)
    assert puf.mean_max_envy(util) == pytest.approx(0.9 / 3, abs=1e-12)
    assert puf.proportion_envious_users(util) == pytest.approx(2 / 3, abs=1e-12)
    assert puf.proportion_envious_users(util, epsilon=0.45) == pytest.approx(1 / 3, abs=1e-12)


def test_uf_hand_computed_with_base():
    sim = np.array([[1, 0.9, 0.1], [0.9, 1, 0.1], [0.1, 0.1, 1]])
    dist = np.array([[0, 0.5, 1], [0.5, 0, 1], [1, 1, 0]])
    # mean .3667 + SD .3771 = .7438: only (0,1) qualifies; .9 * .5 = .45
    assert puf.uf(sim, dist) == pytest.approx(math.log(0.45), abs=1e-12)
    assert puf.uf(sim, dist, base=10) == pytest.approx(math.log10(0.45), abs=1e-12)


def test_uf_keeps_all_pairs_when_similarities_are_equal():
    sim = np.full((4, 4), 0.1)
    dist = np.ones((4, 4)) - np.eye(4)
    # SD is 0, so every pair is at the threshold: 6 pairs * .1 * 1
    assert puf.uf(sim, dist) == pytest.approx(math.log(0.6), abs=1e-12)


# --- the paper's identities ---------------------------------------------------------------


@pytest.mark.parametrize("m", [10, 20, 40])
def test_sd_and_gini_identities_for_zero_relevance_share(m):
    for zeros in range(m + 1):
        p = zeros / m
        s = np.r_[np.zeros(zeros), np.ones(m - zeros)]
        assert puf.sd(s) == pytest.approx(math.sqrt(p * (1 - p)), abs=1e-12)
        if zeros < m:
            assert puf.gini(s) == pytest.approx(p, abs=1e-12)


@given(score_populations())
def test_puf_is_zero_without_similarity_or_without_disparity(population):
    s, sim, _ = population
    assert puf.puf(s, np.eye(len(s))) == 0.0
    assert puf.puf(np.full(len(s), s[0]), sim) == 0.0


# --- undefined cases ----------------------------------------------------------------------


def test_gini_all_zero_is_nan_with_warning():
    with pytest.warns(UndefinedMeasureWarning, match="gini"):
        assert math.isnan(puf.gini([0.0, 0.0, 0.0]))


def test_uf_zero_sum_is_nan_with_warning():
    with pytest.warns(UndefinedMeasureWarning, match="uf"):
        assert math.isnan(puf.uf(np.full((3, 3), 0.5), np.zeros((3, 3))))


def test_uf_empty_threshold_set_is_nan_with_warning():
    # pairs 0, 1, 1: mean 2/3, SD .471, threshold 1.138 > max 1
    sim = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1]], dtype=float)
    with pytest.warns(UndefinedMeasureWarning, match="threshold"):
        assert math.isnan(puf.uf(sim, np.ones((3, 3))))


def test_defined_measures_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        puf.gini([0.0, 1.0])
        puf.puf([0.0, 1.0], [[1, 1], [1, 1]])


@pytest.mark.parametrize("base", [math.inf, 1, 0.5, -2, float("nan"), "e", True])
def test_uf_refuses_a_base_that_is_not_a_finite_number_above_1(base):
    sim = np.array([[1, 0.9, 0.1], [0.9, 1, 0.1], [0.1, 0.1, 1]])
    dist = np.array([[0, 0.5, 1], [0.5, 0, 1], [1, 1, 0]])
    # base = inf used to give log(total)/inf = -0.0, a silent wrong number
    with pytest.raises(ValueError, match=r"base must be a finite number > 1, got"):
        puf.uf(sim, dist, base=base)


def test_uf_takes_a_numpy_base():
    sim = np.array([[1, 0.9, 0.1], [0.9, 1, 0.1], [0.1, 0.1, 1]])
    dist = np.array([[0, 0.5, 1], [0.5, 0, 1], [1, 1, 0]])
    assert puf.uf(sim, dist, base=np.int64(2)) == pytest.approx(math.log2(0.45), abs=1e-12)
