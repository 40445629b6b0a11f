"""The inequality literature's axioms that tell the indices apart, as catalog entries.

Each entry is the keyword arguments of one :class:`~puf.properties.catalog.property.Property`
(the catalog builds them): the strict transfer principle, the principle of diminishing
transfers, additive decomposability and consistency by subgroups, and reaching both ends
of the declared range at every size. Their formal statements say exactly what the search
tests: the ranges its parameters are drawn from and the tolerances of its judges.
"""

from __future__ import annotations

__all__ = ["INEQUALITY_AXIOM_ENTRIES"]

from typing import Any
import functools

from puf.grammar import IndexForm, PairForm
from puf.metadata import Measure

from . import judges
from .property import SCORE_ONLY
from ..proving.proof_rules import composition_rule
from ..cases.case import TRANSFER_WORLD, transfer_worlds
from ..cases.extreme_cases import candidates, reach, size_cases, size_examples
from ..cases.subgroup_cases import (
    consistency_parts,
    decomposition_parts,
    subgroup_cases,
    subgroup_examples,
    subgroup_remade,
)
from ..cases.transfer_cases import composite_transfer_worlds, composite_transfer_cases, strict_transfer_cases

_GROUPS = (
    "groups are the blocks of the similarity matrix (similarity 0 across groups, "
    "positive within; 2–3 groups of 2–6 users, A alone = its users with their "
    "similarities); A' has A's size and mean; score level only: measures read at world "
    "level (utility, list distance) are not applicable"
)


