"""The properties every measure should have whoever its users are, as catalog entries.

Each entry is the keyword arguments of one :class:`~puf.properties.catalog.property.Property`
with its composition rule, where one proves it for a grammar measure: the value lies in the
declared range and is defined, relabelling or replicating the users leaves it unchanged, and
the same population gets the same value again.
"""

from __future__ import annotations

__all__ = ["USER_ENTRIES"]

from typing import Any

from puf.grammar import AGGREGATIONS, IndexForm, PairForm
from puf.metadata import Measure
from puf.population import FIELDS

from . import judges
from .property import INEQUALITY_AXIOMS
from ..proving.proof_rules import composition_rule
from ..cases.user_cases import (
    anonymity_cases,
    anonymity_examples,
    relabelled_remade,
    extreme_examples,
    range_examples,
    repeat_cases,
    repeat_remade,
    replication_cases,
    single_cases,
)


@composition_rule("bounds of the blocks")
def _in_range(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "bounds of the blocks" of ``range``: its premises, read off the form's blocks.

    Notes
    -----
    Weights and gaps lie in [0, 1], so any mean, weighted mean or
    max of their products does; the coefficient scales and the root keeps [0, 1]. The rule proves
    the cell when that interval lies within the declared range. Index forms: Jensen's (or the
    power-mean) inequality gives ≥ 0, and the form's own bound above.
    """
    low, high = form.bounds()
    if not (measure.range[0] <= low and high <= measure.range[1]):
        return None
    if isinstance(form, IndexForm):
        return (
            f"bounds of the form: Jensen's (or the power-mean) inequality puts the value in "
            f"[{low:g}, {high:g}], within the declared range"
        )
    return (
        f"bounds of the blocks: weights and gaps lie in [0, 1], so the value lies in "
        f"[{low:g}, {high:g}], within the declared range"
    )


@composition_rule("no division")
def _defined(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "no division" of ``defined``: its premises, read off the form's blocks.

    Notes
    -----
    A pair form without normalisation has no division, logarithm or
    negative power: a finite expression of finite inputs.
    """
    if isinstance(form, PairForm) and form.normalisation == "none":
        return "no division, logarithm or negative power: a finite expression of finite inputs (m ≥ 2)"
    return None


@composition_rule("symmetric aggregation")
def _anonymity(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "symmetric aggregation" of ``anonymity``: its premises, read off the form's blocks.

    Notes
    -----
    Every aggregation is a sum, mean or max over all users
    or all unordered pairs, and each term depends on its pair symmetrically (|ΔS|, ΔS² and
    sim(u, v) are symmetric; μ is a symmetric mean). A permutation of users permutes the terms
    and leaves the aggregate.
    """
    return (
        "symmetric aggregation: a sum, mean or max over all users or all unordered pairs of terms "
        "symmetric in their pair, so relabelling users permutes the terms"
    )


@composition_rule("replication-invariant aggregation")
def _replication_invariance(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "replication-invariant aggregation" of ``replication-invariance``: its premises, read off the form's blocks.

    Notes
    -----
    r copies of every user (a
    user and its copies at similarity 1): pairs of copies have gap 0; under `all-pairs` the other
    terms repeat r² times over (rm)² places; `max` and `user-max` are unchanged (the added terms
    are 0); μ is unchanged. An index form is a mean over users of a term of S/μ. `pairs` fails
    (its denominator m(m − 1) grows faster than the sum).
    """
    if isinstance(form, IndexForm):
        return "a mean over users of a term of S/μ: r copies repeat every term r times and keep μ"
    if not AGGREGATIONS[form.aggregation].facts["replication_invariant"] or form.normalisation == "weights":
        return None
    return (
        f"replication-invariant aggregation ({form.aggregation}): a user and its copies form pairs "
        "of gap 0, the other pairs repeat r² times over (rm)² places (or the max is unchanged), "
        "and μ is unchanged"
    )


#: The keyword arguments of the catalog's user properties, one dict each (``Property(**entry)``).
USER_ENTRIES: tuple[dict[str, Any], ...] = (
    dict(
        name="range",
        statement="the value lies in the declared range",
        formal="∀ P with f(P) defined: low − r ≤ f(P) ≤ high + r for the declared range (low, high)",
        source="the measure's own declaration",
        kind="universal",
        meant_for="every measure",
        needs=(),
        world="any world",
        cases=single_cases,
        explicit=range_examples,
        judge=judges.in_range,
        explain=judges.explain_out_of_range,
        single_population=True,
        proof_rule=_in_range,
    ),
    dict(
        name="defined",
        statement="the value is finite on every valid population (no NaN, no inf, no exception)",
        formal="∀ P: f(P) returns a finite real number (no NaN, no ±inf, no exception)",
        source="well-definedness",
        kind="universal",
        meant_for="every measure",
        needs=(),
        world="any world",
        cases=single_cases,
        explicit=extreme_examples,
        judge=judges.finite,
        explain=judges.explain_undefined,
        single_population=True,
        judges_undefined=True,
        proof_rule=_defined,
    ),
    dict(
        name="anonymity",
        statement="relabelling users leaves the value unchanged",
        formal="∀ P, permutation π of the users: f(π·P) ≐ f(P), π acting on every per-user "
        "field consistently (rows and columns of the matrices)",
        source=INEQUALITY_AXIOMS + ": symmetry / anonymity",
        kind="universal",
        meant_for="every measure",
        needs=FIELDS,
        world="permute users (histories, relevance and lists together)",
        cases=anonymity_cases,
        explicit=anonymity_examples,
        judge=judges.unchanged,
        remake=relabelled_remade,
        proof_rule=_anonymity,
    ),
    dict(
        name="replication-invariance",
        statement="replicating the population r times leaves the value unchanged",
        formal="∀ P, r ∈ {2, 3}: f(P ⊗ r) ≐ f(P) (every user copied r times; a user and its copies have similarity 1)",
        source=INEQUALITY_AXIOMS + ": Dalton's population principle",
        kind="universal",
        meant_for="measures compared across population sizes",
        needs=FIELDS,
        world="every user copied r times (a copy's Jaccard similarity with its user is 1, or 0 where "
        "the history is empty: a user with no history is similar to no one, itself included)",
        cases=replication_cases,
        judge=judges.unchanged,
        proof_rule=_replication_invariance,
    ),
    dict(
        name="deterministic",
        statement="the same population gets the same value, asked again or after other populations",
        formal="∀ P, Q: f(P) as the first call of a fresh process ≐ "
        "f(P) asked in a second fresh worker right after f(Q), for Q = P with its extremes "
        "moved a quarter of their gap towards each other (same m and mean; world level: "
        "P relabelled), P relabelled, a population drawn anew and (score level) P's "
        "users at 0 and 1 in turn (registered built-in measures: both in-process)",
        source="reproducibility: a measure is a function of the population alone",
        kind="universal",
        meant_for="every measure",
        needs=(),
        world="the same derived population asked again after other worlds' populations",
        cases=repeat_cases,
        remake=repeat_remade,
        judge=judges.unchanged,
        fresh_workers=True,
    ),
)
