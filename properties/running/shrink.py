"""Shrinking a find, whatever its source: fewer users first, then simpler values.

A counterexample or witness may come from Hypothesis (which shrinks its own draws, but not the
large populations drawn from a seed), from a stored example, or from a large draw. Before it
is shown or pinned, :func:`shrink` removes the users the case's change leaves alone, one at a
time, and then moves their effectiveness towards 0, ½, 1 and short decimals, judging the case
again after every step through the search itself: a step is kept only when the property still
fails in the same way. A user the change touches (the two users of a transfer, the pair whose
similarity is raised) is never removed or moved, so the case stays a case of its property,
except in a replication: there every user is copied, and a user is removed (or moved) together
with its copies, so the case stays the replication of a smaller population.
"""

from __future__ import annotations

__all__ = ["SHRINK_CALLS", "shrink"]

import dataclasses
import re

import numpy as np

from puf.population import Population

from .calls import Timeout
from ..cases.case import Case
from .search import Found, OutOfBudget, PropertySearch

SHRINK_CALLS = 400
"""Cases judged at most while shrinking one find."""


def _without(pop: Population, user: int | list[int]) -> Population:
    """``pop`` with ``user`` (or users) removed from every field (a matrix loses its rows and columns)."""
    fields = {
        name: np.delete(np.delete(value, user, axis=0), user, axis=1) if value.ndim == 2 else np.delete(value, user)
        for name, value in pop.fields().items()
    }
    return Population(**fields)


def _copies(case: Case, user: int) -> list[int] | None:
    """The users of ``case.after`` that are ``user`` and its copies when ``after`` replicates
    ``before`` (copy c of user u is user c·m + u, as :func:`puf.synthetic.replicate` stacks
    them); None for any other case. A pair field is copied whole (tiled: copies alike) or per
    copy (block-diagonal: strangers across copies, as ``dissimilar-replication`` copies).

    Examples
    --------
    >>> from puf.synthetic import replicate
    >>> pop = Population([0.0, 0.5, 1.0], np.eye(3))
    >>> _copies(Case(pop, replicate(pop, 2)), 1), _copies(Case(pop, pop), 1)
    ([1, 4], None)
    >>> alike = Population([0.0, 1.0], np.ones((2, 2)))
    >>> strangers = Population(np.tile(alike.effectiveness, 2), np.kron(np.eye(2), alike.similarity))
    >>> _copies(Case(alike, strangers), 0)
    [0, 2]
    """
    if case.after is None or case.after.m == case.before.m:
        return None
    m = case.before.m
    r, rest = divmod(case.after.m, m)
    after = case.after.fields()
    if rest or r < 2 or set(after) != set(case.before.fields()):
        return None
    for name, value in case.before.fields().items():
        if np.array_equal(np.tile(value, (r, r) if value.ndim == 2 else r), after[name]):
            continue
        if value.ndim == 2 and np.array_equal(np.kron(np.eye(r), value), after[name]):
            continue
        return None
    return [c * m + user for c in range(r)]


def _untouched(case: Case, user: int) -> bool:
    """True when the case's change leaves ``user`` alone (every field, its row and column)."""
    if case.after is None:
        return True
    if case.after.m != case.before.m:
        return False
    after = case.after.fields()
    for name, value in case.before.fields().items():
        other = after.get(name)
        if other is None:
            continue
        if value.ndim == 1 and value[user] != other[user]:
            return False
        if value.ndim == 2 and not (
            np.array_equal(value[user], other[user]) and np.array_equal(value[:, user], other[:, user])
        ):
            return False
    return True


def _rank(value: float) -> int:
    """How simple a value is: 0, 1, ½, one decimal, two decimals, anything else."""
    for rank, simple in enumerate((0.0, 1.0, 0.5)):
        if value == simple:
            return rank
    return 3 if value == round(value, 1) else 4 if value == round(value, 2) else 5


def _simpler(value: float) -> list[float]:
    """Values simpler than ``value``, simplest first: 0, 1, ½, then one and two decimals.

    Examples
    --------
    >>> _simpler(0.4137), _simpler(0.5), _simpler(0.0)
    ([0.0, 1.0, 0.5, 0.4, 0.41], [0.0, 1.0], [])
    """
    options = [0.0, 1.0, 0.5, round(value, 1), round(value, 2)]
    return [v for v in dict.fromkeys(options) if _rank(v) < _rank(value) and 0.0 <= v <= 1.0]


