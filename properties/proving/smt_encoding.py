"""A grammar expression as a formula over the reals, for the z3 SMT solver.

:class:`Encoder` translates an :class:`~puf.grammar.Expr` for one population
of symbols: absolute values, maxima and indicators become case splits
(``If``), every ratio a fresh variable q with ``q·den = num`` (the measure is
defined where ``den ≠ 0``), every square root a fresh r ≥ 0 with ``r² = x``,
and powers with integer or half-integer exponents products of those. A
logarithm or an exponential has no such encoding: :class:`NotEncodable` says
so, and the search's verdict stands. An encoder made with ``relax`` writes each
of them as a fresh variable held by bounds the function always meets
(1 − 1/x ≤ ln x ≤ x − 1, so x − 1 ≤ x·ln x ≤ x(x − 1); eˣ ≥ 1 + x): every
population is still a solution, so an *unsat* answer stays a proof (a bound the
measure never crosses), while a *sat* one proves nothing. z3 is the optional extra ``proofs``
(``pip install 'puf-harness[proofs]'``); :func:`z3_module` imports it.
"""

from __future__ import annotations

__all__ = ["NotEncodable", "Encoder", "z3_module", "INSTALL"]

from collections.abc import Callable, Mapping
from typing import Any
from fractions import Fraction
from types import ModuleType
from puf.grammar import Expr

INSTALL = "pip install 'puf-harness[proofs]' (z3-solver)"
"""How to get the solver the fixed-m proofs need."""


class NotEncodable(ValueError):
    """The expression uses a function the real-arithmetic encoding has no exact form for."""


def z3_module() -> ModuleType | None:
    """The ``z3`` module, or None when the ``proofs`` extra is not installed.

    Examples
    --------
    >>> z3_module() is None or hasattr(z3_module(), "Solver")
    True
    """
    try:
        import z3
    except ImportError:
        return None
    return z3


class Encoder:
    """Translate expressions over one population's symbols into z3 terms.

    Parameters
    ----------
    z3 : module
    leaves : dict
        ``("S", i)`` and ``("w", i, j)`` -> the z3 term standing for that symbol.
    prefix : str
        Names of the auxiliary variables start with it (one encoder per population).
    relax : bool, default False
        Encode ``log``, ``xlogx`` and ``exp`` by the bounds they meet (the module docstring):
        for a query whose *unsat* is the only answer read.

    Attributes
    ----------
    constraints : list
        What the auxiliary variables satisfy (``q·den = num``, ``r² = x``, ``r ≥ 0``).
    defined : list
        Where the measure is defined (every denominator non-zero).

    Examples
    --------
    >>> import pytest
    >>> z3 = z3_module() or pytest.skip("z3 not installed")
    >>> from puf.grammar import expressions as ex
    >>> s = [z3.Real("s0"), z3.Real("s1")]
    >>> enc = Encoder(z3, {("S", 0): s[0], ("S", 1): s[1]}, prefix="p")
    >>> term = enc.encode(ex.abs_(ex.effectiveness_symbol(0) - ex.effectiveness_symbol(1)))
    >>> z3.simplify(z3.substitute(term, (s[0], z3.RealVal(0)), (s[1], z3.RealVal(1))))
    1
    """

    def __init__(self, z3: Any, leaves: Mapping[tuple[Any, ...], Any], *, prefix: str, relax: bool = False) -> None:
        self.z3, self.leaves, self.prefix, self.relax = z3, leaves, prefix, relax
        self.constraints, self.defined, self.memo, self.count = [], [], {}, 0

    def _fresh(self) -> Any:
        self.count += 1
        return self.z3.Real(f"{self.prefix}_aux{self.count}")

    def encode(self, expr: Expr) -> Any:
        """The z3 term of ``expr`` (shared subexpressions encoded once)."""
        for node in expr.nodes():
            if node not in self.memo:
                self.memo[node] = self._node(node)
        return self.memo[expr]

    def _node(self, node: Expr) -> Any:
        z3, op = self.z3, node.op
        args = [self.memo[a] if hasattr(a, "op") else a for a in node.args]
        if op == "const":
            return z3.RealVal(str(args[0]))
        if op in ("S", "w"):
            return self.leaves[(op, *node.args)]
        simple: dict[str, Callable[..., Any]] = {
            "add": lambda a, b: a + b,
            "sub": lambda a, b: a - b,
            "mul": lambda a, b: a * b,
            "abs": lambda a: z3.If(a >= 0, a, -a),
            "max": lambda a, b: z3.If(a >= b, a, b),
            "ge": lambda a, b: z3.If(a >= b, z3.RealVal(1), z3.RealVal(0)),
            "gt": lambda a, b: z3.If(a > b, z3.RealVal(1), z3.RealVal(0)),
        }
        if op in simple:
            return simple[op](*args)
        if op == "div":
            return self._ratio(*args)
        if op == "sqrt":
            return self._root(args[0])
        if op == "pow":
            return self._power(args[0], args[1])
        if self.relax and op in ("log", "xlogx", "exp"):
            return self._bounded(op, args[0])
        raise NotEncodable(f"{op} has no exact encoding in real arithmetic")

    def _ratio(self, numerator: Any, denominator: Any) -> Any:
        q = self._fresh()
        self.defined.append(denominator != 0)
        self.constraints.append(self.z3.Implies(denominator != 0, q * denominator == numerator))
        return q

    def _bounded(self, op: str, x: Any) -> Any:
        """A fresh variable held by the bounds ``op`` meets at ``x`` (where it is defined)."""
        y, implies = self._fresh(), self.z3.Implies
        if op == "log":
            self.defined.append(x > 0)
            self.constraints += [implies(x > 0, y <= x - 1), implies(x > 0, y * x >= x - 1)]
        elif op == "xlogx":
            self.defined.append(x >= 0)
            self.constraints += [implies(x >= 0, y >= x - 1), implies(x >= 0, y <= x * (x - 1))]
        else:
            self.constraints += [y >= 1 + x, y > 0]
        return y

    def _root(self, x: Any) -> Any:
        r = self._fresh()
        self.defined.append(x >= 0)
        self.constraints += [r >= 0, self.z3.Implies(x >= 0, r * r == x)]
        return r

    def _power(self, x: Any, exponent: float | Fraction) -> Any:
        exponent = Fraction(exponent)
        if exponent.denominator not in (1, 2):
            raise NotEncodable(f"x^{exponent} has no exact encoding in real arithmetic")
        base = x if exponent.denominator == 1 else self._root(x)
        k = abs(exponent.numerator)
        value = self.z3.RealVal(1)
        for _ in range(k):
            value = value * base
        return value if exponent > 0 else self._ratio(self.z3.RealVal(1), value)
