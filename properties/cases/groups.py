"""Partitions of users written into a similarity matrix: users of different groups have
similarity 0, the users of one group are linked by positive similarities.

A subgroup case (:mod:`.subgroup_cases`) draws its groups this way; an example shows a partition
to a measure that reads no similarity as each user's group (:func:`group_labels`), and a stored
example's groups are read back as a similarity (:func:`grouped_similarity`).
"""

from __future__ import annotations

__all__ = ["groups_of", "group_labels", "grouped_similarity"]

import numpy as np
from numpy.typing import ArrayLike, NDArray


def groups_of(similarity: ArrayLike) -> list[NDArray[np.int64]]:
    """The groups of a block similarity matrix: the connected parts of the graph sim > 0.

    Examples
    --------
    >>> sim = np.array([[1, .5, 0], [.5, 1, 0], [0, 0, 1.]])
    >>> [g.tolist() for g in groups_of(sim)]
    [[0, 1], [2]]
    """
    m = len(similarity)
    linked = np.asarray(similarity) > 0
    label = np.full(m, -1)
    for start in range(m):
        if label[start] >= 0:
            continue
        stack, label[start] = [start], start
        while stack:
            u = stack.pop()
            for v in np.flatnonzero(linked[u] & (label < 0)):
                label[v] = start
                stack.append(int(v))
    return [np.flatnonzero(label == g) for g in dict.fromkeys(label.tolist())]


def group_labels(similarity: ArrayLike) -> list[int]:
    """Each user's group (0, 1, …, numbered in order of each group's first user): how an example
    shows a partition to a measure that reads no similarity (:func:`groups_of`).

    Examples
    --------
    >>> group_labels(np.array([[1, 0, .5], [0, 1, 0], [.5, 0, 1.]]))
    [0, 1, 0]
    """
    labels = np.zeros(len(similarity), dtype=np.int64)
    for index, members in enumerate(groups_of(similarity)):
        labels[members] = index
    return labels.tolist()


def grouped_similarity(labels: ArrayLike) -> NDArray[np.float64]:
    """The similarity of a partition given as each user's group: 1 within a group, 0 across
    (the inverse of :func:`group_labels`, up to the values within a group).

    Examples
    --------
    >>> grouped_similarity([0, 1, 0]).tolist()
    [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    >>> group_labels(grouped_similarity([0, 0, 1, 1, 1]))
    [0, 0, 1, 1, 1]
    """
    labels = np.asarray(labels)
    return (labels[:, None] == labels[None, :]).astype(np.float64)
