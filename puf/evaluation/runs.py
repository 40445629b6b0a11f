"""Runs: ranked lists from the built-in baselines, or read from a researcher's file."""

from __future__ import annotations

__all__ = ["read_run", "run_rankers"]

import csv
import os
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..memory import MemoryNeeded
from ..rankers import PAPER_RANKERS, available_rankers, make_ranker
from ..rankers.cache import checkpoint_path, claimed_entry, load_run, run_key, save_run
from ..rankers.factorization import ALS, BPR
from ..rankers.neural import TorchRanker
from ..rankers.nmf import NMF
from ..validation import check_k

if TYPE_CHECKING:
    from ..data import SplitDataset

_TRAINED = (ALS, BPR, NMF, TorchRanker)  # rankers whose lists are worth a disk cache


def run_rankers(
    dataset: SplitDataset,
    names: str | Sequence[str] | None = None,
    *,
    k: int = 10,
    split: str = "test",
    random_state: int | None = 0,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    timings: dict[str, Any] | None = None,
    progress: bool = False,
    cache: str | os.PathLike[str] | None = None,
    retrain: bool = False,
    facts: dict[str, Any] | None = None,
) -> dict[str, NDArray[np.int64]]:
    """Fit each named baseline on the training split and rank every user's top k.

    Parameters
    ----------
    dataset : puf.data.SplitDataset
    names : sequence of str or str, optional
        Keys of :data:`puf.rankers.RANKERS` (a string may list them comma-
        separated); default / ``"all"``: every available one that fits in memory
        (one whose dense pieces cannot is skipped with a warning saying why; ALS and BPR
        only when ``implicit`` is installed, NMF with scikit-learn, MultVAE,
        NGCF and NCL with torch); ``"paper"``: the PUF paper's seven,
        :data:`puf.rankers.PAPER_RANKERS`. The torch rankers stop early on
        NDCG@10 of the validation split (for ``split="test"``; for
        ``split="valid"`` on 10 % of the training interactions held out).
    k : int, default 10
    split : {"test", "valid"}
        The split the lists are for. Rankers fit on the training split; for
        ``"test"`` the validation items are excluded too (as RecBole does:
        they are already consumed when the test period starts).
    random_state : None or int, default 0
        Seed passed to every ranker.
    params : dict of str to dict, optional
        Extra constructor keywords per ranker name.
    timings : dict, optional
        If given, filled with seconds (fit + recommend) per ranker.
    progress : bool, default False
        Show a tqdm bar over the rankers (and the torch rankers' epochs).
    cache : str or os.PathLike, optional
        Folder of trained lists (:mod:`puf.rankers.cache`): the lists of the
        trained models (ALS, BPR, NMF and the torch rankers; the others take
        about a second) stored for the same dataset, ranker, seed and settings
        are read back, new ones are stored. The torch rankers also keep their
        training state there after every epoch (``<key>.checkpoint.pt``), so
        a run that was stopped resumes where it stopped, with the same lists
        as an uninterrupted one. Default: no cache.
    retrain : bool, default False
        Train from the start (a stored checkpoint is dropped) even when
        ``cache`` holds the lists, and store the new ones.
    facts : dict, optional
        If given, filled per ranker with ``seconds`` (of the training run, also
        when read from the cache; a resumed run's include the seconds before it
        stopped), ``cached`` and, for the torch rankers, ``epochs``,
        ``best_epoch``, ``best_valid_ndcg``, ``stopped_early`` and
        ``resumed_from`` (the epoch a checkpoint resumed after, or None).

    Returns
    -------
    dict of str to numpy.ndarray
        Ranker name -> (n_users, k) int64 rankings.

    Examples
    --------
    >>> import pandas as pd
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aabb"), "item_id": list("xyxz"),
    ...                       "rating": [5.0] * 4, "timestamp": [1, 2, 1, 2]})
    >>> data = preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1)
    >>> run_rankers(data, "mostpop", k=2)["mostpop"].tolist()
    [[1, 2], [1, 2]]
    """
    if isinstance(names, str):  # "ease" or "ease,mostpop" or "all" or "paper"
        names = [n.strip() for n in names.split(",") if n.strip()]
    every = names is None or list(names) == ["all"]  # then a ranker that cannot fit is skipped, saying why
    if names is None or every:
        names = available_rankers()
    elif list(names) == ["paper"]:
        names = list(PAPER_RANKERS)
    if split not in ("test", "valid"):
        raise ValueError(f"split must be 'test' or 'valid', got {split!r}")
    params = params or {}
    train = dataset.matrix("train")
    exclude = dataset.matrix("valid") if split == "test" else None
    rankers = {name: make_ranker(name, random_state=random_state, **params.get(name, {})) for name in names}
    if every:  # a ranker that cannot fit is skipped, saying why
        rankers = {name: ranker for name, ranker in rankers.items() if not _cannot_fit(ranker, train)}
    for ranker in rankers.values():  # a named one is refused before any ranker trains
        ranker.check_fits(*train.shape)
    runs = {}
    iterator = list(rankers)
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, desc="rankers", unit="ranker")
    for name in iterator:
        ranker = rankers[name]
        key = run_key(dataset, ranker, seed=random_state, k=k, split=split)
        store = cache if isinstance(ranker, _TRAINED) else None  # the cache folder, when this ranker uses it
        with claimed_entry(store, key):  # the same entry in another run: wait, then read its lists
            stored = load_run(store, key) if store is not None and not retrain else None
            cached = stored is not None
            if stored is None:
                start = time.perf_counter()
                if isinstance(ranker, TorchRanker):
                    checkpoint = checkpoint_path(store, key) if store is not None else None
                    if checkpoint is not None and retrain:
                        checkpoint.unlink(missing_ok=True)
                    ranker.fit(train, valid=exclude, progress=progress, checkpoint=checkpoint)
                else:
                    ranker.fit(train)
                rankings = ranker.recommend(k=k, exclude=exclude)
                seconds = time.perf_counter() - start + getattr(ranker, "resumed_seconds_", 0.0)
                info = {"seconds": seconds, **_training_facts(ranker)}
                if store is not None:
                    save_run(store, key, rankings, info)
                stored = rankings, info
        runs[name] = stored[0]
        if timings is not None:
            timings[name] = stored[1]["seconds"]
        if facts is not None:
            facts[name] = {**stored[1], "cached": cached}
    return runs


