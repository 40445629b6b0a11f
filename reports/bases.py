"""Where sweeps start: world sources, the settings a sweep does not vary, derived fields.

A :class:`Base` names the world source (the synthetic generator, or any
callable such as real lists with artificial relevance, :mod:`reports.artificial_relevance`) and the value
of every sweep parameter (see :data:`reports.sweeps.PARAMETERS`). Each world is
drawn once per (source, share, pairing, seed), in a cache a report shares
between its sweeps (:func:`point_world`); what a measure reads there is the
world's :meth:`puf.World.population`, which memoises its pieces
(:func:`point_population`, :func:`point_scores`).
"""

from __future__ import annotations

__all__ = [
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
import numbers
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray
from puf.population import Population
from puf.world import World

if TYPE_CHECKING:
    from puf.evaluation.roads import WorldScores


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

    The pairs of ``base.sample`` are drawn with the point's seed.

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
