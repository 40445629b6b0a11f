"""Continuity where the measure is defined: jumps found by bisection, and the ``continuity`` entry.

A measure is continuous at a population P where it is defined when every small enough
change of the fields it reads moves its value little. A threshold, an indicator or a
neighbour set chosen by rank breaks that: the value jumps by a gap that does not
shrink however close the two populations come. :func:`narrow_to_jump` looks for such
a gap on a segment P(t) = (1 − t)·P0 + t·P1 by bisection, down to two populations
:data:`JUMP_DISTANCE` apart, and keeps it only when it survives
:data:`PERSIST_HALVINGS` further halvings (a steep continuous change shrinks about
1024-fold over ten halvings; a jump keeps its size). :func:`jump` judges the two
populations it returns; :func:`properties.cases.jump_cases.jump_cases` draws the segments.
"""

from __future__ import annotations

__all__ = [
    "JUMP_DISTANCE",
    "PERSIST_HALVINGS",
    "CONTINUITY_ENTRIES",
    "narrow_to_jump",
    "jump",
    "continuous_blocks",
    "perturbation_or_jump_cases",
]

from collections.abc import Callable
from typing import Any
import math


from hypothesis import strategies as st

from puf.grammar import IndexForm, PairForm
from puf.metadata import Measure
from puf.population import FIELDS, Population

from . import judges
from ..cases.case import Case, distance
from ..cases.field_cases import lipschitz_cases
from ..cases.jump_cases import STEEP_SEGMENTS, TIED_SEGMENTS, jump_cases, steep_segments, tied_segments
from ..cases.preconditions import precondition, precondition_of
from ..proving.proof_rules import composition_rule

JUMP_DISTANCE = 1e-12
"""How close the two ends of a narrowed piece are, in t and in every field (max-norm)."""
PERSIST_HALVINGS = 10
"""Further halvings a jump's gap must survive, keeping at least half of its size."""
CONFIRM_HALVINGS = 1000
"""Halvings more for a gap that survived those, down to t's float step: a steep continuous change
(x^(1/m) at x = 0, as the Atkinson index with ε = 1 has where a user's S reaches 0) keeps half its
gap over ten halvings when m ≥ 10, never over hundreds; a jump keeps all of it. They stop early
when 20 halvings in a row leave the gap within 10⁻⁹ of itself (a step's sides no longer move)."""
_STEADY_HALVINGS = 20


def _point(start: Population, end: Population, t: float) -> Population:
    """The population ``(1 − t)·start + t·end`` (as ``start + t·(end − start)``)."""
    a, b = start.fields(), end.fields()
    return start.replace(**{f: a[f] + t * (b[f] - a[f]) for f in a if f in b})


Piece = tuple[float, float, float, float]


def _gap(piece: Piece) -> float:
    return abs(piece[3] - piece[2])


def _halves(evaluate: Callable[[Population], float], start: Population, end: Population, piece: Piece) -> list[Piece]:
    low, high, f_low, f_high = piece
    mid = 0.5 * (low + high)
    f_mid = evaluate(_point(start, end, mid))
    if not math.isfinite(f_mid):
        return []  # the measure is undefined inside the piece: not a jump where it is defined
    return [(low, mid, f_low, f_mid), (mid, high, f_mid, f_high)]


