"""The building blocks of grammar measures: each a numpy function, a symbolic one and its facts.

A pair measure is ``coefficient · (aggregation of weight·gap / normalisation)^(½ if root)``;
an index measure is ``outer(mean over users of term(S/μ))``. Every block here
holds the vectorised numpy function, the same function on
:class:`~puf.grammar.expressions.Expr` trees, and the *facts* the proof rules
of :mod:`puf.properties.proving.proofs` compose (homogeneity degree, zero at equal
effectiveness, monotonicity, convexity, bounds), each with the one-line
argument that backs it.
"""

from __future__ import annotations

__all__ = ["Block", "WEIGHTS", "GAPS", "AGGREGATIONS", "NORMALISATIONS", "TERMS", "OUTERS", "lookup_block"]

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from . import expressions as ex

B = TypeVar("B")


@dataclass(frozen=True)
class Block:
    """One building block: its name, numpy function, symbolic function and facts.

    ``numeric(*arrays, parameter)`` and ``symbolic(*exprs, parameter)`` compute
    the same thing, on arrays and on expression trees. ``facts`` maps a fact's
    name to its value (a bool, a number, or None when it does not hold);
    ``parameter`` names the block's one option (``"t"``, ``"L"``, ``"alpha"``), if any.

    Examples
    --------
    >>> gap = GAPS["abs"]
    >>> gap.numeric(np.array([0.2]), np.array([0.7]), None, None).tolist()
    [0.5]
    >>> str(gap.symbolic(ex.effectiveness_symbol(0), ex.effectiveness_symbol(1), None, None))
    '|(S0 − S1)|'
    """

    name: str
    formula: str
    numeric: Callable[..., Any]
    symbolic: Callable[..., Any]
    facts: dict = field(default_factory=dict)
    parameter: str | None = None


