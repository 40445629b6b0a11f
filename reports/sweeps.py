"""Sensitivity sweeps: run fairness measures over a generator parameter.

A sweep starts from a :class:`Base` (where worlds come from, and the settings
the sweep does not vary), sets one parameter to each of several values, draws
one world per value and seed, and evaluates every measure variant
(:func:`puf.variants`: ``"SD-NDCG"``, ``"UF"``, a user's function) on it, through
the world's :meth:`puf.World.population` (:func:`point_scores`).
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

Where sweeps start: a :class:`Base` names the world source (the synthetic generator, or any
callable such as real lists with artificial relevance, :mod:`reports.artificial_relevance`) and
the value of every sweep parameter. Each world is drawn once per (source, share, pairing, seed),
in a cache a report shares between its sweeps (:func:`point_world`); what a measure reads there
is the world's :meth:`puf.World.population`, which memoises its pieces
(:func:`point_population`, :func:`point_scores`).
"""

from __future__ import annotations

__all__ = [
    "PARAMETERS",
    "COLUMNS",
    "sweep",
    "BuiltinSweep",
    "SWEEPS",
    "Base",
    "observed_skewness",
    "pair_statistic",
    "point_world",
    "point_population",
    "point_scores",
    "point_results",
]

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any
import math
import numbers
import warnings
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray
import pandas as pd

from puf import FAMILIES, MEASURES, UndefinedMeasureWarning

from puf import variants
from puf.population import Population
from puf.world import World

from .pair_limits import PAIR_COLUMNS, point_notes
from .workers import run_points

if TYPE_CHECKING:
    from puf.evaluation.roads import WorldScores

#: The parameters a sweep can vary.
PARAMETERS = ("zero_relevance", "skewness", "gamma", "pairing")
#: The columns of a sweep's tidy table.
COLUMNS = ["measure", "parameter", "value", "seed", "score"]


