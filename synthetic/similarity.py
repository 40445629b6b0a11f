"""Similarity matrices with a controlled distribution: exact mean and sample skewness.

The off-diagonal values (each unordered pair once) are a sample whose mean and
Fisher-Pearson skewness are set exactly (see :mod:`synthetic._skewness`), either drawn
fresh (:func:`similarity_matrix`) or imposed by rank on an observed matrix
(:func:`reshape_skewness`), or reached by a power transform that lets the mean move
(:func:`power_skewness`); :func:`off_diagonal` reads a matrix's pair values.
"""

from __future__ import annotations

__all__ = [
    "similarity_matrix",
    "reshape_skewness",
    "SkewnessReshaper",
    "power_skewness",
    "skewness_interval",
    "off_diagonal",
]

import copy
import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from puf.pieces import matrix_memo
from puf.validation import check_random_state, check_similarity

from ._checks import check_open_unit, check_users

from ._skewness import (
    FAMILIES,
    check_family,
    check_skewness,
    sample_skewness,
    shape_at_mean,
    skewed_sample,
    skewness_bound,
    solved_shape,
    sorted_skewed_sample,
)

_BLOCK = 1024  # rows per block when mirroring: a block's cache lines stay resident


def _pairs(m: int) -> int:
    return m * (m - 1) // 2


def skewness_interval(m: int) -> tuple[float, float]:
    """The interval of off-diagonal skewness reachable for m users, whatever the mean.

    Parameters
    ----------
    m : int
        Number of users, >= 2; there are N = m(m-1)/2 pairs.

    Returns
    -------
    tuple of float
        (-L, L) with L = min(10, 0.75 (N - 2) / sqrt(N - 1)), and (0, 0) for m = 2.

    Notes
    -----
    N values can have sample skewness at most (N - 2)/sqrt(N - 1) in absolute value
    (one outlier); three quarters of that keeps the target clear of the one-outlier
    limit, and 10 is a practical cap. Skewness is invariant under the affine map that
    sets the mean, so the interval does not depend on the mean (nor on the family): at
    m >= 20 it is [-10, 10] for every mean in (0, 1). What the mean limits is the spread: at
    mean 0.2 a skewness of 8 puts the bulk just below 0.2 with a thin tail up to 1.

    Examples
    --------
    >>> skewness_interval(200)
    (-10.0, 10.0)
    >>> skewness_interval(2)
    (0.0, 0.0)
    """
    bound = skewness_bound(_pairs(check_users(m)))
    return (0.0 - bound, bound)  # 0.0 - 0.0 is +0.0, unlike -0.0


def _symmetric(values: NDArray[np.float64], m: int, diagonal: float | NDArray[np.float64]) -> NDArray[np.float64]:
    """(m, m) matrix with ``values`` in the upper triangle, row by row, mirrored."""
    out = np.empty((m, m))
    offset = 0
    for i in range(m - 1):  # contiguous row writes; O(m) calls for O(m^2) values
        out[i, i + 1 :] = values[offset : offset + m - i - 1]
        offset += m - i - 1
    lower = np.tril(np.ones((_BLOCK, _BLOCK), dtype=bool), -1)
    for start in range(0, m, _BLOCK):
        stop = min(m, start + _BLOCK)
        out[stop:, start:stop] = out[start:stop, stop:].T
        block, mask = out[start:stop, start:stop], lower[: stop - start, : stop - start]
        block[mask] = block.T[mask]
    out[np.diag_indices(m)] = diagonal
    return out


