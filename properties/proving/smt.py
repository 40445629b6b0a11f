"""Fixed-m proofs: a grammar measure and a negated property, decided by the z3 SMT solver.

For m = 2, ..., ``max_users`` the property's transformation is written over
real symbols (S in [0, 1]^m, similarities in [0, 1], the transformation's
amount), the measure before and after it encoded by
:mod:`properties.proving.smt_encoding`, and the solver asked for a population where the
property fails. *unsat* proves the property for that m; *sat* gives a
counterexample, which counts only once the ordinary judge confirms it on the
population in floating point (a violation below the judge's tolerance is asked
for again with a margin of 1e-6); *unknown* or a time-out leaves the search's
verdict standing, and says so. Every grammar form is anonymous (a rule proves
it), so the transfer and the similarity raise are placed on users 0 and 1.
"""

from __future__ import annotations

__all__ = ["SMT_PROPERTIES", "SmtResult", "smt_decide"]

from collections.abc import Callable, Mapping, Sequence
from typing import Any
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from puf.metadata import Measure

from .smt_encoding import INSTALL, Encoder, NotEncodable, z3_module
from ..cases.case import Case
from ..catalog.property import Property


_MARGIN = 1e-6

# A transformation of the symbols: (S, similarities, parameters) -> (S', similarities').
_Transform = Callable[
    [list[Any], dict[tuple[int, int], Any], dict[str, Any]], tuple[list[Any], dict[tuple[int, int], Any]]
]


@dataclass(frozen=True)
class SmtResult:
    """What the solver decided for one cell: ``status`` in {"proven", "violated", "unknown"}.

    ``scope`` says for which m ("for m ≤ 4, by SMT"), ``note`` what stopped it
    (a time-out, a function without encoding, the extra missing), ``example`` the
    confirmed counterexample (the runner's snapshot) of a violation.
    """

    status: str
    scope: str = ""
    note: str = ""
    example: dict | None = None
    seconds: float = 0.0


def _ne(z3: Any, a: Any, b: Any, margin: float) -> Any:
    return z3.Or(a - b > margin, b - a > margin) if margin else a != b


def _swap(
    s: list[Any], w: dict[tuple[int, int], Any], p: dict[str, Any]
) -> tuple[list[Any], dict[tuple[int, int], Any]]:
    return [s[1], s[0], *s[2:]], _permuted(w, [1, 0, *range(2, len(s))])


def _cycle(
    s: list[Any], w: dict[tuple[int, int], Any], p: dict[str, Any]
) -> tuple[list[Any], dict[tuple[int, int], Any]]:
    order = [*range(1, len(s)), 0]
    return [s[i] for i in order], _permuted(w, order)


def _permuted(w: dict[tuple[int, int], Any], order: Sequence[int]) -> dict[tuple[int, int], Any]:
    return {(i, j): w[min(order[i], order[j]), max(order[i], order[j])] for (i, j) in w}


def _transfer(
    s: list[Any], w: dict[tuple[int, int], Any], p: dict[str, Any]
) -> tuple[list[Any], dict[tuple[int, int], Any]]:
    moved = p["tau"] * (s[1] - s[0])
    return [s[0] + moved, s[1] - moved, *s[2:]], w


def _widen(
    s: list[Any], w: dict[tuple[int, int], Any], p: dict[str, Any]
) -> tuple[list[Any], dict[tuple[int, int], Any]]:
    return [p["c"] + p["lam"] * (x - p["c"]) for x in s], w


def _raise(
    s: list[Any], w: dict[tuple[int, int], Any], p: dict[str, Any]
) -> tuple[list[Any], dict[tuple[int, int], Any]]:
    return s, {**w, (0, 1): p["raised"]}


def _scale(
    s: list[Any], w: dict[tuple[int, int], Any], p: dict[str, Any]
) -> tuple[list[Any], dict[tuple[int, int], Any]]:
    return [p["a"] * x for x in s], w


def _shift(
    s: list[Any], w: dict[tuple[int, int], Any], p: dict[str, Any]
) -> tuple[list[Any], dict[tuple[int, int], Any]]:
    return [x + p["b"] for x in s], w


