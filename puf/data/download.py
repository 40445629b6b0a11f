"""Resumable HTTP download of a dataset archive, with its checksums and a progress bar.

A download goes to ``<destination>.part`` first. When a transfer breaks, the part stays, and
the next call asks the server for the rest (an HTTP ``Range`` request); a server that ignores
the range sends the whole file again, which replaces the part; a part the server says is past the
end is kept only when its size is the file's (``Content-Range``), else downloaded anew. Only a complete file whose
checksum matches is renamed to ``destination``; a complete file whose MD5 differs from the
published one is deleted (it would never become right by resuming).
"""

from __future__ import annotations

__all__ = ["DownloadError", "download", "file_digests"]

import hashlib
import http.client
import os
import pathlib
import socket
import urllib.error
import urllib.request

from tqdm.auto import tqdm

CHUNK = 1 << 20


class DownloadError(ConnectionError):
    """A download failed: no network, an unreachable server, or a transfer that broke.

    Examples
    --------
    >>> issubclass(DownloadError, OSError)
    True
    """


def file_digests(path: str | os.PathLike[str]) -> tuple[str, str]:
    """The MD5 and SHA-256 of a file, read once in 1 MiB blocks.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    tuple of str
        ``(md5, sha256)`` as lowercase hex.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x"
    >>> _ = path.write_bytes(b"abc")
    >>> file_digests(path)[0]
    '900150983cd24fb0d6963f7d28e17f72'
    """
    md5, sha256 = hashlib.md5(usedforsecurity=False), hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            md5.update(block)
            sha256.update(block)
    return md5.hexdigest(), sha256.hexdigest()


class _RangePastEnd:
    """A 416 answer to a resume: the part ends at or beyond the file (``size``, None if not said)."""

    def __init__(self, size):
        self.size = size


def _content_range_size(text):
    """The complete size in a ``Content-Range`` header (``bytes */1234``), or None."""
    size = text.rpartition("/")[2].strip()
    return int(size) if size.isdigit() else None


def _open(url, start, timeout):
    request = urllib.request.Request(url, headers={"User-Agent": "puf-harness"})
    if start:
        request.add_header("Range", f"bytes={start}-")
    try:
        return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 (http/https only)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and start:  # the part reaches the end: whole only at the file's size
            return _RangePastEnd(_content_range_size(exc.headers.get("Content-Range", "")))
        raise DownloadError(f"{url}: the server answered {exc.code} {_one_line(exc.reason)}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = _one_line(getattr(exc, "reason", exc))
        raise DownloadError(f"{url}: cannot be reached ({reason}); is there a network connection?") from None


def _one_line(reason):
    """A reason on one line (urllib's redirect-loop reason spans three)."""
    return " ".join(str(reason).split())


def _total(response, start):
    length = response.headers.get("Content-Length")
    return int(length) + start if length is not None and length.isdigit() else None


def download(
    url: str,
    destination: str | os.PathLike[str],
    *,
    md5: str | None = None,
    progress: bool = True,
    timeout: float = 60.0,
) -> tuple[str, str]:
    """Download ``url`` to ``destination``, resuming a broken earlier transfer.

    Parameters
    ----------
    url : str
        ``http://`` or ``https://`` address of the file.
    destination : str or os.PathLike
        Where the complete file goes; its folder must exist.
    md5 : str, optional
        The publisher's MD5; a complete download that differs is deleted and refused.
    progress : bool, default True
        Show a tqdm bar of the bytes received.
    timeout : float, default 60.0
        Seconds to wait for the server at the start, and for the next byte during the transfer
        (a server that sends nothing for that long ends it; what it sent is kept for a resume).

    Returns
    -------
    tuple of str
        ``(md5, sha256)`` of the complete file.

    Raises
    ------
    ValueError
        ``url`` is not http(s); the complete file's MD5 differs from ``md5``.
    DownloadError
        The server cannot be reached, answers with an error, or the transfer breaks (the part
        received so far is kept, and the same call resumes it).

    Examples
    --------
    >>> download("ftp://example.org/x.zip", "x.zip")
    Traceback (most recent call last):
    ...
    ValueError: url must start with http:// or https://, got 'ftp://example.org/x.zip'
    """
    if not str(url).startswith(("http://", "https://")):
        raise ValueError(f"url must start with http:// or https://, got {url!r}")
    destination = pathlib.Path(destination)
    part = destination.with_name(destination.name + ".part")
    start = part.stat().st_size if part.is_file() else 0
    response = _open(url, start, timeout)
    if isinstance(response, _RangePastEnd):
        if response.size == start:  # the part is the whole file
            response = None
        else:  # longer than the file, or the size not said: not known to be this file
            start = 0
            response = _open(url, start, timeout)
    if response is not None:
        with response:
            if start and response.status != 206:  # the server ignored the range: start again
                start = 0
            _receive(url, response, part, start, _total(response, start), progress)
    digests = file_digests(part)
    if md5 is not None and digests[0] != md5.lower():
        part.unlink()
        raise ValueError(
            f"{url}: damaged download: expected md5 {md5}, got {digests[0]} "
            "(deleted; run the same command again to download it anew)"
        )
    os.replace(part, destination)
    return digests


def _receive(url, response, part, start, total, progress):
    received = start
    bar = tqdm(
        total=total,
        initial=start,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=url.rsplit("/", 1)[-1],
        disable=not progress,
        leave=False,
    )
    try:
        with open(part, "ab" if start else "wb") as handle:
            while True:
                try:
                    # read1: what has arrived (up to a block), so the timeout is on progress --
                    # no byte for that long -- and every byte is kept for a resume.
                    block = response.read1(CHUNK)
                except (http.client.IncompleteRead, ConnectionError, socket.timeout, TimeoutError) as exc:
                    raise DownloadError(
                        f"{url}: the transfer broke after {received:,} bytes ({_one_line(repr(exc))}); "
                        "run the same command again to resume it"
                    ) from None
                if not block:
                    break
                handle.write(block)
                handle.flush()
                received += len(block)
                bar.update(len(block))
    finally:
        bar.close()
    if total is not None and received < total:
        raise DownloadError(
            f"{url}: the transfer ended after {received:,} of {total:,} bytes; run the same command again to resume it"
        )
