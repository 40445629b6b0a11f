"""The memo of a World's derived pieces: each computed once, shared by worlds that keep its inputs.

A :class:`~puf.World` computes its m × m pieces (similarities, utilities, list
distances) and effectiveness arrays once; :meth:`World.replace` hands a group
of pieces to the new world when none of that group's inputs changed, so a
world with new relevance keeps its similarities and list distances. A memo is
not data: it is outside a World's equality, hash and repr, and a pickled or
copied World starts with an empty one.
"""

from __future__ import annotations

__all__ = ["PIECE_INPUTS", "Pieces", "matrix_memo"]

import weakref
from collections.abc import Callable, Collection, Hashable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

PIECE_INPUTS = {
    "users": ("histories", "item_features"),  # similarities
    "lists": ("rankings", "item_vectors"),  # list distances
    "judged": ("rankings", "relevance"),  # effectiveness, utility
    "users_lists": ("histories", "item_features", "rankings", "item_vectors"),  # e.g. UF's value
}
"""What each group of pieces is computed from (World field names)."""


class Pieces:
    """The memoised pieces of one World, by group.

    Examples
    --------
    >>> pieces = Pieces()
    >>> pieces.get("users", "jaccard", lambda: [1.0, 0.5]).tolist()
    [1.0, 0.5]
    >>> pieces.get("users", "jaccard", lambda: [0.0]).tolist()  # computed once
    [1.0, 0.5]
    >>> Pieces.kept_from(pieces, changed={"relevance"}).get("users", "jaccard", list).tolist()
    [1.0, 0.5]
    """

    def __init__(self) -> None:
        self.groups = {group: {} for group in PIECE_INPUTS}

    def get(self, group: str, key: Hashable, compute: Callable[[], ArrayLike]) -> NDArray[Any]:
        """The piece ``key`` of ``group``, computed once (read-only: worlds may share it)."""
        pieces = self.groups[group]
        if key not in pieces:
            value = np.asarray(compute())
            value.flags.writeable = False
            pieces[key] = value
        return pieces[key]

    @classmethod
    def kept_from(cls, old: Pieces, *, changed: Collection[str]) -> Pieces:
        """A memo holding the groups of ``old`` whose inputs are not among the ``changed`` fields."""
        new = cls()
        for group, inputs in PIECE_INPUTS.items():
            if not set(inputs) & set(changed):
                new.groups[group] = old.groups[group]
        return new

    def __reduce__(self) -> tuple[type[Pieces], tuple[()]]:
        return Pieces, ()  # a pickled or copied World recomputes its pieces


_HELD: dict[int, tuple[weakref.ref, dict[Hashable, NDArray[Any]]]] = {}


def matrix_memo(matrix: NDArray[Any], key: Hashable, compute: Callable[[], ArrayLike]) -> NDArray[Any]:
    """A value derived from a frozen matrix alone, computed once while the matrix lives.

    For a matrix no World owns (e.g. a similarity reshaped to a skewness, which the
    pairings of one sweep point read in turn). Only a frozen array (read-only and
    owning its data) can be trusted not to change, so any other is computed afresh
    each time; the values of a matrix are dropped when it is.

    Parameters
    ----------
    matrix : numpy.ndarray
        What the value is computed from.
    key : hashable
        What the value is, within that matrix's values.
    compute : callable
        ``compute() -> array_like``, called on the first request only.

    Returns
    -------
    numpy.ndarray
        Read-only.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.eye(3)
    >>> a.flags.writeable = False
    >>> matrix_memo(a, "trace", lambda: np.trace(a)).item()
    3.0
    >>> matrix_memo(a, "trace", lambda: 0.0).item()  # computed once
    3.0
    """
    if matrix.flags.writeable or matrix.base is not None:
        return np.asarray(compute())
    entry = _HELD.get(id(matrix))
    if entry is None or entry[0]() is not matrix:
        index = id(matrix)

        def forget(_: object, index: int = index) -> None:
            _HELD.pop(index, None)

        entry = _HELD[index] = (weakref.ref(matrix, forget), {})
    values = entry[1]
    if key not in values:
        value = np.asarray(compute())
        value.flags.writeable = False
        values[key] = value
    return values[key]
