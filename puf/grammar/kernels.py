"""A pair form's pair kernel: how the scale engines stream a grammar measure over user pairs.

A :class:`~puf.grammar.PairForm` whose aggregation is a mean over pairs
(``pairs``, ``all-pairs``) is ``c · mean_{u<v}[w·g]`` up to a last step: the
factor (m − 1)/m of ``all-pairs`` (its m zero terms u = v), the division by μ^d
(``mean``) and the root; with the ``weights`` normalisation it is
``c · Σ w·g / Σ w``. :func:`form_kernel` says so as a :class:`puf.PairKernel`
(weights and finish included), which the tiled engines and ``puf evaluate`` at
any size read as they read a built-in's. ``max`` and ``user-max`` are not sums
over pairs: they have none.
"""

from __future__ import annotations

__all__ = ["form_kernel"]

import math
from typing import Any

import numpy as np

from ..pair_kernels import PairKernel
from ..validation import undefined
from .building_blocks import GAPS, WEIGHTS


class _Terms:
    """w(sim)·g(S_u, S_v, sim) of a form, for arrays of pairs."""

    def __init__(self, form):
        self.form = form

    def __eq__(self, other):
        return type(other) is type(self) and other.form == self.form

    def __hash__(self):
        return hash((type(self).__name__, self.form))

    def _terms(self, effectiveness, similarity):
        s_u, s_v = effectiveness
        sim = 1.0 if similarity is None else np.asarray(similarity, dtype=np.float64)
        form = self.form
        weights = WEIGHTS[form.weight].numeric(np.asarray(sim, dtype=np.float64), form.threshold)
        return weights * GAPS[form.gap].numeric(s_u, s_v, sim, form.lipschitz)


class _EffectivenessTerms(_Terms):
    def __call__(self, effectiveness):
        return self._terms(effectiveness, None)


class _PairTerms(_Terms):
    def __call__(self, effectiveness, similarity):
        return self._terms(effectiveness, similarity)


class _Weights(_Terms):
    def __call__(self, similarity):
        return WEIGHTS[self.form.weight].numeric(np.asarray(similarity, dtype=np.float64), self.form.threshold)


class _Finish:
    """The last step of a form after the (weighted) mean over pairs: (m − 1)/m, / μ^d, the root."""

    def __init__(self, form):
        self.form = form

    def __eq__(self, other):
        return type(other) is type(self) and other.form == self.form

    def __hash__(self):
        return hash((type(self).__name__, self.form))

    def __call__(self, value, *, m, effectiveness=None):
        form = self.form
        if form.aggregation == "all-pairs" and form.normalisation != "weights":
            value *= (m - 1) / m
        if form.normalisation == "mean":
            mu = float(np.mean(effectiveness))
            if mu == 0.0:
                return undefined(f"{form.name()} is undefined when every effectiveness value is 0")
            value /= mu**form.degree_of_gap
        return float(math.sqrt(value) if form.root else value)


def form_kernel(form: Any) -> PairKernel | None:
    """The :class:`puf.PairKernel` of a pair form, or None (max, user-max, an index form).

    Examples
    --------
    >>> from puf.grammar import PairForm
    >>> kernel = form_kernel(PairForm(weight="sim", gap="abs", normalisation="weights"))
    >>> kernel.reads, kernel.samplable
    (('effectiveness', 'similarity'), False)
    >>> kernel.value(total=0.5, n_pairs=3, weight_total=2.0)  # Σ w·|ΔS| / Σ w
    0.25
    >>> form_kernel(PairForm(aggregation="max")) is None
    True
    """
    if getattr(form, "aggregation", None) not in ("pairs", "all-pairs"):
        return None
    terms = (_PairTerms if "similarity" in form.reads else _EffectivenessTerms)(form)
    weighted = form.normalisation == "weights" and form.weight != "1"  # weight 1: a plain mean
    plain = not form.root and form.normalisation != "mean" and (form.aggregation == "pairs" or weighted)
    return PairKernel(
        terms,
        scale=form.coefficient,
        weights=_Weights(form) if weighted else None,
        finish=None if plain else _Finish(form),
    )
