"""Cases of the welfare axioms: Lorenz dominance, equal additions, mirrored shortfalls and
envy-free lists.

Strategies of :class:`~puf.properties.cases.Case` for the catalog's ``lorenz-consistency``
(Atkinson 1970; Foster 1985), ``equal-additions`` (Dalton 1920; Kolm 1976),
``mirror-consistency`` (Erreygers 2009; Lambert and Zheng 2011) and ``envy-free-fairest``
(Foley 1967; Varian 1974) entries, with the facts their judges read off a population
(:func:`lorenz_dominates`, :func:`added_amount`, :func:`max_envy`, :func:`mirrored`), so that a
stored or shrunk example is judged by what it is, not by how it was drawn.
"""

from __future__ import annotations

__all__ = [
    "GRID",
    "LORENZ_TOLERANCE",
    "on_grid",
    "MIN_ENVY",
    "lorenz_curve",
    "lorenz_dominates",
    "added_amount",
    "max_envy",
    "strict_envy",
    "envy_free",
    "mirrored",
    "mirror_parts",
    "lorenz_cases",
    "lorenz_examples",
    "equal_addition_cases",
    "mirror_cases",
    "mirror_examples",
    "envy_free_cases",
    "envy_worlds",
]

from typing import Any
import numpy as np
from hypothesis import strategies as st
from numpy.typing import ArrayLike, NDArray

from puf.population import Population
from puf.synthetic import relevance_from_lists
from puf.validation import ENVY_TOLERANCE
from puf.world import World
from puf.metadata import Measure

from .case import FRACTIONS, FRACTIONS_OR_ONE, HALVES_OR_LESS, Case, case_strategy, derive, draw_users
from .preconditions import precondition, require, same_fields, single_population
from .case import transfer_worlds, trivial_case, world_transfer
from .strategies import sources

GRID = 2.0**-20
"""The grid outcomes are rounded to before an equal addition or a mirror: on it, S + c (c on the
grid too) and 1 − S are exact in floating point, so every gap is the same bits before and after
(a threshold on a gap, such as PEU's ε, cannot be crossed by rounding alone)."""
LORENZ_TOLERANCE = 1e-12
"""Rounding allowed on a Lorenz ordinate when the premise S' ≥_L S is checked."""
MIN_ENVY = 0.01
"""The smallest envy max_{u,v} φ_u(L_v) − φ_u(L_u) that ``envy-free-fairest`` calls strict."""

_SEEDS = st.integers(0, 2**32 - 1)


def lorenz_curve(effectiveness: ArrayLike) -> NDArray[np.float64]:
    """The relative Lorenz curve of ``effectiveness``: the shares of the total held by the
    poorest k users, k = 0, ..., m (NaN when the total is 0).

    Examples
    --------
    >>> lorenz_curve([0.5, 0.0, 0.5]).tolist()
    [0.0, 0.0, 0.5, 1.0]
    """
    s = np.sort(np.asarray(effectiveness, dtype=np.float64))
    total = s.sum()
    if total <= 0:
        return np.full(len(s) + 1, np.nan)
    return np.concatenate(([0.0], np.cumsum(s) / total))


def lorenz_dominates(better: ArrayLike, worse: ArrayLike) -> bool:
    """True when ``better`` Lorenz-dominates ``worse`` (weakly): the same number of users, both
    totals positive, and every ordinate of ``better``'s Lorenz curve at least ``worse``'s, to
    :data:`LORENZ_TOLERANCE`.

    Examples
    --------
    >>> lorenz_dominates([0.4, 0.6], [0.1, 0.9]), lorenz_dominates([0.1, 0.9], [0.4, 0.6])
    (True, False)
    >>> lorenz_dominates([0.2, 0.3], [0.4, 0.6]), lorenz_dominates([0.0, 0.0], [0.0, 1.0])
    (True, False)
    """
    a, b = np.asarray(better, dtype=np.float64), np.asarray(worse, dtype=np.float64)
    if a.shape != b.shape:
        return False
    high, low = lorenz_curve(a), lorenz_curve(b)
    return bool(np.all(np.isfinite(high)) and np.all(np.isfinite(low)) and np.all(high >= low - LORENZ_TOLERANCE))


