"""Option checks, tile plans and the progress bar shared by every engine and executor.

An engine splits its work into independent *tasks* (a tile of the upper
triangle of user pairs, a block of users, a chunk of sampled pairs), writes one
top-level ``kernel(shared, task) -> partial`` and reduces the partials in task
order; :mod:`puf.engines.executors` runs the kernels (threads here, a dask
cluster in :mod:`puf.engines.dask`). This module is below both executors, so
neither imports the other's module for its helpers.
"""

from __future__ import annotations

__all__ = [
    "SEGMENT_WIDTH",
    "check_block_size",
    "check_n_jobs",
    "check_choice",
    "check_user_matrix",
    "tile_tasks",
    "progress_bar",
]

import numbers
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, TypeAlias

import scipy.sparse as sp

from puf.arrays import MatrixLike
from puf.parallel import usable_cores
from puf.validation import check_histories, check_k

if TYPE_CHECKING:
    from distributed import Client
else:
    Client = Any  # dask is optional: at run time (typing.get_type_hints) a client is any object

Scheduler: TypeAlias = str | Client | None
"""Where ``engine="dask"`` runs: a scheduler address, a client, or None (the running client)."""

#: Column segments are this many users wide (rounded to whole row blocks): small
#: enough that one tile's float64 temporaries stay a few MB, large enough that
#: the per-tile overhead (a GEMM call, a sparse product, ~10 numpy calls) is noise.
SEGMENT_WIDTH = 4096


def check_choice(value: str, *, name: str, known: Collection[str]) -> str:
    """Return ``value`` if it is one of ``known``, else raise ValueError listing them.

    Examples
    --------
    >>> check_choice("dask", name="engine", known=("local", "dask"))
    'dask'
    >>> check_choice("spark", name="engine", known=("local", "dask"))
    Traceback (most recent call last):
    ...
    ValueError: engine must be one of 'dask', 'local', got 'spark'
    """
    if not isinstance(value, str) or value not in known:
        listed = ", ".join(repr(k) for k in sorted(known))
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")
    return value


def check_user_matrix(
    matrix: MatrixLike, m: int, *, name: str = "histories", other: str = "effectiveness"
) -> sp.csr_matrix:
    """Validate a non-negative (m, n) matrix (CSR out) whose users must match ``other``'s m.

    Examples
    --------
    >>> check_user_matrix([[1, 0], [0, 1]], 2).nnz
    2
    >>> check_user_matrix([[1, 0]], 2)
    Traceback (most recent call last):
    ...
    ValueError: user counts differ: effectiveness has 2, histories has 1
    """
    import pandas as pd

    csr = check_histories(matrix, n_users=m if isinstance(matrix, pd.DataFrame) else None, name=name)
    if csr.shape[0] != m:
        raise ValueError(f"user counts differ: {other} has {m}, {name} has {csr.shape[0]}")
    return csr


def check_block_size(block_size: int | None, *, default: int) -> int:
    """Return ``default`` for None, else ``block_size`` as an int >= 1.

    Examples
    --------
    >>> check_block_size(None, default=256), check_block_size(64, default=256)
    (256, 64)
    """
    if block_size is None:
        return default
    return check_k(block_size, name="block_size")


def check_n_jobs(n_jobs: int | None) -> int:
    """Return the number of worker threads: None means every core this process may use.

    Examples
    --------
    >>> check_n_jobs(2), check_n_jobs(None) >= 1
    (2, True)
    """
    if n_jobs is None:
        return usable_cores()
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs < 1:
        raise ValueError(f"n_jobs must be None or an integer >= 1, got {n_jobs!r}")
    return int(n_jobs)


def tile_tasks(
    m: int, block_size: int, *, width: int | None = None
) -> tuple[list[tuple[int, int]], list[tuple[int, int, int]]]:
    """Tiles covering the strict upper triangle of an (m, m) pair matrix.

    Returns ``(segments, tasks)``: ``segments`` are column ranges ``(c0, c1)``
    whose width (default ``SEGMENT_WIDTH``) is a multiple of ``block_size``; each
    task ``(r0, r1, j)`` is a
    row block and the index of a column segment with ``c1 > r0``. Entries with
    column <= row inside a task are the kernel's to mask.

    Examples
    --------
    >>> segments, tasks = tile_tasks(5, 2, width=4)
    >>> segments, tasks
    ([(0, 4), (4, 5)], [(0, 2, 0), (0, 2, 1), (2, 4, 0), (2, 4, 1)])
    """
    width = block_size * max(1, round((width or SEGMENT_WIDTH) / block_size))
    segments = [(c0, min(c0 + width, m)) for c0 in range(0, m, width)]
    tasks = [
        (r0, min(r0 + block_size, m), j)
        for r0 in range(0, m, block_size)
        for j, (c0, c1) in enumerate(segments)
        if c1 - 1 > r0  # some column in the segment lies right of some row
    ]
    return segments, tasks


def progress_bar(total: int, desc: str | None, enabled: bool) -> Any:
    """A tqdm bar over ``total`` tasks, shown only when ``enabled`` (every executor's bar).

    Examples
    --------
    >>> with progress_bar(3, "tiles", enabled=False) as bar:
    ...     bar.update(3)
    >>> bar.disable, bar.total
    (True, 3)
    """
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not enabled, leave=False)
