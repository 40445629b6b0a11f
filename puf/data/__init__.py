"""Real data: RecBole atomic files, the datasets and their sources, preprocessing.

>>> from puf.data import DATASETS
>>> list(DATASETS)
['ml-100k', 'ml-1m', 'ml-10m', 'ml-20m', 'lastfm']
"""

__all__ = [
    "ATOMIC_TYPES",
    "ArchiveSource",
    "CONVERTERS",
    "DATASETS",
    "DatasetSource",
    "DownloadError",
    "GENRE_FIELDS",
    "SplitDataset",
    "cache_dir",
    "convert",
    "dataset_name",
    "download",
    "fetch",
    "genre_features",
    "kcore",
    "list_cached",
    "load",
    "load_atomic",
    "preprocess",
    "qk_video",
    "read_atomic",
    "split_by_time",
    "to_world",
    "verify",
    "write_atomic",
]

from .atomic import ATOMIC_TYPES, read_atomic, write_atomic
from .convert import CONVERTERS, convert, qk_video
from .download import DownloadError, download
from .dataset_cache import cache_dir, fetch, list_cached, verify
from .loading import GENRE_FIELDS, dataset_name, genre_features, load, load_atomic, to_world
from .preprocessing import SplitDataset, kcore, preprocess, split_by_time
from .sources import DATASETS, ArchiveSource, DatasetSource
