"""Sensitivity sweeps: run fairness measures over a generator parameter.

A sweep starts from a :class:`Base` (where worlds come from, and the settings
the sweep does not vary), sets one parameter to each of several values, draws
one world per value and seed, and evaluates every measure variant
(:func:`puf.variants`: ``"SD-NDCG"``, ``"UF"``, a user's function) on it, through
the world's :meth:`puf.World.population` (:func:`reports.bases.point_scores`).
The result is a tidy table ``measure, parameter, value, seed, score``.

Parameters a sweep can vary (:data:`PARAMETERS`):
``zero_relevance`` (share p of users whose lists hold no relevant item, the
rest fully relevant); ``skewness`` (the world's similarities brought to this
skewness, at their observed mean by :func:`synthetic.reshape_skewness`, or with
the mean free by :func:`synthetic.power_skewness`, as ``Base.skewness_mean`` says;
None keeps them);
``gamma`` (sim_UF's weight of shared history against item features);
``pairing`` (which users get the zero-relevance lists: ``random``, or chosen by
:func:`synthetic.pair` on Jaccard so that similar users have equal
(``most_fair``) or unequal (``most_unfair``) effectiveness; fixed across the
other parameters, so a skewness sweep changes similarity values alone).
UF always reads sim_UF(gamma); every other measure reads ``Base.similarity``.
:data:`SWEEPS` holds the report's built-in sweeps: the PUF paper's four, plus the skewness
sweep at a free mean (``skewness_free_mean``). Each names the measure *families*
it shows, and its measures are read from the registry (:func:`puf.variants`) when
it runs, so a newly registered measure joins every sweep of its family.
"""

from __future__ import annotations

__all__ = ["PARAMETERS", "COLUMNS", "sweep", "BuiltinSweep", "SWEEPS"]

from collections.abc import Callable, Iterable, Sequence
from typing import Any
import numbers
import warnings
from dataclasses import dataclass

import pandas as pd

from puf import FAMILIES, MEASURES, UndefinedMeasureWarning

from puf import variants
from puf.world import World

from .bases import Base, point_results
from .pair_limits import PAIR_COLUMNS, point_notes
from .workers import run_points

#: The parameters a sweep can vary.
PARAMETERS = ("zero_relevance", "skewness", "gamma", "pairing")
#: The columns of a sweep's tidy table.
COLUMNS = ["measure", "parameter", "value", "seed", "score"]


def _bar(progress: Any, total: int) -> tuple[Any, bool]:
    """(bar, owned): a caller's bar to advance, or our own (disabled when ``progress`` is False)."""
    if hasattr(progress, "update"):
        return progress, False
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="sweep", unit="world", disable=not progress), True


def sweep(
    measures: Iterable[Any],
    *,
    parameter: str,
    values: Sequence[Any],
    seeds: Sequence[int],
    base: Base | None = None,
    cache: dict[Any, World] | None = None,
    progress: Any = False,
    workers: int = 1,
) -> pd.DataFrame:
    """Evaluate measures at each value of one parameter, over seeds.

    Parameters
    ----------
    measures : iterable of (str, callable, puf.Measure or Variant)
        Variant labels (``"SD-NDCG"``, ``"UF"``, ``"P@k"``) or measure functions
        (expanded by :func:`variants`).
    parameter : str
        One of :data:`PARAMETERS`.
    values : iterable
        The values ``parameter`` takes.
    seeds : iterable of int
        One world per value and seed (the seed is the generator's random_state).
    base : Base, optional
        The other settings; default ``Base()``.
    cache : dict, optional
        Shared between sweeps of one run so each world is drawn and derived once.
    progress : bool or tqdm, default False
        Show a bar, or advance a caller's bar by one per world.
    workers : int, default 1
        Processes for the sweep points (:func:`reports.workers.run_points`): the first
        point runs here, the others are shared out seed by seed; the table is the same,
        byte for byte, whatever the number. 1 runs every point in this process.

    Returns
    -------
    pandas.DataFrame
        Columns ``measure, parameter, value, seed, score``, in the order
        value, seed, measure. ``score`` is NaN where the measure is undefined.
        With ``base.max_pairs`` or ``base.sample``, also ``road, ci_low, ci_high,
        reason`` (:data:`reports.pair_limits.PAIR_COLUMNS`) when a value is not exact:
        whether each value is exact, sampled (with its 95% interval) or skipped (NaN,
        with the reason).

    Examples
    --------
    >>> df = sweep(["SD-NDCG", "Gini-NDCG"], parameter="zero_relevance", values=[0.0, 0.5, 1.0],
    ...            seeds=[0], base=Base(n_users=20, n_items=100, k=5))
    >>> df.pivot(index="value", columns="measure", values="score")
    measure  Gini-NDCG  SD-NDCG
    value
    0.0            0.0      0.0
    0.5            0.5      0.5
    1.0            NaN      0.0
    """
    bases = [Base() if base is None else base]
    return _sweep_points(measures, parameter, values, seeds, bases, cache, progress, workers)[0]


