"""The judges of the property catalog: a measure's values on a case turned into an *excess*.

A judge is ``judge(measure, value_before, value_after, case) -> float``: > 0
means violated for a universal property and a witness for an existential one.
Lower values are fairer unless the measure declares ``direction="higher"``.
Every comparison is made against :func:`resolution`, the float resolution of a
value of that size computed over the case's m users: a change below it is rounding,
neither a change (equalities hold to it, and to no less than 1e-9 of the value) nor a
strict fall. An *explainer* turns the example of a violation into the one line a
verdict reports, its values printed with the digits that tell them apart
(:func:`shown_pair`).
"""

from __future__ import annotations

__all__ = [
    "MEASURE_EPSILON",
    "resolution",
    "strict_excess",
    "shown_pair",
    "telling_decimals",
    "unchanged",
    "at_fairest",
    "in_range",
    "finite",
    "not_fairer",
    "not_less_fair",
    "unfairness",
    "strictly_fairer",
    "decomposes",
    "consistent",
    "reaches_range",
    "rearranged",
    "lipschitz",
    "explain_excess",
    "explain_out_of_range",
    "example_users",
    "explain_decomposition",
    "explain_lipschitz",
    "explain_strict",
    "explain_undefined",
    "explain_rearranged",
    "explain_range",
    "nearest_to_missed_end",
]

from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from types import SimpleNamespace
from typing import Any
import math

import numpy as np

from puf.metadata import Measure
from ..cases.case import Case

_REL = 1e-9
MEASURE_EPSILON: ContextVar[float] = ContextVar("measure_epsilon", default=2.0**-52)
"""The machine epsilon of the float type the judged measure returns its value in: 2⁻⁵² unless
the verdicts being made are of a measure that returns, say, float32 (2⁻²³); the runner sets it
from the measure's first call, so a value rounded in float32 is judged at float32's resolution."""
UNBOUNDED = 100.0
"""A value beyond ±UNBOUNDED stands for an infinite end of a declared range reached."""


def resolution(m: int, *values: float) -> float:
    """The float resolution of a measure's value over ``m`` users: m·(2⁻⁵²·max(1, |values|) +
    (ε − 2⁻⁵²)·max|values|), ε the machine epsilon of the float type the measure returns its
    value in (:data:`MEASURE_EPSILON`; 2⁻⁵² for float64, where this is m·2⁻⁵²·max(1, |values|)).

    The one place every strict and tolerance judgment takes its margin from. A value summed
    over m users' terms (each of size up to max(1, |value|)) carries a rounding error of
    about m units in the last place; a change smaller than that is not a change. A measure
    that rounds to a coarser float (float32) adds m of its own units at the value's size: a
    relabelling that reorders its float32 sum is no change, while a value that leaves 0 still
    moves.

    Examples
    --------
    >>> resolution(3, 0.5) == 3 * 2.0**-52
    True
    >>> resolution(262, -0.788795) < 1.8e-13 < 1e-12   # a real fall of 1.8e-13 at m = 262
    True
    >>> token = MEASURE_EPSILON.set(2.0**-23)   # a measure that returns float32
    >>> resolution(64, 0.17) > 1.39e-8, resolution(56, 0.0, 6.5e-6) < 6.5e-6
    (True, True)
    >>> MEASURE_EPSILON.reset(token)
    """
    exact, rounding = _resolution_parts(m, values)
    return exact + rounding


def _resolution_parts(m: int, values: Sequence[float]) -> tuple[float, float]:
    """:func:`resolution` as its two parts: float64's, m·2⁻⁵²·max(1, |values|), and what a
    coarser float adds, m·(ε − 2⁻⁵²)·max|values| (0 for float64)."""
    sizes = [abs(v) for v in values if math.isfinite(v)]
    users = max(int(m), 1)
    return users * (2.0**-52 * max([1.0, *sizes])), users * ((MEASURE_EPSILON.get() - 2.0**-52) * max([0.0, *sizes]))


