"""Score measure variants on a World: the one road from a world to the numbers a study shows.

``puf evaluate`` (:func:`puf.evaluation.evaluate_runs`) and the report's sweeps
both score their variants here: each variant reads the Population that
:meth:`puf.World.population` derives for its metric and similarity, and the
World memoises the m x m pieces, so several metrics and similarities of one
world cost one similarity, one utility and one list distance each.
"""

__all__ = ["DEFAULT_SIMILARITY", "study_similarity", "score_variants"]

from ..variant import METRICS

DEFAULT_SIMILARITY = "jaccard"
"""What a variant reads as similarity unless it declares its own (UF declares sim_UF)."""
# The metric whose Population serves the variants that read no effectiveness (UF, ME, ...):
# any metric would do; NDCG is one the default studies compute anyway.
_ANY_METRIC = "NDCG"


def study_similarity(variant, default=DEFAULT_SIMILARITY):
    """The similarity name a variant reads in a study whose own default is ``default``.

    A variant declaring the study default (Jaccard, or None) reads ``default``
    (e.g. sim_UF in the report's γ sweep); one declaring another similarity
    (UF's ``"uf"``) keeps it.

    Parameters
    ----------
    variant : puf.Variant
    default : str, default "jaccard"
        A name in :data:`puf.SIMILARITIES`.

    Returns
    -------
    str

    Examples
    --------
    >>> import puf
    >>> study_similarity(puf.variants("PUF-P")[0]), study_similarity(puf.variants("UF")[0])
    ('jaccard', 'uf')
    >>> study_similarity(puf.variants("PUF-P")[0], "uf")
    'uf'
    """
    own = getattr(variant, "similarity", None) or DEFAULT_SIMILARITY
    return default if own == DEFAULT_SIMILARITY else own


def score_variants(world, chosen, *, k=None, similarity=DEFAULT_SIMILARITY, gamma=None,
                   adjust=None, where="", memory=None):
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
        ``adjust(population, similarity_name) -> Population``, applied to each
        Population before it is read (e.g. a sweep reshaping the similarity).
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
    With ``adjust``, one Population is built per (metric, similarity) the
    variants read, and dropped once they are scored.

    Examples
    --------
    >>> import numpy as np, puf
    >>> w = puf.World(np.array([[1, 1, 0], [0, 1, 1]]), np.array([[0, 0, 1], [1, 0, 0]]),
    ...               [[2], [1]], np.eye(3))
    >>> score_variants(w, puf.variants("SD-P") + puf.variants("PUF-P"))  # J = 1/3
    [0.5, 0.3333333333333333]
    """
    if adjust is None:
        from .planner import DEFAULT_MEMORY
        from .roads import score_worlds

        return score_worlds({"world": world}, chosen, k=k, similarity=similarity, gamma=gamma,
                            memory=DEFAULT_MEMORY if memory is None else memory,
                            where=where).values["world"]
    groups = {}
    for index, variant in enumerate(chosen):
        own = gamma if gamma is not None else getattr(variant, "gamma", None)
        key = (variant.metric or _ANY_METRIC, study_similarity(variant, similarity), own)
        groups.setdefault(key, []).append(index)
    values = [None] * len(chosen)
    for (metric, name, own), indices in groups.items():
        options = {} if own is None else {"gamma": own}
        population = world.population(metric=METRICS[metric], k=k, similarity=name, **options)
        if adjust is not None:
            population = adjust(population, name)
        fields = population.fields()
        for index in indices:
            values[index] = _score(chosen[index], fields, where)
    return values


def _score(variant, fields, where):
    try:
        return variant(fields)
    except Warning:  # a warning turned into an error is the caller's to see as is
        raise
    except Exception as exc:  # name the measure (and where): the caller may know neither
        raise ValueError(f"measure {variant.label} failed{where}: {type(exc).__name__}: {exc}") from exc
