"""Load a dataset by name or path into a :class:`~puf.data.SplitDataset`, and derive from it.

``load("ml-100k")`` fetches (see :mod:`puf.data.fetch`), reads the atomic
files, preprocesses (see :mod:`puf.data.preprocess`) and attaches the items'
genres as multi-hot ``item_features``. :func:`real_base` gives what the
real-data sweeps read: Jaccard similarities from the training histories plus
per-user arrays. :func:`to_world` wraps a dataset and ranked lists as a
:class:`puf.World`.
"""

__all__ = ["GENRE_FIELDS", "RealBase", "genre_features", "load", "load_atomic", "real_base",
           "to_world"]

import dataclasses
import os
import pathlib

import numpy as np
import pandas as pd

from ..validation import check_k, check_random_state
from .atomic import read_atomic
from .fetch import fetch
from .preprocess import preprocess
from .sources import DATASETS

GENRE_FIELDS = ("genre", "genres", "class", "category", "categories")
NO_FEATURE = "(none)"


def genre_features(items, item_table, *, field=None, item="item_id"):
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
            raise ValueError(f"item table has no genre column (tried {GENRE_FIELDS}); "
                             f"columns: {list(item_table.columns)}; pass field=")
    if field not in item_table or item not in item_table:
        raise ValueError(f"item table needs columns {item!r} and {field!r}; "
                         f"columns: {list(item_table.columns)}")
    genres = item_table[field].map(lambda v: tuple(v) if isinstance(v, tuple) else
                                   tuple(str(v).split()) if pd.notna(v) else ())
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


def load_atomic(inter, item=None, *, name=None, genre_field=None, **options):
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


def load(name_or_path, *, cache=None, genre_field=None, **options):
    """Load a known dataset by name, or atomic files by path, preprocessed.

    Parameters
    ----------
    name_or_path : str or os.PathLike
        ``"ml-100k"`` or ``"ml-1m"`` (fetched into the cache on first use), a
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
    ValueError: unknown dataset 'no-such-dataset': neither a known name (ml-100k, ml-1m) nor an existing file or folder
    """
    text = os.fspath(name_or_path)
    if text in DATASETS:
        folder, stem = fetch(text, cache=cache), text
        inter = folder / f"{stem}.inter"
    else:
        path = pathlib.Path(text)
        if path.is_dir():
            found = sorted(path.glob("*.inter"))
            if len(found) != 1:
                raise ValueError(f"{path}: expected exactly one .inter file, found {len(found)}")
            inter = found[0]
        elif path.is_file():
            inter = path
        else:
            raise ValueError(f"unknown dataset {text!r}: neither a known name "
                             f"({', '.join(DATASETS)}) nor an existing file or folder")
    item = inter.with_suffix(".item")
    return load_atomic(inter, item if item.is_file() else None,
                       name=text if text in DATASETS else inter.stem,
                       genre_field=genre_field, **options)


@dataclasses.dataclass(frozen=True)
class RealBase:
    """Real-data arrays for the sweeps: similarities and per-user facts.

    Attributes
    ----------
    name : str
        Dataset name.
    users : numpy.ndarray, shape (m,)
        External user ids.
    similarity : numpy.ndarray, shape (m, m)
        Symmetric user similarity in [0, 1] from the training histories (read-only).
    history_length : numpy.ndarray, shape (m,)
        |H_u|, the number of training items (int64).
    n_relevant : numpy.ndarray, shape (m,)
        Number of relevant test items (int64).
    histories, relevance : scipy.sparse.csr_matrix, shape (m, n)
        Binary training histories and test relevance.
    item_features : numpy.ndarray or None, shape (n, f)
        Multi-hot genres.

    Examples
    --------
    >>> import pandas as pd
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aabb"), "item_id": list("xyxz"),
    ...                       "timestamp": [1, 2, 1, 2]})
    >>> base = real_base(preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1))
    >>> base.users.tolist(), base.n_relevant.tolist()
    (['a', 'b'], [1, 1])
    """

    name: str
    users: np.ndarray
    similarity: np.ndarray
    history_length: np.ndarray
    n_relevant: np.ndarray
    histories: object
    relevance: object
    item_features: np.ndarray | None

    @property
    def m(self):
        """Number of users.

        Examples
        --------
        >>> import pandas as pd
        >>> from puf.data import preprocess
        >>> frame = pd.DataFrame({"user_id": list("ab"), "item_id": list("xx")})
        >>> real_base(preprocess(frame, core=1, min_train=1)).m
        2
        """
        return len(self.users)


def real_base(dataset, *, similarity="jaccard", gamma=1.0, n_users=None, random_state=None,
              cache=None):
    """Build the real-data base of the sweeps: similarities from histories, per-user arrays.

    Parameters
    ----------
    dataset : SplitDataset or str
        A loaded dataset, or a name / path for :func:`load`.
    similarity : str, default "jaccard"
        A name in :data:`puf.SIMILARITIES` ("js" and "uf" use the genres).
    gamma : float, default 1.0
        Jaccard weight, for ``similarity="uf"`` only.
    n_users : int, optional
        Keep a uniform random subset of this many users (sorted by id), to
        bound the (m, m) cost; default all users.
    random_state : None, int or numpy.random.Generator
        Seeds the subset.
    cache : str or os.PathLike, optional
        Cache folder when ``dataset`` is a name.

    Returns
    -------
    RealBase

    Examples
    --------
    >>> import pandas as pd
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aaabbb"), "item_id": list("xyzxyw"),
    ...                       "rating": [5.0] * 6, "timestamp": [1, 2, 3, 1, 2, 3]})
    >>> base = real_base(preprocess(frame, core=1, ratios=(2, 0, 1), min_train=1))
    >>> base.similarity.round(3).tolist(), base.history_length.tolist()
    ([[1.0, 1.0], [1.0, 1.0]], [2, 2])
    """
    from ..similarity import SIMILARITIES, get_similarity

    if not hasattr(dataset, "matrix"):
        dataset = load(dataset, cache=cache)
    histories, relevance = dataset.matrix("train"), dataset.matrix("test")
    users = np.asarray(dataset.users, dtype=object)
    if n_users is not None:
        n_users = check_k(n_users, name="n_users")
        if n_users < len(users):
            rng = check_random_state(random_state)
            keep = np.sort(rng.choice(len(users), size=n_users, replace=False))
            histories, relevance, users = histories[keep], relevance[keep], users[keep]
    function = get_similarity(similarity)
    if function is SIMILARITIES["uf"]:
        matrix = function(histories, dataset.item_features, gamma=gamma)
    elif function is SIMILARITIES["js"]:
        matrix = function(histories, dataset.item_features)
    else:
        matrix = function(histories)
    matrix = np.array(matrix, dtype=np.float64)
    matrix.flags.writeable = False
    return RealBase(
        name=dataset.name, users=users, similarity=matrix,
        history_length=np.diff(histories.indptr).astype(np.int64),
        n_relevant=np.diff(relevance.indptr).astype(np.int64),
        histories=histories, relevance=relevance, item_features=dataset.item_features,
    )


def to_world(dataset, rankings, *, split="test"):
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
    from ..world import World

    if dataset.item_features is None:
        raise ValueError(f"dataset {dataset.name!r} has no item_features (no .item file); "
                         "a World needs them")
    return World(histories=dataset.matrix("train"), relevance=dataset.matrix(split),
                 rankings=rankings, item_features=dataset.item_features)
