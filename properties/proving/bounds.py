"""Proofs that a declared end is out of reach at some m: the negation of ``attainable-range``.

``attainable-range`` asks, at every m, for a population that reaches each end of the declared
range. A search that finds none proves nothing (``not-found``); the negation needs one m at
which no population reaches an end. For a grammar measure, :func:`unreached_end` asks the z3
solver for a population of that m (S in [0, 1]^m, similarities in [0, 1], wherever the measure
is defined) whose value goes beyond a bound; *unsat* proves that none does. Two built-ins
without a grammar form are written by hand where their value has a closed form: UF at any m
(relaxed: any set of pairs, list distances in [0, 2]) and the inconsistency at m = 6 (every
other user a neighbour). It first asks about
the most extreme value the search found, read as a simple fraction, so that a proof names the
exact extreme at that m; failing that, about the end itself less :data:`UNREACHED_MARGIN` (an
infinite end: ±100, what the property asks of it). A logarithm or an exponential is held by
the bounds it meets (:class:`~properties.proving.smt_encoding.Encoder`'s ``relax``), which keeps
*unsat* a proof.
"""

from __future__ import annotations

__all__ = ["UNREACHED_MARGIN", "unreached_end"]

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from puf.grammar import builtin_form
from puf.metadata import Measure

from ..catalog.judges import UNBOUNDED, example_users
from .smt_encoding import Encoder, NotEncodable, z3_module

UNREACHED_MARGIN = 1e-6
"""How far short of a finite end the solver is asked to show every value: far above the
property's tolerance (10⁻⁹ of the values, or their float resolution)."""

_BOUNDED_OPS = ("log", "xlogx", "exp")


#: ``value(z3, m) -> (term, constraints)``: a measure's value at m users as a z3 term over the
#: population's symbols, with what they satisfy (where the measure is defined). Every
#: population of m users must be a solution, so that *unsat* is a proof.
Encoding = Callable[[Any, int], tuple[Any, list[Any]]]


def _grammar_value(form: Any) -> Encoding:
    """A grammar form's value: its symbolic expression at m, a logarithm held by its bounds."""

    def value(z3: Any, m: int) -> tuple[Any, list[Any]]:
        s = [z3.Real(f"S{i}") for i in range(m)]
        w = {(i, j): z3.Real(f"w{i}{j}") for i in range(m) for j in range(i + 1, m)}
        leaves: dict[tuple[Any, ...], Any] = {("S", i): x for i, x in enumerate(s)}
        leaves.update({("w", *k): x for k, x in w.items()})
        encoder = Encoder(z3, leaves, prefix="v", relax=True)
        term = encoder.encode(form.symbolic(m))
        return term, [*_unit(z3, [*s, *w.values()]), *encoder.constraints, *encoder.defined]

    return value


def _unit(z3: Any, symbols: list[Any]) -> list[Any]:
    return [z3.And(x >= 0, x <= 1) for x in symbols]


def _uf_value(z3: Any, m: int) -> tuple[Any, list[Any]]:
    """UF at m users, relaxed: ln Σ t_uv·d_uv over the pairs, t_uv ∈ [0, 1] standing for
    sim_UF(u, v) on the pairs of U* and 0 elsewhere (any set of pairs: the threshold is not
    encoded), d_uv ∈ [0, 2] the list distance (1 − cos ∈ [0, 2] averaged, ``puf.lists``); the
    logarithm held by 1 − 1/x ≤ ln x ≤ x − 1 and defined where the sum is positive."""
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    t = [z3.Real(f"t{i}_{j}") for i, j in pairs]
    d = [z3.Real(f"d{i}_{j}") for i, j in pairs]
    total, log = z3.Real("total"), z3.Real("ln_total")
    return log, [
        *_unit(z3, t),
        *[z3.And(x >= 0, x <= 2) for x in d],
        total == z3.Sum([a * b for a, b in zip(t, d)]),
        total > 0,
        log <= total - 1,
        log * total >= total - 1,
    ]


def _inconsistency_value(z3: Any, m: int) -> tuple[Any, list[Any]]:
    """The inconsistency (n = 5 neighbours) at m = 6 users, where every user's neighbours are
    the other five whatever the similarity: (1/6) Σ_u |S_u − (1/5) Σ_{v≠u} S_v|, exact."""
    if m != 6:
        raise NotEncodable(f"the inconsistency has a closed form at m = 6 only, not m = {m}")
    s = [z3.Real(f"S{i}") for i in range(m)]
    gaps = [s[u] - z3.Sum([s[v] for v in range(m) if v != u]) / 5 for u in range(m)]
    return z3.Sum([z3.If(g >= 0, g, -g) for g in gaps]) / m, _unit(z3, s)


