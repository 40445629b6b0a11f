"""The proven status: composition rules, the z3 fixed-m proofs, and what the known files record.

The rules need no solver; the SMT tests skip without the ``proofs`` extra (CI installs it).
Every proven cell of every built-in is run through the search without its stored examples,
at :data:`CI_PROOF_BUDGET` examples by default and at N with ``PUF_PROOF_BUDGET=N`` (a thorough
local run; the pinned-verdict test already runs each cell at the default budget with them).
"""

import math
from fractions import Fraction
import os

import numpy as np
import pytest

import puf
from puf.grammar import BUILTIN_FORMS, IndexForm, PairForm, grammar_measure
from puf.properties import CATALOG, get_property, verdicts
from puf.properties.knowledge.known import check_known, example_case, load_known
from puf.properties.proving.proofs import Proof, combine, prove
from puf.properties.proving.smt_encoding import INSTALL, z3_module
from puf.properties.running.runner import confirmed

CI_PROOF_BUDGET = 20
"""Examples per proven cell in the default run (about 25 CPU seconds for every cell of every built-in)."""
PROOF_BUDGET = int(os.environ.get("PUF_PROOF_BUDGET") or CI_PROOF_BUDGET)

needs_z3 = pytest.mark.skipif(z3_module() is None, reason=f"needs the SMT solver: {INSTALL}")


@pytest.mark.parametrize("name", list(BUILTIN_FORMS))
def test_rule_proofs_are_the_recorded_ones_and_only_on_holds_cells(name):
    measure, known = puf.as_measure(name), load_known(name)
    recorded = {p: s for p, s in known.get("proofs", {}).items() if not s.endswith("by SMT")}
    proven = {}
    for prop in CATALOG:
        proof = prove(measure, get_property(prop))
        if proof is not None:
            assert proof.status == "proven" and known["verdicts"][prop] == "holds", (name, prop)
            proven[prop] = proof.scope
    assert proven == recorded


def test_the_issue_minimum_is_proven_for_puf_for_every_m():
    known = load_known("puf")["proofs"]
    for prop in ("anonymity", "zero-at-equality", "translation-invariance"):
        assert known[prop].startswith("for every m"), prop
    assert load_known("gini")["proofs"]["scale-invariance"].startswith("for every m")


def test_a_proven_verdict_carries_its_scope_and_never_replaces_a_counterexample():
    (v,) = verdicts("puf", properties=["anonymity"], max_examples=10)
    assert v.status == "proven" and v.scope == "for every m, by symmetric aggregation"
    assert v.to_dict()["scope"] == v.scope
    (plain,) = verdicts("puf", properties=["anonymity"], max_examples=10, proofs="none")
    assert plain.status == "holds" and plain.scope is None
    status, reason, _, scope = combine(
        "violated", "counterexample", {"violation": 1.0}, Proof("proven", "for every m, by x")
    )
    assert status == "violated" and "contradicts the proof" in reason and scope is None
    with pytest.raises(ValueError, match="proofs must be one of none, rules, smt, got 'all'"):
        verdicts("puf", properties=["anonymity"], proofs="all")


def test_a_users_grammar_measure_gets_rule_proofs_and_a_plain_function_none():
    mine = grammar_measure(PairForm(weight="sim^2", gap="square", aggregation="user-max"), name="mine")
    results = {
        v.property: v.status
        for v in verdicts(mine, properties=["anonymity", "similarity-zero", "translation-invariance"], max_examples=10)
    }
    assert results == {"anonymity": "proven", "similarity-zero": "proven", "translation-invariance": "proven"}
    assert prove(puf.as_measure(lambda effectiveness: 0.0), get_property("anonymity")) is None


def test_known_files_refuse_a_proof_on_a_cell_that_does_not_hold():
    data = load_known("puf")
    data["proofs"]["pigou-dalton"] = "for every m, by wishful thinking"
    with pytest.raises(ValueError, match="proof of 'pigou-dalton' on a cell whose verdict is 'violated'"):
        check_known(data)


def test_the_solver_is_asked_only_with_the_judge_that_confirms_its_counterexamples():
    with pytest.raises(ValueError, match="confirm is required with mode='smt'"):
        prove(puf.as_measure("puf"), get_property("pigou-dalton"), mode="smt")


def test_without_the_solver_smt_cells_say_the_extra_is_missing(monkeypatch):
    import puf.properties.proving.smt as smt

    monkeypatch.setattr(smt, "z3_module", lambda: None)
    proof = prove(puf.as_measure("puf"), get_property("pigou-dalton"), mode="smt", confirm=confirmed)
    assert proof.status == "unknown" and INSTALL in proof.argument
    (v,) = verdicts("puf", properties=["anonymity"], max_examples=5, proofs="smt")
    assert v.status == "proven"  # rules need no solver


@needs_z3
def test_an_smt_counterexample_is_exact_and_the_judge_confirms_it():
    proof = prove(puf.as_measure("puf"), get_property("pigou-dalton"), mode="smt", confirm=confirmed)
    assert proof.status == "violated" and proof.scope == "at m = 3, by SMT"
    case = example_case("pigou-dalton", proof.example, source="smt")
    before = puf.puf(case.before.effectiveness, case.before.similarity)
    after = puf.puf(case.after.effectiveness, case.after.similarity)
    assert after > before + 1e-9
    (v,) = verdicts("puf-as-printed", properties=["range"], max_examples=5, proofs="smt", known=False)
    assert v.status == "violated" and v.example["value_before"] > 1.0


