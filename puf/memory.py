"""Work refused before it starts when it cannot fit in memory.

A dense m x m piece (a similarity, a utility, a list distance) needs 8 m² bytes per
copy: 12.8 GB for 40,000 users. Allocating it anyway grows the process until the
kernel kills it (and starves everything else on the machine first). Each dense
builder asks :func:`check_memory` first, which raises :class:`MemoryNeeded` naming
the size when it exceeds what is available: the memory the kernel reports free for
new work (``MemAvailable``; a cgroup's limit if lower), or ``PUF_MAX_MEMORY`` when
that is set (bytes, or with a K, M, G or T suffix).

The same limit is the budget the evaluation plans its roads within
(:func:`memory_budget`, read by :func:`puf.evaluation.planner.plan_roads`): a measure
is put on the dense road only when its pieces fit the limit this guard applies, and
``puf evaluate --memory`` (:func:`memory_limit`) sets both at once.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_BUDGET",
    "MemoryNeeded",
    "SIMILARITY_COPIES",
    "available_memory",
    "check_memory",
    "dense_bytes",
    "format_bytes",
    "memory_budget",
    "memory_limit",
    "similarity_bytes",
]

import contextlib
from collections.abc import Iterator
import os
import re

DEFAULT_BUDGET = 4 * 10**9
"""Bytes the dense m x m pieces of one evaluation take at most when no limit is set."""
_LIMITS = []  # the limits set by memory_limit, innermost last


class MemoryNeeded(ValueError, MemoryError):
    """The work needs more memory than is available (a ValueError: exit code 2 on the command line)."""


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _limit_from_environment():
    text = os.environ.get("PUF_MAX_MEMORY", "").strip()
    if not text:
        return None
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?", text, flags=re.IGNORECASE)
    if not match:
        raise ValueError(
            f"PUF_MAX_MEMORY must be a number of bytes, optionally with a K, M, G or T suffix (e.g. 6G), got {text!r}"
        )
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def _read_number(path):
    try:
        with open(path) as handle:
            text = handle.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


@contextlib.contextmanager
def memory_limit(nbytes: int) -> Iterator[None]:
    """Within the block, ``nbytes`` is the limit of :func:`available_memory` and :func:`memory_budget`.

    Parameters
    ----------
    nbytes : int
        Bytes, >= 1 (``puf evaluate --memory``).

    Examples
    --------
    >>> with memory_limit(10**6):
    ...     available_memory(), memory_budget()
    (1000000, 1000000)
    >>> with memory_limit(0):
    ...     pass
    Traceback (most recent call last):
    ...
    ValueError: nbytes must be a whole number of bytes >= 1, got 0
    """
    if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 1:
        raise ValueError(f"nbytes must be a whole number of bytes >= 1, got {nbytes!r}")
    _LIMITS.append(int(nbytes))
    try:
        yield
    finally:
        _LIMITS.pop()


def _set_limit() -> int | None:
    """The limit set by :func:`memory_limit`, else by ``PUF_MAX_MEMORY``, else None."""
    return _LIMITS[-1] if _LIMITS else _limit_from_environment()


def memory_budget() -> int:
    """Bytes the dense pieces of an evaluation may take: the roads are planned within it.

    The limit set by :func:`memory_limit` (``--memory``) or ``PUF_MAX_MEMORY``;
    else :data:`DEFAULT_BUDGET` (4 GB), lowered to :func:`available_memory` when
    less is available. Never more than :func:`check_memory` allows, so a dense
    road the planner chooses is one the dense builders accept.

    Examples
    --------
    >>> 0 < memory_budget() <= DEFAULT_BUDGET or "PUF_MAX_MEMORY" in os.environ
    True
    """
    limit = _set_limit()
    if limit is not None:
        return limit
    available = available_memory()
    return DEFAULT_BUDGET if available is None else max(0, min(DEFAULT_BUDGET, available))


def available_memory() -> int | None:
    """Bytes available to new work, or None when the system does not say.

    The limit of :func:`memory_limit` or ``PUF_MAX_MEMORY`` when set; else the
    kernel's ``MemAvailable``, lowered to what a cgroup (v2) limit leaves.

    Examples
    --------
    >>> available = available_memory()
    >>> available is None or available > 0
    True
    """
    limit = _set_limit()
    if limit is not None:
        return limit
    available = None
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pages = getattr(os, "sysconf_names", {}).get("SC_AVPHYS_PAGES")
        if pages is not None:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    cap, used = _read_number("/sys/fs/cgroup/memory.max"), _read_number("/sys/fs/cgroup/memory.current")
    if cap is not None and used is not None:
        available = cap - used if available is None else min(available, cap - used)
    return available


def format_bytes(nbytes: float) -> str:
    """``nbytes`` in words: "12.8 GB", "512 MB", "980 bytes" (decimal units).

    Examples
    --------
    >>> format_bytes(12_800_000_000), format_bytes(5e8), format_bytes(980)
    ('12.8 GB', '500 MB', '980 bytes')
    """
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{int(nbytes)} bytes"


def dense_bytes(m: int, *, copies: int = 1) -> int:
    """Bytes of ``copies`` dense float64 m x m arrays.

    Examples
    --------
    >>> format_bytes(dense_bytes(40_000))
    '12.8 GB'
    """
    return int(copies) * 8 * int(m) * int(m)


SIMILARITY_COPIES = {"jaccard": 4, "cosine": 4, "js": 2, "uf": 4}
"""Dense m x m float64 arrays each built-in similarity of :mod:`puf.similarity` holds at its peak
while it is built (Jaccard and cosine: the overlap, the union or norms, the result and the sparse
product; JS: the result and one block of mixtures); another similarity counts as 3."""


def similarity_bytes(name: str, m: int) -> int:
    """Bytes the dense ``name`` similarity of ``m`` users asks :func:`check_memory` for while built.

    The dense builders check this before allocating, and the evaluation planner reads a
    similarity from its matrix only when this fits (else it computes tiles): one estimate.

    Examples
    --------
    >>> format_bytes(similarity_bytes("jaccard", 10_000)), format_bytes(similarity_bytes("js", 10_000))
    ('3.2 GB', '1.6 GB')
    """
    return dense_bytes(m, copies=SIMILARITY_COPIES.get(name, 3))


_NEVER_SHORT = 1 << 20
"""Bytes below which :func:`check_memory` does not read the kernel's figure (a limit set still applies)."""


def check_memory(nbytes: int, *, what: str) -> None:
    """Raise :class:`MemoryNeeded` when ``nbytes`` is more than the available memory.

    Parameters
    ----------
    nbytes : int
        What the work will hold at its peak.
    what : str
        The work, for the message ("the 40000 x 40000 Jaccard similarity").

    Examples
    --------
    >>> check_memory(dense_bytes(10), what="a 10 x 10 similarity")
    >>> check_memory(10**18, what="the 353553390 x 353553390 similarity")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    puf.memory.MemoryNeeded: the 353553390 x 353553390 similarity needs 1e+06 TB of memory; ... available...
    """
    if nbytes <= _NEVER_SHORT and _set_limit() is None:
        return  # the kernel is not asked about a small block (a drawn population's pieces)
    available = available_memory()
    if available is not None and nbytes > available:
        raise MemoryNeeded(
            f"{what} needs {format_bytes(nbytes)} of memory; "
            f"{format_bytes(max(available, 0))} is available (PUF_MAX_MEMORY "
            "sets the limit): use fewer users, or a scale engine (puf.engines)"
        )
