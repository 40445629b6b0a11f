"""Every case a property's strategy draws is an instance of its formal statement.

For each catalog property, cases are drawn from its strategy (score and world level, and its
hand-made cases) and each one, with its alternatives, is checked against the preconditions the
formal statement in ``properties.CATALOG`` names: who is changed, by how much, within which
range. Each strategy declares its precondition beside it (``properties.cases.preconditions``),
so a new strategy needs no line here. A strategy that drew outside its statement (a widening
about a centre outside the population's range, a transfer by more than half the gap) fails here.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from puf import Population
from puf.properties import CATALOG
from puf.properties.cases.case import Case
from puf.properties.cases.preconditions import OutsideStatement, precondition_of
from puf.properties.knowledge.known import example_case, known_measures, load_known

TOL = 1e-9
MEASURES = {"score": ("puf", "sd"), "world": ("me", "uf")}


def _valid(pop, level):
    """A population satisfies the catalog's conventions: S in [0, 1], similarity symmetric in
    [0, 1] (unit diagonal at score level), utility in [0, 1], list distance >= 0."""
    s, sim = pop.effectiveness, pop.similarity
    assert pop.m >= 2 and s.shape == (pop.m,)
    assert np.all((s >= 0) & (s <= 1))
    assert np.allclose(sim, sim.T) and np.all((sim >= 0) & (sim <= 1))
    assert level == "world" or np.all(np.diag(sim) == 1.0)
    fields = pop.fields()
    if "utility" in fields:
        assert np.all((fields["utility"] >= -TOL) & (fields["utility"] <= 1 + TOL))
    if "list_distance" in fields:
        assert np.all(fields["list_distance"] >= 0)


def test_every_strategy_of_cases_declares_its_precondition():
    for prop in CATALOG.values():
        assert callable(precondition_of(prop.cases)), prop.name


def _check_all(name, case, level, measure):
    if case.trivial:
        return
    for option in (case, *case.alternatives):
        _valid(option.before, level)
        if option.after is not None:
            _valid(option.after, level)
        precondition_of(CATALOG[name].cases)(option, level, measure)


@pytest.mark.parametrize("level", ["score", "world"])
@pytest.mark.parametrize("name", list(CATALOG))
def test_explicit_cases_meet_the_statement(name, level):
    # A hand-made case moving a field a measure does not read is outside that measure's statement
    # (the runner skips it there): each case must meet the statement for a measure reading it.
    reads_all = {
        "score": lambda effectiveness, similarity: 0.0,
        "world": lambda effectiveness, similarity, utility, list_distance: 0.0,
    }
    measure = reads_all[level] if name in ("continuity", "lipschitz-continuity") else MEASURES[level][0]
    for case in CATALOG[name].explicit(level):
        _check_all(name, case, level, measure)


@pytest.mark.parametrize("level,measure", [(lv, m) for lv, ms in MEASURES.items() for m in ms])
@pytest.mark.parametrize("name", list(CATALOG))
def test_drawn_cases_meet_the_statement(name, level, measure):
    @settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(CATALOG[name].cases(level, measure))
    def check(case):
        _check_all(name, case, level, measure)

    check()


def _stored():
    for name in known_measures():
        for prop, example in load_known(name)["examples"].items():
            if CATALOG[prop].kind == "universal":  # a violated cell's counterexample
                yield pytest.param(name, prop, example, id=f"{name}-{prop}")


@pytest.mark.parametrize("measure,name,example", list(_stored()))
def test_stored_counterexamples_meet_the_statement(measure, name, example):
    level = "world" if {"utility", "list_distance"} & set(example["before"]) else "score"
    case = example_case(name, example)
    copies_alike = name == "replication-invariance"  # dissimilar-replication's copies are strangers
    if (
        copies_alike
        and "similarity" not in example["before"]
        and case.after is not None
        and case.after.m != case.before.m
    ):
        # A field the example does not store (its measure does not read it) is no part of the
        # counterexample: the replay fills it neutrally on each side. Replicated, as the
        # statement replicates every field, before the statement is checked.
        r = case.after.m // case.before.m
        case = dataclasses.replace(case, after=case.after.replace(similarity=np.tile(case.before.similarity, (r, r))))
    if name == "lipschitz-continuity":
        case = dataclasses.replace(case, segment=True)  # a narrowed piece: any δ > 0
    _check_all(name, case, level, measure)


def test_a_case_outside_its_statement_fails_its_strategys_precondition():
    before = Population([0.2, 0.8], np.eye(2))
    whole_gap = Case(before, before.replace(effectiveness=[0.8, 0.2]), "the whole gap moved")
    with pytest.raises(OutsideStatement, match="share τ in \\(0, ½\\] of the gap"):
        precondition_of(CATALOG["pigou-dalton"].cases)(whole_gap, "score", "sd")
    # A partition of one group has no between-group part: outside the subgroup axioms' statement,
    # though a shrinker removing another group's users (for a measure that fails anywhere) reached it.
    alone = Population([0.1, 0.0], np.ones((2, 2)))
    one_group = Case(alone, alone.replace(effectiveness=[0.05, 0.05]), "group 0 redistributed at its mean")
    with pytest.raises(OutsideStatement, match="groups_of"):
        precondition_of(CATALOG["subgroup-consistency"].cases)(one_group, "score", "sd")
    two = Population([0.1, 0.0, 0.3, 0.3], np.kron(np.eye(2), np.ones((2, 2))))
    precondition_of(CATALOG["subgroup-consistency"].cases)(
        Case(two, two.replace(effectiveness=[0.05, 0.05, 0.3, 0.3])), "score", "sd"
    )