def strict_excess(m: int, gain: float, *values: float) -> float:
    """The excess of a strict judgment whose step moved the value by ``gain`` the way it must
    (values over ``m`` users, ``values`` the sizes read): > 0 violated, ≤ 0 held, NaN undecided.

    A gain beyond :func:`resolution` holds. For a measure that returns float64 every other gain
    is a violation (the excess is ``resolution − gain``, as it always was). A coarser float
    (float32) rounds the gain by up to its own part of the resolution, ``u``: the step is shown
    to fail only when even ``gain + u`` stays within float64's part, and a gain between is
    neither a violation nor a pass (NaN: the case is set aside, as a value too small to call).

    Examples
    --------
    >>> strict_excess(3, 0.0, 0.5) == resolution(3, 0.5), strict_excess(3, 0.1, 0.5) < 0
    (True, True)
    >>> token = MEASURE_EPSILON.set(2.0**-23)   # a float32 measure, m = 20, values near 0.22
    >>> math.isnan(strict_excess(20, 5.2e-7, 0.22)), strict_excess(20, 1e-5, 0.22) < 0 < strict_excess(20, -1e-5, 0.22)
    (True, True)
    >>> MEASURE_EPSILON.reset(token)
    """
    exact, rounding = _resolution_parts(m, values)
    if not rounding:
        return exact + rounding - gain
    if gain >= exact + rounding:
        return exact + rounding - gain
    if gain + rounding < exact:
        return exact - rounding - gain
    return math.nan


def _users(case: Any) -> int:
    """The case's number of users (1 for a case without a population, as in the doctests)."""
    before = getattr(case, "before", None)
    return int(getattr(before, "m", 1) or 1)


def _tol(case: Any, *values: float) -> float:
    """The tolerance of an equality: 1e-9 of the values, or their float resolution when larger."""
    scale = max([1.0] + [abs(v) for v in values if math.isfinite(v)])
    return max(_REL * scale, resolution(_users(case), *values))


def _rounded(excess: float, case: Any, *values: float) -> float:
    """``excess`` of an equality or a weak inequality, for a measure that returns a float coarser
    than float64: an excess within that float's rounding of m terms of size up to max(1, |values|),
    m·(ε − 2⁻⁵²)·max(1, |values|), is undecided (NaN), as a strict step within it is
    (:func:`strict_excess`): the value's own rounding may account for it. A float32 Gini is
    1.2e-7 at equal effectiveness, a difference of two terms near 1; float64's tolerance alone
    called that a violation.

    Examples
    --------
    >>> from puf import Population
    >>> token = MEASURE_EPSILON.set(2.0**-23)   # a float32 measure, m = 3
    >>> case = Case(Population([0.5, 0.5, 0.5], np.eye(3)))
    >>> math.isnan(_rounded(1.18e-7, case, 1.18e-7, 0.0)), _rounded(0.01, case, 0.01, 0.0)
    (True, 0.01)
    >>> MEASURE_EPSILON.reset(token)
    """
    epsilon = MEASURE_EPSILON.get()
    if not excess > 0 or epsilon <= 2.0**-52:
        return excess
    sizes = [abs(v) for v in values if math.isfinite(v)]
    return math.nan if excess <= _users(case) * (epsilon - 2.0**-52) * max([1.0, *sizes]) else excess


def _past_tol(distance: float, case: Any, *values: float) -> float:
    """How far ``distance`` lies past the tolerance of an equality of ``values`` (:func:`_tol`),
    a coarser float's rounding undecided (:func:`_rounded`): the excess of every equality and weak
    inequality judge."""
    return _rounded(distance - _tol(case, *values), case, *values)


def shown_pair(a: float, b: float, *, digits: int = 6) -> tuple[str, str]:
    """``a`` and ``b`` printed with ``digits`` significant digits, or as many more as it takes
    to tell them apart (up to 17, where every distinct float prints distinctly).

    Examples
    --------
    >>> shown_pair(-0.78879512345, -0.78879512362)
    ('-0.788795123', '-0.788795124')
    >>> shown_pair(0.5, 0.25)
    ('0.5', '0.25')
    >>> shown_pair(2.0, 2.0)
    ('2', '2')
    """
    for width in range(digits, 18):
        left, right = f"{a:.{width}g}", f"{b:.{width}g}"
        if left != right or a == b or not (math.isfinite(a) and math.isfinite(b)):
            return left, right
    return left, right


