"""Composition rules of the welfare axioms: proofs for every m read off a grammar form's blocks.

Each is its entry's ``proof_rule`` (:mod:`properties.catalog.welfare_axioms`): the argument that
proves the property, or None when the premises do not hold and the search decides; never a violation.
A relative (degree-0) Schur-convex form is Lorenz-consistent, and so does not rise with equal
additions; a pair form of even gaps without a mean normalisation is unchanged by S := 1 − S.
"""

from __future__ import annotations

__all__ = ["lorenz_consistency", "equal_additions", "mirror_consistency"]

from puf.grammar import GAPS, IndexForm, PairForm
from puf.metadata import Measure

from ..proving.proof_rules import composition_rule


def _relative_schur_convex(form: PairForm | IndexForm) -> str | None:
    """Why the form is relative and Schur-convex, or None."""
    if isinstance(form, IndexForm):
        return "it reads S only through S/μ, a mean of a convex term under an increasing outer transform"
    if form.weight == "1" and form.normalisation == "mean" and GAPS[form.gap].facts["convex_even"]:
        return (
            "with weight 1, a convex even gap of degree d and the division by μ^d, it is a Schur-convex "
            "function of S of degree 0"
        )
    return None


@composition_rule("relative and Schur-convex")
def lorenz_consistency(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """Relative and Schur-convex: Lorenz dominance is majorisation of the shares.

    Notes
    -----
    An index form reads S only through S/μ
    and is Schur-convex (the Pigou–Dalton rule); so is a pair form with weight 1, a convex even
    gap of degree d and the division by μ^d. S' ≥_L S at equal m means S'/μ' is majorised by S/μ
    (Hardy, Littlewood and Pólya), so f(S') = f(S'/μ') ≤ f(S/μ) = f(S) (Foster 1985).

    Examples
    --------
    >>> import puf
    >>> from puf.grammar import builtin_form
    >>> lorenz_consistency(puf.as_measure("gini"), builtin_form(puf.as_measure("gini"))).split(":")[0]
    'relative and Schur-convex'
    >>> lorenz_consistency(puf.as_measure("sd"), builtin_form(puf.as_measure("sd"))) is None
    True
    """
    why = _relative_schur_convex(form)
    if why is None or measure.direction != "lower":
        return None
    return (
        f"relative and Schur-convex: {why}; S' ≥_L S with equal m means S'/μ' is majorised by "
        "S/μ (Hardy–Littlewood–Pólya), so f(S') = f(S'/μ') ≤ f(S/μ) = f(S)"
    )


@composition_rule("gaps kept or Lorenz dominance")
def equal_additions(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """Gaps kept by S + c (absolute forms) or S + c Lorenz-dominating S (relative forms).

    Notes
    -----
    A pair form without the `mean`
    normalisation reads S only through S(u) − S(v), which S + c leaves; for a Lorenz-consistent
    form (the rule above), the shares of S + c are (μ/(μ + c))·(shares of S) + (c/(μ + c))·(equal
    shares), so S + c ≥_L S and the value does not rise.

    Examples
    --------
    >>> import puf
    >>> from puf.grammar import builtin_form
    >>> [equal_additions(puf.as_measure(n), builtin_form(puf.as_measure(n))).split(":")[0] for n in ("puf", "cv")]
    ['function of differences only', 'Lorenz dominance']
    """
    if measure.direction != "lower":
        return None
    if isinstance(form, PairForm) and form.normalisation != "mean" and GAPS[form.gap].facts["differences_only"]:
        return "function of differences only: every gap reads S(u) − S(v), which S + c leaves unchanged"
    if lorenz_consistency(measure, form) is None:
        return None
    return (
        "Lorenz dominance: the shares of S + c are (μ/(μ + c))·(shares of S) + (c/(μ + c))·(equal shares), "
        "so S + c ≥_L S, and the form is Lorenz-consistent (relative and Schur-convex)"
    )


@composition_rule("even in every gap")
def mirror_consistency(measure: Measure, form: PairForm | IndexForm) -> str | None:
    r"""Even gaps without a mean normalisation: f(1 − S) = f(S), so rankings agree.

    Notes
    -----
    A pair form with an even gap (\|ΔS\|, ΔS²) and no
    `mean` normalisation has f(1 − S) = f(S) for every S, since \|(1 − S(u)) − (1 − S(v))\| =
    \|S(u) − S(v)\| and the weights do not read S; so any two populations rank as their shortfalls.

    Examples
    --------
    >>> import puf
    >>> from puf.grammar import builtin_form
    >>> mirror_consistency(puf.as_measure("sd"), builtin_form(puf.as_measure("sd"))).split(":")[0]
    'even in every gap'
    >>> mirror_consistency(puf.as_measure("gini"), builtin_form(puf.as_measure("gini"))) is None
    True
    """
    if not isinstance(form, PairForm) or form.normalisation == "mean" or not GAPS[form.gap].facts["convex_even"]:
        return None
    return (
        "even in every gap: |(1 − S(u)) − (1 − S(v))| = |S(u) − S(v)| and the weights do not read S, so "
        "f(1 − S) = f(S) for every S (the strong form) and any two populations rank alike"
    )
