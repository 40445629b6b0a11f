"""The properties of how a measure reads the users' outcomes (effectiveness), as catalog entries.

Each entry is the keyword arguments of one :class:`~puf.properties.catalog.property.Property`
with its composition rule, where one proves it for a grammar measure: equal outcomes are the
fairest, widening every gap is not fairer, a transfer between two users is not less fair, and
some change of relevance alone moves the value.
"""

from __future__ import annotations

__all__ = ["OUTCOME_ENTRIES"]

from typing import Any

import numpy as np

from puf.grammar import GAPS, IndexForm, PairForm
from puf.metadata import Measure

from . import judges
from .property import INEQUALITY_AXIOMS, OUTCOME_FIELDS, PUF_CLAIMS
from ..proving.proof_rules import composition_rule, fairest_is_zero
from ..cases.case import TRANSFER_WORLD, transfer_worlds
from ..cases.outcome_cases import (
    disparity_cases,
    effectiveness_change_cases,
    effectiveness_change_grid,
    progressive_transfer_cases,
    zero_at_equality_cases,
)


@composition_rule("gap zero at equal effectiveness")
def _zero_at_equality(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "gap zero at equal effectiveness" of ``zero-at-equality``: its premises, read off the form's blocks.

    Notes
    -----
    Every gap is 0 when S(u) = S(v)
    (excess: max(0, −L(1 − sim)) = 0; violation: 0 > L(1 − sim) is false), so every term is 0, the
    aggregate is 0 and so is its normalised, scaled or rooted value. For an index form S/μ = 1 for
    every user and outer(term(1)) = 0 (checked numerically for the form). The measure's fairest
    value must be 0.
    """
    if not fairest_is_zero(measure):
        return None
    if isinstance(form, PairForm):
        return (
            "gap zero at equal effectiveness: every term w·g(S, S) is 0, so the aggregate is 0 "
            "and so is its normalised, scaled or rooted value (where defined)"
        )
    at_one = form.outer.numeric(float(np.mean(form.term.numeric(np.ones(1), form.parameter))), form.parameter)
    if at_one != 0.0:
        return None
    return "equal effectiveness gives S/μ = 1 for every user, and outer(term(1)) = 0"


@composition_rule("monotone in every gap")
def _disparity_monotone(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "monotone in every gap" of ``disparity-monotone``: its premises, read off the form's blocks.

    Notes
    -----
    S' = c + λ(S − c) multiplies every |ΔS| by
    λ > 1 and leaves the similarities; every gap is nondecreasing in |ΔS|, so no term decreases,
    and neither does a sum, mean, max or weighted mean of them. Not with the `mean` normalisation
    (μ moves).
    """
    if not isinstance(form, PairForm) or form.normalisation == "mean" or measure.direction != "lower":
        return None
    return (
        "monotone in every gap: S' = c + λ(S − c) multiplies every |ΔS| by λ > 1 and leaves the "
        "similarities, so every term (nondecreasing in |ΔS|) and the aggregate do not decrease"
    )


@composition_rule("Schur–Ostrowski")
def _pigou_dalton(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """Schur–Ostrowski: a symmetric convex function of S is Schur-convex, so transfers lower it.

    Notes
    -----
    A symmetric function f is Schur-convex iff
    (S_i − S_j)(∂f/∂S_i − ∂f/∂S_j) ≥ 0, and a Schur-convex function does not increase under a
    transfer S'_i = S_i + τ(S_j − S_i), S'_j = S_j − τ(S_j − S_i), 0 < τ ≤ ½ (the transfer makes S'
    majorised by S). A symmetric convex function is Schur-convex. With weight 1 and a convex even
    gap (|ΔS|, ΔS²), the pair aggregate is a symmetric convex function of S; a transfer keeps μ;
    the coefficient and the root are increasing. For an index form, (1/m) Σ term(S/μ) with a
    convex term is Schur-convex at fixed μ (term' nondecreasing gives the condition), and the
    outer is increasing; for Atkinson a concave term (ε < 1, or ln at ε = 1) sits under a
    decreasing outer, a convex one (ε > 1) under an increasing one. A weight that reads
    similarity breaks the symmetry in S, and the rule does not apply (PUF violates the property).
    """
    if measure.direction != "lower":
        return None
    if isinstance(form, PairForm):
        if form.weight != "1" or not GAPS[form.gap].facts["convex_even"] or form.normalisation == "weights":
            return None
        return (
            "Schur–Ostrowski: with weight 1 and a convex even gap the aggregate is a symmetric "
            "convex function of S, so Schur-convex ((S_i − S_j)(∂_i − ∂_j) ≥ 0); a transfer keeps "
            "μ, and the coefficient and root are increasing"
        )
    return (
        "Schur–Ostrowski: (1/m) Σ term(S/μ) with a convex term is Schur-convex at fixed μ (a "
        "transfer keeps μ), and the outer transform is increasing (for Atkinson a concave term "
        "under a decreasing outer, or a convex one under an increasing outer)"
    )


#: The keyword arguments of the catalog's outcome properties, one dict each (``Property(**entry)``).
OUTCOME_ENTRIES: tuple[dict[str, Any], ...] = (
    dict(
        name="zero-at-equality",
        statement="equal effectiveness for all users gives the fairest value",
        formal="∀ P with S(u) = c for every user u, c ∈ [0, 1], every other field free: f(P) ≐ "
        "fairest end of the declared range (world level: every user's P@k equal, the "
        "relevance of items outside a user's own list free, so users may envy each other)",
        source=INEQUALITY_AXIOMS + ": normalisation",
        kind="universal",
        meant_for="every measure",
        needs=OUTCOME_FIELDS,
        world="every list holding the same number of relevant items, items on other users' "
        "lists relevant as drawn (envy at equal P@k); or relevance = each user's own list "
        "(S = 1, no envy); or nothing relevant (S = 0)",
        cases=zero_at_equality_cases,
        judge=judges.at_fairest,
        single_population=True,
        proof_rule=_zero_at_equality,
    ),
    dict(
        name="disparity-monotone",
        statement="widening every effectiveness gap about a centre inside the population's "
        "range never makes the value fairer",
        formal="∀ P', c ∈ [min S', max S'], μ ∈ [0, 1): P = P'[S := c + μ(S' − c)] ⇒ f(P') is "
        "not fairer than f(P) (f(P') ≥ f(P) − tol, lower fairer; λ = 1/μ > 1 is the "
        "widening); world level: P' = P with a best-off user's S raised by 1/k or a "
        "worst-off user's lowered by 1/k",
        source=PUF_CLAIMS + "; disparity sensitivity",
        kind="universal",
        meant_for="measures of effectiveness disparity",
        needs=("effectiveness",),
        world="best-off user's list made more relevant, or worst-off user's less "
        "(every gap to that user widens by 1/k, no gap narrows)",
        cases=disparity_cases,
        judge=judges.not_fairer,
        proof_rule=_disparity_monotone,
        entrywise=True,
    ),
    dict(
        name="pigou-dalton",
        statement="a transfer moving two users' effectiveness towards each other never makes the value less fair",
        formal="∀ P, users i ≠ j, τ ∈ (0, ½]: P' = P with S'_i = S_i + τ(S_j − S_i), "
        "S'_j = S_j − τ(S_j − S_i), everything else fixed ⇒ f(P') is not less fair than "
        "f(P) (f(P') ≤ f(P) + tol, lower fairer); world level: the worst-off user gains "
        "one relevant listed item and the best-off loses one, their gap ≥ 2/k (τ = "
        "1/(k·gap)); " + TRANSFER_WORLD,
        source=INEQUALITY_AXIOMS + ": Pigou–Dalton transfer principle",
        kind="universal",
        meant_for="inequality indices",
        needs=("effectiveness",),
        world="worst-off user gains one relevant listed item, best-off user loses one",
        cases=progressive_transfer_cases,
        explicit=transfer_worlds,
        judge=judges.not_less_fair,
        proof_rule=_pigou_dalton,
    ),
    dict(
        name="effectiveness-sensitive",
        statement="some change of relevance alone (lists and histories fixed) changes the value",
        formal="∃ world, relevance' (lists and histories fixed): f(P(world[relevance := "
        "relevance'])) ≠ f(P(world)) by more than tol (score level: ∃ P, S': "
        "f(P[S := S']) ≠ f(P))",
        source=PUF_CLAIMS,
        kind="existential",
        meant_for="every measure of effectiveness fairness",
        needs=OUTCOME_FIELDS,
        world="one relevance grade changed",
        cases=effectiveness_change_cases,
        grid=effectiveness_change_grid,
        judge=judges.unchanged,
        entrywise=True,
    ),
)