def narrow_to_jump(
    evaluate: Callable[[Population], float],
    start: Population,
    end: Population,
    *,
    points: int = 16,
    beam: int = 4,
) -> tuple[Population, Population, float, float] | None:
    """Return ``(pop_a, pop_b, value_a, value_b)``: a jump of ``evaluate`` on the segment, or None.

    The segment from ``start`` to ``end`` is cut into ``points`` pieces (those with a finite
    value at both ends are kept); every piece is halved and the ``beam`` halves whose values
    differ most are kept, until a piece is at most :data:`JUMP_DISTANCE` long in t and in
    every field. The piece whose values differ most is then halved
    :data:`PERSIST_HALVINGS` times more, keeping the half whose values differ most; it is a
    jump when its gap is still at least half the gap it had, and the two ends of the last
    piece are returned. None when the gap shrank (a continuous change) or no piece has two
    finite ends. A pair at most :data:`JUMP_DISTANCE` apart (a stored or shrunk find) is only
    halved those times more: a jump when its gap persists.

    Parameters
    ----------
    evaluate : callable
        Population -> float, NaN where the measure is undefined.
    start, end : Population
        The ends of the segment: the same users, the same fields.
    points, beam : int
        Pieces of the first cut, and pieces kept at each halving.

    Returns
    -------
    tuple or None
        The two populations at most about 10⁻¹⁵ apart across the jump, and their values.

    Examples
    --------
    >>> import numpy as np
    >>> from puf import Population
    >>> a, b = Population([0.0, 0.0], np.eye(2)), Population([1.0, 0.0], np.eye(2))
    >>> step = lambda pop: float(pop.effectiveness[0] > 0.3)   # a jump at S(0) = 0.3
    >>> low, high, f_low, f_high = narrow_to_jump(step, a, b)
    >>> f_low, f_high, distance(low, high) < 1e-14
    (0.0, 1.0, True)
    >>> steep = lambda pop: float(np.sqrt(pop.effectiveness[0]))   # continuous, not Lipschitz
    >>> narrow_to_jump(steep, a, b) is None
    True
    """
    if distance(start, end) <= JUMP_DISTANCE:  # a pair already (stored, or shrunk): does its gap persist?
        f_start, f_end = evaluate(start), evaluate(end)
        if not (math.isfinite(f_start) and math.isfinite(f_end)):
            return None
        pieces = [(0.0, 1.0, f_start, f_end)]
        return _persisting(evaluate, start, end, pieces)
    grid = [k / points for k in range(points + 1)]
    values = [evaluate(_point(start, end, t)) for t in grid]
    pieces = [
        (grid[i], grid[i + 1], values[i], values[i + 1])
        for i in range(points)
        if math.isfinite(values[i]) and math.isfinite(values[i + 1])
    ]
    length = max(distance(start, end), 1.0)
    while pieces and (pieces[0][1] - pieces[0][0]) * length > JUMP_DISTANCE:
        halves = [half for piece in pieces for half in _halves(evaluate, start, end, piece)]
        pieces = sorted(halves, key=lambda piece: -_gap(piece))[:beam]
    return _persisting(evaluate, start, end, pieces) if pieces else None


def _persisting(
    evaluate: Callable[[Population], float], start: Population, end: Population, pieces: list[Piece]
) -> tuple[Population, Population, float, float] | None:
    """The jump of the widest-gap piece when its gap survives :data:`PERSIST_HALVINGS` halvings
    (keeping at least half), else None. A piece in the segment's upper half is halved from the
    other end: t near 1 has a float step of 2⁻⁵³, so its halvings would stop moving after a few
    and a steep continuous change (√x at x = 0) would keep its gap, as a jump does."""
    piece = max(pieces, key=_gap)
    reversed_ = piece[0] > 0.5
    if reversed_:  # (1 − t is exact for t in [½, 1])
        start, end = end, start
        piece = (1.0 - piece[1], 1.0 - piece[0], piece[3], piece[2])
    widest, steady = _gap(piece), 0
    for count in range(PERSIST_HALVINGS + CONFIRM_HALVINGS):
        if count == PERSIST_HALVINGS and _gap(piece) < 0.5 * widest:
            return None  # (most continuous changes: the rest is for what survives this)
        if not piece[0] < 0.5 * (piece[0] + piece[1]) < piece[1] or steady == _STEADY_HALVINGS:
            break  # t's float step, or a gap no halving moves any more (a step): halved far enough
        halves = _halves(evaluate, start, end, piece)
        if not halves:
            return None
        gap = _gap(piece)
        piece = max(halves, key=_gap)
        steady = steady + 1 if abs(_gap(piece) - gap) <= 1e-9 * gap else 0
    if _gap(piece) < 0.5 * widest:
        return None
    low, high, f_low, f_high = piece
    ends = (_point(start, end, low), _point(start, end, high), f_low, f_high)
    return (ends[1], ends[0], ends[3], ends[2]) if reversed_ else ends  # (in the segment's direction)


