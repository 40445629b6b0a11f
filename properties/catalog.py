"""The property catalog: what a fairness measure should (or is claimed to) satisfy.

Each :class:`Property` carries its statement, formal statement, source, kind
(``universal``: for every population ...; ``existential``: the measure
responds to ...), the kind of measure it is meant for, the Population fields
its transformation touches, and its check: a Hypothesis strategy of cases
(:mod:`properties._cases`) and a judge that turns the measure's values on a
case into an *excess* (> 0: violated for a universal property, a witness for
an existential one). Lower is fairer unless the measure declares otherwise.
"""

__all__ = ["Property", "CATALOG", "get_property", "catalog_frame"]

import math
from dataclasses import dataclass

from ._cases import CASES as _CASES
from ._cases import EXPLICIT
from ._field_cases import FIELD_CASES

CASES = {**_CASES, **FIELD_CASES}

_REL = 1e-9


def _tol(*values):
    return _REL * max([1.0] + [abs(v) for v in values if math.isfinite(v)])


def _unfairness(measure, value):
    return value if measure.direction == "lower" else -value


def _unchanged(measure, before, after, case):
    return abs(after - before) - _tol(before, after)


def _at_fairest(measure, value, after, case):
    fairest = measure.fairest
    if value == fairest:
        return -1.0
    return abs(value - fairest) - _tol(value) if math.isfinite(fairest) else math.inf


def _in_range(measure, value, after, case):
    low, high = measure.range
    below = low - value if math.isfinite(low) or math.isfinite(value) else -1.0
    above = value - high if math.isfinite(high) or math.isfinite(value) else -1.0
    return max(below, above) - 1e-12


def _not_lower(measure, before, after, case):
    """Before is the less unequal population; the after value must not be fairer."""
    return _unfairness(measure, before) - _unfairness(measure, after) - _tol(before, after)


def _not_higher(measure, before, after, case):
    return _unfairness(measure, after) - _unfairness(measure, before) - _tol(before, after)


def _rearranged(measure, fair, unfair, case):
    gain = _unfairness(measure, unfair) - _unfairness(measure, fair)
    if case.strict:
        return 1e-12 * max(1.0, abs(fair), abs(unfair)) - gain
    return -gain - _tol(fair, unfair)


def _lipschitz(measure, before, after, case):
    low, high = measure.range
    width = high - low if math.isfinite(high - low) else 1.0
    return abs(after - before) / case.delta - 10.0 * width


@dataclass(frozen=True)
class Property:
    """One property of a fairness measure, with its check.

    Attributes
    ----------
    name, statement, formal, source, meant_for : str
        Identification and documentation; ``formal`` is the precise statement.
    kind : {"universal", "existential"}
        Universal: must hold on every valid population; existential: some
        change must move the value (a witness is reported).
    needs : tuple of str
        The Population fields the property's transformation acts on.
    world : str
        How the transformation is expressed on worlds (measures reading
        utility or list_distance are checked there).
    informational : bool
        True for properties that describe rather than judge (scale and
        translation invariance): neither outcome is a defect.
    judge : callable
        ``judge(measure, value_before, value_after, case) -> float`` excess.

    Examples
    --------
    >>> p = get_property("anonymity")
    >>> p.kind, p.needs
    ('universal', ('effectiveness', 'similarity', 'utility', 'list_distance'))
    """

    name: str
    statement: str
    formal: str
    source: str
    kind: str
    meant_for: str
    needs: tuple
    world: str
    judge: object
    informational: bool = False

    def cases(self, level, measure):
        """Return the Hypothesis strategy of cases for a ``level`` ("score" or "world").

        Examples
        --------
        >>> from hypothesis import find
        >>> from puf import as_measure
        >>> case = find(get_property("similarity-zero").cases("score", as_measure("sd")),
        ...             lambda c: c.before.m == 3)
        >>> case.before.similarity.tolist()
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        """
        return CASES[self.name](level, measure)

    def explicit(self, level):
        """Return hand-made cases tried before any generated one (may be empty).

        Examples
        --------
        >>> [c.before.m for c in get_property("range").explicit("score")][:5]
        [2, 2, 3, 3, 3]
        """
        return EXPLICIT[self.name](level) if self.name in EXPLICIT else []

    def to_dict(self):
        """Return the documentation fields as a plain dict (no callables).

        Examples
        --------
        >>> get_property("range").to_dict()["kind"]
        'universal'
        """
        return {k: getattr(self, k) for k in ("name", "statement", "formal", "source", "kind",
                                              "meant_for", "world", "informational")} | {
            "needs": list(self.needs)}


