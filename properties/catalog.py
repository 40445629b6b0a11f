"""The property catalog: what a fairness measure should (or is claimed to) satisfy.

Each :class:`Property` is one object holding its documentation (statement,
formal statement, source, kind, the measures it is meant for, the Population
fields its transformation touches) and its check: a Hypothesis strategy of
cases (``cases``, e.g. :mod:`properties.user_cases`), hand-made cases tried
first (``explicit``) and a judge (:mod:`properties.judges`) that turns the
measure's values on a case into an *excess* (> 0: violated for a universal
property, a witness for an existential one). The runner knows no property by
name: adding one is one :data:`CATALOG` entry (with its strategy of cases)
plus its pinned verdicts in ``properties/known/``.
"""

from __future__ import annotations

__all__ = ["FORMAL_CONVENTIONS", "Property", "CATALOG", "STATUSES", "get_property", "catalog_frame"]

from typing import Any, Callable
from dataclasses import dataclass

from . import judges
from .axioms import AXIOM_ENTRIES
from .pair_axioms import PAIR_ENTRIES
from .field_cases import continuity_cases, scale_cases, translation_cases
from .outcome_cases import (
    disparity_cases,
    effectiveness_change_cases,
    effectiveness_change_grid,
    transfer_cases,
    zero_at_equality_cases,
)
from .similarity_cases import (
    no_similarity_cases,
    similarity_change_cases,
    similarity_change_grid,
    similarity_raise_cases,
)
from .user_cases import (
    anonymity_cases,
    anonymity_examples,
    extreme_examples,
    rearrangement_cases,
    repeat_cases,
    replication_cases,
    single_cases,
)
from .cases import Case
from puf.population import FIELDS
import pandas as pd


def _no_examples(level: str) -> list[Case]:
    return []


