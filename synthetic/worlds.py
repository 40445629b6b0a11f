"""Synthetic interaction-level worlds: communities, histories, graded relevance, ranked lists,
and what a world achieved (:func:`summary`)."""

from __future__ import annotations

__all__ = ["world", "summary"]

import numbers
from typing import cast

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from puf.effectiveness import ndcg_at_k, precision_at_k
from puf.validation import check_k, check_random_state, check_unit_scalar
from puf.similarity import jaccard_similarity, uf_similarity
from puf.world import World

from ._checks import check_count, check_users
from ._skewness import sample_skewness
from .pairing import PAIRINGS, pair, weighted_gap_sum
from .similarity import off_diagonal

_BLOCK_ELEMENTS = 1 << 22  # users per Gumbel block: bounds the (block, n_items) temporaries
_EXTRA_GENRE = 0.15  # chance of each secondary genre: multi-label items
_FLOOR = 1e-12  # global-popularity floor: an exhausted community falls back on popular items


def _history_range(history_size: int | tuple[int, int] | None, n_items: int, k: int) -> tuple[int, int]:
    room = n_items - k - 1  # every user needs k list items and one relevant item besides
    if room < 1:
        raise ValueError(
            f"n_items must be >= k + 2 = {k + 2} (history, list and relevance are disjoint), got {n_items}"
        )
    if history_size is None:
        high = max(1, min(40, n_items // 4, room))
        return max(1, high // 4), high
    if isinstance(history_size, numbers.Integral) and not isinstance(history_size, bool):
        low = high = check_count(history_size, name="history_size", minimum=1)
    else:
        try:
            low, high = (check_count(v, name="history_size", minimum=1) for v in cast("tuple[int, int]", history_size))
        except (TypeError, ValueError):
            raise ValueError(
                f"history_size must be an int or a (low, high) pair of ints >= 1, got {history_size!r}"
            ) from None
        if low > high:
            raise ValueError(f"history_size must have low <= high, got {history_size!r}")
    if high > room:
        raise ValueError(f"history_size {high} leaves no room: it must be <= n_items - k - 1 = {room}")
    return low, high


def _structure(
    rng: np.random.Generator, n_items: int, communities: int, n_features: int, n_dimensions: int
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Item blocks, popularity, multi-hot genres and embeddings."""
    block = rng.permutation(np.arange(n_items) % communities)
    popularity = 1.0 / (1.0 + rng.permutation(n_items)) ** 0.8  # Zipf-like, random ranks
    popularity /= popularity.sum()
    genre_of = rng.integers(0, n_features, size=communities)
    features = (rng.random((n_items, n_features)) < _EXTRA_GENRE).astype(np.float64)
    features[np.arange(n_items), genre_of[block]] = 1.0  # every item has its block's genre
    centres = rng.standard_normal((communities, n_dimensions))
    vectors = centres[block] + 0.5 * rng.standard_normal((n_items, n_dimensions))
    return block, popularity, features, vectors


def _ordered_items(
    rng: np.random.Generator, log_weights: NDArray[np.float64], membership: NDArray[np.int64], width: int
) -> NDArray[np.int64]:
    """Each user's first ``width`` items of a weighted sample without replacement (Gumbel top-k)."""
    m, n = membership.shape[0], log_weights.shape[1]
    ordered = np.empty((m, width), dtype=np.int64)
    step = max(1, _BLOCK_ELEMENTS // n)
    for start in range(0, m, step):  # blocks of users: vectorised within, O(block * n) memory
        stop = min(m, start + step)
        keys = log_weights[membership[start:stop]] + rng.gumbel(size=(stop - start, n))
        if width < n:
            top = np.argpartition(-keys, width - 1, axis=1)[:, :width]
        else:
            top = np.tile(np.arange(n), (stop - start, 1))
        rank = np.argsort(-np.take_along_axis(keys, top, axis=1), axis=1, kind="stable")
        ordered[start:stop] = np.take_along_axis(top, rank, axis=1)
    return ordered


def _sparse(
    rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    values: NDArray[np.float64],
    mask: NDArray[np.bool_],
    shape: tuple[int, int],
) -> sp.csr_matrix:
    return sp.csr_matrix((values[mask], (rows[mask], cols[mask])), shape=shape)


def _log_weights(
    block: NDArray[np.int64], popularity: NDArray[np.float64], communities: int, concentration: float
) -> NDArray[np.float64]:
    """Log item weights per community: its own items' popularity blended with the global one."""
    in_block = block[None, :] == np.arange(communities)[:, None]
    community_taste = np.where(in_block, popularity, 0.0)
    mass = community_taste.sum(axis=1, keepdims=True)
    # A community without items (more communities than items) has the global taste.
    community_taste = np.where(mass > 0, community_taste / np.where(mass > 0, mass, 1.0), popularity)
    return np.log(concentration * community_taste + (1.0 - concentration + _FLOOR) * popularity)


def _zero_users(
    histories: sp.csr_matrix,
    zero_relevance: float,
    pairing: str,
    zero_rng: np.random.Generator,
    pair_rng: np.random.Generator,
) -> NDArray[np.bool_]:
    """Which users get no relevant item in their list: a random share, then paired by Jaccard."""
    m = histories.shape[0]
    n_zero = int(round(zero_relevance * m))
    zero = np.zeros(m, dtype=bool)
    zero[zero_rng.permutation(m)[:n_zero]] = True
    if pairing != "random" and 0 < n_zero < m:
        template = np.where(zero, 0.0, 1.0)
        jaccard = jaccard_similarity(histories)
        paired = pair(template, jaccard, mode=pairing, random_state=pair_rng)
        sign = 1.0 if pairing == "most_fair" else -1.0
        # Keep the random choice if the search did not beat it: then, for one random_state,
        # PUF(most_fair) <= PUF(random) <= PUF(most_unfair) holds for worlds too.
        if sign * weighted_gap_sum(paired, jaccard) < sign * weighted_gap_sum(template, jaccard):
            zero = paired == 0.0
    return zero


def world(
    n_users: int,
    n_items: int,
    *,
    k: int = 10,
    communities: int = 8,
    concentration: float = 0.5,
    zero_relevance: float = 0.0,
    n_features: int = 12,
    n_dimensions: int = 16,
    history_size: int | tuple[int, int] | None = None,
    grades: int = 5,
    pairing: str = "random",
    random_state: int | np.random.Generator | None = None,
) -> World:
    """A synthetic World: community histories, graded relevance and top-k lists.

    Parameters
    ----------
    n_users : int
        m >= 2.
    n_items : int
        n >= k + 2.
    k : int, default 10
        List length, 1 <= k <= n_items - 2.
    communities : int, default 8
        Latent communities; every user belongs to one, every item to one block.
    concentration : float in [0, 1], default 0.5
        Share of each user's taste that is their community's: 0 = everybody samples the
        global popularity (all pairs alike, low skewness), 1 = disjoint communities
        (Jaccard 0 across communities: a highly skewed similarity distribution).
    zero_relevance : float in [0, 1], default 0.0
        Share of users (exactly round(zero_relevance * m)) whose list holds no relevant
        item; every other user has a fully relevant list in ideal order (P@k = NDCG@k = 1)
        and at least k relevant items.
    n_features : int, default 12
        Genres: every item has its block's genre plus each other with probability 0.15.
    n_dimensions : int, default 16
        Size of the item vectors (block centre plus noise) used for list distances.
    history_size : int or (int, int), optional
        History length, fixed or uniform in [low, high]; default scales with n_items
        (low = high // 4, high = min(40, n_items // 4)). high <= n_items - k - 1.
    grades : int, default 5
        Relevance grades are integers 1..grades.
    pairing : {"random", "most_fair", "most_unfair"}, default "random"
        Which users get the zero-relevance lists: random, or chosen by :func:`pair` on
        the Jaccard similarity so that similar users have equal (fair) or unequal
        (unfair) effectiveness. For one random_state, PUF (P@k or NDCG@k, Jaccard) of
        most_fair <= random <= most_unfair, and histories and lists are identical.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    puf.World
        histories (binary CSR), relevance (graded CSR, disjoint from the history),
        rankings (m, k), item_features (n, n_features) multi-hot, item_vectors (n, n_dimensions).

    Notes
    -----
    User u's taste is w_u = c p_{community(u)} + (1 - c) p, p a Zipf popularity and p_b
    its restriction to block b. One weighted sample without replacement (Gumbel top-k,
    vectorised over users) gives u's history (first h_u items), list (next k, in that
    order) and relevance pool (the next items). Full users' list items get grades sorted
    descending along the list, and up to k extra relevant items get grades no higher, so
    the list is ideal; zero users' relevant items are drawn from the pool instead.
    Independent streams drive structure, tastes, grades and the choice of zero users,
    so for the same random_state, changing ``zero_relevance`` or ``pairing`` changes the
    relevance matrix only (histories, lists and items identical), and with random pairing
    the zero users at a larger share include those at a smaller one. A 5,000 x 5,000
    world takes about 1-3 s on 2 cores (pairing other than random adds the search, O(m^3)).

    Examples
    --------
    >>> w = world(50, 200, k=5, zero_relevance=0.2, random_state=0)
    >>> w.m, w.n_items, w.k
    (50, 200, 5)
    >>> p = w.population(metric="precision").effectiveness
    >>> int((p == 0).sum()), int((p == 1).sum())
    (10, 40)
    >>> world(5, 10, k=11)
    Traceback (most recent call last):
    ...
    ValueError: k must be <= n_items = 10, got 11
    """
    m = check_users(n_users, name="n_users")
    n = check_count(n_items, name="n_items", minimum=1)
    k = check_k(k)
    if k > n:
        raise ValueError(f"k must be <= n_items = {n}, got {k}")
    low, high = _history_range(history_size, n, k)
    communities = check_count(communities, name="communities", minimum=1)
    concentration = check_unit_scalar(concentration, name="concentration")
    zero_relevance = check_unit_scalar(zero_relevance, name="zero_relevance")
    n_features = check_count(n_features, name="n_features", minimum=1)
    n_dimensions = check_count(n_dimensions, name="n_dimensions", minimum=1)
    grades = check_count(grades, name="grades", minimum=1)
    if pairing not in PAIRINGS:
        raise ValueError(f"unknown pairing {pairing!r}; known: {', '.join(PAIRINGS)}")
    structure_rng, taste_rng, grade_rng, zero_rng, pair_rng = check_random_state(random_state).spawn(5)

    block, popularity, features, vectors = _structure(structure_rng, n, communities, n_features, n_dimensions)
    log_weights = _log_weights(block, popularity, communities, concentration)
    membership = taste_rng.integers(0, communities, size=m)
    sizes = taste_rng.integers(low, high + 1, size=m)
    width = min(n, high + 3 * k)
    ordered = _ordered_items(taste_rng, log_weights, membership, width)

    # Positions along each user's sample: [0, h) history, [h, h + k) list, then the pool.
    position = np.arange(width)[None, :]
    offset = position - sizes[:, None] - k  # index into the relevance pool (< 0: not pool)
    room = width - sizes - k
    extras = np.minimum(grade_rng.integers(0, k + 1, size=m), room)
    pool_size = np.minimum(k + extras, room)  # zero users: k + extras relevant items, if room
    list_grades = -np.sort(-grade_rng.integers(1, grades + 1, size=(m, k)), axis=1)
    extra_grades = grade_rng.integers(1, list_grades[:, -1:] + 1, size=(m, width))
    pool_grades = grade_rng.integers(1, grades + 1, size=(m, width))

    rows = np.repeat(np.arange(m), width).reshape(m, width)
    histories = _sparse(rows, ordered, np.ones((m, width)), position < sizes[:, None], (m, n))
    zero = _zero_users(histories, zero_relevance, pairing, zero_rng, pair_rng)

    in_list = (offset >= -k) & (offset < 0)
    grade = np.zeros((m, width))
    list_index = np.clip(offset + k, 0, k - 1)
    grade[in_list] = np.take_along_axis(list_grades, list_index, axis=1)[in_list]
    full_extra = (offset >= 0) & (offset < extras[:, None])
    grade[full_extra] = extra_grades[full_extra]
    zero_pool = (offset >= 0) & (offset < pool_size[:, None])
    relevant = np.where(zero[:, None], zero_pool, in_list | full_extra)
    grade = np.where(zero[:, None], pool_grades, grade)
    relevance = _sparse(rows, ordered, grade, relevant, (m, n))
    rankings = np.take_along_axis(ordered, sizes[:, None] + np.arange(k)[None, :], axis=1)
    return World(histories, relevance, rankings, features, vectors)


def summary(
    world: World, *, k: int | None = None, gamma: float | None = None, max_users: int | None = 2000
) -> dict[str, int | float]:
    """What a World achieved: similarity and effectiveness distributions, history sizes.

    Parameters
    ----------
    world : puf.World
    k : int, optional
        Cut-off for P@k and NDCG@k; default the list length.
    gamma : float in [0, 1], optional
        Jaccard weight in sim_UF; default the γ UF declares (:func:`puf.declared_gamma`).
    max_users : int or None, default 2000
        The similarity statistics use this many evenly spaced users when there are more
        (sim_JS is O(m^2 f)); None uses everybody. Effectiveness uses every user.

    Returns
    -------
    dict of str to int or float
        Counts (int): n_users, n_items, k, history_min, history_max. Floats: jaccard_mean,
        jaccard_skewness, uf_mean, uf_skewness (over the off-diagonal pairs, each once;
        Fisher-Pearson skewness); precision_mean, precision_sd, ndcg_mean, ndcg_sd (SD with
        ddof=0); zero_share (users with P@k = 0); history_mean; relevant_mean (relevant items
        per user).

    Examples
    --------
    >>> from puf.synthetic import world
    >>> s = summary(world(40, 120, k=5, zero_relevance=0.25, random_state=1))
    >>> s["precision_mean"], s["ndcg_sd"], s["zero_share"]
    (0.75, 0.4330127018922193, 0.25)
    >>> s["n_users"], s["k"]
    (40, 5)
    >>> 0 <= s["jaccard_mean"] <= 1
    True
    """
    k = world.k if k is None else check_k(k)
    if k > world.k:
        raise ValueError(f"k must be <= the list length {world.k}, got {k}")
    precision = precision_at_k(world.rankings[:, :k], world.relevance, k=k)
    ndcg = ndcg_at_k(world.rankings[:, :k], world.relevance, k=k)
    users = slice(None)
    if max_users is not None and world.m > check_count(max_users, name="max_users", minimum=2):
        users = np.linspace(0, world.m - 1, max_users).round().astype(np.int64)
    histories = world.histories[users]
    jaccard = off_diagonal(jaccard_similarity(histories))
    if gamma is None:
        from puf.registry import declared_gamma

        gamma = declared_gamma("uf")
        if gamma is None:  # UF declares it; a registry without UF has no default to use
            raise ValueError("gamma is None and no registered measure declares the UF similarity's gamma")
    blend = off_diagonal(uf_similarity(histories, world.item_features, gamma=gamma))
    sizes = np.diff(world.histories.indptr)
    return {
        "n_users": int(world.m),
        "n_items": int(world.n_items),
        "k": int(k),
        "jaccard_mean": float(jaccard.mean()),
        "jaccard_skewness": sample_skewness(jaccard),
        "uf_mean": float(blend.mean()),
        "uf_skewness": sample_skewness(blend),
        "precision_mean": float(precision.mean()),
        "precision_sd": float(precision.std()),
        "ndcg_mean": float(ndcg.mean()),
        "ndcg_sd": float(ndcg.std()),
        "zero_share": float((precision == 0).mean()),
        "history_min": int(sizes.min()),
        "history_mean": float(sizes.mean()),
        "history_max": int(sizes.max()),
        "relevant_mean": float(np.diff(world.relevance.indptr).mean()),
    }
