"""Symbolic expressions of a measure at a fixed number of users m.

An :class:`Expr` is an immutable tree over the variables ``S[i]`` (user i's
effectiveness) and ``w[i,j]`` (the similarity of users i < j), built with the
usual operators and the few functions a measure's blocks need: ``abs_``,
``max_``, the indicators ``ge`` and ``gt``, ``sqrt``, ``log``, ``exp`` and
powers with rational exponents. It evaluates exactly what the block's numpy
function computes (:meth:`Expr.value`), prints as a formula (``str``) and is
what :mod:`puf.properties.proving.smt` translates for the solver. Equal trees are equal
and hash alike, so a shared subexpression (the mean μ) is encoded once.
"""

from __future__ import annotations

__all__ = [
    "Expr",
    "const",
    "effectiveness_symbol",
    "similarity_symbol",
    "abs_",
    "max_",
    "ge",
    "gt",
    "sqrt",
    "log",
    "xlogx",
    "exp",
    "power",
    "total",
    "mean",
]

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce
from typing import Any, TypeAlias

Operand: TypeAlias = "Expr | float | Fraction"
"""What the functions below take: an expression, or a number (lifted to a constant)."""
_PRINTED = {"add": " + ", "mul": "·", "sub": " − ", "div": " / "}


@dataclass(frozen=True)
class Expr:
    """One node: ``op`` and its ``args`` (sub-expressions, or a number / an index for leaves).

    Examples
    --------
    >>> s0, s1 = effectiveness_symbol(0), effectiveness_symbol(1)
    >>> e = abs_(s0 - s1) * similarity_symbol(0, 1)
    >>> str(e), e.value({"S": [0.25, 1.0], "w": {(0, 1): 0.5}})
    ('|(S0 − S1)|·w01', 0.375)
    """

    op: str
    args: tuple

    def __add__(self, other: Operand) -> Expr:
        return Expr("add", (self, _lift(other)))

    def __radd__(self, other: Operand) -> Expr:
        return Expr("add", (_lift(other), self))

    def __sub__(self, other: Operand) -> Expr:
        return Expr("sub", (self, _lift(other)))

    def __rsub__(self, other: Operand) -> Expr:
        return Expr("sub", (_lift(other), self))

    def __mul__(self, other: Operand) -> Expr:
        return Expr("mul", (self, _lift(other)))

    def __rmul__(self, other: Operand) -> Expr:
        return Expr("mul", (_lift(other), self))

    def __truediv__(self, other: Operand) -> Expr:
        return Expr("div", (self, _lift(other)))

    def __rtruediv__(self, other: Operand) -> Expr:
        return Expr("div", (_lift(other), self))

    def __neg__(self) -> Expr:
        return Expr("sub", (const(0), self))

    def value(self, point: Mapping[str, Any]) -> float:
        """The float value at ``point``: ``{"S": [...], "w": {(i, j): value}}``, ``i < j``."""
        return _evaluate(self, point, {})

    def nodes(self) -> list[Expr]:
        """Every distinct node of the tree, children before parents."""
        seen, order = set(), []

        def visit(node):
            if node in seen:
                return
            seen.add(node)
            for arg in node.args:
                if isinstance(arg, Expr):
                    visit(arg)
            order.append(node)

        visit(self)
        return order

    def __str__(self) -> str:
        op, args = self.op, self.args
        if op == "const":
            return f"{args[0]}"
        if op == "S":
            return f"S{args[0]}"
        if op == "w":
            return f"w{args[0]}{args[1]}"
        if op in _PRINTED:
            return "(" * (op in ("add", "sub")) + _PRINTED[op].join(map(str, args)) + ")" * (op in ("add", "sub"))
        if op == "abs":
            return f"|{args[0]}|"
        if op == "pow":
            return f"({args[0]})^{args[1]}"
        return f"{op}({', '.join(map(str, args))})"


def _lift(value: Operand) -> Expr:
    return value if isinstance(value, Expr) else const(value)


