"""The judges of the welfare axioms: each checks its premise on the populations it is given
(so a stored or shrunk example is judged by what it is) and returns an excess (> 0: violated),
or NaN when the populations are no instance of the property (nothing to judge).

Comparisons follow :mod:`properties.catalog.judges`: lower is fairer unless the measure declares
``direction="higher"``, weak judgments allow the tolerance and strict ones the float
resolution (:func:`properties.catalog.judges.resolution`).
"""

from __future__ import annotations

__all__ = [
    "lorenz_not_less_fair",
    "addition_not_less_fair",
    "mirror_ranked",
    "envy_free_fairest",
    "explain_mirror",
    "explain_envy",
]

from collections.abc import Mapping
from typing import Any
import math

from puf.metadata import Measure

from . import judges
from ..cases.case import Case
from ..cases.welfare_cases import added_amount, envy_free, lorenz_dominates, max_envy, strict_envy


def _unfairness(measure: Measure, value: float) -> float:
    return value if measure.direction == "lower" else -value


def lorenz_not_less_fair(measure: Measure, before: float, after: float, case: Case) -> float:
    """``case.after`` Lorenz-dominates ``case.before`` (their effectiveness): its value must not
    be less fair, to the tolerance.

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> p = Population([0.1, 0.3], [[1, 0], [0, 1]])
    >>> case = Case(p, p.replace(effectiveness=[0.2, 0.6]))      # equal Lorenz curves, doubled
    >>> lorenz_not_less_fair(as_measure("sd"), 0.1, 0.2, case) > 0
    True
    >>> math.isnan(lorenz_not_less_fair(as_measure("sd"), 0.2, 0.1, Case(case.after, p.replace(effectiveness=[0.0, 0.4]))))
    True
    """
    assert case.after is not None  # a Lorenz case compares two populations
    if not lorenz_dominates(case.after.effectiveness, case.before.effectiveness):
        return math.nan
    return judges.not_less_fair(measure, before, after, case)


def addition_not_less_fair(measure: Measure, before: float, after: float, case: Case) -> float:
    """``case.after`` adds one c > 0 to every outcome of ``case.before``: its value must not be
    less fair by more than the float resolution.

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> p = Population([0.1, 0.3], [[1, 0], [0, 1]])
    >>> case = Case(p, p.replace(effectiveness=[0.2, 0.4]))
    >>> addition_not_less_fair(as_measure("gini"), 0.25, 1 / 6, case) < 0
    True
    >>> addition_not_less_fair(as_measure("gini"), 0.25, 0.25 + 2e-16, case) < 0 < addition_not_less_fair(
    ...     as_measure("gini"), 0.25, 0.25 + 1e-14, case)
    True
    """
    assert case.after is not None  # an addition compares two populations
    if math.isnan(added_amount(case.before, case.after)):
        return math.nan
    rise = _unfairness(measure, after) - _unfairness(measure, before)
    return rise - judges.resolution(case.before.m, before, after)


def mirror_ranked(measure: Measure, before: float, after: float, case: Case) -> float:
    """f(P), f(P') must rank as f(1 − P), f(1 − P') do (``case.values``: ``mirror_before``,
    ``mirror_after``): the excess is how far both orders are strict, in opposite directions,
    beyond the float resolution; NaN when a mirrored value is undefined.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from puf import as_measure
    >>> flipped = SimpleNamespace(values={"mirror_before": 0.5, "mirror_after": 0.1})
    >>> round(mirror_ranked(as_measure("gini"), 0.05, 0.1, flipped), 12)
    0.05
    >>> kept = SimpleNamespace(values={"mirror_before": 0.05, "mirror_after": 0.1})
    >>> mirror_ranked(as_measure("sd"), 0.05, 0.1, kept) < 0
    True
    """
    values = case.values or {}
    shortfall_before, shortfall_after = values.get("mirror_before", math.nan), values.get("mirror_after", math.nan)
    if not (math.isfinite(shortfall_before) and math.isfinite(shortfall_after)):
        return math.nan
    outcomes, shortfalls = after - before, shortfall_after - shortfall_before
    flip = max(min(outcomes, -shortfalls), min(-outcomes, shortfalls))
    return flip - judges.resolution(getattr(getattr(case, "before", None), "m", 1), before, after, *values.values())


def envy_free_fairest(measure: Measure, value: float, after: float | None, case: Case) -> float:
    """Envy-free utility (no φ_u(L_v) above φ_u(L_u)): the value must be the fairest end, to the
    tolerance; an envy of at least :data:`~properties.welfare_cases.MIN_ENVY`: it must be
    less fair than the fairest end by more than the float resolution. NaN otherwise (no utility,
    or an envy too small to call).

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> free = Case(Population([0.5, 0.5], [[1, 0], [0, 1]], utility=[[0.5, 0.5], [0.2, 0.4]]))
    >>> envious = Case(free.before.replace(utility=[[0.5, 0.52], [0.2, 0.4]]))
    >>> envy_free_fairest(as_measure("me"), 0.0, None, free) < 0, envy_free_fairest(as_measure("me"), 0.0, None, envious) > 0
    (True, True)
    """
    utility = case.before.utility
    if utility is None:
        return math.nan
    if envy_free(utility):
        return judges.at_fairest(measure, value, after, case)
    if not strict_envy(utility):
        return math.nan
    fairest = measure.fairest
    gain = _unfairness(measure, value) - _unfairness(measure, fairest)
    return judges.resolution(case.before.m, value) - gain


def explain_mirror(example: Mapping[str, Any]) -> str:
    """The reason of a ``mirror-consistency`` violation: the two orders, and the strong form's gap.

    Examples
    --------
    >>> explain_mirror({"value_before": 0.05, "value_after": 0.1,
    ...                 "derived": {"mirror_before": 0.5, "mirror_after": 0.1}})
    'f(P) = 0.05 < f(P′) = 0.1 but f(1 − P) = 0.5 > f(1 − P′) = 0.1; strong form f(1 − P) = f(P) fails too (0.5 against 0.05)'
    """
    a, b = example["value_before"], example["value_after"]
    derived = example.get("derived", {})
    ma, mb = derived.get("mirror_before", math.nan), derived.get("mirror_after", math.nan)
    first, second = ("<", ">") if a < b else (">", "<")
    shown_a, shown_ma = judges.shown_pair(a, ma)
    strong = "fails too" if abs(a - ma) > 1e-9 * max(1.0, abs(a), abs(ma)) else "holds on P"
    return (
        f"f(P) = {a:.6g} {first} f(P′) = {b:.6g} but f(1 − P) = {ma:.6g} {second} f(1 − P′) = {mb:.6g}; "
        f"strong form f(1 − P) = f(P) {strong} ({shown_ma} against {shown_a})"
    )


def explain_envy(example: Mapping[str, Any]) -> str:
    """The reason of an ``envy-free-fairest`` violation: the largest envy and the value.

    Examples
    --------
    >>> explain_envy({"before": {"utility": [[0.98, 1.0], [0.0, 1.0]]}, "value_before": 0.0})
    'an envy of 0.02 (user values another list above its own) gives 0, the fairest value'
    >>> explain_envy({"before": {"utility": [[1.0, 0.5], [0.0, 1.0]]}, "value_before": 0.25})
    'no envy (every user values its own list most) but the value is 0.25, not the fairest'
    """
    envy, value = max_envy(example["before"]["utility"]), example["value_before"]
    if envy > 0:
        return f"an envy of {envy:.3g} (user values another list above its own) gives {value:.6g}, the fairest value"
    return f"no envy (every user values its own list most) but the value is {value:.6g}, not the fairest"