@needs_z3
def test_the_recorded_smt_scopes_are_reproduced():
    for name in BUILTIN_FORMS:
        for prop, scope in load_known(name).get("proofs", {}).items():
            if scope.endswith("by SMT"):
                proof = prove(puf.as_measure(name), get_property(prop), mode="smt", confirm=confirmed, timeout=30.0)
                assert (proof.status, proof.scope) == ("proven", scope), (name, prop, proof)


@needs_z3
def test_violations_below_the_margin_are_not_a_proof():
    # x 1e-10: translating S changes the value by less than the judge's tolerance and the
    # solver's margin, but it changes it: the solver has found a violation, not proven none.
    tiny = grammar_measure(PairForm(gap="abs", aggregation="all-pairs", normalisation="mean", coefficient=1e-10))
    proof = prove(
        puf.as_measure(tiny), get_property("translation-invariance"), mode="smt", confirm=confirmed, max_users=2
    )
    assert proof.status == "unknown" and "only violations below 1e-06" in proof.argument, proof


@needs_z3
def test_logarithms_leave_the_search_verdict_standing_and_say_so():
    (v,) = verdicts(
        grammar_measure(IndexForm("ge", 1.0)), properties=["disparity-monotone"], max_examples=10, proofs="smt"
    )
    assert v.status == "violated" or "not encodable" in v.reason


@pytest.mark.parametrize("name", list(BUILTIN_FORMS))
def test_every_proven_cell_survives_the_search(name):
    cells = list(load_known(name).get("proofs", {}))
    assert cells, name
    found = verdicts(name, properties=cells, max_examples=PROOF_BUDGET, proofs="none", known=False)
    assert [(v.property, v.status) for v in found if v.status != "holds"] == []
    assert not any(math.isnan(v.n_examples) for v in found) and np.all([v.n_examples > 0 for v in found])


def _formal_preconditions(z3, s, w, p, after):
    """Each SMT property's formal preconditions (catalog ``formal``), users 0 and 1 the pair."""
    in_unit = [z3.And(x >= 0, x <= 1) for x in [*s, *w.values()]]
    wide = after if after is not None else s
    return {
        "range": in_unit,
        "zero-at-equality": in_unit + [x == s[0] for x in s],
        "similarity-zero": in_unit + [x == 0 for x in w.values()],
        "anonymity": in_unit,
        "pigou-dalton": in_unit + [p.get("tau", 0) > 0, 2 * p.get("tau", 0) <= 1],
        "disparity-monotone": in_unit
        + [z3.Or(*[p.get("c", 0) >= x for x in wide]), z3.Or(*[p.get("c", 0) <= x for x in wide])]
        + [z3.And(x >= 0, x <= 1) for x in wide]
        + [p.get("lam", 0) > 1],
        "similarity-monotone": in_unit
        + [s[0] != s[1], w[(0, 1)] < 1, p.get("raised", 0) > w[(0, 1)], p.get("raised", 0) <= 1],
        "scale-invariance": in_unit + [p.get("a", 0) >= Fraction(1, 1000), p.get("a", 0) <= Fraction(999, 1000)],
        "translation-invariance": in_unit + [z3.And(x + p.get("b", 0) >= 0, x + p.get("b", 0) <= 1) for x in s],
    }


@needs_z3
@pytest.mark.parametrize("m", [2, 3])
def test_every_smt_encoding_admits_only_populations_the_formal_statement_covers(m):
    # A sat model must satisfy the formal preconditions: the encoded domain (with the [0, 1]
    # bounds the query adds) and the negated preconditions together are unsat.
    from puf.properties.proving.smt import _SPECS, SMT_PROPERTIES

    z3 = z3_module()
    s = [z3.Real(f"S{i}") for i in range(m)]
    w = {(i, j): z3.Real(f"w{i}{j}") for i in range(m) for j in range(i + 1, m)}
    assert set(_formal_preconditions(z3, s, w, {}, None)) == set(SMT_PROPERTIES)
    for prop in SMT_PROPERTIES:
        params, domain, transforms, kind = _SPECS[prop]
        for transform in transforms or (None,):
            p = {name: z3.Real(name) for name in params}
            solver = z3.Solver()
            solver.add(*[z3.And(x >= 0, x <= 1) for x in [*s, *w.values()]])
            solver.add(*(domain(z3, p, s, w) if domain else []))
            if kind == "not-fairest-equal":
                solver.add(*[x == s[0] for x in s[1:]])
            if kind == "not-fairest-no-similarity":
                solver.add(*[x == 0 for x in w.values()])
            after = None
            if transform is not None:
                after, w2 = transform(s, w, p)
                solver.add(*[z3.And(x >= 0, x <= 1) for x in [*after, *w2.values()]])
            solver.add(z3.Not(z3.And(*_formal_preconditions(z3, s, w, p, after)[prop])))
            assert solver.check() == z3.unsat, (prop, solver.model())