# name -> (parameters, their domain, the transformation (None: one population), the negation); the domain is the
# formal statement's preconditions exactly (c inside [min S, max S] of the narrow S is inside that of the widened)
_SPECS = {
    "range": ((), None, None, "outside"),
    "zero-at-equality": ((), None, None, "not-fairest-equal"),
    "similarity-zero": ((), None, None, "not-fairest-no-similarity"),
    "anonymity": ((), None, (_swap, _cycle), "changed"),
    "pigou-dalton": (("tau",), lambda z3, p, s, w: [p["tau"] > 0, 2 * p["tau"] <= 1], (_transfer,), "less-fair"),
    "disparity-monotone": (
        ("c", "lam"),
        lambda z3, p, s, w: [p["lam"] > 1, z3.Or(*[p["c"] >= x for x in s]), z3.Or(*[p["c"] <= x for x in s])],
        (_widen,),
        "fairer",
    ),
    "similarity-monotone": (
        ("raised",),
        lambda z3, p, s, w: [s[0] != s[1], p["raised"] > w[(0, 1)], p["raised"] <= 1],
        (_raise,),
        "fairer",
    ),
    "scale-invariance": (
        ("a",),
        lambda z3, p, s, w: [p["a"] >= z3.Q(1, 1000), p["a"] <= z3.Q(999, 1000)],
        (_scale,),
        "changed",
    ),
    "translation-invariance": (("b",), lambda z3, p, s, w: [], (_shift,), "changed"),
}
SMT_PROPERTIES = tuple(_SPECS)
"""The properties the fixed-m encoding covers."""


def _negation(z3: Any, kind: str, measure: Measure, before: Any, after: Any, margin: float) -> Any:
    low, high = measure.range
    if kind == "outside":
        sides = [before < low - margin] * math.isfinite(low) + [before > high + margin] * math.isfinite(high)
        return z3.Or(*sides) if sides else z3.BoolVal(False)
    if kind.startswith("not-fairest"):
        return _ne(z3, before, z3.RealVal(measure.fairest), margin)
    if kind == "changed":
        return _ne(z3, after, before, margin)
    if kind == "less-fair":
        return after - before > margin
    return before - after > margin  # "fairer": the after value is lower (fairer)


def _query(
    z3: Any, form: Any, measure: Measure, prop: str, m: int, transform: _Transform | None, margin: float, timeout: float
) -> tuple[str, dict[str, float] | None]:
    """One solver call; returns (result, model values or None)."""
    params, domain, _, kind = _SPECS[prop]
    s = [z3.Real(f"S{i}") for i in range(m)]
    w = {(i, j): z3.Real(f"w{i}{j}") for i in range(m) for j in range(i + 1, m)}
    p = {name: z3.Real(name) for name in params}
    solver = z3.Solver()
    solver.set("timeout", int(timeout * 1000))
    solver.add(*[z3.And(x >= 0, x <= 1) for x in [*s, *w.values()]])
    if domain is not None:
        solver.add(*domain(z3, p, s, w))
    if kind == "not-fairest-equal":
        solver.add(*[x == s[0] for x in s[1:]])
    if kind == "not-fairest-no-similarity":
        solver.add(*[x == 0 for x in w.values()])
    expr = form.symbolic(m)
    before_enc = Encoder(z3, _leaves(s, w), prefix="b")
    before = before_enc.encode(expr)
    solver.add(*before_enc.constraints, *before_enc.defined)
    after = None
    if transform is not None:
        s2, w2 = transform(s, w, p)
        solver.add(*[z3.And(x >= 0, x <= 1) for x in [*s2, *w2.values()]])
        after_enc = Encoder(z3, _leaves(s2, w2), prefix="a")
        after = after_enc.encode(expr)
        solver.add(*after_enc.constraints, *after_enc.defined)
    solver.add(_negation(z3, kind, measure, before, after, margin))
    answer = solver.check()
    if answer != z3.sat:
        return str(answer), None
    model = solver.model()
    value = {
        name: _float(z3, model, term)
        for name, term in [*((f"S{i}", x) for i, x in enumerate(s)), *((str(k), x) for k, x in w.items()), *p.items()]
    }
    return "sat", value


