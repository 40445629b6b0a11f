"""Score measure variants on a World: the one road from a world to the numbers a study shows.

``puf evaluate`` (:func:`puf.evaluation.evaluate_runs`) and the report's sweeps
both score their variants along the roads of :mod:`puf.evaluation.planner`
(:func:`puf.evaluation.roads.score_worlds`): what each variant reads is what
:meth:`puf.World.population` derives for its metric and similarity, and the
World memoises every piece and engine value, so several metrics and measures of
one world cost one similarity, one pair pass and one envy pass.
"""

from __future__ import annotations

__all__ = ["score_variants", "variant_scores"]

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..variant import Variant
from ..world import World
from .planner import DEFAULT_SIMILARITY, study_similarity

if TYPE_CHECKING:
    from .roads import WorldScores


def score_variants(
    world: World,
    chosen: Sequence[Variant],
    *,
    k: int | None = None,
    similarity: str = DEFAULT_SIMILARITY,
    gamma: float | None = None,
    adjust: Callable[..., Any] | None = None,
    where: str = "",
    memory: int | None = None,
) -> list[float]:
    """Each variant's value on ``world``, through :meth:`puf.World.population`.

    Parameters
    ----------
    world : puf.World
    chosen : sequence of puf.Variant
        E.g. :func:`puf.variants`.
    k : int, optional
        Cut-off; default the world's list length.
    similarity : str, default "jaccard"
        The study's default similarity (see :func:`study_similarity`).
    gamma : float in [0, 1], optional
        The study's γ (sim_UF's weight of shared history), for every variant
        whose similarity takes one; default each variant's own ``gamma``
        (:class:`puf.Variant`), or :meth:`puf.World.population`'s default
        when it declares none.
    adjust : callable, optional
        ``adjust(similarity, similarity_name) -> similarity``: the (m, m)
        matrix it returns is what every variant reading that similarity reads
        (e.g. a sweep reshaping it to a skewness).
    where : str
        Appended to ``"measure LABEL failed"`` when a measure raises
        (e.g. ``" on run 'ease'"``).

    Returns
    -------
    list of float
        In the order of ``chosen``; NaN (with :class:`puf.UndefinedMeasureWarning`)
        where a measure is undefined.

    Raises
    ------
    ValueError
        A measure raised: the message names it, ``where`` and the error.

    Notes
    -----
    ``adjust`` is applied once per similarity the variants read; every road
    reading that similarity then reads the adjusted matrix.

    Examples
    --------
    >>> import numpy as np, puf
    >>> w = puf.World(np.array([[1, 1, 0], [0, 1, 1]]), np.array([[0, 0, 1], [1, 0, 0]]),
    ...               [[2], [1]], np.eye(3))
    >>> score_variants(w, puf.variants("SD-P") + puf.variants("PUF-P"))  # J = 1/3
    [0.5, 0.3333333333333333]
    """
    return variant_scores(
        world, chosen, k=k, similarity=similarity, gamma=gamma, adjust=adjust, where=where, memory=memory
    ).values["world"]


def variant_scores(
    world: World,
    chosen: Sequence[Variant],
    *,
    k: int | None = None,
    similarity: str = DEFAULT_SIMILARITY,
    gamma: float | None = None,
    adjust: Callable[..., Any] | None = None,
    where: str = "",
    memory: int | None = None,
    max_pairs: int | None = None,
    sample: int | None = None,
    random_state: int | np.random.Generator | None = 0,
) -> WorldScores:
    """What :func:`score_variants` finds, with each variant's road and the sampled estimates.

    Parameters
    ----------
    world, chosen, k, similarity, gamma, adjust, where, memory
        As in :func:`score_variants`.
    max_pairs : int, optional
        Skip the exact roads over all m(m−1)/2 user pairs when there are more
        pairs than this (:func:`puf.evaluation.planner.plan_roads`); default no limit.
    sample : int, optional
        Estimate every pair measure (and UF) from ``sample`` drawn pairs, with a 95% interval.
    random_state : int, default 0
        Seed of the drawn pairs (``sample`` only).

    Returns
    -------
    puf.evaluation.roads.WorldScores
        ``values["world"]`` (NaN where skipped), ``estimates["world"]`` (variant
        label -> :class:`puf.engines.PairEstimate`) and ``roads`` (each variant's
        road, with the reason where it is ``"skipped"``).

    Examples
    --------
    >>> import numpy as np, puf
    >>> w = puf.World(np.array([[1, 1, 0], [0, 1, 1]]), np.array([[0, 0, 1], [1, 0, 0]]),
    ...               [[2], [1]], np.eye(3))
    >>> found = variant_scores(w, puf.variants("SD-P") + puf.variants("PUF-P"), max_pairs=1)
    >>> found.values["world"], [road.kind for road in found.roads]  # 2 users: 1 pair
    ([0.5, 0.3333333333333333], ['effectiveness', 'pairs'])
    >>> w3 = puf.World(np.eye(3), np.eye(3), [[0], [1], [2]], np.eye(3))  # 3 users: 3 pairs
    >>> found = variant_scores(w3, puf.variants("SD-P") + puf.variants("PUF-P"), max_pairs=2)
    >>> found.values["world"][0], found.roads[1].kind
    (0.0, 'skipped')
    >>> print(found.roads[1].reason)  # doctest: +NORMALIZE_WHITESPACE
    its exact road reads all 3 user pairs, more than max_pairs = 2; sample=N (--sample N) estimates it
    from N drawn pairs
    >>> found = variant_scores(w3, puf.variants("PUF-P"), max_pairs=2, sample=100)
    >>> found.roads[0].kind, found.estimates["world"]["PUF-P"].n_pairs
    ('sample', 100)
    """
    from ..validation import check_similarity
    from .roads import score_worlds, study_gamma

    overrides = {}
    for variant in chosen if adjust is not None else ():
        name = study_similarity(variant, similarity)
        own = study_gamma(variant, gamma, name)
        if adjust is not None and (name, own) not in overrides and ("similarity" in variant.measure.reads):
            overrides[name, own] = check_similarity(adjust(world.shared_similarity(name, gamma=own), name), m=world.m)
    return score_worlds(
        {"world": world},
        chosen,
        k=k,
        similarity=similarity,
        gamma=gamma,
        memory=memory,
        where=where,
        similarities=overrides,
        max_pairs=max_pairs,
        sample=sample,
        random_state=random_state,
    )
