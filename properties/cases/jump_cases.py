"""The segments continuity searches for a jump, in every field the measure reads.

A threshold, an indicator or a neighbour set chosen by rank makes a measure jump where a value
crosses it. :func:`jump_cases` draws segments P0 → P1 that reach such places: every field the
measure reads moved by noise, one entry swept across its whole range, two entries tied and
then nudged apart, or every entry of a field tied and one nudged, where thresholds, sorted
orders and nearest neighbours switch; :func:`tied_segments` are the hand-made ones tried first.
The bisection along a segment is :func:`properties.catalog.continuity.narrow_to_jump`.
"""

from __future__ import annotations

__all__ = ["jump_cases", "tied_segments", "TIED_SEGMENTS", "steep_segments", "STEEP_SEGMENTS"]

from typing import Any
import functools

import numpy as np
from hypothesis import strategies as st
from numpy.typing import NDArray

from puf.metadata import Measure
from puf.population import FIELDS, Population

from puf import as_measure

from .case import Case, case_strategy, distance, draw_users
from .preconditions import precondition, require, same_fields
from .strategies import sources

_SMALLEST = 1e-6  # drawn values below it (but not 0) become 0: see jump_cases


@functools.lru_cache(maxsize=None)
def _noise(shape: int | tuple[int, ...]) -> st.SearchStrategy[NDArray[np.float64]]:
    # Uniform noise from one drawn seed: Hypothesis' own arrays move few entries.
    return st.integers(0, 2**32 - 1).map(lambda seed: np.random.default_rng(seed).uniform(-1.0, 1.0, shape))


def _high(name: str, value: NDArray[np.float64]) -> float:
    """The top of a field's range: 1, or for the unbounded list distance twice its largest value."""
    return max(1.0, 2.0 * float(value.max())) if name == "list_distance" else 1.0


def _symmetric(name: str) -> bool:
    return name in ("similarity", "list_distance")


def _set(value: NDArray[np.float64], name: str, index: tuple[int, ...], x: float) -> NDArray[np.float64]:
    """``value`` with entry ``index`` set to ``x`` (and its mirror for a symmetric matrix)."""
    new = value.copy()
    new[index] = x
    if len(index) == 2 and _symmetric(name):
        new[index[::-1]] = x
    return new


def _dense(draw: st.DrawFn, pop: Population, name: str) -> NDArray[np.float64]:
    """Field ``name`` moved by noise of a drawn size, clipped to its range (diagonals kept)."""
    value = pop.fields()[name]
    noise = draw(_noise(value.shape)) * draw(st.sampled_from([1.0, 0.3, 0.05, 1e-3]))
    if _symmetric(name):
        noise = np.triu(noise, k=1)
        noise = noise + noise.T
    return np.clip(value + noise, 0.0, _high(name, value))


def _entry(draw: st.DrawFn, m: int, name: str) -> tuple[int, ...]:
    if name == "effectiveness":
        return (draw(st.integers(0, m - 1)),)
    return draw_users(draw, m, 2)


def _sweep(draw: st.DrawFn, pop: Population, name: str) -> tuple[Population, Population, str]:
    """One entry swept across its whole range; for utility, its user first envies no one."""
    value = pop.fields()[name]
    index = _entry(draw, pop.m, name)
    if name == "utility":  # every envy of the row at 0 (a tie with the own list), one raised to 1
        u = index[0]
        value = value.copy()
        value[u] = np.minimum(value[u], value[u, u])
    start = pop.replace(**{name: _set(value, name, index, 0.0)})
    return start, pop.replace(**{name: _set(value, name, index, _high(name, value))}), f"{name}{list(index)} swept"


