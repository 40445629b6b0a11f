"""Cases that transform the derived fields directly: rescaling, shifting, perturbing.

No discrete world change is a rescaling of every user's effectiveness or a
perturbation of size δ, so at world level too these act on the Population
fields (effectiveness and utility for rescaling and shifting; every field the
measure reads for lipschitz-continuity). Strategies of :class:`~puf.properties.cases.case.Case`
for the catalog's ``scale-invariance``, ``translation-invariance`` and
``lipschitz-continuity`` entries.
"""

from __future__ import annotations

__all__ = ["scale_cases", "translation_cases", "lipschitz_cases"]

from typing import Any
import functools

import numpy as np
from hypothesis import strategies as st
from numpy.typing import NDArray

from puf.metadata import Measure
from puf.population import Population

from puf import as_measure

from .case import FRACTIONS, FRACTIONS_OR_ONE, Case, case_strategy, distance, draw_users, trivial_case
from .preconditions import TOLERANCE, precondition, require, same_fields
from .draws import draw_bytes
from .strategies import sources

_DELTA = st.one_of(st.sampled_from([1e-3, 1e-2, 1e-1]), st.floats(1e-6, 1e-1))


_NOISE_SEED = st.integers(0, 2**32 - 1)


@functools.lru_cache(maxsize=None)
def _noise(shape: int | tuple[int, ...]) -> st.SearchStrategy[NDArray[np.float64]]:
    # Uniform noise in [-1, 1] from one drawn seed: Hypothesis' own arrays fill most entries
    # with one value and its byte strings are mostly zeros, so a perturbation moved almost
    # nothing (or everything to a bound) and a segment crossed almost no threshold.
    return _NOISE_SEED.map(lambda seed: np.random.default_rng(seed).uniform(-1.0, 1.0, shape))


def _outcome_fields(pop: Population) -> dict[str, NDArray[np.float64]]:
    """The per-user outcome fields a rescaling acts on: effectiveness and utility."""
    return {name: value for name, value in pop.fields().items() if name in ("effectiveness", "utility")}


def _outcome_pairs(case: Any) -> dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]]:
    a, b = case.before.fields(), case.after.fields()
    return {f: (a[f], b[f]) for f in ("effectiveness", "utility") if f in a}


def _scale_precondition(case: Any, level: str, measure: Any) -> None:
    pairs = _outcome_pairs(case)
    s, s2 = pairs["effectiveness"]
    if s.max() == 0:
        return
    a = s2[np.argmax(s)] / s.max()
    require(0.001 - TOLERANCE <= a <= 0.999 + TOLERANCE, "0.001 - TOLERANCE <= a <= 0.999 + TOLERANCE")
    for old, new in pairs.values():
        np.testing.assert_allclose(new, a * old, atol=1e-12)


@precondition(_scale_precondition)
@case_strategy
def scale_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """Every effectiveness (and utility) multiplied by one factor in (0, 1).

    Examples
    --------
    >>> from hypothesis import find
    >>> find(scale_cases("score", "sd"), lambda c: c.before.m == 2).change.startswith("every S")
    True
    """
    pop, _ = draw(sources(level))
    a = draw(FRACTIONS)
    moved = {name: a * value for name, value in _outcome_fields(pop).items()}
    return Case(pop, pop.replace(**moved), f"every S (and utility) multiplied by {a:g}")


def _translation_precondition(case: Any, level: str, measure: Any) -> None:
    pairs = _outcome_pairs(case)
    s, s2 = pairs["effectiveness"]
    b = s2[0] - s[0]
    for old, new in pairs.values():
        np.testing.assert_allclose(new, old + b, atol=1e-12)
        require(
            np.all((new >= -TOLERANCE) & (new <= 1 + TOLERANCE)), "np.all((new >= -TOLERANCE) & (new <= 1 + TOLERANCE))"
        )


@precondition(_translation_precondition)
@case_strategy
def translation_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """Every effectiveness (and utility) shifted by one amount, staying in [0, 1] (a population
    whose values span [0, 1] scaled by a ∈ (0, 1) first).

    Examples
    --------
    >>> from hypothesis import find
    >>> find(translation_cases("score", "sd"), lambda c: not c.trivial).change.split(" by ")[0]
    'every S (and utility) shifted'
    """
    pop, _ = draw(sources(level))
    fields = _outcome_fields(pop)
    if max(v.max() for v in fields.values()) - min(v.min() for v in fields.values()) >= 1.0:
        # Derived worlds of more than two users nearly always span [0, 1] (a user with every
        # listed item relevant, one with none): scaled into it first, they leave room to shift.
        a = draw(FRACTIONS)
        pop = pop.replace(**{name: a * value for name, value in fields.items()})
        fields = _outcome_fields(pop)
    low = -min(v.min() for v in fields.values())
    high = 1.0 - max(v.max() for v in fields.values())
    if high - low <= 0:
        return trivial_case(pop, "values already span [0, 1]")
    b = low + draw(FRACTIONS_OR_ONE) * (high - low)
    moved = {name: value + b for name, value in fields.items()}
    return Case(pop, pop.replace(**moved), f"every S (and utility) shifted by {b:+g}")


