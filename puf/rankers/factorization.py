"""ALS and BPR matrix factorisation through the optional ``implicit`` library.

Install with ``pip install implicit`` (or the ``puf-harness[rankers]`` extra).
Both run single-threaded with BLAS limited to one thread: that makes them
deterministic for a given ``random_state`` (BPR's Hogwild updates are not
otherwise) and keeps implicit from warning about threaded OpenBLAS.
"""

from __future__ import annotations

__all__ = ["ALS", "BPR", "implicit_available"]

import importlib.util

import numpy as np

from ..validation import check_k, check_nonnegative_scalar
from ._base import Ranker


def implicit_available() -> bool:
    """Whether the optional ``implicit`` library can be imported.

    Examples
    --------
    >>> isinstance(implicit_available(), bool)
    True
    """
    return importlib.util.find_spec("implicit") is not None


def _import_implicit(ranker):
    try:
        import implicit.cpu.als
        import implicit.cpu.bpr
        import threadpoolctl
    except ImportError as exc:
        raise ImportError(
            f"the {ranker} ranker needs the optional 'implicit' library: "
            "pip install implicit  (or pip install 'puf-harness[rankers]')"
        ) from exc
    return implicit, threadpoolctl


class _Factorization(Ranker):
    threaded_batches = True

    def _model(self, implicit, seed):
        raise NotImplementedError

    def _fit(self, train):
        implicit, threadpoolctl = _import_implicit(type(self).__name__)
        seed = int(self.rng_.integers(2**31 - 1))
        # implicit checks the BLAS thread count when the model is built and warns otherwise.
        with threadpoolctl.threadpool_limits(1, "blas"):
            model = self._model(implicit, seed)
            model.fit(train.astype(np.float32).tocsr(), show_progress=False)
        self.user_factors_ = np.asarray(model.user_factors, dtype=np.float64)
        self.item_factors_ = np.asarray(model.item_factors, dtype=np.float64)

    def _score(self, users):
        return self.user_factors_[users] @ self.item_factors_.T


class ALS(_Factorization):
    """Implicit-feedback alternating least squares (Hu, Koren & Volinsky, 2008).

    Parameters
    ----------
    factors : int, default 32
    regularization : float, default 0.05
    alpha : float, default 1.0
        Confidence scaling of observed interactions.
    iterations : int, default 15
    random_state : None, int or numpy.random.Generator

    Examples
    --------
    >>> ALS(factors=8).factors
    8
    """

    name = "als"

    def __init__(
        self,
        *,
        factors: int = 32,
        regularization: float = 0.05,
        alpha: float = 1.0,
        iterations: int = 15,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(random_state=random_state)
        self.factors = factors
        self.regularization = regularization
        self.alpha = alpha
        self.iterations = iterations

    def _model(self, implicit, seed):
        return implicit.cpu.als.AlternatingLeastSquares(
            factors=check_k(self.factors, name="factors"),
            regularization=check_nonnegative_scalar(self.regularization, name="regularization"),
            alpha=check_nonnegative_scalar(self.alpha, name="alpha"),
            iterations=check_k(self.iterations, name="iterations"),
            num_threads=1,
            random_state=seed,
        )


class BPR(_Factorization):
    """Bayesian personalised ranking (Rendle et al., 2009) by SGD.

    Parameters
    ----------
    factors : int, default 64
    learning_rate : float, default 0.01
    regularization : float, default 0.01
    iterations : int, default 100
    random_state : None, int or numpy.random.Generator

    Examples
    --------
    >>> BPR(iterations=5).iterations
    5
    """

    name = "bpr"

    def __init__(
        self,
        *,
        factors: int = 64,
        learning_rate: float = 0.01,
        regularization: float = 0.01,
        iterations: int = 100,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(random_state=random_state)
        self.factors = factors
        self.learning_rate = learning_rate
        self.regularization = regularization
        self.iterations = iterations

    def _model(self, implicit, seed):
        return implicit.cpu.bpr.BayesianPersonalizedRanking(
            factors=check_k(self.factors, name="factors"),
            learning_rate=check_nonnegative_scalar(self.learning_rate, name="learning_rate"),
            regularization=check_nonnegative_scalar(self.regularization, name="regularization"),
            iterations=check_k(self.iterations, name="iterations"),
            num_threads=1,
            random_state=seed,
        )
