"""What a strategy of cases promises: every case it draws is an instance of its property's formal
statement (who is changed, by how much, within which range).

A strategy's precondition is declared with it, :func:`precondition` over its definition, in its
case module: a function ``check(case, level, measure)`` that raises :class:`OutsideStatement`
(an ``AssertionError``) naming what a case breaks. The tests draw cases from every catalog
property's strategy and check each with its strategy's precondition, so a new strategy brings its
own check and a property that draws with an existing strategy is checked by that one's. The
checks shared by strategies of several case modules live here.
"""

from __future__ import annotations

__all__ = [
    "TOLERANCE",
    "OutsideStatement",
    "Precondition",
    "precondition",
    "precondition_of",
    "meets",
    "require",
    "same_fields",
    "other_fields",
    "one_step",
    "single_population",
    "effectiveness_transfer",
]

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np

#: The slack a precondition allows a drawn value for floating-point rounding.
TOLERANCE = 1e-9

#: ``check(case, level, measure)``: returns when the case meets the statement, raises otherwise.
Precondition = Callable[[Any, str, Any], None]
_Strategy = TypeVar("_Strategy", bound=Callable[..., Any])


class OutsideStatement(AssertionError):
    """A drawn case outside its property's formal statement: its strategy broke a promise."""


def precondition(check: Precondition) -> Callable[[_Strategy], _Strategy]:
    """Declare the precondition every case of a strategy meets: ``strategy.precondition``.

    Examples
    --------
    >>> @precondition(single_population)
    ... def plain_cases(level, measure):
    ...     ...
    >>> plain_cases.precondition is single_population
    True
    """

    def declare(strategy: _Strategy) -> _Strategy:
        strategy.precondition = check  # type: ignore[attr-defined]
        return strategy

    return declare


def precondition_of(strategy: Callable[..., Any]) -> Precondition:
    """The precondition declared with ``strategy`` (:func:`precondition`).

    Examples
    --------
    >>> from puf.properties.cases.user_cases import single_cases
    >>> precondition_of(single_cases) is single_population
    True
    >>> precondition_of(len)
    Traceback (most recent call last):
    ...
    ValueError: strategy len declares no precondition: declare one with @precondition(check)
    """
    check: Precondition | None = getattr(strategy, "precondition", None)
    if check is None:
        name = getattr(strategy, "__name__", repr(strategy))
        raise ValueError(f"strategy {name} declares no precondition: declare one with @precondition(check)")
    return check


def meets(strategy: Callable[..., Any], case: Any, level: str, measure: Any) -> bool:
    """True when ``case`` meets the precondition declared with ``strategy`` at ``level``.

    Examples
    --------
    >>> from puf import Population
    >>> from puf.properties.cases.case import Case
    >>> from puf.properties.cases.outcome_cases import progressive_transfer_cases
    >>> before = Population([0.2, 0.8], [[1, 0], [0, 1]])
    >>> meets(progressive_transfer_cases, Case(before, before.replace(effectiveness=[0.4, 0.6])), "score", "sd")
    True
    >>> meets(progressive_transfer_cases, Case(before, before.replace(effectiveness=[0.9, 0.1])), "score", "sd")
    False
    """
    try:
        precondition_of(strategy)(case, level, measure)
    except Exception:  # (OutsideStatement, or a check that cannot read so small or so odd a case)
        return False
    return True


def require(condition: Any, what: str) -> None:
    """Raise :class:`OutsideStatement` saying ``what`` a case breaks unless ``condition`` holds.

    Examples
    --------
    >>> require(1 < 2, "1 < 2")
    >>> require(2 < 1, "2 < 1")
    Traceback (most recent call last):
    ...
    puf.properties.cases.preconditions.OutsideStatement: 2 < 1
    """
    if not condition:
        raise OutsideStatement(what)


