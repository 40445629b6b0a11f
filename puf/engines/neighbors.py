"""Each user's n most similar others, exactly, over full rows of similarity tiles.

Inconsistency (:func:`puf.inconsistency`) compares each user with N_n(u), the n
users v ≠ u of highest sim(u, v) (rounded as the dense measure rounds them),
ties to the lower index. A row block streams
over every column segment (both sides of the diagonal), keeps its running n
best and merges each new tile into them: the candidates kept so far all have
lower indices than the tile's, so "ties to the earlier position" is "ties to
the lower index", and the selection is exact. Memory O(tile + m·n).
"""

from __future__ import annotations

__all__ = ["nearest_neighbors", "inconsistency_from_neighbors"]

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from puf.lipschitz import TIE_DECIMALS
from puf.validation import undefined

from .blocks import Scheduler, check_block_size, tile_tasks
from .executors import open_executor
from .pair_pass import SIMILARITY_SOURCES

DEFAULT_BLOCK_SIZE = 256


def _best(values, n):
    """Boolean mask of each row's n largest values, ties to the earlier position."""
    nth = -np.partition(-values, n - 1, axis=1)[:, n - 1 : n]
    chosen = values > nth
    places = n - chosen.sum(axis=1, keepdims=True)
    tied = values == nth
    crowded = np.flatnonzero(tied.sum(axis=1) > places[:, 0])
    if crowded.size:  # keep the first `places` ties of those rows only
        tied[crowded] &= np.cumsum(tied[crowded], axis=1) <= places[crowded]
    return chosen | tied


def _row_kernel(shared, task):
    r0, r1 = task
    n, tile = shared["n"], shared["tile"]
    rows = np.arange(r0, r1)
    best_values = np.full((r1 - r0, 0), -np.inf)
    best_users = np.zeros((r1 - r0, 0), dtype=np.int64)
    for j, (c0, c1) in enumerate(shared["segments"]):
        values = np.round(np.asarray(tile(shared["source"], r0, r1, j), dtype=np.float64), TIE_DECIMALS)
        inside = (rows >= c0) & (rows < c1)
        values[np.flatnonzero(inside), rows[inside] - c0] = -np.inf  # not one's own neighbour
        # The tile's own n best first (ties to the lower index): no other entry of it can be among
        # the n best of the union, so the merge reads 2n candidates a row, not the whole tile.
        width = min(n, c1 - c0)
        picked = np.nonzero(_best(values, width))[1].reshape(r1 - r0, width)  # row-major: ascending columns
        values = np.concatenate([best_values, np.take_along_axis(values, picked, axis=1)], axis=1)
        users = np.concatenate([best_users, picked + c0], axis=1)
        keep = min(n, values.shape[1])
        mask = _best(values, keep)
        best_values = values[mask].reshape(r1 - r0, keep)
        best_users = users[mask].reshape(r1 - r0, keep)
    return best_users


def nearest_neighbors(
    m: int,
    n: int,
    *,
    similarity: str,
    inputs: dict[str, Any],
    block_size: int | None = None,
    width: int | None = None,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    progress: bool = False,
) -> NDArray[np.int64]:
    """The (m, n) indices of each user's n most similar other users (ties: lower index).

    Parameters
    ----------
    m, n : int
        Users (m > n) and neighbours per user.
    similarity, inputs
        The similarity source, as in :func:`puf.engines.pair_pass.pair_sums`.
    width : int, optional
        Columns per tile (default :data:`puf.engines.blocks.SEGMENT_WIDTH`).
    block_size, n_jobs, engine, scheduler, progress
        As in :func:`puf.engines.jaccard_puf`.

    Returns
    -------
    numpy.ndarray of int64, shape (m, n)
        Row u: N_n(u) in ascending index order.

    Examples
    --------
    >>> import numpy as np
    >>> sim = np.array([[1, .9, .1], [.9, 1, .2], [.1, .2, 1]])
    >>> nearest_neighbors(3, 1, similarity="matrix", inputs={"matrix": sim}).ravel().tolist()
    [1, 0, 1]
    """
    block_size = check_block_size(block_size, default=DEFAULT_BLOCK_SIZE)
    segments, _ = tile_tasks(m, block_size, width=width)
    tasks = [(r0, min(r0 + block_size, m)) for r0 in range(0, m, block_size)]
    prepare, tile, _ = SIMILARITY_SOURCES[similarity]
    with open_executor(engine, n_jobs=n_jobs, scheduler=scheduler) as executor:
        shared = {"source": prepare(inputs, segments, m), "tile": tile, "segments": segments, "n": n}
        parts = executor.map(_row_kernel, shared, tasks, progress=progress, desc="neighbours")
    return np.sort(np.concatenate(parts), axis=1)


def inconsistency_from_neighbors(effectiveness: ArrayLike, neighbors: NDArray[np.int64]) -> float:
    """(1/m) Σ_u |S(u) − mean of S over N_n(u)|, from :func:`nearest_neighbors`.

    Examples
    --------
    >>> inconsistency_from_neighbors(np.array([1.0, 0.5, 0.0]), np.array([[1], [0], [1]]))
    0.5
    """
    s = np.asarray(effectiveness, dtype=np.float64)
    m, n = neighbors.shape
    if m < n + 1:
        return undefined(f"inconsistency with n_neighbors={n} is undefined for m = {m} < {n + 1} users")
    return float(np.abs(s - s[neighbors].sum(axis=1) / n).sum() / m)
