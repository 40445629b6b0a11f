"""Proofs that a declared end is out of reach at some m: the negation of ``attainable-range``.

``attainable-range`` asks, at every m, for a population that reaches each end of the declared
range. A search that finds none proves nothing (``not-found``); the negation needs one m at
which no population reaches an end. For a grammar measure, :func:`unreached_end` asks the z3
solver for a population of that m (S in [0, 1]^m, similarities in [0, 1], wherever the measure
is defined) whose value goes beyond a bound; *unsat* proves that none does. It first asks about
the most extreme value the search found, read as a simple fraction, so that a proof names the
exact extreme at that m; failing that, about the end itself less :data:`UNREACHED_MARGIN` (an
infinite end: ±100, what the property asks of it). A logarithm or an exponential is held by
the bounds it meets (:class:`~properties.proving.smt_encoding.Encoder`'s ``relax``), which keeps
*unsat* a proof.
"""

from __future__ import annotations

__all__ = ["UNREACHED_MARGIN", "unreached_end"]

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from puf.grammar import builtin_form
from puf.metadata import Measure

from ..catalog.judges import UNBOUNDED
from .smt_encoding import Encoder, NotEncodable, z3_module

UNREACHED_MARGIN = 1e-6
"""How far short of a finite end the solver is asked to show every value: far above the
property's tolerance (10⁻⁹ of the values, or their float resolution)."""

_BOUNDED_OPS = ("log", "xlogx", "exp")


def _beyond(z3: Any, form: Any, m: int, bound: Fraction, towards: int, *, strict: bool, timeout: float) -> str:
    """The solver's answer to: is there a population of m users whose value is beyond ``bound``
    on the side ``towards`` (+1: above, −1: below), strictly or not?"""
    s = [z3.Real(f"S{i}") for i in range(m)]
    w = {(i, j): z3.Real(f"w{i}{j}") for i in range(m) for j in range(i + 1, m)}
    solver = z3.Solver()
    solver.set("timeout", int(timeout * 1000))
    solver.add(*[z3.And(x >= 0, x <= 1) for x in [*s, *w.values()]])
    leaves: dict[tuple[Any, ...], Any] = {("S", i): x for i, x in enumerate(s)}
    leaves.update({("w", *k): x for k, x in w.items()})
    encoder = Encoder(z3, leaves, prefix="v", relax=True)
    value = encoder.encode(form.symbolic(m))
    solver.add(*encoder.constraints, *encoder.defined)
    target = z3.RealVal(str(bound))
    side = value - target if towards > 0 else target - value
    solver.add(side > 0 if strict else side >= 0)
    return str(solver.check())


def _shown(value: float | Fraction) -> str:
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    return "∞" if value == math.inf else "−∞" if value == -math.inf else f"{value:g}"


def _values(example: Mapping[str, Any]) -> list[float]:
    found = [example.get("value_before"), *(example.get("derived") or {}).values()]
    return [float(v) for v in found if isinstance(v, (int, float)) and math.isfinite(v)]


def unreached_end(measure: Measure, example: Mapping[str, Any], *, timeout: float = 10.0) -> tuple[str, str] | None:
    """Prove that no population of the example's m users reaches an end of ``measure``'s declared
    range that the values found at m fell short of; None when no proof is found (no grammar
    form, no solver, an expression without an encoding, *sat*, *unknown* or a time-out).

    Parameters
    ----------
    measure : puf.Measure
    example : dict
        An ``attainable-range`` example (``before``, ``value_before``, ``derived``: the values
        found at its m).
    timeout : float, default 10.0
        Seconds per solver call.

    Returns
    -------
    (str, str) or None
        ``("at m = M, by SMT", argument)``: the proof's scope and what it shows, the negation
        of the property.

    Examples
    --------
    >>> import pytest, puf
    >>> _ = z3_module() or pytest.skip("z3 not installed")
    >>> example = {"before": {"effectiveness": [0.0, 1.0]}, "value_before": 0.5, "derived": {"x": 0.0}}
    >>> scope, argument = unreached_end(puf.as_measure("sd"), example)
    >>> scope
    'at m = 2, by SMT'
    >>> argument
    'no population of 2 users goes above 1/2, the largest value found (so the maximum at m = 2), short of the declared end 1'
    """
    form, z3 = builtin_form(measure), z3_module()
    values = _values(example)
    if form is None or z3 is None or not values:
        return None
    m = len(next(iter(example["before"].values())))
    try:
        relaxed = any(node.op in _BOUNDED_OPS for node in form.symbolic(m).nodes())
        for end, towards in zip(measure.range, (-1, 1)):
            argument = _unreached(z3, form, m, end, towards, values, timeout)
            if argument is not None:
                held = " (each logarithm held by the bounds 1 − 1/x ≤ ln x ≤ x − 1)" if relaxed else ""
                return f"at m = {m}, by SMT", argument + held
    except NotEncodable:
        return None
    return None


def _unreached(z3: Any, form: Any, m: int, end: float, towards: int, values: list[float], timeout: float) -> str | None:
    """The argument that no population of m users reaches ``end`` (on the side ``towards``), or None."""
    best = towards * max(towards * v for v in values)
    wanted = towards * UNBOUNDED if math.isinf(end) else end - towards * UNREACHED_MARGIN
    if towards * best >= towards * wanted:
        return None  # this end is reached
    side, extreme = ("above", "largest") if towards > 0 else ("below", "smallest")
    exact = Fraction(best).limit_denominator(1000)
    if abs(float(exact) - best) <= 1e-9 * max(1.0, abs(best)) and towards * exact < towards * wanted:
        if _beyond(z3, form, m, exact, towards, strict=True, timeout=timeout) == "unsat":
            # Attained exactly (the solver finds a population at it): the extreme itself.
            attained = _beyond(z3, form, m, exact, towards, strict=False, timeout=timeout) == "sat"
            what = f"so the {'maximum' if towards > 0 else 'minimum'} at m = {m}" if attained else "within 10⁻⁹"
            return (
                f"no population of {m} users goes {side} {_shown(exact)}, the {extreme} value found ({what}), "
                f"short of the declared end {_shown(end)}"
            )
    bound = Fraction(wanted)
    if _beyond(z3, form, m, bound, towards, strict=False, timeout=timeout) == "unsat":
        reach = f"{'beyond ±100' if math.isinf(end) else f'within {UNREACHED_MARGIN:g} of'}"
        return f"no population of {m} users reaches {reach} the declared end {_shown(end)}"
    return None
