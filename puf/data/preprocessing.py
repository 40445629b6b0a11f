"""Preprocessing as the PUF paper's authors did it, with every choice exposed, and its result.

:func:`preprocess` filters (repeated k-core, :func:`kcore` / :func:`kcore_mask`) and splits
(per user, by time, :func:`split_by_time`) interactions into a :class:`SplitDataset`, whose
parts :data:`SPLITS` names in order.

Defaults (each a keyword of :func:`preprocess`):

1. ``threshold=3.0`` -- keep only interactions with ``rating >= 3`` (they are
   the relevant ones; relevance is binary). RecBole's ``val_interval`` does the
   same. ``threshold=None`` keeps everything (implicit-feedback data).
2. ``core=5`` -- repeated 5-core filtering: drop users and items with fewer
   than 5 interactions, again and again until none is left to drop.
3. ``ratios=(0.6, 0.2, 0.2)`` -- per user, interactions in time order (ties
   kept in file order) are cut into train / valid / test with RecBole's
   rounding: ``valid = floor(0.2 n)``, ``test = floor(0.2 n)``, train the rest.
4. ``min_train=5`` -- users with fewer than 5 training interactions are dropped
   from every split (items are not re-filtered afterwards).
"""

from __future__ import annotations

__all__ = ["SPLITS", "SplitDataset", "kcore", "kcore_mask", "preprocess", "split_by_time"]

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .fields import numeric_field

#: The parts of a split dataset, in order.
SPLITS = ("train", "valid", "test")


@dataclasses.dataclass(frozen=True)
class SplitDataset:
    """A preprocessed dataset: three interaction frames over shared user/item indices.

    Attributes
    ----------
    train, valid, test : pandas.DataFrame
        Interactions with integer columns ``user`` and ``item`` (positions in
        ``users`` / ``items``) next to the original columns.
    users, items : pandas.Index
        External ids; position ``i`` is internal id ``i``.
    item_features : numpy.ndarray or None
        (n_items, f) non-negative features (multi-hot genres), if known.
    feature_names : tuple of str
        Names of the feature columns.
    name : str
        Dataset name, for reports.
    params : dict
        The preprocessing parameters used.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user_id": ["a", "a", "a", "b", "b", "b"],
    ...                       "item_id": ["x", "y", "z", "x", "y", "z"],
    ...                       "rating": [5.0] * 6, "timestamp": [1, 2, 3, 1, 2, 3]})
    >>> data = preprocess(frame, core=1, ratios=(1, 1, 1), min_train=1)
    >>> data.n_users, data.n_items, data.matrix("test").toarray().tolist()
    (2, 3, [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    """

    train: pd.DataFrame
    valid: pd.DataFrame
    test: pd.DataFrame
    users: pd.Index
    items: pd.Index
    item_features: np.ndarray | None = None
    feature_names: tuple = ()
    name: str = ""
    params: dict = dataclasses.field(default_factory=dict)

    @property
    def n_users(self) -> int:
        """Number of users m.

        Examples
        --------
        >>> import pandas as pd
        >>> preprocess(pd.DataFrame({"user_id": ["a"], "item_id": ["x"]}), core=1,
        ...            min_train=1).n_users
        1
        """
        return len(self.users)

    @property
    def n_items(self) -> int:
        """Number of items n.

        Examples
        --------
        >>> import pandas as pd
        >>> preprocess(pd.DataFrame({"user_id": ["a", "a"], "item_id": ["x", "y"]}), core=1,
        ...            min_train=1).n_items
        2
        """
        return len(self.items)

    def split(self, name: str) -> pd.DataFrame:
        """Return the interaction frame of split ``name`` ("train", "valid" or "test").

        Examples
        --------
        >>> import pandas as pd
        >>> data = preprocess(pd.DataFrame({"user_id": ["a"], "item_id": ["x"]}), core=1,
        ...                   min_train=1)
        >>> data.split("train")[["user", "item", "user_id", "item_id"]].values.tolist()
        [[0, 0, 'a', 'x']]
        """
        if name not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {name!r}")
        return getattr(self, name)

    def matrix(self, split: str = "train", *, values: str | None = None) -> sp.csr_matrix:
        """Return split ``split`` as an (n_users, n_items) float64 CSR matrix.

        Parameters
        ----------
        split : {"train", "valid", "test"}
            Which interactions.
        values : str, optional
            Column holding the entries (e.g. ``"rating"``); default 1.0 per
            distinct (user, item) pair, i.e. binary histories / relevance.

        Returns
        -------
        scipy.sparse.csr_matrix

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"user_id": ["a", "a", "b"], "item_id": ["x", "y", "y"],
        ...                       "rating": [4.0, 5.0, 3.0]})
        >>> data = preprocess(frame, core=1, ratios=(1, 0, 0), min_train=1)
        >>> data.matrix("train", values="rating").toarray().tolist()
        [[4.0, 5.0], [0.0, 3.0]]
        """
        frame = self.split(split)
        data = np.ones(len(frame)) if values is None else frame[values].to_numpy(dtype=np.float64)
        matrix = sp.csr_matrix(
            (data, (frame["user"].to_numpy(), frame["item"].to_numpy())),
            shape=(self.n_users, self.n_items),
            dtype=np.float64,
        )
        matrix.sum_duplicates()
        if values is None:
            matrix.data[:] = 1.0  # a repeated interaction is still one relevant item
        return matrix


