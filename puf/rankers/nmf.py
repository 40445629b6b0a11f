"""NMF on the binary user-item matrix through scikit-learn (optional extra ``neural``)."""

from __future__ import annotations

__all__ = ["NMF", "sklearn_available"]

import importlib.util

import numpy as np

from ..validation import check_k, check_nonnegative_scalar
from ._base import Ranker


def sklearn_available() -> bool:
    """Whether the optional ``scikit-learn`` library can be imported.

    Examples
    --------
    >>> isinstance(sklearn_available(), bool)
    True
    """
    return importlib.util.find_spec("sklearn") is not None


class NMF(Ranker):
    """Non-negative matrix factorisation X ≈ W H of the training matrix (scikit-learn).

    Scores are W H. scikit-learn's coordinate-descent solver with its
    defaults (NNDSVDa initialisation, Frobenius loss, tolerance 1e-4, no
    regularisation), ``max_iter`` 500 so that it converges on ML-100K/ML-1M;
    ``n_components`` 64, the embedding size of the paper's other latent
    models (RecBole has no NMF; the PUF paper gives no size).

    Parameters
    ----------
    n_components : int, default 64
        Capped at min(users, items): NNDSVDa initialisation needs no more.
    alpha : float, default 0.0
        scikit-learn's ``alpha_W`` (``alpha_H`` follows it).
    max_iter : int, default 500
    random_state : None, int or numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 1]])
    >>> NMF(n_components=2, random_state=0).fit(X).recommend(k=1).tolist()
    [[2], [2], [1], [0]]
    """

    name = "nmf"

    def __init__(
        self,
        *,
        n_components: int = 64,
        alpha: float = 0.0,
        max_iter: int = 500,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(random_state=random_state)
        self.n_components = n_components
        self.alpha = alpha
        self.max_iter = max_iter

    def _fit(self, train):
        try:
            from sklearn.decomposition import NMF as SklearnNMF
        except ImportError as exc:
            raise ImportError(
                "the NMF ranker needs the optional 'scikit-learn' library: "
                "pip install scikit-learn  (or pip install 'puf-harness[neural]')"
            ) from exc
        from ._base import single_threaded_blas

        components = min(check_k(self.n_components, name="n_components"), *train.shape)
        model = SklearnNMF(
            n_components=components,
            alpha_W=check_nonnegative_scalar(self.alpha, name="alpha"),
            max_iter=check_k(self.max_iter, name="max_iter"),
            random_state=int(self.rng_.integers(2**31 - 1)),
        )
        with single_threaded_blas():
            self.user_factors_ = model.fit_transform(train)
        self.item_factors_ = np.asarray(model.components_, dtype=np.float64)
        self.n_iter_ = model.n_iter_

    def _score(self, users):
        return self.user_factors_[users] @ self.item_factors_
