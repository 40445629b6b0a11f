"""Shrinking the finds of properties whose cases are built from ``before`` (``Property.remake``):
a rearrangement loses any user while the two pairings of what is left still tell the measure
apart; a determinism find loses users while the two calls on P still differ, its query asked
again around the smaller P, in fresh worker processes."""

import textwrap

import numpy as np
import pytest

from puf import Population, as_measure
from puf.properties import get_property
from puf.properties.cases.case import Case
from puf.properties.cases.user_cases import anonymity_examples, rearrangement_remade, relabelled_remade, repeat_remade
from puf.properties.running.isolation import load_isolated, release_workers
from puf.properties.running.runner import MEASURE_CALLS
from puf.properties.running.search import Found, PropertySearch
from puf.properties.running.shrink import shrink
from puf.synthetic import weighted_gap_sum


def _shrunk(measure, prop, case):
    search = PropertySearch(
        measure, get_property(prop), measure_calls=MEASURE_CALLS, max_examples=5, time_limit=10.0, time_budget=300.0
    )
    with pytest.raises(Found):
        search.check(case)
    assert shrink(search)
    return search


def _gated_pairing_blind(distinct):
    """Reads the pairing (Σ sim·|gap|, which the most_fair pairing strictly lowers) on populations
    of fewer than ``distinct`` different values, and is blind to it (the SD) on the others: its
    smallest failing m is ``distinct``, and 3 for 2 values (two users never pair differently)."""

    def gated(effectiveness, similarity):
        s, sim = np.asarray(effectiveness, dtype=float), np.asarray(similarity, dtype=float)
        if len(np.unique(s)) < distinct:
            return float(weighted_gap_sum(s, sim) / len(s) ** 2)
        return float(np.std(s))

    return gated


def _random_population(m, seed):
    rng = np.random.default_rng(seed)
    similarity = np.round(rng.uniform(size=(m, m)), 3)
    similarity = np.triu(similarity, 1) + np.triu(similarity, 1).T + np.eye(m)
    return Population(np.round(rng.uniform(size=m), 3), similarity)


@pytest.mark.parametrize("distinct, smallest", [(2, 3), (3, 3), (4, 4), (5, 5)])
def test_a_rearrangement_find_shrinks_to_its_smallest_m(distinct, smallest):
    pop = _random_population(10, distinct)
    case = rearrangement_remade(Case(pop), pop)
    search = _shrunk(as_measure(_gated_pairing_blind(distinct)), "rearrangement", case)
    found = search.failure_case
    assert found.before.m == smallest and found.strict
    again = rearrangement_remade(found, found.before)  # still the two pairings of its population
    assert np.array_equal(again.after.effectiveness, found.after.effectiveness)
    example = search.failure[1]
    assert set(example["before"]) == {"effectiveness", "similarity"}  # what the measure and pairing read
    assert example["change"].startswith("most_fair pairing (order ")
    assert "(shrunk from m = 10: users removed, " in example["change"]
    # Every value simpler than drawn (three decimals): the similarities at 0 or 1, the
    # effectiveness at 0, ½, 1 or a short decimal.
    sim = np.asarray(example["before"]["similarity"])
    assert set(np.unique(sim)) <= {0.0, 1.0}
    assert all(v == round(v, 2) for v in example["before"]["effectiveness"])


def test_a_stored_rearrangement_example_keeps_its_label():
    pop = _random_population(6, 0)
    case = rearrangement_remade(Case(pop), pop)
    case = Case(case.before, case.after, "known example (sd): " + case.change, strict=case.strict)
    search = _shrunk(as_measure(_gated_pairing_blind(3)), "rearrangement", case)
    assert search.failure[1]["change"].startswith("known example (sd): most_fair pairing")
    assert search.failure_case.before.m == 3


PLANTED = """
import numpy as np

_NORMALISER = None

def _gated(distinct):
    def first_normalised(effectiveness):
        global _NORMALISER
        s = np.asarray(effectiveness, dtype=float)
        if _NORMALISER is None:
            _NORMALISER = max(float(np.max(s)), 1e-3)  # fixed on the first call of a process
        if len(np.unique(s)) < distinct:
            return 0.0
        return float(np.ptp(s)) / _NORMALISER
    return first_normalised

gated_2, gated_3, gated_4, gated_5 = (_gated(k) for k in (2, 3, 4, 5))
"""


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    path = tmp_path_factory.mktemp("planted") / "first_call.py"
    path.write_text(textwrap.dedent(PLANTED))
    yield path
    release_workers()