def same_fields(a: Any, b: Any, names: Iterable[str], *, rounding: bool = False) -> None:
    """Require the fields ``names`` of populations ``a`` and ``b`` equal (where either has them);
    with ``rounding``, equal up to :data:`TOLERANCE` (fields derived again from a world whose
    users moved, where a float sum runs in another order).

    Examples
    --------
    >>> from puf import Population
    >>> one = Population([0.0, 1.0], [[1, 0], [0, 1]])
    >>> same_fields(one, one.replace(effectiveness=[1.0, 1.0]), ["similarity"])
    >>> same_fields(one, one.replace(effectiveness=[1.0, 1.0]), ["effectiveness"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: ...
    >>> same_fields(one, one.replace(effectiveness=[0.0, 1.0 - 2**-52]), ["effectiveness"], rounding=True)
    """
    fa, fb = a.fields(), b.fields()
    for name in names:
        if name in fa or name in fb:
            if rounding:
                np.testing.assert_allclose(fa[name], fb[name], rtol=TOLERANCE, atol=TOLERANCE, err_msg=name)
            else:
                np.testing.assert_array_equal(fa[name], fb[name], err_msg=name)


def other_fields(pop: Any, *changed: str) -> list[str]:
    """The fields of ``pop`` but ``changed``.

    Examples
    --------
    >>> from puf import Population
    >>> other_fields(Population([0.0, 1.0], [[1, 0], [0, 1]]), "effectiveness")
    ['similarity']
    """
    return [f for f in pop.fields() if f not in changed]


def one_step(delta: float) -> bool:
    """True when ``delta`` is ±1/k for the k of a P@k step (k in 1..5, the strategies' worlds).

    Examples
    --------
    >>> one_step(0.25), one_step(-0.5), one_step(0.3)
    (True, True, False)
    """
    return any(abs(abs(delta) - 1.0 / k) < 1e-12 for k in range(1, 6))


def single_population(case: Any, level: str, measure: Any) -> None:
    """The precondition of a property judged on one population: no ``after``.

    Examples
    --------
    >>> from puf import Population
    >>> from puf.properties.cases.case import Case
    >>> single_population(Case(Population([0.0, 1.0], [[1, 0], [0, 1]])), "score", "sd")
    """
    require(case.after is None, "a single population, no 'after'")


def effectiveness_transfer(case: Any, level: str, measure: Any) -> None:
    """The precondition of a progressive transfer: at score level a share τ ∈ (0, ½] of the gap
    moved from a better-off user to a worse-off one, the other fields kept; at world level one
    step of 1/k from a best-off user to a worst-off one at least 2/k apart.

    Examples
    --------
    >>> from puf import Population
    >>> from puf.properties.cases.case import Case
    >>> before = Population([0.2, 0.8], [[1, 0], [0, 1]])
    >>> effectiveness_transfer(Case(before, before.replace(effectiveness=[0.4, 0.6])), "score", "sd")
    """
    before, after = case.before.effectiveness, case.after.effectiveness
    moved = np.flatnonzero(np.abs(after - before) > 1e-15)
    if level == "world":
        require(len(moved) == 2, "two users moved")
        low, high = sorted(moved, key=lambda u: after[u] - before[u])[::-1]
        step = after[low] - before[low]
        require(one_step(step) and abs(before[high] - after[high] - step) < 1e-12, "one step of 1/k moved")
        require(before[low] == before.min() and before[high] == before.max(), "from a best-off to a worst-off user")
        require(before[high] - before[low] >= 2 * step - 1e-12, "the two users at least 2/k apart")
        return
    same_fields(case.before, case.after, other_fields(case.before, "effectiveness"))
    if len(moved) == 0:
        return
    require(len(moved) == 2, "two users moved")
    i, j = moved
    tau = (after[i] - before[i]) / (before[j] - before[i])
    require(0 < tau <= 0.5 + TOLERANCE, f"a share τ in (0, ½] of the gap moved, got {tau}")
    require(abs(after[j] - (before[j] - tau * (before[j] - before[i]))) < 1e-12, "the same amount given and taken")
