"""The two filters of preprocessing: repeated k-core and the per-user split by time.

:func:`puf.data.preprocess.preprocess` applies them in order; :mod:`puf.data.preprocess`
re-exports both, and :data:`SPLITS` names the parts in order.
"""

from __future__ import annotations

__all__ = ["SPLITS", "kcore", "split_by_time"]

from collections.abc import Sequence

import numpy as np
import pandas as pd

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
    frame = interactions
    while True:
        user_counts = frame.groupby(user, sort=False)[user].transform("size")
        item_counts = frame.groupby(item, sort=False)[item].transform("size")
        keep = (user_counts >= core) & (item_counts >= core)
        if keep.all():
            return frame
        frame = frame[keep.to_numpy()]


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
