"""The split ``puf evaluate`` judges on, written out: train a model elsewhere on the same users and items.

RecBole reads a split that is already made from three atomic files named
``NAME.train.inter``, ``NAME.valid.inter`` and ``NAME.test.inter`` (its
``benchmark_filename: [train, valid, test]`` option); trec_eval, ranx and most IR
evaluation code read relevance from a qrels file. :func:`write_split` writes both,
with the items file in the harness's internal order, so lists made from these files
alone and read back with ``puf evaluate --run`` are judged on exactly this split.
"""

from __future__ import annotations

__all__ = ["SPLIT_FILES", "write_split"]

import json
import os
import pathlib
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from ..data import SplitDataset

#: The files :func:`write_split` writes, ``{name}`` the dataset's name.
SPLIT_FILES = (
    "{name}.train.inter",
    "{name}.valid.inter",
    "{name}.test.inter",
    "{name}.item",
    "{name}.test.qrels",
    "{name}.split.json",
)

_TYPES = {"user_id": "token", "item_id": "token", "rating": "float", "timestamp": "float"}


def _atomic(frame: pd.DataFrame) -> str:
    """An interactions frame as a RecBole ``.inter`` file's text (whole-number floats written whole)."""
    kept = [c for c in _TYPES if c in frame.columns]
    table = frame[kept].copy()
    for column in kept:
        values = table[column]
        if _TYPES[column] == "float" and np.all(np.mod(values.to_numpy(dtype=np.float64), 1) == 0):
            table[column] = values.astype(np.int64)
    table.columns = [f"{c}:{_TYPES[c]}" for c in kept]
    return table.to_csv(sep="\t", index=False, lineterminator="\n")


def _items(dataset: SplitDataset) -> str:
    """The items in internal order (line i + 2 is item i), with their genres when the dataset has them."""
    ids = [str(item) for item in dataset.items]
    if dataset.item_features is None:
        return "item_id:token\n" + "".join(f"{item}\n" for item in ids)
    names = np.asarray(dataset.feature_names, dtype=object)
    genres = [" ".join(names[np.flatnonzero(row)]) for row in np.asarray(dataset.item_features)]
    return "item_id:token\tgenre:token_seq\n" + "".join(f"{i}\t{g}\n" for i, g in zip(ids, genres))


def _qrels(frame: pd.DataFrame) -> str:
    """TREC relevance judgements: ``user 0 item 1`` per test interaction (relevance is binary)."""
    return "".join(f"{u} 0 {i} 1\n" for u, i in zip(frame["user_id"], frame["item_id"]))


def write_split(dataset: SplitDataset, folder: str | os.PathLike[str]) -> list[pathlib.Path]:
    """Write ``dataset``'s train, validation and test interactions, items and test qrels into ``folder``.

    Parameters
    ----------
    dataset : puf.data.SplitDataset
        The split, e.g. ``puf.data.load("ml-100k")`` (what ``puf evaluate --data ml-100k`` judges on).
    folder : str or os.PathLike
        An existing folder; files of these names in it are replaced.

    Returns
    -------
    list of pathlib.Path
        The files written (:data:`SPLIT_FILES`): three RecBole ``.inter`` files (user, item,
        rating, timestamp, external ids), the ``.item`` file (internal order, genres as
        ``genre:token_seq``), the test split as TREC qrels and ``.split.json`` (the users,
        items and preprocessing parameters).

    Examples
    --------
    >>> import pathlib, tempfile, pandas as pd
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aabb"), "item_id": list("xyyx"),
    ...                       "rating": [5.0] * 4, "timestamp": [1, 2, 1, 2]})
    >>> data = preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1, name="toy")
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> [path.name for path in write_split(data, folder)][:3]
    ['toy.train.inter', 'toy.valid.inter', 'toy.test.inter']
    >>> print((folder / "toy.test.inter").read_text(), end="")
    user_id:token	item_id:token	rating:float	timestamp:float
    a	y	5	2
    b	x	5	2
    >>> print((folder / "toy.test.qrels").read_text(), end="")
    a 0 y 1
    b 0 x 1
    """
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise ValueError(f"folder {str(folder)!r}: no such folder")
    name = dataset.name or "dataset"
    texts = [_atomic(dataset.split(part)) for part in ("train", "valid", "test")]
    texts += [_items(dataset), _qrels(dataset.test)]
    facts = {
        "dataset": name,
        "users": dataset.n_users,
        "items": dataset.n_items,
        "interactions": {part: len(dataset.split(part)) for part in ("train", "valid", "test")},
        "preprocessing": {key: list(v) if isinstance(v, tuple) else v for key, v in dataset.params.items()},
    }
    texts.append(json.dumps(facts, indent=2) + "\n")
    written = []
    for pattern, text in zip(SPLIT_FILES, texts):
        path = folder / pattern.format(name=name)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
