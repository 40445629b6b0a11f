"""Load a dataset by name or path into a :class:`~puf.data.SplitDataset`, and derive from it.

``load("ml-100k")`` fetches (see :mod:`puf.data.dataset_cache`), reads the atomic
files, preprocesses (see :mod:`puf.data.preprocessing`) and attaches the items'
genres as multi-hot ``item_features``. :func:`to_world` wraps a dataset and
ranked lists as a :class:`puf.World`, from which everything a measure reads is
derived (:meth:`puf.World.population`).
"""

from __future__ import annotations

__all__ = ["GENRE_FIELDS", "dataset_name", "genre_features", "load", "load_atomic", "to_world"]

import dataclasses
import os
import pathlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ..world import World
from .atomic import read_atomic
from .dataset_cache import fetch
from .fields import one_row_per_key
from .preprocessing import SplitDataset, preprocess
from .sources import DATASETS

#: Item fields read as genres (the item features), first match wins.
GENRE_FIELDS = ("genre", "genres", "class", "category", "categories", "tags")
NO_FEATURE = "(none)"


def genre_features(
    items: Sequence[str], item_table: pd.DataFrame, *, field: str | None = None, item: str = "item_id"
) -> tuple[NDArray[np.float64], tuple[str, ...]]:
    """Multi-hot genre matrix for ``items`` from an ``.item`` table.

    Parameters
    ----------
    items : sequence of str
        External item ids, in the order of the matrix rows.
    item_table : pandas.DataFrame
        The ``.item`` file (see :func:`~puf.data.read_atomic`).
    field : str, optional
        The genre column; default the first of :data:`GENRE_FIELDS` present.
        A ``token_seq`` column holds tuples; a ``token`` column is split on spaces.
    item : str, default "item_id"
        The item id column.

    Returns
    -------
    features : numpy.ndarray, shape (len(items), f)
        float64 0/1; every row sums to at least 1: an item without a genre (or
        missing from the table) gets the extra feature ``"(none)"``.
    names : tuple of str
        Feature names, sorted.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"item_id": ["a", "b"], "genre": [("Drama", "War"), ("Drama",)]})
    >>> features, names = genre_features(["b", "a", "c"], table)
    >>> names, features.tolist()
    (('(none)', 'Drama', 'War'), [[0.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    """
    if field is None:
        field = next((f for f in GENRE_FIELDS if f in item_table), None)
        if field is None:
            raise ValueError(
                f"item table has no genre column (tried {GENRE_FIELDS}); "
                f"columns: {list(item_table.columns)}; pass field="
            )
    if field not in item_table or item not in item_table:
        raise ValueError(f"item table needs columns {item!r} and {field!r}; columns: {list(item_table.columns)}")
    item_table = one_row_per_key(item_table, item, what="item")  # not "the last row wins"
    genres = item_table[field].map(
        lambda v: tuple(v) if isinstance(v, tuple) else tuple(str(v).split()) if pd.notna(v) else ()
    )
    lookup = dict(zip(item_table[item].astype(str), genres))
    rows = [lookup.get(str(i), ()) for i in items]
    names = sorted({g for row in rows for g in row})
    if any(not row for row in rows):
        names = [NO_FEATURE] + [n for n in names if n != NO_FEATURE]
    column = {n: j for j, n in enumerate(names)}
    features = np.zeros((len(rows), len(names)), dtype=np.float64)
    r = [i for i, row in enumerate(rows) for _ in (row or (NO_FEATURE,))]
    c = [column[g] for row in rows for g in (row or (NO_FEATURE,))]
    features[r, c] = 1.0
    return features, tuple(names)


def load_atomic(
    inter: str | os.PathLike[str],
    item: str | os.PathLike[str] | None = None,
    *,
    name: str | None = None,
    genre_field: str | None = None,
    **options: Any,
) -> SplitDataset:
    """Read an ``.inter`` file (and optionally an ``.item`` file) and preprocess it.

    Parameters
    ----------
    inter : str or os.PathLike
        The interactions atomic file.
    item : str or os.PathLike, optional
        The items atomic file; supplies ``item_features`` from its genre column.
    name : str, optional
        Dataset name; default the file's stem.
    genre_field : str, optional
        Genre column of the ``.item`` file (see :func:`genre_features`).
    **options
        Passed to :func:`~puf.data.preprocess` (threshold, core, ratios, min_train, ...).

    Returns
    -------
    SplitDataset

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> rows = [f"u{u}\\ti{i}\\t5\\t{10 * u + i}" for u in range(2) for i in range(3)]
    >>> _ = (folder / "toy.inter").write_text(
    ...     "user_id:token\\titem_id:token\\trating:float\\ttimestamp:float\\n" + "\\n".join(rows))
    >>> data = load_atomic(folder / "toy.inter", core=1, min_train=1)
    >>> data.name, data.n_users, data.n_items, data.item_features is None
    ('toy', 2, 3, True)
    """
    inter = pathlib.Path(inter)
    data = preprocess(read_atomic(inter), name=name or inter.stem, **options)
    if item is None:
        return data
    features, names = genre_features(data.items, read_atomic(item), field=genre_field)
    return dataclasses.replace(data, item_features=features, feature_names=names)


