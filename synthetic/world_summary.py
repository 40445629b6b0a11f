"""What a synthetic World achieved: similarity and effectiveness distributions, history sizes."""

__all__ = ["summary"]

import numpy as np

from puf.effectiveness import ndcg_at_k, precision_at_k
from puf.similarity import jaccard_similarity, uf_similarity
from puf.validation import check_k

from ._checks import check_count
from ._skewness import sample_skewness
from .similarity import off_diagonal


def summary(world, *, k=None, gamma=None, max_users=2000):
    """What a World achieved: similarity and effectiveness distributions, history sizes.

    Parameters
    ----------
    world : puf.World
    k : int, optional
        Cut-off for P@k and NDCG@k; default the list length.
    gamma : float in [0, 1], optional
        Jaccard weight in sim_UF; default the γ UF declares (:func:`puf.declared_gamma`).
    max_users : int or None, default 2000
        The similarity statistics use this many evenly spaced users when there are more
        (sim_JS is O(m^2 f)); None uses everybody. Effectiveness uses every user.

    Returns
    -------
    dict of str to int or float
        Counts (int): n_users, n_items, k, history_min, history_max. Floats: jaccard_mean,
        jaccard_skewness, uf_mean, uf_skewness (over the off-diagonal pairs, each once;
        Fisher-Pearson skewness); precision_mean, precision_sd, ndcg_mean, ndcg_sd (SD with
        ddof=0); zero_share (users with P@k = 0); history_mean; relevant_mean (relevant items
        per user).

    Examples
    --------
    >>> from puf.synthetic import world
    >>> s = summary(world(40, 120, k=5, zero_relevance=0.25, random_state=1))
    >>> s["precision_mean"], s["ndcg_sd"], s["zero_share"]
    (0.75, 0.4330127018922193, 0.25)
    >>> s["n_users"], s["k"]
    (40, 5)
    >>> 0 <= s["jaccard_mean"] <= 1
    True
    """
    k = world.k if k is None else check_k(k)
    if k > world.k:
        raise ValueError(f"k must be <= the list length {world.k}, got {k}")
    precision = precision_at_k(world.rankings[:, :k], world.relevance, k=k)
    ndcg = ndcg_at_k(world.rankings[:, :k], world.relevance, k=k)
    users = slice(None)
    if max_users is not None and world.m > check_count(max_users, name="max_users", minimum=2):
        users = np.linspace(0, world.m - 1, max_users).round().astype(np.int64)
    histories = world.histories[users]
    jaccard = off_diagonal(jaccard_similarity(histories))
    if gamma is None:
        from puf.registry import declared_gamma

        gamma = declared_gamma("uf")
    blend = off_diagonal(uf_similarity(histories, world.item_features, gamma=gamma))
    sizes = np.diff(world.histories.indptr)
    return {
        "n_users": int(world.m),
        "n_items": int(world.n_items),
        "k": int(k),
        "jaccard_mean": float(jaccard.mean()),
        "jaccard_skewness": sample_skewness(jaccard),
        "uf_mean": float(blend.mean()),
        "uf_skewness": sample_skewness(blend),
        "precision_mean": float(precision.mean()),
        "precision_sd": float(precision.std()),
        "ndcg_mean": float(ndcg.mean()),
        "ndcg_sd": float(ndcg.std()),
        "zero_share": float((precision == 0).mean()),
        "history_min": int(sizes.min()),
        "history_mean": float(sizes.mean()),
        "history_max": int(sizes.max()),
        "relevant_mean": float(np.diff(world.relevance.indptr).mean()),
    }