def similarity_matrix(
    m: int,
    *,
    skewness: float,
    mean: float = 0.2,
    family: str = "beta",
    random_state: int | np.random.Generator | None = None,
) -> NDArray[np.float64]:
    """A random symmetric similarity matrix with exact off-diagonal mean and skewness.

    Parameters
    ----------
    m : int
        Number of users, >= 2.
    skewness : float
        Target Fisher-Pearson sample skewness of the m(m-1)/2 off-diagonal values
        (``scipy.stats.skew`` with ``bias=True``); must lie in :func:`skewness_interval`.
    mean : float in (0, 1), default 0.2
        Exact mean of the off-diagonal values.
    family : {"beta", "lognormal"}, default "beta"
        Shape family. "beta": a power of a uniform, U**(1/a) ~ Beta(a, 1), J-shaped with
        mass piled at the low end, mirrored to Beta(1, a) for negative targets. "lognormal":
        bell-shaped near 0, a lognormal (mirrored for negative targets) further out.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of shape (m, m)
        Symmetric float64 in [0, 1], diagonal 1. The pairs are independent draws, so the
        matrix has no community structure (use :func:`synthetic.world` for that).

    Notes
    -----
    One base sample w of N = m(m-1)/2 values is drawn; the Box-Cox-type transform
    T(w) = (exp(theta w) - 1)/theta has a sample skewness increasing in theta, and theta
    is solved by root finding so that the *sample* skewness equals the target (to 1e-7),
    first on a 2^17-value subsample, then by Newton steps on the full sample. An affine
    map then sets the mean exactly with the widest spread that stays in [0, 1], so the
    values touch 0 or 1. Time and memory are O(N): about 1.2 GB peak at m = 10,000.

    Examples
    --------
    >>> from scipy.stats import skew
    >>> s = similarity_matrix(300, skewness=3.0, mean=0.2, random_state=0)
    >>> values = off_diagonal(s)
    >>> round(float(values.mean()), 12), round(float(skew(values)), 6)
    (0.2, 3.0)
    >>> bool((s == s.T).all()), float(s.min()) >= 0, float(s.max()) <= 1
    (True, True, True)
    >>> similarity_matrix(3, skewness=2.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: skewness 2.0 is unreachable for m = 3 users: the achievable interval is [-0.53033, 0.53033] ...
    """
    m = check_users(m)
    mean = check_open_unit(mean, name="mean")
    check_family(family)
    n = _pairs(m)
    skewness = check_skewness(skewness, n, what=f"m = {m} users")
    rng = check_random_state(random_state)
    values = skewed_sample(n, skewness, mean, family, rng)
    return _symmetric(values, m, 1.0)


def reshape_skewness(
    similarity: ArrayLike,
    *,
    skewness: float,
    mean: float | None = None,
    family: str = "beta",
    random_state: int | np.random.Generator | None = None,
) -> NDArray[np.float64]:
    """Map an observed similarity matrix, by rank, onto a distribution with a target skewness.

    The order of the pairs is kept (the most similar pair stays the most similar), the
    values are replaced by a sample with exact mean and skewness, as in
    :func:`similarity_matrix`: the way to vary the skewness of a real dataset's
    similarities while keeping which users are alike.

    Parameters
    ----------
    similarity : array-like of shape (m, m)
        Symmetric, in [0, 1], m >= 2 (e.g. Jaccard of real histories).
    skewness : float
        Target sample skewness of the off-diagonal values, in :func:`skewness_interval`.
    mean : float in (0, 1), optional
        Target mean; defaults to the observed off-diagonal mean.
    family : {"beta", "lognormal"}, default "beta"
    random_state : None, int or numpy.random.Generator
        Draws the target values and breaks ties among equal observed values.

    Returns
    -------
    numpy.ndarray of shape (m, m)
        Symmetric float64 in [0, 1]; the diagonal is copied from the input. Pairs with
        different observed values keep their order; tied pairs (e.g. the many exact zeros
        of real Jaccard) are ordered at random, so the target skewness is met exactly.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import skew, spearmanr
    >>> rng = np.random.default_rng(0)
    >>> observed = rng.random((60, 60)); observed = (observed + observed.T) / 2
    >>> reshaped = reshape_skewness(observed, skewness=-1.0, random_state=0)
    >>> round(float(skew(off_diagonal(reshaped))), 6)
    -1.0
    >>> float(spearmanr(off_diagonal(observed), off_diagonal(reshaped))[0])
    1.0
    >>> reshape_skewness(np.ones((2, 3)), skewness=0.0)
    Traceback (most recent call last):
    ...
    ValueError: similarity must be a square (m, m) matrix, got shape (2, 3)
    """
    similarity, observed, mean = _observed(similarity, mean, family)
    m, n = similarity.shape[0], observed.shape[0]
    skewness = check_skewness(skewness, n, what=f"a {m} x {m} matrix")
    rng = check_random_state(random_state)
    target = skewed_sample(n, skewness, mean, family, rng)
    target.sort()
    order = _rank_order(observed, rng)
    del observed  # O(N): 400 MB at m = 10,000
    values = np.empty(n)
    values[order] = target  # the r-th smallest observed pair gets the r-th smallest target
    del order, target
    return _symmetric(values, m, np.diag(similarity).copy())


