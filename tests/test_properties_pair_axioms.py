"""The pair measures' axioms: their judges on hand-made cases, their strategies' arguments and
shapes, their composition rules, their planted flaws and every built-in's pinned column."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from puf import Population, World, as_measure, measure
from puf.grammar import PairForm, builtin_form, grammar_measure
from puf.properties import CATALOG, get_property, verdicts
from puf.properties.cases.case import Case, derive
from puf.properties.knowledge.corpus import get_entry
from puf.properties.knowledge.known import load_known
from puf.properties.catalog.judges import resolution
from puf.properties.catalog.judges import strictly_fairer
from puf.properties.catalog.pair_axioms import treated_alike
from puf.properties.catalog.pair_rules import dissimilar_independence_rule, dissimilar_replication_rule
from puf.properties.cases.pair_cases import (
    MIN_PAIR_GAP,
    bounded_raise_cases,
    cluster_cases,
    cluster_labels,
    disjoint_copies,
    dissimilar_copy_cases,
    isolated_user_cases,
    stranger,
)
from puf.properties.proving.proofs import rule_argument

PAIR_AXIOMS = [
    "dissimilar-independence",
    "similar-treated-alike",
    "strict-similarity-monotone",
    "dissimilar-replication",
]

#: The true verdict of every built-in on the four axioms, argued in each known file's reasons:
#: indices that ignore similarity fail the first three, measures normalised by every pair fail
#: the last.
PINNED = {
    "puf": ("holds", "holds", "holds", "violated"),
    "puf-as-printed": ("holds", "holds", "holds", "violated"),
    "sd": ("violated", "violated", "violated", "holds"),
    "gini": ("violated", "violated", "violated", "holds"),
    "me": ("violated", "not-applicable", "violated", "violated"),
    "me-as-printed": ("violated", "not-applicable", "violated", "violated"),
    "mme": ("violated", "not-applicable", "violated", "holds"),
    "peu": ("violated", "not-applicable", "violated", "holds"),
    "uf": ("holds", "not-applicable", "violated", "violated"),
    **{
        name: ("violated", "violated", "violated", "holds")
        for name in ("ge-0", "ge-1", "ge-2", "atkinson-0.5", "atkinson-1", "atkinson-2")
        + ("cv", "jain", "hoover", "variance", "max-min")
    },
    "mean-difference": ("violated", "violated", "violated", "violated"),
    "inconsistency": ("violated", "violated", "violated", "violated"),
    "lipschitz-violation": ("holds", "holds", "violated", "violated"),
    "lipschitz-excess": ("holds", "holds", "violated", "violated"),
}


def _split_pair(after):
    pair = Population([0.5, 0.5, 0.2], [[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    return Case(pair, pair.replace(effectiveness=[after, 0.5, 0.2]))


def test_the_four_axioms_are_in_the_catalog_with_a_statement_and_a_source():
    for name in PAIR_AXIOMS:
        prop = CATALOG[name]
        assert prop.source and prop.formal and prop.statement and prop.kind == "universal"
    assert "replication-invariance" in CATALOG["dissimilar-replication"].statement
    assert "0.01" in CATALOG["strict-similarity-monotone"].formal
    assert "similarity-monotone" in CATALOG["strict-similarity-monotone"].formal
    assert "0.01" in CATALOG["similar-treated-alike"].formal


@pytest.mark.parametrize("name", sorted(PINNED))
def test_every_built_in_has_its_pinned_column(name):
    known = load_known(name)
    assert tuple(known["verdicts"][p] for p in PAIR_AXIOMS) == PINNED[name]
    for prop, status in zip(PAIR_AXIOMS, PINNED[name]):
        assert "no counterexample in" not in known["reasons"].get(prop, "")  # (a derived reason is not stored)
        assert (prop in known["examples"]) == (status == "violated")


@pytest.mark.parametrize("name", ["puf", "sd", "lipschitz-excess", "mean-difference"])
def test_a_short_search_reproduces_the_pinned_column(name):
    found = {v.property: v.status for v in verdicts(name, properties=PAIR_AXIOMS, max_examples=10)}
    expected = dict(zip(PAIR_AXIOMS, PINNED[name]))
    assert {p: "holds" if s == "proven" else s for p, s in found.items()} == expected


def test_a_stranger_moved_leaves_puf_and_moves_sd():
    before = Population([0.2, 0.6, 0.9], [[1, 0.5, 0], [0.5, 1, 0], [0, 0, 1]])
    after = before.replace(effectiveness=[0.2, 0.6, 0.1])
    judge = CATALOG["dissimilar-independence"].judge
    case = Case(before, after)
    for name, holds in (("puf", True), ("lipschitz-violation", True), ("sd", False), ("gini", False)):
        m = as_measure(name)
        assert (judge(m, m(**before.fields()), m(**after.fields()), case) <= 0) == holds, name


def test_treated_alike_judges_both_halves_and_sets_other_shapes_aside():
    puf, sd = as_measure("puf"), as_measure("sd")
    case = _split_pair(0.6)
    assert treated_alike(puf, 0.0, 0.02, case) < 0  # fairest, then less fair
    assert treated_alike(puf, 0.0, 0.0, case) > 0  # the split pair not seen
    assert treated_alike(sd, 0.14, 0.16, case) > 0  # clusters at 0.5 and 0.2 already unequal
    assert math.isnan(treated_alike(puf, 0.0, 0.02, _split_pair(0.505)))  # below the minimum gap
    not_clusters = Case(Population([0.5, 0.5], [[1, 0.5], [0.5, 1]]), Population([0.6, 0.5], [[1, 0.5], [0.5, 1]]))
    assert math.isnan(treated_alike(puf, 0.0, 0.02, not_clusters))


def test_treated_alike_applies_the_resolution_rule_to_the_split_pair():
    puf, case = as_measure("puf"), _split_pair(0.6)
    r = resolution(3, 1e-17, 0.0)
    assert treated_alike(puf, 0.0, 2 * r, case) < 0 < treated_alike(puf, 0.0, r / 2, case)


def test_strictly_less_fair_judgment_needs_a_rise_above_the_resolution():
    puf = as_measure("puf")
    case = Case(Population([0.0, 1.0], np.eye(2)))
    r = resolution(2, 0.5)
    assert strictly_fairer(puf, 0.5, 0.5 + 2 * r, case, towards="less fair") < 0
    assert strictly_fairer(puf, 0.5, 0.5 + r / 2, case, towards="less fair") > 0
    assert strictly_fairer(puf, 0.5, 0.4, case, towards="less fair") > 0
    higher = as_measure(
        measure(lambda effectiveness: 1.0 - float(np.std(effectiveness)), name="evenness", direction="higher")
    )
    assert strictly_fairer(higher, 0.5, 0.4, case, towards="less fair") < 0


def test_cluster_labels_reads_only_zero_one_blocks():
    assert cluster_labels(np.kron(np.eye(2), np.ones((2, 2)))).tolist() == [0, 0, 2, 2]
    chained = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]])  # 0 ~ 1 ~ 2 but not 0 ~ 2
    assert cluster_labels(chained) is None


def test_disjoint_copies_share_no_item_across_copies():
    world = World(np.array([[1, 1, 0], [0, 1, 1]]), np.array([[0, 0, 1], [1, 0, 0]]), [[2, 0], [0, -1]], np.eye(3))
    copied = disjoint_copies(world, 3)
    pop, big = derive(world), derive(copied)
    np.testing.assert_array_equal(big.similarity, np.kron(np.eye(3), pop.similarity))
    np.testing.assert_array_equal(big.effectiveness, np.tile(pop.effectiveness, 3))
    assert copied.rankings[2:4].tolist() == [[5, 3], [3, -1]]


def test_a_stranger_keeps_only_its_private_items_and_the_others_theirs():
    world = World(np.array([[1, 1, 0], [0, 1, 1], [0, 0, 1]]), np.eye(3), [[0], [1], [2]], np.eye(3))
    cut = stranger(world, 1)
    assert cut.histories.toarray().tolist() == [[1, 1, 0], [0, 0, 0], [0, 0, 1]]
    assert np.all(np.delete(derive(cut).similarity[1], 1) == 0)


@pytest.mark.parametrize("strategy", [isolated_user_cases, cluster_cases, bounded_raise_cases, dissimilar_copy_cases])
def test_the_strategies_check_their_arguments(strategy):
    with pytest.raises(ValueError, match="level must be one of"):
        strategy("interaction", "puf")
    with pytest.raises(ValueError, match="nope"):
        strategy("score", "nope")


@settings(max_examples=30, deadline=None)
@given(isolated_user_cases("world", "me"))
def test_a_world_stranger_changes_only_its_own_relevance(case):
    if case.trivial:
        return
    moved = np.flatnonzero((case.before.utility != case.after.utility).any(axis=1))
    assert len(moved) <= 1  # a grade below the user's top k may move nothing
    for u in moved:
        assert np.all(np.delete(case.before.similarity[u], u) == 0)
    np.testing.assert_array_equal(case.before.similarity, case.after.similarity)


def test_clusters_are_not_drawn_at_world_level():
    @settings(max_examples=5, deadline=None)
    @given(cluster_cases("world", "me"))
    def check(case):
        assert case.trivial

    check()


@settings(max_examples=30, deadline=None)
@given(cluster_cases("score", "puf"))
def test_a_cluster_case_moves_one_user_of_a_shared_cluster_by_the_minimum_gap_or_more(case):
    for option in (case, *case.alternatives):
        moved = np.flatnonzero(option.after.effectiveness != option.before.effectiveness)
        labels = cluster_labels(option.before.similarity)
        assert len(moved) == 1 and np.count_nonzero(labels == labels[moved[0]]) >= 2
        gap = abs(option.after.effectiveness[moved[0]] - option.before.effectiveness[moved[0]])
        assert gap >= MIN_PAIR_GAP - 1e-12


@pytest.mark.parametrize(
    "name",
    [
        "puf-with-a-floor-weight",
        "puf-per-mean",
        "puf-over-every-place",
        "puf-over-similar-pairs-corrected",
        "puf-above-a-threshold",
        "puf-on-a-similarity-grid",
        "puf-without-identical-pairs",
    ],
)
def test_each_planted_flaw_is_found(name):
    entry = get_entry(name)
    found = {
        v.property: v.status for v in verdicts(entry["measure"], properties=list(entry["expected"]), max_examples=20)
    }
    assert found == entry["expected"]


def test_the_rules_prove_strangers_ignored_and_copies_kept_only_where_they_hold():
    proven = {
        (name, prop)
        for name in ("puf", "lipschitz-excess", "sd", "gini", "ge-1", "mean-difference")
        for prop in ("dissimilar-independence", "dissimilar-replication")
        if rule_argument(as_measure(name), builtin_form(as_measure(name)), get_property(prop)) is not None
    }
    assert proven == {
        ("puf", "dissimilar-independence"),
        ("lipschitz-excess", "dissimilar-independence"),
        ("sd", "dissimilar-replication"),
        ("gini", "dissimilar-replication"),
        ("ge-1", "dissimilar-replication"),
    }


@pytest.mark.parametrize(
    "form,independent,copies",
    [
        (PairForm(weight="sim", gap="abs", aggregation="max"), True, True),
        (PairForm(weight="sim", gap="abs", normalisation="weights"), True, True),
        (PairForm(weight="sim", gap="abs", aggregation="all-pairs", normalisation="mean"), False, False),
        (PairForm(weight="sim>=t", gap="abs", threshold=0.0), False, False),
        (PairForm(gap="excess", lipschitz=0.5), False, False),
    ],
)
def test_the_rules_read_the_blocks(form, independent, copies):
    measure = as_measure(grammar_measure(form))
    assert (dissimilar_independence_rule(measure, form) is not None) == independent
    assert (dissimilar_replication_rule(measure, form) is not None) == copies
    if independent or copies:  # what a rule proves, the search does not contradict
        props = [
            p for p, proven in (("dissimilar-independence", independent), ("dissimilar-replication", copies)) if proven
        ]
        results = verdicts(measure, properties=props, max_examples=15, proofs="none")
        assert {v.status for v in results} == {"holds"}


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 3), st.lists(st.floats(0, 1), min_size=2, max_size=6))
def test_puf_shrinks_on_copies_by_the_ratio_its_reason_states(r, values):
    s = np.array(values)
    sim = np.ones((len(s), len(s)))
    puf = as_measure("puf")
    m = len(s)
    copied = puf(effectiveness=np.tile(s, r), similarity=np.kron(np.eye(r), sim))
    assert copied == pytest.approx(puf(effectiveness=s, similarity=sim) * (m - 1) / (r * m - 1), abs=1e-12)


def test_the_strict_judgment_names_its_direction():
    with pytest.raises(ValueError, match="towards must be 'fairer' or 'less fair', got 'up'"):
        strictly_fairer(as_measure("puf"), 0.5, 0.4, None, towards="up")