def added_amount(before: Population, after: Population) -> float:
    """The amount c > 0 that ``after`` adds to every effectiveness (and utility entry, when both
    have utility) of ``before``, everything else fixed; NaN when ``after`` is no such addition.

    Examples
    --------
    >>> from puf import Population
    >>> p = Population([0.1, 0.4], np.eye(2))
    >>> round(added_amount(p, p.replace(effectiveness=[0.3, 0.6])), 12)
    0.2
    >>> added_amount(p, p.replace(effectiveness=[0.3, 0.4]))
    nan
    """
    if after.m != before.m:
        return float("nan")
    shifts = [after.effectiveness - before.effectiveness]
    if before.utility is not None and after.utility is not None:
        shifts.append((after.utility - before.utility).ravel())
    c = float(shifts[0].mean())
    alike = all(np.max(np.abs(shift - c)) <= LORENZ_TOLERANCE for shift in shifts)
    same = np.array_equal(before.similarity, after.similarity)
    return c if c > 0 and alike and same else float("nan")


def max_envy(utility: ArrayLike) -> float:
    """max over u ≠ v of φ_u(L_v) − φ_u(L_u) (negative when every user strictly prefers its own list).

    Examples
    --------
    >>> max_envy([[0.5, 0.7], [0.2, 0.2]])
    0.2
    """
    u = np.asarray(utility, dtype=np.float64)
    gaps = u - np.diag(u)[:, None]
    np.fill_diagonal(gaps, -np.inf)
    return float(gaps.max())


def mirrored(pop: Population) -> Population:
    """``pop`` with every outcome replaced by its shortfall: S := 1 − S, utility := 1 − utility.

    Examples
    --------
    >>> from puf import Population
    >>> mirrored(Population([0.25, 1.0], np.eye(2))).effectiveness.tolist()
    [0.75, 0.0]
    """
    changes = {"effectiveness": 1.0 - pop.effectiveness}
    if pop.utility is not None:
        changes["utility"] = 1.0 - pop.utility
    return pop.replace(**changes)


def mirror_parts(case: Case) -> dict[str, Population]:
    """The shortfall populations ``mirror-consistency`` compares: 1 − P and 1 − P'.

    Examples
    --------
    >>> from puf import Population
    >>> p = Population([0.25, 1.0], np.eye(2))
    >>> sorted(mirror_parts(Case(p, p.replace(effectiveness=[0.5, 0.5]))))
    ['mirror_after', 'mirror_before']
    """
    assert case.after is not None  # a mirror case always compares two populations
    return {"mirror_before": mirrored(case.before), "mirror_after": mirrored(case.after)}


_NO_TRANSFER = "no transfer"


def _rescaled(pop: Population, s: NDArray[np.float64], factor: float, what: str) -> Case:
    # A rescaling alone ("no transfer") acts on each user alone: a user removed from both leaves one.
    return Case(
        pop,
        pop.replace(effectiveness=np.clip(factor * s, 0.0, 1.0)),
        f"{what}, then every S × {factor:g}",
        entrywise=what == _NO_TRANSFER,
    )


def _progressive(draw: st.DrawFn, s: NDArray[np.float64], count: int) -> tuple[NDArray[np.float64], str]:
    """``count`` progressive transfers of τ ∈ (0, ½] of a gap between drawn users."""
    s = s.copy()
    for _ in range(count):
        i, j = draw_users(draw, len(s), 2)
        tau = draw(HALVES_OR_LESS)
        s[i], s[j] = s[i] + tau * (s[j] - s[i]), s[j] - tau * (s[j] - s[i])
    return s, f"{count} progressive transfer{'s' * (count > 1)}"


