"""The examples a property checks (*cases*), and what every strategy of cases shares.

A *case* is a population before (and after) one transformation. Score-level
cases transform Population fields directly. World-level cases transform the
World and derive both populations from it (:func:`derive`), so a change of
relevance reaches effectiveness *and* utility, a change of lists reaches
utility and list distance, and a change of histories reaches similarity. Where
a property's change is continuous (a small perturbation, a rescaling, one
similarity raised alone) no discrete world change expresses it; those cases
transform the derived fields the measure reads, which is exact for similarity
since histories feed nothing else.

Each property's strategy of cases is a function ``<name>_cases(level, measure)``
declared with :func:`case_strategy` next to its kin (:mod:`.user_cases`,
:mod:`.outcome_cases`, :mod:`.similarity_cases`, :mod:`.field_cases`), with the
precondition its cases meet (:func:`.preconditions.precondition`), and named in its
catalog entry. The populations and worlds a case is drawn from are
:func:`.strategies.sources`; this module imports no other module of the package.
"""

from __future__ import annotations

__all__ = [
    "LEVELS",
    "WORLD_FIELDS",
    "measure_level",
    "LARGEST",
    "LARGEST_LARGE",
    "LARGEST_LARGE_WORLD",
    "METRIC",
    "SIMILARITY",
    "FRACTIONS",
    "FRACTIONS_OR_ONE",
    "FRACTIONS_OR_ZERO",
    "HALVES_OR_LESS",
    "Case",
    "case_strategy",
    "derive",
    "trivial_case",
    "draw_users",
    "listed_relevance",
    "choose_listed",
    "world_transfer",
    "transfer_worlds",
    "TRANSFER_WORLD",
    "distance",
]

from collections.abc import Callable
from typing import Any, Literal, overload
import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from hypothesis import strategies as st

from puf import as_measure
from puf.metadata import Measure
from puf.population import Population
from puf.world import World

LEVELS = ("score", "world")
"""Score level: Population fields drawn directly; world level: a World and its derived fields."""
LARGEST = 12
"""Users in the largest small population drawn (the strategies' default ``max_users``)."""
LARGEST_LARGE = 300
"""The large share's bound on users at score level: 13 to LARGEST_LARGE − 1 are drawn."""
LARGEST_LARGE_WORLD = 200
"""The large share's bound on users at world level: 13 to LARGEST_LARGE_WORLD − 1 are drawn."""
#: The effectiveness metric a world-level case derives: P@k, which one list item moves by exactly
#: 1/k, so world-level disparity and transfer cases change effectiveness by a known amount.
METRIC = "precision"
#: The similarity a world-level case derives from the histories.
SIMILARITY = "jaccard"

#: Strategy of fractions in (0, 1), at least 1e-3 (a scaling by 1/fraction never under- or overflows).
FRACTIONS = st.one_of(st.integers(1, 9).map(lambda i: i / 10), st.floats(1e-3, 0.999))
#: Strategy of :data:`FRACTIONS` or 1.
FRACTIONS_OR_ONE = st.one_of(st.just(1.0), FRACTIONS)
#: Strategy of :data:`FRACTIONS` or 0.
FRACTIONS_OR_ZERO = st.one_of(st.just(0.0), FRACTIONS)
#: Strategy of shares in (0, ½]: ½, or half a :data:`FRACTIONS` value.
HALVES_OR_LESS = st.one_of(st.just(0.5), FRACTIONS.map(lambda t: t / 2))


#: The fields only a World supplies (from its recommended lists).
WORLD_FIELDS = frozenset({"utility", "list_distance"})


def measure_level(measure: Measure) -> str:
    """The level a measure is checked at: ``"world"`` when it reads a field only a World
    supplies (its recommended lists), else ``"score"``.

    Examples
    --------
    >>> measure_level(as_measure("puf")), measure_level(as_measure("uf"))
    ('score', 'world')
    """
    return "world" if WORLD_FIELDS & set(measure.reads or ()) else "score"


