"""Non-personalised and neighbourhood baselines: Random, MostPop, ItemKNN, UserKNN, EASE."""

__all__ = ["EASE", "ItemKNN", "MostPop", "Random", "UserKNN"]

import numpy as np
import scipy.linalg

from ..validation import check_k, check_nonnegative_scalar
from ._base import Ranker, single_threaded_blas


class Random(Ranker):
    """Uniformly random unseen items (the floor any ranker should beat).

    Each user's scores come from a generator seeded by (seed, user), so a
    user's list does not depend on which other users are asked for.

    Examples
    --------
    >>> import numpy as np
    >>> r = Random(random_state=0).fit(np.eye(4))
    >>> bool((r.recommend(k=3) == Random(random_state=0).fit(np.eye(4)).recommend(k=3)).all())
    True
    """

    name = "random"

    def _fit(self, train):
        self.seed_ = int(self.rng_.integers(2**63 - 1))

    def _score(self, users):
        return np.stack([np.random.default_rng([self.seed_, int(u)]).random(self.n_items_)
                         for u in users]) if len(users) else np.zeros((0, self.n_items_))


class MostPop(Ranker):
    """The items most users have in their training history, for everyone.

    Examples
    --------
    >>> import numpy as np
    >>> MostPop().fit(np.array([[1, 1, 0], [0, 1, 0], [0, 0, 0]])).recommend([2], k=2).tolist()
    [[1, 0]]
    """

    name = "mostpop"

    def _fit(self, train):
        self.popularity_ = np.asarray(train.sum(axis=0)).ravel()

    def _score(self, users):
        return np.broadcast_to(self.popularity_, (len(users), self.n_items_))


def _keep_top(matrix, neighbors, axis):
    """Zero all but the ``neighbors`` largest entries along ``axis`` (in place).

    Ties at the cut are broken by index (the lower index is kept), so the
    neighbourhoods, hence the lists, are the same on every machine:
    ``np.argpartition`` alone keeps an arbitrary subset of tied entries.

    Examples
    --------
    >>> _keep_top(np.array([[0.5, 0.2, 0.5, 0.5, 0.9]]), 3, axis=1)
    array([[0.5, 0. , 0.5, 0. , 0.9]])
    """
    if neighbors is None or neighbors >= matrix.shape[axis]:
        return matrix
    kth = np.take(-np.partition(-matrix, neighbors - 1, axis=axis), [neighbors - 1], axis=axis)
    above = matrix > kth
    tied = matrix == kth
    room = neighbors - above.sum(axis=axis, keepdims=True)
    keep = above | (tied & (np.cumsum(tied, axis=axis) <= room))
    matrix[~keep] = 0.0
    return matrix


class ItemKNN(Ranker):
    """Item-based k-nearest neighbours with cosine similarity.

    score(u, j) = Σ_{i ∈ H_u} s(i, j), where s is the cosine between item
    columns, shrunk as co / (|i| |j| + shrink), diagonal zero, and only each
    target item's ``neighbors`` most similar items kept.

    Parameters
    ----------
    neighbors : int or None, default 200
        Neighbourhood size per item (None: all).
    shrink : float, default 0.0
        Added to the cosine's denominator.

    Examples
    --------
    >>> import numpy as np
    >>> train = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 0]])
    >>> ItemKNN().fit(train).recommend([2], k=1).tolist()
    [[1]]
    """

    name = "itemknn"

    def __init__(self, *, neighbors=200, shrink=0.0, random_state=None):
        super().__init__(random_state=random_state)
        self.neighbors = neighbors
        self.shrink = shrink

    def _fit(self, train):
        neighbors = None if self.neighbors is None else check_k(self.neighbors, name="neighbors")
        shrink = check_nonnegative_scalar(self.shrink, name="shrink")
        co = (train.T @ train).toarray()
        norms = np.sqrt(np.diag(co))
        denominator = np.outer(norms, norms) + shrink
        similarity = np.divide(co, denominator, out=np.zeros_like(co), where=denominator > 0)
        np.fill_diagonal(similarity, 0.0)
        self.similarity_ = _keep_top(similarity, neighbors, axis=0)

    def _score(self, users):
        return self.train_[users] @ self.similarity_


class UserKNN(Ranker):
    """User-based k-nearest neighbours with cosine similarity.

    score(u, j) = Σ_{v ∈ N_k(u)} s(u, v)·x_vj over u's ``neighbors`` most
    cosine-similar other users.

    Parameters
    ----------
    neighbors : int or None, default 50
        Neighbourhood size (None: all users).
    shrink : float, default 0.0
        Added to the cosine's denominator.

    Examples
    --------
    >>> import numpy as np
    >>> train = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1]])
    >>> UserKNN(neighbors=1).fit(train).recommend([0], k=1).tolist()
    [[2]]
    """

    name = "userknn"

    def __init__(self, *, neighbors=50, shrink=0.0, random_state=None):
        super().__init__(random_state=random_state)
        self.neighbors = neighbors
        self.shrink = shrink

    def _fit(self, train):
        self.neighbors_ = None if self.neighbors is None else check_k(self.neighbors,
                                                                        name="neighbors")
        self.shrink_ = check_nonnegative_scalar(self.shrink, name="shrink")
        self.norms_ = np.sqrt(np.asarray(train.sum(axis=1)).ravel())

    def _score(self, users):
        co = (self.train_[users] @ self.train_.T).toarray()
        denominator = np.outer(self.norms_[users], self.norms_) + self.shrink_
        similarity = np.divide(co, denominator, out=np.zeros_like(co), where=denominator > 0)
        similarity[np.arange(len(users)), users] = 0.0
        _keep_top(similarity, self.neighbors_, axis=1)
        return np.asarray((self.train_.T @ similarity.T).T)


class EASE(Ranker):
    """Embarrassingly Shallow Autoencoder (Steck, 2019), closed form.

    B = I − P·diag(1/diag(P)) with P = (XᵀX + λI)⁻¹, so diag(B) = 0;
    score = X·B.

    Parameters
    ----------
    l2 : float, default 500.0
        The ridge penalty λ (500 suits ML-100K's ~1,200 items after 5-core).

    Examples
    --------
    >>> import numpy as np
    >>> train = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 0]])
    >>> EASE(l2=1.0).fit(train).recommend([2], k=1).tolist()
    [[1]]
    """

    name = "ease"

    def __init__(self, *, l2=500.0, random_state=None):
        super().__init__(random_state=random_state)
        self.l2 = l2

    def _fit(self, train):
        l2 = check_nonnegative_scalar(self.l2, name="l2")
        gram = (train.T @ train).toarray()
        gram[np.diag_indices_from(gram)] += l2
        try:
            with single_threaded_blas():
                precision = scipy.linalg.inv(gram, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            # Only l2 = 0 can get here: with l2 > 0, XᵀX + λI is positive definite.
            raise ValueError(f"l2={l2:g} leaves XᵀX + l2·I singular (an item nobody has, or two "
                             "items with the same users); use l2 > 0") from None
        weights = precision / (-np.diag(precision))
        np.fill_diagonal(weights, 0.0)
        self.weights_ = weights

    def _score(self, users):
        return self.train_[users] @ self.weights_