def telling_decimals(before: Any, after: Any) -> int | None:
    """The decimals a field needs so that its values before and after a change print differently
    in numpy's form: None when the usual 4, small values as 0, tell them apart; else the fewest
    from 4 that do, small values shown (17 at most, where every distinct float prints distinctly).
    Every example's fields are shown with it, as its values are with :func:`shown_pair`.

    Examples
    --------
    >>> telling_decimals([0.0, 0.0], [0.0, 2.4e-16]), telling_decimals([0.1, 0.2], [0.1, 0.3])
    (4, None)
    >>> telling_decimals([0.5], [0.5 + 1e-9]), telling_decimals([0.5], [0.5])
    (9, None)
    """
    a, b = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    if a.shape != b.shape or np.array_equal(a, b, equal_nan=True):
        return None
    for digits in (None, *range(4, 18)):
        small = digits is None  # the usual form rounds small values to 0
        shown = [np.array2string(v, precision=digits or 4, suppress_small=small, floatmode="maxprec") for v in (a, b)]
        if shown[0] != shown[1]:
            return digits
    return 17


def unfairness(measure: Measure, value: float) -> float:
    """``value`` read so that larger is less fair, whichever direction the measure declares.

    Examples
    --------
    >>> from puf import as_measure
    >>> import dataclasses
    >>> sd = as_measure("sd")
    >>> unfairness(sd, 0.3), unfairness(dataclasses.replace(sd, direction="higher"), 0.3)
    (0.3, -0.3)
    """
    return value if measure.direction == "lower" else -value


def unchanged(measure: Measure, before: float, after: float, case: Case) -> float:
    """Excess of ``|after − before|`` over the tolerance (invariances; sensitivities' witnesses).

    Examples
    --------
    >>> from puf import as_measure
    >>> unchanged(as_measure("sd"), 0.5, 0.5, None) < 0 < unchanged(as_measure("sd"), 0.5, 0.6, None)
    True
    """
    return _past_tol(abs(after - before), case, before, after)


def at_fairest(measure: Measure, value: float, after: float | None, case: Case) -> float:
    """Distance of ``value`` from the fairest end of the measure's declared range.

    Examples
    --------
    >>> from puf import as_measure
    >>> at_fairest(as_measure("sd"), 0.0, None, None), at_fairest(as_measure("sd"), 0.25, None, None) > 0
    (-1.0, True)
    """
    fairest = measure.fairest
    if value == fairest:
        return -1.0
    if not math.isfinite(fairest):
        return math.inf
    return _past_tol(abs(value - fairest), case, value)


def in_range(measure: Measure, value: float, after: float | None, case: Case) -> float:
    """How far ``value`` lies outside the measure's declared range.

    Examples
    --------
    >>> from puf import as_measure
    >>> in_range(as_measure("sd"), 0.5, None, None) < 0, round(in_range(as_measure("sd"), 1.5, None, None), 12)
    (True, 0.5)
    """
    low, high = measure.range
    below = low - value if math.isfinite(low) or math.isfinite(value) else -1.0
    above = value - high if math.isfinite(high) or math.isfinite(value) else -1.0
    return _rounded(max(below, above) - resolution(_users(case), value), case, value)


def finite(measure: Measure, value: float, after: float | None, case: Case) -> float:
    """Infinite excess when ``value`` is NaN or infinite, none otherwise (``defined``).

    Examples
    --------
    >>> from puf import as_measure
    >>> finite(as_measure("gini"), float("nan"), None, None), finite(as_measure("gini"), 0.5, None, None)
    (inf, -inf)
    """
    return -math.inf if math.isfinite(value) else math.inf


def not_fairer(measure: Measure, before: float, after: float, case: Case) -> float:
    """Before is the less unequal population; the after value must not be fairer.

    Examples
    --------
    >>> from puf import as_measure
    >>> not_fairer(as_measure("sd"), 0.2, 0.1, None) > 0
    True
    """
    return _past_tol(unfairness(measure, before) - unfairness(measure, after), case, before, after)


def not_less_fair(measure: Measure, before: float, after: float, case: Case) -> float:
    """The after value must not be less fair than the before value.

    Examples
    --------
    >>> from puf import as_measure
    >>> not_less_fair(as_measure("sd"), 0.1, 0.2, None) > 0
    True
    """
    return _past_tol(unfairness(measure, after) - unfairness(measure, before), case, before, after)


