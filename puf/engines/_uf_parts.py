"""The parts of UF that the exact and the sampled UF engines share.

Per user, once: the genre distribution P_u and its entropy H(P_u) (for sim_JS),
the binarised history (for Jaccard) and the list centroid ē_u (for d_L). Per
pair, then: sim_UF and d_L either for a tile of pairs (matrix products) or for
arrays of pair indices (the sampled pairs).

sim_JS in one log per pair and feature: with s = P_u + P_v (so M = s/2 and
Σ_f s_f = 2 for two non-empty histories), H(M) = 1 − ½ Σ_f s_f log2 s_f, hence

    sim_JS(u, v) = 1 − H(M) + (H(P_u) + H(P_v))/2
                 = ½ Σ_f s_f log2 s_f + (H(P_u) + H(P_v))/2.

Zeros of P are stored as the smallest normal float (~2.2e-308): where s_f > 0
the sum P_uf + P_vf rounds to the same number (the added 2.2e-308 is far below
half an ulp of any s_f >= 1e-290), and where both are 0 the term s_f log2 s_f
is ~ −3e-305 instead of 0, an absolute error no float sum of terms of the
sizes here can even represent. So the shortcut is exact to rounding, and costs
3 numpy passes per feature (add, log, multiply-add) instead of 6.
"""

from __future__ import annotations

__all__ = [
    "check_uf_inputs",
    "prepare_uf",
    "similarity_tile",
    "pair_jaccard",
    "pair_js",
    "blend",
    "pair_similarity",
    "pair_distance",
    "list_distance_of",
    "THRESHOLD_TOLERANCE",
]

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.special import entr

from puf.arrays import MatrixLike
from puf.lists import list_centroids
from puf.validation import (
    check_item_features,
    check_log_base,
    check_min_users,
    check_unit_scalar,
)

from .blocks import check_user_matrix
from .jaccard import jaccard_tile, prepare_pattern

_LN2 = math.log(2.0)
#: Same tolerance as :func:`puf.uf`: all-equal similarities (SD 0) must all pass.
THRESHOLD_TOLERANCE = 1e-12
# JS sub-tiles: 64 x 256 float64 temporaries (128 KB each) stay in L2; measured
# 1.8 ns per pair and feature there against 2.4 ns on 64 x 1024 and 3.1 on 16 x 1024.
_JS_ROWS, _JS_COLUMNS = 64, 256


def check_uf_inputs(
    histories: MatrixLike,
    item_features: ArrayLike,
    rankings: ArrayLike,
    item_vectors: ArrayLike,
    *,
    gamma: float,
    k: int | None,
    base: float,
) -> tuple[float, float, sp.csr_matrix, NDArray[np.float64], NDArray[np.float64]]:
    """Validate UF's inputs; return (gamma, base, histories CSR, features, centroids)."""
    gamma = check_unit_scalar(gamma, name="gamma")
    base = check_log_base(base)
    if item_vectors is None:
        raise ValueError(
            "item_vectors is required (the vectors d_L is measured with; pass "
            "item_features again to measure d_L over the features)"
        )
    centroids = list_centroids(rankings, item_vectors, k=k)
    n_items = np.shape(item_vectors)[0]
    m = centroids.shape[0]
    check_min_users(m, "rankings")
    histories = check_user_matrix(histories, m, other="rankings")
    if n_items != histories.shape[1]:
        raise ValueError(f"item_vectors has {n_items} rows but histories has {histories.shape[1]} items")
    features = check_item_features(item_features, n_items=histories.shape[1])
    return gamma, base, histories, features, centroids


def prepare_uf(
    histories: sp.csr_matrix,
    features: NDArray[np.float64],
    centroids: NDArray[np.float64] | None,
    *,
    gamma: float,
    segments: Sequence[tuple[int, int]] | None = None,
) -> dict[str, Any]:
    """Per-user arrays every tile or pair reads (``segments``: the tile plan, for Jaccard tiles)."""
    binary = sp.csr_matrix((np.ones(histories.nnz), histories.indices, histories.indptr), shape=histories.shape)
    sizes = np.diff(binary.indptr).astype(np.float64)
    dist = np.asarray(binary @ (features / features.sum(axis=1, keepdims=True)))
    dist /= np.maximum(sizes, 1.0)[:, None]
    entropy = entr(dist).sum(axis=1) / _LN2
    positive = np.where(dist > 0.0, dist, np.finfo(np.float64).tiny)
    shared = {} if gamma == 0.0 or segments is None else prepare_pattern(histories, segments=segments)
    shared.update(
        gamma=gamma,
        segments=segments,
        binary=binary,
        sizes=sizes,
        dist=positive,
        dist_t=np.ascontiguousarray(positive.T),
        entropy=entropy,
        nonempty=(sizes > 0).astype(np.float64),
        centroids=centroids,
    )
    return shared


