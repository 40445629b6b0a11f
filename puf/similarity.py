"""User-user similarity from training histories: dense (m, m) matrices in [0, 1].

Every function returns a float64 matrix that is exactly symmetric, lies in [0, 1]
(tiny float excursions are clipped) and has diagonal 1 for users with a non-empty
history and 0 for users with an empty one. Fairness measures ignore the diagonal.
A user with an empty history is similar to nobody: every similarity in their row
and column is 0.
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
from puf.similarity_functions import cosine_similarity, jaccard_similarity, js_similarity, uf_similarity
from puf.validation import lookup

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
