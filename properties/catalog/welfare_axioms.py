"""The welfare economists' axioms of inequality and envy, as catalog entries.

Each entry is the keyword arguments of one :class:`~puf.properties.catalog.Property` (the
catalog builds them): Lorenz consistency, equal additions, the mirror between outcomes and
shortfalls, and envy-freeness as the fairest state. Their formal statements say exactly what
the search tests (:mod:`properties.welfare_cases`) and how it is judged
(:mod:`properties.welfare_judges`); their composition rules are in
:mod:`properties.welfare_proofs`.
"""

from __future__ import annotations

__all__ = ["WELFARE_ENTRIES"]

from typing import Any

from . import welfare_judges
from ..cases.welfare_cases import envy_free_cases, equal_addition_cases, lorenz_cases, mirror_cases
from ..cases.welfare_cases import lorenz_examples, mirror_examples, mirror_parts
from .welfare_rules import equal_additions, lorenz_consistency, mirror_consistency

#: The keyword arguments of the catalog's welfare properties, one dict each (``Property(**entry)``).
WELFARE_ENTRIES: tuple[dict[str, Any], ...] = (
    dict(
        name="lorenz-consistency",
        statement="a population whose relative Lorenz curve lies nowhere below another's is not less fair",
        formal="∀ P, P' of the same m users, similarity (and every field but S) fixed, Σ S > 0, Σ S' > 0, "
        "L_{S'}(k) ≥ L_S(k) − 10⁻¹² for k = 1, …, m − 1, where L_S(k) = (sum of the k smallest S(u)) / Σ S "
        "(the relative Lorenz curve of the shares; means may differ): f(P') ≤ f(P) + tol (lower "
        "fairer); P' made by one to three progressive transfers of τ ∈ (0, ½] followed by a "
        "rescaling S' := aS' (a up to 1/max S' or in (0, 1)), by the rescaling alone (equal "
        "curves: S against S/max S, S/2 against S), by a move towards the mean rescaled to the top, "
        "or drawn anew and kept when one of the two dominates; hand-made: S = (0.1, 0.3) and "
        "(0.1, 0.1, 0.1, 0.3, 0.3, 0.3) doubled, every similarity 0.75; a mean of 0 has no Lorenz curve and "
        "is excluded; world level: the worst-off user gains one relevant listed item and the "
        "best-off loses one, their gap ≥ 2/k (a transfer at a fixed mean)",
        source="Atkinson (1970), Lorenz dominance as the ranking every relative index consistent "
        "with transfers agrees on; Foster (1985), Lorenz consistency of relative inequality "
        "measures (a relative index is Lorenz-consistent iff it is Schur-convex and scale-invariant)",
        kind="universal",
        meant_for="relative inequality indices (absolute ones rise when everyone is scaled up)",
        needs=("effectiveness",),
        world="worst-off user gains one relevant listed item, best-off user loses one",
        cases=lorenz_cases,
        explicit=lorenz_examples,
        judge=welfare_judges.lorenz_not_less_fair,
        proof_rule=lorenz_consistency,
    ),
    dict(
        name="equal-additions",
        statement="adding the same amount to every user's outcome does not make the value less fair",
        formal="∀ P, c > 0 with S + c and utility + c in [0, 1]: f(P[S := S + c, utility := "
        "utility + c]) ≤ f(P) + r, r the float resolution (lower fairer); c a drawn share "
        "in [10⁻³, 1] of the room 1 − max, besides the whole room, half of it and 10⁻³ of it "
        "(a P with an outcome at 1 first scaled by a ∈ (0, 1) in half the draws); P and c on the "
        "2⁻²⁰ grid, so the addition is exact in floating point (no gap moves by rounding); "
        "world level: the derived effectiveness and utility shifted (no world change adds to "
        "every user alike)",
        source="Dalton (1920), equal additions to all incomes diminish inequality; Kolm (1976), "
        "relative (rightist) and absolute (leftist) indices: a relative index falls, an absolute "
        "one is unchanged, an index that rises ranks by shortfalls",
        kind="universal",
        meant_for="relative and absolute inequality indices (a rise is a defect in either reading)",
        needs=("effectiveness", "utility"),
        world="derived effectiveness and utility shifted up by one amount",
        cases=equal_addition_cases,
        judge=welfare_judges.addition_not_less_fair,
        proof_rule=equal_additions,
    ),
    dict(
        name="mirror-consistency",
        statement="outcomes in [0, 1] are ranked as their shortfalls 1 − S are",
        formal="∀ P, P' of the same m users (similarity, lists and list distances fixed): "
        "not [f(P) < f(P') − r and f(1 − P) > f(1 − P') + r] and not [f(P) > f(P') + r and "
        "f(1 − P) < f(1 − P') − r], 1 − P = P[S := 1 − S, utility := 1 − utility], r the float "
        "resolution of the four values; P and P' on the 2⁻²⁰ grid (1 − P exact in floating point); P' = 1 − P, P with two users brought to their mean, P "
        "shifted, P rescaled, or drawn anew; hand-made: S = (0.2, 0.4) and (0.2, 0.2, 0.2, 0.4, 0.4, "
        "0.4) against 1 − S, every similarity 0.75. With P' = 1 − P this asks f(P) ≐ f(1 − P) to r: "
        "the strong form f(S) = f(1 − S), reported (to tol) in a violation's reason, is implied "
        "for the pairs searched; a case whose mirrored value is undefined is set aside",
        source="Erreygers (2009), attainment and shortfall inequality, the mirror property; "
        "Lambert and Zheng (2011), consistent ranking of attainments and shortfalls",
        kind="universal",
        meant_for="measures of bounded outcomes (effectiveness or utility in [0, 1])",
        needs=("effectiveness", "utility"),
        world="derived effectiveness and utility replaced by 1 − them (lists and histories fixed)",
        cases=mirror_cases,
        explicit=mirror_examples,
        derived=mirror_parts,
        judge=welfare_judges.mirror_ranked,
        proof_rule=mirror_consistency,
        explain=welfare_judges.explain_mirror,
    ),
    dict(
        name="envy-free-fairest",
        statement="envy-free lists give the fairest value, and any strict envy does not",
        formal="∀ world-level P with utility U (U[u, v] = φ_u(L_v)): max_{u≠v} (U[u, v] − U[u, u]) "
        "≤ 2⁻⁵¹ (envy-free) ⇒ f(P) ≐ fairest end of the declared range; max_{u≠v} (U[u, v] − "
        "U[u, u]) ≥ 0.01 (the minimum step: a strict envy) ⇒ f(P) less fair than the fairest "
        "end by more than r; worlds with relevance only on each user's own list (envy-free), "
        "with one user's envy of another added, with lists fully relevant or nothing relevant, "
        "as drawn, and the hand-made envies of 0.02 and 0.2 and a world of equal lists; a "
        "measure that reads no utility has no envy to judge (not applicable)",
        source="Foley (1967), envy-freeness as equity; Varian (1974), fairness as envy-free efficiency",
        kind="universal",
        meant_for="measures of utility (envy)",
        needs=("utility",),
        world="relevance kept only on each user's own list, then one envy added; lists fully "
        "relevant; nothing relevant; as drawn",
        cases=envy_free_cases,
        judge=welfare_judges.envy_free_fairest,
        explain=welfare_judges.explain_envy,
        single_population=True,
    ),
)