def _tie(draw: st.DrawFn, pop: Population, name: str) -> tuple[Population, Population, str]:
    """Two entries tied, then one moved past the other by a drawn step (a sorted order switches)."""
    value = pop.fields()[name]
    first, second = _entry(draw, pop.m, name), _entry(draw, pop.m, name)
    if name != "effectiveness" and draw(st.booleans()):
        second = (first[0], second[1])  # in one row: the order of a user's neighbours or envies
    if first == second or (len(second) == 2 and second[0] == second[1]):
        return _sweep(draw, pop, name)
    level = float(value[first])
    step = draw(st.sampled_from([1e-3, 0.05, 0.3]))
    start = _set(value, name, second, level)
    end = _set(
        value, name, second, float(np.clip(level + step * draw(st.sampled_from([1, -1])), 0, _high(name, value)))
    )
    return (
        pop.replace(**{name: start}),
        pop.replace(**{name: end}),
        f"{name}{list(second)} tied with {list(first)}, then moved",
    )


def _all_tied(draw: st.DrawFn, pop: Population, name: str) -> tuple[Population, Population, str]:
    """Every entry of a field tied (a matrix's diagonal kept), then one moved by a drawn step: a
    measure reading a spread of the entries (a threshold at their mean plus their standard
    deviation) meets a spread of 0 at the start, which two entries tied among others never give."""
    value = pop.fields()[name]
    level = draw(st.sampled_from([0.5, 0.25, 1.0]))
    tied = np.full_like(value, level)
    if value.ndim == 2:
        np.fill_diagonal(tied, np.diag(value))
    index = _entry(draw, pop.m, name)
    step = draw(st.sampled_from([1e-3, 0.05, 0.3])) * (1 if level < 1.0 else -1)
    return (
        pop.replace(**{name: tied}),
        pop.replace(**{name: _set(tied, name, index, level + step)}),
        f"every {name} entry tied at {level:g}, then {name}{list(index)} moved",
    )


#: What the hand-made segments (:func:`tied_segments`) are, as the formal statement says it.
TIED_SEGMENTS = (
    "hand-made: three users, every entry of one field tied at ½, then one entry moved to 0.6; two users "
    "at S = (0, 1) similar to no one, then their similarity moved to 0.6"
)


def tied_segments(level: str) -> list[Case]:
    """Hand-made segments, tried first: three users with every entry of every field tied at ½
    (the similarity's diagonal 1, the list distance's 0), to one entry of one field moved to 0.6,
    a segment per field (score level: effectiveness and similarity; a measure is tried on those of
    the fields it reads); and two users at S = (0, 1) similar to no one (user 0 envying user 1's
    list, the lists apart), to their similarity at 0.6.

    At the start of the first the entries' spread is 0: a threshold at their mean plus their
    standard deviation, or a strict comparison of tied values, jumps as soon as it grows. At the
    start of the last the similarities sum to 0: a weighted mean over similar pairs (Σ sim·gap /
    Σ sim) jumps from its value for no similar pair to the gap itself.

    Examples
    --------
    >>> [case.change for case in tied_segments("score")][1:]
    ['every similarity entry tied at 0.5, then similarity[0, 1] moved to 0.6', 'no two users similar (S = (0, 1)), then similarity[0, 1] moved to 0.6']
    >>> len(tied_segments("world"))
    5
    """
    tied = {
        "effectiveness": np.full(3, 0.5),
        "similarity": np.full((3, 3), 0.5) + 0.5 * np.eye(3),
        "utility": np.full((3, 3), 0.5),
        "list_distance": np.full((3, 3), 0.5) - 0.5 * np.eye(3),
    }
    apart = {
        "effectiveness": np.array([0.0, 1.0]),
        "similarity": np.eye(2),
        "utility": np.array([[0.0, 1.0], [0.0, 0.0]]),
        "list_distance": 1.0 - np.eye(2),
    }
    if level == "score":
        tied, apart = ({name: f[name] for name in ("effectiveness", "similarity")} for f in (tied, apart))
    start = Population(**tied)
    cases = []
    for name, value in tied.items():
        index = (0,) if name == "effectiveness" else (0, 1)
        where = ", ".join(map(str, index))
        cases.append(
            Case(
                start,
                start.replace(**{name: _set(value, name, index, 0.6)}),
                f"every {name} entry tied at 0.5, then {name}[{where}] moved to 0.6",
                segment=True,
            )
        )
    alone = Population(**apart)
    similar = alone.replace(similarity=_set(apart["similarity"], "similarity", (0, 1), 0.6))
    cases.append(
        Case(alone, similar, "no two users similar (S = (0, 1)), then similarity[0, 1] moved to 0.6", segment=True)
    )
    return cases