def _sweep_points(
    measures: Iterable[Any],
    parameter: str,
    values: Sequence[Any],
    seeds: Sequence[int],
    bases: Sequence[Base],
    cache: dict[Any, World] | None,
    progress: Any,
    workers: int = 1,
) -> list[pd.DataFrame]:
    """:func:`sweep` from each of ``bases``, one table each, their points run side by side.

    The points of one value and seed are run one after another, from every base in
    turn: bases differing in what does not change a similarity (the pairings of a
    skewness sweep) read the same reshaped matrix and the pieces derived from it.
    Each point's values do not depend on the order the points run in.
    """
    if parameter not in PARAMETERS:
        raise ValueError(f"unknown parameter {parameter!r}; known: {', '.join(PARAMETERS)}")
    chosen = [v for spec in measures for v in variants(spec)]
    values, seeds = list(values), list(seeds)
    bad = [s for s in seeds if isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 0]
    if bad:  # int() would turn a seed of 0.5 into 0, silently
        raise ValueError(f"seeds must be integers >= 0, got {bad[0]!r}")
    seeds = [int(s) for s in seeds]
    if not chosen or not values or not seeds:
        raise ValueError("sweep needs at least one measure, one value and one seed")
    cache = {} if cache is None else cache
    limited = any(base.max_pairs is not None or base.sample is not None for base in bases)
    bar, own = _bar(progress, len(values) * len(seeds) * len(bases))
    by_value = [[base.replace(**{parameter: value}) for base in bases] for value in values]

    def run(point: tuple[int, int], tick: Callable[[], None]) -> list[tuple[list[float], Any]]:
        """The scores of one (seed, value) from every base in turn, each with its :func:`point_notes`."""
        seed, index = point
        scores = []
        for base in by_value[index]:
            with warnings.catch_warnings():
                # An undefined value is recorded as NaN; the table says so.
                warnings.simplefilter("ignore", UndefinedMeasureWarning)
                where = f" at {parameter}={values[index]}, seed {seed}"
                found = point_results(base, seed, chosen, cache, where=where)
                scores.append((found.values["world"], point_notes(found, chosen) if limited else None))
            tick()
        return scores

    # Seed by seed: a seed's reshaped similarities and pairings are made once, in one process.
    points = [(seed, index) for seed in seeds for index in range(len(values))]
    try:
        # A seed's points share its reshapers and pairing searches: one worker runs them all.
        shared = parameter == "skewness" or any(base.pairing != "random" for base in bases)
        groups = [s for s, _ in points] if shared else None
        done = run_points(run, points, workers=workers, bar=bar, worlds=len(bases), groups=groups)
        found = dict(zip(points, done))
    finally:
        if own:
            bar.close()
    # The roads are told only where one is not exact: a limit no point reaches changes no table.
    told = any(note[0] != "exact" for done in found.values() for _, notes in done for note in notes or ())
    rows: list[list[tuple[Any, ...]]] = [[] for _ in bases]
    for index, value in enumerate(values):
        for seed in seeds:
            for table, (scores, notes) in zip(rows, found[seed, index]):
                table.extend(
                    (v.label, parameter, value, seed, score, *(notes[i] if told else ()))
                    for i, (v, score) in enumerate(zip(chosen, scores))
                )
    return [pd.DataFrame(table, columns=COLUMNS + (PAIR_COLUMNS if told else [])) for table in rows]


