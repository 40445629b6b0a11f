"""The record of one property of a fairness measure, and what every formal statement takes for granted.

A :class:`Property` holds a property's documentation (statement, formal statement,
source, kind, the measures it is meant for, the Population fields its transformation
touches) and its check: a Hypothesis strategy of cases (``cases``), hand-made cases
tried first (``explicit``), a judge (:mod:`properties.catalog.judges`) that turns the
measure's values on a case into an *excess* (> 0: violated for a universal property, a
witness for an existential one) and, where one applies, the composition rule that proves
it for a grammar measure (``proof_rule``). The entries themselves live in the module of
their family (:mod:`properties.catalog.listing` lists them in catalog order).
"""

from __future__ import annotations

__all__ = [
    "FORMAL_CONVENTIONS",
    "STATUSES",
    "INEQUALITY_AXIOMS",
    "PUF_CLAIMS",
    "OUTCOME_FIELDS",
    "SCORE_ONLY",
    "Property",
]

from typing import Any, Callable
from dataclasses import dataclass


def _no_examples(level: str) -> list[Any]:
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
        :class:`~puf.properties.cases.case.Case` at ``level`` "score" or "world".
    judge : callable
        ``judge(measure, value_before, value_after, case) -> float`` excess.
    explicit : callable, optional
        ``explicit(level)`` -> list of hand-made cases tried before any
        generated one; default none.
    explain : callable, optional
        ``explain(example) -> str``: the reason a violated verdict reports (``example`` also
        holds the measure's declared range as ``range``, and ``registered``: whether it is a
        registered measure); without one, the runner reports the excess
        (:func:`properties.catalog.judges.explain_excess`).
    single_population : bool, default False
        True when a case is one population judged alone (no ``after``), as its
        stored examples in ``properties/knowledge/known/`` are.
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
    entrywise : bool, default False
        True when the change acts on each user's values, and each pair's, alone (a rescaling, a
        shift, a segment between two populations, gaps widened about a fixed centre, a field
        replaced), so that a user removed from both populations leaves a case of the property
        whenever the smaller case still meets its strategy's precondition (the centre inside
        the users' range): a find whose change moves every user still loses users when it
        shrinks, all but the users the change's text names (:mod:`properties.running.shrink`).
    grouped : bool, default False
        True when the property reads similarity only as a partition of the users into groups
        (its blocks: the subgroup axioms). An example on a measure that reads no similarity
        then shows each user's group (``groups``, :func:`~puf.properties.cases.groups.group_labels`)
        in place of the matrix, and a stored one replays with each group's users alike
        (similarity 1) and strangers across groups.
    remake : callable, optional
        For a property whose other populations are built from ``before`` (the
        rearrangement's pairings, the determinism's queries): ``remake(case, pop) -> Case
        or None``, the case of the same kind around ``pop``, a smaller or simpler
        ``before``; shrinking a find then removes and moves any user and rebuilds the case
        (:mod:`properties.running.shrink`). None: only the users a change leaves alone are
        removed or moved.
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
    narrow : callable, optional
        How a segment case is narrowed (default :func:`properties.running.search.narrow_jump`):
        ``narrow(evaluate, start, end) -> (pop_a, pop_b, value_a, value_b)`` or None when the
        segment shows nothing to judge (``continuity``: no jump that survives the narrowing).
    replays : tuple of str, default ()
        Properties whose cases are cases of this one too (a Pigou–Dalton transfer is a Lorenz
        improvement): their stored examples in ``properties/knowledge/known/`` are replayed
        with this property's own, those that meet this property's precondition, so that a
        violation a known file stores under one is found under the other at any budget.
    proof_rule : callable, optional
        ``proof_rule(measure, form) -> str or None``: the composition rule that proves the
        property for every m from a grammar form's blocks (a
        :class:`~puf.properties.proving.proof_rules.ProofRule`, whose ``name`` the proven
        scope cites), returning the argument, or None when its premises do not hold; a rule
        never proves a violation (``docs/guide/proofs.md``).

    Examples
    --------
    >>> from puf.properties import get_property
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
    explain: Callable | None = None
    single_population: bool = False
    judges_undefined: bool = False
    informational: bool = False
    fresh_workers: bool = False
    derived: Callable | None = None
    uses: tuple = ()
    grouped: bool = False
    entrywise: bool = False
    remake: Callable | None = None
    grid: Callable | None = None
    refine: Callable | None = None
    narrow: Callable | None = None
    replays: tuple = ()
    proof_rule: Callable | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("universal", "existential"):
            raise ValueError(f"kind must be 'universal' or 'existential', got {self.kind!r}")
        for name in ("cases", "judge", "explicit", "explain", "derived", "grid", "refine", "narrow", "proof_rule"):
            if name in ("explain", "derived", "grid", "refine", "narrow", "proof_rule") and getattr(self, name) is None:
                continue
            if not callable(getattr(self, name)):
                raise ValueError(f"{name} of property {self.name!r} must be callable, got {getattr(self, name)!r}")

    def to_dict(self) -> dict[str, Any]:
        """Return the documentation fields as a plain dict (no callables).

        Examples
        --------
        >>> from puf.properties import get_property
        >>> get_property("range").to_dict()["kind"]
        'universal'
        """
        return {
            k: getattr(self, k)
            for k in ("name", "statement", "formal", "source", "kind", "meant_for", "world", "informational")
        } | {"needs": list(self.needs)}


#: The statuses a property's verdict can have, strongest first (:class:`properties.running.verdict.Verdict`
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
    "`defined` alone); so is a case on which a call runs over the time limit, and every case "
    "as large after it (the verdict says from which m). A property that asks for a witness "
    "and finds none says `not-found`, "
    "never `violated`, unless the measure reads none of the fields the change touches."
)
"""What every formal statement of :data:`CATALOG` takes for granted (one place for all)."""

#: The source the inequality literature's properties cite, before the axiom's own name.
INEQUALITY_AXIOMS = "inequality axioms (Atkinson 1970; Cowell, Measuring Inequality)"
#: The source the PUF paper's claims cite.
PUF_CLAIMS = "the PUF paper's sensitivity claims (Rampisela et al., ECIR 2026)"
#: The fields that hold a user's outcome: its effectiveness and the utilities envy reads.
OUTCOME_FIELDS = ("effectiveness", "utility")
#: The ``world`` of a property stated at score level only: a measure read at world level has no case.
SCORE_ONLY = "not applicable (score level only)"