def const(value: float | Fraction) -> Expr:
    """A constant, kept exact as a :class:`fractions.Fraction` when it is rational.

    Examples
    --------
    >>> str(const(0.5)), const(2).value({})
    ('1/2', 2.0)
    """
    return Expr("const", (Fraction(value).limit_denominator(10**12),))


def effectiveness_symbol(i: int) -> Expr:
    """The variable S_i."""
    return Expr("S", (int(i),))


def similarity_symbol(i: int, j: int) -> Expr:
    """The variable sim(i, j) of the unordered pair {i, j}, i ≠ j."""
    i, j = sorted((int(i), int(j)))
    if i == j:
        raise ValueError(f"similarity_symbol needs two distinct users, got {i} and {j}")
    return Expr("w", (i, j))


def abs_(x: Operand) -> Expr:
    """|x|."""
    return Expr("abs", (_lift(x),))


def max_(*xs: Operand) -> Expr:
    """The largest of the arguments."""
    return reduce(lambda a, b: Expr("max", (a, b)), map(_lift, xs))


def ge(a: Operand, b: Operand) -> Expr:
    """The indicator 1{a ≥ b}."""
    return Expr("ge", (_lift(a), _lift(b)))


def gt(a: Operand, b: Operand) -> Expr:
    """The indicator 1{a > b}."""
    return Expr("gt", (_lift(a), _lift(b)))


def sqrt(x: Operand) -> Expr:
    """The non-negative square root."""
    return Expr("sqrt", (_lift(x),))


def log(x: Operand) -> Expr:
    """The natural logarithm."""
    return Expr("log", (_lift(x),))


def xlogx(x: Operand) -> Expr:
    """x·ln x, with 0·ln 0 = 0."""
    return Expr("xlogx", (_lift(x),))


def exp(x: Operand) -> Expr:
    """The exponential."""
    return Expr("exp", (_lift(x),))


def power(x: Operand, exponent: float | Fraction) -> Expr:
    """x to a rational power (``Fraction(exponent)``): integer, half-integer or other.

    Examples
    --------
    >>> power(const(4), 0.5).value({}), power(const(2), -1).value({})
    (2.0, 0.5)
    """
    exponent = Fraction(exponent).limit_denominator(10**6)
    if exponent == 1:
        return _lift(x)
    return Expr("pow", (_lift(x), exponent))


def total(xs: Sequence[Expr]) -> Expr:
    """The sum of a non-empty sequence of expressions."""
    return reduce(lambda a, b: a + b, xs)


def mean(xs: Sequence[Expr]) -> Expr:
    """The arithmetic mean of a non-empty sequence of expressions."""
    xs = list(xs)
    return total(xs) * const(Fraction(1, len(xs)))


def _evaluate(node, point, memo):
    if node in memo:
        return memo[node]
    op, args = node.op, node.args
    if op == "const":
        value = float(args[0])
    elif op == "S":
        value = float(point["S"][args[0]])
    elif op == "w":
        value = float(point["w"][args])
    else:
        value = _APPLY[op](*(_evaluate(a, point, memo) if isinstance(a, Expr) else a for a in args))
    memo[node] = value
    return value


def _pow(x, exponent):
    if exponent.denominator == 1 and exponent > 0:
        return x ** int(exponent)
    return x ** float(exponent) if x > 0 or exponent > 0 else math.nan


def _div(a, b):
    return a / b if b != 0 else math.nan


_APPLY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": _div,
    "abs": abs,
    "max": max,
    "ge": lambda a, b: float(a >= b),
    "gt": lambda a, b: float(a > b),
    "sqrt": lambda x: math.sqrt(x) if x >= 0 else math.nan,
    "log": lambda x: math.log(x) if x > 0 else math.nan,
    "exp": math.exp,
    "pow": _pow,
    "xlogx": lambda x: x * math.log(x) if x > 0 else (0.0 if x == 0 else math.nan),
}
