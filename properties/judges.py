"""The judges of the property catalog: a measure's values on a case turned into an *excess*.

A judge is ``judge(measure, value_before, value_after, case) -> float``: > 0
means violated for a universal property and a witness for an existential one.
Lower values are fairer unless the measure declares ``direction="higher"``;
equalities hold to a relative tolerance of 1e-9. An *explainer* turns the
example of a violation into the one line a verdict reports.
"""

__all__ = ["unchanged", "at_fairest", "in_range", "finite", "not_fairer", "not_less_fair",
           "rearranged", "lipschitz", "explain_excess", "explain_undefined", "explain_rearranged"]

import math

_REL = 1e-9


def _tol(*values):
    return _REL * max([1.0] + [abs(v) for v in values if math.isfinite(v)])


def _unfairness(measure, value):
    return value if measure.direction == "lower" else -value


def unchanged(measure, before, after, case):
    """Excess of ``|after − before|`` over the tolerance (invariances; sensitivities' witnesses).

    Examples
    --------
    >>> from puf import as_measure
    >>> unchanged(as_measure("sd"), 0.5, 0.5, None) < 0 < unchanged(as_measure("sd"), 0.5, 0.6, None)
    True
    """
    return abs(after - before) - _tol(before, after)


def at_fairest(measure, value, after, case):
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
    return abs(value - fairest) - _tol(value) if math.isfinite(fairest) else math.inf


def in_range(measure, value, after, case):
    """How far ``value`` lies outside the measure's declared range.

    Examples
    --------
    >>> from puf import as_measure
    >>> in_range(as_measure("sd"), 0.5, None, None) < 0, in_range(as_measure("sd"), 1.5, None, None)
    (True, 0.499999999999)
    """
    low, high = measure.range
    below = low - value if math.isfinite(low) or math.isfinite(value) else -1.0
    above = value - high if math.isfinite(high) or math.isfinite(value) else -1.0
    return max(below, above) - 1e-12


def finite(measure, value, after, case):
    """Infinite excess when ``value`` is NaN or infinite, none otherwise (``defined``).

    Examples
    --------
    >>> from puf import as_measure
    >>> finite(as_measure("gini"), float("nan"), None, None), finite(as_measure("gini"), 0.5, None, None)
    (inf, -inf)
    """
    return -math.inf if math.isfinite(value) else math.inf


def not_fairer(measure, before, after, case):
    """Before is the less unequal population; the after value must not be fairer.

    Examples
    --------
    >>> from puf import as_measure
    >>> not_fairer(as_measure("sd"), 0.2, 0.1, None) > 0
    True
    """
    return _unfairness(measure, before) - _unfairness(measure, after) - _tol(before, after)


def not_less_fair(measure, before, after, case):
    """The after value must not be less fair than the before value.

    Examples
    --------
    >>> from puf import as_measure
    >>> not_less_fair(as_measure("sd"), 0.1, 0.2, None) > 0
    True
    """
    return _unfairness(measure, after) - _unfairness(measure, before) - _tol(before, after)


def rearranged(measure, fair, unfair, case):
    """The most_fair pairing's value must be no less fair (strictly fairer when ``case.strict``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from puf import as_measure
    >>> rearranged(as_measure("sd"), 0.3, 0.3, SimpleNamespace(strict=True)) > 0
    True
    """
    gain = _unfairness(measure, unfair) - _unfairness(measure, fair)
    if case.strict:
        return 1e-12 * max(1.0, abs(fair), abs(unfair)) - gain
    return -gain - _tol(fair, unfair)


def lipschitz(measure, before, after, case):
    """Excess of the change per unit of perturbation ``case.delta`` over 10 × the range's width.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from puf import as_measure
    >>> lipschitz(as_measure("sd"), 0.0, 0.5, SimpleNamespace(delta=0.01))
    40.0
    """
    low, high = measure.range
    width = high - low if math.isfinite(high - low) else 1.0
    return abs(after - before) / case.delta - 10.0 * width


def explain_excess(example):
    """The reason of a violated universal property: the size of the violation.

    Examples
    --------
    >>> explain_excess({"violation": 0.03333})
    'counterexample, violation 0.0333'
    """
    return f"counterexample, violation {example['violation']:.3g}"


def explain_undefined(example):
    """The reason of a ``defined`` violation: the value returned, or the exception raised.

    Examples
    --------
    >>> explain_undefined({"value_before": float("nan"), "error": None})
    'returned nan on a valid population'
    """
    if example.get("error"):
        return f"raised on a valid population: {example['error']}"
    return f"returned {example['value_before']} on a valid population"


def explain_rearranged(example):
    """The reason of a rearrangement violation: a tie where a strict gain was due, or the excess.

    Examples
    --------
    >>> explain_rearranged({"value_before": 0.5, "value_after": 0.5, "violation": 1e-12})
    'most_fair not strictly fairer than most_unfair (both 0.5)'
    """
    before, after = example["value_before"], example["value_after"]
    if abs(before - after) <= 1e-9 * max(1.0, abs(before)):
        return f"most_fair not strictly fairer than most_unfair (both {before:.6g})"
    return explain_excess(example)