_SHARES = tuple(i / 10 for i in range(11))
_QUARTERS = (0.0, 0.25, 0.5, 0.75, 1.0)
_PAIRINGS = ("random", "most_fair", "most_unfair")


@dataclass(frozen=True)
class BuiltinSweep:
    """One of the report's sweeps: what it varies, over which values, for which measures.

    ``families`` are the measure families it shows (every registered study
    variant of those families, :func:`puf.variants`), after the ``controls``
    (labels shown whatever their family, e.g. SD as a reference that ignores
    similarity). ``parameter`` is the x axis; ``cross``, when set, is a further Base setting
    taking each of ``levels`` (a column of that name is added to the table). ``setting``
    holds further fixed Base settings, as (name, value) pairs.

    Examples
    --------
    >>> s = SWEEPS["pairing"]
    >>> s.parameter, s.cross, s.levels
    ('zero_relevance', 'pairing', ('most_fair', 'most_unfair'))
    >>> s.n_worlds(quick=False, n_seeds=2)
    44
    >>> s.measures[:7]  # the similarity-blind measures, for contrast
    ('SD-P', 'SD-NDCG', 'Gini-P', 'Gini-NDCG', 'ME', 'MME', 'PEU')
    >>> s.measures[7:10]
    ('PUF-P', 'PUF-NDCG', 'UF')
    """

    name: str
    title: str
    parameter: str
    values: tuple
    quick_values: tuple
    families: tuple
    cross: str | None = None
    levels: tuple = (None,)
    quick_levels: tuple = (None,)
    setting: tuple = ()
    controls: tuple = ()

    @property
    def measures(self) -> tuple[str, ...]:
        """The variant labels it shows: its controls, then its families' variants from the registry.

        Examples
        --------
        >>> SWEEPS["skewness"].measures[:5]
        ('SD-P', 'SD-NDCG', 'PUF-P', 'PUF-NDCG', 'UF')
        """
        chosen = tuple(v.label for v in variants() if v.measure.family in self.families)
        return self.controls + tuple(label for label in chosen if label not in self.controls)

    def grid(self, quick: bool = False) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """Return (values, levels) at full or quick size.

        Examples
        --------
        >>> SWEEPS["gamma"].grid(quick=True)
        ((0.0, 0.25, 0.5, 0.75, 1.0), (0.0, 0.5, 1.0))
        """
        return (self.quick_values, self.quick_levels) if quick else (self.values, self.levels)

    def n_worlds(self, *, quick: bool = False, n_seeds: int) -> int:
        """Number of sweep points (value x level x seed): the progress total.

        Examples
        --------
        >>> SWEEPS["zero_relevance"].n_worlds(n_seeds=5)
        55
        """
        values, levels = self.grid(quick)
        return len(values) * len(levels) * n_seeds

    def run(
        self,
        *,
        seeds: Sequence[int],
        base: Base | None = None,
        extra: Sequence[Any] = (),
        quick: bool = False,
        cache: dict[Any, World] | None = None,
        progress: Any = False,
        workers: int = 1,
    ) -> pd.DataFrame:
        """Run the sweep for its own measures plus ``extra`` (user measures); ``workers`` as in :func:`sweep`.

        Examples
        --------
        >>> df = SWEEPS["skewness"].run(seeds=[0], quick=True, base=Base(n_users=20, n_items=100, k=5))
        >>> sorted(df.measure.unique())[:6]
        ['Inconsistency-NDCG', 'Inconsistency-P', 'Lipschitz-excess-NDCG', 'Lipschitz-excess-P', 'Lipschitz-violation-NDCG', 'Lipschitz-violation-P']
        """
        base = (Base() if base is None else base).replace(**dict(self.setting))
        values, levels = self.grid(quick)
        points = []
        for level in levels:
            point = base if self.cross is None else base.replace(**{self.cross: level})
            if self.cross == "gamma":
                point = point.replace(similarity="uf")  # PUF reads sim_UF(gamma) here too
            points.append(point)
        # The levels' points of each value and seed run together (they share a reshaped similarity);
        # the table is level by level, as one sweep per level would give it.
        measures = self.measures + tuple(extra)
        frames = _sweep_points(measures, self.parameter, values, seeds, points, cache, progress, workers)
        for level, frame in zip(levels, frames):
            if self.cross is not None:
                frame.insert(2, self.cross, level)
        return pd.concat(frames, ignore_index=True)