def _leaves(s: Sequence[Any], w: Mapping[tuple[int, int], Any]) -> dict[tuple[Any, ...], Any]:
    return {**{("S", i): x for i, x in enumerate(s)}, **{("w", *k): x for k, x in w.items()}}


def _float(z3: Any, model: Any, term: Any) -> float:
    v = model.eval(term, model_completion=True)
    if z3.is_algebraic_value(v):
        v = v.approx(20)
    return float(Fraction(v.as_fraction()))


def _case(prop: str, transform: _Transform | None, m: int, value: Mapping[str, float]) -> Case:
    """The solver's population (and its transformation) as the runner's case, in floats."""
    from puf import Population

    from ..cases.case import Case

    s = [value[f"S{i}"] for i in range(m)]
    w = {(i, j): value[str((i, j))] for i in range(m) for j in range(i + 1, m)}
    p = {k: v for k, v in value.items() if not k.startswith(("S", "("))}

    def population(s: Sequence[float], w: Mapping[tuple[int, int], float]) -> Population:
        sim = np.eye(m)
        for (i, j), x in w.items():
            sim[i, j] = sim[j, i] = x
        return Population(np.clip(np.asarray(s, dtype=float), 0.0, 1.0), np.clip(sim, 0.0, 1.0))

    change = f"found by the SMT solver at m = {m}" + "".join(f", {k} = {v:.6g}" for k, v in p.items())
    if transform is None:
        return Case(population(s, w), change=change)
    return Case(population(s, w), population(*transform(s, w, p)), change=change)


def smt_decide(
    measure: Measure,
    form: Any,
    prop: Property,
    *,
    confirm: Callable[[Case], dict[str, Any] | None],
    max_users: int = 4,
    timeout: float = 5.0,
) -> SmtResult | None:
    """Decide one cell for m = 2..``max_users`` with z3 (see the module docstring).

    ``confirm`` judges a counterexample the solver found, as a case: the judge's snapshot of it
    when the judge confirms the violation, else None (:func:`properties.proving.proofs.prove`
    hands in the judge it is given, so the solver and the proofs stand below the search).

    Returns
    -------
    SmtResult or None
        None when the property has no fixed-m encoding.
    """
    name = prop.name
    if name not in _SPECS or measure.direction != "lower":
        return None
    z3 = z3_module()
    if z3 is None:
        return SmtResult("unknown", note=f"the SMT solver is not installed: {INSTALL}")
    start, proven_up_to = time.perf_counter(), 1
    transforms = _SPECS[name][2] or (None,)
    try:
        for m in range(2, max_users + 1):
            for transform in transforms:
                for margin in (0.0, _MARGIN):
                    answer, value = _query(z3, form, measure, name, m, transform, margin, timeout)
                    if answer != "sat" or value is None:
                        break
                    example = confirm(_case(name, transform, m, value))
                    if example is not None:
                        return SmtResult("violated", f"at m = {m}, by SMT", "", example, time.perf_counter() - start)
                if answer == "unknown":
                    return _partial(proven_up_to, f"m = {m}: unknown after {timeout:g} s", start)
                if margin:  # a violation at margin 0 that the judge did not confirm: not a proof
                    note = (
                        "violations the judge does not confirm"
                        if answer == "sat"
                        else f"only violations below {_MARGIN:g}"
                    )
                    return _partial(proven_up_to, f"m = {m}: {note}", start)
            proven_up_to = m
    except NotEncodable as exc:
        return SmtResult("unknown", note=f"not encodable: {exc}", seconds=time.perf_counter() - start)
    return SmtResult("proven", f"for m ≤ {max_users}, by SMT", seconds=time.perf_counter() - start)


def _partial(proven_up_to: int, note: str, start: float) -> SmtResult:
    seconds = time.perf_counter() - start
    if proven_up_to < 2:
        return SmtResult("unknown", note=note, seconds=seconds)
    return SmtResult("proven", f"for m ≤ {proven_up_to}, by SMT", note, seconds=seconds)