_LOG_HELD = "each logarithm held by the bounds 1 − 1/x ≤ ln x ≤ x − 1"

#: Built-ins without a grammar form, encoded where their value has a closed form (by name;
#: only the registered function itself, as :func:`puf.grammar.builtin_form` decides), with
#: the premises a proof rests on.
_CLOSED_FORMS: dict[str, tuple[Encoding, str]] = {
    "uf": (_uf_value, f"any set of pairs, list distances in [0, 2] as item vectors give them; {_LOG_HELD}"),
    "inconsistency": (_inconsistency_value, "at m = 6 every other user is a neighbour"),
}


def _encoding(measure: Measure, m: int) -> tuple[Encoding, str] | None:
    """How the solver writes ``measure``'s value at m users, and the premises a proof then
    rests on ("" for none); None for a measure it cannot write."""
    from puf.registry import builtin_measures

    form = builtin_form(measure)
    if form is not None:
        relaxed = any(node.op in _BOUNDED_OPS for node in form.symbolic(m).nodes())
        return _grammar_value(form), _LOG_HELD if relaxed else ""
    builtin = {m.name: m for m in builtin_measures()}.get(measure.name)
    if measure.name in _CLOSED_FORMS and builtin is not None and builtin.function is measure.function:
        return _CLOSED_FORMS[measure.name]
    return None


def _beyond(z3: Any, value: Encoding, m: int, bound: Fraction, towards: int, *, strict: bool, timeout: float) -> str:
    """The solver's answer to: is there a population of m users whose value is beyond ``bound``
    on the side ``towards`` (+1: above, −1: below), strictly or not?"""
    solver = z3.Solver()
    solver.set("timeout", int(timeout * 1000))
    term, constraints = value(z3, m)
    solver.add(*constraints)
    target = z3.RealVal(str(bound))
    side = term - target if towards > 0 else target - term
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
    z3, values = z3_module(), _values(example)
    m = example_users(example)
    try:
        encoding = _encoding(measure, m) if z3 is not None and values else None
        if encoding is None:
            return None
        value, premises = encoding
        for end, towards in zip(measure.range, (-1, 1)):
            argument = _unreached(z3, value, m, end, towards, values, timeout)
            if argument is not None:
                return f"at m = {m}, by SMT", argument + (f" ({premises})" if premises else "")
    except NotEncodable:
        return None
    return None


def _unreached(
    z3: Any, value: Encoding, m: int, end: float, towards: int, values: list[float], timeout: float
) -> str | None:
    """The argument that no population of m users reaches ``end`` (on the side ``towards``), or None."""
    best = towards * max(towards * v for v in values)
    wanted = towards * UNBOUNDED if math.isinf(end) else end - towards * UNREACHED_MARGIN
    if towards * best >= towards * wanted:
        return None  # this end is reached
    side, extreme = ("above", "largest") if towards > 0 else ("below", "smallest")
    exact = Fraction(best).limit_denominator(1000)
    if abs(float(exact) - best) <= 1e-9 * max(1.0, abs(best)) and towards * exact < towards * wanted:
        if _beyond(z3, value, m, exact, towards, strict=True, timeout=timeout) == "unsat":
            # Attained exactly (the solver finds a population at it): the extreme itself.
            attained = _beyond(z3, value, m, exact, towards, strict=False, timeout=timeout) == "sat"
            what = f"so the {'maximum' if towards > 0 else 'minimum'} at m = {m}" if attained else "within 10⁻⁹"
            return (
                f"no population of {m} users goes {side} {_shown(exact)}, the {extreme} value found ({what}), "
                f"short of the declared end {_shown(end)}"
            )
    bound = Fraction(wanted)
    if _beyond(z3, value, m, bound, towards, strict=False, timeout=timeout) == "unsat":
        reach = f"{'beyond ±100' if math.isinf(end) else f'within {UNREACHED_MARGIN:g} of'}"
        return f"no population of {m} users reaches {reach} the declared end {_shown(end)}"
    return None