@dataclass(frozen=True)
class Base:
    """Where a sweep starts: the world source and every setting it does not vary.

    Parameters
    ----------
    n_users, n_items, k : int
        Synthetic world size and list length (k is every metric's cut-off).
    zero_relevance, skewness, gamma, pairing : see :data:`PARAMETERS`
        Defaults 0.5, None (the world's own), 0.5, "random".
    skewness_mean : {"fixed", "free"}, default "fixed"
        How a set ``skewness`` is reached: "fixed" maps the similarities by rank onto a
        sample at their observed mean (:func:`synthetic.reshape_skewness`); "free"
        raises them to a power (:func:`synthetic.power_skewness`), so the mean moves.
    similarity : {"jaccard", "uf"}, default "jaccard"
        The study's similarity: what every measure reads unless it declares its
        own (UF reads sim_UF(gamma) whatever this says).
    worlds : callable, optional
        ``worlds(*, zero_relevance, pairing, random_state) -> puf.World``, another world
        source (e.g. :func:`artificial_relevance` on real lists); default
        :func:`synthetic.world` with ``n_users, n_items, k, **world_options``.
    world_options : tuple of (str, value) pairs
        Extra keywords for :func:`synthetic.world` (a tuple keeps Base hashable).
    name : str, default "synthetic"
        Names the data in the report.
    max_pairs : int, optional
        Skip the exact roads over all m(m−1)/2 user pairs when the worlds have
        more pairs than this (:func:`puf.evaluation.variant_scores`); default no limit.
    sample : int, optional
        Estimate every pair measure (and UF) from this many drawn pairs per
        point (the point's seed draws them), with a 95% interval.

    Examples
    --------
    >>> Base(n_users=50).replace(gamma=1.0).gamma
    1.0
    >>> Base(pairing="best")
    Traceback (most recent call last):
    ...
    ValueError: pairing must be one of 'random', 'most_fair', 'most_unfair', got 'best'
    """

    n_users: int = 200
    n_items: int = 1000
    k: int = 10
    zero_relevance: float = 0.5
    skewness: float | None = None
    gamma: float | None = None
    pairing: str = "random"
    skewness_mean: str = "fixed"
    similarity: str = "jaccard"
    worlds: Callable[..., World] | None = None
    world_options: tuple[tuple[str, Any], ...] = ()
    name: str = "synthetic"
    max_pairs: int | None = None
    sample: int | None = None

    def __post_init__(self) -> None:
        from puf.validation import check_k, check_unit_scalar

        check_k(self.n_users, name="n_users"), check_k(self.n_items, name="n_items"), check_k(self.k)
        check_unit_scalar(self.zero_relevance, name="zero_relevance")
        if self.gamma is None:  # the γ UF declares: one default, owned by the measure
            from puf import declared_gamma

            object.__setattr__(self, "gamma", declared_gamma("uf"))
        check_unit_scalar(self.gamma, name="gamma")
        if self.skewness is not None and (
            isinstance(self.skewness, bool)
            or not isinstance(self.skewness, numbers.Real)
            or not np.isfinite(self.skewness)
        ):
            raise ValueError(f"skewness must be a finite number or None, got {self.skewness!r}")
        if self.worlds is not None and not callable(self.worlds):
            raise ValueError(f"worlds must be None or a callable world source, got {self.worlds!r}")
        # A Base keys the world cache, so its settings must hash: pairs in a tuple, not a dict.
        if not (
            isinstance(self.world_options, tuple)
            and all(isinstance(o, tuple) and len(o) == 2 for o in self.world_options)
        ):
            raise ValueError(f"world_options must be a tuple of (name, value) pairs, got {self.world_options!r}")
        if self.pairing not in ("random", "most_fair", "most_unfair"):
            raise ValueError(f"pairing must be one of 'random', 'most_fair', 'most_unfair', got {self.pairing!r}")
        if self.skewness_mean not in ("fixed", "free"):
            raise ValueError(f"skewness_mean must be 'fixed' or 'free', got {self.skewness_mean!r}")
        if self.similarity not in ("jaccard", "uf"):
            raise ValueError(f"similarity must be 'jaccard' or 'uf', got {self.similarity!r}")
        if self.max_pairs is not None:
            check_k(self.max_pairs, name="max_pairs")
        if self.sample is not None and (isinstance(self.sample, bool) or check_k(self.sample, name="sample") < 2):
            raise ValueError(f"sample must be >= 2 pairs, got {self.sample!r}")

    def replace(self, **changes: Any) -> Base:
        """Return a validated copy with some settings changed.

        Examples
        --------
        >>> Base().replace(skewness=2.0).skewness
        2.0
        """
        return replace(self, **changes)

    def world(
        self, *, zero_relevance: float, pairing: str = "random", random_state: int | np.random.Generator | None
    ) -> World:
        """Draw the world of one sweep point.

        Examples
        --------
        >>> w = Base(n_users=20, n_items=100, k=5).world(zero_relevance=0.5, random_state=0)
        >>> w.m, w.k
        (20, 5)
        """
        if self.worlds is not None:
            return self.worlds(zero_relevance=zero_relevance, pairing=pairing, random_state=random_state)
        from puf import synthetic

        return synthetic.world(
            self.n_users,
            self.n_items,
            k=self.k,
            zero_relevance=zero_relevance,
            pairing=pairing,
            random_state=random_state,
            **dict(self.world_options),
        )


def point_world(base: Base, seed: int, cache: dict[Any, World]) -> World:
    """The world of one sweep point, drawn once per (world source, share, pairing, seed).

    The settings that change only what is read from a world (skewness, γ,
    similarity) do not draw a new one; the World memoises its pieces
    (:meth:`puf.World.population`), so sweeps sharing ``cache`` derive each once.

    Examples
    --------
    >>> cache = {}
    >>> base = Base(n_users=20, n_items=100, k=5)
    >>> point_world(base, 0, cache) is point_world(base.replace(gamma=1.0, skewness=2.0), 0, cache)
    True
    """
    source = base.replace(
        skewness=None, skewness_mean="fixed", gamma=0.0, similarity="jaccard", max_pairs=None, sample=None
    )
    if (source, seed) not in cache:
        world = base.world(zero_relevance=base.zero_relevance, pairing=base.pairing, random_state=seed)
        # A seed's worlds often differ in relevance alone (the synthetic worlds along a share or
        # pairing axis): derived from the first by World.replace, they share its similarities.
        first = cache.setdefault(("first", source.replace(zero_relevance=0.0, pairing="random"), seed), world)
        if first is not world and _same_but_relevance(first, world):
            world = first.replace(relevance=world.relevance)
        cache[source, seed] = world
    return cache[source, seed]