def strictly_fairer(measure: Measure, before: float, after: float, case: Case, *, towards: str = "fairer") -> float:
    """The after value must be strictly fairer (``towards="less fair"``: strictly less fair):
    by more than the values' :func:`resolution` (a change below it cannot be told from rounding,
    and a change above it is a change; for a measure returning a coarser float, a change within
    its rounding is undecided: :func:`strict_excess`).

    Examples
    --------
    >>> from puf import as_measure
    >>> strictly_fairer(as_measure("sd"), 0.2, 0.2, None) > 0 > strictly_fairer(as_measure("sd"), 0.2, 0.1, None)
    True
    >>> strictly_fairer(as_measure("sd"), 0.1, 0.2, None, towards="less fair") < 0
    True
    """
    if towards not in ("fairer", "less fair"):
        raise ValueError(f"towards must be 'fairer' or 'less fair', got {towards!r}")
    gain = unfairness(measure, before) - unfairness(measure, after)
    return strict_excess(_users(case), gain if towards == "fairer" else -gain, before, after)


def _derived(case: Case, before: float, after: float) -> tuple[dict[str, float] | None, float]:
    values = dict(case.values or {})
    if not values or not all(math.isfinite(v) for v in (before, after, *values.values())):
        return None, 0.0
    return values, _tol(case, before, after, *values.values())


def decomposes(measure: Measure, before: float, after: float, case: Case) -> float:
    """Excess of the decomposition's three checks (``case.values`` from
    :func:`properties.cases.subgroup_cases.decomposition_parts`); NaN when there is nothing to judge.

    With P = (A, B), P' = (A', B), A' of A's size and mean: the change of the whole equals
    the change with the other groups at their means (separable), it is w·(f(A') − f(A)) with
    the same w as the change to A at its mean (one weight per size and mean), and w ≥ 0.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from puf import as_measure
    >>> parts = dict(others_smoothed=0.3, others_smoothed_changed=0.2, group_smoothed=0.3,
    ...              group=0.4, group_changed=0.2, group_at_mean=0.0)
    >>> decomposes(as_measure("variance"), 0.5, 0.4, SimpleNamespace(values=parts)) < 0
    True
    """
    v, tol = _derived(case, before, after)
    if v is None:
        return math.nan
    return max(_decomposition_excesses(before, after, v, tol))


def _decomposition_excesses(before: float, after: float, v: Mapping[str, float], tol: float) -> list[float]:
    """The excesses of :func:`decomposes`' three checks, in the order of its formal statement.
    (The sign of the weight reads the product of two changes, the same in either direction.)"""
    scale = max(1.0, *(abs(x) for x in (before, after, *v.values())))
    change = before - after
    group = v["group"] - v["group_changed"]
    separable = abs(change - (v["others_smoothed"] - v["others_smoothed_changed"])) - tol
    one_weight = abs(change * (v["group"] - v["group_at_mean"]) - (before - v["group_smoothed"]) * group) - tol * scale
    positive = -(change * group) - tol * scale
    return [separable, one_weight, positive]


_DECOMPOSITION_CLAUSES = (
    "(i) the whole's change is not its change with the other groups at their means",
    "(ii) the whole's change is not one weight (per group size and mean) times the group's",
    "(iii) the whole and the group moved opposite ways (a negative weight)",
)


def explain_decomposition(example: Mapping[str, Any]) -> str:
    """The reason of a violated decomposition: its size and which of :func:`decomposes`' three
    checks fail, read from the example's values and its derived ones.

    Examples
    --------
    >>> parts = dict(others_smoothed=0.3, others_smoothed_changed=0.2, group_smoothed=0.4,
    ...              group=0.4, group_changed=0.2, group_at_mean=0.0)
    >>> print(explain_decomposition({"value_before": 0.5, "value_after": 0.4, "violation": 0.02,
    ...     "derived": parts, "before": {"effectiveness": [0.1, 0.2, 0.3]}}))
    counterexample, violation 0.02: (ii) the whole's change is not one weight (per group size and mean) times the group's
    """
    before, after, v = example.get("value_before"), example.get("value_after"), example.get("derived") or {}
    numbers = (before, after, *v.values())
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in numbers) or len(v) < 6:
        return explain_excess(example)
    m = max(1, example_users(example))
    tol = _tol(SimpleNamespace(before=SimpleNamespace(m=m)), *numbers)  # (m users' resolution)
    excesses = _decomposition_excesses(float(before), float(after), v, tol)  # type: ignore[arg-type]
    failed = [clause for clause, excess in zip(_DECOMPOSITION_CLAUSES, excesses) if excess > 0]
    return explain_excess(example) + (": " + "; ".join(failed) if failed else "")