def _js_block(shared, r0, r1, c0, c1, out):
    """sim_JS for rows [r0, r1) x columns [c0, c1) into ``out`` (see the module docstring)."""
    out.fill(0.0)
    s = np.empty_like(out)
    logs = np.empty_like(out)
    for row in shared["dist_t"]:
        np.add(row[r0:r1, None], row[None, c0:c1], out=s)
        np.log(s, out=logs)
        logs *= s
        out += logs
    out *= 0.5 / _LN2
    entropy = shared["entropy"]
    out += entropy[r0:r1, None] * 0.5
    out += entropy[None, c0:c1] * 0.5
    np.clip(out, 0.0, 1.0, out=out)
    out *= shared["nonempty"][r0:r1, None]
    out *= shared["nonempty"][None, c0:c1]


def similarity_tile(shared: dict[str, Any], r0: int, r1: int, j: int) -> NDArray[np.float64]:
    """sim_UF for rows [r0, r1) and column segment j, float64, as :func:`puf.uf_similarity`."""
    c0, c1 = shared["segments"][j]
    gamma = shared["gamma"]
    jac = jaccard_tile(shared, r0, r1, j) if gamma > 0.0 else None
    if gamma == 1.0:
        return jac
    js = np.empty((r1 - r0, c1 - c0))
    for a in range(r0, r1, _JS_ROWS):
        b = min(a + _JS_ROWS, r1)
        for c in range(c0, c1, _JS_COLUMNS):
            d = min(c + _JS_COLUMNS, c1)
            _js_block(shared, a, b, c, d, js[a - r0 : b - r0, c - c0 : d - c0])
    if gamma == 0.0:
        return js
    js *= 1.0 - gamma
    jac *= gamma
    js += jac
    return np.clip(js, 0.0, 1.0, out=js)


def pair_jaccard(shared: dict[str, Any], u: NDArray[np.int64], v: NDArray[np.int64]) -> NDArray[np.float64]:
    """J(u[i], v[i]) for index arrays (u != v), float64."""
    binary = shared["binary"]
    overlap = np.asarray(binary[u].multiply(binary[v]).sum(axis=1)).ravel()
    union = shared["sizes"][u] + shared["sizes"][v] - overlap
    return np.divide(overlap, union, out=np.zeros_like(overlap), where=union > 0)


def pair_js(shared: dict[str, Any], u: NDArray[np.int64], v: NDArray[np.int64]) -> NDArray[np.float64]:
    """sim_JS(u[i], v[i]) for index arrays, float64 (see the module docstring)."""
    s = shared["dist"][u] + shared["dist"][v]
    js = np.einsum("ij,ij->i", s, np.log(s)) * (0.5 / _LN2)
    js += (shared["entropy"][u] + shared["entropy"][v]) * 0.5
    np.clip(js, 0.0, 1.0, out=js)
    js *= shared["nonempty"][u] * shared["nonempty"][v]
    return js


def blend(gamma: float, jac: NDArray[np.float64], js: NDArray[np.float64]) -> NDArray[np.float64]:
    """clip(γ·J + (1−γ)·sim_JS, 0, 1), skipping the term with weight 0 (as the dense form)."""
    if gamma == 1.0:
        return jac
    if gamma == 0.0:
        return js
    return np.clip(gamma * jac + (1.0 - gamma) * js, 0.0, 1.0)


def pair_similarity(shared: dict[str, Any], u: NDArray[np.int64], v: NDArray[np.int64]) -> NDArray[np.float64]:
    """sim_UF(u[i], v[i]) for index arrays (u != v), float64."""
    gamma = shared["gamma"]
    jac = pair_jaccard(shared, u, v) if gamma > 0.0 else None
    js = pair_js(shared, u, v) if gamma < 1.0 else None
    return blend(gamma, jac, js)


def list_distance_of(products: NDArray[np.float64]) -> NDArray[np.float64]:
    """d_L = 1 − ē_u·ē_v from the centroids' inner products, clipped to [0, 2] against rounding."""
    return np.clip(1.0 - products, 0.0, 2.0)


def pair_distance(shared: dict[str, Any], u: NDArray[np.int64], v: NDArray[np.int64]) -> NDArray[np.float64]:
    """d_L(u[i], v[i]) for index arrays."""
    centroids = shared["centroids"]
    return list_distance_of(np.einsum("ij,ij->i", centroids[u], centroids[v]))
