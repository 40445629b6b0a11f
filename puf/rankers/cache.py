"""A disk cache of trained rankers' top-k lists, keyed by (dataset, ranker, seed, settings).

Training the paper's neural rankers takes minutes; a second ``puf evaluate``
or ``puf report`` on the same data, ranker, seed and settings reads the lists
back instead. The key hashes the dataset's interactions (all three splits),
the ranker's constructor parameters (its repr), the seed, k, the split and the
puf-harness version, so a change to any of them trains again. Each entry is one
``.npz`` file holding the lists, the training facts (seconds, epochs) and its own
key: a file copied over another entry's name is not read as that entry (it is
trained again), and an entry is written whole or not at all (:func:`puf.files.atomic_file`).
Each entry has its own lock (:func:`claimed_entry`): runs of other rankers or settings use the
cache side by side, and a second run of the same entry waits for the first's lists, then reads
them instead of training again.
"""

from __future__ import annotations

__all__ = ["checkpoint_path", "claimed_entry", "load_run", "run_key", "save_run"]

import contextlib
import hashlib
import json
import os
import pathlib
import zipfile
from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._base import Ranker


def _digest(dataset):
    hasher = hashlib.sha256(str(dataset.name).encode())
    for split in ("train", "valid", "test"):
        matrix = dataset.matrix(split)
        for part in (matrix.indptr, matrix.indices):
            hasher.update(np.ascontiguousarray(part, dtype=np.int64).tobytes())
    return hasher.hexdigest()


def run_key(dataset: Any, ranker: Ranker, *, seed: int | None, k: int, split: str) -> str:
    """The cache file name for these lists: readable prefix, then a hash of everything.

    Examples
    --------
    >>> import pandas as pd
    >>> from puf.data import preprocess
    >>> from puf.rankers import MostPop
    >>> frame = pd.DataFrame({"user_id": list("aabb"), "item_id": list("xyxz"),
    ...                       "rating": [5.0] * 4, "timestamp": [1, 2, 1, 2]})
    >>> data = preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1, name="toy")
    >>> run_key(data, MostPop(random_state=0), seed=0, k=10, split="test")[:22]
    'toy-mostpop-seed0-k10-'
    """
    from .. import __version__

    settings = {
        "data": _digest(dataset),
        "ranker": repr(ranker),
        "seed": seed,
        "k": k,
        "split": split,
        "puf-harness": __version__,
    }
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]
    name = str(dataset.name).replace(os.sep, "_")
    return f"{name}-{ranker.name}-seed{seed}-k{k}-{split}-{digest}.npz"


def checkpoint_path(folder: str | os.PathLike[str], key: str) -> pathlib.Path:
    """Where a torch ranker keeps its training state while it trains the lists of ``key``.

    Examples
    --------
    >>> checkpoint_path("runs", "toy-ncl-seed0-k10-test-0123.npz").name
    'toy-ncl-seed0-k10-test-0123.checkpoint.pt'
    """
    return pathlib.Path(folder) / f"{key.removesuffix('.npz')}.checkpoint.pt"


@contextlib.contextmanager
def claimed_entry(folder: str | os.PathLike[str] | None, key: str) -> Iterator[None]:
    """Hold the lock of entry ``key`` of ``folder`` for the body, waiting while another run holds it.

    Check for the entry (:func:`load_run`), train and store it (:func:`save_run`) inside the
    body: a second run of the same entry then finds the first one's lists. ``folder=None``
    (no cache) holds nothing.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with claimed_entry(folder, "toy-mostpop-seed0-k10-test-0123.npz"):
    ...     sorted(p.name for p in folder.iterdir())
    ['.toy-mostpop-seed0-k10-test-0123.npz.lock']
    >>> list(folder.iterdir())
    []
    """
    if folder is None:
        yield
        return
    from ..files import hold_lock

    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with hold_lock(folder / f".{key}.lock", what=f"run cache entry {folder / key}", wait=True):
        yield


def load_run(folder: str | os.PathLike[str], key: str) -> tuple[NDArray[np.int64], dict[str, Any]] | None:
    """Return ``(rankings, facts)`` stored under ``key`` in ``folder``, or None.

    An unreadable entry (e.g. cut short by a crash), and one whose stored key
    is not ``key`` (another entry's file copied over this one), count as absent.

    Examples
    --------
    >>> import tempfile
    >>> load_run(tempfile.mkdtemp(), "absent.npz") is None
    True
    """
    path = pathlib.Path(folder) / key
    try:
        with np.load(path, allow_pickle=False) as stored:
            if "key" not in stored.files or str(stored["key"]) != pathlib.Path(key).name:
                return None
            return stored["rankings"].astype(np.int64), json.loads(str(stored["facts"]))
    # A cut-short or overwritten file is not a zip (BadZipFile) or ends early (EOFError).
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None


def save_run(folder: str | os.PathLike[str], key: str, rankings: ArrayLike, facts: dict[str, Any]) -> None:
    """Store ``rankings`` and the JSON-able ``facts`` under ``key`` (atomic rename).

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> folder = tempfile.mkdtemp()
    >>> save_run(folder, "x.npz", np.array([[1, 2]]), {"seconds": 1.5})
    >>> rankings, facts = load_run(folder, "x.npz")
    >>> rankings.tolist(), facts
    ([[1, 2]], {'seconds': 1.5})
    >>> import shutil; _ = shutil.copy(f"{folder}/x.npz", f"{folder}/y.npz")
    >>> load_run(folder, "y.npz") is None  # x's lists are not y's
    True
    """
    from ..files import atomic_file

    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_file(folder / key, "wb") as handle:
        np.savez(
            handle, rankings=np.asarray(rankings, dtype=np.int64), facts=json.dumps(facts), key=pathlib.Path(key).name
        )
