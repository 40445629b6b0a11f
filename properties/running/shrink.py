"""Shrinking a find, whatever its source: fewer users first, then simpler values.

A counterexample or witness may come from Hypothesis (which shrinks its own draws, but not the
large populations drawn from a seed), from a stored example, or from a large draw. Before it
is shown or pinned, :func:`shrink` removes the users the case's change leaves alone, each group
of users similar only among themselves at once (a measure undefined for a user similar to no
one keeps its users' partners), then in blocks of half the users, a quarter and an eighth, then
one at a time, and then moves the values of the fields the example shows (effectiveness, and
each entry of a pair field: similarity, utility, list distance) towards 0, ½, 1 and short
decimals, judging the case again after every step through the search itself: a step is kept
only when the property still fails in the same way; both again while either changes the find
(a similarity moved to 0 can free a group).

What stays keeps the case a case of its property:

- a user the change touches (the two users of a transfer, the pair whose similarity is raised)
  is never removed or moved, unless the change acts on each user alone (a rescaling, a shift, a
  segment, gaps widened about a centre, a field replaced: ``Property.entrywise``), where any
  user but one the change's text names leaves both populations while what is left still meets
  the strategy's precondition (the centre of a widening inside the users' range);
- in a replication every user is copied, and a user is removed (or moved) together with its
  copies, so the case stays the replication of a smaller population;
- a single population keeps every value of a field its property ``needs`` (the equal
  effectiveness of ``zero-at-equality``, the envy-free utilities of ``envy-free-fairest``: the
  premise it was drawn to meet).

A property whose other populations are built from ``before`` (``Property.remake``: the
rearrangement's pairings, the determinism's queries, the subgroup axioms' changed group) loses
or moves any user of ``before``, and its case is built again around the smaller population; an
other population such a case keeps as it is (the determinism's population drawn anew) then
loses users and moves values on its own. A property judged in fresh workers judges every
smaller case in a process of its own, so what it shows is what that case alone does.
"""

from __future__ import annotations

__all__ = ["SHRINK_CALLS", "shrink", "users_held"]

from collections.abc import Callable
from typing import cast
import dataclasses
import re

import numpy as np

from puf.population import Population

from .calls import Timeout
from ..cases.case import Case
from ..cases.preconditions import meets
from ..cases.user_cases import described
from ..catalog.property import Property
from .search import Found, OutOfBudget, PropertySearch, shown_fields

SHRINK_CALLS = 400
"""Cases judged at most while shrinking one find."""

#: Pair fields whose entry (u, v) is the entry (v, u) too; their diagonal is fixed.
_SYMMETRIC = ("similarity", "list_distance")

_EARLIER = r" \(shrunk from m = (\d+): [^)]*\)"
"""The note of a find shrunk before (a stored example), with the size it was found at."""

_EARLIER_OTHER = r"the other population from m = (\d+)"
"""The part of that note saying the size an other population not built from ``before`` was found at."""

_LABEL = re.compile(r"^known example( \([^)]*\))?: ")

#: Where a change's text names a user by number: each pattern's second group is the number, its
#: first what leads to it (user 3; users 2 and 5; sim(2,5); S(2); L_5; a composite transfer's
#: users 0 ← 1 progressive, 2 → 3 regressive).
_USER_NUMBERS = (
    r"\b(users? )(\d+)",
    r"\b(users? \d+ and )(\d+)",
    r"\b(sim\()(\d+)",
    r"\b(sim\(\d+, ?)(\d+)",
    r"\b(S\()(\d+)(?=\))",
    r"\b(L_)(\d+)",
    r"(users \d+ ← )(\d+)",
    r"(← \d+ progressive, )(\d+)",
    r"(progressive, \d+ → )(\d+)",
)

_LEFT_ALONE = "users the change leaves alone"
"""Which users a find lost, said of a change that moves some users only."""