def _same_but_relevance(a: World, b: World) -> bool:
    return (
        a.histories.shape == b.histories.shape
        and (a.histories != b.histories).nnz == 0
        and all(
            np.array_equal(getattr(a, name), getattr(b, name)) for name in ("rankings", "item_features", "item_vectors")
        )
    )


def _reshaping(
    base: Base, seed: int, cache: dict[Any, Any] | None = None
) -> Callable[[NDArray[np.float64], str], NDArray[np.float64]] | None:
    """``reshape(similarity, name)`` bringing a similarity to the point's skewness, once per name.

    At a fixed mean, a :class:`synthetic.SkewnessReshaper` per (similarity matrix,
    seed) is kept in ``cache`` until a point of another seed needs one (a sweep runs
    its points seed by seed): the points of a sweep that share a similarity (every
    skewness value, every pairing of the same histories) rank its pairs once. The
    last reshaped matrix of each similarity name is kept there too, so consecutive
    points reading the same one (the pairings of one skewness and seed, which a
    crossed sweep runs one after another) share the matrix itself, and with it the
    pieces derived from it (its check, its nearest neighbours).
    """
    if base.skewness is None:
        return None
    reshaped = {}
    cache = {} if cache is None else cache

    def reshape(similarity: NDArray[np.float64], name: str) -> NDArray[np.float64]:
        if name not in reshaped:
            setting = (seed, base.skewness_mean, base.skewness)
            last = cache.get(("reshaped", name))
            if last is not None and last[0] is similarity and last[1] == setting:
                reshaped[name] = last[2]
            else:
                reshaped[name] = _reshaped(similarity, base, seed, cache)
                reshaped[name].flags.writeable = False  # frozen: checked once, handed on uncopied
                cache["reshaped", name] = (similarity, setting, reshaped[name])  # one kept per name
        return reshaped[name]

    return reshape


def _reshaped(similarity: NDArray[np.float64], base: Base, seed: int, cache: dict[Any, Any]) -> NDArray[np.float64]:
    """``similarity`` at the point's skewness, by the point's road (a new array)."""
    from puf import synthetic

    if base.skewness_mean == "free":
        return synthetic.power_skewness(similarity, skewness=base.skewness)
    key = ("reshaper", id(similarity), seed)
    if key not in cache or cache[key][0] is not similarity:  # the entry keeps the matrix alive
        # A sweep runs its points seed by seed: the reshapers of other seeds (their ranks, about
        # 4 m^2 bytes each, and their sorted draws) are not read again, and are let go.
        for old in [k for k in cache if _is_reshaper(k) and k[2] != seed]:
            del cache[old]
        cache[key] = (similarity, synthetic.SkewnessReshaper(similarity, random_state=seed))
    return cache[key][1](base.skewness)


def _is_reshaper(key: Any) -> bool:
    return isinstance(key, tuple) and len(key) == 3 and isinstance(key[0], str) and key[0] == "reshaper"


def point_population(
    base: Base, seed: int, cache: dict[Any, World], *, metric: str = "ndcg", similarity: str | None = None
) -> Population:
    """The Population read at one sweep point: the world's, its similarity at the point's skewness.

    Parameters
    ----------
    base, seed, cache
        The point's settings and seed, and the cache of :func:`point_world`.
    metric : str, default "ndcg"
        A name in :data:`puf.EFFECTIVENESS`.
    similarity : str, optional
        A name in :data:`puf.SIMILARITIES` (sim_UF at ``base.gamma``); default
        ``base.similarity``, what every measure but UF reads.

    Returns
    -------
    puf.Population

    Examples
    --------
    >>> from scipy.stats import skew
    >>> pop = point_population(Base(n_users=20, n_items=100, k=5, skewness=2.0), 0, {})
    >>> round(float(skew(pop.similarity[np.triu_indices(20, k=1)])), 1)
    2.0
    """
    similarity = base.similarity if similarity is None else similarity
    population = point_world(base, seed, cache).population(
        metric=metric, k=base.k, similarity=similarity, gamma=base.gamma
    )
    reshape = _reshaping(base, seed, cache)
    return population if reshape is None else population.replace(similarity=reshape(population.similarity, similarity))


