"""The literature's axioms: their cases keep what they claim to keep, and their judges."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from puf import Population, as_measure
from puf.properties import CATALOG
from puf.properties.cases.case import Case
from puf.properties.cases.extreme_cases import candidates
from puf.properties.cases.groups import groups_of
from puf.properties.cases.subgroup_cases import changed_group, decomposition_parts, subgroup_cases
from puf.properties.cases.transfer_cases import composite_transfer, strict_transfer_cases

AXIOMS = [
    "strict-transfer",
    "transfer-sensitivity",
    "subgroup-decomposability",
    "subgroup-consistency",
    "attainable-range",
]


def test_the_five_axioms_are_in_the_catalog_with_a_source():
    for name in AXIOMS:
        assert CATALOG[name].source and CATALOG[name].formal


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=4, max_size=4, unique=True), st.floats(0.01, 0.5))
def test_a_composite_transfer_keeps_the_mean_and_the_variance(values, share):
    s = np.array(sorted(values))
    after = composite_transfer(s, (0, 1, 2, 3), share)
    if after is not None:
        assert after.mean() == pytest.approx(s.mean(), abs=1e-12)
        assert after.var() == pytest.approx(s.var(), abs=1e-12)
        assert after[1] <= after[2] and 0 <= after.min() and after.max() <= 1


@settings(max_examples=50, deadline=None)
@given(strict_transfer_cases("score", "sd"))
def test_a_strict_transfer_keeps_the_pairs_order_and_the_mean(case):
    if not case.trivial:
        for option in (case, *case.alternatives):
            before, after = option.before.effectiveness, option.after.effectiveness
            assert after.mean() == pytest.approx(before.mean(), abs=1e-12)
            moved = np.flatnonzero(after != before)
            # A share of 1/2 meets in the middle (weakly order-keeping), up to rounding.
            assert len(moved) == 2 and (
                np.sign(np.diff(before[moved])) == np.sign(np.diff(after[moved]))
                or abs(after[moved[0]] - after[moved[1]]) <= 1e-12
            )


@settings(max_examples=50, deadline=None)
@given(subgroup_cases("score", "ge-1"))
def test_a_subgroup_case_changes_one_block_at_its_size_and_mean(case):
    if case.trivial:
        return
    groups, index = changed_group(case)
    assert index is not None and len(groups) >= 2
    members = groups[index]
    assert case.after.effectiveness[members].mean() == pytest.approx(
        case.before.effectiveness[members].mean(), abs=1e-12
    )
    outside = np.ones(case.before.m, bool)
    outside[members] = False
    assert np.array_equal(case.after.effectiveness[outside], case.before.effectiveness[outside])


@pytest.mark.parametrize("alpha", [0.0, 1.0, 2.0])
def test_the_generalised_entropy_decomposes_exactly_as_shorrocks_says(alpha):
    rng = np.random.default_rng(0)
    ge = as_measure(f"ge-{alpha:g}")
    sim = np.kron(np.eye(2), np.ones((3, 3)))
    s = rng.uniform(0.1, 1.0, 6)
    whole = ge(effectiveness=s, similarity=sim)
    mu = s.mean()
    within = sum(
        3 / 6 * (s[g].mean() / mu) ** alpha * ge(effectiveness=s[g], similarity=np.ones((3, 3)))
        for g in (slice(0, 3), slice(3, 6))
    )
    between = ge(effectiveness=np.repeat([s[:3].mean(), s[3:].mean()], 3), similarity=sim)
    assert whole == pytest.approx(within + between, rel=1e-12)


def test_groups_are_the_blocks_of_the_similarity_and_the_parts_come_from_them():
    sim = np.kron(np.eye(2), np.full((2, 2), 0.5)) + 0.5 * np.eye(4)
    assert [g.tolist() for g in groups_of(sim)] == [[0, 1], [2, 3]]
    pop = Population([0.1, 0.3, 0.5, 0.7], sim)
    parts = decomposition_parts(Case(pop, pop.replace(effectiveness=[0.2, 0.2, 0.5, 0.7])))
    assert parts["others_smoothed"].effectiveness.tolist() == [0.1, 0.3, 0.6, 0.6]
    assert parts["group_at_mean"].effectiveness.tolist() == pytest.approx([0.2, 0.2])


@pytest.mark.parametrize("m", [2, 3, 7, 12])
def test_the_candidates_reach_max_min_and_gini_at_their_true_extremes(m):
    found = candidates(Case(Population(np.zeros(m), np.eye(m))))
    positive = [p for p in found.values() if p.effectiveness.sum() > 0]
    values = [as_measure("max-min")(**p.fields()) for p in positive]
    assert min(values) == 0.0 and max(values) == 1.0
    gini = [as_measure("gini")(**p.fields()) for p in positive]
    assert max(gini) == pytest.approx((m - 1) / m)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=3, max_size=6),
    st.lists(st.floats(-1, 1), min_size=6, max_size=6),
    st.floats(1e-3, 0.1),
)
def test_a_nudge_keeps_the_groups_mean_stays_in_the_unit_interval_and_is_small(values, direction, size):
    from puf.properties.cases.subgroup_cases import _nudged

    s = np.array(values)
    moved = _nudged(s, np.array(direction[: len(s)]), size)
    assert moved.mean() == pytest.approx(s.mean(), abs=1e-12)
    assert 0 <= moved.min() and moved.max() <= 1 and np.max(np.abs(moved - s)) <= size + 1e-12


def test_the_overlap_case_shows_a_pair_gap_index_is_not_subgroup_consistent():
    """The hand-made case alone (one example, no stored ones): the three's range is kept while
    its middle user moves towards the overlapping pair, so the mean gap of the whole falls."""
    from puf.properties import verdicts
    from puf.properties.knowledge.corpus import get_entry

    for measure in (get_entry("half-mean-pair-gap")["measure"], "gini"):
        (v,) = verdicts(measure, properties=["subgroup-consistency"], max_examples=1, random_state=0, known=False)
        assert v.status == "violated", v.reason
    (v,) = verdicts("sd", properties=["subgroup-consistency"], max_examples=1, random_state=0, known=False)
    assert v.status == "holds", v.reason