@dataclass(frozen=True, eq=False, repr=False)
class Case:
    """One example: ``before`` and optionally ``after`` a transformation described by ``change``.

    ``alternatives`` are further cases of the same transformation (other amounts,
    other users): the runner judges all and keeps the worst, which costs measure
    calls, not Hypothesis examples. ``segment``: ``before`` and ``after``
    are the ends of a segment the runner narrows to its steepest piece (the continuity properties).
    ``strict``: the property demands a strict change (rearrangement); ``delta``: the
    size of a perturbation (lipschitz-continuity); ``trivial``: nothing to judge. ``values``: the
    measure's values on the property's derived populations (``Property.derived``: the
    subgroups of a subgroup property, the candidate extremes of ``attainable-range``),
    filled in by the runner before the judge reads them; ``derived_error``: what the measure raised
    on the first derived population it could not score (its value NaN), naming that population.
    ``entrywise``: this case's change acts on each user alone (a rescaling), though its property's
    changes in general do not (``Property.entrywise``): shrinking may remove any user its text
    does not name.

    Examples
    --------
    >>> from puf import Population
    >>> Case(Population([0.0, 1.0], [[1, 0], [0, 1]]), change="two users")
    Case(m=2, change='two users', alternatives=0)
    """

    before: Population
    after: Population | None = None
    change: str = ""
    strict: bool = False
    trivial: bool = False
    delta: float = 0.0
    alternatives: tuple[Case, ...] = ()
    segment: bool = False
    values: dict[str, float] | None = None
    derived_error: str | None = None
    entrywise: bool = False

    def __repr__(self) -> str:
        # Short: Hypothesis prints a failing example's repr, and populations are large.
        return f"Case(m={self.before.m}, change={self.change!r}, alternatives={len(self.alternatives)})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis' pretty printer lists a dataclass's fields unless it finds this method.
        printer.text(repr(self))


def case_strategy(
    definition: Callable[..., Case],
) -> Callable[[str, str | Callable[..., Any]], st.SearchStrategy[Case]]:
    """Declare a strategy of cases: ``definition(draw, level, measure)`` becomes
    ``definition(level, measure)``, a strategy whose arguments are checked when it is built.

    Examples
    --------
    >>> from puf.properties.cases.strategies import sources
    >>> @case_strategy
    ... def plain_cases(draw, level, measure):
    ...     return Case(draw(sources(level))[0], change="as drawn")
    >>> from hypothesis import find
    >>> find(plain_cases("score", "sd"), lambda case: case.before.m == 3).change
    'as drawn'
    >>> plain_cases("interaction", "sd")
    Traceback (most recent call last):
    ...
    ValueError: level must be one of ('score', 'world'), got 'interaction'
    """
    strategy = st.composite(definition)

    @functools.wraps(strategy)
    def build(level: str, measure: str | Callable[..., Any]) -> st.SearchStrategy[Case]:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
        return strategy(level, as_measure(measure))

    return build


def derive(world: World) -> Population:
    """Return the Population a measure reads from ``world`` at world level (P@k, Jaccard).

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(2), np.eye(2), [[0], [0]], np.eye(2))
    >>> derive(w).effectiveness
    array([1., 0.])
    """
    return world.population(metric=METRIC, similarity=SIMILARITY)


def trivial_case(pop: Population, why: str) -> Case:
    """A case with nothing to judge (the transformation does not apply to ``pop``): skipped.

    Examples
    --------
    >>> from puf import Population
    >>> trivial_case(Population([0.0, 0.0], [[1, 0], [0, 1]]), "no gap").trivial
    True
    """
    return Case(pop, None, why, trivial=True)


@overload
def draw_users(draw: st.DrawFn, m: int, count: Literal[1]) -> int: ...


@overload
def draw_users(draw: st.DrawFn, m: int, count: Literal[2]) -> tuple[int, int]: ...


def draw_users(draw: st.DrawFn, m: int, count: int) -> int | tuple[int, int]:
    """Draw one user id of ``m`` (``count`` 1) or two different ones (``count`` 2).

    Examples
    --------
    >>> from hypothesis import find, strategies as st
    >>> pairs = st.composite(lambda draw: draw_users(draw, 3, 2))()
    >>> find(pairs, lambda pair: pair[0] == 2)
    (2, 0)
    """
    first = draw(st.integers(0, m - 1))
    if count == 1:
        return first
    second = draw(st.integers(0, m - 2))
    return first, second + (second >= first)


#: What the hand-made world-level transfer (:func:`transfer_worlds`) is, as the formal statements say it.
TRANSFER_WORLD = "hand-made: two users, every listed item relevant to user 0, S = (1, 0) → (½, ½)"


