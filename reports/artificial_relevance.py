"""Real lists as a sweep's world source: relevance relabelled as the PUF paper does on real data.

:func:`artificial_relevance` gives a share of users no relevant listed item and
the rest every listed item; :class:`RelabelledWorlds` turns one fixed world
(real histories and a ranker's lists) into the ``worlds`` source of a
:class:`reports.sweeps.Base`, so the sweeps can vary the share and the pairing
on real data.
"""

from __future__ import annotations

__all__ = ["artificial_relevance", "RelabelledWorlds"]

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from puf.world import World

if TYPE_CHECKING:
    from puf.synthetic import PairingSearch


def artificial_relevance(
    world: World,
    fraction: float,
    *,
    pairing: str = "random",
    similarity: ArrayLike | PairingSearch | None = None,
    random_state: int | np.random.Generator | None = None,
) -> World:
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
    similarity : array-like of shape (m, m) or synthetic.PairingSearch, optional
        What the pairing reads; default the histories' Jaccard. A
        :class:`synthetic.PairingSearch` on it gives the same users and keeps its
        pieces between calls (:class:`RelabelledWorlds` holds one).
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
    zero[rng.permutation(m)[: round(fraction * m)]] = True
    if pairing != "random" and 0 < zero.sum() < m:
        from puf.synthetic import PairingSearch

        similarity = world.shared_similarity("jaccard") if similarity is None else similarity
        search = similarity if isinstance(similarity, PairingSearch) else PairingSearch(similarity)
        values = np.where(zero, 0.0, 1.0)  # synthetic.pair's values: the zero users are where it puts 0
        zero = values[search(values, mode=pairing, random_state=rng)] == 0.0
    listed = world.rankings >= 0
    rows = np.broadcast_to(np.arange(m)[:, None], listed.shape)[listed]
    lists = sp.csr_matrix((np.ones(rows.size), (rows, world.rankings[listed])), shape=(m, n))
    own = (world.relevance > 0).astype(np.float64)
    overlap = own.multiply(lists)
    relevance = sp.diags((~zero).astype(np.float64)) @ (own + lists - overlap) + sp.diags(zero.astype(np.float64)) @ (
        own - overlap
    )
    relevance = sp.csr_matrix(relevance)
    relevance.eliminate_zeros()
    return world.replace(relevance=relevance)


class RelabelledWorlds:
    """World source over one fixed world (e.g. real histories and a ranker's lists).

    Each call relabels its relevance with :func:`artificial_relevance`, so the
    sweeps can vary the zero-relevance share and the pairing on real data.

    Examples
    --------
    >>> from puf.reports.sweeps import Base
    >>> w = Base(n_users=20, n_items=100, k=5).world(zero_relevance=0.0, random_state=0)
    >>> source = RelabelledWorlds(w)
    >>> base = Base(n_users=20, n_items=100, k=5, worlds=source, name="fixed")
    >>> base.world(zero_relevance=0.5, pairing="most_fair", random_state=0).m
    20
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self._pairing: PairingSearch | None = None

    def __call__(
        self, *, zero_relevance: float, pairing: str = "random", random_state: int | np.random.Generator | None = None
    ) -> World:
        if pairing != "random" and self._pairing is None:
            from puf.synthetic import PairingSearch

            # Once, not per sweep point: the world's own Jaccard (the one its sweeps read), checked
            # once, its spectral orders and each search kept (a sweep's seeds share their searches).
            self._pairing = PairingSearch(self.world.shared_similarity("jaccard"))
        return artificial_relevance(
            self.world, zero_relevance, pairing=pairing, similarity=self._pairing, random_state=random_state
        )
