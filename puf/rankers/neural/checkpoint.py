"""Resumable training of the torch rankers: the whole training state, written after every epoch.

ML-1M's graph rankers train for hours on a 2-core CPU; a killed process (a
closed laptop, a job's time limit) would otherwise start again from epoch 1.
The file holds everything the next epoch depends on (parameters, optimizer
moments, numpy's and torch's generator states, the early-stopping record,
the best epoch's parameters and a subclass's counters), so a resumed run
ends with the same lists, to the bit, as an uninterrupted one.
"""

from __future__ import annotations

__all__ = ["load_checkpoint", "save_checkpoint", "training_fingerprint"]

import hashlib
import os
import pathlib
from typing import Any

import numpy as np
import scipy.sparse as sp


def training_fingerprint(ranker: Any, train: sp.csr_matrix, valid: sp.csr_matrix) -> str:
    """A digest of the ranker's settings and the exact data it trains on.

    A checkpoint from other settings or other data is refused rather than
    silently continued.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from puf.rankers.neural import NGCF
    >>> x = sp.csr_matrix([[1.0, 0.0], [0.0, 1.0]])
    >>> a = training_fingerprint(NGCF(random_state=0), x, x)
    >>> a == training_fingerprint(NGCF(random_state=1), x, x), len(a)
    (False, 64)
    """
    hasher = hashlib.sha256(repr(ranker).encode())
    for matrix in (train, valid):
        hasher.update(np.asarray(matrix.shape, dtype=np.int64).tobytes())
        for part in (matrix.indptr, matrix.indices):
            hasher.update(np.ascontiguousarray(part, dtype=np.int64).tobytes())
    return hasher.hexdigest()


def save_checkpoint(path: str | os.PathLike[str], state: dict[str, Any]) -> None:
    """Write ``state`` (a dict torch can save) to ``path`` atomically.

    A crash while writing leaves the previous checkpoint in place.

    Examples
    --------
    >>> import tempfile, pathlib, torch
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.pt"
    >>> save_checkpoint(path, {"fingerprint": "abc", "epoch": 3, "weights": torch.ones(2)})
    >>> state = load_checkpoint(path, "abc")
    >>> state["epoch"], state["weights"].tolist()
    (3, [1.0, 1.0])
    """
    import torch

    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    torch.save(state, partial)
    os.replace(partial, path)


def load_checkpoint(path: str | os.PathLike[str], fingerprint: str) -> dict[str, Any] | None:
    """Return the state saved at ``path``, or None if there is none.

    Raises ValueError if the file is unreadable or was written for other
    settings or data (its fingerprint differs from ``fingerprint``).

    Examples
    --------
    >>> import tempfile, pathlib, torch
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> load_checkpoint(folder / "absent.pt", "abc") is None
    True
    >>> save_checkpoint(folder / "run.pt", {"fingerprint": "abc", "weights": torch.ones(2)})
    >>> load_checkpoint(folder / "run.pt", "xyz")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: checkpoint .../run.pt: written for other ranker settings or data; delete it to train from the start
    """
    import torch

    path = pathlib.Path(path)
    if not path.exists():
        return None
    try:
        state = torch.load(path, weights_only=True)  # plain tensors and Python values only
    except Exception as exc:  # torch raises many kinds (pickle, zip, runtime) for a bad file
        raise ValueError(f"checkpoint {path}: unreadable ({exc}); delete it to train from the start") from exc
    if not isinstance(state, dict) or state.get("fingerprint") != fingerprint:
        raise ValueError(
            f"checkpoint {path}: written for other ranker settings or data; delete it to train from the start"
        )
    return state
