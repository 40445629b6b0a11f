"""Ranked lists made outside the harness, as the rankings the measures read, with what was changed.

A researcher's lists come from another framework (RecBole, LensKit, Elliot, Cornac, their
own code) and another preprocessing: users and items the harness's split does not hold, items
the user already had in training, lists shorter than k. :func:`read_lists` reads them
(:func:`puf.evaluation.run_files.list_rows` reads each format), skips and counts what cannot be
judged, and says so in :class:`RunLists`; :func:`evaluate_lists` is the whole road from a
frame or file of lists to the per-user and per-measure tables.
"""

from __future__ import annotations

__all__ = ["RunLists", "ListsEvaluation", "read_lists", "read_run", "evaluate_lists"]

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..validation import check_k
from .run_files import list_rows

if TYPE_CHECKING:
    from ..data import SplitDataset

Lists: TypeAlias = str | os.PathLike[str] | pd.DataFrame
"""Where one run's lists come from: a file's path or a DataFrame."""


@dataclass(frozen=True)
class RunLists:
    """One run's rankings and what reading it changed or found.

    Attributes
    ----------
    rankings : numpy.ndarray, shape (n_users, k), int64
        Internal item ids, best first; ``-1`` pads short lists and marks, at its rank, a listed
        item the dataset does not hold.
    unknown_users : tuple of str
        The run's users that the dataset's split does not hold, skipped (file order).
    seen : int
        Items among the users' first k (as listed) that are in their training data
        (and, for the test split, their validation data).
    seen_dropped : bool
        Whether those items were dropped before the cut at k (``drop_seen=True``).
    short : int
        Listed users whose lists hold fewer than k items (after dropping).
    listed : int
        Items among the users' first k as listed (before any were dropped).
    unknown_items : tuple of str
        The items among the users' first k (as listed) that the dataset does not hold (file
        order), each kept at its rank as a miss: relevant to no user of the split, and with no
        features.
    unknown_listed : int
        Slots among the users' first k (as listed) that hold such an item.
    empty : tuple of str
        Users whose first k hold no item of the dataset: given empty, not listed
        (``missing="pad"``), emptied by ``drop_seen`` or listing unknown items only. The
        distance between their list and another (d_L, read by UF) is undefined.
    """

    rankings: NDArray[np.int64]
    unknown_users: tuple[str, ...] = ()
    seen: int = 0
    seen_dropped: bool = False
    short: int = 0
    listed: int = 0
    unknown_items: tuple[str, ...] = ()
    unknown_listed: int = 0
    empty: tuple[str, ...] = ()

    def summary(self) -> str:
        """One line saying what was skipped, seen and short; ``""`` when nothing was.

        Examples
        --------
        >>> import numpy as np
        >>> RunLists(np.zeros((3, 2), dtype=np.int64), ("u9",), seen=2, short=1, listed=6).summary()
        "1 user not in the dataset skipped (first: 'u9'); 2 of 6 listed items are the users' own training or validation items, kept; 1 list shorter than k = 2"
        >>> RunLists(np.zeros((3, 2), dtype=np.int64), unknown_items=("i9",), unknown_listed=2, listed=6).summary()
        "2 of 6 listed items are not in the dataset (1 item, first: 'i9'), scored as misses at their ranks"
        >>> RunLists(np.full((3, 2), -1), short=1, listed=1, empty=("u2",)).summary()
        "1 list shorter than k = 2; 1 list holds no item of the dataset (first: 'u2')"
        >>> RunLists(np.zeros((3, 2), dtype=np.int64), listed=6).summary()
        ''
        """
        parts = []
        if self.unknown_users:
            n = len(self.unknown_users)
            parts.append(f"{n:,} user{'s' * (n != 1)} not in the dataset skipped (first: {self.unknown_users[0]!r})")
        if self.unknown_listed:
            n = len(self.unknown_items)
            parts.append(
                f"{self.unknown_listed:,} of {self.listed:,} listed items are not in the dataset "
                f"({n:,} item{'s' * (n != 1)}, first: {self.unknown_items[0]!r}), scored as misses at their ranks"
            )
        if self.seen:
            parts.append(
                f"{self.seen:,} of {self.listed:,} listed items are the users' own "
                f"training or validation items, {'dropped' if self.seen_dropped else 'kept'}"
            )
        if self.short:
            k = self.rankings.shape[1]
            parts.append(f"{self.short:,} list{'s' * (self.short != 1)} shorter than k = {k}")
        if self.empty:
            n = len(self.empty)
            held = "holds" if n == 1 else "hold"
            parts.append(f"{n:,} list{'s' * (n != 1)} {held} no item of the dataset (first: {self.empty[0]!r})")
        return "; ".join(parts)

    def counts(self) -> dict[str, Any]:
        """The counts as one row of a table (``lists.csv`` of ``puf evaluate``).

        Examples
        --------
        >>> import numpy as np
        >>> RunLists(np.zeros((3, 2), dtype=np.int64), ("u9",), seen=2, listed=6).counts()
        {'users': 3, 'k': 2, 'unknown_users_skipped': 1, 'unknown_items': 0, 'seen_items': 2, 'seen_dropped': False, 'short_lists': 0, 'empty_lists': 0}
        """
        return {
            "users": int(self.rankings.shape[0]),
            "k": int(self.rankings.shape[1]),
            "unknown_users_skipped": len(self.unknown_users),
            "unknown_items": self.unknown_listed,
            "seen_items": self.seen,
            "seen_dropped": self.seen_dropped,
            "short_lists": self.short,
            "empty_lists": len(self.empty),
        }