def explain_lipschitz(example: Mapping[str, Any]) -> str:
    """The reason of a violated Lipschitz bound: how far the value moved, and by how much its
    slope over the perturbation δ exceeds the bound 10·w (the judge's excess, in slope units).

    Examples
    --------
    >>> print(explain_lipschitz({"value_before": 0.129, "value_after": 0.13, "violation": 15304.3}))
    counterexample: the value moved 0.001, a slope |Δf|/δ above the bound 10·w by 1.53e+04 (w: the declared range's width, or 1)
    """
    if not all(isinstance(example.get(k), (int, float)) for k in ("value_before", "value_after", "violation")):
        return explain_excess(example)
    change = abs(example["value_after"] - example["value_before"])
    return (
        f"counterexample: the value moved {change:.3g}, a slope |Δf|/δ above the bound 10·w by "
        f"{example['violation']:.3g} (w: the declared range's width, or 1)"
    )


def consistent(measure: Measure, before: float, after: float, case: Case) -> float:
    """A group made less fair (same size and mean) must not make the whole fairer, and a group
    made fairer must not make the whole less fair (``case.values``: the group alone).

    The premise is strict, as the strict judgments are: the group's change counts when it
    exceeds the group values' :func:`resolution`; within it the group is unchanged and the
    whole must be too. The conclusion allows the tolerance of an equality. So a group that
    falls by less than the tolerance while a whole that weighs it more falls by more is
    consistent, not a violation.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from puf import as_measure
    >>> consistent(as_measure("sd"), 0.3, 0.2, SimpleNamespace(values={"group": 0.1, "group_changed": 0.2})) > 0
    True
    >>> falls = SimpleNamespace(values={"group": 0.1, "group_changed": 0.1 - 5e-10})
    >>> consistent(as_measure("sd"), 0.3, 0.3 - 2e-9, falls) < 0   # both fall: consistent
    True
    """
    v, tol = _derived(case, before, after)
    if v is None:
        return math.nan
    group = unfairness(measure, v["group_changed"]) - unfairness(measure, v["group"])
    whole = unfairness(measure, after) - unfairness(measure, before)
    step = resolution(_users(case), v["group"], v["group_changed"])
    excess = -math.inf
    if group >= -step:
        excess = max(excess, -whole - tol)
    if group <= step:
        excess = max(excess, whole - tol)
    return excess


def _shortfall(measure: Measure, end: float, values: Sequence[float], towards: int, case: Case) -> float:
    """How far the values found stay from ``end`` on the side ``towards`` (+1 up, −1 down)."""
    best = max(towards * v for v in values)
    if math.isinf(end):
        return UNBOUNDED - best
    return towards * end - best - _tol(case, end, *values)


def reaches_range(measure: Measure, value: float, after: float | None, case: Case) -> float:
    """Shortfall of the values at m (the drawn population and ``case.values``, the candidate
    extremes) from the declared range's ends; an infinite end wants a value beyond ±100.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from puf import as_measure
    >>> round(reaches_range(as_measure("gini"), 0.2, None, SimpleNamespace(values={"a": 0.0, "b": 0.5})), 6)
    0.5
    """
    values = [v for v in (value, *(case.values or {}).values()) if not math.isnan(v)]
    low, high = measure.range
    return max(_shortfall(measure, low, values, -1, case), _shortfall(measure, high, values, +1, case))


def rearranged(measure: Measure, fair: float, unfair: float, case: Case) -> float:
    """The most_fair pairing's value must be no less fair (strictly fairer when ``case.strict``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from puf import as_measure
    >>> rearranged(as_measure("sd"), 0.3, 0.3, SimpleNamespace(strict=True)) > 0
    True
    """
    gain = unfairness(measure, unfair) - unfairness(measure, fair)
    if case.strict:
        return strict_excess(_users(case), gain, fair, unfair)
    return _past_tol(-gain, case, fair, unfair)