def _without(pop: Population, user: int | list[int]) -> Population:
    """``pop`` with ``user`` (or users) removed from every field (a matrix loses its rows and columns)."""
    fields = {
        name: np.delete(np.delete(value, user, axis=0), user, axis=1) if value.ndim == 2 else np.delete(value, user)
        for name, value in pop.fields().items()
    }
    return Population(**fields)


def _replication(case: Case) -> tuple[int, dict[str, str]] | None:
    """``(r, how each field is copied)`` when ``case.after`` replicates ``case.before`` r times
    (as :func:`puf.synthetic.replicate` stacks the copies), else None. A pair field is copied
    whole (``"tile"``: copies alike) or per copy (``"kron"``: block-diagonal, strangers across
    copies, as ``dissimilar-replication`` copies); a per-user field is tiled.

    Examples
    --------
    >>> from puf.synthetic import replicate
    >>> pop = Population([0.0, 0.5, 1.0], np.eye(3))
    >>> _replication(Case(pop, replicate(pop, 2))), _replication(Case(pop, pop))
    ((2, {'effectiveness': 'tile', 'similarity': 'tile'}), None)
    """
    if case.after is None or case.after.m == case.before.m:
        return None
    m = case.before.m
    r, rest = divmod(case.after.m, m)
    after = case.after.fields()
    if rest or r < 2 or set(after) != set(case.before.fields()):
        return None
    how = {}
    for name, value in case.before.fields().items():
        if np.array_equal(np.tile(value, (r, r) if value.ndim == 2 else r), after[name]):
            how[name] = "tile"
        elif value.ndim == 2 and np.array_equal(np.kron(np.eye(r), value), after[name]):
            how[name] = "kron"
        else:
            return None
    return r, how


def _replicated(pop: Population, replication: tuple[int, dict[str, str]]) -> Population:
    """``pop`` copied as :func:`_replication` found another population copied."""
    r, how = replication
    return Population(
        **{
            name: (np.kron(np.eye(r), value) if how[name] == "kron" else np.tile(value, (r, r)))
            if value.ndim == 2
            else np.tile(value, r)
            for name, value in pop.fields().items()
        }
    )


