"""The dataset cache: where it is, how an entry is verified, what it holds.

The cache is ``cache=`` if given, else ``$PUF_HARNESS_CACHE``, else
``$XDG_CACHE_HOME/puf-harness``, else ``~/.cache/puf-harness``. Each dataset is a folder
with its atomic files next to a ``MANIFEST.json`` that records their checksums;
:mod:`puf.data.fetch` fills it and re-exports these names.
"""

from __future__ import annotations

__all__ = [
    "ARCHIVES",
    "MANIFEST",
    "cache_dir",
    "dataset_source",
    "list_cached",
    "read_manifest",
    "sha256",
    "verify",
]

import hashlib
import json
import os
import pathlib
from typing import Any

from .sources import DATASETS, ArchiveSource, DatasetSource

#: The cache entry's file listing each file with its checksum.
MANIFEST = "MANIFEST.json"
#: The cache's record of archive checksums.
ARCHIVES = "archives.json"  # SHA-256 of the first download of archives without a published one


def cache_dir(cache: str | os.PathLike[str] | None = None) -> pathlib.Path:
    """Return the cache folder: ``cache``, ``$PUF_HARNESS_CACHE``, XDG, or ``~/.cache``.

    Parameters
    ----------
    cache : str or os.PathLike, optional
        Explicit folder; wins over the environment.

    Returns
    -------
    pathlib.Path
        The folder (not created).

    Examples
    --------
    >>> str(cache_dir("/tmp/my-cache"))
    '/tmp/my-cache'
    """
    if cache is not None:
        return pathlib.Path(cache).expanduser()
    if os.environ.get("PUF_HARNESS_CACHE"):
        return pathlib.Path(os.environ["PUF_HARNESS_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "puf-harness"


def dataset_source(name: str) -> DatasetSource | ArchiveSource:
    """The pinned source of dataset ``name``; a ValueError listing the known ones if unknown."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known datasets: {', '.join(DATASETS)}")
    return DATASETS[name]


def sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file, as lowercase hex.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x"
    >>> _ = path.write_bytes(b"")
    >>> sha256(path)[:16]
    'e3b0c44298fc1c14'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(folder: str | os.PathLike[str], name: str) -> dict[str, str]:
    """Check every file of dataset ``name`` in ``folder`` against its pinned SHA-256.

    Parameters
    ----------
    folder : str or os.PathLike
        Folder holding the dataset's atomic files.
    name : str
        Dataset name, a key of :data:`DATASETS`.

    Returns
    -------
    dict of str to str
        File name -> SHA-256 (all matching).

    Raises
    ------
    ValueError
        A file is missing or its checksum differs; the message names the file
        and both checksums. An unknown ``name``.

    Examples
    --------
    >>> import tempfile
    >>> verify(tempfile.mkdtemp(), "ml-100k")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../ml-100k.inter: missing file of dataset 'ml-100k'
    """
    source = dataset_source(name)
    folder = pathlib.Path(folder)
    found = {}
    for file_name, expected in _expected_checksums(folder, name, source).items():
        path = folder / file_name
        if not path.is_file():
            raise ValueError(f"{path}: missing file of dataset {name!r}")
        actual = sha256(path)
        if actual != expected:
            raise ValueError(
                f"{path}: checksum mismatch for dataset {name!r}: expected sha256 {expected}, got {actual}"
            )
        found[file_name] = actual
    return found


def _expected_checksums(folder, name, source):
    """The pinned checksums of a wheel's files; a converted archive's, from its manifest."""
    if not isinstance(source, ArchiveSource):
        return source.files
    path = folder / MANIFEST
    try:
        files = json.loads(path.read_text(encoding="utf-8"))["files"]
        return {f: files[f]["sha256"] for f in source.files}
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"{path}: missing file or unreadable record of dataset {name!r}") from None


def list_cached(cache: str | os.PathLike[str] | None = None, *, check: bool = False) -> list[dict[str, Any]]:
    """List the datasets in the cache with their source and files.

    Parameters
    ----------
    cache : str or os.PathLike, optional
        Cache folder (see :func:`cache_dir` for the default).

    check : bool, default False
        Also verify every entry's files against the pinned checksums (reads
        them all) and add ``status``: ``"ok"``, or why the entry is damaged
        (``puf data fetch NAME`` replaces a damaged entry).

    Returns
    -------
    list of dict
        One entry per cached dataset with ``dataset``, ``path``, ``source``,
        ``fetched``, ``bytes`` and ``files`` (name -> sha256), sorted by name;
        with ``check``, also ``status``. An unreadable manifest is listed as
        damaged when ``check`` is true (skipped otherwise).

    Examples
    --------
    >>> import tempfile
    >>> list_cached(tempfile.mkdtemp())
    []
    """
    root = cache_dir(cache)
    if not root.is_dir():
        return []
    entries = []
    for manifest in sorted(root.glob(f"*/{MANIFEST}")):
        if manifest.parent.name.startswith("."):
            continue
        try:
            data = read_manifest(manifest.parent)
            files = data.get("files", {})
            entry = {
                "dataset": data.get("dataset", manifest.parent.name),
                "path": str(manifest.parent),
                "source": data.get("source", ""),
                "fetched": data.get("fetched", ""),
                "bytes": sum(int(f.get("bytes", 0)) for f in files.values()),
                "files": {k: f.get("sha256", "") for k, f in files.items()},
            }
        except (OSError, ValueError, TypeError, AttributeError):
            if not check:
                continue
            entry = {
                "dataset": manifest.parent.name,
                "path": str(manifest.parent),
                "source": "",
                "fetched": "",
                "bytes": 0,
                "files": {},
                "status": f"damaged: unreadable {MANIFEST}",
            }
        if check and "status" not in entry:
            entry["status"] = _entry_status(manifest.parent, entry["dataset"])
        entries.append(entry)
    return entries


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """Return the manifest of the cache entry ``folder`` as a dict; ValueError if unreadable.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / MANIFEST).write_text("{not json")
    >>> read_manifest(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../MANIFEST.json: unreadable MANIFEST.json (not JSON: ...)
    """
    path = pathlib.Path(folder) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{path}: unreadable {MANIFEST} (not UTF-8 text)") from None
    except ValueError as exc:
        raise ValueError(f"{path}: unreadable {MANIFEST} (not JSON: {exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("files", {}), dict):
        raise ValueError(f"{path}: unreadable {MANIFEST} (not a manifest's fields)")
    return data


def _entry_status(folder, name):
    if name not in DATASETS:
        return f"damaged: unknown dataset {name!r} in {MANIFEST}"
    try:
        verify(folder, name)
    except ValueError as exc:  # "<path>: missing file ..." or "<path>: checksum mismatch ..."
        path, _, reason = str(exc).partition(": ")
        what = "missing" if reason.startswith("missing") else "checksum mismatch"
        return f"damaged: {pathlib.Path(path).name} {what}"
    except OSError as exc:
        return f"damaged: {exc.strerror or exc}"
    return "ok"
