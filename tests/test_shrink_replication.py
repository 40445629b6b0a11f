"""Shrinking a replication find: a user leaves with its copies, down to the smallest m that fails."""

import numpy as np
import pytest

from puf import Population, as_measure
from puf.properties import get_property
from puf.properties.cases.case import Case
from puf.properties.running.runner import MEASURE_CALLS
from puf.properties.running.search import Found, PropertySearch
from puf.properties.running.shrink import shrink
from puf.synthetic import replicate


def _gated_mean_difference(distinct):
    """The mean difference over ordered pairs (not replication-invariant), planted to read 0 on
    populations with fewer than ``distinct`` different values: its smallest failing m is ``distinct``."""

    def gated(effectiveness):
        s = np.asarray(effectiveness, dtype=float)
        m = len(s)
        if len(np.unique(s)) < distinct:
            return 0.0
        return float(np.abs(s[:, None] - s[None, :]).sum() / (m * (m - 1)))

    return gated


def _shrunk(measure, case, prop="replication-invariance"):
    search = PropertySearch(
        as_measure(measure),
        get_property(prop),
        measure_calls=MEASURE_CALLS,
        max_examples=5,
        time_limit=2.0,
        time_budget=60.0,
    )
    with pytest.raises(Found):
        search.check(case)
    assert shrink(search)
    return search


@pytest.mark.parametrize("distinct", [2, 3, 4, 5])
@pytest.mark.parametrize("r", [2, 3])
def test_a_replication_find_shrinks_to_its_smallest_m(distinct, r):
    rng = np.random.default_rng(distinct)
    pop = Population(np.round(rng.uniform(size=24), 3), np.eye(24))
    search = _shrunk(_gated_mean_difference(distinct), Case(pop, replicate(pop, r), f"every user copied {r} times"))
    case = search.failure_case
    assert case.before.m == distinct and case.after.m == r * distinct
    assert np.array_equal(case.after.effectiveness, np.tile(case.before.effectiveness, r))  # still a replication
    assert search.failure[1]["change"].startswith(f"every user copied {r} times (shrunk from m = 24: ")


@pytest.mark.parametrize("distinct", [2, 3])
def test_copies_that_are_strangers_shrink_too(distinct):
    """dissimilar-replication's copies (similarity 0 across them, block-diagonal) leave together."""
    rng = np.random.default_rng(distinct)
    pop = Population(np.round(rng.uniform(size=12), 3), np.eye(12))
    after = Population(np.tile(pop.effectiveness, 2), np.kron(np.eye(2), pop.similarity))
    case = Case(pop, after, "population copied 2 times, similarity 0 across the copies")
    search = _shrunk(_gated_mean_difference(distinct), case, prop="dissimilar-replication")
    assert search.failure_case.before.m == distinct and search.failure_case.after.m == 2 * distinct


def test_a_replicated_world_level_population_shrinks_with_its_pair_fields():
    """Every field is tiled: utility's rows and columns leave with the user and its copies."""
    rng = np.random.default_rng(0)
    utility = rng.uniform(size=(9, 9))
    pop = Population(np.zeros(9), np.eye(9), utility=utility)

    def mean_envy(utility):
        u = np.asarray(utility)
        envy = np.maximum(u - np.diag(u)[:, None], 0.0)
        return float(envy.sum() / (len(u) * (len(u) - 1)))

    search = _shrunk(mean_envy, Case(pop, replicate(pop, 2), "every user copied 2 times"))
    case = search.failure_case
    assert case.before.m == 2 and np.array_equal(case.after.utility, np.tile(case.before.utility, (2, 2)))


def test_users_of_another_multi_size_case_are_not_removed():
    """A case whose ``after`` is not the replication of ``before`` keeps every user."""
    pop = Population([0.1, 0.5, 0.9], np.eye(3))
    grown = Population([0.1, 0.5, 0.9, 0.3, 0.5, 0.9], np.eye(6))
    search = _shrunk(_gated_mean_difference(2), Case(pop, grown, "three users joined"))
    assert search.failure_case.before.m == 3
