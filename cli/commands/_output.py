"""Output paths checked before the work, and output folders claimed for a run (private).

Each check raises ``ValueError`` with one line naming the option and the path;
the probes write a temporary file rather than trust permission bits (root,
ACLs and read-only mounts make ``os.access`` unreliable). A run writes its
folder through :func:`claimed_folder`: locked for the run, built beside and
moved into place at the end (:mod:`puf.files`).
"""

from __future__ import annotations

__all__ = [
    "check_writable_file",
    "check_output_folder",
    "output_folder",
    "claimed_folder",
    "folder_lock",
    "resolved_folder",
]

from collections.abc import Collection, Iterator
import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from puf.files import hold_lock, staged_folder


def _probe_folder(folder: str | os.PathLike[str]) -> str | None:
    """Return None if a file can be made in ``folder`` and renamed there, else the reason.

    This is what writing an output does (:func:`puf.files.atomic_file`, a staged folder):
    a temporary sibling, renamed over its target.
    """
    probe = renamed = None
    try:
        descriptor, probe = tempfile.mkstemp(dir=folder, prefix=".puf-probe-")
        os.close(descriptor)
        renamed = probe + ".renamed"
        os.replace(probe, renamed)
        probe = None
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    finally:
        for leftover in (probe, renamed):
            if leftover is not None:
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
    return None


def _existing_ancestor(path: Path) -> Path:
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    return ancestor


def check_writable_file(path: str | os.PathLike[str], *, option: str) -> None:
    """Raise ValueError unless ``path`` can be written as a file (nothing is left behind).

    Examples
    --------
    >>> import tempfile
    >>> check_writable_file(tempfile.mkdtemp(), option="--json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --json ...: is a folder, not a file
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{option} {path}: is a folder, not a file")
    with contextlib.suppress(OSError):
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO nobody reads would block for ever
            raise ValueError(
                f"{option} {path}: is not a regular file (a FIFO, a socket or a device); give the path of a file"
            )
    if not path.parent.absolute().is_dir():
        ancestor = _existing_ancestor(path)
        reason = "is a file" if ancestor.exists() and not ancestor.is_dir() else "does not exist"
        raise ValueError(f"{option} {path}: folder {path.parent} {reason}")
    # The file is written as a temporary sibling renamed over it, so its folder is what must be
    # writable, whether or not the file exists (and whatever the file's own permissions).
    folder = Path(os.path.realpath(path)).parent
    refused = _probe_folder(folder)
    if refused:
        raise ValueError(f"{option} {path}: cannot write in {folder} ({refused})")


def check_output_folder(path: str | os.PathLike[str], *, option: str = "--out", force: bool = False) -> None:
    """Raise ValueError unless ``path`` is (or can become) an output folder to write into.

    An existing folder must be empty unless ``force``; a path through a file,
    or under a folder that cannot be written, is refused.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> afile = pathlib.Path(tempfile.mkdtemp()) / "afile.txt"
    >>> _ = afile.write_text("x")
    >>> check_output_folder(afile / "sub")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --out .../afile.txt/sub: .../afile.txt is a file, not a folder
    """
    path = Path(path)
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"{option} {path}: exists and is not a folder")
        if not force and any(p.name != LOCK for p in path.iterdir()):
            raise ValueError(
                f"output folder {path} exists and is not empty; pass --force to write into it, or choose another --out"
            )
        reason = _probe_folder(path)
        if reason:
            raise ValueError(f"{option} {path}: cannot write in it ({reason})")
        return
    ancestor = _existing_ancestor(path)
    if not ancestor.is_dir():
        raise ValueError(f"{option} {path}: {ancestor} is a file, not a folder")
    reason = _probe_folder(ancestor)
    if reason:
        raise ValueError(f"{option} {path}: cannot create it in {ancestor} ({reason})")


@contextlib.contextmanager
def output_folder(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Create ``path`` (and missing parents); if the body fails, remove what was created.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "a" / "b"
    >>> try:
    ...     with output_folder(out):
    ...         raise ValueError("the work failed")
    ... except ValueError:
    ...     pass
    >>> out.parent.exists()
    False
    """
    path = Path(path)
    created = None
    for candidate in [path, *path.absolute().parents]:
        if candidate.exists():
            break
        created = candidate
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--out {path}: cannot create it ({exc.strerror})") from None
    try:
        yield path
    except BaseException:
        if created is not None:
            shutil.rmtree(created, ignore_errors=True)
        raise


def resolved_folder(path: str | os.PathLike[str]) -> Path:
    """``path`` as the folder it names: absolute, its links followed (a link to a missing folder: that folder).

    Resolved once, before the work, so the folder is staged and renamed on its own filesystem.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp()).resolve()
    >>> (root / "link").symlink_to(root / "elsewhere" / "out")
    >>> resolved_folder(root / "link") == root / "elsewhere" / "out"
    True
    """
    return Path(os.path.realpath(os.path.expanduser(path)))


#: The lock file of an existing output folder, inside it.
LOCK = ".puf-lock"


def folder_lock(path: str | os.PathLike[str]) -> Path:
    """The lock file of output folder ``path``: inside it if it exists, else in its nearest existing ancestor.

    Inside the folder when it exists, so a folder the user owns in one they cannot write can be locked.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> folder_lock(root / "new" / "report") == root / ".new-report.puf-lock"
    True
    >>> folder_lock(root) == root / LOCK
    True
    """
    path = Path(os.path.abspath(path))
    if path.is_dir():
        return path / LOCK
    ancestor = _existing_ancestor(path / "x")
    name = "-".join(path.relative_to(ancestor).parts)
    return ancestor / f".{name}.puf-lock"


@contextlib.contextmanager
def claimed_folder(
    path: str | os.PathLike[str],
    *,
    force: bool,
    wait: bool,
    command: str,
    option: str = "--out",
    stale: Collection[str] = (),
) -> Iterator[Path]:
    """Lock output folder ``path`` for the body's length and yield the folder to build it in.

    Another run writing ``path`` makes this one fail with its pid and command
    (or wait, with ``wait``). The folder is checked again once locked, and
    built beside ``path``: if the body fails, ``path`` is as it was; if it
    ends, the new files are moved in and the names in ``stale`` it did not
    make are removed.
    """
    path = resolved_folder(path)  # staged and renamed on the filesystem of the folder a link names
    check_output_folder(path, option=option, force=force)  # its refusal, not the lock's
    with hold_lock(folder_lock(path), what=f"output folder {path}", wait=wait, command=command):
        check_output_folder(path, option=option, force=force)
        with staged_folder(path, stale=stale) as staging:
            yield staging