def _natural_order(ids):
    """The ids as text tokens, sorted: by number when all are digits (of any length), else as text.

    Numbers are compared as digit strings (by length without leading zeros, then digit by
    digit), never converted to machine integers, so a 20-digit hash orders like any other id.
    """
    as_text = pd.Series(pd.unique(pd.Series(ids).astype(str).to_numpy(dtype=object)), dtype=object)
    if len(as_text) and as_text.str.fullmatch(r"\d+").all():
        digits = as_text.str.lstrip("0")
        keys = pd.DataFrame({"length": digits.str.len(), "digits": digits})
        order = keys.sort_values(["length", "digits"], kind="stable").index.to_numpy()
        return pd.Index(as_text.iloc[order], dtype=object)
    return pd.Index(np.sort(as_text.to_numpy(dtype=object)), dtype=object)


def _ordered_ids(ids, codes):
    """(index, position): the ids that ``codes`` hold in :func:`_natural_order`, and each code's position in it."""
    seen = pd.unique(codes)  # in order of first appearance, as _natural_order reads the column
    index = _natural_order(pd.Series(ids[seen]))
    position = np.full(len(ids), -1, dtype=np.int64)
    position[seen] = index.get_indexer(pd.Index(ids[seen]).astype(str).astype(object))
    return index, position


def _survivors(frame, user, source, before, step):
    """Raise a ValueError naming the step when it left no user."""
    if len(frame) == 0:
        raise ValueError(
            f"{source}: no user survived the preprocessing: {step} removed all {before} remaining interactions"
        )


def preprocess(
    interactions: pd.DataFrame,
    *,
    threshold: float | None = 3.0,
    core: int = 5,
    ratios: Sequence[float] = (0.6, 0.2, 0.2),
    min_train: int = 5,
    user: str = "user_id",
    item: str = "item_id",
    rating: str = "rating",
    time: str = "timestamp",
    name: str = "",
) -> SplitDataset:
    """Filter, k-core and split interactions into a :class:`SplitDataset`.

    Parameters
    ----------
    interactions : pandas.DataFrame
        One row per interaction (e.g. :func:`puf.data.read_atomic` of a ``.inter`` file).
    threshold : float or None, default 3.0
        Keep rows with ``rating >= threshold``; None keeps all rows (and a
        missing rating column means implicit data: all rows kept).
    core : int, default 5
        Repeated k-core on users and items (see :func:`kcore`); 1 disables it.
    ratios : tuple, default (0.6, 0.2, 0.2)
        Train / valid / test shares per user in time order (see :func:`split_by_time`).
    min_train : int, default 5
        Users with fewer training interactions are dropped from every split.
    user, item, rating, time : str
        Column names in ``interactions``.
    name : str
        Dataset name recorded on the result.

    Returns
    -------
    SplitDataset

    Raises
    ------
    ValueError
        A missing column, no row at all, or a step that leaves no user (the
        message names the step: rating threshold, k-core, ``min_train``).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"user_id": ["a"] * 5 + ["b"] * 5, "item_id": list("vwxyz") * 2,
    ...                       "rating": [5, 4, 1, 3, 5] * 2, "timestamp": list(range(10))})
    >>> data = preprocess(frame, core=2, min_train=2)
    >>> data.train["item_id"].tolist(), data.test["item_id"].tolist()
    (['v', 'w', 'v', 'w'], ['z', 'z'])
    """
    for column in (user, item):
        if column not in interactions:
            raise ValueError(f"interactions has no column {column!r}; columns: {list(interactions.columns)}")
    source = interactions.attrs.get("path") or "interactions"
    if len(interactions) == 0:
        raise ValueError(f"{source}: holds no interaction (a header and no rows)")
    # numbers, whatever the header declares (a token "good" or a float_seq is named here)
    frame = interactions.assign(**{c: numeric_field(interactions, c) for c in (rating, time) if c in interactions})
    if threshold is not None and rating in frame:
        frame = frame[frame[rating].to_numpy(dtype=np.float64) >= threshold]
        _survivors(frame, user, source, len(interactions), f"the rating threshold ({rating} >= {threshold:g})")
    # Integer codes of the ids, once: every step below counts and compares them, not the id strings.
    user_codes, user_ids = pd.factorize(frame[user])
    item_codes, item_ids = pd.factorize(frame[item])
    known = (user_codes >= 0) & (item_codes >= 0)  # a missing id is no user or item (as kcore)
    keep = known.copy()
    keep[known] = kcore_mask(user_codes[known], item_codes[known], core=int(core))
    before = len(frame)
    frame, user_codes, item_codes = frame[keep], user_codes[keep], item_codes[keep]
    _survivors(
        frame, user, source, before, f"the {int(core)}-core filter (every user and item needs {int(core)} interactions)"
    )
    stamps = frame[time] if time in frame else None
    labels = split_by_time(
        pd.DataFrame({user: user_codes, **({time: stamps.to_numpy()} if stamps is not None else {})}),
        ratios=ratios,
        user=user,
        time=time,
    )
    train_counts = np.bincount(user_codes[(labels == "train").to_numpy()], minlength=len(user_ids))
    keep = (train_counts[user_codes] >= min_train) & (train_counts[user_codes] > 0)  # a user needs a train row
    before = len(frame)
    frame, labels = frame[keep], labels[keep]
    user_codes, item_codes = user_codes[keep], item_codes[keep]
    _survivors(frame, user, source, before, f"min_train={min_train} (users need {min_train} training interactions)")
    users, user_index = _ordered_ids(user_ids, user_codes)
    items, item_index = _ordered_ids(item_ids, item_codes)
    frame = frame.assign(user=user_index[user_codes], item=item_index[item_codes])
    ordered = ["user", "item"] + [c for c in frame.columns if c not in ("user", "item")]
    parts = {s: frame.loc[(labels == s).to_numpy(), ordered].reset_index(drop=True) for s in SPLITS}
    params = {"threshold": threshold, "core": int(core), "ratios": tuple(ratios), "min_train": int(min_train)}
    return SplitDataset(**parts, users=users, items=items, name=name, params=params)


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