@composition_rule("Shorrocks' decomposition")
def _subgroup_decomposability(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The composition rule "Shorrocks' decomposition" of ``subgroup-decomposability``: its premises, read off the form's blocks.

    Notes
    -----
    (for the catalog's property of that
    name). GE(α) = GE of the group means + Σ_g (n_g/n)(μ_g/μ)^α GE_g exactly, for every α
    (Shorrocks 1980).
    """
    if isinstance(form, IndexForm) and form.form == "ge":
        return (
            "Shorrocks 1980: GE(α) = GE of the group means (each user at its group's mean) + "
            "Σ_g (n_g/n)(μ_g/μ)^α GE_g, an exact decomposition for every α"
        )
    return None


# What the two subgroup axioms share: the partitions drawn, and where they apply.
_SUBGROUP_SEARCH = dict(
    kind="universal",
    meant_for="inequality indices",
    needs=("effectiveness", "similarity"),
    grouped=True,
    world=SCORE_ONLY,
    cases=subgroup_cases,
    explicit=subgroup_examples,
    remake=subgroup_remade,
)

#: The keyword arguments of the catalog's axiom properties, one dict each (``Property(**entry)``).
INEQUALITY_AXIOM_ENTRIES: tuple[dict[str, Any], ...] = (
    dict(
        name="strict-transfer",
        statement="a transfer from a better-off to a worse-off user that keeps their order strictly lowers the value",
        formal="∀ P with every S(u) = 0 or ≥ 10⁻³, i, j with S_j − S_i ≥ 0.01, τ ∈ [0.01, ½]: S'_i = S_i + τ(S_j − S_i), "
        "S'_j = S_j − τ(S_j − S_i) ⇒ f(P') < f(P) − r (the float resolution) "
        "(lower fairer); world level: the worst-off user gains one relevant listed item "
        "and the best-off loses one, S_max − S_min ≥ 2/k; " + TRANSFER_WORLD,
        source="Dalton (1920), the principle of transfers in its strict form; `pigou-dalton` "
        "is the weak form (Cowell, Measuring Inequality, ch. 3)",
        kind="universal",
        meant_for="inequality indices",
        needs=("effectiveness",),
        world="worst-off user gains one relevant listed item, best-off user loses one",
        cases=strict_transfer_cases,
        explicit=transfer_worlds,
        judge=judges.strictly_fairer,
        explain=functools.partial(judges.explain_strict, step="the transfer"),
    ),
    dict(
        name="transfer-sensitivity",
        statement="a progressive transfer low down with a regressive one higher up, the "
        "variance unchanged, lowers the value (transfers count more lower down)",
        formal="∀ P with every S(u) = 0 or ≥ 10⁻³, distinct users a, b, c, d with S_b − S_a ≥ 0.01, S_d − S_c ≥ 0.01, "
        "δ₁ = τ(S_b − S_a), τ ∈ [0.01, ½], δ₂ > 0 with δ₂(S_d − S_c + δ₂) = "
        "δ₁(S_b − S_a − δ₁), S_b ≤ S_c − δ₂, S_d + δ₂ ≤ 1: S'_a = S_a + δ₁, "
        "S'_b = S_b − δ₁, S'_c = S_c − δ₂, S'_d = S_d + δ₂ (mean and variance kept) ⇒ "
        "f(P') < f(P) − r (the float resolution); world level: the hand-made "
        "four-user worlds with P@10 (0, 0.3, 0.4, 0.5) → (0.1, 0.2, 0.3, 0.6)",
        source="Kolm (1976), the principle of diminishing transfers; Shorrocks and Foster "
        "(1987), transfer sensitivity as favourable composite transfers",
        kind="universal",
        meant_for="inequality indices",
        needs=("effectiveness",),
        world="the hand-made worlds only (each user's ten listed items its own)",
        cases=composite_transfer_cases,
        explicit=composite_transfer_worlds,
        judge=judges.strictly_fairer,
        explain=functools.partial(judges.explain_strict, step="the transfers"),
    ),
    dict(
        name="subgroup-decomposability",
        statement="the value is the weighted sum of the groups' values plus the between-group "
        "value, with weights set by each group's size and mean",
        formal="∀ partitions P = (A, B, …), A' of A's size and mean, P' = (A', B, …): "
        "(i) f(P) − f(P') = f(P̄) − f(P̄') where P̄, P̄' have every other group at its "
        "mean; (ii) [f(P) − f(P')]·[f(A) − f(Ā)] = [f(P) − f(P_Ā)]·[f(A) − f(A')], Ā "
        "(P_Ā) being A at its mean (alone, in P); (iii) [f(P) − f(P')]·[f(A) − f(A')] "
        "≥ 0; each to 10⁻⁹·max(1, |values|) (products: times max(1, |values|)). "
        "Together: f(P) = Σ_g w(n_g, μ_g)·f(G_g) + f(between), w ≥ 0. " + _GROUPS,
        source="Shorrocks (1980), additive decomposability: the generalised entropy family "
        "(and the variance, the absolute case) are the decomposable indices",
        **_SUBGROUP_SEARCH,
        derived=decomposition_parts,
        judge=judges.decomposes,
        explain=judges.explain_decomposition,
        proof_rule=_subgroup_decomposability,
    ),
    dict(
        name="subgroup-consistency",
        statement="raising one group's value with its size and mean fixed never lowers the "
        "whole population's (and lowering it never raises it)",
        formal="∀ partitions P = (A, B, …), A' of A's size and mean, P' = (A', B, …): "
        "f(A') ≥ f(A) − r ⇒ f(P') ≥ f(P) − t and f(A') ≤ f(A) + r ⇒ f(P') ≤ f(P) + t, "
        "r = m·2⁻⁵²·max(1, |f(A)|, |f(A')|) the resolution of the group's values (a change of "
        "the group beyond r is a change, as in the strict judgments; within it both premises "
        "hold and the whole must be unchanged), t = max(10⁻⁹·max(1, |values|), "
        "m·2⁻⁵²·max(1, |values|)) over every value (lower fairer). " + _GROUPS,
        source="Shorrocks (1984), subgroup consistency (monotone transforms of the additively decomposable indices)",
        **_SUBGROUP_SEARCH,
        derived=consistency_parts,
        judge=judges.consistent,
    ),
    dict(
        name="attainable-range",
        statement="for every m the measure reaches both ends of its declared range",
        formal="∀ m drawn (2–12, and 13–299 in the large share; world level: the sizes drawn, "
        "13–199 in the large share, and 2–6): min f ≤ low + t and "
        "max f ≥ high − t over the drawn population and the candidate extremes of m "
        "users (everyone equal; one user apart; half and half; evenly spread; users at "
        "10⁻³⁰⁰; everyone, nobody or only the other half alike; at world level no envy "
        "or everyone envying everyone; then the grid {0, ½, 1}^m, whole for m ≤ 7, sampled beyond, "
        "and a local search from its best points), t = 10⁻⁹·max(1, |values|); an infinite end wants "
        "a value beyond ±100. Values beyond the range are the `range` property's",
        source="Rampisela et al. (TORS 2024): a measure whose declared extremes are "
        "unreachable for a given m cannot be read on its declared scale",
        kind="universal",
        meant_for="every measure",
        needs=(),
        world="the candidate worlds of m users",
        cases=size_cases,
        explicit=size_examples,
        derived=candidates,
        refine=reach,
        judge=judges.reaches_range,
        explain=judges.explain_range,
        single_population=True,
    ),
)