_ALL = ("effectiveness", "similarity", "utility", "list_distance")
_OUT = ("effectiveness", "utility")
_INEQ = "inequality axioms (Atkinson 1970; Cowell, Measuring Inequality)"
_PUF = "the PUF paper's sensitivity claims (Rampisela et al., ECIR 2026)"
_P = Property
CATALOG = {p.name: p for p in (
    _P("range", "the value lies in the declared range",
       "∀ P: low ≤ f(P) ≤ high for the declared range (low, high)",
       "the measure's own declaration", "universal", "every measure", (), "any world", _in_range),
    _P("defined", "the value is finite on every valid population (no NaN, no inf, no exception)",
       "∀ valid P: f(P) ∈ ℝ", "well-definedness", "universal", "every measure", (), "any world",
       None),
    _P("anonymity", "relabelling users leaves the value unchanged",
       "∀ P, permutation π: f(π·P) = f(P), π acting on every per-user field consistently",
       _INEQ + ": symmetry / anonymity", "universal", "every measure", _ALL,
       "permute users (histories, relevance and lists together)", _unchanged),
    _P("zero-at-equality", "equal effectiveness (and no envy) for all users gives the fairest value",
       "∀ P with S(u) = c ∀u: f(P) = fairest end of the declared range",
       _INEQ + ": normalisation", "universal", "every measure", _OUT,
       "relevance = each user's own list (S = 1, no envy) or nothing relevant (S = 0)",
       _at_fairest),
    _P("disparity-monotone", "widening every effectiveness gap never makes the value fairer",
       "∀ P, c, λ > 1 with S' = c + λ(S − c) ∈ [0,1]: f(P') ≥ f(P)",
       _PUF + "; disparity sensitivity", "universal", "measures of effectiveness disparity",
       ("effectiveness",), "best-off user's list made more relevant, or worst-off user's less "
       "(every gap to that user widens by 1/k, no gap narrows)", _not_lower),
    _P("pigou-dalton", "a transfer moving two users' effectiveness towards each other never "
       "makes the value less fair",
       "∀ P, i, j, 0 < τ ≤ ½: S'_i = S_i + τ(S_j − S_i), S'_j = S_j − τ(S_j − S_i) ⇒ f(P') ≤ f(P)",
       _INEQ + ": Pigou–Dalton transfer principle", "universal", "inequality indices",
       ("effectiveness",), "worst-off user gains one relevant listed item, best-off user loses one",
       _not_higher),
    _P("similarity-monotone", "raising sim(u,v) of a pair with unequal effectiveness never makes "
       "the value fairer",
       "∀ P, u ≠ v with S(u) ≠ S(v), s' ∈ (sim(u,v), 1]: f(P[sim(u,v) := s']) ≥ f(P)",
       _PUF + "; similar users should be treated alike", "universal",
       "similarity-aware individual fairness measures", ("similarity",),
       "the derived similarity of one pair raised alone (histories feed nothing else)", _not_lower),
    _P("similarity-sensitive", "some change of similarity alone changes the value",
       "∃ P, sim': f(P[similarity := sim']) ≠ f(P)", _PUF, "existential",
       "individual fairness measures (similar users alike)", ("similarity",),
       "shared history items added to two users", _unchanged),
    _P("effectiveness-sensitive", "some change of relevance alone (lists and histories fixed) "
       "changes the value",
       "∃ world, relevance': f(P(world[relevance := relevance'])) ≠ f(P(world))", _PUF,
       "existential", "every measure of effectiveness fairness", _OUT,
       "one relevance grade changed", _unchanged),
    _P("similarity-zero", "when no two users are similar the value is the fairest",
       "∀ P with sim(u,v) = 0 ∀u ≠ v: f(P) = fairest", _PUF + "; Lipschitz individual fairness "
       "(Dwork et al. 2012) constrains only similar users", "universal",
       "similarity-aware individual fairness measures", ("similarity",),
       "histories made pairwise disjoint (every Jaccard 0)", _at_fairest),
    _P("rearrangement", "most_fair pairing gives a value no less fair than most_unfair, strictly "
       "when the pairing changes the similarity-weighted gaps",
       "f(P_fair) ≤ f(P_unfair); < when Σ sim·|gap| differs between the two pairings",
       _PUF + "; MostFair vs MostUnfair pairing", "universal",
       "similarity-aware individual fairness measures", ("effectiveness",),
       "users' outcomes (relevance and list) reassigned by the pairing; histories fixed",
       _rearranged),
    _P("replication-invariance", "replicating the population r times leaves the value unchanged",
       "∀ P, r ≥ 2: f(P ⊗ r) = f(P) (a user and its copies have similarity 1)",
       _INEQ + ": Dalton's population principle", "universal",
       "measures compared across population sizes", _ALL, "every user copied r times",
       _unchanged),
    _P("scale-invariance", "multiplying all effectiveness leaves the value unchanged",
       "∀ P, a ∈ (0,1): f(P[S := aS, utility := a·utility]) = f(P)",
       _INEQ + ": relative inequality", "universal", "relative inequality indices (informational)",
       _OUT, "derived effectiveness and utility rescaled", _unchanged, True),
    _P("translation-invariance", "shifting all effectiveness leaves the value unchanged",
       "∀ P, b with S + b ∈ [0,1]: f(P[S := S + b, utility := utility + b]) = f(P)",
       _INEQ + ": absolute inequality", "universal", "absolute inequality indices (informational)",
       _OUT, "derived effectiveness and utility shifted", _unchanged, True),
    _P("continuity", "a perturbation of size δ in the fields read changes the value by O(δ)",
       "∀ P, ‖P' − P‖∞ ≤ δ: |f(P') − f(P)| ≤ 10·(high − low)·δ",
       "Lipschitz individual fairness (Dwork et al. 2012)", "universal", "every measure",
       _ALL, "derived fields perturbed (no discrete world change is small)", _lipschitz),
)}


def get_property(name):
    """Return the :class:`Property` called ``name``.

    Examples
    --------
    >>> get_property("pigou-dalton").source.startswith("inequality")
    True
    >>> get_property("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown property 'nope'; known properties: range, defined, ...
    """
    if isinstance(name, Property):
        return name
    try:
        return CATALOG[name]
    except KeyError:
        raise ValueError(f"unknown property {name!r}; known properties: {', '.join(CATALOG)}") from None


def catalog_frame():
    """Return the catalog as a pandas DataFrame, one row per property.

    Examples
    --------
    >>> catalog_frame().loc["anonymity", "kind"]
    'universal'
    """
    import pandas as pd

    return pd.DataFrame([p.to_dict() for p in CATALOG.values()]).set_index("name")