def _index_of(ids: Any, wanted: pd.Series) -> NDArray[np.int64]:
    index = pd.Index(np.asarray(ids, dtype=object).astype(str))
    return index.get_indexer(wanted.to_numpy(dtype=object)).astype(np.int64)


def _known_users(rows, dataset, source, place, strict):
    """The rows of users the dataset holds, and the unknown users (refused with ``strict``)."""
    rows = rows.assign(user=_index_of(dataset.users, rows["user_id"]))
    unknown = rows["user"].to_numpy() < 0
    if not unknown.any():
        return rows, ()
    names = tuple(pd.unique(rows["user_id"].to_numpy()[unknown]))
    first = rows.iloc[int(np.argmax(unknown))]
    n_users = rows["user_id"].nunique()
    if strict or unknown.all():
        more = (
            f"; none of the run's {n_users:,} users is"
            if unknown.all()
            else f"; {len(names):,} of the run's {n_users:,} users are not (skipped and counted unless strict)"
        )
        raise ValueError(
            f"{source}: {place} {first['where']}: user {first['user_id']!r} is not in dataset "
            f"{dataset.name!r} (after preprocessing){more}"
        )
    return rows[~unknown], names


def _checked_items(rows, dataset, source, place, split, strict):
    """Item ids mapped (an unknown item -1, refused with ``strict``); a user with nothing to judge by,
    an item listed twice refused."""
    rows = rows.assign(item=_index_of(dataset.items, rows["item_id"]))
    missing = np.flatnonzero(rows["item"].to_numpy() < 0)
    if missing.size and (strict or missing.size == len(rows)):  # (none known: ids of another dataset, or 1.0 for 1)
        first = rows.iloc[missing[0]]
        more = (
            f"; none of the run's {rows['item_id'].nunique():,} items is"
            if missing.size == len(rows)
            else f"; {missing.size:,} listed "
            + ("item is not" if missing.size == 1 else "items are not")
            + ": scored as misses unless strict"
        )
        raise ValueError(
            f"{source}: {place} {first['where']}: item {first['item_id']!r} is not in dataset "
            f"{dataset.name!r} (after preprocessing{more})"
        )
    empty = np.flatnonzero((np.diff(dataset.matrix(split).indptr) == 0)[rows["user"].to_numpy()])
    if empty.size:
        first = rows.iloc[empty[0]]
        raise ValueError(
            f"{source}: {place} {first['where']}: user {first['user_id']!r} has an empty {split} set "
            f"in dataset {dataset.name!r}; the run cannot be judged for it"
        )
    item = rows["item"].to_numpy().copy()
    outside = item < 0
    if outside.any():  # an unknown item has no index: its id, numbered below -1, says whether it is listed twice
        item[outside] = -2 - pd.factorize(rows["item_id"].to_numpy()[outside])[0]
    user = rows["user"].to_numpy()
    twice = np.flatnonzero(pd.DataFrame({"user": user, "item": item}).duplicated().to_numpy())
    if twice.size:
        again = rows.iloc[twice[0]]
        same = rows[(user == user[twice[0]]) & (item == item[twice[0]])]
        raise ValueError(
            f"{source}: {place} {again['where']}: item {again['item_id']!r} is listed twice for user "
            f"{again['user_id']!r} (first on {place} {same['where'].iloc[0]})"
        )
    return rows


