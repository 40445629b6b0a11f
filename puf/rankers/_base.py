"""The Ranker interface: fit on training histories, recommend top-k unseen items."""

from __future__ import annotations

__all__ = ["Ranker", "single_threaded_blas", "top_k_items"]

import contextlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..arrays import MatrixLike
from ..parallel import usable_cores
from ..validation import check_histories, check_k, check_random_state


def single_threaded_blas() -> contextlib.AbstractContextManager[Any]:
    """Context manager limiting BLAS to one thread when threadpoolctl is installed.

    Dense factorisations (EASE's inverse) ran 10-15x slower with two OpenBLAS
    threads than with one on a loaded 2-core machine: idle BLAS threads spin
    against the other processes. Without threadpoolctl this does nothing.

    Examples
    --------
    >>> import numpy as np
    >>> with single_threaded_blas():
    ...     float(np.linalg.inv(np.eye(2) * 2.0)[0, 0])
    0.5
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1, "blas")


# Entries of the score block top_k_items orders at once (2 MB of float64).
_TOP_K_BLOCK = 1 << 18


def top_k_items(scores: ArrayLike, k: int) -> NDArray[np.int64]:
    """Column indices of each row's ``k`` highest scores, best first, ties to the lower index.

    The same array as ``np.argsort(-scores, axis=1, kind="stable")[:, :k]``, found
    by a partition instead of a full sort of every row: O(n) per row plus a sort
    of the k kept entries (a row of n = 27k items sorts in a tenth of the time).

    Parameters
    ----------
    scores : array_like of float, shape (rows, n)
        No NaN (``-inf`` and ``inf`` are ordered as numbers).
    k : int
        How many per row, 1 <= k <= n.

    Returns
    -------
    numpy.ndarray, shape (rows, k), int64

    Examples
    --------
    >>> top_k_items([[0.5, 2.0, 0.5, 1.0], [0.0, 0.0, 0.0, 3.0]], 3).tolist()
    [[1, 3, 0], [3, 0, 1]]
    >>> top_k_items([[1.0, 2.0]], 3)
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer in [1, 2] (the columns of scores), got 3
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2:
        raise ValueError(f"scores must be a 2-D array, got shape {scores.shape}")
    rows, n = scores.shape
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
        raise ValueError(f"k must be an integer in [1, {n}] (the columns of scores), got {k!r}")
    if np.isnan(scores).any():
        raise ValueError("scores holds NaN; top_k_items orders numbers only")
    # Rows a cache-sized block at a time: the negated copy and argpartition's full index array
    # of a 1024 x 27k batch are 220 MB each, and their page faults doubled the time.
    step = max(1, _TOP_K_BLOCK // n)
    if rows > step:
        return np.concatenate([_top_k_rows(scores[r : r + step], k) for r in range(0, rows, step)])
    return _top_k_rows(scores, k)


def _top_k_rows(scores, k):
    """:func:`top_k_items` of checked scores."""
    negated = -scores
    picked = np.argpartition(negated, k - 1, axis=1)[:, :k]  # the k smallest of -scores, ties at the cut arbitrary
    values = np.take_along_axis(negated, picked, axis=1)
    kth = values.max(axis=1, keepdims=True)
    order = np.lexsort((picked, values), axis=1)
    top = np.take_along_axis(picked, order, axis=1).astype(np.int64)
    # A row whose ties at the cut did not all fit: the partition chose among them, the lowest indices must win.
    cut = np.flatnonzero((values == kth).sum(axis=1) != (negated == kth).sum(axis=1))
    if cut.size:
        top[cut] = _top_k_with_ties(negated[cut], kth[cut], k)
    return top


def _top_k_with_ties(negated, kth, k):
    """:func:`top_k_items` of the rows of ``-negated`` whose ``k``-th value ``kth`` is tied past the cut."""
    rows = negated.shape[0]
    better_rows, better_cols = np.nonzero(negated < kth)
    tie_rows, tie_cols = np.nonzero(negated == kth)  # row-major: each row's ties in index order
    # Each row takes its strictly better entries and then its first ties, up to k in all.
    wanted = k - np.bincount(better_rows, minlength=rows)
    tie_starts = np.concatenate(([0], np.cumsum(np.bincount(tie_rows, minlength=rows))[:-1]))
    first = np.arange(tie_rows.size) - tie_starts[tie_rows] < wanted[tie_rows]
    kept_rows = np.concatenate((better_rows, tie_rows[first]))
    kept_cols = np.concatenate((better_cols, tie_cols[first]))
    order = np.lexsort((kept_cols, negated[kept_rows, kept_cols], kept_rows))
    return kept_cols[order].reshape(rows, k)


class Ranker:
    """Base class: subclasses implement ``_fit(X)`` and ``_score(users)``.

    ``X`` is the binary (m, n) float64 CSR training matrix. ``_score`` returns a
    dense (len(users), n) float64 array, higher is better. :meth:`recommend`
    masks training items and picks the k best, ties going to the lower item
    id, so the same ``random_state`` gives identical lists.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        Seeds whatever the ranker draws at random.

    Examples
    --------
    >>> import numpy as np
    >>> class Alphabetical(Ranker):
    ...     def _fit(self, train):
    ...         pass
    ...     def _score(self, users):
    ...         return np.tile(-np.arange(self.n_items_, dtype=float), (len(users), 1))
    >>> Alphabetical().fit(np.array([[1, 0, 0, 0]])).recommend(k=2).tolist()
    [[1, 2]]
    """

    name = "ranker"
    #: Whether :meth:`recommend` scores its batches on one thread per core. True where
    #: ``_score`` is scipy/numpy work that releases the GIL and is itself single-threaded
    #: (a sparse product, a partition); each batch writes its own rows, so the lists are
    #: the same either way.
    threaded_batches = False

    def __init__(self, *, random_state: int | np.random.Generator | None = None) -> None:
        self.random_state = random_state

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.endswith("_"))
        return f"{type(self).__name__}({params})"

    def fit(self, train: MatrixLike) -> Self:
        """Learn from the training histories.

        Parameters
        ----------
        train : scipy sparse matrix or array, shape (m, n)
            Training interactions; non-zero entries are the user's history.

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from puf.rankers import MostPop
        >>> MostPop().fit(np.array([[1, 0, 1], [0, 0, 1]])).n_items_
        3
        """
        train = check_histories(train, name="train").astype(np.float64)
        train.data[:] = 1.0  # rankers read who saw what, not how often or how well
        train.eliminate_zeros()
        self.train_ = train
        self.n_users_, self.n_items_ = train.shape
        self.rng_ = check_random_state(self.random_state)
        self.check_fits(*train.shape)  # before any dense piece is allocated
        self._fit(train)
        return self

    def dense_pieces(self, n_users: int, n_items: int) -> tuple[int, str]:
        """Bytes of the dense item x item or user x user pieces :meth:`fit` holds at its peak, and what they are.

        ``(0, "")`` for a ranker without such pieces.

        Examples
        --------
        >>> from puf.rankers import EASE, ItemKNN
        >>> ItemKNN().dense_pieces(1_000, 60_000)
        (0, '')
        >>> EASE().dense_pieces(1_000, 60_000)[0]
        86400000000
        """
        return 0, ""

    def check_fits(self, n_users: int, n_items: int) -> None:
        """Raise :class:`puf.memory.MemoryNeeded`, with the estimate, when :meth:`fit` cannot fit in memory.

        Examples
        --------
        >>> from puf.memory import memory_limit
        >>> from puf.rankers import EASE
        >>> with memory_limit(10**9):
        ...     EASE().check_fits(1_000, 60_000)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        puf.memory.MemoryNeeded: fitting ease on 1,000 users and 60,000 items (three dense ... matrices) needs 86.4 GB of memory; ...
        """
        from ..memory import check_memory

        nbytes, pieces = self.dense_pieces(n_users, n_items)
        if nbytes:
            check_memory(nbytes, what=f"fitting {self.name} on {n_users:,} users and {n_items:,} items ({pieces})")

    def _fit(self, train):
        raise NotImplementedError

    def _score(self, users):
        raise NotImplementedError

    def _check_users(self, users):
        if not hasattr(self, "train_"):
            raise ValueError(f"{type(self).__name__} is not fitted; call fit(train) first")
        if users is None:
            return np.arange(self.n_users_, dtype=np.int64)
        array = np.asarray(users)
        if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
            raise ValueError(f"users must be a 1-D array of user indices, got {array!r}")
        array = array.astype(np.int64)
        bad = (array < 0) | (array >= self.n_users_)
        if bad.any():
            raise ValueError(f"users holds index {array[bad][0]} outside [0, {self.n_users_})")
        return array

    def scores(self, users: ArrayLike | None = None) -> NDArray[np.float64]:
        """Return the (len(users), n) float64 scores, training items included.

        Examples
        --------
        >>> import numpy as np
        >>> from puf.rankers import MostPop
        >>> MostPop().fit(np.array([[1, 0, 1], [0, 0, 1]])).scores([0]).tolist()
        [[1.0, 0.0, 2.0]]
        """
        users = self._check_users(users)
        return np.asarray(self._score(users), dtype=np.float64)

    def recommend(
        self, users: ArrayLike | None = None, *, k: int = 10, exclude: MatrixLike | None = None, batch_size: int = 1024
    ) -> NDArray[np.int64]:
        """Top-k unseen items per user.

        Parameters
        ----------
        users : array_like of int, optional
            User indices; default all users in order.
        k : int, default 10
            List length.
        exclude : scipy sparse matrix or array, shape (m, n), optional
            Further items never to recommend (non-zero entries), on top of the
            training items -- e.g. the validation interactions when ranking for
            the test split, as RecBole does.
        batch_size : int, default 1024
            Users scored at once (bounds memory at batch_size x n floats).

        Returns
        -------
        numpy.ndarray, shape (len(users), k), int64
            Distinct item ids, best first, never a training (or excluded) item;
            ``-1`` pads when a user has fewer than k unseen items.

        Examples
        --------
        >>> import numpy as np
        >>> from puf.rankers import MostPop
        >>> ranker = MostPop().fit(np.array([[1, 0, 1, 0], [0, 0, 1, 0]]))
        >>> ranker.recommend(k=2).tolist()
        [[1, 3], [0, 1]]
        >>> ranker.recommend([1], k=2, exclude=np.array([[0, 0, 0, 0], [1, 0, 0, 0]])).tolist()
        [[1, 3]]
        """
        users = self._check_users(users)
        k = check_k(k)
        batch_size = check_k(batch_size, name="batch_size")
        masked = self.train_
        if exclude is not None:
            masked = masked + check_histories(exclude, n_users=self.n_users_, n_items=self.n_items_, name="exclude")
        out = np.full((users.size, k), -1, dtype=np.int64)
        width = min(k, self.n_items_)

        def fill(start):
            batch = users[start : start + batch_size]
            out[start : start + batch.size, :width] = self._batch_top(batch, masked[batch], width)

        starts = range(0, users.size, batch_size)
        threads = min(usable_cores(), len(starts)) if self.threaded_batches else 1
        if threads > 1:
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(fill, starts))  # list() re-raises a batch's error here
        else:
            for start in starts:
                fill(start)
        return out

    def _batch_top(self, batch, seen, width):
        """The ``width`` best items of each user of ``batch`` outside ``seen`` (CSR rows), -1 past the last."""
        scores = np.array(self._score(batch), dtype=np.float64)
        if not np.isfinite(scores).all():
            raise ValueError(f"{type(self).__name__} produced non-finite scores")
        seen = seen.tocoo()
        scores[seen.row, seen.col] = -np.inf
        # Equal scores in item-id order (a stable sort's order): reproducible ties.
        top = top_k_items(scores, width)
        top[np.take_along_axis(scores, top, axis=1) == -np.inf] = -1
        return top
