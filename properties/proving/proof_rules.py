"""Composition rules: what a proof for every m, read off a grammar form's blocks, is made of.

A rule takes a measure and its form (:class:`~puf.grammar.PairForm` or
:class:`~puf.grammar.IndexForm`) and returns the argument that proves its property for
every number of users, or None when its premises do not hold (the search decides then).
Each rule lives in its property's catalog entry (``proof_rule``, declared with
:func:`composition_rule`); this module holds what the rules share: the record of a rule
and the facts of the grammar's blocks they read. The rules and their arguments are
stated in ``docs/guide/proofs.md``; a rule never proves a violation.
"""

from __future__ import annotations

__all__ = [
    "ProofRule",
    "composition_rule",
    "fairest_is_zero",
    "weight_zero_without_similarity",
    "gap_zero_without_similarity",
]

from typing import Callable
from dataclasses import dataclass

from puf.grammar import GAPS, WEIGHTS, IndexForm, PairForm
from puf.metadata import Measure

#: A rule's argument: ``(measure, form) -> str or None``.
Argue = Callable[[Measure, "PairForm | IndexForm"], "str | None"]


@dataclass(frozen=True)
class ProofRule:
    """A composition rule: its name (cited by the proven scope) and its argument.

    Called as ``rule(measure, form)``, it returns the argument proving its property for
    every m, or None when its premises do not hold.

    Examples
    --------
    >>> import puf
    >>> from puf.grammar import builtin_form
    >>> rule = ProofRule("no division", lambda measure, form: "a finite expression")
    >>> m = puf.as_measure("puf")
    >>> rule(m, builtin_form(m)), rule.argument(m, builtin_form(m))
    ('a finite expression', ('no division', 'a finite expression'))
    """

    name: str
    argue: Argue

    def __call__(self, measure: Measure, form: PairForm | IndexForm) -> str | None:
        return self.argue(measure, form)

    def argument(self, measure: Measure, form: PairForm | IndexForm) -> tuple[str, str] | None:
        """``(rule name, argument)`` when the rule proves the property, else None.

        An argument that opens with the rule's name (``"name: why"``) gives the why alone.

        Examples
        --------
        >>> import puf
        >>> from puf.grammar import builtin_form
        >>> rule = ProofRule("bounds", lambda measure, form: "bounds: in [0, 1]")
        >>> m = puf.as_measure("sd")
        >>> rule.argument(m, builtin_form(m))
        ('bounds', 'in [0, 1]')
        """
        argument = self.argue(measure, form)
        if argument is None:
            return None
        head, _, rest = argument.partition(": ")
        return self.name, (rest if head == self.name else argument)


def composition_rule(name: str) -> Callable[[Argue], ProofRule]:
    """Declare a function ``(measure, form) -> str or None`` the composition rule called ``name``.

    Examples
    --------
    >>> @composition_rule("symmetric aggregation")
    ... def anonymity(measure, form):
    ...     return "relabelling users permutes the terms"
    >>> anonymity.name
    'symmetric aggregation'
    """

    def declare(argue: Argue) -> ProofRule:
        return ProofRule(name, argue)

    return declare


def fairest_is_zero(measure: Measure) -> bool:
    """True when lower is fairer and the fairest value is 0.

    Examples
    --------
    >>> import puf
    >>> fairest_is_zero(puf.as_measure("puf"))
    True
    """
    return measure.direction == "lower" and measure.fairest == 0.0


def weight_zero_without_similarity(form: PairForm) -> bool:
    """True when the form's pair weight is 0 at similarity 0 (the grammar's fact, at its threshold).

    Examples
    --------
    >>> import puf
    >>> from puf.grammar import builtin_form
    >>> weight_zero_without_similarity(builtin_form(puf.as_measure("puf")))
    True
    """
    fact = WEIGHTS[form.weight].facts["zero_at_no_similarity"]
    return fact is True or (fact == "t > 0" and form.threshold > 0.0)


def gap_zero_without_similarity(form: PairForm) -> bool:
    """True when the form's gap is 0 at similarity 0 (the grammar's fact, at its Lipschitz constant).

    Examples
    --------
    >>> import puf
    >>> from puf.grammar import builtin_form
    >>> gap_zero_without_similarity(builtin_form(puf.as_measure("puf")))
    False
    """
    fact = GAPS[form.gap].facts["zero_at_no_similarity"]
    return fact is True or (fact == "L >= 1" and form.lipschitz >= 1.0)