@pytest.mark.parametrize("distinct", [2, 3, 4, 5])
def test_a_determinism_find_shrinks_to_its_smallest_m(planted, distinct):
    """A normaliser fixed on a process's first call, read only on populations of ``distinct``
    different values: the smallest P whose two calls differ has ``distinct`` users."""
    pop = Population(np.round(np.random.default_rng(distinct).uniform(0.05, 1.0, size=7), 3), np.eye(7))
    twin = repeat_remade(Case(pop, pop, "P's summary twin (same m and mean), then P again"), pop)
    search = _shrunk(load_isolated(f"{planted}:gated_{distinct}"), "deterministic", twin)
    found = search.failure_case
    assert found.before.m == distinct
    assert found.change.startswith("P's summary twin (same m and mean), then P again (shrunk from m = 7: users removed")
    again = repeat_remade(found, found.before)  # the query is still P's summary twin
    assert np.array_equal(again.after.effectiveness, found.after.effectiveness)
    value_first, value_again = search.failure[1]["value_before"], search.failure[1]["value_after"]
    assert value_first != value_again


FIXED_BY = """
import numpy as np

_NORMALISER = None

def _fixed_by(distinct):
    def first_varied(effectiveness):
        global _NORMALISER
        s = np.asarray(effectiveness, dtype=float)
        if _NORMALISER is None and len(np.unique(s)) >= distinct:
            _NORMALISER = float(np.max(s)) + 1.0  # fixed by the first population this varied
        return float(np.ptp(s)) / (_NORMALISER or 2.0)
    return first_varied

fixed_by_2, fixed_by_3, fixed_by_4, fixed_by_5 = (_fixed_by(k) for k in (2, 3, 4, 5))
"""


@pytest.fixture(scope="module")
def fixed_by(tmp_path_factory):
    path = tmp_path_factory.mktemp("planted") / "fixed_by.py"
    path.write_text(textwrap.dedent(FIXED_BY))
    yield path
    release_workers()


@pytest.mark.parametrize("distinct", [2, 3, 4, 5])
def test_a_population_drawn_anew_shrinks_to_its_smallest_m_after_p(fixed_by, distinct):
    """A normaliser fixed by the first population of ``distinct`` different values in a process:
    P asked alone leaves it unfixed (two users, two values: 2 for ``distinct`` = 2, whose
    normaliser is then P's own max + 1 ≠ Q's), and a population drawn anew fixes it only when it
    has ``distinct`` different values, its largest not P's: its smallest m is ``distinct``."""
    rng = np.random.default_rng(distinct)
    pop = Population(np.round(rng.uniform(0.05, 0.95, size=6), 3), np.eye(6))
    other = Population(np.round(rng.uniform(0.05, 0.95, size=9), 3), np.eye(9))
    case = Case(pop, other, "a population drawn anew, then P again")
    search = _shrunk(load_isolated(f"{fixed_by}:fixed_by_{distinct}"), "deterministic", case)
    found = search.failure_case
    assert (found.before.m, found.after.m) == (2, distinct)
    assert len(np.unique(found.after.effectiveness)) == distinct
    example = search.failure[1]
    assert example["change"].startswith("a population drawn anew, then P again (shrunk from m = 6: users removed")
    assert example["change"].endswith(f"the other population from m = 9 to {distinct})")
    assert set(example["after"]) == {"effectiveness"}  # the fields the measure reads, the drawn population's too
    # Every value simpler than drawn (three decimals).
    assert all(v == round(v, 2) for v in example["before"]["effectiveness"] + example["after"]["effectiveness"])
    assert example["value_before"] != example["value_after"]


def test_a_smaller_population_drawn_anew_is_judged_in_a_process_of_its_own(fixed_by):
    """Shrinking asks each smaller case in a fresh process: a normaliser fixed by the drawn
    population's first judgment does not make every smaller one look guilty."""
    pop = Population([0.0, 1.0], np.eye(2))
    other = Population([0.1, 0.2, 0.3, 0.4, 0.5], np.eye(5))
    case = Case(pop, other, "a population drawn anew, then P again")
    search = _shrunk(load_isolated(f"{fixed_by}:fixed_by_5"), "deterministic", case)
    assert search.failure_case.after.m == 5 and search.failure_case.before.m == 2


def _labels_counted_above(m_min):
    """Anonymous below ``m_min`` users; from there it weights each user's outcome by its label,
    so any relabelling that moves an unequal pair changes it: its smallest failing m is ``m_min``."""

    def labelled(effectiveness):
        s = np.asarray(effectiveness, dtype=float)
        return float(s @ np.arange(len(s)) / len(s) ** 2) if len(s) >= m_min else float(s.mean())

    return labelled


@pytest.mark.parametrize("smallest", [2, 3, 5])
def test_a_relabelling_found_at_300_users_shrinks_to_its_smallest_m(smallest):
    # The hand-made 300-user reversal moves every user, so no user is left alone by the change:
    # the find shrinks because the relabelling is made again around the smaller population.
    (large,) = [c for c in anonymity_examples("score") if c.before.m == 300]
    search = _shrunk(as_measure(_labels_counted_above(smallest)), "anonymity", large)
    found = search.failure_case
    assert found.before.m == smallest
    assert "shrunk from m = 300" in search.failure[1]["change"]
    again = relabelled_remade(found, found.before)
    assert np.array_equal(found.after.effectiveness, again.after.effectiveness) or any(
        np.array_equal(found.after.effectiveness, a.after.effectiveness) for a in again.alternatives
    )
