"""User-user similarity from training histories: dense (m, m) matrices in [0, 1], and their table by name.

Jaccard, cosine, Jensen-Shannon and their UF blend each return a float64 matrix that is exactly
symmetric, lies in [0, 1] (tiny float excursions are clipped) and has diagonal 1 for users with a
non-empty history and 0 for users with an empty one. Fairness measures ignore the diagonal.
A user with an empty history is similar to nobody: every similarity in their row and column is 0.
:data:`SIMILARITIES` names them; :func:`compute_similarity` passes each only the inputs it takes.
"""

from __future__ import annotations

__all__ = [
    "SIMILARITIES",
    "get_similarity",
    "similarity_parameters",
    "takes_gamma",
    "compute_similarity",
    "jaccard_similarity",
    "cosine_similarity",
    "js_similarity",
    "uf_similarity",
]

import inspect
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from puf.arrays import MatrixLike
from puf.memory import check_memory, similarity_bytes
from puf.validation import check_histories, check_item_features, check_unit_scalar, lookup

# js_similarity materialises a (block, m, f) float64 mixture; this bounds its size.
_BLOCK_ELEMENTS = 4_000_000
_LN2 = np.log(2.0)


def _finish(similarity, nonempty):
    """Symmetrise exactly, clip to [0, 1], zero empty users, set the diagonal."""
    similarity = (similarity + similarity.T) * 0.5  # a + b == b + a in IEEE arithmetic
    np.clip(similarity, 0.0, 1.0, out=similarity)
    similarity[~nonempty, :] = 0.0
    similarity[:, ~nonempty] = 0.0
    np.fill_diagonal(similarity, nonempty.astype(np.float64))
    return similarity


def _binary(histories):
    binary = histories.copy()
    binary.data[:] = 1.0  # explicit zeros were eliminated by check_histories
    return binary


def _fits(histories, name, key):
    """Refuse, before allocating, an m x m similarity (and its temporaries) that cannot fit."""
    m = histories.shape[0]
    check_memory(similarity_bytes(key, m), what=f"the {m} x {m} {name} similarity")


def _jaccard(histories):
    _fits(histories, "Jaccard", "jaccard")
    binary = _binary(histories)
    sizes = np.diff(binary.indptr).astype(np.float64)
    overlap = (binary @ binary.T).toarray()
    union = sizes[:, None] + sizes[None, :] - overlap
    jaccard = np.divide(overlap, union, out=np.zeros_like(overlap), where=union > 0)
    return _finish(jaccard, sizes > 0)


def _distributions(histories, item_features):
    """(m, f) each user's mean of normalised feature rows over the binarised history."""
    binary = _binary(histories)
    sizes = np.diff(binary.indptr).astype(np.float64)
    rows = item_features / item_features.sum(axis=1, keepdims=True)
    totals = np.asarray(binary @ rows)
    return totals / np.maximum(sizes, 1.0)[:, None], sizes > 0