def _copies(case: Case, user: int) -> list[int] | None:
    """The users of ``case.after`` that are ``user`` and its copies when ``after`` replicates
    ``before`` (copy c of user u is user c·m + u); None for any other case.

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
    replication = _replication(case)
    if replication is None:
        return None
    return [c * case.before.m + user for c in range(replication[0])]


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


_DECIMALS = (1, 2, 3, 4)
"""The decimals a value is rounded to while shrinking; the last is what an example prints, so a
value that keeps its find at it is shown as it was judged."""


def _rank(value: float) -> int:
    """How simple a value is: 0, 1, ½, one decimal, two, three, four, anything else."""
    for rank, simple in enumerate((0.0, 1.0, 0.5)):
        if value == simple:
            return rank
    return 3 + next((i for i, d in enumerate(_DECIMALS) if value == round(value, d)), len(_DECIMALS))


def _simpler(value: float) -> list[float]:
    """Values simpler than ``value``, simplest first: 0, 1, ½, then one to four decimals.

    Examples
    --------
    >>> _simpler(0.41372), _simpler(0.5), _simpler(0.0)
    ([0.0, 1.0, 0.5, 0.4, 0.41, 0.414, 0.4137], [0.0, 1.0], [])
    """
    options = [0.0, 1.0, 0.5, *(round(value, d) for d in _DECIMALS)]
    return [v for v in dict.fromkeys(options) if _rank(v) < _rank(value) and 0.0 <= v <= 1.0]


def _renumbered(
    change: str,
    kept: list[int],
    m: int,
    moved: int,
    *,
    removed: str = _LEFT_ALONE,
    other: tuple[int, int] | None = None,
) -> str:
    """The change's text with its users numbered as in the shrunk population (``kept``: the
    original numbers of the users left of ``m``), and what shrinking did (``removed``: which
    users it removed; ``other``: the sizes an other population not built from ``before`` had
    and has).

    Examples
    --------
    >>> _renumbered("transfer from user 76 (0.99) to user 2 (0.01)", [1, 2, 40, 76], 87, 0)
    'transfer from user 3 (0.99) to user 1 (0.01) (shrunk from m = 87: users the change leaves alone removed)'
    >>> _renumbered("m = 6 (shrunk from m = 9: 2 values made simpler)", [0, 1, 2], 6, 0)
    'm = 6 (shrunk from m = 9: users the change leaves alone removed)'
    >>> _renumbered("m = 6 (shrunk from m = 9: 2 values made simpler)", list(range(6)), 6, 0)
    'm = 6 (shrunk from m = 9: 2 values made simpler)'
    >>> _renumbered("sim(6,13) raised 0.66 → 1", [0, 6, 13], 87, 0)
    'sim(1,2) raised 0.66 → 1 (shrunk from m = 87: users the change leaves alone removed)'
    >>> _renumbered("users 3 ← 4 progressive, 7 → 9 regressive; S(3), L_9", [3, 4, 7, 9], 10, 0).split(" (")[0]
    'users 0 ← 1 progressive, 2 → 3 regressive; S(0), L_3'
    >>> _renumbered("a population drawn anew, then P again", [0, 1], 2, 1, removed="users", other=(9, 3))
    'a population drawn anew, then P again (shrunk from m = 2: 1 value made simpler; the other population from m = 9 to 3)'
    """
    earlier = re.search(_EARLIER, change)
    if earlier and len(kept) == m and not moved and (other is None or other[1] == other[0]):
        return change  # a stored example shrunk before and no further now: its note stays
    if earlier:  # a stored example shrunk before: one note, from the size it was found at
        change = change.replace(earlier[0], "")
        m = max(m, int(earlier[1]))
        first = re.search(_EARLIER_OTHER, earlier[0])
        if first and other is not None:
            other = (max(other[0], int(first[1])), other[1])
    index = {old: new for new, old in enumerate(kept)}
    text = _numbered(change, lambda user: index.get(user, user))
    done = [f"{removed} removed"] if len(kept) < m else []
    if moved:
        done.append(f"{moved} value{'s' * (moved > 1)} made simpler")
    note = ", ".join(done)
    if other is not None and other[1] < other[0]:
        note += f"{'; ' * bool(note)}the other population from m = {other[0]} to {other[1]}"
    return f"{text} (shrunk from m = {m}: {note})" if note else text


def _redescribed(change: str, drawn: Population, shown: Population) -> str:
    """The change's words about the population drawn said of the population shown: a hand-made
    population's description (:func:`~puf.properties.cases.user_cases.described`) made again,
    or a leading size ``m = N`` that the users removed made smaller.

    Examples
    --------
    >>> drawn, shown = Population(np.eye(300)[0], np.ones((300, 300))), Population([1.0, 0, 0], np.ones((3, 3)))
    >>> _redescribed("explicit: " + described(drawn), drawn, shown)
    'explicit: m = 3, one user at S = 1, the others at 0, everyone similar'
    >>> _redescribed("known example: explicit: m = 300, the candidate extremes", drawn, shown)
    'known example: explicit: m = 3, the candidate extremes'
    >>> _redescribed("found by the SMT solver at m = 300", drawn, shown)
    'found by the SMT solver at m = 300'
    """
    if drawn.m == shown.m and all(np.array_equal(v, shown.fields().get(k)) for k, v in drawn.fields().items()):
        return change
    words = described(drawn)
    if words in change:
        return change.replace(words, described(shown), 1)
    return re.sub(rf"^((?:known example[^:]*: )?(?:explicit: )?)m = {drawn.m}\b", rf"\g<1>m = {shown.m}", change)


def _remade(prop: Property, case: Case, pop: Population) -> Case | None:
    """The property's case rebuilt around ``pop`` (``Property.remake``), with the label of a
    stored example kept; None when it cannot be, or leaves nothing to judge."""
    assert prop.remake is not None  # only properties that remake their cases call this
    remade = prop.remake(case, pop)
    if remade is None or remade.trivial:
        return None
    label = _LABEL.match(case.change)
    return dataclasses.replace(remade, change=(label[0] if label else "") + remade.change)


def _set(pop: Population, name: str, index: tuple[int, ...], value: float) -> Population:
    """``pop`` with the entry ``index`` of field ``name`` (and its mirror in a symmetric field) at ``value``."""
    field = pop.fields()[name].copy()
    field[index] = value
    if name in _SYMMETRIC:
        field[index[::-1]] = value
    return pop.replace(**{name: field})


def _moved(prop: Property, case: Case, name: str, index: tuple[int, ...], value: float) -> Case | None:
    """``case`` with one value of ``before`` moved (a user's, or a pair's ``index``), ``after``
    following it; None when the change touches a user of ``index`` (unless it acts on each entry
    alone and leaves this one as it was), or when ``case`` is a single
    population drawn to meet a premise on ``name`` (a field the property ``needs``), so the value stays."""
    if prop.single_population and name in prop.needs:  # (the equal S of zero-at-equality)
        return None
    if prop.remake is not None:
        return _remade(prop, case, _set(case.before, name, index, value))
    replication = _replication(case)
    if replication is None and case.after is not None:
        # Asked before a population is built: a large find that relabels every user has tens of
        # thousands of pair entries, none of which may move.
        if name not in case.after.fields() or not (
            all(_untouched(case, user) for user in set(index)) or _unchanged_entry(prop, case, name, index)
        ):
            return None
    before = _set(case.before, name, index, value)
    if replication is not None:  # the copies move with their user
        after: Population | None = _replicated(before, replication)
    elif case.after is None:
        after = None
    else:
        after = _set(case.after, name, index, value)
    return dataclasses.replace(case, before=before, after=after, values=None, alternatives=())


def _unchanged_entry(prop: Property, case: Case, name: str, index: tuple[int, ...]) -> bool:
    """True when a change acting on each entry alone (``Property.entrywise``) leaves the entry
    ``index`` of field ``name`` as it was: moved in both populations, it leaves a case of the
    property (the effectiveness of a similarity replaced whole)."""
    after = cast(Population, case.after)
    return (
        _entrywise(prop, case)
        and after.m == case.before.m
        and bool(after.fields()[name][index] == case.before.fields()[name][index])
    )


def _entrywise(prop: Property, case: Case) -> bool:
    """True when ``case``'s change acts on each user alone: every change of its property does
    (``Property.entrywise``), or this one does (``Case.entrywise``: a rescaling among transfers)."""
    return prop.entrywise or case.entrywise


def _smaller(prop: Property, case: Case, user: int) -> Case | None:
    """``case`` without ``user`` (with its copies in a replication; any user of a case the property
    remakes, or any its text does not name of a change acting on each user alone,
    ``Property.entrywise``), or None when the change touches it."""
    if prop.remake is not None:
        return _remade(prop, case, _without(case.before, user))
    # A user the change's text names stays (its words would name a user no longer there); the
    # text is numbered as the users left are, so the next step reads it right.
    named = _named(case.change) if _entrywise(prop, case) else set()
    entrywise = (
        _entrywise(prop, case) and case.after is not None and case.after.m == case.before.m and user not in named
    )
    if not (entrywise or _untouched(case, user) or _copies(case, user) is not None):
        return None
    gone = _copies(case, user) or user  # a replicated user leaves with its copies
    return dataclasses.replace(
        case,
        before=_without(case.before, user),
        after=None if case.after is None else _without(case.after, gone),
        change=_shifted(case.change, user) if named else case.change,
        values=None,
        alternatives=(),
    )


def _named(text: str) -> set[int]:
    """The users a change's text names by number (:data:`_USER_NUMBERS`).

    >>> sorted(_named("1 shared history item(s) added to users 3 and 7"))
    [3, 7]
    """
    return {int(hit[2]) for named in _USER_NUMBERS for hit in re.finditer(named, text)}


def _shifted(text: str, user: int) -> str:
    """The change's text with ``user`` gone: the users after it numbered one less.

    >>> _shifted("1 shared history item(s) added to users 3 and 7", 5)
    '1 shared history item(s) added to users 3 and 6'
    """
    return _numbered(text, lambda number: number - (number > user))


def _numbered(text: str, new: Callable[[int], int]) -> str:
    """The change's text with each user it names by number (:data:`_USER_NUMBERS`) numbered ``new(number)``."""
    for named in _USER_NUMBERS:
        text = re.sub(named, lambda hit: f"{hit[1]}{new(int(hit[2]))}", text)
    return text