def _cannot_fit(ranker, train):
    """Warn and return True when ``ranker``'s dense pieces cannot fit in memory (checked before any is made)."""
    try:
        ranker.check_fits(*train.shape)
    except MemoryNeeded as exc:
        warnings.warn(f"skipping {ranker.name}: {exc}", stacklevel=3)
        return True
    return False


def _training_facts(ranker):
    if not isinstance(ranker, TorchRanker):
        return {}
    return {
        "epochs": ranker.epochs_,
        "best_epoch": ranker.best_epoch_,
        "best_valid_ndcg": ranker.best_valid_ndcg_,
        "stopped_early": ranker.stopped_early_,
        "resumed_from": ranker.resumed_from_,
    }


def _run_header(path, header):
    fields = [cell.strip().lower().split(":")[0] for cell in header]
    users = [i for i, f in enumerate(fields) if f in ("user", "user_id")]
    items = [i for i, f in enumerate(fields) if f in ("item", "item_id")]
    orders = [i for i, f in enumerate(fields) if f in ("rank", "score")]
    if len(users) != 1 or len(items) != 1 or len(orders) != 1:
        raise ValueError(
            f"{path}: line 1: the header must name one user column (user or user_id), one item "
            f"column (item or item_id) and one of rank or score; got {header}"
        )
    return users[0], items[0], orders[0], fields[orders[0]]