#: What the hand-made segments of ``lipschitz-continuity`` (:func:`steep_segments`) are.
STEEP_SEGMENTS = TIED_SEGMENTS + "; three users at S = (½, ½, ½ + 10⁻⁴), then the middle one moved halfway to the top"


def steep_segments(level: str) -> list[Case]:
    """``lipschitz-continuity``'s hand-made segments, tried first: :func:`tied_segments` (a jump
    breaks every Lipschitz bound), and three users nearly equal, S = (½, ½, ½ + 10⁻⁴), to the
    middle one moved halfway to the top. A measure that reads the gaps relative to each other (a
    mean deviation over the range) changes by a fixed amount however small the gaps are, so its
    slope there is unbounded; one Lipschitz in S moves by at most a multiple of 5·10⁻⁵.

    Examples
    --------
    >>> [case.change for case in steep_segments("score")][-1]
    'three users nearly equal, S = (0.5, 0.5, 0.5001), then S[1] moved halfway to the top'
    """
    tied = tied_segments(level)
    near = tied[0].before.replace(effectiveness=np.array([0.5, 0.5, 0.5001]))
    top = near.replace(effectiveness=np.array([0.5, 0.50005, 0.5001]))
    change = "three users nearly equal, S = (0.5, 0.5, 0.5001), then S[1] moved halfway to the top"
    return [*tied, Case(near, top, change, segment=True)]


def _without_tiny(pop: Population, names: list[str]) -> Population:
    # A value such as 10⁻³⁰⁰ makes a logarithm fall by a gap that shrinks too slowly to be
    # told from a jump at any float scale; the statement draws none.
    fields = pop.fields()
    return pop.replace(**{n: np.where((fields[n] > 0) & (fields[n] < _SMALLEST), 0.0, fields[n]) for n in names})


def _jump_precondition(case: Any, level: str, measure: Any) -> None:
    reads = set(as_measure(measure).reads)
    same_fields(case.before, case.after, [f for f in case.before.fields() if f not in reads])
    if case.segment:  # drawn ends: no value in (0, 1e-6)
        for pop in (case.before, case.after):
            for name in reads:
                value = pop.fields()[name]
                require(not np.any((value > 0) & (value < 1e-6)), f"{name!r}")
    else:  # a narrowed or stored pair: the two ends of a piece at most 1e-12 long
        require(distance(case.before, case.after) <= 1e-12, "distance(case.before, case.after) <= 1e-12")


@precondition(_jump_precondition)
@case_strategy
def jump_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """A segment between two populations differing in the fields the measure reads.

    Every field read moved (by noise of size 1, 0.3, 0.05 or 10⁻³), or one entry of one field
    swept across its range, or two entries tied and then moved apart, or every entry of one
    field tied and then one moved.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(jump_cases("score", "puf"), lambda c: "swept" in c.change).segment
    True
    """
    pop, _ = draw(sources(level))
    names = [f for f in FIELDS if f in (measure.reads or ()) and f in pop.fields()]
    if not names:
        names = ["effectiveness"]
    pop = _without_tiny(pop, names)
    kind = draw(st.sampled_from(["dense", "sweep", "tie", "all tied"]))
    if kind == "dense":
        end = pop.replace(**{n: _dense(draw, pop, n) for n in names})
        return Case(pop, _without_tiny(end, names), f"{', '.join(names)} moved along a segment", segment=True)
    name = names[draw(st.integers(0, len(names) - 1))]
    start, end, change = {"sweep": _sweep, "tie": _tie, "all tied": _all_tied}[kind](draw, pop, name)
    return Case(start, _without_tiny(end, names), change, segment=True)  # (noise or a step can land near 0 too)