def lipschitz(measure: Measure, before: float, after: float, case: Case) -> float:
    """Excess of the change per unit of perturbation ``case.delta`` over 10 × the range's width;
    for a measure that returns a coarser float (float16, float32), undecided (NaN) when its
    rounding alone may make the change (one float16 unit over δ = 6.5e-8 is a slope of 925).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from puf import as_measure
    >>> lipschitz(as_measure("sd"), 0.0, 0.5, SimpleNamespace(delta=0.01))
    40.0
    >>> token = MEASURE_EPSILON.set(2.0**-10)   # a float16 measure: one unit at 0.0856
    >>> math.isnan(lipschitz(as_measure("sd"), 0.0855713, 0.0856323, SimpleNamespace(delta=6.5e-8)))
    True
    >>> MEASURE_EPSILON.reset(token)
    """
    low, high = measure.range
    width = high - low if math.isfinite(high - low) else 1.0
    change = abs(after - before)
    excess = change / case.delta - 10.0 * width
    return math.nan if excess > 0 and math.isnan(_rounded(change, case, before, after)) else excess


def example_users(example: Mapping[str, Any]) -> int:
    """The number of users of a verdict's example (its ``before``'s; 0 when it has none).

    Examples
    --------
    >>> example_users({"before": {"effectiveness": [0.1, 0.3]}}), example_users({})
    (2, 0)
    """
    return len(next(iter((example.get("before") or {}).values()), ()))


def explain_excess(example: Mapping[str, Any]) -> str:
    """The reason of a violated universal property: the size of the violation.

    Examples
    --------
    >>> explain_excess({"violation": 0.03333})
    'counterexample, violation 0.0333'
    """
    return f"counterexample, violation {example['violation']:.3g}"


def explain_out_of_range(example: Mapping[str, Any]) -> str:
    """The reason of a ``range`` violation: the value, the declared range it left and by how much.

    A user's function given without ``@measure(range=...)`` has the range [0, 1], which the reason
    says (not ``registered``): an index unbounded above (Theil's, a coefficient of variation) is
    violated there until it declares its own.

    Examples
    --------
    >>> explain_out_of_range({"value_before": 1.0986, "violation": 0.0986, "range": (0.0, 1.0)})
    'value 1.0986 above the declared range [0, 1] by 0.0986 (the default; @measure(range=(low, high)) declares another)'
    >>> explain_out_of_range({"value_before": 2.0, "violation": 1.0, "range": (0.0, 1.0), "registered": True})
    'value 2 above the declared range [0, 1] by 1'
    >>> explain_out_of_range({"value_before": -0.5, "violation": 0.5, "range": (0.0, math.inf)})
    'value -0.5 below the declared range [0, inf] by 0.5'
    """
    low, high = example["range"]
    value = example["value_before"]
    side = "below" if value < low else "above"
    reason = f"value {value:.6g} {side} the declared range [{low:g}, {high:g}] by {example['violation']:.3g}"
    if (low, high) == (0.0, 1.0) and not example.get("registered"):
        reason += " (the default; @measure(range=(low, high)) declares another)"
    return reason


def explain_strict(example: Mapping[str, Any], *, step: str, towards: str = "fairer") -> str:
    """The reason of a strict judgment's violation: what ``step`` did to the value, where it had to
    make it strictly fairer (``towards="less fair"``: strictly less fair) by more than the float
    resolution. The two values say whether it rose or fell, not which way is fairer (the
    measure's direction), so the line states the move and that it was not the one due.

    Examples
    --------
    >>> explain_strict({"value_before": 0.0, "value_after": 0.0}, step="the transfer")
    'the transfer left the value at 0'
    >>> explain_strict({"value_before": 0.5, "value_after": 0.25}, step="the raise", towards="less fair")
    'the raise lowered the value, not strictly less fair: 0.5 → 0.25'
    >>> explain_strict({"value_before": 0.18708286933869708, "value_after": 0.18708286933869706,
    ...                 "before": {"effectiveness": [0.0, 0.3, 0.4, 0.5]}}, step="the transfers")
    'the transfers left the value at 0.187 (moved 2.8e-17, within its float resolution)'
    """
    before, after = example["value_before"], example["value_after"]
    if before == after:
        return f"{step} left the value at {before:.6g}"
    m = max(1, example_users(example))
    if abs(after - before) <= resolution(m, before, after):  # (the judge's margin: no move at all)
        return f"{step} left the value at {before:.6g} (moved {abs(after - before):.2g}, within its float resolution)"
    shown = shown_pair(before, after)
    moved = "raised" if after > before else "lowered"
    return f"{step} {moved} the value, not strictly {towards}: {shown[0]} → {shown[1]}"