def _random_pair(draw: st.DrawFn, pop: Population) -> Case | None:
    """A population drawn anew on the same users, kept when one of the two Lorenz-dominates."""
    other = np.random.default_rng(draw(_SEEDS)).uniform(0.0, 1.0, pop.m)
    if draw(st.booleans()):  # drawn in the same order as S: dominance is likelier
        other = np.sort(other)[np.argsort(np.argsort(pop.effectiveness, kind="stable"))]
    candidate = pop.replace(effectiveness=other)
    if lorenz_dominates(other, pop.effectiveness):
        return Case(pop, candidate, "a population drawn anew that Lorenz-dominates P")
    if lorenz_dominates(pop.effectiveness, other):
        return Case(candidate, pop, "P Lorenz-dominates a population drawn anew")
    return None


def _lorenz_precondition(case: Any, level: str, measure: Any) -> None:
    """S' Lorenz-dominates S (relative curves, both means positive); similarity and lists kept."""
    require(
        lorenz_dominates(case.after.effectiveness, case.before.effectiveness),
        "lorenz_dominates(case.after.effectiveness, case.before.effectiveness)",
    )
    same_fields(case.before, case.after, ["similarity", "list_distance"])


@precondition(_lorenz_precondition)
@case_strategy
def lorenz_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """S' that Lorenz-dominates S: progressive transfers followed by a proportional rescaling
    (up to max S' = 1 or down), the rescaling alone both ways (equal Lorenz curves, different
    means), a move towards the mean rescaled to the top, and random pairs kept when one
    dominates; at world level, the ``pigou-dalton`` transfer of one relevant listed item.

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(lorenz_cases("score", "sd"), lambda c: not c.trivial)
    >>> all(lorenz_dominates(o.after.effectiveness, o.before.effectiveness) for o in (case, *case.alternatives))
    True
    """
    if level == "world":
        return world_transfer(draw, *draw(sources(level)))
    pop = draw(sources(level))[0]
    s = pop.effectiveness
    if s.max() <= 0:
        return trivial_case(pop, "every S(u) = 0: no Lorenz curve (mean 0)")
    moved, what = _progressive(draw, s, draw(st.integers(1, 3)))
    top = 1.0 / moved.max()
    factor = 1.0 + draw(FRACTIONS_OR_ONE) * (top - 1.0) if draw(st.booleans()) else draw(FRACTIONS)
    main = _rescaled(pop, moved, factor, what)
    mean = s.mean()
    towards = mean + draw(FRACTIONS) * (s - mean)
    others = [
        _rescaled(pop, s, 1.0 / s.max(), _NO_TRANSFER),
        Case(
            pop.replace(effectiveness=0.5 * s), pop, "P halved, then every S × 2 (equal Lorenz curves)", entrywise=True
        ),
        _rescaled(pop, towards, 1.0 / towards.max(), "every S moved towards the mean"),
        _rescaled(pop, moved, 1.0 / moved.max(), what),
    ]
    drawn = _random_pair(draw, pop)
    if drawn is not None:
        others.append(drawn)
    valid = tuple(
        o for o in others if o.after is not None and lorenz_dominates(o.after.effectiveness, o.before.effectiveness)
    )
    return Case(main.before, main.after, main.change, alternatives=valid)


def _alike(m: int, similarity: float) -> NDArray[np.float64]:
    """An m × m similarity with every pair at ``similarity`` (unit diagonal)."""
    return np.full((m, m), similarity) + (1.0 - similarity) * np.eye(m)


def lorenz_examples(level: str) -> list[Case]:
    """Hand-made cases, tried first: S doubled, its Lorenz curve unchanged, at m = 6 and m = 2
    (every pair at similarity 0.75, so the pair measures read every gap; the last listed is
    tried first); at world level, the hand-made transfer :func:`~.case.transfer_worlds`.

    Examples
    --------
    >>> [case.after.effectiveness.tolist() for case in lorenz_examples("score")]
    [[0.2, 0.2, 0.2, 0.6, 0.6, 0.6], [0.2, 0.6]]
    """
    if level != "score":
        return transfer_worlds(level)
    cases = []
    for s in ([0.1, 0.1, 0.1, 0.3, 0.3, 0.3], [0.1, 0.3]):
        pop = Population(np.array(s), _alike(len(s), 0.75))
        cases.append(
            Case(pop, pop.replace(effectiveness=2.0 * pop.effectiveness), "explicit: every S doubled", entrywise=True)
        )
    return cases


