"""Largest cross-utility of users whose own list holds none of their relevant items.

For such a user u, max_v G[u, v] with G = R · Lᵀ (R relevance, L list indicator) is
found without enumerating every (u, v) pair that shares an item:

* a list holding exactly one of u's relevant items, i, gains r_ui, and a list
  holding i exists iff c_i > 0 (c_i = number of lists holding i); a list holding
  several of them gains at least as much as each of those grades (grades are > 0).
  Hence max_v G[u, v] = max(max_{i: r_ui>0, c_i>0} r_ui, max over lists holding
  >= 2 of u's relevant items of G[u, v]);
* a list v holding h >= 2 of u's relevant items shares C(h, 2) item pairs (i, j)
  with u; summing r_ui + r_uj over those pairs gives (h − 1) · G[u, v]. So the
  pairs of u's listed relevant items, joined with the pairs of every list, give
  G[u, v] = S / (h − 1) for exactly the multi-hit lists.

On ML-20M-sized data the multi-hit lists are a small fraction of the lists
sharing an item with u (most share exactly one), so the join is much cheaper
than the full product.
"""

from __future__ import annotations

__all__ = ["list_pair_index", "max_gain_kernel"]

from typing import Any

import numpy as np
from numpy.typing import NDArray


def list_pair_index(
    rankings: NDArray[np.int64], n_items: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Sorted unique item-pair keys i·n + j (i < j) of the lists, and the lists holding each.

    Returns ``(keys, indptr, lists)``: lists ``lists[indptr[p]:indptr[p + 1]]`` hold pair
    ``keys[p]``.
    """
    m, width = rankings.shape
    ordered = np.sort(rankings, axis=1)  # -1 pads sort first
    first, second = np.triu_indices(width, 1)
    low, high = ordered[:, first], ordered[:, second]
    owners = np.broadcast_to(np.arange(m, dtype=np.int64)[:, None], low.shape)
    real = low >= 0
    keys = low[real].astype(np.int64) * n_items + high[real]
    owners = owners[real]
    order = np.lexsort((owners, keys))
    keys, owners = keys[order], owners[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))[: keys.size]
    indptr = np.append(starts, keys.size).astype(np.int64)
    return keys[starts], indptr, owners


def _ragged_arange(counts):
    """Concatenation of arange(c) for c in counts."""
    total = int(counts.sum())
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return np.arange(total, dtype=np.int64) - starts


def max_gain_kernel(shared: dict[str, Any], task: tuple[int, int]) -> NDArray[np.float64]:
    """max_v G[u, v] for the users ``shared["join_users"][r0:r1]`` (own gain 0 each)."""
    r0, r1 = task
    users = shared["join_users"][r0:r1]
    relevance, listed = shared["relevance"], shared["listed"]
    n = relevance.shape[1]
    block = relevance[users]
    owners = np.repeat(np.arange(users.size, dtype=np.int64), np.diff(block.indptr))
    keep = listed[block.indices]  # items no list holds can gain nothing
    items, grades, owners = block.indices[keep].astype(np.int64), block.data[keep], owners[keep]
    best = np.zeros(users.size)
    if items.size == 0:
        return best
    np.maximum.at(best, owners, grades)  # single-hit lists
    # All pairs (e, f), e < f, of a user's listed relevant entries (items ascending).
    per_user = np.bincount(owners, minlength=users.size)
    row_start = np.repeat(np.cumsum(per_user) - per_user, per_user)
    entry = np.arange(items.size, dtype=np.int64)
    partners = per_user[owners] - 1 - (entry - row_start)
    left = np.repeat(entry, partners)
    right = left + 1 + _ragged_arange(partners)
    pair_keys, pair_indptr, pair_lists = shared["pair_keys"], shared["pair_indptr"], shared["pair_lists"]
    if left.size == 0 or pair_keys.size == 0:
        return best
    keys = items[left] * n + items[right]
    slot = np.minimum(np.searchsorted(pair_keys, keys), pair_keys.size - 1)
    found = pair_keys[slot] == keys
    left, right, slot = left[found], right[found], slot[found]
    if slot.size == 0:
        return best
    spread = pair_indptr[slot + 1] - pair_indptr[slot]
    lists = pair_lists[np.repeat(pair_indptr[slot], spread) + _ragged_arange(spread)]
    who = np.repeat(owners[left], spread)
    weight = np.repeat(grades[left] + grades[right], spread)
    # Group by (user, list): count = C(h, 2), sum = (h − 1) · G[u, v].
    key = who * shared["n_lists"] + lists
    order = np.argsort(key, kind="stable")
    key, weight = key[order], weight[order]
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    count = np.diff(np.append(starts, key.size)).astype(np.float64)
    total = np.add.reduceat(weight, starts)
    hits = np.rint((1.0 + np.sqrt(1.0 + 8.0 * count)) / 2.0)
    np.maximum.at(best, key[starts] // shared["n_lists"], total / (hits - 1.0))
    return best
