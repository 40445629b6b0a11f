"""The pair measures' axioms, as catalog entries: a stranger's outcome does not count, identical
users treated alike are the fairest, similarity raises the value strictly, and strangers copied
leave it unchanged.

Each entry is the keyword arguments of one :class:`~puf.properties.catalog.Property` (the
catalog builds them), with its judge; the composition rules that prove two of them for a
grammar form are in :mod:`.pair_rules`. Their formal statements say exactly
what the search tests: the ranges its steps are drawn from and the tolerances of its judges.
"""

from __future__ import annotations

__all__ = [
    "PAIR_ENTRIES",
    "treated_alike",
    "explain_treated_alike",
]

import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from puf.metadata import Measure
from puf.population import FIELDS

from . import judges
from .property import SCORE_ONLY
from ..cases.case import Case
from .pair_rules import dissimilar_independence_rule, dissimilar_replication_rule
from ..cases.pair_cases import (
    MIN_PAIR_GAP,
    MIN_RAISE,
    bounded_raise_cases,
    bounded_raise_examples,
    cluster_cases,
    cluster_examples,
    cluster_labels,
    dissimilar_copy_cases,
    dissimilar_copy_examples,
    isolated_user_cases,
    isolated_user_examples,
)

_PUF_PAPER = "Rampisela et al. (ECIR 2026), the PUF paper"
_GAP_SLACK = 1e-12  # a gap of MIN_PAIR_GAP built in floating point may land a rounding below it


def _split_user(case: Case) -> int | None:
    """The one user ``case.after`` moves at least MIN_PAIR_GAP away from its cluster of
    identical users (``case.before``: clusters at equal effectiveness); None when the case is
    not of that shape."""
    before, after = case.before, case.after
    labels = cluster_labels(before.similarity)
    if after is None or labels is None or after.m != before.m:
        return None
    s, t = before.effectiveness, after.effectiveness
    first = s[labels]  # each user's cluster value, read at the cluster's lowest user
    if not (np.array_equal(after.similarity, before.similarity) and np.array_equal(s, first)):
        return None
    moved = np.flatnonzero(t != s)
    if len(moved) != 1 or np.count_nonzero(labels == labels[moved[0]]) < 2:
        return None
    user = int(moved[0])
    return user if abs(t[user] - s[user]) >= MIN_PAIR_GAP - _GAP_SLACK else None


def treated_alike(measure: Measure, before: float, after: float, case: Case) -> float:
    """Clusters of identical users at equal effectiveness must be at the fairest end (to the
    tolerance), and one of them moved :data:`~.pair_cases.MIN_PAIR_GAP` or more away must be
    farther from it than the float resolution (:func:`~.judges.strict_excess`); NaN when the case
    is not of that shape, or when the clusters are at the fairest end and the move's distance
    from it is within a coarse float's rounding.

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> pair = Population([0.5, 0.5], [[1, 1], [1, 1]])
    >>> split = Case(pair, pair.replace(effectiveness=[0.5, 0.6]))
    >>> treated_alike(as_measure("puf"), 0.0, 0.1, split) < 0 < treated_alike(as_measure("puf"), 0.0, 0.0, split)
    True
    >>> math.isnan(treated_alike(as_measure("puf"), 0.0, 0.0, Case(pair, pair)))
    True
    """
    if _split_user(case) is None:
        return math.nan
    fairest = measure.fairest
    alike = judges.at_fairest(measure, before, None, case)
    if not math.isfinite(fairest):
        return alike
    apart = judges.unfairness(measure, after) - judges.unfairness(measure, fairest)
    strict = judges.strict_excess(case.before.m, apart, after, fairest)
    if math.isnan(strict):  # told apart within a coarse float's rounding: only the alike half can fail
        return alike if alike > 0 else math.nan
    return max(alike, strict)


def explain_treated_alike(example: Mapping[str, Any]) -> str:
    """The reason of a ``similar-treated-alike`` violation: the values of both halves.

    Examples
    --------
    >>> explain_treated_alike({"value_before": 0.25, "value_after": 0.5})
    'clusters of identical users at equal effectiveness: value 0.25; one identical pair told apart: 0.5'
    >>> explain_treated_alike({"value_before": 0.0, "value_after": 0.0})
    'clusters of identical users at equal effectiveness: value 0; one identical pair told apart: 0 (unchanged)'
    """
    before, after = judges.shown_pair(example["value_before"], example["value_after"])
    same = " (unchanged)" if example["value_before"] == example["value_after"] else ""
    return (
        f"clusters of identical users at equal effectiveness: value {before}; one identical pair "
        f"told apart: {after}{same}"
    )