def explain_undefined(example: Mapping[str, Any]) -> str:
    """The reason of a ``defined`` violation: the value returned (and the warning given), or the exception raised.

    Examples
    --------
    >>> explain_undefined({"value_before": float("nan"), "error": None})
    'returned nan on a valid population'
    >>> explain_undefined({"value_before": None, "error": "returned NoneType, not a number: return one"})
    'on a valid population it returned NoneType, not a number: return one'
    >>> explain_undefined({"value_before": float("nan"), "warning": "RuntimeWarning: invalid value encountered in divide"})
    'returned nan on a valid population, after RuntimeWarning: invalid value encountered in divide'
    """
    error = example.get("error") or ""
    if error.startswith("returned "):  # (puf.returned.not_a_number: it raised nothing)
        return f"on a valid population it {error}"
    if error:
        return f"raised on a valid population: {error}"
    warned = f", after {example['warning']}" if example.get("warning") else ""
    return f"returned {example['value_before']} on a valid population{warned}"


def explain_rearranged(example: Mapping[str, Any]) -> str:
    """The reason of a rearrangement violation: a tie where a strict gain was due, or the excess.

    Examples
    --------
    >>> explain_rearranged({"value_before": 0.5, "value_after": 0.5, "violation": 1e-12})
    'most_fair not strictly fairer than most_unfair (both 0.5)'
    """
    before, after = example["value_before"], example["value_after"]
    if before == after:
        return f"most_fair not strictly fairer than most_unfair (both {before:.6g})"
    fair, unfair = shown_pair(before, after)
    if abs(before - after) <= 1e-9 * max(1.0, abs(before)):
        return f"most_fair not strictly fairer than most_unfair ({fair} against {unfair})"
    return explain_excess(example)


def nearest_to_missed_end(measure: Measure, example: Mapping[str, Any]) -> str | None:
    """The population of an ``attainable-range`` example that came nearest the end of the range it
    stops short of, and its value (the drawn population sits at the other end as often as not);
    None when no finite end is missed.

    Examples
    --------
    >>> from puf import as_measure
    >>> example = {"value_before": 0.0, "derived": {"one at 1, the rest 0": 0.5, "all at 0": 0.0}}
    >>> nearest_to_missed_end(as_measure("gini"), example)
    'one at 1, the rest 0, at 0.5'
    """
    values = {"the population drawn": example.get("value_before")} | dict(example.get("derived") or {})
    found = {label: float(v) for label, v in values.items() if isinstance(v, (int, float)) and math.isfinite(v)}
    low, high = measure.range
    if not found or (math.isinf(low) and math.isinf(high)):
        return None
    short_low = min(found.values()) - low if math.isfinite(low) else -math.inf
    short_high = high - max(found.values()) if math.isfinite(high) else -math.inf
    pick = min if short_low >= short_high else max
    label = pick(found, key=lambda name: found[name])
    return f"{label}, at {found[label]:.3g}"


def explain_range(example: Mapping[str, Any]) -> str:
    """The reason of an ``attainable-range`` violation: the values found at m against the range.

    Examples
    --------
    >>> explain_range({"before": {"effectiveness": [0, 0, 1]}, "value_before": 0.5,
    ...                "derived": {"a": 0.0, "b": 2 / 3}})
    'm = 3: the values found span [0, 0.667] (the drawn population and 2 candidate extremes)'
    """
    values = [
        v
        for v in (example["value_before"], *example.get("derived", {}).values())
        if isinstance(v, (int, float)) and not math.isnan(v)
    ]
    m = example_users(example)
    return (
        f"m = {m}: the values found span [{min(values):.3g}, {max(values):.3g}] "
        f"(the drawn population and {len(example.get('derived', {}))} candidate extremes)"
    )