@dataclass(frozen=True, kw_only=True)
class Property:
    """One property of a fairness measure, with its check (built with keyword arguments).

    Attributes
    ----------
    name, statement, formal, source, meant_for : str
        Identification and documentation; ``formal`` is the precise statement (read with
        :data:`FORMAL_CONVENTIONS`): exactly what the search tests.
    kind : {"universal", "existential"}
        Universal: must hold on every valid population; existential: some
        change must move the value (a witness is reported).
    needs : tuple of str
        The Population fields the property's transformation acts on.
    world : str
        How the transformation is expressed on worlds (measures reading
        utility or list_distance are checked there).
    cases : callable
        ``cases(level, measure)`` -> Hypothesis strategy of
        :class:`~puf.properties.cases.Case` at ``level`` "score" or "world".
    judge : callable
        ``judge(measure, value_before, value_after, case) -> float`` excess.
    explicit : callable, optional
        ``explicit(level)`` -> list of hand-made cases tried before any
        generated one; default none.
    explain : callable, default :func:`properties.judges.explain_excess`
        ``explain(example) -> str``: the reason a violated verdict reports.
    single_population : bool, default False
        True when a case is one population judged alone (no ``after``), as its
        stored examples in ``properties/known/`` are.
    judges_undefined : bool, default False
        True when an undefined value is what the property judges (``defined``):
        NaN and infinite values are judged rather than set aside, and a measure
        that raises violates the property rather than leaving it undefined.
    informational : bool, default False
        True for properties that describe rather than judge (scale and
        translation invariance): neither outcome is a defect.
    fresh_workers : bool, default False
        True when the values compared come from two worker processes of the
        property's own, started fresh (``deterministic``): the first is asked
        each case's ``before`` alone, as the first call of a process, the second
        each ``after`` (and each alternative's) followed by ``before`` again.
    derived : callable, optional
        ``derived(case) -> dict`` of named populations built from a case's
        ``before`` and ``after`` alone (the subgroups of a partition, the
        candidate extremes at the case's size). The runner evaluates the measure
        on each and hands the values to the judge as ``case.values``; since they
        are rebuilt from ``before`` and ``after``, a stored example replays whole.
    uses : tuple of str, default ()
        Population fields the property's own judgment reads beyond ``needs`` (the
        rearrangement's pairing reads similarity): shown and stored with every example,
        with the fields the measure reads and ``needs``.
    shrinks : bool, default True
        False when a find cannot lose a user the change leaves alone and stay a case of the
        property (the rearrangement's pairings are of the whole population); see
        :mod:`properties.shrink`.
    grid : callable, optional
        For an existential property: ``grid(level, measure)`` -> list of cases tried, outside
        Hypothesis, when the search found no witness (exhaustive small grids such as
        {0, ½, 1}^m for small m). A witness still not found is ``not-found``, never
        ``violated``, unless a proof shows none exists (the measure reads none of ``needs``).
    refine : callable, optional
        For a property that asks for a witness inside a universal claim (``attainable-range``:
        at every m, some population reaches each end): ``refine(case, value, measure) ->
        (values, n)``, a stronger search run when the judge finds a shortfall, before it counts
        (the exhaustive small grid, then a local optimiser from the best candidates); its
        ``values`` join ``case.values`` and the case is judged again. A shortfall that survives
        it is ``not-found in n candidates``, never ``violated``: a failed search is no proof.

    Examples
    --------
    >>> p = get_property("anonymity")
    >>> p.kind, p.needs
    ('universal', ('effectiveness', 'similarity', 'utility', 'list_distance'))
    >>> from hypothesis import find
    >>> from puf import as_measure
    >>> case = find(get_property("similarity-zero").cases("score", as_measure("sd")),
    ...             lambda c: c.before.m == 3)
    >>> case.before.similarity.tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    >>> [c.before.m for c in get_property("range").explicit("score")][:5]
    [2, 2, 3, 3, 3]
    """

    name: str
    statement: str
    formal: str
    source: str
    kind: str
    meant_for: str
    needs: tuple
    world: str
    cases: Callable
    judge: Callable
    explicit: Callable = _no_examples
    explain: Callable = judges.explain_excess
    single_population: bool = False
    judges_undefined: bool = False
    informational: bool = False
    fresh_workers: bool = False
    derived: Callable | None = None
    uses: tuple = ()
    shrinks: bool = True
    grid: Callable | None = None
    refine: Callable | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("universal", "existential"):
            raise ValueError(f"kind must be 'universal' or 'existential', got {self.kind!r}")
        for name in ("cases", "judge", "explicit", "explain", "derived", "grid", "refine"):
            if name in ("derived", "grid", "refine") and getattr(self, name) is None:
                continue
            if not callable(getattr(self, name)):
                raise ValueError(f"{name} of property {self.name!r} must be callable, got {getattr(self, name)!r}")

    def to_dict(self) -> dict[str, Any]:
        """Return the documentation fields as a plain dict (no callables).

        Examples
        --------
        >>> get_property("range").to_dict()["kind"]
        'universal'
        """
        return {
            k: getattr(self, k)
            for k in ("name", "statement", "formal", "source", "kind", "meant_for", "world", "informational")
        } | {"needs": list(self.needs)}


#: The statuses a property's verdict can have, strongest first (:class:`properties.runner.Verdict`
#: says what each means).
STATUSES = ("proven", "holds", "violated", "not-found", "undefined", "not-applicable")

FORMAL_CONVENTIONS = (
    "P ranges over valid populations: m ≥ 2 users, S ∈ [0, 1]^m, a symmetric similarity in "
    "[0, 1] (unit diagonal at score level; a Jaccard of 0 where a history is empty) (utility in [0, 1], list distance ≥ 0); at world level P is "
    "derived from a world (P@k, Jaccard similarity). r = m·2⁻⁵²·max(1, |a|, |b|) is the float "
    "resolution of values a, b over m users: a change below r is rounding, not a change; a ≐ b "
    "means |a − b| ≤ tol, tol = max(1e-9·max(1, |a|, |b|), r), and 'strictly fairer' means "
    "fairer by more than r; 'fairer' follows the measure's direction (lower is fairer unless "
    "it declares higher). A case on which f is NaN or ±inf or raises is set aside (judged by "
    "`defined` alone). A property that asks for a witness and finds none says `not-found`, "
    "never `violated`, unless the measure reads none of the fields the change touches."
)
"""What every formal statement of :data:`CATALOG` takes for granted (one place for all)."""