def lookup_block(table: Mapping[str, B], name: str, *, what: str) -> B:
    """``table[name]``, or ValueError listing the known names of the ``what``.

    Examples
    --------
    >>> lookup_block(WEIGHTS, "sim", what="weight").formula
    'sim(u,v)'
    """
    try:
        return table[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown {what} {name!r}; known: {', '.join(table)}") from None


# --- pair weights w(sim) ------------------------------------------------------------------
_WEIGHT_FACTS = dict(nondecreasing_in_similarity=True, bounds=(0.0, 1.0))
#: The grammar's pair weights w(sim) by name.
WEIGHTS = {
    b.name: b
    for b in (
        Block(
            "1",
            "1",
            lambda sim, t: np.ones_like(sim),
            lambda w, t: ex.const(1),
            dict(_WEIGHT_FACTS, reads_similarity=False, zero_at_no_similarity=False, bounds=(1.0, 1.0)),
        ),
        Block(
            "sim",
            "sim(u,v)",
            lambda sim, t: sim,
            lambda w, t: w,
            dict(_WEIGHT_FACTS, reads_similarity=True, zero_at_no_similarity=True),
        ),
        Block(
            "sim^2",
            "sim(u,v)²",
            lambda sim, t: sim * sim,
            lambda w, t: w * w,
            dict(_WEIGHT_FACTS, reads_similarity=True, zero_at_no_similarity=True),
        ),
        Block(
            "sim>=t",
            "1{sim(u,v) ≥ t}",
            lambda sim, t: (sim >= t).astype(np.float64),
            lambda w, t: ex.ge(w, t),
            dict(_WEIGHT_FACTS, reads_similarity=True, zero_at_no_similarity="t > 0"),
            parameter="t",
        ),
    )
}

# --- gaps g(S_u, S_v, sim) --------------------------------------------------------------------
_GAP_FACTS = dict(zero_at_equality=True, nondecreasing_in_gap=True, bounds=(0.0, 1.0))


def _excess(su, sv, sim, lipschitz):
    return np.maximum(np.abs(su - sv) - lipschitz * (1.0 - sim), 0.0)


def _violation(su, sv, sim, lipschitz):
    return (np.abs(su - sv) > lipschitz * (1.0 - sim)).astype(np.float64)


#: The grammar's gaps between two users' effectiveness by name.
GAPS = {
    b.name: b
    for b in (
        Block(
            "abs",
            "|S(u) − S(v)|",
            lambda su, sv, sim, L: np.abs(su - sv),
            lambda su, sv, w, L: ex.abs_(su - sv),
            dict(
                _GAP_FACTS,
                degree=1,
                differences_only=True,
                reads_similarity=False,
                convex_even=True,
                nondecreasing_in_similarity=True,
                zero_at_no_similarity=False,
            ),
        ),
        Block(
            "square",
            "(S(u) − S(v))²",
            lambda su, sv, sim, L: (su - sv) ** 2,
            lambda su, sv, w, L: (su - sv) * (su - sv),
            dict(
                _GAP_FACTS,
                degree=2,
                differences_only=True,
                reads_similarity=False,
                convex_even=True,
                nondecreasing_in_similarity=True,
                zero_at_no_similarity=False,
            ),
        ),
        Block(
            "excess",
            "max(0, |S(u) − S(v)| − L·(1 − sim(u,v)))",
            _excess,
            lambda su, sv, w, L: ex.max_(0, ex.abs_(su - sv) - ex.const(L) * (1 - w)),
            dict(
                _GAP_FACTS,
                degree=None,
                differences_only=True,
                reads_similarity=True,
                convex_even=False,
                nondecreasing_in_similarity=True,
                zero_at_no_similarity="L >= 1",
            ),
            parameter="L",
        ),
        Block(
            "violation",
            "1{|S(u) − S(v)| > L·(1 − sim(u,v))}",
            _violation,
            lambda su, sv, w, L: ex.gt(ex.abs_(su - sv), ex.const(L) * (1 - w)),
            dict(
                _GAP_FACTS,
                degree=None,
                differences_only=True,
                reads_similarity=True,
                convex_even=False,
                nondecreasing_in_similarity=True,
                zero_at_no_similarity="L >= 1",
            ),
            parameter="L",
        ),
    )
}


# --- aggregations of the pair terms T[u, v] -----------------------------------------------------
def _upper(terms):
    return terms[np.triu_indices(terms.shape[0], k=1)]


def _user_max(terms):
    masked = terms.copy()
    np.fill_diagonal(masked, -np.inf)
    return float(masked.max(axis=1).mean())


def _symbolic_pairs(terms, m):
    return [terms[u][v] for u in range(m) for v in range(u + 1, m)]


#: The grammar's aggregations of the pair terms by name.
AGGREGATIONS = {
    b.name: b
    for b in (
        Block(
            "pairs",
            "2/(m(m−1)) Σ_{u<v}",
            lambda terms: float(_upper(terms).mean()),
            lambda terms, m: ex.mean(_symbolic_pairs(terms, m)),
            dict(replication_invariant=False, linear=True),
        ),
        Block(
            "all-pairs",
            "1/m² Σ_{u,v} (the m zero terms u = v included)",
            lambda terms: 2.0 * float(_upper(terms).sum()) / terms.shape[0] ** 2,
            lambda terms, m: ex.total(_symbolic_pairs(terms, m)) * ex.const(Fraction(2, m * m)),
            dict(replication_invariant=True, linear=True),
        ),
        Block(
            "max",
            "max_{u<v}",
            lambda terms: float(_upper(terms).max()),
            lambda terms, m: ex.max_(*_symbolic_pairs(terms, m)),
            dict(replication_invariant=True, linear=False),
        ),
        Block(
            "user-max",
            "1/m Σ_u max_{v≠u}",
            _user_max,
            lambda terms, m: ex.mean([ex.max_(*(terms[u][v] for v in range(m) if v != u)) for u in range(m)]),
            dict(replication_invariant=True, linear=False),
        ),
    )
}

NORMALISATIONS = {
    "none": "no normalisation",
    "mean": "divided by μ^d, μ the mean of S and d the gap's homogeneity degree",
    "weights": "divided by the same aggregation of the weights alone (a weighted mean)",
}
"""How a pair measure's aggregate is normalised (the division itself is in :mod:`.forms`)."""


# --- index forms: a term of x = S(u)/μ, averaged over users, then an outer transform -------------
def _entropy(x, alpha):
    if alpha == 0.0:
        return -np.log(x)
    if alpha == 1.0:
        safe = np.where(x > 0.0, x, 1.0)
        return np.where(x > 0.0, x * np.log(safe), 0.0)
    return (x**alpha - 1.0) / (alpha * (alpha - 1.0))


def _entropy_symbolic(x, alpha):
    if alpha == 0.0:
        return -ex.log(x)
    if alpha == 1.0:
        return ex.xlogx(x)
    return (ex.power(x, alpha) - 1) * ex.const(1 / (alpha * (alpha - 1.0)))


def _power(x, epsilon):
    return np.log(x) if epsilon == 1.0 else x ** (1.0 - epsilon)


def _power_symbolic(x, epsilon):
    return ex.log(x) if epsilon == 1.0 else ex.power(x, 1.0 - epsilon)


#: The grammar's index terms of S/μ by name.
TERMS = {
    b.name: b
    for b in (
        Block(
            "entropy",
            "((S/μ)^α − 1)/(α(α−1)); α = 1: (S/μ)·ln(S/μ); α = 0: −ln(S/μ)",
            _entropy,
            _entropy_symbolic,
            dict(convex=True),
            parameter="alpha",
        ),
        Block(
            "power",
            "(S/μ)^(1−ε); ε = 1: ln(S/μ)",
            _power,
            _power_symbolic,
            dict(convex="concave for ε ≤ 1, convex for ε > 1"),
            parameter="epsilon",
        ),
        Block(
            "absolute-deviation",
            "|S/μ − 1|",
            lambda x, p: np.abs(x - 1.0),
            lambda x, p: ex.abs_(x - 1),
            dict(convex=True),
        ),
        Block(
            "squared-deviation",
            "(S/μ − 1)²",
            lambda x, p: (x - 1.0) ** 2,
            lambda x, p: (x - 1) * (x - 1),
            dict(convex=True),
        ),
    )
}


def _atkinson(t, epsilon):
    return 1.0 - np.exp(t) if epsilon == 1.0 else 1.0 - t ** (1.0 / (1.0 - epsilon))


def _atkinson_symbolic(t, epsilon):
    return 1 - ex.exp(t) if epsilon == 1.0 else 1 - ex.power(t, 1.0 / (1.0 - epsilon))


#: The grammar's outer transforms of an index's mean term by name.
OUTERS = {
    b.name: b
    for b in (
        Block("identity", "t", lambda t, p: t, lambda t, p: t, dict(increasing=True)),
        Block("half", "t/2", lambda t, p: 0.5 * t, lambda t, p: t * ex.const(Fraction(1, 2)), dict(increasing=True)),
        Block("sqrt", "√t", lambda t, p: np.sqrt(t), lambda t, p: ex.sqrt(t), dict(increasing=True)),
        Block("share", "t/(1 + t)", lambda t, p: t / (t + 1.0), lambda t, p: t / (t + 1), dict(increasing=True)),
        Block(
            "atkinson",
            "1 − t^(1/(1−ε)); ε = 1: 1 − exp(t)",
            _atkinson,
            _atkinson_symbolic,
            dict(increasing="decreasing for ε < 1 (and ε = 1), increasing for ε > 1"),
            parameter="epsilon",
        ),
    )
}
