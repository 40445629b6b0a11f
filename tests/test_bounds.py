"""A declared end out of reach, proven: the negation of attainable-range at one m, by the solver.

A search that finds no population reaching an end is ``not-found``; the cell is ``violated``
only when the solver shows that no population of that m reaches it."""

import math

import numpy as np
import pytest

import puf
import puf.properties.proving.bounds as bounds
from puf.properties import verdicts
from puf.properties.knowledge.known import load_known, pinned_status
from puf.properties.proving.bounds import unreached_end
from puf.properties.proving.smt_encoding import z3_module
from fractions import Fraction

pytestmark = pytest.mark.skipif(z3_module() is None, reason="the solver (the proofs extra) is not installed")

# measure -> (m, the extreme the solver proves at m): one user holding everything, or the
# most spread population of an odd m
PROVEN = {
    "atkinson-0.5": (2, "1/2"),
    "cv": (2, "1"),
    "ge-2": (2, "1/2"),
    "gini": (2, "1/2"),
    "hoover": (2, "1/2"),
    "jain": (2, "1/2"),
    "sd": (2, "1/2"),
    "lipschitz-excess": (3, "2/3"),
    "mean-difference": (3, "2/3"),
    "puf": (3, "2/3"),
    "variance": (3, "2/9"),
}


def _example(m, *values):
    return {"before": {"effectiveness": [0.0] * m}, "value_before": values[0], "derived": dict(enumerate(values[1:]))}


@pytest.mark.parametrize("name", PROVEN)
def test_the_extreme_at_m_is_proven_and_named(name):
    m, extreme = PROVEN[name]
    scope, argument = unreached_end(puf.as_measure(name), _example(m, 0.0, float(Fraction(extreme))))
    assert scope == f"at m = {m}, by SMT"
    assert argument.startswith(f"no population of {m} users goes above {extreme}, the largest value found (so the max")


def test_a_logarithm_is_held_by_bounds_and_unsat_still_proves():
    scope, argument = unreached_end(puf.as_measure("ge-1"), _example(2, 0.0, math.log(2)))
    assert scope == "at m = 2, by SMT" and argument == (
        "no population of 2 users reaches beyond ±100 the declared end ∞ "
        "(each logarithm held by the bounds 1 − 1/x ≤ ln x ≤ x − 1)"
    )


@pytest.mark.parametrize("name, m, found", [("mean-difference", 2, 0.5), ("puf", 2, 0.6), ("max-min", 3, 0.9)])
def test_a_failed_search_is_no_proof(name, m, found):
    """The end is reached at this m (by S = (0, 1), everyone alike): the values found fall short,
    the solver finds the population, and nothing is proven."""
    assert unreached_end(puf.as_measure(name), _example(m, 0.0, found)) is None


def test_an_end_reached_asks_nothing_and_a_measure_without_form_gets_no_proof():
    assert unreached_end(puf.as_measure("sd"), _example(2, 0.0, 0.5)) is not None
    assert unreached_end(puf.as_measure("max-min"), _example(2, 0.0, 1.0)) is None  # both ends reached
    assert unreached_end(puf.as_measure("lipschitz-violation"), _example(3, 0.0, 0.5)) is None  # no form
    assert unreached_end(puf.as_measure("inconsistency"), _example(7, 0.0, 0.6)) is None  # no closed form at m = 7


def test_the_inconsistency_at_six_users_is_proven_to_top_out_at_three_fifths():
    """At m = 6 every user's five neighbours are the other five: (1/30) Σ |6 S_u − Σ S| ≤ 18/30,
    reached by three users at 0 and three at 1."""
    assert puf.inconsistency([0.0, 0.0, 0.0, 1.0, 1.0, 1.0], np.eye(6)) == pytest.approx(0.6)
    scope, argument = unreached_end(puf.as_measure("inconsistency"), _example(6, 0.0, 0.6))
    assert scope == "at m = 6, by SMT"
    assert argument == (
        "no population of 6 users goes above 3/5, the largest value found (so the maximum at m = 6), "
        "short of the declared end 1 (at m = 6 every other user is a neighbour)"
    )


def test_uf_never_reaches_its_infinite_upper_end():
    """UF at two users is ln(sim·d_L) ≤ ln 2: never beyond 100, the value that stands for ∞."""
    example = {
        "before": {"similarity": [[1.0, 1.0], [1.0, 1.0]], "list_distance": [[0.0, 1.0], [1.0, 0.0]]},
        "value_before": 0.0,
        "derived": {},
    }
    scope, argument = unreached_end(puf.as_measure("uf"), example)
    assert scope == "at m = 2, by SMT" and argument.startswith(
        "no population of 2 users reaches beyond ±100 the declared end ∞ (any set of pairs, list distances in [0, 2]"
    )


@pytest.mark.parametrize("name, m", [("uf", 2), ("inconsistency", 6)])
def test_the_closed_form_cells_are_pinned_violated_at_the_proven_m(name, m):
    known = load_known(name)
    assert known["verdicts"]["attainable-range"] == "violated"
    assert f"at m = {m}" in known["reasons"]["attainable-range"]
    example = known["examples"]["attainable-range"]
    assert len(next(iter(example["before"].values()))) == m
    assert unreached_end(puf.as_measure(name), {**example, "derived": {}}) is not None


def test_a_measure_named_like_a_closed_form_builtin_is_not_proven_by_it():
    impostor = puf.Measure(
        lambda effectiveness, similarity: 1.0, name="inconsistency", reads=("effectiveness", "similarity")
    )
    assert unreached_end(impostor, _example(6, 0.0, 0.6)) is None


@pytest.mark.parametrize("name", [*PROVEN, "ge-1"])
def test_the_pinned_cells_are_violated_with_their_example(name):
    assert load_known(name)["verdicts"]["attainable-range"] == "violated"
    m = PROVEN.get(name, (2,))[0]
    assert len(load_known(name)["examples"]["attainable-range"]["before"]["effectiveness"]) == m


def test_the_verdict_says_what_was_proven_and_for_which_m():
    (v,) = verdicts("puf", properties=["attainable-range"], max_examples=5)
    assert v.status == "violated"
    assert v.reason.startswith("m = 3: the values found span [0, 0.667]")
    assert v.reason.endswith(
        "not reached; proven at m = 3, by SMT: no population of 3 users goes above 2/3, the largest value "
        "found (so the maximum at m = 3), short of the declared end 1"
    )


def test_without_proofs_or_without_the_solver_the_cell_stays_not_found(monkeypatch):
    (searched,) = verdicts("puf", properties=["attainable-range"], max_examples=5, proofs="none")
    assert searched.status == "not-found" and "no proof either way" in searched.reason
    assert searched.status == pinned_status("puf", "attainable-range", proofs="none")
    monkeypatch.setattr(bounds, "z3_module", lambda: None)
    (unproven,) = verdicts("gini", properties=["attainable-range"], max_examples=5)
    assert unproven.status == "not-found"