def _observed(
    similarity: ArrayLike, mean: float | None, family: str
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """(checked similarity, its off-diagonal values, the target mean)."""
    similarity = check_similarity(similarity)
    observed = off_diagonal(similarity)
    if mean is None:
        mean = float(observed.mean())
        if not 0.0 < mean < 1.0:
            raise ValueError(f"the observed off-diagonal mean is {mean!r}; pass mean= in (0, 1)")
    mean = check_open_unit(mean, name="mean")
    check_family(family)
    return similarity, observed, mean


def _rank_order(
    observed: NDArray[np.float64], rng: np.random.Generator, values: NDArray[np.int64] | None = None
) -> NDArray[np.int64]:
    """Pair indices from the smallest observed value up; ties in the order of a random shuffle.

    ``values``, the observed values' :func:`_value_ranks`, gives the same order by one
    sort of integers (value rank, then place in the shuffle), several times quicker.
    """
    n = observed.shape[0]
    shuffle = rng.permutation(n)  # a stable sort of shuffled values breaks ties at random
    if values is None or n > _PACKED_AT_MOST:
        return shuffle[np.argsort(observed[shuffle], kind="stable")]
    keys = values[shuffle]
    keys *= n
    keys += np.arange(n)  # unique keys: the shuffled values' stable order
    keys.sort()
    np.remainder(keys, n, out=keys)
    return shuffle[keys]


_PACKED_AT_MOST = 3_037_000_499  # n * n < 2 ** 63: a (value rank, place) pair packs in one int64


def _value_ranks(observed: NDArray[np.float64]) -> NDArray[np.int64]:
    """Dense ranks of the values: equal values share one, a larger value has a larger one."""
    order = np.argsort(observed, kind="stable")
    ordered = observed[order]
    ranks = np.empty(observed.shape[0], dtype=np.int64)
    ranks[order[:1]] = 0
    ranks[order[1:]] = np.cumsum(ordered[1:] != ordered[:-1])
    return ranks


class SkewnessReshaper:
    """:func:`reshape_skewness` of one matrix and seed at many skewness values, ranking the pairs once.

    ``SkewnessReshaper(similarity, random_state=seed)(skewness)`` equals
    ``reshape_skewness(similarity, skewness=skewness, random_state=seed)`` to the
    bit. The pairs' ranks, the base draw sorted and each skewness's transform are
    computed once and kept (about 6 m² bytes), so each further call costs one
    pass over the m x m output: the way a sweep over skewness (and over worlds
    sharing the similarity) reads it.

    Parameters
    ----------
    similarity, mean, family
        As in :func:`reshape_skewness`.
    random_state : None, int or numpy.random.Generator
        Each call draws from a copy of it as it is now (a Generator is not advanced).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> observed = rng.random((40, 40)); observed = (observed + observed.T) / 2
    >>> reshaper = SkewnessReshaper(observed, random_state=3)
    >>> all(np.array_equal(reshaper(s), reshape_skewness(observed, skewness=s, random_state=3)) for s in (-1.0, 2.0))
    True
    """

    def __init__(
        self,
        similarity: ArrayLike,
        *,
        mean: float | None = None,
        family: str = "beta",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self._similarity, observed, self._mean = _observed(similarity, mean, family)
        self._family, self._n = family, observed.shape[0]
        self._state = copy.deepcopy(check_random_state(random_state))
        self._ranks, self._ordered, self._shapes = None, None, {}
        # Reshapers of one size, family and generator state (the similarities of one seed) draw
        # the same base sample and solve the same theta: shared between them (_draws_shared).
        self._draw_key = (self._n, family, repr(self._state.bit_generator.state))

    def _prepare(self) -> None:
        """The rank of each pair (the upper triangle, row by row), and the base draw sorted."""
        n = self._n
        base, rng = _draws_shared(("sorted base", *self._draw_key), self._sorted_base)
        rng = copy.deepcopy(rng)  # the generator as the draw left it
        observed = off_diagonal(self._similarity)
        # The pairs' value ranks are the same for every seed: kept while a frozen matrix lives.
        frozen = not self._similarity.flags.writeable and self._similarity.base is None
        ranks_of = functools.partial(_value_ranks, observed)
        values = matrix_memo(self._similarity, "pair value ranks", ranks_of) if frozen else None
        order = _rank_order(observed, rng, values)
        del observed, values, ranks_of
        rank = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
        rank[order] = np.arange(n, dtype=rank.dtype)
        self._ranks, self._ordered = rank, base

    def __call__(self, skewness: float) -> NDArray[np.float64]:
        """The similarity reshaped to ``skewness`` (a new (m, m) array)."""
        m = self._similarity.shape[0]
        skewness = check_skewness(skewness, self._n, what=f"a {m} x {m} matrix")
        if skewness not in self._shapes:
            solved = _draws_shared(
                ("solved", skewness, *self._draw_key),
                lambda: solved_shape(self._n, skewness, self._family, copy.deepcopy(self._state)),
            )
            self._shapes[skewness] = shape_at_mean(solved, skewness, self._mean, self._family)
        if self._ranks is None:
            self._prepare()
        target = sorted_skewed_sample(self._ordered, self._shapes[skewness], skewness, self._mean, self._family)
        # The m(m-1)/2 pairs are gathered once and mirrored: a gather is a random read per entry,
        # and reading each pair for both of its entries took twice as long.
        values = target[self._ranks]
        del target
        out = np.empty((m, m))
        upper = np.triu(np.ones((m, m), dtype=bool), 1)
        out[upper] = values
        out.T[upper] = values
        out[np.diag_indices(m)] = np.diag(self._similarity)
        return out

    def _sorted_base(self) -> tuple[NDArray[np.float64], np.random.Generator]:
        """The base draw skewed_sample makes, shifted to max 0 and sorted (read-only), and the generator after it."""
        rng = copy.deepcopy(self._state)
        base = FAMILIES[self._family][0](rng, self._n)  # advancing rng as skewed_sample's draw does
        base -= base.max()
        base.sort()
        base.flags.writeable = False
        return base, rng


_SHARED: dict[tuple[Any, ...], Any] = {}
_SHARED_SORTED_BASES = 2  # a sorted base draw is 8 bytes a pair: the last two kept (the similarities of a seed)


def _draws_shared(key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    """``compute()`` once per key while kept: the newest sorted base draws and every theta solved."""
    if key not in _SHARED:
        if key[0] == "sorted base":
            bases = [k for k in _SHARED if k[0] == "sorted base"]
            for old in bases[: max(0, len(bases) - _SHARED_SORTED_BASES + 1)]:
                del _SHARED[old]
        _SHARED[key] = compute()
    return _SHARED[key]


def off_diagonal(similarity: ArrayLike) -> NDArray[np.float64]:
    """The upper-triangle values of a square matrix, each unordered pair once, row by row.

    Parameters
    ----------
    similarity : array-like of shape (m, m)

    Returns
    -------
    numpy.ndarray of shape (m(m-1)/2,)

    Examples
    --------
    >>> off_diagonal([[1, .1, .2], [.1, 1, .3], [.2, .3, 1]])
    array([0.1, 0.2, 0.3])
    """
    array = np.asarray(similarity, dtype=np.float64)
    return array[np.triu(np.ones(array.shape, dtype=bool), 1)]


_ALPHA_RANGE = (1e-4, 1e4)  # exponents searched by power_skewness


def _power_skew(log_positive: NDArray[np.float64], zeros: int, alpha: float) -> float:
    """Sample skewness of x**alpha, from log x of the positive values and the count of zeros."""
    # Skewness is shift- and scale-free, so x**alpha / max(x)**alpha - 1 (expm1: exact when
    # alpha is tiny and every value is near 1) has the same skewness and cannot overflow.
    shifted = np.expm1(alpha * log_positive)
    return sample_skewness(np.concatenate([shifted, np.full(zeros, -1.0)]))


def power_skewness(similarity: ArrayLike, *, skewness: float) -> NDArray[np.float64]:
    """Raise every off-diagonal similarity to the power alpha that gives a target skewness.

    ``sim' = sim ** alpha`` with one alpha > 0 for the whole matrix: the order of the
    pairs is kept, 0 and 1 stay fixed, and the mean is free to move (it falls as
    alpha, and with it the skewness, rises). Compare :func:`reshape_skewness`, which
    imposes a skewness at a fixed mean.

    Parameters
    ----------
    similarity : array-like of shape (m, m)
        Symmetric, in [0, 1], m >= 2.
    skewness : float
        Target Fisher-Pearson sample skewness of the m(m-1)/2 off-diagonal values
        (``scipy.stats.skew`` with ``bias=True``), inside the achievable interval below.

    Returns
    -------
    numpy.ndarray of shape (m, m)
        Symmetric float64 in [0, 1]; the diagonal is copied from the input.

    Raises
    ------
    ValueError
        For a non-finite target, or one outside the achievable interval.

    Notes
    -----
    x**a2 is a convex increasing function of x**a1 when a2 > a1, so the sample skewness
    rises with alpha (van Zwet's convex ordering). alpha is searched in [1e-4, 1e4]
    (brentq on log alpha, to 1e-6 or better on the skewness), so the achievable interval
    is [S(1e-4), S(1e4)], S(alpha) the skewness of the powered values. These ends are
    close to the limits: as alpha -> 0 every positive value tends to 1, so S tends to
    the skewness of a 0/1 sample, (1 - 2q) / sqrt(q(1 - q)) with q the share of positive
    pairs (or, with no zero pair, to the skewness of log sim); as alpha -> inf only the
    largest value survives, so S tends to (1 - 2t) / sqrt(t(1 - t)) with t the share of
    pairs tied at the maximum. A matrix with fewer than two distinct positive
    off-diagonal values has a single reachable skewness. For sparse Jaccard (many
    zero pairs) the lower end is near 0 or even positive: negative targets may be out
    of reach. Very large alpha can underflow small values to 0, merging them with zeros.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import skew, spearmanr
    >>> rng = np.random.default_rng(0)
    >>> observed = rng.random((60, 60)); observed = (observed + observed.T) / 2
    >>> powered = power_skewness(observed, skewness=2.0)
    >>> round(float(skew(off_diagonal(powered))), 6)
    2.0
    >>> float(spearmanr(off_diagonal(observed), off_diagonal(powered))[0])
    1.0
    >>> bool(off_diagonal(powered).mean() < off_diagonal(observed).mean())  # the mean moved
    True
    >>> power_skewness(observed, skewness=60.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: skewness 60.0 is unreachable by a power transform of this matrix: ...
    """
    import numbers

    from scipy.optimize import brentq

    similarity = check_similarity(similarity)
    if isinstance(skewness, bool) or not isinstance(skewness, numbers.Real) or not np.isfinite(skewness):
        raise ValueError(f"skewness must be a finite real number, got {skewness!r}")
    skewness = float(skewness)
    observed = off_diagonal(similarity)
    positive = observed[observed > 0]
    log_positive = np.log(positive) - np.log(positive.max()) if positive.size else positive
    zeros = observed.size - positive.size

    def gap(log_alpha: float) -> float:
        return _power_skew(log_positive, zeros, float(np.exp(log_alpha))) - skewness

    low, high = np.log(_ALPHA_RANGE[0]), np.log(_ALPHA_RANGE[1])
    at_low, at_high = gap(low), gap(high)
    if at_low > 1e-12 or at_high < -1e-12:
        raise ValueError(
            f"skewness {skewness!r} is unreachable by a power transform of this matrix: the "
            f"achievable interval is [{at_low + skewness:.6g}, {at_high + skewness:.6g}] "
            f"(sim ** alpha for alpha in [{_ALPHA_RANGE[0]:g}, {_ALPHA_RANGE[1]:g}])"
        )
    if at_low >= 0:
        log_alpha = low
    elif at_high <= 0:
        log_alpha = high
    else:
        log_alpha = brentq(gap, low, high, xtol=1e-13, rtol=1e-15, maxiter=200)
    out = np.power(similarity, np.exp(log_alpha))
    out[np.diag_indices_from(out)] = np.diag(similarity)
    return out
