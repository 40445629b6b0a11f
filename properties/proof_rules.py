"""Composition rules: proofs for every m, read off a grammar form's blocks.

Each rule takes a measure and its form (:class:`~puf.grammar.PairForm` or
:class:`~puf.grammar.IndexForm`) and returns the argument that proves the
property for every number of users, or None when its premises do not hold (the
search decides then). The rules and their arguments are stated in
``docs/guide/proofs.md``; a rule never proves a violation.
"""

from __future__ import annotations

__all__ = ["RULES", "rule_argument"]

import numpy as np

from puf.grammar import AGGREGATIONS, GAPS, WEIGHTS, IndexForm, PairForm
from puf.metadata import Measure

from .pair_rules import dissimilar_independence_rule, dissimilar_replication_rule


def _fairest_is_zero(measure: Measure) -> bool:
    return measure.direction == "lower" and measure.fairest == 0.0


def _weight_zero_without_similarity(form: PairForm) -> bool:
    fact = WEIGHTS[form.weight].facts["zero_at_no_similarity"]
    return fact is True or (fact == "t > 0" and form.threshold > 0.0)


def _gap_zero_without_similarity(form: PairForm) -> bool:
    fact = GAPS[form.gap].facts["zero_at_no_similarity"]
    return fact is True or (fact == "L >= 1" and form.lipschitz >= 1.0)


def anonymity(measure: Measure, form: PairForm | IndexForm) -> str | None:
    return (
        "symmetric aggregation: a sum, mean or max over all users or all unordered pairs of terms "
        "symmetric in their pair, so relabelling users permutes the terms"
    )


def zero_at_equality(measure: Measure, form: PairForm | IndexForm) -> str | None:
    if not _fairest_is_zero(measure):
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


def similarity_zero(measure: Measure, form: PairForm | IndexForm) -> str | None:
    if not (isinstance(form, PairForm) and _fairest_is_zero(measure)) or form.normalisation == "weights":
        return None
    if _weight_zero_without_similarity(form):
        return "weight zero at similarity 0: every term is 0, so the value is 0 (where defined)"
    if _gap_zero_without_similarity(form):
        return (
            f"gap zero at similarity 0: |ΔS| ≤ 1 ≤ L = {form.lipschitz:g} = L·(1 − 0), so every "
            "term is 0 and so is the value"
        )
    return None


def scale_invariance(measure: Measure, form: PairForm | IndexForm) -> str | None:
    if form.degree != 0:
        return None
    if isinstance(form, IndexForm):
        return "homogeneity degree 0: the form reads S only through S/μ, which aS leaves unchanged"
    return (
        "equal homogeneity degree: numerator and denominator μ^d are both of degree d in S, so "
        "aS leaves their ratio unchanged"
    )


def translation_invariance(measure: Measure, form: PairForm | IndexForm) -> str | None:
    if not isinstance(form, PairForm) or form.normalisation == "mean":
        return None
    if GAPS[form.gap].facts["differences_only"]:
        return "function of differences only: every gap reads S(u) − S(v), which S + b leaves unchanged"
    return None


def pigou_dalton(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """Schur–Ostrowski: a symmetric convex function of S is Schur-convex, so transfers lower it."""
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


def disparity_monotone(measure: Measure, form: PairForm | IndexForm) -> str | None:
    if not isinstance(form, PairForm) or form.normalisation == "mean" or measure.direction != "lower":
        return None
    return (
        "monotone in every gap: S' = c + λ(S − c) multiplies every |ΔS| by λ > 1 and leaves the "
        "similarities, so every term (nondecreasing in |ΔS|) and the aggregate do not decrease"
    )


def similarity_monotone(measure: Measure, form: PairForm | IndexForm) -> str | None:
    if not isinstance(form, PairForm) or form.normalisation == "weights" or measure.direction != "lower":
        return None
    return (
        "monotone in similarity: the weight and the gap are nondecreasing in sim and non-negative, "
        "so raising one sim(u, v) raises no term lower, and the aggregation is monotone"
    )


def replication_invariance(measure: Measure, form: PairForm | IndexForm) -> str | None:
    if isinstance(form, IndexForm):
        return "a mean over users of a term of S/μ: r copies repeat every term r times and keep μ"
    if not AGGREGATIONS[form.aggregation].facts["replication_invariant"] or form.normalisation == "weights":
        return None
    return (
        f"replication-invariant aggregation ({form.aggregation}): a user and its copies form pairs "
        "of gap 0, the other pairs repeat r² times over (rm)² places (or the max is unchanged), "
        "and μ is unchanged"
    )


def in_range(measure: Measure, form: PairForm | IndexForm) -> str | None:
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


def defined(measure: Measure, form: PairForm | IndexForm) -> str | None:
    if isinstance(form, PairForm) and form.normalisation == "none":
        return "no division, logarithm or negative power: a finite expression of finite inputs (m ≥ 2)"
    return None


def subgroup_decomposability(measure: Measure, form: PairForm | IndexForm) -> str | None:
    if isinstance(form, IndexForm) and form.form == "ge":
        return (
            "Shorrocks 1980: GE(α) = GE of the group means (each user at its group's mean) + "
            "Σ_g (n_g/n)(μ_g/μ)^α GE_g, an exact decomposition for every α"
        )
    return None


RULES = {
    "anonymity": ("symmetric aggregation", anonymity),
    "zero-at-equality": ("gap zero at equal effectiveness", zero_at_equality),
    "similarity-zero": ("weight or gap zero at similarity 0", similarity_zero),
    "scale-invariance": ("equal homogeneity degree", scale_invariance),
    "translation-invariance": ("function of differences only", translation_invariance),
    "pigou-dalton": ("Schur–Ostrowski", pigou_dalton),
    "disparity-monotone": ("monotone in every gap", disparity_monotone),
    "similarity-monotone": ("monotone in similarity", similarity_monotone),
    "replication-invariance": ("replication-invariant aggregation", replication_invariance),
    "range": ("bounds of the blocks", in_range),
    "defined": ("no division", defined),
    "subgroup-decomposability": ("Shorrocks' decomposition", subgroup_decomposability),
    "dissimilar-independence": ("term zero at similarity 0", dissimilar_independence_rule),
    "dissimilar-replication": ("strangers' copies add nothing", dissimilar_replication_rule),
}
"""Property name -> (rule name, rule): the composition rules, stated in ``docs/guide/proofs.md``."""


def rule_argument(measure: Measure, form: PairForm | IndexForm | None, property_name: str) -> tuple[str, str] | None:
    """``(rule name, argument)`` proving ``property_name`` for every m, or None.

    Examples
    --------
    >>> import puf
    >>> from puf.grammar import builtin_form
    >>> m = puf.as_measure("puf")
    >>> rule_argument(m, builtin_form(m), "anonymity")[0]
    'symmetric aggregation'
    >>> rule_argument(m, builtin_form(m), "pigou-dalton") is None
    True
    """
    entry = RULES.get(property_name)
    if entry is None or form is None:
        return None
    argument = entry[1](measure, form)
    if argument is None:
        return None
    head, _, rest = argument.partition(": ")
    return entry[0], (rest if head == entry[0] else argument)
