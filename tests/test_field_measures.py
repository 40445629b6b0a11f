"""The field's measures: plain-loop references to 1e-12, hand-computed cases, undefined cases.

Every reference below is the documented formula written as a loop over users or
pairs, independent of the vectorised code in puf/inequality.py and
puf/lipschitz.py.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import puf
from puf import UndefinedMeasureWarning

TOL = 1e-12


# ---- plain-loop references --------------------------------------------------------------


def ref_ge(s, alpha):
    m, mu = len(s), sum(s) / len(s)
    if alpha == 0:
        return -sum(math.log(x / mu) for x in s) / m
    if alpha == 1:
        return sum((x / mu) * math.log(x / mu) for x in s if x > 0) / m
    return sum((x / mu) ** alpha - 1 for x in s) / (m * alpha * (alpha - 1))


def ref_atkinson(s, eps):
    m, mu = len(s), sum(s) / len(s)
    if eps == 1:
        return 1 - math.exp(sum(math.log(x) for x in s) / m) / mu
    return 1 - (sum((x / mu) ** (1 - eps) for x in s) / m) ** (1 / (1 - eps))


def ref_cv(s):
    m, mu = len(s), sum(s) / len(s)
    return math.sqrt(sum((x - mu) ** 2 for x in s) / m) / mu


def ref_jain(s):
    return 1 - sum(s) ** 2 / (len(s) * sum(x * x for x in s))


def ref_hoover(s):
    mu = sum(s) / len(s)
    return 0.5 * sum(abs(x - mu) for x in s) / sum(s)


def ref_variance(s):
    mu = sum(s) / len(s)
    return sum((x - mu) ** 2 for x in s) / len(s)


def ref_mean_difference(s):
    m = len(s)
    return sum(abs(s[u] - s[v]) for u in range(m) for v in range(m) if u != v) / (m * (m - 1))


def ref_max_min(s):
    return 1 - min(s) / max(s)


def ref_inconsistency(s, sim, n):
    m = len(s)
    total = 0.0
    for u in range(m):
        others = sorted((v for v in range(m) if v != u), key=lambda v: (-round(sim[u][v], 12), v))
        total += abs(s[u] - sum(s[v] for v in others[:n]) / n)
    return total / m


def ref_lipschitz(s, sim, L, excess):
    m, total, pairs = len(s), 0.0, 0
    for u in range(m):
        for v in range(u + 1, m):
            over = abs(s[u] - s[v]) - L * (1 - sim[u][v])
            total += max(0.0, over) if excess else float(abs(s[u] - s[v]) > L * (1 - sim[u][v]))
            pairs += 1
    return total / pairs


# ---- random inputs ------------------------------------------------------------------------

# Values below 1e-6 (other than 0) are left out: the loops square them and would underflow.
values = st.one_of(st.just(0.0), st.just(1.0), st.floats(1e-6, 1.0))
positive = st.lists(st.floats(1e-3, 1.0), min_size=1, max_size=12)
unit = st.lists(values, min_size=2, max_size=12)


@st.composite
def populations(draw, min_users=2):
    m = draw(st.integers(min_users, 12))
    s = draw(st.lists(values, min_size=m, max_size=m))
    # Similarities from a few levels, so ties (broken by index) are common.
    levels = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.floats(0.0, 1.0))
    upper = draw(st.lists(levels, min_size=m * (m - 1) // 2, max_size=m * (m - 1) // 2))
    sim = np.eye(m)
    sim[np.triu_indices(m, k=1)] = upper
    sim = np.triu(sim, k=1) + np.triu(sim, k=1).T + np.eye(m)
    return s, sim


@given(positive, st.sampled_from([0.0, 1.0, 2.0, 0.5, 3.0, -1.0]))
def test_generalized_entropy_matches_loop(s, alpha):
    assert puf.generalized_entropy(s, alpha=alpha) == pytest.approx(max(ref_ge(s, alpha), 0.0), abs=TOL)


@given(positive, st.sampled_from([0.0, 0.5, 1.0, 2.0, 1.5]))
def test_atkinson_matches_loop(s, eps):
    assert puf.atkinson(s, epsilon=eps) == pytest.approx(max(ref_atkinson(s, eps), 0.0), abs=TOL)


@given(unit.filter(lambda s: sum(s) > 0))
def test_mean_based_indices_match_loops(s):
    assert puf.coefficient_of_variation(s) == pytest.approx(ref_cv(s), abs=TOL)
    assert puf.jain_unfairness(s) == pytest.approx(ref_jain(s), abs=TOL)
    assert puf.hoover(s) == pytest.approx(ref_hoover(s), abs=TOL)
    assert puf.max_min(s) == pytest.approx(ref_max_min(s), abs=TOL)
    assert puf.generalized_entropy(s, alpha=1) == pytest.approx(ref_ge(s, 1), abs=TOL)
    assert puf.generalized_entropy(s, alpha=2) == pytest.approx(ref_ge(s, 2), abs=TOL)
    assert puf.atkinson(s, epsilon=0.5) == pytest.approx(ref_atkinson(s, 0.5), abs=TOL)


@given(unit)
def test_variance_and_mean_difference_match_loops(s):
    assert puf.variance(s) == pytest.approx(ref_variance(s), abs=TOL)
    assert puf.mean_difference(s) == pytest.approx(ref_mean_difference(s), abs=TOL)
    # The mean difference is PUF with every similarity 1.
    assert puf.mean_difference(s) == pytest.approx(puf.puf(s, np.ones((len(s), len(s)))), abs=TOL)


@given(populations(), st.integers(1, 4))
def test_inconsistency_matches_loop(pop, n):
    s, sim = pop
    if len(s) < n + 1:
        with pytest.warns(UndefinedMeasureWarning):
            assert math.isnan(puf.inconsistency(s, sim, n_neighbors=n))
        return
    assert puf.inconsistency(s, sim, n_neighbors=n) == pytest.approx(ref_inconsistency(s, sim.tolist(), n), abs=TOL)


@given(populations(), st.sampled_from([0.0, 0.5, 1.0, 2.0]))
def test_lipschitz_measures_match_loops(pop, L):
    s, sim = pop
    assert puf.lipschitz_violation(s, sim, lipschitz_constant=L) == pytest.approx(
        ref_lipschitz(s, sim.tolist(), L, excess=False), abs=TOL
    )
    assert puf.lipschitz_excess(s, sim, lipschitz_constant=L) == pytest.approx(
        ref_lipschitz(s, sim.tolist(), L, excess=True), abs=TOL
    )


def test_block_boundaries_do_not_change_pair_measures(monkeypatch):
    """Row blocks of one row give the same numbers as a single block."""
    from puf import lipschitz

    rng = np.random.default_rng(0)
    s = rng.random(9)
    sim = rng.random((9, 9))
    sim = (sim + sim.T) / 2
    whole = [f(s, sim) for f in (puf.inconsistency, puf.lipschitz_violation, puf.lipschitz_excess)]
    monkeypatch.setattr(lipschitz, "_BLOCK_ELEMENTS", 1)
    blocked = [f(s, sim) for f in (puf.inconsistency, puf.lipschitz_violation, puf.lipschitz_excess)]
    assert blocked == pytest.approx(whole, abs=TOL)


# ---- hand-computed cases ------------------------------------------------------------------


def test_hand_computed_values():
    s = [0.25, 0.5, 0.75, 1.0]  # μ = 0.625, S/μ = 0.4, 0.8, 1.2, 1.6
    r = [0.4, 0.8, 1.2, 1.6]
    assert puf.generalized_entropy(s, alpha=2) == pytest.approx((0.16 + 0.64 + 1.44 + 2.56 - 4) / 8, abs=TOL)  # 0.1
    assert puf.generalized_entropy(s, alpha=0) == pytest.approx(-sum(math.log(x) for x in r) / 4, abs=TOL)
    assert puf.coefficient_of_variation(s) == pytest.approx(math.sqrt(0.078125) / 0.625, abs=TOL)
    assert puf.variance(s) == pytest.approx(0.078125, abs=TOL)  # 5/64
    assert puf.hoover(s) == pytest.approx(0.5 * (0.375 + 0.125 + 0.125 + 0.375) / 2.5, abs=TOL)  # 0.2
    assert puf.jain_unfairness(s) == pytest.approx(1 - 2.5**2 / (4 * 1.875), abs=TOL)  # 1/6
    assert puf.mean_difference(s) == pytest.approx(2 * (0.25 * 3 + 0.5 * 2 + 0.75) / 12, abs=TOL)
    assert puf.max_min(s) == 0.75
    assert puf.atkinson([0.25, 1.0], epsilon=0.5) == pytest.approx(1 - ((0.4**0.5 + 1.6**0.5) / 2) ** 2, abs=TOL)


def test_one_user_has_everything_reaches_the_stated_maxima():
    for m in (2, 3, 7):
        s = [1.0] + [0.0] * (m - 1)
        assert puf.generalized_entropy(s, alpha=1) == pytest.approx(math.log(m), abs=TOL)
        assert puf.generalized_entropy(s, alpha=2) == pytest.approx((m - 1) / 2, abs=TOL)
        assert puf.coefficient_of_variation(s) == pytest.approx(math.sqrt(m - 1), abs=TOL)
        assert puf.jain_unfairness(s) == pytest.approx(1 - 1 / m, abs=TOL)
        assert puf.hoover(s) == pytest.approx(1 - 1 / m, abs=TOL)
        assert puf.atkinson(s, epsilon=0.5) == pytest.approx(1 - 1 / m, abs=TOL)
    assert puf.variance([0.0, 1.0] * 3) == 0.25 and puf.mean_difference([0.0, 1.0]) == 1.0
    # Inconsistency 1: two groups of n, each user's n neighbours all in the other group.
    s = np.array([0.0] * 5 + [1.0] * 5)
    sim = (s[:, None] != s[None, :]).astype(float) + np.eye(10)
    assert puf.inconsistency(s, sim) == 1.0
    assert puf.lipschitz_excess([0.0, 1.0], np.ones((2, 2))) == 1.0


def test_aif360_ge0_difference_documented():
    """AIF360 0.6.1 returns 0.0676 (one more division by μ = 3) where GE(0) is 0.2027."""
    benefits = np.array([1.0, 2.0, 3.0, 6.0])
    ours = puf.generalized_entropy(benefits / 6, alpha=0)  # GE is scale invariant
    assert round(ours, 4) == 0.2027 and round(ours / benefits.mean(), 4) == 0.0676


@pytest.mark.parametrize(
    "function, s",
    [
        (lambda s: puf.generalized_entropy(s, alpha=0), [0.0, 0.5]),
        (lambda s: puf.generalized_entropy(s, alpha=-1), [0.0, 0.5]),
        (lambda s: puf.atkinson(s, epsilon=1), [0.0, 0.5]),
        (lambda s: puf.atkinson(s, epsilon=2), [0.0, 0.5]),
        (lambda s: puf.generalized_entropy(s, alpha=1), [0.0, 0.0]),
        (lambda s: puf.generalized_entropy(s, alpha=2), [0.0, 0.0]),
        (lambda s: puf.atkinson(s, epsilon=0.5), [0.0, 0.0]),
        (puf.coefficient_of_variation, [0.0, 0.0]),
        (puf.jain_unfairness, [0.0, 0.0]),
        (puf.hoover, [0.0, 0.0]),
        (puf.max_min, [0.0, 0.0]),
    ],
)
def test_undefined_cases_warn_and_return_nan(function, s):
    with pytest.warns(UndefinedMeasureWarning, match="undefined"):
        assert math.isnan(function(s))


def test_defined_with_zeros_where_the_definition_allows():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMeasureWarning)
        assert puf.generalized_entropy([0.0, 1.0], alpha=1) == pytest.approx(math.log(2), abs=TOL)
        assert puf.atkinson([0.0, 1.0], epsilon=0.5) == pytest.approx(0.5, abs=TOL)
        assert puf.variance([0.0, 0.0]) == 0.0 and puf.mean_difference([0.0, 0.0]) == 0.0
        assert puf.lipschitz_excess([0.0, 0.0], np.eye(2)) == 0.0


def test_equality_gives_exactly_zero():
    for c in (0.1, 1 / 3, 0.7, 1.0):
        s = [c] * 7
        for f in (
            puf.generalized_entropy,
            puf.atkinson,
            puf.coefficient_of_variation,
            puf.jain_unfairness,
            puf.hoover,
            puf.variance,
            puf.mean_difference,
            puf.max_min,
        ):
            assert f(s) == pytest.approx(0.0, abs=1e-15) and f(s) >= 0.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: puf.generalized_entropy([0.5], alpha=float("nan")), "alpha must be a finite real"),
        (lambda: puf.generalized_entropy([0.5], alpha="2"), "alpha must be a finite real"),
        (lambda: puf.atkinson([0.5], epsilon=-0.5), "epsilon must be >= 0"),
        (lambda: puf.hoover([0.5, 1.5]), "effectiveness"),
        (lambda: puf.mean_difference([0.5]), "at least 2 users"),
        (lambda: puf.inconsistency([0.5] * 6, np.eye(6), n_neighbors=0), "n_neighbors must be a positive"),
        (lambda: puf.inconsistency([0.5] * 6, np.eye(6), n_neighbors=2.5), "n_neighbors must be a positive"),
        (lambda: puf.lipschitz_violation([0.5, 1.0], np.eye(2), lipschitz_constant=-1), "lipschitz_constant"),
        (lambda: puf.lipschitz_excess([0.5, 1.0], np.eye(3)), "similarity"),
    ],
)
def test_bad_input_raises_naming_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---- registry -----------------------------------------------------------------------------

FIELD = [name for name, m in puf.MEASURES.items() if "PUF paper" not in m.reference]


def test_registry_defaults_and_families():
    s = [0.2, 0.4, 0.9, 1.0, 0.5, 0.3]
    sim = np.full((6, 6), 0.5)
    pop = puf.Population(s, sim)
    values = puf.evaluate_measures(pop, FIELD)
    assert values["ge-0"] == puf.generalized_entropy(s, alpha=0)
    assert values["atkinson-2"] == puf.atkinson(s, epsilon=2)
    assert values["inconsistency"] == puf.inconsistency(s, sim, n_neighbors=5)
    assert values["lipschitz-excess"] == puf.lipschitz_excess(s, sim, lipschitz_constant=1.0)
    families = {name: puf.MEASURES[name].family for name in FIELD}
    assert {n for n, f in families.items() if f == "similarity-aware"} == {
        n for n in FIELD if "similarity" in puf.MEASURES[n].reads
    }
    assert {families[n] for n in ("inconsistency", "lipschitz-violation", "lipschitz-excess")} == {"similarity-aware"}
    assert puf.MEASURES["variance"].range == (0.0, 0.25)
    assert puf.MEASURES["ge-1"].range == (0.0, math.inf)


def test_a_registered_parameter_value_appears_everywhere():
    """register() at another α: puf measures, the evaluation columns and the sweeps list it."""
    from puf.evaluation import measure_columns
    from puf.cli.commands.measures import measures_table
    from puf.reports.sweeps import SWEEPS

    puf.register(puf.generalized_entropy, name="ge-3", options={"alpha": 3}, range=(0, math.inf))
    try:
        assert puf.evaluate_measures(puf.Population([0.0, 1.0], np.eye(2)), ["ge-3"]) == {"ge-3": 0.5}
        assert "ge-3" in [row["name"] for row in measures_table()]
        assert {"ge-3-P", "ge-3-NDCG"} <= set(measure_columns())
        assert "ge-3-NDCG" in SWEEPS["zero_relevance"].measures
        assert "ge-3-NDCG" not in SWEEPS["pairing"].measures  # an inequality index
        with pytest.raises(ValueError, match="already registered"):
            puf.register(puf.generalized_entropy, name="ge-3", options={"alpha": 4})
    finally:
        puf.MEASURES.pop("ge-3")


# ---- a well-kept library: PySAL's inequality package (in the test extra) -----------------


@given(unit.filter(lambda s: sum(s) > 0))
def test_pysal_inequality_agrees_on_gini_theil_atkinson(s):
    """PySAL's Gini, Theil (= GE(1); PySAL adds the smallest float to zeros) and Atkinson."""
    pysal_gini = pytest.importorskip("inequality.gini")
    pysal_theil = pytest.importorskip("inequality.theil")
    pysal_atkinson = pytest.importorskip("inequality.atkinson")
    y = np.array(s)
    assert puf.gini(y) == pytest.approx(pysal_gini.Gini(y).g, abs=TOL)
    assert puf.generalized_entropy(y, alpha=1) == pytest.approx(pysal_theil.Theil(y).T, abs=TOL)
    if y.all():  # PySAL's Atkinson requires every value > 0, at any ε
        for eps in (0.5, 1.0, 2.0):
            assert puf.atkinson(y, epsilon=eps) == pytest.approx(pysal_atkinson.atkinson(y, eps), abs=TOL)