_EVERY = FAMILIES  # every family, the mean effectiveness ("other") included
_SIMILARITY_AWARE = ("similarity-aware",)
# SD on every study metric: a reference that ignores similarity, flat when only similarity moves.
_SD = tuple(v.label for v in variants(MEASURES["sd"]))
# The PUF paper's similarity-blind measures: the pairing sweep shows them beside PUF and UF, since
# that they cannot tell the two pairings apart is the contrast the paper draws.
_BLIND = tuple(v.label for name in ("sd", "gini", "me", "mme", "peu") for v in variants(MEASURES[name]))

#: The report's built-in sweeps by name.
SWEEPS = {
    s.name: s
    for s in (
        BuiltinSweep(
            "zero_relevance",
            "Share of users with zero relevance",
            "zero_relevance",
            _SHARES,
            _SHARES,
            _EVERY,
        ),
        BuiltinSweep(
            "skewness",
            "Skewness of the similarity distribution at a fixed mean, by pairing",
            "skewness",
            (-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0),
            (-1.0, 0.0, 2.0, 4.0, 8.0),
            _SIMILARITY_AWARE,
            cross="pairing",
            levels=_PAIRINGS,
            quick_levels=_PAIRINGS,
            setting=(("skewness_mean", "fixed"),),
            controls=_SD,
        ),
        # Powers of sparse similarities reach no negative skewness reliably (the lower end is the
        # skewness of a 0/1 sample, see synthetic.power_skewness): this sweep starts at 0.
        BuiltinSweep(
            "skewness_free_mean",
            "Skewness of the similarity distribution with the mean free (sim ** α), by pairing",
            "skewness",
            (0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0),
            (0.0, 2.0, 4.0, 8.0),
            _SIMILARITY_AWARE,
            cross="pairing",
            levels=_PAIRINGS,
            quick_levels=_PAIRINGS,
            setting=(("skewness_mean", "free"),),
            controls=_SD,
        ),
        BuiltinSweep(
            "pairing",
            "Most fair versus most unfair pairing",
            "zero_relevance",
            _SHARES,
            _QUARTERS,
            _SIMILARITY_AWARE,
            cross="pairing",
            levels=("most_fair", "most_unfair"),
            quick_levels=("most_fair", "most_unfair"),
            controls=_BLIND,
        ),
        BuiltinSweep(
            "gamma",
            "sim_UF's weight γ, crossed with the zero-relevance share",
            "zero_relevance",
            _SHARES,
            _QUARTERS,
            _SIMILARITY_AWARE,
            cross="gamma",
            levels=(0.0, 0.25, 0.5, 0.75, 1.0),
            quick_levels=(0.0, 0.5, 1.0),
        ),
    )
}
