"""Grammar measures: pair forms and index forms, each an ordinary measure.

A :class:`PairForm` is ``√?( c · A_{pairs}[w(sim)·g(S_u, S_v, sim)] / N )``
(weight, gap, aggregation, normalisation, coefficient c, optional root); an
:class:`IndexForm` is ``outer( (1/m) Σ_u term(S(u)/μ) )``. Both compute the
measure on arrays (:meth:`value`), build its symbolic expression for m users
(:meth:`symbolic`) and are measures themselves: :func:`grammar_measure` turns
a form into a callable whose parameters are the Population fields it reads, so
``puf.as_measure``, ``puf.register``, ``puf check`` and the studies take it as
they take any function.
"""

from __future__ import annotations

__all__ = ["PairForm", "IndexForm", "INDEX_FORMS"]

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import inequality
from ..metadata import NONNEGATIVE, Measure
from ..validation import undefined
from . import expressions as ex
from .building_blocks import AGGREGATIONS, GAPS, NORMALISATIONS, OUTERS, TERMS, WEIGHTS, Block, lookup_block


def _number(value, *, name, low=-math.inf):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < low:
        raise ValueError(f"{name} must be a finite number >= {low:g}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class PairForm:
    """A pair measure of the grammar (see the module docstring).

    Parameters
    ----------
    weight : {"1", "sim", "sim^2", "sim>=t"}, default "1"
    gap : {"abs", "square", "excess", "violation"}, default "abs"
    aggregation : {"pairs", "all-pairs", "max", "user-max"}, default "pairs"
    normalisation : {"none", "mean", "weights"}, default "none"
    coefficient : float > 0, default 1.0
    root : bool, default False
        Take the square root of the whole (SD from the variance).
    threshold : float in [0, 1], default 0.5
        t of the weight ``sim>=t``.
    lipschitz : float >= 0, default 1.0
        L of the gaps ``excess`` and ``violation``.

    Examples
    --------
    >>> form = PairForm(weight="sim", gap="abs")      # PUF
    >>> form.value(np.array([1.0, 0.0, 1.0]), np.array([[1, .5, 0], [.5, 1, 1], [0, 1, 1]]))
    0.5
    >>> str(PairForm(gap="square", aggregation="all-pairs", coefficient=0.5).symbolic(2))
    '1·(S0 − S1)·(S0 − S1)·1/2·1/2'
    """

    weight: str = "1"
    gap: str = "abs"
    aggregation: str = "pairs"
    normalisation: str = "none"
    coefficient: float = 1.0
    root: bool = False
    threshold: float = 0.5
    lipschitz: float = 1.0

    def __post_init__(self) -> None:
        lookup_block(WEIGHTS, self.weight, what="weight")
        lookup_block(GAPS, self.gap, what="gap")
        lookup_block(AGGREGATIONS, self.aggregation, what="aggregation")
        lookup_block(NORMALISATIONS, self.normalisation, what="normalisation")
        object.__setattr__(self, "coefficient", _number(self.coefficient, name="coefficient", low=1e-300))
        object.__setattr__(self, "threshold", _number(self.threshold, name="threshold", low=0.0))
        object.__setattr__(self, "lipschitz", _number(self.lipschitz, name="lipschitz", low=0.0))
        if not isinstance(self.root, bool):
            raise ValueError(f"root must be True or False, got {self.root!r}")
        if self.normalisation == "mean" and self.degree_of_gap is None:
            raise ValueError(f"normalisation 'mean' needs a homogeneous gap; gap {self.gap!r} is not")
        if self.normalisation == "weights" and not AGGREGATIONS[self.aggregation].facts["linear"]:
            raise ValueError(f"normalisation 'weights' needs a mean aggregation, got {self.aggregation!r}")

    @property
    def reads(self) -> tuple[str, ...]:
        """The Population fields the form reads."""
        sim = WEIGHTS[self.weight].facts["reads_similarity"] or GAPS[self.gap].facts["reads_similarity"]
        return ("effectiveness", "similarity") if sim else ("effectiveness",)

    @property
    def degree_of_gap(self) -> float:
        return GAPS[self.gap].facts["degree"]

    @property
    def degree(self) -> float | None:
        """The homogeneity degree in S of the whole form (None when it has none)."""
        d = self.degree_of_gap
        if d is None:
            return None
        d = 0 if self.normalisation == "mean" else d
        return d / 2 if self.root else d

    def _parameters(self):
        return self.threshold, self.lipschitz

    def value(self, effectiveness: NDArray[np.float64], similarity: NDArray[np.float64] | None = None) -> float:
        """The measure on checked arrays (S of shape (m,), similarity (m, m) or None)."""
        s = effectiveness
        sim = np.ones((s.shape[0], s.shape[0])) if similarity is None else similarity
        t, lipschitz = self._parameters()
        weights = WEIGHTS[self.weight].numeric(sim, t)
        gaps = GAPS[self.gap].numeric(s[:, None], s[None, :], sim, lipschitz)
        aggregate = AGGREGATIONS[self.aggregation].numeric
        total = aggregate(weights * gaps)
        if self.normalisation == "mean":
            mu = float(s.mean())
            if mu == 0.0:
                return undefined(f"{self.name()} is undefined when every effectiveness value is 0")
            total /= mu**self.degree_of_gap
        elif self.normalisation == "weights":
            norm = aggregate(weights)
            if norm == 0.0:
                return undefined(f"{self.name()} is undefined when every pair weight is 0")
            total /= norm
        total *= self.coefficient
        return float(math.sqrt(total) if self.root else total)

    def symbolic(self, m: int) -> ex.Expr:
        """The form's expression for ``m`` users, over the symbols S_i and w_ij."""
        s = [ex.effectiveness_symbol(i) for i in range(m)]
        t, lipschitz = self._parameters()
        weight, gap = WEIGHTS[self.weight], GAPS[self.gap]
        sim = [[ex.similarity_symbol(u, v) if u != v else ex.const(1) for v in range(m)] for u in range(m)]
        terms = [
            [
                weight.symbolic(sim[u][v], t) * gap.symbolic(s[u], s[v], sim[u][v], lipschitz)
                if u != v
                else ex.const(0)
                for v in range(m)
            ]
            for u in range(m)
        ]
        aggregate = AGGREGATIONS[self.aggregation].symbolic
        total = aggregate(terms, m)
        if self.normalisation == "mean":
            total = total / ex.power(ex.mean(s), self.degree_of_gap)
        elif self.normalisation == "weights":
            total = total / aggregate(
                [[weight.symbolic(sim[u][v], t) if u != v else ex.const(0) for v in range(m)] for u in range(m)], m
            )
        total = total * ex.const(self.coefficient)
        return ex.sqrt(total) if self.root else total

    def bounds(self) -> tuple[float, float]:
        """(low, high) the value is proven to lie in on every population."""
        if self.normalisation == "mean":
            return NONNEGATIVE
        # Weights and gaps lie in [0, 1]; a mean (or a weighted mean, or a max) of their products does.
        high = GAPS[self.gap].facts["bounds"][1] * self.coefficient
        if self.normalisation == "none":
            high *= WEIGHTS[self.weight].facts["bounds"][1]
        return (0.0, math.sqrt(high) if self.root else high)

    def name(self) -> str:
        """A name that says the form: ``sim·abs/pairs``, with the options that differ."""
        parts = [f"{self.weight}·{self.gap}/{self.aggregation}"]
        if self.weight == "sim>=t":
            parts[0] = parts[0].replace("sim>=t", f"sim>={self.threshold:g}")
        if self.gap in ("excess", "violation"):
            parts.append(f"L={self.lipschitz:g}")
        if self.normalisation != "none":
            parts.append(f"per-{self.normalisation}")
        if self.coefficient != 1.0:
            parts.append(f"×{self.coefficient:g}")
        if self.root:
            parts.append("root")
        return ",".join(parts)

    def formula(self) -> str:
        """The form as a formula in words."""
        text = f"{AGGREGATIONS[self.aggregation].formula} {WEIGHTS[self.weight].formula}·{GAPS[self.gap].formula}"
        if self.normalisation != "none":
            text = f"[{text}], {NORMALISATIONS[self.normalisation]}"
        if self.coefficient != 1.0:
            text = f"{self.coefficient:g}·{text}"
        return f"√({text})" if self.root else text


# name -> (term, outer, the field's index it is the form of)
INDEX_FORMS: dict[str, tuple[str, str, Callable[..., float]]] = {
    "ge": ("entropy", "identity", inequality.generalized_entropy),
    "atkinson": ("power", "atkinson", inequality.atkinson),
    "cv": ("squared-deviation", "sqrt", inequality.coefficient_of_variation),
    "jain": ("squared-deviation", "share", inequality.jain_unfairness),
    "hoover": ("absolute-deviation", "half", inequality.hoover),
}
"""The inequality forms of the field's indices: ``outer((1/m) Σ_u term(S(u)/μ))``.

A form's declared range and reference are its index's ``@measure`` metadata, and its default
parameter the index's one option's default (:meth:`IndexForm.index`).
"""


def _default_parameter(function: Callable[..., Any]) -> float | None:
    """The default of the index's one keyword-only option (ge's α, Atkinson's ε), or None."""
    options = [p.default for p in inspect.signature(function).parameters.values() if p.kind is p.KEYWORD_ONLY]
    return options[0] if options else None


@dataclass(frozen=True)
class IndexForm:
    """An inequality form ``outer((1/m) Σ_u term(S(u)/μ))`` (:data:`INDEX_FORMS`).

    Examples
    --------
    >>> round(IndexForm("ge", 2.0).value(np.array([0.25, 0.5, 0.75, 1.0])), 12)
    0.1
    >>> str(IndexForm("hoover").symbolic(2)).count("S0")
    3
    >>> IndexForm("atkinson").parameter, IndexForm("atkinson").bounds(), IndexForm("atkinson").index.reference
    (0.5, (0.0, 1.0), 'Atkinson 1970')
    """

    form: str
    parameter: float | None = None

    def __post_init__(self) -> None:
        default = _default_parameter(lookup_block(INDEX_FORMS, self.form, what="index form")[2])
        if default is None:
            if self.parameter is not None:
                raise ValueError(f"index form {self.form!r} takes no parameter, got {self.parameter!r}")
        else:
            value = default if self.parameter is None else self.parameter
            low = 0.0 if self.form == "atkinson" else -math.inf
            object.__setattr__(self, "parameter", _number(value, name="parameter", low=low))

    reads = ("effectiveness",)
    degree = 0

    @property
    def index(self) -> Measure:
        """The ``@measure`` metadata of the field's index this is the form of (its range, reference)."""
        return INDEX_FORMS[self.form][2].__puf_measure__  # type: ignore[attr-defined]

    @property
    def term(self) -> Block:
        return TERMS[INDEX_FORMS[self.form][0]]

    @property
    def outer(self) -> Block:
        return OUTERS[INDEX_FORMS[self.form][1]]

    def needs_positive(self) -> bool:
        """Whether a zero S(u) makes the form undefined (a log or a negative power of 0)."""
        p = self.parameter
        if p is None:  # cv: no parameter, no log or power
            return False
        return (self.form == "ge" and p <= 0.0) or (self.form == "atkinson" and p >= 1.0)

    def value(self, effectiveness: NDArray[np.float64], similarity: NDArray[np.float64] | None = None) -> float:
        s = effectiveness
        mu = float(s.mean())
        if mu == 0.0:
            return undefined(f"{self.name()} is undefined when every effectiveness value is 0 (mean 0)")
        if self.needs_positive() and not s.all():
            return undefined(f"{self.name()} is undefined when some effectiveness value is 0")
        x = s / mu
        inner = float(np.mean(self.term.numeric(x, self.parameter)))
        value = float(self.outer.numeric(inner, self.parameter))
        return max(value, 0.0)  # >= 0 by Jensen's inequality; rounding alone dips below at equality

    def symbolic(self, m: int) -> ex.Expr:
        s = [ex.effectiveness_symbol(i) for i in range(m)]
        mu = ex.mean(s)
        inner = ex.mean([self.term.symbolic(si / mu, self.parameter) for si in s])
        return self.outer.symbolic(inner, self.parameter)

    def bounds(self) -> tuple[float, float]:
        return self.index.range

    def name(self) -> str:
        return self.form if self.parameter is None else f"{self.form}({self.parameter:g})"

    def formula(self) -> str:
        text = f"{self.outer.formula} with t = (1/m) Σ_u {self.term.formula}"
        if self.parameter is not None:
            text += f", {self.term.parameter or self.outer.parameter} = {self.parameter:g}"
        return text
