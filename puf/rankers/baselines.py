"""Non-personalised and neighbourhood baselines: Random, MostPop, ItemKNN, UserKNN, EASE."""

from __future__ import annotations

__all__ = ["EASE", "ItemKNN", "MostPop", "Random", "UserKNN", "sparse_neighbourhoods"]

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ..memory import dense_bytes
from ..parallel import usable_cores
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
        return (
            np.stack([np.random.default_rng([self.seed_, int(u)]).random(self.n_items_) for u in users])
            if len(users)
            else np.zeros((0, self.n_items_))
        )


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
        self.order_ = np.argsort(-self.popularity_, kind="stable")  # ties to the lower item id
        self.rank_ = np.empty(self.n_items_, dtype=np.int64)
        self.rank_[self.order_] = np.arange(self.n_items_)

    def _score(self, users):
        return np.broadcast_to(self.popularity_, (len(users), self.n_items_))

    def _batch_top(self, batch, seen, width):
        # Everyone's scores are the one popularity order: a user's list is its first unseen items,
        # found among the first width + |seen| ranks, instead of a sort of n scores per user.
        seen = seen.tocsr()
        span = min(self.n_items_, width + int(np.diff(seen.indptr).max(initial=0)))
        rows = np.repeat(np.arange(len(batch)), np.diff(seen.indptr))
        ranks = self.rank_[seen.indices]
        blocked = np.zeros((len(batch), span), dtype=bool)
        blocked[rows[ranks < span], ranks[ranks < span]] = True
        first = np.argsort(blocked, axis=1, kind="stable")[:, :width]  # the unblocked ranks, in order
        top = self.order_[first]
        top[np.take_along_axis(blocked, first, axis=1)] = -1
        return top


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


# Dense similarity blocks of at most this many entries (4 float64 temporaries: ~1 GB).
_BLOCK_ENTRIES = 1 << 25


def _top_neighbours(rows, others, norms_rows, norms_others, shrink, neighbors, offset):
    """Sparse (len(rows), len(others)) cosine similarities, each row's ``neighbors`` largest kept.

    ``rows`` and ``others`` are CSR matrices whose rows are the vectors compared;
    row r of ``rows`` is vector ``offset + r`` of ``others`` (its own similarity is 0).
    """
    co = (rows @ others.T).toarray()
    denominator = np.outer(norms_rows, norms_others) + shrink
    similarity = np.divide(co, denominator, out=np.zeros_like(co), where=denominator > 0)
    del co, denominator
    own = np.arange(rows.shape[0])
    similarity[own, own + offset] = 0.0
    return sp.csr_matrix(_keep_top(similarity, neighbors, axis=1))