def _seen_mask(rows, dataset, split):
    """Whether each row's item is in its user's training data (and validation data, judging the test split)."""
    seen = dataset.matrix("train")
    if split == "test":
        seen = seen + dataset.matrix("valid")
    seen = seen.tocoo()
    n = dataset.n_items
    keys = seen.row.astype(np.int64) * n + seen.col
    items = rows["item"].to_numpy()
    return np.isin(rows["user"].to_numpy() * n + items, keys) & (items >= 0)  # (-1 would read as u-1's last)


def read_lists(
    source: Lists,
    dataset: SplitDataset,
    *,
    k: int | None = None,
    split: str = "test",
    strict: bool = False,
    drop_seen: bool = False,
    missing: str = "error",
    columns: Mapping[str, str] | None = None,
) -> RunLists:
    """Read one run's ranked lists into rankings, skipping and counting what cannot be judged.

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        A TREC run file, a CSV, TSV or Parquet file, or a DataFrame
        (:func:`puf.evaluation.run_files.list_rows`); ids are the dataset's external ids.
    dataset : puf.data.SplitDataset
        The split the run is judged on (``puf data split`` writes it for training elsewhere).
    k : int, optional
        Keep each user's best k; default the longest list.
    split : {"test", "valid"}
        Split whose relevance judges the run: a listed user with an empty one is an error.
    strict : bool, default False
        Refuse a run listing users or items the dataset does not hold (e.g. ones its
        preprocessing dropped); by default such users are skipped and counted, and such
        items are kept at their ranks as misses (relevant to no user of the split, with no
        features for the list distances) and counted.
    drop_seen : bool, default False
        Drop the items of a user's training data (and validation data, for the test
        split) before the cut at k, as frameworks that mask them before ranking do; by
        default they are kept, scored (they are never relevant) and counted.
    missing : {"error", "pad"}, default "error"
        A dataset user the run does not list is an error (the population measures need
        every user's list), or gets an empty (all ``-1``) list.
    columns : dict of str to str, optional
        Role -> column name for a table's columns named otherwise (roles ``user``,
        ``item``, ``rank`` or ``score``; or ``user`` and ``items``, a row per user).

    Returns
    -------
    RunLists

    Raises
    ------
    ValueError
        What :func:`~puf.evaluation.run_files.list_rows` refuses; a user or an item not
        in the dataset (with ``strict``; always when none of the run's users, or none of its
        items, is), an item listed twice for a user, a user with an empty ``split`` set: the
        message names the file and line (a frame: the row). A user the run omits (unless
        ``missing="pad"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aabb"), "item_id": list("xyyx"),
    ...                       "rating": [5.0] * 4, "timestamp": [1, 2, 1, 2]})
    >>> data = preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1)  # train a: x, b: y
    >>> lists = pd.DataFrame({"user": list("aabz"), "item": list("xyyx"), "rank": [1, 2, 1, 1]})
    >>> found = read_lists(lists, data)
    >>> found.rankings.tolist(), found.summary()
    ([[0, 1], [1, -1]], "1 user not in the dataset skipped (first: 'z'); 2 of 3 listed items are the users' own training or validation items, kept; 1 list shorter than k = 2")
    >>> read_lists(lists, data, drop_seen=True).rankings.tolist()
    [[1, -1], [-1, -1]]
    """
    if missing not in ("error", "pad"):
        raise ValueError(f"missing must be 'error' or 'pad', got {missing!r}")
    if split not in ("test", "valid"):
        raise ValueError(f"split must be 'test' or 'valid', got {split!r}")
    name, rows, place = list_rows(source, columns=columns)
    if rows.empty:
        raise ValueError(f"{name}: no recommendations" + (" after the header" if place == "line" else ""))
    rows, unknown = _known_users(rows, dataset, name, place, strict)
    given_empty = rows["item_id"].isna().to_numpy()  # a user listed with no item: a list of none
    empty_lists, rows = rows["user"].to_numpy()[given_empty], rows[~given_empty]
    if rows.empty and k is None:
        raise ValueError(f"{name}: every list is empty; give k to score them")
    rows = _checked_items(rows, dataset, name, place, split, strict)
    listed_users = np.isin(np.arange(dataset.n_users), np.concatenate([rows["user"].to_numpy(), empty_lists]))
    absent = np.flatnonzero(~listed_users)
    if absent.size and missing == "error":
        raise ValueError(
            f"{name}: the run lists no item for {absent.size} of the {dataset.n_users} users of "
            f"dataset {dataset.name!r} (first: {dataset.users[int(absent[0])]!r}); the fairness "
            "measures need every user's list"
        )
    rows = rows.sort_values(["user", "key", "tie", "where"], kind="stable")
    rows = rows.assign(seen=_seen_mask(rows, dataset, split), position=rows.groupby("user").cumcount().to_numpy())
    k = int(rows["position"].max()) + 1 if k is None else check_k(k)
    first = rows["position"].to_numpy() < k
    seen, listed = int((rows["seen"].to_numpy() & first).sum()), int(first.sum())
    outside = rows["item"].to_numpy() < 0
    # (the rows keep their labels in file order through the sort)
    unknown_items = tuple(map(str, pd.unique(rows[outside & first].sort_index()["item_id"].to_numpy())))
    if drop_seen:
        rows = rows[~rows["seen"]]
        rows = rows.assign(position=rows.groupby("user").cumcount().to_numpy())
    keep = rows["position"].to_numpy() < k
    rankings = np.full((dataset.n_users, k), -1, dtype=np.int64)
    rankings[rows["user"].to_numpy()[keep], rows["position"].to_numpy()[keep]] = rows["item"].to_numpy()[keep]
    lengths = np.bincount(rows["user"].to_numpy()[keep], minlength=dataset.n_users)
    short = int((listed_users & (lengths < k)).sum())
    empty = tuple(str(dataset.users[int(u)]) for u in np.flatnonzero((rankings < 0).all(axis=1)))
    return RunLists(
        rankings, unknown, seen, drop_seen, short, listed, unknown_items, int((outside & first).sum()), empty
    )