def read_run(
    path: str | os.PathLike[str],
    dataset: SplitDataset,
    *,
    k: int | None = None,
    split: str = "test",
    missing: str = "error",
) -> NDArray[np.int64]:
    """Read a run file (CSV or TSV of user, item, rank or score) into rankings.

    Parameters
    ----------
    path : str or os.PathLike
        A header line naming ``user`` (or ``user_id``), ``item`` (or
        ``item_id``) and ``rank`` (1 = best) or ``score`` (higher = better),
        then one line per recommended item. Tab-separated when the file ends
        in ``.tsv`` or its header holds a tab, else comma-separated.
    dataset : puf.data.SplitDataset
        The dataset the run ranks; ids are its external ids.
    k : int, optional
        Keep each user's best k; default the longest list.
    split : {"test", "valid"}
        Split whose relevance will judge the run: a listed user with an empty
        one is an error.
    missing : {"error", "pad"}, default "error"
        A dataset user the run does not list is an error (the population
        measures need every user's list), or gets an empty (all ``-1``) list.

    Returns
    -------
    numpy.ndarray, shape (n_users, k), int64
        Internal item ids, best first; ``-1`` pads short lists (and, with
        ``missing="pad"``, the rows of users the run does not list).

    Raises
    ------
    ValueError
        Bad header, wrong number of cells, a non-numeric rank/score, a user or
        item not in the dataset, an item listed twice for a user, a user with
        an empty ``split`` set: the message names the file and line. A user
        the run omits (unless ``missing="pad"``).

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
    path = os.fspath(path)
    if missing not in ("error", "pad"):
        raise ValueError(f"missing must be 'error' or 'pad', got {missing!r}")
    with open(path, encoding="utf-8-sig", newline="") as handle:  # -sig: spreadsheets' BOM
        text = handle.read()
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise ValueError(f"{path}: line 1: empty file; expected a header user,item,rank|score")
    delimiter = "\t" if path.endswith(".tsv") or "\t" in lines[0] else ","
    entries = _run_entries(path, list(csv.reader(lines, delimiter=delimiter)), dataset, split)
    if not entries:
        raise ValueError(f"{path}: no recommendations after the header")
    table = pd.DataFrame(entries, columns=["user", "item", "key", "line"])
    absent = np.setdiff1d(np.arange(dataset.n_users), table["user"].to_numpy())
    if absent.size and missing == "error":
        raise ValueError(
            f"{path}: the run lists no item for {absent.size} of the {dataset.n_users} users of "
            f"dataset {dataset.name!r} (first: {dataset.users[int(absent[0])]!r}); the fairness "
            "measures need every user's list"
        )
    table = table.sort_values(["user", "key", "line"], kind="stable")
    position = table.groupby("user").cumcount().to_numpy()
    longest = int(position.max()) + 1
    k = longest if k is None else check_k(k)
    keep = position < k
    rankings = np.full((dataset.n_users, k), -1, dtype=np.int64)
    rankings[table["user"].to_numpy()[keep], position[keep]] = table["item"].to_numpy()[keep]
    return rankings


def _run_entries(path, rows, dataset, split):
    """(user, item, sort key, line) per recommendation line; every bad line is named."""
    u_col, i_col, o_col, order = _run_header(path, rows[0])
    width = len(rows[0])
    user_index = pd.Index(np.asarray(dataset.users, dtype=object))
    item_index = pd.Index(np.asarray(dataset.items, dtype=object))
    empty = np.diff(dataset.matrix(split).indptr) == 0
    seen, entries = {}, []
    for number, row in enumerate(rows[1:], start=2):
        if not row or not any(cell.strip() for cell in row):
            continue
        if len(row) != width:
            raise ValueError(f"{path}: line {number}: expected {width} cells, got {len(row)}")
        user_id, item_id = row[u_col].strip(), row[i_col].strip()
        try:
            value = float(row[o_col])
        except ValueError:
            raise ValueError(f"{path}: line {number}: {order} {row[o_col]!r} is not a number") from None
        if not np.isfinite(value):
            raise ValueError(f"{path}: line {number}: {order} {row[o_col]!r} is not finite")
        user = user_index.get_indexer([user_id])[0]
        if user < 0:
            raise ValueError(
                f"{path}: line {number}: user {user_id!r} is not in dataset {dataset.name!r} (after preprocessing)"
            )
        item = item_index.get_indexer([item_id])[0]
        if item < 0:
            raise ValueError(
                f"{path}: line {number}: item {item_id!r} is not in dataset {dataset.name!r} (after preprocessing)"
            )
        if empty[user]:
            raise ValueError(
                f"{path}: line {number}: user {user_id!r} has an empty {split} set "
                f"in dataset {dataset.name!r}; the run cannot be judged for it"
            )
        if (user, item) in seen:
            raise ValueError(
                f"{path}: line {number}: item {item_id!r} is listed twice for user "
                f"{user_id!r} (first on line {seen[user, item]})"
            )
        seen[user, item] = number
        entries.append((user, item, value if order == "rank" else -value, number))
    return entries
