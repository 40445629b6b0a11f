"""The two filters of preprocessing: repeated k-core and the per-user split by time.

:func:`puf.data.preprocess.preprocess` applies them in order; :mod:`puf.data.preprocess`
re-exports both, and :data:`SPLITS` names the parts in order.
"""

from __future__ import annotations

__all__ = ["SPLITS", "kcore", "kcore_mask", "split_by_time"]

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

#: The parts of a split dataset, in order.
SPLITS = ("train", "valid", "test")


def kcore(interactions: pd.DataFrame, *, core: int = 5, user: str = "user_id", item: str = "item_id") -> pd.DataFrame:
    """Repeatedly drop users and items with fewer than ``core`` interactions.

    Parameters
    ----------
    interactions : pandas.DataFrame
        One row per interaction.
    core : int, default 5
        Minimum number of interactions of every kept user and item.
    user, item : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        The surviving rows (original index kept). Every user and item in it has
        at least ``core`` rows; it may be empty.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user_id": ["a", "a", "b", "b", "c"],
    ...                       "item_id": ["x", "y", "x", "y", "x"]})
    >>> sorted(kcore(frame, core=2)["user_id"].unique())
    ['a', 'b']
    """
    users = pd.factorize(interactions[user])[0]
    items = pd.factorize(interactions[item])[0]
    # A missing id (code -1) is no user or item: its row goes first, as a group-by drops it.
    known = (users >= 0) & (items >= 0)
    keep = known.copy()
    keep[known] = kcore_mask(users[known], items[known], core=core)
    return interactions if keep.all() else interactions[keep]


def kcore_mask(users: ArrayLike, items: ArrayLike, *, core: int = 5) -> NDArray[np.bool_]:
    """The rows of the repeated ``core``-core, for interactions given as integer codes.

    Parameters
    ----------
    users, items : array_like of int, shape (rows,)
        Each interaction's user and item as codes >= 0 (e.g. from :func:`pandas.factorize`).
    core : int, default 5
        Minimum number of interactions of every kept user and item.

    Returns
    -------
    numpy.ndarray of bool, shape (rows,)
        True for the rows :func:`kcore` keeps: every user and item among them
        has at least ``core`` of them.

    Examples
    --------
    >>> kcore_mask([0, 0, 1, 1, 2], [0, 1, 0, 1, 0], core=2).tolist()
    [True, True, True, True, False]
    >>> kcore_mask([0, 1], [0], core=2)
    Traceback (most recent call last):
    ...
    ValueError: users and items must be 1-D integer arrays of one length, got shapes (2,) and (1,)
    """
    users, items = np.asarray(users), np.asarray(items)
    if (
        users.shape != items.shape
        or users.ndim != 1
        or (users.size and (users.dtype.kind not in "iu" or items.dtype.kind not in "iu"))
    ):
        raise ValueError(
            f"users and items must be 1-D integer arrays of one length, got shapes {users.shape} and {items.shape}"
        )
    if users.size and min(users.min(), items.min()) < 0:
        raise ValueError(f"users and items must be codes >= 0, got {min(users.min(), items.min())}")
    keep = np.ones(users.size, dtype=bool)
    rows = np.arange(users.size)
    while rows.size:
        user_counts = np.bincount(users[rows])
        item_counts = np.bincount(items[rows])
        alive = (user_counts[users[rows]] >= core) & (item_counts[items[rows]] >= core)
        if alive.all():
            break
        keep[rows[~alive]] = False
        rows = rows[alive]
    return keep


def _split_sizes(n, ratios):
    # RecBole's _calcu_split_ids, vectorised over users: later splits get floor(r n),
    # and a split whose share is below one interaction still gets one while train has > 1.
    ratios = np.asarray(ratios, dtype=np.float64) / np.sum(ratios)
    n = np.asarray(n, dtype=np.int64)
    counts = [np.floor(r * n).astype(np.int64) for r in ratios]
    counts[0] = n - sum(counts[1:])
    for j in range(len(ratios) - 1, 0, -1):
        share = ratios[j] * n
        bump = (counts[0] > 1) & (share > 0) & (share < 1)
        counts[j] = counts[j] + bump
        counts[0] = counts[0] - bump
    return counts


def split_by_time(
    interactions: pd.DataFrame,
    *,
    ratios: Sequence[float] = (0.6, 0.2, 0.2),
    user: str = "user_id",
    time: str = "timestamp",
) -> pd.Series:
    """Label each interaction train / valid / test, per user in time order.

    Parameters
    ----------
    interactions : pandas.DataFrame
        One row per interaction.
    ratios : tuple of three non-negative floats, default (0.6, 0.2, 0.2)
        Relative sizes of train, valid, test (normalised to sum 1).
    user, time : str
        Column names; without a ``time`` column file order is the time order.

    Returns
    -------
    pandas.Series
        ``"train"``, ``"valid"`` or ``"test"`` per row, aligned to ``interactions``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user_id": ["a"] * 5, "timestamp": [5, 1, 4, 2, 3]})
    >>> split_by_time(frame).tolist()
    ['test', 'train', 'valid', 'train', 'train']
    """
    ratios = tuple(float(r) for r in ratios)
    if len(ratios) != 3 or min(ratios) < 0 or sum(ratios) <= 0 or ratios[0] <= 0:
        raise ValueError(f"ratios must be three non-negative numbers with train > 0, got {ratios}")
    codes = pd.factorize(interactions[user])[0]
    stamps = interactions[time].to_numpy(dtype=np.float64) if time in interactions else np.zeros(len(interactions))
    order = np.lexsort((np.arange(len(codes)), stamps, codes))
    sorted_codes = codes[order]
    sizes = np.bincount(codes, minlength=codes.max() + 1 if codes.size else 0)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    rank = np.empty(len(codes), dtype=np.int64)
    rank[order] = np.arange(len(codes)) - starts[sorted_codes]
    n_train, n_valid, _ = _split_sizes(sizes, ratios)
    label = np.where(rank < n_train[codes], 0, np.where(rank < (n_train + n_valid)[codes], 1, 2))
    return pd.Series(np.asarray(SPLITS, dtype=object)[label], index=interactions.index)
