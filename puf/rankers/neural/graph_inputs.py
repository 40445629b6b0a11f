"""Inputs of the graph rankers (NGCF, NCL): interaction keys, negative samples, the adjacency."""

from __future__ import annotations

__all__ = ["interaction_keys", "sample_negatives", "normalized_adjacency", "symmetric_propagation"]

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray


def interaction_keys(train: sp.csr_matrix) -> NDArray[np.int64]:
    """Sorted ``user * n_items + item`` of every interaction, for :func:`sample_negatives`."""
    coo = train.tocoo()
    return np.sort(coo.row.astype(np.int64) * train.shape[1] + coo.col)


def sample_negatives(
    keys: NDArray[np.int64], n_items: int, users: NDArray[np.int64], rng: np.random.Generator
) -> NDArray[np.int64]:
    """One uniformly drawn item per user that is not in the user's training history.

    ``keys`` comes from :func:`interaction_keys`; a drawn item the user has
    seen is drawn again (RecBole's uniform negative sampling).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> keys = interaction_keys(sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 1]])))
    >>> sample_negatives(keys, 3, np.array([0, 1, 0]), np.random.default_rng(0)).tolist()
    [2, 0, 2]
    """
    items = rng.integers(n_items, size=users.size)
    todo = np.arange(users.size)
    while todo.size:
        wanted = users[todo].astype(np.int64) * n_items + items[todo]
        position = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
        clash = keys[position] == wanted
        todo = todo[clash]
        items[todo] = rng.integers(n_items, size=todo.size)
    return items


def normalized_adjacency(torch: Any, train: sp.csr_matrix) -> Any:
    """D^-1/2 A D^-1/2 of the user-item bipartite graph (users first), as a torch CSR tensor."""
    m, n = train.shape
    coo = train.tocoo()
    rows = np.concatenate([coo.row, coo.col + m])
    cols = np.concatenate([coo.col + m, coo.row])
    adjacency = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(m + n, m + n))
    degree = np.asarray(adjacency.sum(axis=1)).ravel() + 1e-7  # RecBole's epsilon: no 0-division
    scale = sp.diags(degree**-0.5)
    laplacian = sp.csr_matrix(scale @ adjacency @ scale)
    laplacian.sort_indices()
    with warnings.catch_warnings():  # CSR is "beta" in torch; its CPU matmul is all we use
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
        return torch.sparse_csr_tensor(
            torch.from_numpy(laplacian.indptr.astype(np.int64)),
            torch.from_numpy(laplacian.indices.astype(np.int64)),
            torch.from_numpy(laplacian.data.astype(np.float32)),
            laplacian.shape,
            check_invariants=False,
        )  # scipy built it sorted and in range


def symmetric_propagation(torch: Any) -> Callable[..., Any]:
    """An autograd function ``apply(L, E) = L @ E`` for a symmetric sparse L.

    Its gradient with respect to E is L @ grad: no transpose of L per batch,
    which made torch's own sparse backward 4x slower than this on ML-100K.
    """

    class _Propagate(torch.autograd.Function):
        @staticmethod
        def forward(ctx, laplacian, embeddings):
            ctx.laplacian = laplacian
            return laplacian @ embeddings

        @staticmethod
        def backward(ctx, grad):
            return None, ctx.laplacian @ grad

    return _Propagate.apply
