"""Where sweeps start: world sources, the settings a sweep does not vary, derived fields.

A :class:`Base` names the world source (the synthetic generator, or any
callable such as real lists with :func:`artificial_relevance`) and the value
of every sweep parameter (see :data:`reports.sweeps.PARAMETERS`). Each world is
drawn and its fields (effectiveness per metric, Jaccard and JS similarity,
utility, list distance) derived once per (source, share, seed), in a cache a
report shares between its sweeps.
"""

__all__ = ["Base", "artificial_relevance", "RelabelledWorlds", "observed_skewness", "point_fields"]

from dataclasses import dataclass, replace

import numpy as np

from .variants import METRICS


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
        What every measure but UF reads as similarity.
    worlds : callable, optional
        ``worlds(*, zero_relevance, pairing, random_state) -> puf.World``, another world
        source (e.g. :func:`artificial_relevance` on real lists); default
        :func:`synthetic.world` with ``n_users, n_items, k, **world_options``.
    world_options : tuple of (str, value) pairs
        Extra keywords for :func:`synthetic.world` (a tuple keeps Base hashable).
    name : str, default "synthetic"
        Names the data in the report.

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
    gamma: float = 0.5
    pairing: str = "random"
    skewness_mean: str = "fixed"
    similarity: str = "jaccard"
    worlds: object = None
    world_options: tuple = ()
    name: str = "synthetic"

    def __post_init__(self):
        from puf.validation import check_k, check_unit_scalar

        check_k(self.n_users, name="n_users"), check_k(self.n_items, name="n_items"), check_k(self.k)
        check_unit_scalar(self.zero_relevance, name="zero_relevance")
        check_unit_scalar(self.gamma, name="gamma")
        if self.skewness is not None and not np.isfinite(self.skewness):
            raise ValueError(f"skewness must be a finite number or None, got {self.skewness!r}")
        if self.pairing not in ("random", "most_fair", "most_unfair"):
            raise ValueError(f"pairing must be one of 'random', 'most_fair', 'most_unfair', got {self.pairing!r}")
        if self.skewness_mean not in ("fixed", "free"):
            raise ValueError(f"skewness_mean must be 'fixed' or 'free', got {self.skewness_mean!r}")
        if self.similarity not in ("jaccard", "uf"):
            raise ValueError(f"similarity must be 'jaccard' or 'uf', got {self.similarity!r}")

    def replace(self, **changes):
        """Return a validated copy with some settings changed.

        Examples
        --------
        >>> Base().replace(skewness=2.0).skewness
        2.0
        """
        return replace(self, **changes)

    def world(self, *, zero_relevance, pairing="random", random_state):
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
        return synthetic.world(self.n_users, self.n_items, k=self.k, zero_relevance=zero_relevance,
                               pairing=pairing, random_state=random_state, **dict(self.world_options))


def artificial_relevance(world, fraction, *, pairing="random", similarity=None, random_state=None):
    """Relabel relevance, as the PUF paper does on real data: a share with none listed, the rest all.

    Parameters
    ----------
    world : puf.World
        Histories, lists and features are kept.
    fraction : float in [0, 1]
        Exactly ``round(fraction * m)`` users, drawn at random, keep their own
        relevant items except those in their list (P@k = NDCG@k = 0); every
        other user gets every listed item relevant besides its own (P@k =
        NDCG@k = 1 for a full list). Grades become binary.
    pairing : {"random", "most_fair", "most_unfair"}, default "random"
        Which users are the zero ones: drawn at random, or chosen by
        :func:`synthetic.pair` on the histories' Jaccard similarity so that
        similar users have equal (fair) or unequal (unfair) effectiveness.
    similarity : array-like of shape (m, m), optional
        What the pairing reads; default the histories' Jaccard.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    puf.World

    Examples
    --------
    >>> import numpy as np, puf
    >>> w = puf.World(np.eye(4), np.eye(4), [[1], [2], [3], [0]], np.eye(4))
    >>> puf.precision_at_k(artificial_relevance(w, 0.5, random_state=0).rankings,
    ...                    artificial_relevance(w, 0.5, random_state=0).relevance).sum()
    np.float64(2.0)
    """
    import scipy.sparse as sp

    from puf.validation import check_random_state, check_unit_scalar

    fraction = check_unit_scalar(fraction, name="fraction")
    m, n = world.m, world.n_items
    rng = check_random_state(random_state)
    zero = np.zeros(m, dtype=bool)
    zero[rng.permutation(m)[:round(fraction * m)]] = True
    if pairing != "random" and 0 < zero.sum() < m:
        from puf import synthetic
        similarity = world.similarity("jaccard") if similarity is None else similarity
        zero = synthetic.pair(np.where(zero, 0.0, 1.0), similarity, mode=pairing, random_state=rng) == 0.0
    listed = world.rankings >= 0
    rows = np.broadcast_to(np.arange(m)[:, None], listed.shape)[listed]
    lists = sp.csr_matrix((np.ones(rows.size), (rows, world.rankings[listed])), shape=(m, n))
    own = (world.relevance > 0).astype(np.float64)
    overlap = own.multiply(lists)
    relevance = (sp.diags((~zero).astype(np.float64)) @ (own + lists - overlap)
                 + sp.diags(zero.astype(np.float64)) @ (own - overlap))
    relevance = sp.csr_matrix(relevance)
    relevance.eliminate_zeros()
    return world.replace(relevance=relevance)