_ALL = FIELDS
_OUT = ("effectiveness", "utility")
_INEQ = "inequality axioms (Atkinson 1970; Cowell, Measuring Inequality)"
_PUF = "the PUF paper's sensitivity claims (Rampisela et al., ECIR 2026)"
#: Every property by name, in the order verdicts and tables list them.
CATALOG = {
    p.name: p
    for p in (
        Property(
            name="range",
            statement="the value lies in the declared range",
            formal="∀ P with f(P) defined: low − r ≤ f(P) ≤ high + r for the declared range (low, high)",
            source="the measure's own declaration",
            kind="universal",
            meant_for="every measure",
            needs=(),
            world="any world",
            cases=single_cases,
            explicit=extreme_examples,
            judge=judges.in_range,
            single_population=True,
        ),
        Property(
            name="defined",
            statement="the value is finite on every valid population (no NaN, no inf, no exception)",
            formal="∀ P: f(P) returns a finite real number (no NaN, no ±inf, no exception)",
            source="well-definedness",
            kind="universal",
            meant_for="every measure",
            needs=(),
            world="any world",
            cases=single_cases,
            explicit=extreme_examples,
            judge=judges.finite,
            explain=judges.explain_undefined,
            single_population=True,
            judges_undefined=True,
        ),
        Property(
            name="anonymity",
            statement="relabelling users leaves the value unchanged",
            formal="∀ P, permutation π of the users: f(π·P) ≐ f(P), π acting on every per-user "
            "field consistently (rows and columns of the matrices)",
            source=_INEQ + ": symmetry / anonymity",
            kind="universal",
            meant_for="every measure",
            needs=_ALL,
            world="permute users (histories, relevance and lists together)",
            cases=anonymity_cases,
            explicit=anonymity_examples,
            judge=judges.unchanged,
        ),
        Property(
            name="zero-at-equality",
            statement="equal effectiveness for all users gives the fairest value",
            formal="∀ P with S(u) = c for every user u, c ∈ [0, 1], every other field free: f(P) ≐ "
            "fairest end of the declared range (world level: every user's P@k equal, the "
            "relevance of items outside a user's own list free, so users may envy each other)",
            source=_INEQ + ": normalisation",
            kind="universal",
            meant_for="every measure",
            needs=_OUT,
            world="every list holding the same number of relevant items, items on other users' "
            "lists relevant as drawn (envy at equal P@k); or relevance = each user's own list "
            "(S = 1, no envy); or nothing relevant (S = 0)",
            cases=zero_at_equality_cases,
            judge=judges.at_fairest,
            single_population=True,
        ),
        Property(
            name="disparity-monotone",
            statement="widening every effectiveness gap about a centre inside the population's "
            "range never makes the value fairer",
            formal="∀ P', c ∈ [min S', max S'], μ ∈ [0, 1): P = P'[S := c + μ(S' − c)] ⇒ f(P') is "
            "not fairer than f(P) (f(P') ≥ f(P) − tol, lower fairer; λ = 1/μ > 1 is the "
            "widening); world level: P' = P with a best-off user's S raised by 1/k or a "
            "worst-off user's lowered by 1/k",
            source=_PUF + "; disparity sensitivity",
            kind="universal",
            meant_for="measures of effectiveness disparity",
            needs=("effectiveness",),
            world="best-off user's list made more relevant, or worst-off user's less "
            "(every gap to that user widens by 1/k, no gap narrows)",
            cases=disparity_cases,
            judge=judges.not_fairer,
        ),
        Property(
            name="pigou-dalton",
            statement="a transfer moving two users' effectiveness towards each other never makes the value less fair",
            formal="∀ P, users i ≠ j, τ ∈ (0, ½]: P' = P with S'_i = S_i + τ(S_j − S_i), "
            "S'_j = S_j − τ(S_j − S_i), everything else fixed ⇒ f(P') is not less fair than "
            "f(P) (f(P') ≤ f(P) + tol, lower fairer); world level: the worst-off user gains "
            "one relevant listed item and the best-off loses one, their gap ≥ 2/k (τ = "
            "1/(k·gap))",
            source=_INEQ + ": Pigou–Dalton transfer principle",
            kind="universal",
            meant_for="inequality indices",
            needs=("effectiveness",),
            world="worst-off user gains one relevant listed item, best-off user loses one",
            cases=transfer_cases,
            judge=judges.not_less_fair,
        ),
        Property(
            name="similarity-monotone",
            statement="raising sim(u,v) of a pair with unequal effectiveness never makes the value fairer",
            formal="∀ P, u ≠ v with S(u) ≠ S(v) and sim(u,v) < 1, s' ∈ (sim(u,v), 1]: "
            "f(P[sim(u,v) = sim(v,u) := s']) is not fairer than f(P) (≥ f(P) − tol, lower "
            "fairer)",
            source=_PUF + "; similar users should be treated alike",
            kind="universal",
            meant_for="similarity-aware individual fairness measures",
            needs=("similarity",),
            world="the derived similarity of one pair raised alone (histories feed nothing else)",
            cases=similarity_raise_cases,
            judge=judges.not_fairer,
            uses=("effectiveness",),  # the premise S(u) ≠ S(v): shown even to a measure not reading S
        ),
        Property(
            name="similarity-sensitive",
            statement="some change of similarity alone changes the value",
            formal="∃ P, sim' (symmetric, unit diagonal, in [0, 1]): f(P[similarity := sim']) ≠ f(P) by more than tol",
            source=_PUF,
            kind="existential",
            meant_for="individual fairness measures (similar users alike)",
            needs=("similarity",),
            world="shared history items added to two users",
            cases=similarity_change_cases,
            grid=similarity_change_grid,
            judge=judges.unchanged,
        ),
        Property(
            name="effectiveness-sensitive",
            statement="some change of relevance alone (lists and histories fixed) changes the value",
            formal="∃ world, relevance' (lists and histories fixed): f(P(world[relevance := "
            "relevance'])) ≠ f(P(world)) by more than tol (score level: ∃ P, S': "
            "f(P[S := S']) ≠ f(P))",
            source=_PUF,
            kind="existential",
            meant_for="every measure of effectiveness fairness",
            needs=_OUT,
            world="one relevance grade changed",
            cases=effectiveness_change_cases,
            grid=effectiveness_change_grid,
            judge=judges.unchanged,
        ),
        Property(
            name="similarity-zero",
            statement="when no two users are similar the value is the fairest",
            formal="∀ P with sim(u,v) = 0 for every u ≠ v, every other field free: f(P) ≐ "
            "fairest end of the declared range",
            source=_PUF + "; Lipschitz individual fairness (Dwork et al. 2012) constrains only similar users",
            kind="universal",
            meant_for="similarity-aware individual fairness measures",
            needs=("similarity",),
            world="histories made pairwise disjoint (every Jaccard 0)",
            cases=no_similarity_cases,
            judge=judges.at_fairest,
            single_population=True,
        ),
        Property(
            name="rearrangement",
            statement="most_fair pairing gives a value no less fair than most_unfair, strictly when "
            "the pairing changes the similarity-weighted gaps",
            formal="∀ P with m ≤ 12: f(P_fair) is not less fair than f(P_unfair) (to tol), and fairer by more "
            "than r when Σ sim·|gap| of P_unfair exceeds that of P_fair by "
            "more than 1e-9; P_fair, P_unfair: the users' outcomes permuted by the most_fair "
            "and most_unfair pairing orders",
            source=_PUF + "; MostFair vs MostUnfair pairing",
            kind="universal",
            meant_for="similarity-aware individual fairness measures",
            needs=("effectiveness",),
            world="users' outcomes (relevance and list) reassigned by the pairing; histories fixed",
            cases=rearrangement_cases,
            judge=judges.rearranged,
            explain=judges.explain_rearranged,
            uses=("similarity",),
            shrinks=False,
        ),
        Property(
            name="replication-invariance",
            statement="replicating the population r times leaves the value unchanged",
            formal="∀ P, r ∈ {2, 3}: f(P ⊗ r) ≐ f(P) (every user copied r times; a user and "
            "its copies have similarity 1)",
            source=_INEQ + ": Dalton's population principle",
            kind="universal",
            meant_for="measures compared across population sizes",
            needs=_ALL,
            world="every user copied r times",
            cases=replication_cases,
            judge=judges.unchanged,
        ),
        Property(
            name="scale-invariance",
            statement="multiplying all effectiveness leaves the value unchanged",
            formal="∀ P, a ∈ [0.001, 0.999]: f(P[S := aS, utility := a·utility]) ≐ f(P)",
            source=_INEQ + ": relative inequality",
            kind="universal",
            meant_for="relative inequality indices (informational)",
            needs=_OUT,
            world="derived effectiveness and utility rescaled",
            cases=scale_cases,
            judge=judges.unchanged,
            informational=True,
        ),
        Property(
            name="translation-invariance",
            statement="shifting all effectiveness leaves the value unchanged",
            formal="∀ P, b with S + b and utility + b in [0, 1]: f(P[S := S + b, utility := utility + b]) ≐ f(P)",
            source=_INEQ + ": absolute inequality",
            kind="universal",
            meant_for="absolute inequality indices (informational)",
            needs=_OUT,
            world="derived effectiveness and utility shifted",
            cases=translation_cases,
            judge=judges.unchanged,
            informational=True,
        ),
        Property(
            name="continuity",
            statement="a perturbation of size δ in the fields read changes the value by O(δ)",
            formal="∀ P, P' differing only in the fields f reads (each in its range), δ = "
            "‖P' − P‖∞ > 0, f(P) and f(P') defined: |f(P') − f(P)| ≤ 10·w·δ, where w = "
            "high − low for a bounded declared range and w = 1 for an unbounded one",
            source="Lipschitz individual fairness (Dwork et al. 2012)",
            kind="universal",
            meant_for="every measure",
            needs=_ALL,
            world="derived fields perturbed (no discrete world change is small)",
            cases=continuity_cases,
            judge=judges.lipschitz,
        ),
        *(Property(**entry) for entry in AXIOM_ENTRIES),
        *(Property(**entry) for entry in PAIR_ENTRIES),
        Property(
            name="deterministic",
            statement="the same population gets the same value, asked again or after other populations",
            formal="∀ P, Q: f(P) as the first call of a fresh process ≐ "
            "f(P) asked in a second fresh worker right after f(Q), for Q = P with its extremes "
            "moved a quarter of their gap towards each other (same m and mean; world level: "
            "P relabelled), P relabelled, a population drawn anew and (score level) P's "
            "users at 0 and 1 in turn (registered built-in measures: both in-process)",
            source="reproducibility: a measure is a function of the population alone",
            kind="universal",
            meant_for="every measure",
            needs=(),
            world="the same derived population asked again after other worlds' populations",
            cases=repeat_cases,
            judge=judges.unchanged,
            fresh_workers=True,
        ),
    )
}


def get_property(name: str | Property) -> Property:
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


def catalog_frame() -> pd.DataFrame:
    """Return the catalog as a pandas DataFrame, one row per property.

    Examples
    --------
    >>> catalog_frame().loc["anonymity", "kind"]
    'universal'
    """
    import pandas as pd

    return pd.DataFrame([p.to_dict() for p in CATALOG.values()]).set_index("name")