def _js(histories, item_features):
    from scipy.special import entr  # (here: the measures' modules import this one, and scipy is slow to load)

    _fits(histories, "JS", "js")
    dist, nonempty = _distributions(histories, item_features)
    m, f = dist.shape
    entropy = entr(dist).sum(axis=1) / _LN2
    similarity = np.empty((m, m), dtype=np.float64)
    block = max(1, _BLOCK_ELEMENTS // max(1, m * f))
    for start in range(0, m, block):  # blocks of users bound memory at O(block * m * f)
        stop = min(start + block, m)
        mixture = (dist[start:stop, None, :] + dist[None, :, :]) * 0.5
        divergence = entr(mixture).sum(axis=2) / _LN2 - (entropy[start:stop, None] + entropy[None, :]) * 0.5
        similarity[start:stop] = 1.0 - divergence
    return _finish(similarity, nonempty)


def jaccard_similarity(histories: MatrixLike) -> NDArray[np.float64]:
    """Jaccard similarity of the users' (binarised) history sets.

    Parameters
    ----------
    histories : scipy.sparse matrix, DataFrame (user, item, weight) or array, shape (m, n)
        Interaction weights >= 0; any positive weight means "in the history".

    Returns
    -------
    numpy.ndarray, shape (m, m)
        Symmetric, in [0, 1]; diagonal 1 for non-empty histories, 0 for empty ones.

    Notes
    -----
    J(u, v) = |H_u ∩ H_v| / |H_u ∪ H_v|, and 0 when both histories are empty.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from puf.similarity import jaccard_similarity
    >>> jaccard_similarity(sp.csr_matrix([[1.0, 1, 0], [0, 1, 1], [0, 0, 0]]))
    array([[1.   , 0.333, 0.   ],
           [0.333, 1.   , 0.   ],
           [0.   , 0.   , 0.   ]])
    """
    return _jaccard(check_histories(histories))


def cosine_similarity(histories: MatrixLike) -> NDArray[np.float64]:
    """Cosine similarity of the users' history vectors (weights kept, not binarised).

    Parameters
    ----------
    histories : scipy.sparse matrix, DataFrame (user, item, weight) or array, shape (m, n)
        Interaction weights >= 0.

    Returns
    -------
    numpy.ndarray, shape (m, m)
        Symmetric, in [0, 1] (weights are non-negative); diagonal 1 for non-empty
        histories; 0 in every row and column of a zero history vector.

    Notes
    -----
    cos(u, v) = h_u · h_v / (||h_u|| ||h_v||), and 0 when either vector is zero.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from puf.similarity import cosine_similarity
    >>> cosine_similarity(sp.csr_matrix([[1.0, 2, 0], [2, 0, 1]]))  # 2 / (√5 √5)
    array([[1. , 0.4],
           [0.4, 1. ]])
    """
    histories = check_histories(histories)
    _fits(histories, "cosine", "cosine")
    gram = (histories @ histories.T).toarray()
    norms = np.sqrt(np.diag(gram))
    scale = norms[:, None] * norms[None, :]
    cosine = np.divide(gram, scale, out=np.zeros_like(gram), where=scale > 0)
    return _finish(cosine, norms > 0)


def js_similarity(histories: MatrixLike, item_features: ArrayLike) -> NDArray[np.float64]:
    """One minus the Jensen-Shannon divergence of the users' feature distributions.

    Parameters
    ----------
    histories : scipy.sparse matrix, DataFrame (user, item, weight) or array, shape (m, n)
        Interaction weights >= 0, binarised.
    item_features : array_like, shape (n, f)
        Non-negative item features (e.g. genre indicators); every row must sum > 0.

    Returns
    -------
    numpy.ndarray, shape (m, m)
        Symmetric, in [0, 1]; diagonal 1 for non-empty histories. A user with an empty
        history has no distribution and gets similarity 0 to everyone (self included).

    Notes
    -----
    P_u = (1/|H_u|) Σ_{i∈H_u} x_i / Σ_f x_if, M = (P_u + P_v)/2 and, with entropy H in bits,
    sim_JS(u, v) = 1 − JS(P_u, P_v) = 1 − [H(M) − (H(P_u) + H(P_v))/2]. Computed for
    blocks of users at a time, in O(block · m · f) memory.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from puf.similarity import js_similarity
    >>> features = np.array([[1.0, 0], [0, 1], [1, 1]])
    >>> js_similarity(sp.csr_matrix([[1.0, 0, 0], [0, 1, 0], [0, 0, 1]]), features)
    array([[1.     , 0.     , 0.68872],
           [0.     , 1.     , 0.68872],
           [0.68872, 0.68872, 1.     ]])
    """
    histories = check_histories(histories)
    item_features = check_item_features(item_features, n_items=histories.shape[1])
    return _js(histories, item_features)


def uf_similarity(histories: MatrixLike, item_features: ArrayLike, *, gamma: float) -> NDArray[np.float64]:
    """The UF paper's blend of Jaccard and Jensen-Shannon similarity.

    Parameters
    ----------
    histories, item_features
        As in :func:`js_similarity`.
    gamma : float in [0, 1]
        Weight of the Jaccard term.

    Returns
    -------
    numpy.ndarray, shape (m, m)
        Symmetric, in [0, 1]; diagonal 1 for non-empty histories, 0 around empty ones.

    Notes
    -----
    sim_UF(u, v) = γ · J(u, v) + (1 − γ) · sim_JS(u, v).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from puf.similarity import uf_similarity
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [0, 1, 1]])
    >>> uf_similarity(histories, np.eye(3), gamma=0.5)  # J = 1/3, sim_JS = 1/2
    array([[1.     , 0.41667],
           [0.41667, 1.     ]])
    """
    gamma = check_unit_scalar(gamma, name="gamma")
    histories = check_histories(histories)
    item_features = check_item_features(item_features, n_items=histories.shape[1])
    # gamma * a + 0 * b == gamma * a exactly, so the unused term may be skipped.
    if gamma == 1.0:
        return _jaccard(histories)
    if gamma == 0.0:
        return _js(histories, item_features)
    blend = gamma * _jaccard(histories) + (1.0 - gamma) * _js(histories, item_features)
    return np.clip(blend, 0.0, 1.0, out=blend)


#: The user similarities by name, each from the histories (sim_JS and sim_UF with item features too).
SIMILARITIES: dict[str, Callable[..., NDArray[np.float64]]] = {
    "jaccard": jaccard_similarity,
    "cosine": cosine_similarity,
    "js": js_similarity,
    "uf": uf_similarity,
}


def get_similarity(name: str) -> Callable[..., NDArray[np.float64]]:
    """Return the similarity function registered under ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`SIMILARITIES`. ``"js"`` and ``"uf"`` also take ``item_features``;
        ``"uf"`` takes the keyword ``gamma``.

    Returns
    -------
    callable
        ``f(histories, ...) -> (m, m)`` in [0, 1].

    Raises
    ------
    ValueError
        If ``name`` is not registered; the message lists the known names.

    Examples
    --------
    >>> from puf.similarity import get_similarity
    >>> get_similarity("uf").__name__
    'uf_similarity'
    """
    return lookup(SIMILARITIES, name, what="similarity")


def similarity_parameters(name: str) -> tuple[str, ...]:
    """Return the inputs beyond ``histories`` that similarity ``name`` takes, from its signature.

    Examples
    --------
    >>> from puf.similarity import similarity_parameters
    >>> similarity_parameters("jaccard"), similarity_parameters("uf")
    ((), ('item_features', 'gamma'))
    """
    parameters = inspect.signature(get_similarity(name)).parameters
    return tuple(p for p in ("item_features", "gamma") if p in parameters)


def takes_gamma(name: str) -> bool:
    """Return whether similarity ``name`` takes γ (a ``gamma`` parameter); ValueError for an unknown name.

    Examples
    --------
    >>> from puf.similarity import takes_gamma
    >>> takes_gamma("uf"), takes_gamma("jaccard")
    (True, False)
    """
    return "gamma" in similarity_parameters(name)


def compute_similarity(
    name: str, histories: MatrixLike, *, item_features: ArrayLike | None = None, gamma: float | None = None
) -> NDArray[np.float64]:
    """Compute similarity ``name``, passing each function only the inputs it takes.

    Parameters
    ----------
    name : str
        A key of :data:`SIMILARITIES`.
    histories : scipy.sparse matrix, DataFrame (user, item, weight) or array, shape (m, n)
        Interaction weights >= 0.
    item_features : array_like, shape (n, f), optional
        Needed by ``"js"`` and ``"uf"``; ignored by the others.
    gamma : float in [0, 1], optional
        Needed by ``"uf"``; ignored by the others.

    Returns
    -------
    numpy.ndarray, shape (m, m)
        Symmetric, in [0, 1].

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from puf.similarity import compute_similarity
    >>> histories = sp.csr_matrix([[1.0, 1, 0], [0, 1, 1]])
    >>> compute_similarity("uf", histories, item_features=np.eye(3), gamma=0.5)[0, 1]
    np.float64(0.4166666666666667)
    >>> compute_similarity("jaccard", histories, gamma=0.5)[0, 1]  # takes no gamma: ignored
    np.float64(0.3333333333333333)
    """
    given = {"item_features": item_features, "gamma": gamma}
    options = {p: given[p] for p in similarity_parameters(name)}
    missing = [p for p, value in options.items() if value is None]
    if missing:
        raise ValueError(f"similarity {name!r} needs {' and '.join(missing)}, got None")
    return get_similarity(name)(histories, **options)