def mirror_examples(level: str) -> list[Case]:
    """Hand-made cases, tried first (score level): S = (0.2, 0.4) against its shortfalls
    (0.8, 0.6), and the same at m = 6, every pair at similarity 0.75 (the last listed is tried
    first).

    Examples
    --------
    >>> [case.after.effectiveness.round(12).tolist() for case in mirror_examples("score")][-1]
    [0.8, 0.6]
    """
    if level != "score":
        return []
    cases = []
    for s in ([0.2, 0.2, 0.2, 0.4, 0.4, 0.4], [0.2, 0.4]):
        pop = Population(np.array(s), _alike(len(s), 0.75))
        cases.append(Case(pop, mirrored(pop), "explicit: P′ = 1 − P (the shortfalls)"))
    return cases


def _outcomes(pop: Population) -> list[NDArray[np.float64]]:
    return [pop.effectiveness] + ([pop.utility] if pop.utility is not None else [])


def on_grid(pop: Population) -> Population:
    """``pop`` with its effectiveness (and utility) rounded to the :data:`GRID`.

    Examples
    --------
    >>> from puf import Population
    >>> p = on_grid(Population(np.array([0.1, 1 / 3]), np.eye(2)))
    >>> bool(np.all((1.0 - p.effectiveness) + p.effectiveness == 1.0)), bool(abs(p.effectiveness[1] - 1 / 3) < GRID)
    (True, True)
    """
    return pop.replace(**{f: np.round(v / GRID) * GRID for f, v in zip(("effectiveness", "utility"), _outcomes(pop))})


def _added(pop: Population, c: float) -> Case:
    changes = {"effectiveness": pop.effectiveness + c}
    if pop.utility is not None:
        changes["utility"] = pop.utility + c
    return Case(pop, pop.replace(**changes), f"c = {c:g} added to every S (and utility)")


def _equal_addition_precondition(case: Any, level: str, measure: Any) -> None:
    """One c > 0 added to every S (and utility entry); similarity and lists kept."""
    require(added_amount(case.before, case.after) > 0, "added_amount(case.before, case.after) > 0")
    same_fields(case.before, case.after, ["similarity", "list_distance"])


@precondition(_equal_addition_precondition)
@case_strategy
def equal_addition_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """The same amount c > 0 added to every effectiveness (and utility entry), staying in
    [0, 1]: a drawn share of the room 1 − max, besides the whole room, half of it and 10⁻³ of it.
    A population with an outcome at 1 is first scaled by a ∈ (0, 1) in half the draws (else it
    has no room); outcomes and c lie on the :data:`GRID` (:func:`on_grid`), so the addition is exact.

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(equal_addition_cases("score", "gini"), lambda c: not c.trivial)
    >>> bool(added_amount(case.before, case.after) > 0)
    True
    """
    pop = draw(sources(level))[0]
    if max(float(v.max()) for v in _outcomes(pop)) >= 1.0 and draw(st.booleans()):
        # Derived worlds often hold a full list (utility 1): scaled down first, there is room.
        a = draw(FRACTIONS)
        pop = pop.replace(**{f: a * v for f, v in zip(("effectiveness", "utility"), _outcomes(pop))})
    pop = on_grid(pop)
    room = 1.0 - max(float(v.max()) for v in _outcomes(pop))
    if room < GRID:
        return trivial_case(pop, "some outcome is already 1: no room to add")
    share = draw(FRACTIONS_OR_ONE)
    amounts = [max(GRID, np.floor(t * room / GRID) * GRID) for t in (share, 1.0, 0.5, 1e-3)]
    cases = [_added(pop, float(c)) for c in dict.fromkeys(amounts)]
    return Case(pop, cases[0].after, cases[0].change, alternatives=tuple(cases[1:]))