def _renumbered(change: str, kept: list[int], m: int, moved: int) -> str:
    """The change's text with its users numbered as in the shrunk population (``kept``: the
    original numbers of the users left of ``m``), and what shrinking did.

    Examples
    --------
    >>> _renumbered("transfer from user 76 (0.99) to user 2 (0.01)", [1, 2, 40, 76], 87, 0)
    'transfer from user 3 (0.99) to user 1 (0.01) (shrunk from m = 87: users the change leaves alone removed)'
    >>> _renumbered("m = 6 (shrunk from m = 9: 2 values made simpler)", [0, 1, 2], 6, 0)
    'm = 6 (shrunk from m = 9: users the change leaves alone removed)'
    """
    earlier = re.search(r" \(shrunk from m = (\d+): [^)]*\)", change)
    if earlier:  # a stored example shrunk before: one note, from the size it was found at
        change = change.replace(earlier[0], "")
        m = max(m, int(earlier[1]))
    index = {old: new for new, old in enumerate(kept)}
    text = re.sub(r"\b(users?) (\d+)", lambda hit: f"{hit[1]} {index.get(int(hit[2]), hit[2])}", change)
    text = re.sub(r"\b(users? \d+ and) (\d+)", lambda hit: f"{hit[1]} {index.get(int(hit[2]), hit[2])}", text)
    done = ["users the change leaves alone removed"] if len(kept) < m else []
    if moved:
        done.append(f"{moved} value{'s' * (moved > 1)} made simpler")
    return f"{text} (shrunk from m = {m}: {', '.join(done)})" if done else text


def _with_effectiveness(case: Case, user: int, value: float) -> Case:
    """``case`` with ``user``'s effectiveness set to ``value`` (in a replication, its copies' too)."""

    def moved(pop: Population, users: list[int]) -> Population:
        s = pop.effectiveness.copy()
        s[users] = value
        return pop.replace(effectiveness=s)

    after = None if case.after is None else moved(case.after, _copies(case, user) or [user])
    return dataclasses.replace(case, before=moved(case.before, [user]), after=after, values=None, alternatives=())


def _removable(case: Case, user: int) -> bool:
    """True when ``user`` may be removed or moved: the change leaves it alone, or it is copied
    with the rest of a replicated population."""
    return _untouched(case, user) or _copies(case, user) is not None


def _fails(search: PropertySearch, case: Case, kind: str) -> bool:
    """Judge ``case`` through the search; True when it fails the same way (the search keeps it)."""
    kept = search.failure, search.failure_case
    checked, undefined, sizes = search.checked, search.undefined, set(search.sizes)
    try:
        search.check(case)
    except Found:
        if search.failure is not None and search.failure[0] == kind:
            return True
    finally:
        search.checked, search.undefined, search.sizes = checked, undefined, sizes
    search.failure, search.failure_case = kept
    return False


def _fewer_users(search: PropertySearch, kind: str, budget: int, kept: list[int]) -> None:
    """Remove, one at a time, the users the change leaves alone while the case still fails."""
    improved = True
    while improved and search.calls < budget:
        improved = False
        case = search.failure_case
        assert case is not None  # shrink() starts from a find
        for user in reversed(range(case.before.m)):
            if case.before.m <= 2 or search.calls >= budget or not _removable(case, user):
                continue
            gone = _copies(case, user) or user  # a replicated user leaves with its copies
            smaller = dataclasses.replace(
                case,
                before=_without(case.before, user),
                after=None if case.after is None else _without(case.after, gone),
                values=None,
                alternatives=(),
            )
            if _fails(search, smaller, kind):
                kept.pop(user)
                improved = True
                break


def _simpler_values(search: PropertySearch, kind: str, budget: int) -> int:
    """Move each untouched user's effectiveness to the simplest value that keeps the find; the
    number of values moved."""
    moved = 0
    assert search.failure_case is not None  # shrink() starts from a find
    for user in range(search.failure_case.before.m):
        if not _removable(search.failure_case, user):
            continue
        for value in _simpler(float(search.failure_case.before.effectiveness[user])):
            if search.calls >= budget:
                return moved
            if _fails(search, _with_effectiveness(search.failure_case, user, value), kind):
                moved += 1
                break
    return moved


def shrink(search: PropertySearch) -> bool:
    """Minimise the search's find in place (``search.failure`` and ``failure_case``).

    Returns True when it is as small as this shrinker makes it; False when it stopped at its
    budget. A find of a property that does not shrink (``Property.shrinks``) or is judged in
    fresh workers is kept as it is; so is every user a change touches.

    Examples
    --------
    >>> from puf import as_measure
    >>> from puf.properties import get_property
    >>> search = PropertySearch(as_measure(lambda effectiveness: 2 * max(effectiveness)), get_property("range"),
    ...                         max_examples=10, time_limit=2.0, time_budget=60.0)
    >>> try:
    ...     search.check(Case(Population([0.3, 0.7, 0.2, 0.9], np.eye(4))))
    ... except Found:
    ...     pass
    >>> shrink(search), search.failure[1]["before"]["effectiveness"]
    (True, [0.0, 1.0])
    """
    case = search.failure_case
    if search.failure is None or case is None or search.prop.fresh_workers or not search.prop.shrinks:
        return True
    kind, m, change = search.failure[0], case.before.m, case.change
    search.searching = False  # outside Hypothesis now: no target()
    search.max_calls += SHRINK_CALLS
    budget = search.calls + SHRINK_CALLS
    search.failure_case = dataclasses.replace(case, segment=False)
    kept, moved = list(range(m)), 0
    try:
        _fewer_users(search, kind, budget, kept)
        moved = _simpler_values(search, kind, budget)
    except (OutOfBudget, Timeout):
        pass
    text = _renumbered(change, kept, m, moved)
    search.failure[1]["change"] = text
    search.failure_case = dataclasses.replace(search.failure_case, change=text)
    return search.calls < budget
