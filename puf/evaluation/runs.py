"""Runs: ranked lists from the built-in baselines, trained on the split (their lists cached on disk)."""

from __future__ import annotations

__all__ = ["run_rankers"]

import os
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..memory import MemoryNeeded
from ..rankers import PAPER_RANKERS, available_rankers, make_ranker
from ..rankers.cache import checkpoint_path, claimed_entry, load_run, run_key, save_run
from ..rankers.factorization import ALS, BPR
from ..rankers.neural import TorchRanker
from ..rankers.nmf import NMF

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