def _mirror_precondition(case: Any, level: str, measure: Any) -> None:
    """P' on the same users, similarity and lists kept."""
    require(case.after.m == case.before.m, "case.after.m == case.before.m")
    same_fields(case.before, case.after, ["similarity", "list_distance"])


@precondition(_mirror_precondition)
@case_strategy
def mirror_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """P against P' on the same users (similarity, lists and list distances fixed): P' = 1 − P
    (the shortfalls themselves), a transfer, a shift, a rescaling and a population drawn anew;
    the judge compares f(P), f(P') with f(1 − P), f(1 − P') (:func:`mirror_parts`). P lies on
    the :data:`GRID` (:func:`on_grid`), as does P′, so 1 − P and 1 − P′ are exact.

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(mirror_cases("score", "gini"), lambda c: c.before.m == 3)
    >>> case.change, len(case.alternatives)
    ('P′ = 1 − P (the shortfalls)', 4)
    """
    pop = on_grid(draw(sources(level))[0])
    fields = _outcomes(pop)
    rng = np.random.default_rng(draw(_SEEDS))
    shift = draw(FRACTIONS) * (1.0 - max(float(v.max()) for v in fields))
    i, j = draw_users(draw, pop.m, 2)
    s = pop.effectiveness.copy()
    s[i], s[j] = (s[i] + s[j]) / 2.0, (s[i] + s[j]) / 2.0
    factor = draw(FRACTIONS)
    options = [
        (mirrored(pop), "P′ = 1 − P (the shortfalls)"),
        (pop.replace(effectiveness=s), f"P′: users {i} and {j} brought to their mean"),
        (pop.replace(**{f: v + shift for f, v in zip(("effectiveness", "utility"), fields)}), f"P′ = P + {shift:g}"),
        (pop.replace(**{f: factor * v for f, v in zip(("effectiveness", "utility"), fields)}), f"P′ = {factor:g}·P"),
        (
            pop.replace(**{f: rng.uniform(0.0, 1.0, v.shape) for f, v in zip(("effectiveness", "utility"), fields)}),
            "P′ drawn anew",
        ),
    ]
    cases = [Case(pop, on_grid(after), change) for after, change in options]
    first = draw(st.integers(0, len(cases) - 1)) if draw(st.booleans()) else 0
    main = cases.pop(first)
    return Case(main.before, main.after, main.change, alternatives=tuple(cases))


def _own_relevance(world: World) -> World:
    """``world`` with every user's relevance outside its own list set to 0: no user values
    another's list above its own (φ_u(L_v) only counts items of L_v ∩ L_u)."""
    relevance = world.relevance.toarray()
    kept = np.zeros_like(relevance)
    rows = np.arange(world.m)[:, None]
    listed = np.where(world.rankings >= 0, world.rankings, 0)
    kept[rows, listed] = relevance[rows, listed] * (world.rankings >= 0)
    return world.replace(relevance=kept)


def _envious(draw: st.DrawFn, world: World) -> tuple[World, str] | None:
    """An envy-free ``world`` given one envy: u's own list stripped of what L_v lacks, and an
    item of L_v that u's list lacks made relevant to u."""
    u, v = draw_users(draw, world.m, 2)
    own, other = set(world.rankings[u].tolist()) - {-1}, set(world.rankings[v].tolist()) - {-1}
    extra = sorted(other - own)
    if not extra:
        return None
    item = extra[draw(st.integers(0, len(extra) - 1))]
    grade = draw(st.integers(1, 3))
    relevance = world.relevance.toarray()
    relevance[u, sorted(own - other)] = 0.0
    relevance[u, item] = grade
    return world.replace(relevance=relevance), f"user {u} envies user {v}: item {item} of L_{v} relevant ({grade})"


