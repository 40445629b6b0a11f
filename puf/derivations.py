"""What a :class:`~puf.World` derives from its fields: similarities, effectiveness, Populations.

Every derived piece is memoised in the world's :class:`~puf.pieces.Pieces`, so
several metrics, similarities or measures of one world compute each piece once,
and a world from :meth:`World.replace` keeps the pieces whose inputs it keeps.
"""

from __future__ import annotations

__all__ = ["Derivations"]

from collections.abc import Callable, Collection, Hashable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .pieces import Pieces
from .population import Population
from .validation import check_k


class Derivations:
    """The derived pieces of a :class:`~puf.World` (its base class; not used alone)."""

    # The World fields these methods read, declared for the type checker (World defines them).
    histories: Any
    relevance: Any
    rankings: Any
    item_features: Any
    item_vectors: Any
    _pieces: Pieces
    _vectors_given: bool

    def similarity(self, name: str = "jaccard", *, gamma: float | None = None) -> NDArray[np.float64]:
        """Return the (m, m) user similarity ``name`` from :data:`puf.SIMILARITIES`.

        ``gamma`` (sim_UF's weight of history overlap) defaults to the γ the
        measure reading that similarity declares (:func:`puf.declared_gamma`).

        Examples
        --------
        >>> import numpy as np
        >>> from puf import World
        >>> w = World(np.array([[1, 1], [0, 1]]), np.eye(2), [[0], [1]], np.eye(2))
        >>> w.similarity("jaccard")[0, 1]
        np.float64(0.5)
        """
        from .registry import declared_gamma
        from .similarity import compute_similarity

        gamma = declared_gamma(name) if gamma is None else gamma
        return compute_similarity(name, self.histories, item_features=self.item_features, gamma=gamma)

    def memo(self, group: str, key: Hashable, compute: Callable[[], ArrayLike]) -> NDArray[Any]:
        """A value derived from this world, computed once and shared with worlds that keep its inputs.

        Parameters
        ----------
        group : str
            A key of :data:`puf.pieces.PIECE_INPUTS`: the fields the value is
            computed from (``"users"``: histories and item features; ``"judged"``:
            rankings and relevance; ``"lists"``; ``"users_lists"``). A world from
            :meth:`replace` keeps the values of every group whose fields it keeps.
        key : hashable
            What the value is, within the group.
        compute : callable
            ``compute() -> array_like``, called on the first request only.

        Returns
        -------
        numpy.ndarray
            Read-only (worlds may share it).

        Examples
        --------
        >>> import numpy as np
        >>> from puf import World
        >>> w = World(np.eye(2), np.eye(2), [[0], [1]], np.eye(2))
        >>> float(w.memo("judged", "answer", lambda: 42.0))
        42.0
        >>> float(w.replace(histories=np.ones((2, 2))).memo("judged", "answer", lambda: 0.0))
        42.0
        """
        return self._pieces.get(group, key, compute)

    def effectiveness(self, metric: str = "ndcg", k: int | None = None) -> NDArray[np.float64]:
        """Per-user effectiveness (m,) of the lists for ``metric`` at cut-off ``k``, memoised.

        Examples
        --------
        >>> import numpy as np
        >>> from puf import World
        >>> World(np.eye(2), np.eye(2), [[0], [0]], np.eye(2)).effectiveness("precision").tolist()
        [1.0, 0.0]
        """
        from .effectiveness import get_effectiveness

        k = self._cutoff(k)
        effectiveness = get_effectiveness(metric)  # an unknown name fails before any work
        return self.memo(
            "judged", ("effectiveness", metric, k), lambda: effectiveness(self.rankings[:, :k], self.relevance, k=k)
        )

    def shared_similarity(self, name: str = "jaccard", *, gamma: float | None = None) -> NDArray[np.float64]:
        """The (m, m) similarity ``name``, memoised (read-only; see :meth:`similarity`).

        Examples
        --------
        >>> import numpy as np
        >>> from puf import World
        >>> w = World(np.array([[1, 1], [0, 1]]), np.eye(2), [[0], [1]], np.eye(2))
        >>> w.shared_similarity("jaccard") is w.shared_similarity("jaccard")
        True
        """
        from .registry import declared_gamma

        # Keyed by what the similarity reads: one that takes no gamma is one piece for every gamma.
        declared = declared_gamma(name)  # also checks the name; None: it takes no gamma
        gamma = declared if gamma is None else gamma
        return self.memo(
            "users",
            ("similarity", name, None if declared is None else gamma),
            lambda: self.similarity(name, gamma=gamma),
        )

    def _cutoff(self, k):
        k = self.k if k is None else check_k(k)
        if k > self.k:
            raise ValueError(f"k must be <= the list length {self.k}, got {k}")
        return k

    def population(
        self,
        metric: str = "ndcg",
        k: int | None = None,
        similarity: str = "jaccard",
        gamma: float | None = None,
        *,
        fields: Collection[str] = ("utility", "list_distance"),
    ) -> Population:
        """Derive the Population a measure reads.

        Each m x m piece (a similarity per name, and per gamma if it takes
        one; the utility and list distance per cut-off) and each effectiveness
        array is computed once per world and kept: asking for several metrics
        or similarities of one world, as :func:`puf.evaluation.evaluate_runs` and the sweeps
        do, computes every piece once. A world from :meth:`replace` shares the
        pieces whose inputs did not change (new relevance keeps the
        similarities and list distances).

        Parameters
        ----------
        metric : str, default "ndcg"
            Effectiveness metric, a name in :data:`puf.EFFECTIVENESS`.
        k : int, optional
            Cut-off; defaults to the list length :attr:`k`.
        similarity : str, default "jaccard"
            User similarity, a name in :data:`puf.SIMILARITIES`.
        gamma : float, optional
            Weight of history overlap in sim_UF (``similarity="uf"`` only);
            default the γ its measure declares (:func:`puf.declared_gamma`).
        fields : collection of str, default ("utility", "list_distance")
            The optional m x m fields to derive (fewer: less memory).

        Returns
        -------
        Population
            With effectiveness, similarity and the chosen ``fields`` of utility
            (phi_u(L_v)) and list_distance (d_L over ``item_vectors``).

        Examples
        --------
        >>> import numpy as np
        >>> from puf import World
        >>> w = World(np.eye(2), np.array([[0, 1], [1, 0]]), [[1], [1]], np.eye(2))
        >>> w.population(metric="precision").utility
        array([[1., 1.],
               [0., 0.]])
        >>> w.population(fields=()).utility is None
        True
        """
        from .lists import list_distance, utility_matrix

        k = self._cutoff(k)
        rankings = self.rankings[:, :k]
        effectiveness = self.effectiveness(metric, k)
        optional = {}
        if "utility" in fields:
            optional["utility"] = self.memo(
                "judged", ("utility", k), lambda: utility_matrix(rankings, self.relevance, k=k)
            )
        if "list_distance" in fields:
            optional["list_distance"] = self.memo(
                "lists", ("list_distance", k), lambda: list_distance(rankings, self.item_vectors)
            )
        return Population(
            effectiveness=effectiveness, similarity=self.shared_similarity(similarity, gamma=gamma), **optional
        )
