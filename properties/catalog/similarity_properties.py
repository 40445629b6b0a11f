"""The properties of how a measure reads the users' similarity, as catalog entries.

Each entry is the keyword arguments of one :class:`~puf.properties.catalog.property.Property`
with its composition rule, where one proves it for a grammar measure: raising a pair's
similarity is not fairer, some change of similarity alone moves the value, no similar users is
the fairest, and the most_fair pairing is no less fair than the most_unfair one.
"""

from __future__ import annotations

__all__ = ["SIMILARITY_ENTRIES"]

from typing import Any

from puf.grammar import IndexForm, PairForm
from puf.metadata import Measure

from . import judges
from .property import PUF_CLAIMS
from ..proving.proof_rules import (
    composition_rule,
    fairest_is_zero,
    gap_zero_without_similarity,
    weight_zero_without_similarity,
)
from ..cases.similarity_cases import (
    no_similarity_cases,
    similarity_change_cases,
    similarity_change_grid,
    similarity_raise_cases,
)
from ..cases.user_cases import rearrangement_cases, rearrangement_remade


@composition_rule("monotone in similarity")
def _similarity_monotone(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "monotone in similarity" of ``similarity-monotone``: its premises, read off the form's blocks.

    Notes
    -----
    Every weight and gap is non-negative and
    nondecreasing in sim (`excess` and `violation` through L(1 − sim)); raising one sim(u, v)
    lowers no term, and the aggregations are monotone. Not with the `weights` normalisation.
    """
    if not isinstance(form, PairForm) or form.normalisation == "weights" or measure.direction != "lower":
        return None
    return (
        "monotone in similarity: the weight and the gap are nondecreasing in sim and non-negative, "
        "so raising one sim(u, v) raises no term lower, and the aggregation is monotone"
    )


@composition_rule("weight or gap zero at similarity 0")
def _similarity_zero(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "weight or gap zero at similarity 0" of ``similarity-zero``: its premises, read off the form's blocks.

    Notes
    -----
    w(0) = 0 for `sim`, `sim^2` and
    `sim>=t` with t > 0; for `excess` and `violation` with L ≥ 1, |ΔS| ≤ 1 ≤ L(1 − 0). Every term is
    0. Not for the `weights` normalisation (0/0).
    """
    if not (isinstance(form, PairForm) and fairest_is_zero(measure)) or form.normalisation == "weights":
        return None
    if weight_zero_without_similarity(form):
        return "weight zero at similarity 0: every term is 0, so the value is 0 (where defined)"
    if gap_zero_without_similarity(form):
        return (
            f"gap zero at similarity 0: |ΔS| ≤ 1 ≤ L = {form.lipschitz:g} = L·(1 − 0), so every "
            "term is 0 and so is the value"
        )
    return None


#: The keyword arguments of the catalog's similarity properties, one dict each (``Property(**entry)``).
SIMILARITY_ENTRIES: tuple[dict[str, Any], ...] = (
    dict(
        name="similarity-monotone",
        statement="raising sim(u,v) of a pair with unequal effectiveness never makes the value fairer",
        formal="∀ P, u ≠ v with S(u) ≠ S(v) and sim(u,v) < 1, s' ∈ (sim(u,v), 1]: "
        "f(P[sim(u,v) = sim(v,u) := s']) is not fairer than f(P) (≥ f(P) − tol, lower "
        "fairer)",
        source=PUF_CLAIMS + "; similar users should be treated alike",
        kind="universal",
        meant_for="similarity-aware individual fairness measures",
        needs=("similarity",),
        world="the derived similarity of one pair raised alone (histories feed nothing else)",
        cases=similarity_raise_cases,
        judge=judges.not_fairer,
        uses=("effectiveness",),  # the premise S(u) ≠ S(v): shown even to a measure not reading S
        proof_rule=_similarity_monotone,
    ),
    dict(
        name="similarity-sensitive",
        statement="some change of similarity alone changes the value",
        formal="∃ P, sim' (symmetric, unit diagonal, in [0, 1]): f(P[similarity := sim']) ≠ f(P) by more than tol",
        source=PUF_CLAIMS,
        kind="existential",
        meant_for="individual fairness measures (similar users alike)",
        needs=("similarity",),
        world="shared history items added to two users",
        cases=similarity_change_cases,
        grid=similarity_change_grid,
        judge=judges.unchanged,
        entrywise=True,
    ),
    dict(
        name="similarity-zero",
        statement="when no two users are similar the value is the fairest",
        formal="∀ P with sim(u,v) = 0 for every u ≠ v, every other field free: f(P) ≐ "
        "fairest end of the declared range",
        source=PUF_CLAIMS + "; Lipschitz individual fairness (Dwork et al. 2012) constrains only similar users",
        kind="universal",
        meant_for="similarity-aware individual fairness measures",
        needs=("similarity",),
        world="histories made pairwise disjoint (every Jaccard 0)",
        cases=no_similarity_cases,
        judge=judges.at_fairest,
        single_population=True,
        proof_rule=_similarity_zero,
    ),
    dict(
        name="rearrangement",
        statement="most_fair pairing gives a value no less fair than most_unfair, strictly when "
        "the pairing changes the similarity-weighted gaps",
        formal="∀ P with m ≤ 12: f(P_fair) is not less fair than f(P_unfair) (to tol), and fairer by more "
        "than r when Σ sim·|gap| of P_unfair exceeds that of P_fair by "
        "more than 1e-9; P_fair, P_unfair: the users' outcomes permuted by the most_fair "
        "and most_unfair pairing orders",
        source=PUF_CLAIMS + "; MostFair vs MostUnfair pairing",
        kind="universal",
        meant_for="similarity-aware individual fairness measures",
        needs=("effectiveness",),
        world="users' outcomes (relevance and list) reassigned by the pairing; histories fixed",
        cases=rearrangement_cases,
        judge=judges.rearranged,
        explain=judges.explain_rearranged,
        uses=("similarity",),
        remake=rearrangement_remade,
    ),
)