def transfer_worlds(level: str) -> list[Case]:
    """The hand-made world-level transfer, tried first (world level; none at score level): two
    users with lists of two items, every listed item relevant to user 0 and none to user 1;
    user 0's first item made irrelevant and user 1's first relevant, S = (1, 0) → (½, ½).

    User 0's relevant items fill both lists, so the transfer lowers the worth of its own list
    alone: a measure reading utility (envy) sees it where a drawn world rarely shows it.

    Examples
    --------
    >>> [case.after.effectiveness.tolist() for case in transfer_worlds("world")]
    [[0.5, 0.5]]
    >>> transfer_worlds("score")
    []
    """
    if level != "world":
        return []
    relevance = np.zeros((2, 6))
    relevance[0, :4] = 1.0
    histories = np.zeros((2, 6))
    histories[:, 4], histories[0, 5] = 1.0, 1.0  # (every Jaccard ½)
    world = World(histories, relevance, np.array([[0, 1], [2, 3]]), np.eye(6))
    after = world.set_relevance(1, 2, 1.0).set_relevance(0, 0, 0.0)
    change = (
        "explicit: transfer of 1/k: worst-off user 1 item 2 relevance 0 → 1, best-off user 0 item 0 "
        "relevance 1 → 0 (S = (1, 0) → (0.5, 0.5); every listed item relevant to user 0)"
    )
    return [Case(derive(world), derive(after), change)]


def distance(start: Population, end: Population) -> float:
    """Max-norm distance between two populations of the same users: a case's ``delta``.

    Examples
    --------
    >>> import numpy as np
    >>> from puf import Population
    >>> distance(Population([0.0, 0.0], np.eye(2)), Population([1.0, 0.5], np.eye(2)))
    1.0
    """
    a, b = start.fields(), end.fields()
    return max(float(np.max(np.abs(b[f] - a[f]))) for f in a if f in b)


def listed_relevance(world: World) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The world's relevance as an array, and which listed positions hold a relevant item.

    Examples
    --------
    >>> from puf.properties.cases.large_draws import example_world
    >>> world = example_world(20)
    >>> relevance, relevant = listed_relevance(world)
    >>> relevant.shape == world.rankings.shape, relevance.shape == world.relevance.shape
    (True, True)
    """
    relevance = world.relevance.toarray()
    return relevance, relevance[np.arange(world.m)[:, None], world.rankings] > 0


def choose_listed(
    draw: st.DrawFn, users: ArrayLike, positions_ok: NDArray[np.bool_], rankings: NDArray[np.int64]
) -> tuple[int, int]:
    """Pick one user of ``users`` and the item at one of its list positions where ``positions_ok``.

    Examples
    --------
    >>> from hypothesis import find, strategies as st
    >>> rankings = np.array([[3, 4], [5, 6]])
    >>> find(st.data(), lambda data: choose_listed(data.draw, [1], np.ones((2, 2), bool), rankings) == (1, 6))
    data(...)
    """
    user = int(users[draw(st.integers(0, len(users) - 1))])
    positions = np.flatnonzero(positions_ok[user])
    return user, int(rankings[user, positions[draw(st.integers(0, len(positions) - 1))]])


def world_transfer(draw: st.DrawFn, pop: Population, world: World) -> Case:
    """A transfer of 1/k at world level: one relevant listed item of a best-off user becomes
    irrelevant and one irrelevant listed item of a worst-off user relevant (trivial when no two
    users are 2/k apart).

    Examples
    --------
    >>> from hypothesis import find
    >>> from puf.properties.cases.strategies import sources
    >>> transfers = st.composite(lambda draw: world_transfer(draw, *draw(sources("world"))))()
    >>> find(transfers, lambda case: not case.trivial).change.startswith("transfer of 1/k")
    True
    """
    s = pop.effectiveness
    relevance, relevant = listed_relevance(world)
    if s.max() - s.min() < 2.0 / world.k - 1e-12:
        return trivial_case(pop, "no two users 2/k apart")
    low, up = choose_listed(draw, np.flatnonzero(s == s.min()), ~relevant, world.rankings)
    high, down = choose_listed(draw, np.flatnonzero(s == s.max()), relevant, world.rankings)
    after = world.set_relevance(low, up, 1.0, allow_history=True).set_relevance(high, down, 0.0, allow_history=True)
    return Case(
        pop,
        derive(after),
        f"transfer of 1/k: worst-off user {low} item {up} relevance 0 → 1, "
        f"best-off user {high} item {down} relevance {relevance[high, down]:g} → 0",
    )
