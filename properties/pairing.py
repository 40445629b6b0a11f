"""Most-fair / most-unfair pairings as user orders.

The rearrangement property needs the *permutation*, not only the permuted
values, so that a world can move whole outcomes (relevance and list) between
users. Up to six users the optimum is found exactly by enumerating every
permutation (faster than the heuristic at that size, and exact); larger
populations use :func:`synthetic.pair_order` (spectral start + swap search).
"""

__all__ = ["pairing_order"]

import itertools

import numpy as np

_EXACT_UP_TO = 6
_PERMUTATIONS = {m: np.array(list(itertools.permutations(range(m)))) for m in range(2, _EXACT_UP_TO + 1)}


def _exact(effectiveness, similarity, sign):
    m = effectiveness.shape[0]
    orders = _PERMUTATIONS[m]
    values = effectiveness[orders]
    gaps = np.abs(values[:, :, None] - values[:, None, :])
    scores = sign * np.einsum("pij,ij->p", gaps, np.triu(similarity, k=1))
    return orders[int(np.argmin(scores))]


def pairing_order(effectiveness, similarity, mode):
    """Return ``order`` so that ``effectiveness[order]`` is the ``mode`` pairing.

    Parameters
    ----------
    effectiveness : numpy.ndarray, shape (m,)
    similarity : numpy.ndarray, shape (m, m)
    mode : {"most_fair", "most_unfair"}
        Smallest gaps to the most similar pairs, or to the least similar.

    Returns
    -------
    numpy.ndarray of int, shape (m,)

    Examples
    --------
    >>> sim = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    >>> s = np.array([0.0, 1.0, 1.0])
    >>> s[pairing_order(s, sim, "most_fair")].tolist()
    [1.0, 1.0, 0.0]
    """
    effectiveness = np.asarray(effectiveness, dtype=np.float64)
    similarity = np.asarray(similarity, dtype=np.float64)
    if effectiveness.shape[0] <= _EXACT_UP_TO:
        return _exact(effectiveness, similarity, 1.0 if mode == "most_fair" else -1.0)
    from puf.synthetic import pair_order

    return pair_order(effectiveness, similarity, mode=mode, random_state=0)