def point_scores(
    base: Base, seed: int, chosen: Sequence[Any], cache: dict[Any, World], *, where: str = ""
) -> list[float]:
    """Each variant's value at one sweep point, in the order of ``chosen``.

    Every variant reads ``base.similarity`` unless it declares its own (UF:
    sim_UF at ``base.gamma``), brought to ``base.skewness`` when that is set;
    see :func:`puf.evaluation.score_variants`. NaN where a variant is skipped
    (``base.max_pairs``), the estimate where it is sampled (``base.sample``);
    :func:`point_results` says which.

    Examples
    --------
    >>> import puf
    >>> point_scores(Base(n_users=20, n_items=100, k=5, zero_relevance=0.5), 0,
    ...              puf.variants("SD-P") + puf.variants("P@k"), {})
    [0.5, 0.5]
    """
    return point_results(base, seed, chosen, cache, where=where).values["world"]


def point_results(
    base: Base, seed: int, chosen: Sequence[Any], cache: dict[Any, World], *, where: str = ""
) -> WorldScores:
    """What :func:`point_scores` finds, with each variant's road and the sampled estimates.

    The pairs of ``base.sample`` are drawn with the point's seed. A measure that raises is
    NaN at the point, its error in ``raised["world"]`` (one over the time limit stops the sweep).

    Returns
    -------
    puf.evaluation.roads.WorldScores
        See :func:`puf.evaluation.variant_scores`.

    Examples
    --------
    >>> import puf
    >>> found = point_results(Base(n_users=20, n_items=100, k=5, max_pairs=100), 0,
    ...                       puf.variants("SD-P") + puf.variants("PUF-P"), {})
    >>> found.values["world"][1], found.roads[1].kind  # 20 users have 190 pairs
    (nan, 'skipped')
    """
    from puf.evaluation import variant_scores

    return variant_scores(
        point_world(base, seed, cache),
        chosen,
        k=base.k,
        similarity=base.similarity,
        gamma=base.gamma,
        adjust=_reshaping(base, seed, cache),
        where=where,
        max_pairs=base.max_pairs,
        sample=base.sample,
        random_state=seed,
        raised="undefined",
    )


def observed_skewness(
    base: Base, seeds: Iterable[int], cache: dict[Any, World] | None = None, *, similarity: str = "jaccard"
) -> float:
    """Mean over seeds of the sample skewness of the base worlds' similarities (u < v).

    ``similarity`` is a name in :data:`puf.SIMILARITIES` (sim_UF at ``base.gamma``);
    the worlds' own values, whatever ``base.skewness`` says.

    Examples
    --------
    >>> round(observed_skewness(Base(n_users=20, n_items=100, k=5), [0]), 6) > -10
    True
    """
    cache = {} if cache is None else cache
    values = []
    for seed in seeds:
        matrix = point_population(base.replace(skewness=None), seed, cache, similarity=similarity).similarity
        values.append(pair_statistic(matrix, "skewness"))
    return float(np.mean(values))


def pair_statistic(matrix: NDArray[np.float64], statistic: str) -> float:
    """The mean or sample skewness of a similarity's pairs (u < v), once per frozen matrix.

    The seeds of a real dataset's sweep share one matrix: each seed would otherwise read
    its m(m−1)/2 pairs again (18 million at ML-1M).

    Examples
    --------
    >>> import numpy as np
    >>> pair_statistic(np.array([[1.0, 0.5], [0.5, 1.0]]), "mean")
    0.5
    """
    from scipy.stats import skew

    from puf.pieces import matrix_memo

    reduce = {"mean": np.mean, "skewness": skew}[statistic]
    value = matrix_memo(matrix, ("pair", statistic), lambda: reduce(matrix[np.triu_indices_from(matrix, k=1)]))
    return float(value)


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
        with the reason); and so when a measure raised at a point: road ``raised``,
        the value NaN, the error its reason.

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
                noted = limited or found.raised
                scores.append((found.values["world"], point_notes(found, chosen) if noted else None))
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
    exact = [("exact", math.nan, math.nan, "")] * len(chosen)  # a point no note was made for
    for index, value in enumerate(values):
        for seed in seeds:
            for table, (scores, notes) in zip(rows, found[seed, index]):
                table.extend(
                    (v.label, parameter, value, seed, score, *((notes or exact)[i] if told else ()))
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
