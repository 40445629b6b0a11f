"""Composition rules of the pair axioms: ``dissimilar-independence`` and ``dissimilar-replication``
read off a grammar form's blocks for every m (each its entry's ``proof_rule`` in
:mod:`properties.catalog.pair_axioms`, stated in ``docs/guide/proofs.md``). A rule returns its argument, or None when its premises do
not hold; it never proves a violation.
"""

from __future__ import annotations

__all__ = ["dissimilar_independence_rule", "dissimilar_replication_rule"]

from puf.grammar import AGGREGATIONS, GAPS, WEIGHTS, IndexForm, PairForm
from puf.metadata import Measure

from ..proving.proof_rules import composition_rule


def _term_zero_without_similarity(form: PairForm) -> bool:
    """Every pair term w(sim)·g(S_u, S_v, sim) is 0 at sim = 0, whatever the effectiveness."""
    weight = WEIGHTS[form.weight].facts["zero_at_no_similarity"]
    gap = GAPS[form.gap].facts["zero_at_no_similarity"]
    return (
        weight is True
        or (weight == "t > 0" and form.threshold > 0.0)
        or gap is True
        or (gap == "L >= 1" and form.lipschitz >= 1.0)
    )


@composition_rule("term zero at similarity 0")
def dissimilar_independence_rule(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """Every term of a stranger's pairs is 0 before and after, and no other term reads its S.

    Notes
    -----
    When the weight or the gap is 0 at
    similarity 0 (as for similarity-zero), every term of a pair with a user similar to no one is 0
    whatever that user's S; no other term reads it, and neither does a normalisation by m or by the
    weights. Not with the `mean` normalisation (the user's S moves μ). Index forms read S alone and
    get no proof (they violate the property).

    Examples
    --------
    >>> from puf.grammar import builtin_form
    >>> import puf
    >>> dissimilar_independence_rule(puf.as_measure("puf"), builtin_form(puf.as_measure("puf"))) is not None
    True
    >>> dissimilar_independence_rule(puf.as_measure("sd"), builtin_form(puf.as_measure("sd"))) is None
    True
    """
    if not isinstance(form, PairForm) or form.normalisation == "mean" or not _term_zero_without_similarity(form):
        return None
    return (
        "term zero at similarity 0: every term of a pair with the user similar to no one is 0 "
        "whatever its S, the other terms and the normalisation (by m or by the weights) do not "
        "read it, so the value does not move"
    )


@composition_rule("strangers' copies add nothing")
def dissimilar_replication_rule(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """Strangers' copies add terms that are 0 to an aggregation they leave unchanged.

    Notes
    -----
    r copies with similarity 0 across
    them: a form that reads S alone is replication-invariant as above (an index form; a pair form
    with a replication-invariant aggregation). A form that reads similarity, with its term 0 at
    similarity 0, gets terms of 0 for the pairs across copies: `max` and `user-max` are unchanged,
    and a weighted mean (`weights`, with a weight 0 at similarity 0) multiplies its sum and its
    weights by r. `pairs` and `all-pairs` fail (the places grow faster than the sum).

    Examples
    --------
    >>> from puf.grammar import builtin_form
    >>> import puf
    >>> [dissimilar_replication_rule(puf.as_measure(n), builtin_form(puf.as_measure(n))) is None
    ...  for n in ("puf", "sd", "ge-1", "mean-difference")]
    [True, False, False, True]
    """
    if isinstance(form, IndexForm):
        return "reads S alone: a mean over users of a term of S/μ, which r copies repeat r times at the same μ"
    aggregation = AGGREGATIONS[form.aggregation]
    reads_similarity = WEIGHTS[form.weight].facts["reads_similarity"] or GAPS[form.gap].facts["reads_similarity"]
    if not reads_similarity:
        if not aggregation.facts["replication_invariant"] or form.normalisation == "weights":
            return None
        return (
            f"reads no similarity, replication-invariant aggregation ({form.aggregation}): the "
            "value is that of S copied r times, as for replication-invariance"
        )
    if not _term_zero_without_similarity(form):
        return None
    if form.aggregation in ("max", "user-max"):
        return (
            f"maximum of non-negative terms ({form.aggregation}): the pairs across copies add terms "
            "of 0 and each copy repeats the terms of P, so every maximum is unchanged"
        )
    weight_zero = WEIGHTS[form.weight].facts["zero_at_no_similarity"]
    if form.normalisation == "weights" and (weight_zero is True or (weight_zero == "t > 0" and form.threshold > 0)):
        return (
            "weighted mean with weight 0 at similarity 0: the copies multiply the weighted sum and "
            "the sum of the weights by r, and the pairs across copies add 0 to both"
        )
    return None