def sparse_neighbourhoods(vectors: sp.csr_matrix, neighbors: int, shrink: float) -> sp.csr_matrix:
    """Each row's ``neighbors`` most cosine-similar other rows of ``vectors``, as sparse rows.

    The similarity is co / (|a| |b| + shrink) between the rows of ``vectors``
    (CSR), computed in blocks of rows, so no square dense matrix is built:
    memory O(block · rows + rows · neighbors). Ties at the cut keep the lower
    index, as :func:`_keep_top`.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> vectors = sp.csr_matrix(np.array([[1.0, 1, 0], [1, 1, 0], [1, 0, 1]]))
    >>> sparse_neighbourhoods(vectors, 1, 0.0).toarray().round(3)
    array([[0. , 1. , 0. ],
           [1. , 0. , 0. ],
           [0.5, 0. , 0. ]])
    """
    vectors = sp.csr_matrix(vectors)
    size = vectors.shape[0]
    norms = np.sqrt(np.asarray(vectors.multiply(vectors).sum(axis=1)).ravel())
    # One block per core at a time (scipy's sparse product and numpy's partition release the
    # GIL), each a core's share of the memory bound; blocks are stacked in order.
    threads = usable_cores()
    step = max(1, _BLOCK_ENTRIES // threads // max(size, 1))

    def block(r0):
        return _top_neighbours(vectors[r0 : r0 + step], vectors, norms[r0 : r0 + step], norms, shrink, neighbors, r0)

    with ThreadPoolExecutor(threads) as pool:
        blocks = list(pool.map(block, range(0, size, step)))
    return sp.vstack(blocks, format="csr") if blocks else sp.csr_matrix((0, 0))


class ItemKNN(Ranker):
    """Item-based k-nearest neighbours with cosine similarity.

    score(u, j) = Σ_{i ∈ H_u} s(i, j), where s is the cosine between item
    columns, shrunk as co / (|i| |j| + shrink), diagonal zero, and only each
    target item's ``neighbors`` most similar items kept. The neighbourhoods
    are sparse (:func:`sparse_neighbourhoods`): no n x n dense matrix.

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
    threaded_batches = True

    def __init__(
        self, *, neighbors: int = 200, shrink: float = 0.0, random_state: int | np.random.Generator | None = None
    ) -> None:
        super().__init__(random_state=random_state)
        self.neighbors = neighbors
        self.shrink = shrink

    def _fit(self, train):
        neighbors = None if self.neighbors is None else check_k(self.neighbors, name="neighbors")
        shrink = check_nonnegative_scalar(self.shrink, name="shrink")
        # Row j of the neighbourhoods holds target item j's neighbours i: s(i, j) is its column.
        self.similarity_ = sparse_neighbourhoods(sp.csr_matrix(train.T), neighbors, shrink).T.tocsr()

    def _score(self, users):
        return (self.train_[users] @ self.similarity_).toarray()


class UserKNN(Ranker):
    """User-based k-nearest neighbours with cosine similarity.

    score(u, j) = Σ_{v ∈ N_k(u)} s(u, v)·x_vj over u's ``neighbors`` most
    cosine-similar other users, kept as sparse rows (:func:`sparse_neighbourhoods`):
    no m x m dense matrix.

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
    threaded_batches = True

    def __init__(
        self, *, neighbors: int = 50, shrink: float = 0.0, random_state: int | np.random.Generator | None = None
    ) -> None:
        super().__init__(random_state=random_state)
        self.neighbors = neighbors
        self.shrink = shrink

    def _fit(self, train):
        self.neighbors_ = None if self.neighbors is None else check_k(self.neighbors, name="neighbors")
        self.shrink_ = check_nonnegative_scalar(self.shrink, name="shrink")
        self.similarity_ = sparse_neighbourhoods(train, self.neighbors_, self.shrink_)

    def _score(self, users):
        return (self.similarity_[users] @ self.train_).toarray()


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

    def __init__(self, *, l2: float = 500.0, random_state: int | np.random.Generator | None = None) -> None:
        super().__init__(random_state=random_state)
        self.l2 = l2

    def dense_pieces(self, n_users: int, n_items: int) -> tuple[int, str]:
        """The Gram matrix, its inverse and the weights: three dense n x n arrays at the peak."""
        return dense_bytes(n_items, copies=3), f"three dense {n_items:,} x {n_items:,} item x item matrices"

    def _fit(self, train):
        l2 = check_nonnegative_scalar(self.l2, name="l2")
        gram = (train.T @ train).toarray()
        gram[np.diag_indices_from(gram)] += l2
        try:
            with single_threaded_blas():
                precision = scipy.linalg.inv(gram, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            # Only l2 = 0 can get here: with l2 > 0, XᵀX + λI is positive definite.
            raise ValueError(
                f"l2={l2:g} leaves XᵀX + l2·I singular (an item nobody has, or two "
                "items with the same users); use l2 > 0"
            ) from None
        weights = precision / (-np.diag(precision))
        np.fill_diagonal(weights, 0.0)
        self.weights_ = weights

    def _score(self, users):
        return self.train_[users] @ self.weights_