class RelabelledWorlds:
    """World source over one fixed world (e.g. real histories and a ranker's lists).

    Each call relabels its relevance with :func:`artificial_relevance`, so the
    sweeps can vary the zero-relevance share and the pairing on real data.

    Examples
    --------
    >>> w = Base(n_users=20, n_items=100, k=5).world(zero_relevance=0.0, random_state=0)
    >>> source = RelabelledWorlds(w)
    >>> base = Base(n_users=20, n_items=100, k=5, worlds=source, name="fixed")
    >>> base.world(zero_relevance=0.5, pairing="most_fair", random_state=0).m
    20
    """

    def __init__(self, world):
        self.world = world
        self._jaccard = None

    def __call__(self, *, zero_relevance, pairing="random", random_state=None):
        if pairing != "random" and self._jaccard is None:
            self._jaccard = self.world.similarity("jaccard")  # once, not per sweep point
        return artificial_relevance(self.world, zero_relevance, pairing=pairing,
                                    similarity=self._jaccard, random_state=random_state)


def observed_skewness(base, seeds, cache=None):
    """Mean over seeds of the sample skewness of the base worlds' Jaccard similarities (u < v).

    Examples
    --------
    >>> round(observed_skewness(Base(n_users=20, n_items=100, k=5), [0]), 6) > -10
    True
    """
    from scipy.stats import skew

    cache = {} if cache is None else cache
    values = []
    for seed in seeds:
        jaccard = _world_fields(base, seed, cache)["jaccard"]
        values.append(skew(jaccard[np.triu_indices_from(jaccard, k=1)]))
    return float(np.mean(values))


def _blend(jaccard, js, gamma):
    # Same arithmetic as puf.uf_similarity, on matrices computed once per world.
    if gamma == 1.0:
        return jaccard
    if gamma == 0.0:
        return js
    return np.clip(gamma * jaccard + (1.0 - gamma) * js, 0.0, 1.0)


def _world_fields(base, seed, cache):
    """Everything derived from one world, computed once per (world source, share, seed)."""
    from puf import EFFECTIVENESS, list_distance, utility_matrix

    key = (base.replace(skewness=None, skewness_mean="fixed", gamma=0.0, similarity="jaccard"), seed)
    if key not in cache:
        world = base.world(zero_relevance=base.zero_relevance, pairing=base.pairing, random_state=seed)
        rankings, relevance = world.rankings[:, :base.k], world.relevance
        # Worlds of one seed often share histories and lists (only relevance differs along a
        # zero-relevance sweep): key the m x m pieces by content so they are computed once.
        people = _digest(world.histories.indptr, world.histories.indices, world.item_features)
        lists = _digest(rankings, world.item_vectors)
        cache[key] = {
            "effectiveness": {m: EFFECTIVENESS[METRICS[m]](rankings, relevance, k=base.k) for m in ("P", "NDCG")},
            "jaccard": _memo(cache, ("jaccard", people), lambda: world.similarity("jaccard")),
            "js": _memo(cache, ("js", people), lambda: world.similarity("js")),
            "utility": utility_matrix(rankings, relevance, k=base.k),
            "list_distance": _memo(cache, ("list_distance", lists),
                                   lambda: list_distance(rankings, world.item_vectors)),
            "world": world,
        }
    return cache[key]


def _digest(*arrays):
    import hashlib

    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _memo(cache, key, compute):
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def _effectiveness(entry, metric, base):
    if metric not in entry["effectiveness"]:
        from puf import EFFECTIVENESS

        world = entry["world"]
        entry["effectiveness"][metric] = EFFECTIVENESS[METRICS[metric]](
            world.rankings[:, :base.k], world.relevance, k=base.k)
    return entry["effectiveness"][metric]


def point_fields(base, seed, cache):
    """Return ``fields(variant) -> dict`` for one sweep point: the arrays the variant reads.

    Examples
    --------
    >>> from puf.reports.variants import variants
    >>> fields = point_fields(Base(n_users=20, n_items=100, k=5), 0, {})
    >>> sorted(fields(variants("PUF-P")[0]))
    ['effectiveness', 'list_distance', 'similarity', 'utility']
    """
    from puf import synthetic
    entry = _world_fields(base, seed, cache)
    sims = {}

    def similarity(name):
        if name not in sims:
            sim = entry["jaccard"] if name == "jaccard" else _blend(entry["jaccard"], entry["js"], base.gamma)
            if base.skewness is not None and base.skewness_mean == "free":
                sim = synthetic.power_skewness(sim, skewness=base.skewness)
            elif base.skewness is not None:
                sim = synthetic.reshape_skewness(sim, skewness=base.skewness, random_state=seed)
            sims[name] = sim
        return sims[name]

    def fields(variant):
        name = base.similarity if variant.similarity == "jaccard" else variant.similarity  # UF declares sim_UF
        out = {"similarity": similarity(name), "utility": entry["utility"],
               "list_distance": entry["list_distance"]}
        if variant.metric is not None:
            out["effectiveness"] = _effectiveness(entry, variant.metric, base)
        return out

    return fields