def jump(measure: Measure, before: float, after: float, case: Any) -> float:
    """Excess of a narrowed piece's gap ``|after − before|`` over the tolerance of an equality.

    A case still a segment (nothing survived the narrowing) or with its two populations more
    than :data:`JUMP_DISTANCE` apart judges nothing (−inf). The tolerance is the larger of
    10⁻⁹·max(1, |values|) and the values' float resolution over m users
    (:func:`properties.catalog.judges.resolution`): a smaller gap is rounding, never a jump; for a
    measure that returns a coarser float (float32), a gap within its rounding is undecided, as
    for every equality (:func:`properties.catalog.judges.unchanged`).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from puf import as_measure
    >>> near = SimpleNamespace(segment=False, delta=1e-15, before=None)
    >>> jump(as_measure("peu"), 0.0, 0.5, near) > 0 > jump(as_measure("peu"), 0.5, 0.5 + 1e-12, near)
    True
    >>> jump(as_measure("peu"), 0.0, 0.5, SimpleNamespace(segment=False, delta=0.1, before=None))
    -inf
    """
    if case.segment or not case.delta <= JUMP_DISTANCE:
        return -math.inf
    return judges.unchanged(measure, before, after, case)


@precondition(precondition_of(lipschitz_cases))
def perturbation_or_jump_cases(level: str, measure: str | Callable[..., Any]) -> st.SearchStrategy[Case]:
    """``lipschitz-continuity``'s cases: a δ-perturbation or segment of
    :func:`properties.cases.field_cases.lipschitz_cases`, or a segment of
    :func:`properties.cases.jump_cases.jump_cases` (a jump is as much a break of a Lipschitz
    bound as a steep slope is).

    Examples
    --------
    >>> from hypothesis import find
    >>> find(perturbation_or_jump_cases("score", "sd"), lambda c: "swept" in c.change).segment
    True
    """
    return st.one_of(lipschitz_cases(level, measure), jump_cases(level, measure))


_CONTINUOUS_WEIGHTS = ("1", "sim", "sim^2")
_CONTINUOUS_GAPS = ("abs", "square", "excess")


@composition_rule("continuous blocks")
def continuous_blocks(measure: Measure, form: PairForm | IndexForm) -> str | None:
    """The proof rule of ``continuity`` for a grammar form built from continuous blocks, or None.

    An index form outer((1/m) Σ term(S/μ)) composes continuous functions; a pair form whose
    weight and gap are continuous (not the threshold weight 1{sim ≥ t} with t > 0, nor the
    indicator gap ``violation``) sums or maximises them over a fixed set of pairs, and divides
    only by a normalisation where it is non-zero (the form is undefined where it is zero).

    Notes
    -----
    The weights `1`, `sim`, `sim^2` and the gaps `abs`, `square`,
    `excess` are continuous in S and the similarity; a mean, a sum or a maximum over a fixed set of
    pairs of continuous terms is continuous, a normalisation divides where it is non-zero (the form
    is undefined where it is zero) and a root is taken of a non-negative value. An index form
    composes functions continuous where they are defined (μ > 0, every term finite). The threshold
    weight `sim>=t` (t > 0) and the indicator gap `violation` jump, and the rule does not apply.

    Examples
    --------
    >>> from puf import as_measure
    >>> continuous_blocks(as_measure("puf"), PairForm(weight="sim", gap="abs")).startswith("continuous")
    True
    >>> continuous_blocks(as_measure("puf"), PairForm(gap="violation")) is None
    True
    """
    if isinstance(form, PairForm):
        weight = form.weight in _CONTINUOUS_WEIGHTS or (form.weight == "sim>=t" and form.threshold <= 0.0)
        if not weight or form.gap not in _CONTINUOUS_GAPS:
            return None
        return (
            "continuous blocks: a continuous weight and gap, summed or maximised over a fixed set of "
            "pairs, divided only where the normalisation is non-zero and rooted where non-negative, "
            "are continuous wherever the form is defined"
        )
    return (
        "continuous blocks: outer((1/m) Σ term(S/μ)) composes functions continuous where they are "
        "defined (μ > 0, every term finite), so the index is continuous wherever it is defined"
    )


