"""Cases that transform the derived fields directly: rescaling, shifting, perturbing (private).

No discrete world change is a rescaling of every user's effectiveness or a
perturbation of size δ, so at world level too these act on the Population
fields (effectiveness and utility for rescaling and shifting; every field the
measure reads for continuity).
"""

__all__ = ["FIELD_CASES"]

import functools

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ._cases import _FRACTION, _FRACTION_OR_ONE, Case, _source, _trivial

_DELTA = st.one_of(st.sampled_from([1e-3, 1e-2, 1e-1]), st.floats(1e-6, 1e-1))


@functools.lru_cache(maxsize=None)
def _noise(shape):
    return hnp.arrays(np.float64, shape, elements=st.floats(-1.0, 1.0))


def _outcome_fields(pop):
    """The per-user outcome fields a rescaling acts on: effectiveness and utility."""
    return {name: value for name, value in pop.fields().items() if name in ("effectiveness", "utility")}


@st.composite
def scale(draw, level, measure):
    pop, _ = draw(_source(level))
    a = draw(_FRACTION)
    moved = {name: a * value for name, value in _outcome_fields(pop).items()}
    return Case(pop, pop.replace(**moved), f"every S (and utility) multiplied by {a:g}")


@st.composite
def translation(draw, level, measure):
    pop, _ = draw(_source(level))
    fields = _outcome_fields(pop)
    low = -min(v.min() for v in fields.values())
    high = 1.0 - max(v.max() for v in fields.values())
    if high - low <= 0:
        return _trivial(pop, "values already span [0, 1]")
    b = low + draw(_FRACTION_OR_ONE) * (high - low)
    moved = {name: value + b for name, value in fields.items()}
    return Case(pop, pop.replace(**moved), f"every S (and utility) shifted by {b:+g}")


def _symmetric_noise(draw, m):
    noise = draw(_noise((m, m)))
    noise = np.triu(noise, k=1)
    return noise + noise.T


@st.composite
def continuity(draw, level, measure):
    pop, _ = draw(_source(level))
    delta = draw(_DELTA)
    moved = {}
    for name in measure.reads:
        value = pop.fields()[name]
        if name == "effectiveness":
            noise = draw(_noise(pop.m))
        elif name == "utility":
            noise = draw(_noise((pop.m, pop.m)))
        else:
            noise = _symmetric_noise(draw, pop.m)
        upper = None if name == "list_distance" else 1.0
        moved[name] = np.clip(value + delta * noise, 0.0, upper)
    return Case(pop, pop.replace(**moved),
                f"{', '.join(measure.reads)} perturbed by at most δ = {delta:g} (max-norm)", delta=delta)


FIELD_CASES = {
    "scale-invariance": scale,
    "translation-invariance": translation,
    "continuity": continuity,
}