#: The keyword arguments of the catalog's pair axioms, one dict each (``Property(**entry)``).
PAIR_ENTRIES: tuple[dict[str, Any], ...] = (
    dict(
        name="dissimilar-independence",
        statement="changing the effectiveness of a user similar to no one leaves the value unchanged",
        formal="∀ P, user u with sim(u, v) = 0 for every v ≠ u, x ∈ [0, 1]: f(P[S(u) := x]) ≐ f(P); "
        "world level: one user's history cut to the items no other user holds (its Jaccard "
        "with everyone 0), then one of its relevance grades (an item on its own list or on "
        "another's) set to 0 or raised by 1",
        source="Sen (1976), the focus axiom (a poverty measure does not depend on the incomes of "
        "the non-poor), in the reading of Dwork et al. (2012): individual fairness constrains "
        "only similar individuals, so a user similar to no one is outside its focus",
        kind="universal",
        meant_for="similarity-aware individual fairness measures",
        needs=("effectiveness", "utility"),
        uses=("similarity",),  # the premise sim(u, v) = 0: shown even to a measure not reading it
        world="one user's history cut to its private items, then one of its relevance grades changed",
        cases=isolated_user_cases,
        explicit=isolated_user_examples,
        judge=judges.unchanged,
        proof_rule=dissimilar_independence_rule,
    ),
    dict(
        name="similar-treated-alike",
        statement="when users form clusters of identical users (similarity 1 inside, 0 across) "
        "with equal effectiveness inside each cluster the value is the fairest, and one pair "
        "of identical users with different effectiveness makes it not the fairest",
        formal="∀ P with m < 300 whose similarity is 1 inside clusters and 0 across them (1 to "
        f"m − 1 clusters), S constant on each cluster, and P' = P with one user of a cluster of "
        f"two or more moved g ≥ {MIN_PAIR_GAP:g} (the minimum gap): f(P) ≐ fairest end of the "
        "declared range and f(P') farther than r from it (less fair); m is bounded because a "
        "mean over m(m − 1)/2 pairs of one term g falls below r near m = 4.5·10⁴; score level "
        "only: measures read at world level (utility, list distance) are not applicable",
        source=_PUF_PAPER + ": individual fairness as similar users treated alike (similar "
        "users, similar effectiveness); Dwork et al. (2012) at distance 0",
        kind="universal",
        meant_for="similarity-aware individual fairness measures",
        needs=("effectiveness", "similarity"),
        world=SCORE_ONLY,
        cases=cluster_cases,
        explicit=cluster_examples,
        judge=treated_alike,
        explain=explain_treated_alike,
    ),
    dict(
        name="strict-similarity-monotone",
        statement="at fixed effectiveness, raising the similarity of a pair with a non-zero gap "
        "strictly raises the value (less fair)",
        formal=f"∀ P with m < 300, u ≠ v with |S(u) − S(v)| ≥ {MIN_PAIR_GAP:g} and sim(u, v) ≤ "
        f"{1 - MIN_RAISE:g}, s' ∈ [sim(u, v) + {MIN_RAISE:g}, 1] (the minimum gap and raise): "
        "f(P[sim(u,v) = sim(v,u) := s']) less fair than f(P) by more than r (the float "
        "resolution; lower fairer); m is bounded because a mean over m(m − 1)/2 pairs of "
        "one rise of 10⁻⁴ falls below r near m = 10⁴; the strict form of "
        "`similarity-monotone` on these gaps and raises; world level (m < 200): the derived "
        "similarity of one pair raised alone",
        source=_PUF_PAPER + ": the similarity sensitivity PUF is built for (the similarity "
        "weight of each pair's gap); `similarity-monotone` is the weak form",
        kind="universal",
        meant_for="similarity-aware individual fairness measures",
        needs=("similarity",),
        world="the derived similarity of one pair raised alone (histories feed nothing else)",
        cases=bounded_raise_cases,
        explicit=bounded_raise_examples,
        judge=functools.partial(judges.strictly_fairer, towards="less fair"),
        explain=functools.partial(judges.explain_strict, step="the raise", towards="less fair"),
        uses=("effectiveness",),  # the premise |S(u) − S(v)| ≥ 0.01: shown even to a measure not reading S
    ),
    dict(
        name="dissimilar-replication",
        statement="copying the population with similarity 0 across the copies leaves the value "
        "unchanged (unlike `replication-invariance`, where a user and its copies are alike)",
        formal="∀ P, r ∈ {2, 3}: f(P ⊕ r) ≐ f(P), P ⊕ r = r copies of every user with the "
        "similarity block diagonal: P's inside each copy, 0 across copies, a user and its "
        "copies included (`replication-invariance` tiles it: a user and its copies at 1); "
        "world level: each copy with its own copy of the items (no history, relevant item or "
        "list shared across copies)",
        source="Dalton (1920), the population principle, for pair measures: r disjoint copies "
        "of a population hold r times its pairs of interest (Dwork et al. 2012 constrain no "
        "pair across them)",
        kind="universal",
        meant_for="similarity-aware individual fairness measures compared across population sizes",
        needs=FIELDS,
        world="each copy with its own items",
        cases=dissimilar_copy_cases,
        explicit=dissimilar_copy_examples,
        judge=judges.unchanged,
        proof_rule=dissimilar_replication_rule,
    ),
)