def read_run(
    path: str | os.PathLike[str],
    dataset: SplitDataset,
    *,
    k: int | None = None,
    split: str = "test",
    missing: str = "error",
    strict: bool = True,
) -> NDArray[np.int64]:
    """The rankings of :func:`read_lists`, refusing (by default) users and items the dataset does not hold.

    Parameters
    ----------
    path : str or os.PathLike
        A run file (:func:`read_lists`).
    dataset, k, split, missing, strict
        As in :func:`read_lists` (``strict`` here defaults to True: nothing is skipped unsaid).

    Returns
    -------
    numpy.ndarray, shape (n_users, k), int64
        Internal item ids, best first; ``-1`` pads short lists (and, with
        ``missing="pad"``, the rows of users the run does not list).

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aabb"), "item_id": list("xyyx"),
    ...                       "rating": [5.0] * 4, "timestamp": [1, 2, 1, 2]})
    >>> data = preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1)
    >>> run = pathlib.Path(tempfile.mkdtemp()) / "run.csv"
    >>> _ = run.write_text("user,item,score\\na,x,0.1\\na,y,0.9\\nb,y,0.5\\n")
    >>> read_run(run, data).tolist()
    [[1, 0], [1, -1]]
    """
    return read_lists(path, dataset, k=k, split=split, missing=missing, strict=strict).rankings