def load(
    name_or_path: str | os.PathLike[str],
    *,
    cache: str | os.PathLike[str] | None = None,
    genre_field: str | None = None,
    **options: Any,
) -> SplitDataset:
    """Load a known dataset by name, or atomic files by path, preprocessed.

    Parameters
    ----------
    name_or_path : str or os.PathLike
        a name of :data:`~puf.data.DATASETS` (fetched into the cache on first use), a
        folder holding one ``<stem>.inter`` (and ``<stem>.item``), or an
        ``.inter`` file (its sibling ``.item``, if any, is read too).
    cache : str or os.PathLike, optional
        Cache folder for known datasets.
    genre_field : str, optional
        Genre column of the ``.item`` file.
    **options
        Passed to :func:`~puf.data.preprocess`.

    Returns
    -------
    SplitDataset
        With ``item_features`` (multi-hot genres) when an ``.item`` file exists.

    Examples
    --------
    >>> load("no-such-dataset")
    Traceback (most recent call last):
    ...
    ValueError: unknown dataset 'no-such-dataset': neither a known name (ml-100k, ml-1m, ml-10m, ml-20m, lastfm) nor an existing file or folder
    """
    text = os.fspath(name_or_path)
    inter = fetch(text, cache=cache) / f"{text}.inter" if text in DATASETS else _inter_file(text)
    item = inter.with_suffix(".item")
    return load_atomic(
        inter,
        item if item.is_file() else None,
        name=dataset_name(text),
        genre_field=genre_field,
        **options,
    )


def _inter_file(text):
    """The ``.inter`` file of a path: the file itself, or a folder's only one; else a ValueError."""
    path = pathlib.Path(text)
    if path.is_dir():
        found = sorted(path.glob("*.inter"))
        if len(found) != 1:
            raise ValueError(f"{path}: expected exactly one .inter file, found {len(found)}")
        return found[0]
    if path.is_file():
        return path
    raise ValueError(
        f"unknown dataset {text!r}: neither a known name ({', '.join(DATASETS)}) nor an existing file or folder"
    )


def dataset_name(name_or_path: str | os.PathLike[str]) -> str:
    """The name :func:`load` gives a dataset, found without fetching or reading it.

    Parameters
    ----------
    name_or_path : str or os.PathLike
        As for :func:`load`.

    Returns
    -------
    str
        The known dataset's name, or the stem of the ``.inter`` file.

    Raises
    ------
    ValueError
        As :func:`load`: neither a known name nor an existing file or folder, or a folder
        without exactly one ``.inter`` file.

    Examples
    --------
    >>> dataset_name("ml-100k")
    'ml-100k'
    >>> import pathlib, tempfile
    >>> inter = pathlib.Path(tempfile.mkdtemp()) / "toy.inter"
    >>> _ = inter.write_text("")
    >>> dataset_name(inter.parent)
    'toy'
    """
    text = os.fspath(name_or_path)
    return text if text in DATASETS else _inter_file(text).stem


def to_world(dataset: SplitDataset, rankings: ArrayLike, *, split: str = "test") -> World:
    """Wrap a dataset and ranked lists as a :class:`puf.World`.

    Parameters
    ----------
    dataset : SplitDataset
        Needs ``item_features``.
    rankings : array_like of int, shape (n_users, k)
        Internal item ids, -1 padding.
    split : {"test", "valid"}
        Which split is the relevance.

    Returns
    -------
    puf.World

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aabb"), "item_id": list("xyxy"),
    ...                       "rating": [5.0] * 4, "timestamp": [1, 2, 1, 2]})
    >>> data = dataclasses.replace(preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1),
    ...                            item_features=np.eye(2))
    >>> to_world(data, [[1], [1]]).population(metric="precision").effectiveness.tolist()
    [1.0, 1.0]
    """
    if dataset.item_features is None:
        raise ValueError(f"dataset {dataset.name!r} has no item_features (no .item file); a World needs them")
    return World(
        histories=dataset.matrix("train"),
        relevance=dataset.matrix(split),
        rankings=rankings,
        item_features=dataset.item_features,
    )