@precondition(single_population)
@case_strategy
def envy_free_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """One world's population: envy-free (relevance only on a user's own list; lists fully
    relevant; nothing relevant), envy-free but for one user's envy of another, as drawn, or
    one of the hand-made worlds of :func:`envy_worlds`.
    Measures that read no utility have no envy to judge (score level: nothing applies).

    Examples
    --------
    >>> from hypothesis import Phase, find, settings
    >>> first = settings(max_examples=2000, phases=[Phase.generate])  # the first case found, not shrunk
    >>> case = find(envy_free_cases("world", "me"), lambda c: "envies" in c.change, settings=first)
    >>> max_envy(case.before.utility) > 0
    True
    >>> find(envy_free_cases("score", "sd"), lambda c: True, settings=first).trivial
    True
    """
    if "utility" not in (measure.reads or ()) or level != "world":
        return trivial_case(draw(sources("score", large=False))[0], "the measure reads no utility: no envy to judge")
    kind = draw(st.sampled_from(("own-relevance", "hand-made", "envy", "own-lists", "nothing", "as-drawn")))
    if kind == "hand-made":
        return draw(st.sampled_from(envy_worlds(level)))
    world = draw(sources(level))[1]
    assert world is not None  # world level draws worlds
    if kind == "own-lists":
        return Case(derive(relevance_from_lists(world)), change="relevance = each user's own list (no envy)")
    if kind == "nothing":
        empty = world.replace(relevance=np.zeros((world.m, world.n_items)))
        return Case(derive(empty), change="nothing relevant to anyone (no envy)")
    if kind == "as-drawn":
        return Case(derive(world), change="the world as drawn")
    fair = _own_relevance(world)
    envious = _envious(draw, fair) if kind == "envy" else None
    if envious is None:
        return Case(derive(fair), change="relevance only on each user's own list (no envy)")
    return Case(derive(envious[0]), change="relevance only on each user's own list, but " + envious[1])


def _grades_world(own: list[float], other: list[float]) -> World:
    """Two users, lists of ten items each; user 0's grades on its own list and on user 1's,
    user 1's relevance its own list."""
    k = 10
    relevance = np.zeros((2, 2 * k))
    relevance[0, :k], relevance[0, k:] = own, other
    relevance[1, k:] = 1.0
    histories = np.zeros((2, 2 * k))
    histories[:, 0] = 1.0
    return World(histories, relevance, np.arange(2 * k).reshape(2, k), np.eye(2 * k))


def envy_worlds(level: str) -> list[Case]:
    """Hand-made worlds: user 0 envies user 1 by 0.02 (below PEU's ε = 0.05), by
    0.2, and a world of equal lists (every φ_u(L_v) = φ_u(L_u): no envy, a tie).

    Examples
    --------
    >>> [round(max_envy(case.before.utility), 12) for case in envy_worlds("world")]
    [0.02, 0.2, 0.0]
    >>> envy_worlds("score")
    []
    """
    if level != "world":
        return []
    small = _grades_world([5.0] * 9 + [4.0], [5.0] * 10)  # φ_0: 49/50 own, 50/50 of L_1
    large = _grades_world([1.0] * 8 + [0.0] * 2, [1.0] * 10)
    tie = World(np.eye(3), np.array([[1.0, 0, 1], [0, 1, 1], [1, 1, 0]]), np.array([[0, 1]] * 3), np.eye(3))
    return [
        Case(derive(small), change="explicit: user 0 values user 1's list 0.02 above its own"),
        Case(derive(large), change="explicit: user 0 values user 1's list 0.2 above its own"),
        Case(derive(tie), change="explicit: every user has the same list (no envy)"),
    ]


def strict_envy(utility: ArrayLike) -> bool:
    """True when some user envies another by at least :data:`MIN_ENVY`.

    Examples
    --------
    >>> strict_envy([[0.5, 0.52], [0.0, 0.0]]), strict_envy([[0.5, 0.505], [0.0, 0.0]])
    (True, False)
    """
    return max_envy(utility) >= MIN_ENVY


def envy_free(utility: ArrayLike) -> bool:
    """True when no user values another's list above its own (beyond the rounding bound).

    Examples
    --------
    >>> envy_free([[0.5, 0.5], [0.1, 0.2]]), envy_free([[0.5, 0.6], [0.1, 0.2]])
    (True, False)
    """
    return max_envy(utility) <= ENVY_TOLERANCE