def _meets(search: PropertySearch, case: Case) -> bool:
    """True when ``case`` meets the precondition of its property's strategy (what its text says
    of it included: a widening's centre and factor)."""
    return meets(search.prop.cases, case, search.level, search.measure)


def _fails(search: PropertySearch, case: Case, kind: str) -> bool:
    """Judge ``case`` through the search; True when it fails the same way (the search keeps it).
    A step that takes a find meeting its statement outside it (a widening's centre out of the
    users' range, a moved user no longer the best-off) fails nothing; a find outside it to begin
    with (a hand-made stored example) is judged as it is."""
    kept = search.failure, search.failure_case
    if not _meets(search, case) and kept[1] is not None and _meets(search, kept[1]):
        return False
    counts, sizes = (search.checked, search.undefined, search.undecided), set(search.sizes)
    try:
        search.check(case)
    except Found:
        if search.failure is not None and search.failure[0] == kind:
            return True
    finally:
        (search.checked, search.undefined, search.undecided), search.sizes = counts, sizes
    search.failure, search.failure_case = kept
    return False


def _independent(prop: Property, case: Case) -> bool:
    """True when the case's other population is not built from ``before`` (the determinism's
    population drawn anew): a case the property remakes keeps it as it is, so it shrinks on its own.

    Examples
    --------
    >>> from puf.properties import get_property
    >>> pop, other = Population([0.2, 0.9], np.eye(2)), Population([0.5, 0.3, 0.1], np.eye(3))
    >>> deterministic = get_property("deterministic")
    >>> _independent(deterministic, Case(pop, other, "a population drawn anew, then P again"))
    True
    >>> _independent(deterministic, Case(pop, pop.permute([1, 0]), "P relabelled: user i → i + 1, then P again"))
    False
    """
    if prop.remake is None or case.after is None:
        return False
    remade = prop.remake(case, case.before)
    return remade is not None and remade.after is case.after