def _symmetric_noise(draw: st.DrawFn, m: int) -> NDArray[np.float64]:
    noise = draw(_noise((m, m)))
    noise = np.triu(noise, k=1)
    return noise + noise.T


_SEGMENT_KINDS = ("dense", "one-field", "one-entry", "near-zero")
_SEGMENT_SCALE = st.sampled_from([1.0, 0.3, 0.05])
_UNIT_FLOAT = st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.0, 1.0, allow_subnormal=False))


def _moved(draw: st.DrawFn, pop: Population, name: str, scale: float) -> NDArray[np.float64]:
    """Field ``name`` of ``pop`` plus noise of size ``scale``, clipped to the field's range."""
    value = pop.fields()[name]
    if name == "effectiveness":
        noise = draw(_noise(pop.m))
    elif name == "utility":
        noise = draw(_noise((pop.m, pop.m)))
    else:
        noise = _symmetric_noise(draw, pop.m)
    return np.clip(value + scale * noise, 0.0, None if name == "list_distance" else 1.0)


def _one_entry(draw: st.DrawFn, pop: Population, name: str) -> NDArray[np.float64]:
    """Field ``name`` of ``pop`` with one entry (one pair, for a symmetric matrix) set anew."""
    new = pop.fields()[name].copy()
    target = draw(_UNIT_FLOAT)
    if new.ndim == 1:
        new[draw(st.integers(0, pop.m - 1))] = target
        return new
    u, v = draw_users(draw, pop.m, 2)
    new[u, v] = target
    if name != "utility":
        new[v, u] = target
    return new


def _segment(draw: st.DrawFn, pop: Population, measure: Measure) -> tuple[Population, Population, str]:
    """Two ends of a segment from ``pop``: every field read moved, one field, one entry, or
    both ends near zero (ratios of small numbers, such as a Gini at a tiny mean, are steep)."""
    kind = draw(st.sampled_from(_SEGMENT_KINDS))
    names = list(measure.reads or ())
    if kind == "near-zero":
        shrunk = [n for n in names if n != "similarity"] or names
        pop = pop.replace(**{f: 0.01 * pop.fields()[f] for f in shrunk})
        return pop, pop.replace(**{f: _moved(draw, pop, f, 0.01) for f in shrunk}), kind
    if kind != "dense":
        names = [names[draw(st.integers(0, len(names) - 1))]]
    if kind == "one-entry":
        return pop, pop.replace(**{f: _one_entry(draw, pop, f) for f in names}), kind
    scale = draw(_SEGMENT_SCALE)
    return pop, pop.replace(**{f: _moved(draw, pop, f, scale) for f in names}), kind


def _lipschitz_precondition(case: Any, level: str, measure: Any) -> None:
    reads = set(as_measure(measure).reads)
    same_fields(case.before, case.after, [f for f in case.before.fields() if f not in reads])
    if not case.segment:
        require(
            case.delta > 0 and distance(case.before, case.after) <= case.delta * (1 + 1e-12),
            "case.delta > 0 and distance(case.before, case.after) <= case.delta * (1 + 1e-12)",
        )
        require(1e-6 <= case.delta <= 0.1, "1e-6 <= case.delta <= 0.1")


@precondition(_lipschitz_precondition)
@case_strategy
def lipschitz_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """A segment the runner narrows to its steepest piece, or a perturbation of size δ.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(lipschitz_cases("score", "sd"), lambda c: c.segment).change.split(" (")[0]
    'effectiveness moved along a segment'
    """
    pop, _ = draw(sources(level))
    if draw_bytes(draw, 1)[0] % 4 != 3:
        # Three in four examples: a segment the runner narrows by bisection to its steepest
        # piece, which finds a jump at any threshold a random small perturbation misses.
        start, end, kind = _segment(draw, pop, measure)
        return Case(start, end, f"{', '.join((measure.reads or ()))} moved along a segment ({kind})", segment=True)
    delta = draw(_DELTA)
    moved = {name: _moved(draw, pop, name, delta) for name in (measure.reads or ())}
    return Case(
        pop,
        pop.replace(**moved),
        f"{', '.join((measure.reads or ()))} perturbed by at most δ = {delta:g} (max-norm)",
        delta=delta,
    )