@dataclass(frozen=True)
class ListsEvaluation:
    """What :func:`evaluate_lists` found.

    Attributes
    ----------
    scores : pandas.DataFrame
        One row per run: P@k, NDCG@k and every fairness measure (:func:`puf.evaluation.evaluate_runs`).
    per_user : pandas.DataFrame
        One row per run and user: P@k and NDCG@k (:func:`puf.evaluation.per_user_effectiveness`).
    lists : pandas.DataFrame
        One row per run: the counts of :meth:`RunLists.counts`.
    """

    scores: pd.DataFrame
    per_user: pd.DataFrame
    lists: pd.DataFrame


def evaluate_lists(
    data: SplitDataset | str | os.PathLike[str],
    lists: Lists | Mapping[str, Lists],
    *,
    k: int = 10,
    split: str = "test",
    strict: bool = False,
    drop_seen: bool = False,
    columns: Mapping[str, str] | None = None,
    **options: Any,
) -> ListsEvaluation:
    """Every measure of ranked lists made outside the harness, per run and per user.

    Parameters
    ----------
    data : puf.data.SplitDataset, str or os.PathLike
        The split to judge on, or a dataset name or atomic files, loaded and split as
        ``puf evaluate`` does (:func:`puf.data.load`).
    lists : DataFrame, path, or dict of str to either
        One run (named ``"run"``) or several by name: TREC, CSV, TSV or Parquet files,
        or DataFrames with user, item and rank or score columns, or user and items columns
        (:func:`read_lists`).
    k : int, default 10
    split : {"test", "valid"}
    strict, drop_seen, columns
        As in :func:`read_lists`.
    **options
        Passed to :func:`puf.evaluation.evaluate_runs` (``gamma``, ``measures``,
        ``sample``, ``max_pairs``, ``engine``, ``scheduler``, ...).

    Returns
    -------
    ListsEvaluation
        ``scores`` (per run and measure), ``per_user`` and ``lists`` (what reading changed).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dataclasses
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aabbcc"), "item_id": list("xyyxxz"),
    ...                       "rating": [5.0] * 6, "timestamp": [1, 2] * 3})
    >>> data = dataclasses.replace(preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1),
    ...                            item_features=np.eye(3))
    >>> mine = pd.DataFrame({"user": list("abc"), "item": list("yyx"), "score": [1.0, 1.0, 1.0]})
    >>> found = evaluate_lists(data, {"mine": mine}, k=1, measures=["SD-P", "PUF-P"])
    >>> found.scores.round(4).to_dict("index")
    {'mine': {'SD-P': 0.4714, 'PUF-P': 0.3333}}
    >>> found.per_user["P@1"].tolist(), int(found.lists.loc["mine", "seen_items"])
    ([1.0, 0.0, 0.0], 2)
    """
    from .scores import evaluate_runs, per_user_effectiveness

    if isinstance(data, (str, os.PathLike)):
        from ..data import load

        data = load(data)
    runs = dict(lists) if isinstance(lists, Mapping) else {"run": lists}
    found = {
        str(name): read_lists(source, data, k=k, split=split, strict=strict, drop_seen=drop_seen, columns=columns)
        for name, source in runs.items()
    }
    rankings = {name: run.rankings for name, run in found.items()}
    scores = evaluate_runs(data, rankings, k=k, split=split, **options)
    counts = pd.DataFrame.from_dict({name: run.counts() for name, run in found.items()}, orient="index")
    counts.index.name = "run"
    return ListsEvaluation(scores, per_user_effectiveness(data, rankings, k=k, split=split), counts)
