"""The score-level data model: the per-user arrays a fairness measure reads."""

from __future__ import annotations

__all__ = ["Population", "FIELDS"]

import dataclasses
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .validation import check_effectiveness, check_pair_matrix, check_permutation, check_similarity


def _frozen(array):
    if isinstance(array, np.ndarray) and array.dtype == np.float64 and not array.flags.writeable and array.base is None:
        return array  # already immutable: nothing can change it under the Population
    array = np.array(array, dtype=np.float64, copy=True)
    array.flags.writeable = False
    return array


def _checked(name: str, value: ArrayLike, m: int) -> NDArray[np.float64]:
    """Field ``name`` of a Population of ``m`` users, validated, as a read-only float64 array."""
    if name == "effectiveness":
        checked = check_effectiveness(value, min_users=2)
    elif name == "similarity":
        checked = check_similarity(value, m=m)
    elif name == "utility":
        checked = check_pair_matrix(value, name="utility", m=m)
    else:
        checked = check_pair_matrix(value, name="list_distance", m=m, symmetric=True, unit=False)
    return _frozen(checked)


@dataclass(frozen=True, eq=False)
class Population:
    """Per-user arrays of m users, validated on construction.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        S(u) in [0, 1], e.g. P@k or NDCG@k of u's own list.
    similarity : array-like of shape (m, m)
        Symmetric sim(u, v) in [0, 1]; the diagonal is ignored by measures.
    utility : array-like of shape (m, m), optional
        ``utility[u, v]`` = phi_u(L_v) in [0, 1]; the diagonal is u's own list.
    list_distance : array-like of shape (m, m), optional
        Symmetric non-negative distance d_L(u, v) between recommended lists.

    Attributes
    ----------
    m : int
        Number of users.

    Notes
    -----
    Arrays are copied to float64 and made read-only, so a Population can be
    shared between measures without one changing what another sees.

    Examples
    --------
    >>> pop = Population([0.0, 1.0], [[1.0, 0.2], [0.2, 1.0]])
    >>> pop.m, sorted(pop.fields())
    (2, ['effectiveness', 'similarity'])
    >>> Population([0.0, 2.0], [[1, 0], [0, 1]])
    Traceback (most recent call last):
    ...
    ValueError: effectiveness must lie in [0, 1], got 2.0 at index (1,)
    """

    effectiveness: np.ndarray
    similarity: np.ndarray
    utility: np.ndarray | None = None
    list_distance: np.ndarray | None = None

    def __post_init__(self) -> None:
        m = check_effectiveness(self.effectiveness, min_users=2).shape[0]
        for name in FIELDS:
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _checked(name, value, m))

    @property
    def m(self) -> int:
        """Number of users."""
        return self.effectiveness.shape[0]

    def fields(self) -> dict[str, NDArray[np.float64]]:
        """Return the fields that are present, as a dict of name to array.

        Examples
        --------
        >>> list(Population([0.5, 0.5], [[1, 1], [1, 1]]).fields())
        ['effectiveness', 'similarity']
        """
        return {name: getattr(self, name) for name in FIELDS if getattr(self, name) is not None}

    def replace(self, **changes: Any) -> Population:
        """Return a validated copy with some fields replaced.

        The fields given are validated; the others, validated when this
        Population was made and read-only since, are shared as they are
        (all are checked again when the number of users changes).

        Examples
        --------
        >>> pop = Population([0.0, 1.0], [[1, 0], [0, 1]])
        >>> pop.replace(effectiveness=[1.0, 1.0]).effectiveness
        array([1., 1.])
        >>> pop.replace(similarity=[[1, 2], [2, 1]])
        Traceback (most recent call last):
        ...
        ValueError: similarity must lie in [0, 1], got 2.0 at index (0, 1)
        """
        if not set(changes) <= set(FIELDS):
            return replace(self, **changes)  # dataclasses' TypeError names the unknown field
        if "effectiveness" in changes and np.shape(changes["effectiveness"]) != (self.m,):
            return replace(self, **changes)  # a new m: every field is checked against it
        new = object.__new__(Population)
        for name in FIELDS:
            value = changes[name] if name in changes else getattr(self, name)
            if name in changes and value is not None:
                value = _checked(name, value, self.m)
            object.__setattr__(new, name, value)
        return new

    def permute(self, order: ArrayLike) -> Population:
        """Relabel users: user ``i`` of the result is user ``order[i]`` of this one.

        Every per-user field moves consistently (rows and columns of the
        pair matrices), so any anonymous measure is unchanged.

        Parameters
        ----------
        order : array-like of int, shape (m,)
            A permutation of ``range(m)``.

        Returns
        -------
        Population

        Examples
        --------
        >>> pop = Population([0.0, 1.0, 0.5], [[1, .1, .2], [.1, 1, .3], [.2, .3, 1]])
        >>> pop.permute([2, 0, 1]).effectiveness
        array([0.5, 0. , 1. ])
        """
        order = check_permutation(order, self.m)
        moved = {"effectiveness": self.effectiveness[order]}
        for name, value in self.fields().items():
            if value.ndim == 2:
                moved[name] = value[np.ix_(order, order)]
        return self.replace(**moved)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Population):
            return NotImplemented
        mine, theirs = self.fields(), other.fields()
        return mine.keys() == theirs.keys() and all(np.array_equal(mine[k], theirs[k]) for k in mine)

    __hash__ = None  # type: ignore[assignment]  # unhashable: a Population is mutable


FIELDS: tuple[str, ...] = tuple(field.name for field in dataclasses.fields(Population))
"""The Population fields in the dataclass's order: what a measure may read, by parameter name."""
