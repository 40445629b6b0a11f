"""Shrinking a subgroup find: the case is rebuilt around fewer users of the changed group as well
as of the others (``subgroup_remade``), judged again after every step, so the example shown is at
the smallest m its violation needs."""

import re

import numpy as np
import pytest

from puf import Population, as_measure
from puf.properties import get_property
from puf.properties.cases.case import Case
from puf.properties.cases.subgroup_cases import changed_group, subgroup_remade
from puf.properties.running.runner import MEASURE_CALLS
from puf.properties.running.search import Found, PropertySearch
from puf.properties.running.shrink import shrink


def _reversed_from(smallest):
    """The variance, sign-reversed on populations of ``smallest`` users or more: a group of fewer
    whose spread rises raises its own value while the whole's falls. Its smallest failing m is
    ``smallest`` (a group of two beside ``smallest − 2`` users, or any larger group)."""

    def reversed_variance(effectiveness):
        s = np.asarray(effectiveness, dtype=float)
        return float(np.var(s)) * (-1.0 if len(s) >= smallest else 1.0)

    return reversed_variance


def _spread(changed, others, seed):
    """Two groups of ``changed`` and ``others`` users (values with three decimals), the first
    spread by a third at its mean."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.uniform(0.3, 0.7, changed + others), 3)
    labels = np.repeat([0, 1], [changed, others])
    pop = Population(s, (labels[:, None] == labels[None, :]).astype(float))
    after = s.copy()
    group = s[:changed]
    after[:changed] = group.mean() + 1.3 * (group - group.mean())
    return Case(pop, pop.replace(effectiveness=after), f"groups of sizes {[changed, others]}; group 0 spread")


@pytest.mark.parametrize("smallest", [4, 5, 6, 7])
def test_a_subgroup_find_shrinks_to_its_smallest_m(smallest):
    """From a changed group of ``smallest − 1`` users beside ``13 − smallest``: both groups lose users."""
    case = _spread(smallest - 1, 13 - smallest, smallest)
    measure = as_measure(_reversed_from(smallest))
    search = PropertySearch(
        measure,
        get_property("subgroup-consistency"),
        measure_calls=MEASURE_CALLS,
        max_examples=5,
        time_limit=10.0,
        time_budget=300.0,
    )
    with pytest.raises(Found):
        search.check(case)
    assert shrink(search)
    found = search.failure_case
    assert found.before.m == smallest
    groups, index = changed_group(found)
    assert index is not None and len(groups[index]) < smallest - 1
    members = groups[index]
    assert found.after.effectiveness[members].mean() == pytest.approx(found.before.effectiveness[members].mean())
    example = search.failure[1]
    assert set(example["before"]) == {"effectiveness", "groups"}
    assert example["change"].startswith(f"groups of sizes {[len(g) for g in groups]}; group {index} (users ")
    assert example["change"].endswith(")") and "(shrunk from m = 12: users removed" in example["change"]
    shown = re.search(r"\(users (\d+)–(\d+)\)", example["change"])
    assert shown is not None and [int(shown[1]), int(shown[2])] == [members[0], members[-1]]


def test_the_built_in_gini_find_is_shown_at_five_users():
    """Gini's overlap term needs a changed group of three beside a group of two: no smaller case."""
    search = PropertySearch(
        as_measure("gini"),
        get_property("subgroup-consistency"),
        measure_calls=MEASURE_CALLS,
        max_examples=5,
        time_limit=10.0,
        time_budget=300.0,
    )
    labels = np.repeat([0, 1], [3, 5])
    overlap = Population([0.58, 0.02, 0.62, 0.03, 0.0, 0.2, 0.9, 0.1], (labels[:, None] == labels).astype(float))
    after = overlap.effectiveness.copy()
    after[:3] = [0.7321, 0.3599, 0.128]
    after[:3] += (overlap.effectiveness[:3].sum() - after[:3].sum()) / 3
    with pytest.raises(Found):
        search.check(Case(overlap, overlap.replace(effectiveness=after), "groups of three and five"))
    assert shrink(search)
    groups, index = changed_group(search.failure_case)
    assert search.failure_case.before.m == 5 and len(groups[index]) == 3


def test_a_remade_case_keeps_its_groups_mean_and_stays_in_the_unit_interval():
    blocks = np.kron(np.eye(2), np.ones((3, 3)))
    pop = Population([0.1, 0.5, 0.9, 0.1, 0.4, 0.7], blocks)
    case = Case(pop, pop.replace(effectiveness=[0.0, 0.5, 1.0, 0.1, 0.4, 0.7]))
    # The middle user gone: the ends keep their moves (±0.1), which fit.
    without_middle = Population([0.1, 0.9, 0.1, 0.4, 0.7], blocks[1:, 1:])
    assert subgroup_remade(case, without_middle).after.effectiveness.tolist() == [0.0, 1.0, 0.1, 0.4, 0.7]
    # A value moved to 0.95: its move of +0.1 would leave [0, 1], so the moves are halved to fit.
    remade = subgroup_remade(case, pop.replace(effectiveness=[0.1, 0.5, 0.95, 0.1, 0.4, 0.7]))
    assert remade.after.effectiveness.tolist() == pytest.approx([0.05, 0.5, 1.0, 0.1, 0.4, 0.7])
    # A user of an unchanged group gone; a population that is not the case's less one user.
    assert subgroup_remade(case, Population([0.1, 0.5, 0.9, 0.1, 0.4], blocks[:5, :5])).before.m == 5
    assert subgroup_remade(case, Population([0.3, 0.5, 0.9, 0.1, 0.4], blocks[:5, :5])) is None
    # A changed group of two down to one user: nothing left to judge.
    pairs = Population([0.2, 0.6, 0.1, 0.4], np.kron(np.eye(2), np.ones((2, 2))))
    spread = Case(pairs, pairs.replace(effectiveness=[0.0, 0.8, 0.1, 0.4]))
    assert subgroup_remade(spread, Population([0.6, 0.1, 0.4], pairs.similarity[1:, 1:])) is None


def test_a_similarity_moved_to_zero_inside_a_group_leaves_no_case():
    """Groups are blocks (positive similarity inside): a group held together by one user is none."""
    blocks = np.kron(np.eye(2), np.full((3, 3), 0.5)) + np.eye(6) * 0.5
    pop = Population([0.1, 0.5, 0.9, 0.1, 0.4, 0.7], blocks)
    case = Case(pop, pop.replace(effectiveness=[0.0, 0.5, 1.0, 0.1, 0.4, 0.7]))
    for u, v in [(0, 2), (3, 4)]:
        hollow = blocks.copy()
        hollow[u, v] = hollow[v, u] = 0.0
        assert subgroup_remade(case, pop.replace(similarity=hollow)) is None
    simpler = blocks.copy()
    simpler[0, 2] = simpler[2, 0] = 1.0
    assert subgroup_remade(case, pop.replace(similarity=simpler)).after.similarity[0, 2] == 1.0