#: The keyword arguments of the catalog's ``continuity`` and ``lipschitz-continuity`` properties
#: (``Property(**entry)``), in catalog order.
CONTINUITY_ENTRIES: tuple[dict[str, Any], ...] = (
    dict(
        name="continuity",
        statement="where the measure is defined, a small enough change of the fields it reads "
        "changes the value little: no jump",
        formal="∀ P where f is defined, ∀ ε > 0 ∃ δ > 0: |f(P′) − f(P)| < ε for every valid P′ "
        "with ‖P′ − P‖∞ < δ in the fields f reads. Tested on segments P(t) = (1 − t)·P0 + t·P1 "
        "(P0, P1 differing only in the fields f reads, each in its range, no drawn value in "
        "(0, 10⁻⁶)): bisection keeps the 4 pieces [a, b] with f(P(a)), f(P(b)) finite whose "
        "values differ most, halving them until b − a ≤ 10⁻¹² and ‖P(b) − P(a)‖∞ ≤ 10⁻¹²; the "
        "piece of largest gap g is halved 10 times more, keeping the half of larger gap, to a "
        "gap g′, then up to 1,000 times more (from the nearer end of the segment) until t's float "
        "step, to a gap g″. A jump (violated) when g′ ≥ g/2, g″ ≥ g/2 and f(P(a)) ≐ f(P(b)) fails, "
        "i.e. g″ > tol (the resolution rule: a smaller gap is rounding); its two populations are "
        "the ends of the last piece. A stored pair, or a find with users removed, is judged by the "
        "same halvings from its two ends, at most 10⁻¹² apart; " + TIED_SEGMENTS,
        source="continuity of a real function on its domain (Rudin, Principles of Mathematical "
        "Analysis, 1976, def. 4.5); the inequality indices are continuous (Shorrocks 1980; "
        "Foster 1985)",
        kind="universal",
        meant_for="every measure",
        needs=FIELDS,
        entrywise=True,
        world="derived fields moved along a segment (no discrete world change is small)",
        cases=jump_cases,
        explicit=tied_segments,
        judge=jump,
        narrow=narrow_to_jump,
        proof_rule=continuous_blocks,
    ),
    dict(
        name="lipschitz-continuity",
        statement="the value is Lipschitz in the fields read: a perturbation of size δ changes it by at most 10·w·δ",
        formal="∀ P, P' differing only in the fields f reads (each in its range), δ = "
        "‖P' − P‖∞ > 0, f(P) and f(P') defined: |f(P') − f(P)| ≤ 10·w·δ, where w = "
        "high − low for a bounded declared range and w = 1 for an unbounded one (a global "
        "Lipschitz bound with constant 10·w in the max-norm; stronger than continuity); " + STEEP_SEGMENTS,
        source="the Lipschitz condition (Lipschitz 1876) on the measure as a function of its "
        "inputs, in the max-norm (not Dwork et al.'s 2012 condition, which is on how similar "
        "individuals are treated)",
        kind="universal",
        meant_for="every measure",
        needs=FIELDS,
        entrywise=True,
        world="derived fields perturbed (no discrete world change is small)",
        cases=perturbation_or_jump_cases,
        explicit=steep_segments,
        judge=judges.lipschitz,
        explain=judges.explain_lipschitz,
    ),
)
