"""The interaction-level data model, from which every Population is derived."""

from __future__ import annotations

__all__ = ["World"]

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .validation import (
    check_histories,
    check_index,
    check_item_features,
    check_k,
    check_nonnegative_scalar,
    check_permutation,
    check_rankings,
    check_relevance,
)
from .derivations import Derivations
from .pieces import Pieces


def _frozen(array):
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class World(Derivations):
    """Users' histories, graded test relevance, ranked lists and item features.

    Parameters
    ----------
    histories : scipy sparse matrix or array of shape (m, n)
        Training interactions (non-zero = in u's history H_u).
    relevance : scipy sparse matrix, array or DataFrame of shape (m, n)
        Graded test relevance r_ui >= 0.
    rankings : array-like of int, shape (m, k)
        Each user's top-k list of item ids, best first; -1 pads short lists.
    item_features : array-like of shape (n, f)
        Non-negative item features (e.g. multi-hot genres), every row summing
        to more than 0; used by the JS and UF similarities.
    item_vectors : array-like of shape (n, d), optional
        Item embeddings for list distances; defaults to ``item_features``.

    Examples
    --------
    >>> import numpy as np
    >>> w = World(histories=np.array([[1, 1, 0, 0], [0, 1, 1, 0]]),
    ...           relevance=np.array([[0, 0, 1, 1], [1, 0, 0, 1]]),
    ...           rankings=np.array([[2, 3], [0, 2]]),
    ...           item_features=np.eye(4))
    >>> w.m, w.n_items, w.k
    (2, 4, 2)
    >>> pop = w.population(metric="precision", similarity="jaccard")
    >>> pop.effectiveness, pop.similarity[0, 1]
    (array([1. , 0.5]), np.float64(0.3333333333333333))
    """

    histories: sp.csr_matrix
    relevance: sp.csr_matrix
    rankings: np.ndarray
    item_features: np.ndarray
    item_vectors: np.ndarray | None = None

    def __post_init__(self) -> None:
        histories = check_histories(self.histories)
        m, n = histories.shape
        relevance = check_relevance(self.relevance, n_users=m, n_items=n)
        rankings = check_rankings(self.rankings, n_items=n)
        if rankings.shape[0] != m:
            raise ValueError(f"rankings has {rankings.shape[0]} users but histories has {m}")
        features = check_item_features(self.item_features, n_items=n)
        vectors = features if self.item_vectors is None else np.asarray(self.item_vectors, float)
        if vectors.ndim != 2 or vectors.shape[0] != n:
            raise ValueError(f"item_vectors must have shape ({n}, d), got {vectors.shape}")
        if not np.isfinite(vectors).all():
            raise ValueError("item_vectors must be finite")
        given = self.item_vectors is not None
        for name, value in (
            ("histories", histories),
            ("relevance", relevance),
            ("rankings", _frozen(rankings.copy())),
            ("item_features", _frozen(features.copy())),
            ("item_vectors", _frozen(vectors.copy())),
        ):
            object.__setattr__(self, name, value)
        # Not fields: outside equality, hash and repr. The pieces are empty again in a pickle or copy;
        # item vectors not given are the features' and follow them in replace().
        object.__setattr__(self, "_pieces", Pieces())
        object.__setattr__(self, "_vectors_given", given)

    @property
    def m(self) -> int:
        """Number of users."""
        return self.histories.shape[0]

    @property
    def n_items(self) -> int:
        """Number of items."""
        return self.histories.shape[1]

    @property
    def k(self) -> int:
        """Length of the ranked lists."""
        return self.rankings.shape[1]

    def replace(self, **changes: Any) -> World:
        """Return a validated copy with some fields replaced.

        A derived field follows its source unless given: item vectors that default to the
        item features are the new ``item_features`` when those are replaced.

        Examples
        --------
        >>> import numpy as np
        >>> w = World(np.eye(2), np.eye(2), [[0], [1]], np.eye(2))
        >>> w.replace(rankings=[[1], [0]]).rankings.tolist()
        [[1], [0]]
        """
        fields, changed = dict(changes), set(changes)
        if "item_vectors" not in changes and not self._vectors_given:
            fields["item_vectors"] = None  # the features' again: the new ones when replaced
            if "item_features" in changes:
                changed.add("item_vectors")
        new = replace(self, **fields)
        object.__setattr__(new, "_pieces", Pieces.kept_from(self._pieces, changed=changed))
        return new

    def permute(self, order: ArrayLike) -> World:
        """Relabel users: user ``i`` of the result is user ``order[i]`` of this world.

        Histories, relevance and lists move together, so every derived
        Population is this world's Population permuted the same way
        (:meth:`Population.permute`).

        Parameters
        ----------
        order : array-like of int, shape (m,)
            A permutation of ``range(m)``.

        Returns
        -------
        World

        Examples
        --------
        >>> import numpy as np
        >>> w = World(np.eye(3), np.eye(3), [[0], [1], [2]], np.eye(3))
        >>> w.permute([2, 0, 1]).rankings.ravel().tolist()
        [2, 0, 1]
        """
        order = check_permutation(order, self.m)
        return self.replace(
            histories=self.histories[order], relevance=self.relevance[order], rankings=self.rankings[order]
        )

    def replicate(self, r: int) -> World:
        """Stack ``r`` copies of the users (Dalton's population principle).

        Copy c of user u is user c·m + u. The copies share the items, so a user
        and its copies have identical histories (Jaccard 1), relevance and lists.

        Parameters
        ----------
        r : int >= 1

        Returns
        -------
        World
            With r·m users and the same items.

        Examples
        --------
        >>> import numpy as np
        >>> w = World(np.eye(2), np.eye(2), [[0], [1]], np.eye(2))
        >>> w.replicate(2).m, w.replicate(2).rankings.ravel().tolist()
        (4, [0, 1, 0, 1])
        """
        r = check_k(r, name="r")
        return self.replace(
            histories=sp.vstack([self.histories] * r, format="csr"),
            relevance=sp.vstack([self.relevance] * r, format="csr"),
            rankings=np.tile(self.rankings, (r, 1)),
        )

    def set_relevance(self, user: int, item: int, grade: float, *, allow_history: bool = False) -> World:
        """Set one relevance grade r_ui, everything else fixed.

        Parameters
        ----------
        user, item : int
        grade : float >= 0
        allow_history : bool, default False
            Real data keeps test relevance disjoint from the history, so an
            ``item`` in u's history is refused; True allows it (the property
            strategies' worlds draw histories and relevance independently).

        Returns
        -------
        World

        Raises
        ------
        ValueError
            If ``user`` or ``item`` is out of range, ``grade`` is negative, or
            ``item`` is in u's history and ``allow_history`` is False.

        Examples
        --------
        >>> import numpy as np
        >>> w = World(np.eye(2, 3), np.zeros((2, 3)), [[1], [2]], np.ones((3, 1)))
        >>> w.set_relevance(0, 1, 2.0).relevance.toarray()
        array([[0., 2., 0.],
               [0., 0., 0.]])
        >>> w.set_relevance(0, 0, 1.0)
        Traceback (most recent call last):
        ...
        ValueError: item 0 is in user 0's history; relevance must stay disjoint from it (allow_history=True allows it)
        >>> w.set_relevance(0, 0, 1.0, allow_history=True).relevance.toarray()[0].tolist()
        [1.0, 0.0, 0.0]
        """
        user = check_index(user, name="user", size=self.m, what="users")
        item = check_index(item, name="item", size=self.n_items, what="items")
        grade = check_nonnegative_scalar(grade, name="grade")
        if not allow_history and item in self.histories[user].indices:
            raise ValueError(
                f"item {item} is in user {user}'s history; relevance must stay disjoint "
                "from it (allow_history=True allows it)"
            )
        relevance = self.relevance.tolil(copy=True)
        relevance[user, item] = grade
        return self.replace(relevance=relevance.tocsr())
