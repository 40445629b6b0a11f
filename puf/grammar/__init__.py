"""puf.grammar: measures built from blocks, each a numpy function and a symbolic expression.

A pair measure (:class:`PairForm`) is a weight of similarity times a gap of
effectiveness, aggregated over pairs or users and normalised; an index measure
(:class:`IndexForm`) is an inequality form ``outer(mean of term(S/μ))``. PUF,
the mean difference, the Lipschitz measures, variance, SD, Gini and the
field's indices are expressions of it (:data:`BUILTIN_FORMS`). A form becomes
an ordinary measure with :func:`grammar_measure`; :mod:`puf.properties.proving.proofs`
reads its structure to prove properties, and ``puf design`` searches the
grammar (:func:`enumerate_forms`) for the forms that meet chosen properties.
"""

__all__ = [
    "PairForm",
    "IndexForm",
    "INDEX_FORMS",
    "WEIGHTS",
    "GAPS",
    "AGGREGATIONS",
    "NORMALISATIONS",
    "TERMS",
    "OUTERS",
    "BUILTIN_FORMS",
    "DEFAULT_GRAMMAR",
    "grammar_measure",
    "form_of",
    "builtin_form",
    "enumerate_forms",
    "load_grammar",
    "Expr",
]

from .building_blocks import AGGREGATIONS, GAPS, NORMALISATIONS, OUTERS, TERMS, WEIGHTS
from .builtins import BUILTIN_FORMS, builtin_form
from .enumeration import DEFAULT_GRAMMAR, enumerate_forms, load_grammar
from .expressions import Expr
from .forms import INDEX_FORMS, IndexForm, PairForm
from .measure import form_of, grammar_measure