def _other(case: Case, after: Population) -> Case:
    """``case`` with ``after`` as its other population (one not built from ``before``)."""
    return dataclasses.replace(case, after=after, values=None, alternatives=())


def _without_block(search: PropertySearch, case: Case, block: list[int], *, other: bool) -> Case | None:
    """``case`` without the users of ``block`` (of its other population with ``other``), each
    removed as :func:`_smaller` removes one; None when one of them may not leave."""
    if other:
        return _other(case, _without(cast(Population, case.after), block))
    smaller: Case | None = case
    for user in sorted(block, reverse=True):  # (from the last: the others keep their numbers)
        smaller = _smaller(search.prop, smaller, user) if smaller is not None else None
    return smaller


def _fewer_users(search: PropertySearch, kind: str, budget: int, kept: list[int], *, other: bool = False) -> None:
    """Remove the users the change leaves alone (any user of a case the property remakes, or
    whose change acts on each user alone) while the case still fails: the users of each group
    linked by similarity (:func:`_linked_groups`), then blocks of half the users, a quarter and
    an eighth, then one user at a time, as delta debugging does, so that a find that fails at
    m = 10 and 5 but not at 9 still reaches 5, and one of many removable users loses them in few
    calls; ``other``: the users of the case's other population, one not built from ``before``
    (``kept`` then unchanged)."""

    def population() -> Population:
        case = cast(Case, search.failure_case)  # (shrink() starts from a find)
        return cast(Population, case.after) if other else case.before

    def removed(block: list[int]) -> bool:
        """True when the case without ``block`` still fails (it is the find now)."""
        if population().m - len(block) < 2 or search.calls >= budget:
            return False
        smaller = _without_block(search, cast(Case, search.failure_case), block, other=other)
        if smaller is None or not _fails(search, smaller, kind):
            return False
        for user in sorted(block, reverse=True) if not other else ():
            del kept[user]
        return True

    # A user similar to no one left may leave the measure undefined (no similar user to compare
    # with): a group whose users are similar only among themselves leaves whole.
    while any(removed(group) for group in _linked_groups(population())):
        pass
    size = population().m // 2
    while size >= 1 and search.calls < budget:
        m = population().m
        size = min(size, m // 2)
        if m > 8 * size:  # (smaller blocks would cost more calls than one at a time saves)
            size = 1
        blocks = [list(range(start, min(start + size, m))) for start in range(0, m, size)]
        if not any(removed(block) for block in reversed(blocks)):
            size //= 2


def _linked_groups(pop: Population) -> list[list[int]]:
    """The users of ``pop`` in groups linked by a similarity above 0 (the connected components
    of its similarity graph), largest first; none when they form a single group.

    Examples
    --------
    >>> pairs = np.kron(np.eye(3), np.ones((2, 2)))  # users 0-1, 2-3 and 4-5 similar in pairs
    >>> _linked_groups(Population([0.0, 0.1, 0.5, 0.6, 0.9, 1.0], pairs))
    [[0, 1], [2, 3], [4, 5]]
    >>> _linked_groups(Population([0.0, 1.0], np.ones((2, 2))))
    []
    """
    from scipy.sparse.csgraph import connected_components

    similarity = pop.fields().get("similarity")
    if similarity is None or similarity.ndim != 2:
        return []
    count, labels = connected_components(np.asarray(similarity) > 0, directed=False)
    groups = [np.flatnonzero(labels == label).tolist() for label in range(count)]
    return sorted(groups, key=len, reverse=True) if count > 1 else []


def _entries(pop: Population, name: str) -> list[tuple[int, ...]]:
    """The entries of a field a value of which may move: every user's; every pair's (u, v) of a
    pair field, once for a symmetric one (its diagonal fixed)."""
    m = pop.m
    if pop.fields()[name].ndim == 1:
        return [(u,) for u in range(m)]
    if name in _SYMMETRIC:
        return [(u, v) for u in range(m) for v in range(u + 1, m)]
    return [(u, v) for u in range(m) for v in range(m)]


def _simpler_values(search: PropertySearch, kind: str, budget: int, *, other: bool = False) -> int:
    """Move each value of the fields the example shows to the simplest value that keeps the find
    (every value of a user the change leaves alone; any value of a case the property remakes;
    ``other``: any value of the case's other population, one not built from ``before``); the
    number of values moved."""
    moved = 0
    assert search.failure_case is not None  # shrink() starts from a find

    def pop() -> Population:
        found = search.failure_case
        assert found is not None  # (shrink() starts from a find)
        return cast(Population, found.after) if other else found.before

    for name in shown_fields(search.measure, search.prop):
        if name not in pop().fields():
            continue
        for index in _entries(pop(), name):
            for value in _simpler(float(pop().fields()[name][index])):
                if search.calls >= budget:
                    return moved
                if other:
                    case: Case | None = _other(search.failure_case, _set(pop(), name, index, value))
                else:
                    case = _moved(search.prop, search.failure_case, name, index, value)
                if case is None:
                    break
                if _fails(search, case, kind):
                    moved += 1
                    break
    return moved


def users_held(prop: Property, case: Case) -> bool:
    """True when no user of ``case`` may leave it: its change moves every one and acts on them
    together (a Lorenz-dominating S′, which a user removed from both may not leave dominating),
    so a find of many users keeps them whether or not it needs them.

    Examples
    --------
    >>> from puf.properties import get_property
    >>> before = Population([0.3, 0.4, 0.7], np.eye(3))
    >>> dominating = Case(before, before.replace(effectiveness=np.array([0.35, 0.45, 0.6])))
    >>> widened = Case(before, Population([0.1, 0.3, 0.9], np.eye(3)))  # about 0.5, twice as wide
    >>> users_held(get_property("lorenz-consistency"), dominating), users_held(get_property("disparity-monotone"), widened)
    (True, False)
    """
    return all(_smaller(prop, case, user) is None for user in range(case.before.m))


def _sizes(case: Case | None) -> tuple[int, int]:
    """The sizes of a find's populations (``after``'s 0 when it has none)."""
    assert case is not None  # (shrink() starts from a find)
    return case.before.m, 0 if case.after is None else case.after.m


def shrink(search: PropertySearch) -> bool:
    """Minimise the search's find in place (``search.failure`` and ``failure_case``).

    Returns True when it is as small as this shrinker makes it; False when it stopped at its
    budget. Every user a change touches is kept, except in a case the property remakes
    (``Property.remake``), whose other population, where it is not built from ``before``,
    shrinks after it; a property judged in fresh workers judges each smaller case in a process
    of its own (:attr:`PropertySearch.shrinking`), and its workers are ended after.

    Examples
    --------
    >>> from puf import as_measure
    >>> from puf.properties import get_property
    >>> from puf.properties.running.runner import MEASURE_CALLS
    >>> search = PropertySearch(as_measure(lambda effectiveness: 2 * max(effectiveness)), get_property("range"),
    ...                         measure_calls=MEASURE_CALLS, max_examples=10, time_limit=2.0, time_budget=60.0)
    >>> try:
    ...     search.check(Case(Population([0.3, 0.7, 0.2, 0.9], np.eye(4))))
    ... except Found:
    ...     pass
    >>> shrink(search), search.failure[1]["before"]["effectiveness"]
    (True, [0.0, 1.0])
    """
    case = search.failure_case
    if search.failure is None or case is None:
        return True
    kind, m, change = search.failure[0], case.before.m, case.change
    search.searching = False  # outside Hypothesis now: no target()
    search.max_calls += SHRINK_CALLS
    budget = search.calls + SHRINK_CALLS
    search.failure_case = dataclasses.replace(case, segment=False)
    kept, moved = list(range(m)), 0
    # An other population not built from before (a population drawn anew) shrinks too, after P.
    independent = _independent(search.prop, case)
    other_m = cast(Population, case.after).m if independent else 0
    search.shrinking = True
    try:
        # Again while a pass removes a user or moves a value: a remade case pairs its values
        # anew, a value moved can free another, and a similarity moved to 0 can free a user.
        while search.calls < budget:
            sizes = _sizes(search.failure_case)
            _fewer_users(search, kind, budget, kept)
            if independent:
                _fewer_users(search, kind, budget, kept, other=True)
            step = _simpler_values(search, kind, budget)
            step += _simpler_values(search, kind, budget, other=True) if independent else 0
            moved += step
            if not step and _sizes(search.failure_case) == sizes:
                break
    except (OutOfBudget, Timeout):
        pass
    finally:
        search.shrinking = False
        search.close()  # the property's own fresh workers, if any, started again to judge
    others = (other_m, cast(Population, search.failure_case.after).m) if independent else None
    if search.prop.remake is not None:
        # Remade: its text is the smaller case's own, its users numbered there already; the
        # size a stored example was found at stays in its note.
        earlier = re.search(_EARLIER, change)
        text = _renumbered(
            search.failure_case.change
            + (earlier[0] if earlier and earlier[0] not in search.failure_case.change else ""),
            list(range(len(kept))),
            m,
            moved,
            removed="users",
            other=others,
        )
    else:
        removed = "users" if _entrywise(search.prop, search.failure_case) else _LEFT_ALONE
        text = _renumbered(change, kept, m, moved, removed=removed)
    text = _redescribed(text, case.before, search.failure_case.before)
    search.failure[1]["change"] = text
    search.failure_case = dataclasses.replace(search.failure_case, change=text)
    return search.calls < budget
