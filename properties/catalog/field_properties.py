"""The properties of how a measure responds to a change of every field it reads, as catalog entries.

Each entry is the keyword arguments of one :class:`~puf.properties.catalog.property.Property`
with its composition rule, where one proves it for a grammar measure: scaling or shifting every
outcome (informational: relative and absolute indices), and a small perturbation of the fields
read changing the value by a bounded amount.
"""

from __future__ import annotations

__all__ = ["FIELD_ENTRIES"]

from typing import Any

from puf.grammar import GAPS, IndexForm, PairForm
from puf.metadata import Measure

from . import judges
from .property import INEQUALITY_AXIOMS, OUTCOME_FIELDS
from ..proving.proof_rules import composition_rule
from ..cases.field_cases import scale_cases, translation_cases


@composition_rule("equal homogeneity degree")
def _scale_invariance(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "equal homogeneity degree" of ``scale-invariance``: its premises, read off the form's blocks.

    Notes
    -----
    |ΔS| has degree 1, ΔS² degree 2, the weights
    degree 0; the aggregations keep the degree; dividing by μ^d leaves degree 0, so f(aS) = f(S).
    An index form reads S only through S/μ.
    """
    if form.degree != 0:
        return None
    if isinstance(form, IndexForm):
        return "homogeneity degree 0: the form reads S only through S/μ, which aS leaves unchanged"
    return (
        "equal homogeneity degree: numerator and denominator μ^d are both of degree d in S, so "
        "aS leaves their ratio unchanged"
    )


@composition_rule("function of differences only")
def _translation_invariance(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "function of differences only" of ``translation-invariance``: its premises, read off the form's blocks.

    Notes
    -----
    A pair form without the `mean`
    normalisation reads S only through S(u) − S(v) (and similarities), which S + b leaves.
    """
    if not isinstance(form, PairForm) or form.normalisation == "mean":
        return None
    if GAPS[form.gap].facts["differences_only"]:
        return "function of differences only: every gap reads S(u) − S(v), which S + b leaves unchanged"
    return None


#: The keyword arguments of the catalog's field properties, one dict each (``Property(**entry)``).
FIELD_ENTRIES: tuple[dict[str, Any], ...] = (
    dict(
        name="scale-invariance",
        statement="multiplying all effectiveness leaves the value unchanged",
        formal="∀ P, a ∈ [0.001, 0.999]: f(P[S := aS, utility := a·utility]) ≐ f(P)",
        source=INEQUALITY_AXIOMS + ": relative inequality",
        kind="universal",
        meant_for="relative inequality indices (informational)",
        needs=OUTCOME_FIELDS,
        entrywise=True,
        world="derived effectiveness and utility rescaled",
        cases=scale_cases,
        judge=judges.unchanged,
        informational=True,
        proof_rule=_scale_invariance,
    ),
    dict(
        name="translation-invariance",
        statement="shifting all effectiveness leaves the value unchanged",
        formal="∀ P, b with S + b and utility + b in [0, 1]: f(P[S := S + b, utility := utility + b]) ≐ f(P)",
        source=INEQUALITY_AXIOMS + ": absolute inequality",
        kind="universal",
        meant_for="absolute inequality indices (informational)",
        needs=OUTCOME_FIELDS,
        entrywise=True,
        world="derived effectiveness and utility shifted (scaled by a ∈ (0, 1) first where they span [0, 1])",
        cases=translation_cases,
        judge=judges.unchanged,
        informational=True,
        proof_rule=_translation_invariance,
    ),
)
