"""Outputs that are whole or absent, and locks that say who holds them.

A file is written to a temporary sibling and renamed over its target only once
complete (:func:`atomic_file`): a full disk, a crash or a signal leaves the earlier
file as it was. A folder of outputs is built beside its target and moved into place
at the end (:func:`staged_folder`), the moves made with SIGINT and SIGTERM held back,
so an older report stays whole until the new one is. A run holds a lock on what it
writes (:func:`hold_lock`): a second run is refused with the holder's pid and command,
or waits. Locks are ``flock`` locks, which the kernel releases when their holder ends,
however it ends.
"""

from __future__ import annotations

__all__ = ["atomic_file", "staged_folder", "hold_lock", "Locked", "LockWait"]

import contextlib
import os
import shutil
import signal
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

try:
    import fcntl
except ImportError:  # Windows: no flock; a run there holds no lock
    fcntl = None  # type: ignore[assignment]


class Locked(ValueError):
    """Another process holds the lock (a ValueError: the run is refused like bad input)."""


class LockWait(UserWarning):
    """Another process holds the lock and this run waits for it (said once, when the wait begins)."""


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str], mode: str = "w", *, encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary sibling of ``path``; rename it over ``path`` once the body ends.

    If the body raises (a full disk, an interruption), the sibling is removed
    and ``path`` is untouched. The new file keeps the permissions of the one it
    replaces (new files: the umask's). A link is followed: its target is replaced.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "v.json"
    >>> _ = path.write_text("earlier")
    >>> try:
    ...     with atomic_file(path) as handle:
    ...         _ = handle.write("half a docu")
    ...         raise OSError(28, "No space left on device")
    ... except OSError:
    ...     pass
    >>> path.read_text(), sorted(p.name for p in path.parent.iterdir())
    ('earlier', ['v.json'])
    """
    path = Path(os.path.realpath(path))  # a link's target is written, the link stays
    try:
        permissions = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        permissions = 0o666 & ~_umask()
    descriptor, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        options: dict[str, Any] = {} if "b" in mode else {"encoding": encoding}
        with os.fdopen(descriptor, mode, **options) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(partial, permissions)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
        raise


@contextlib.contextmanager
def _signals_held():
    """Hold SIGINT and SIGTERM back for a few renames (they arrive right after)."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _exists(path):
    return path.exists() or path.is_symlink()


def _move_in(staging, target, stale):
    """Move staging's entries into ``target``, old ones of those names (and ``stale``) aside.

    On an error every move is undone, so ``target`` is as it was; an old file that cannot
    be moved back stays in the folder aside, which the error's note names.
    """
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=staging.parent))
    new = sorted(entry.name for entry in staging.iterdir())
    moves = []  # (from, to), in order
    try:
        for name in sorted(set(stale) - set(new)):
            if _exists(target / name):
                os.replace(target / name, aside / name)
                moves.append((target / name, aside / name))
        for name in new:
            if _exists(target / name):
                os.replace(target / name, aside / name)
                moves.append((target / name, aside / name))
            os.replace(staging / name, target / name)
            moves.append((staging / name, target / name))
    except BaseException as error:
        for source, destination in reversed(moves):
            with contextlib.suppress(OSError):
                os.replace(destination, source)
        if any(aside.iterdir()):  # nothing the user had may be lost
            error.add_note(f"the earlier files of {target} that could not be moved back are in {aside}")
        else:
            aside.rmdir()
        raise
    shutil.rmtree(aside, ignore_errors=True)


@contextlib.contextmanager
def staged_folder(path: str | os.PathLike[str], *, stale: Iterable[str | os.PathLike[str]] = ()) -> Iterator[Path]:
    """Yield an empty folder beside ``path``; when the body ends, move its files into ``path``.

    ``path`` (and missing parents) is created only at the end. Files of
    ``path`` with the names of new ones are replaced, those named in ``stale``
    that the body did not make are removed (a previous run's leftovers); the
    others stay.
    If the body raises, nothing of ``path`` has changed, and the folders made
    for it (the staging one, new parents) are removed.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "report"
    >>> with staged_folder(out) as staging:
    ...     _ = (staging / "index.html").write_text("new")
    ...     out.exists()
    False
    >>> [p.name for p in out.iterdir()], (out / "index.html").read_text()
    (['index.html'], 'new')
    """
    path = Path(path)
    created = next((p for p in [path.parent, *path.parent.absolute().parents][::-1] if not p.exists()), None)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Inside an existing folder (which may be the user's own in a folder they cannot write),
    # else beside it: on its filesystem either way, so the final renames cannot cross one.
    inside = path.is_dir()
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.partial-", dir=path if inside else path.parent))
    try:
        os.chmod(staging, 0o777 & ~_umask())
        yield staging
        with _signals_held():
            if not inside and not path.exists():
                os.replace(staging, path)
            else:
                _move_in(staging, path, stale)
    except BaseException:
        shutil.rmtree(created if created is not None else staging, ignore_errors=True)
        raise
    shutil.rmtree(staging, ignore_errors=True)


def _holder(handle):
    handle.seek(0)
    return handle.read().strip() or "another process"


@contextlib.contextmanager
def hold_lock(
    path: str | os.PathLike[str], *, what: str, wait: bool = False, command: str | None = None
) -> Iterator[Path]:
    """Hold an exclusive lock on the file ``path`` for the body's length.

    Parameters
    ----------
    path : str or os.PathLike
        The lock file (created; removed when released).
    what : str
        What the lock guards, for the message (``"output folder R"``).
    wait : bool, default False
        Wait for the holder to finish instead of refusing (with a :class:`LockWait`
        warning naming the holder when the wait begins).
    command : str, optional
        This run's command, written in the lock for a refused run's message
        (default: this process's arguments).

    Raises
    ------
    Locked
        Another process holds it (and ``wait`` is False); the message names
        its pid and command.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> lock = pathlib.Path(tempfile.mkdtemp()) / ".out.lock"
    >>> with hold_lock(lock, what="output folder out"):
    ...     lock.exists()
    True
    >>> lock.exists()
    False
    """
    path = Path(path)
    if fcntl is None:
        yield path
        return
    while True:
        try:
            handle = open(path, "a+", encoding="utf-8")
        except OSError as exc:
            raise ValueError(
                f"{what}: cannot make its lock file in {path.parent} ({exc.strerror}); that folder must be writable"
            ) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(handle)
            if not wait:
                handle.close()
                raise Locked(f"{what} is in use by {holder}; wait for it to finish, or pass --wait") from None
            # Said once, so a run that waits for minutes is not mistaken for a hung one.
            warnings.warn(LockWait(f"{what} is in use by {holder}; waiting for it to finish"), stacklevel=3)
            fcntl.flock(handle, fcntl.LOCK_EX)
        # The holder before us may have removed the file (at any moment): then this lock guards nothing.
        try:
            same = os.fstat(handle.fileno()).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        handle.close()
    try:
        handle.seek(0)
        handle.truncate()
        command = command or " ".join(sys.argv)
        handle.write(f"pid {os.getpid()} ({command[:200]})\n")
        handle.flush()
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        handle.close()
