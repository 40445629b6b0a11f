"""Pair kernels: a measure that is a mean (or sum) over user pairs, said once per pair.

Many measures are ``scale · mean_{u<v} k(u, v)`` for a per-pair term k that reads
only the two users' values: PUF (k = sim(u, v)·|S(u) − S(v)|), the mean difference,
the Lipschitz measures. Declaring that term with :func:`pair_kernel` lets the scale
engines compute the measure without an m x m matrix: ``puf evaluate`` streams the
kernel over tiles of user pairs (threads or dask) or over sampled pairs
(``--sample``), and the measure function itself is left as it is, for the dense
road and the property checks.

A kernel takes the measure's field parameters, each given *for pairs*:

- ``effectiveness``: the tuple ``(S_u, S_v)`` of two arrays;
- ``similarity``: sim(u, v);
- ``list_distance``: d_L(u, v);

as numpy arrays that broadcast against each other (a tile passes a column and a
row of effectiveness and a block of similarities; a sample passes 1-D arrays),
plus the measure's keyword options, and returns the terms, elementwise.

A weighted mean (Σ kernel / Σ weights over the same pairs) declares its weights
as a second kernel, and a last step that reads the whole population (dividing by
a power of the mean effectiveness, a square root) as ``finish``: the grammar's
pair forms (:mod:`puf.grammar`) declare theirs so.
"""

from __future__ import annotations

__all__ = ["PAIR_FIELDS", "PairKernel", "pair_kernel", "pair_kernel_of"]

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from numpy.typing import NDArray

from .metadata import function_name, signature_reads

PAIR_FIELDS = ("effectiveness", "similarity", "list_distance")
"""The Population fields a pair kernel may read (the utility is not symmetric per pair)."""
AGGREGATES = ("mean", "sum")


@dataclass(frozen=True)
class PairKernel:
    """A measure's per-pair term and how the terms of all unordered pairs make its value.

    Parameters
    ----------
    kernel : callable
        ``kernel(<fields for pairs>, **options) -> terms``, vectorised (see the
        module docstring).
    aggregate : {"mean", "sum"}, default "mean"
        Mean or sum of the terms over the m(m−1)/2 unordered pairs u < v.
    scale : float, default 1.0
        The value is ``scale`` times the aggregate (2 for a form over ordered pairs).
    weights : callable, optional
        A second kernel (reading fields the first reads): the aggregate is then
        Σ kernel / Σ weights over the pairs, a weighted mean.
    finish : callable, optional
        ``finish(value, m=m, effectiveness=S) -> value``: the last step, given the
        number of users and the (m,) effectiveness (None when not read).

    Attributes
    ----------
    reads : tuple of str
        The fields the kernel reads, from its signature.

    Examples
    --------
    >>> import numpy as np
    >>> def gaps(effectiveness):
    ...     s_u, s_v = effectiveness
    ...     return np.abs(s_u - s_v)
    >>> form = PairKernel(gaps)
    >>> form.reads, form.value(total=1.5, n_pairs=3)
    (('effectiveness',), 0.5)
    """

    kernel: Callable[..., Any]
    aggregate: str = "mean"
    scale: float = 1.0
    weights: Callable[..., Any] | None = None
    finish: Callable[..., float] | None = None

    def __post_init__(self) -> None:
        for name in ("kernel", "weights", "finish"):
            value = getattr(self, name)
            if not callable(value) and (name == "kernel" or value is not None):
                raise ValueError(f"{name} must be callable, got {value!r}")
        if self.weights is not None and not set(signature_reads(self.weights)) <= set(signature_reads(self.kernel)):
            raise ValueError(
                f"weights {function_name(self.weights)!r} read {signature_reads(self.weights)}; "
                f"the kernel reads only {signature_reads(self.kernel)}"
            )
        if self.aggregate not in AGGREGATES:
            raise ValueError(f"aggregate must be 'mean' or 'sum', got {self.aggregate!r}")
        reads = signature_reads(self.kernel)
        unknown = [f for f in reads if f not in PAIR_FIELDS]
        if unknown:
            raise ValueError(
                f"kernel {function_name(self.kernel)!r} reads {unknown}; a pair "
                f"kernel reads only {', '.join(PAIR_FIELDS)}"
            )
        object.__setattr__(self, "scale", float(self.scale))

    @property
    def reads(self) -> tuple[str, ...]:
        """The fields the kernel reads, in parameter order."""
        return signature_reads(self.kernel)

    @property
    def samplable(self) -> bool:
        """True when the value is linear in the mean term (no weights, no finish): drawn pairs estimate it."""
        return self.weights is None and self.finish is None

    def terms(self, fields: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> NDArray[Any]:
        """The kernel's terms for pairs: ``fields`` maps each field read to its pair arrays."""
        return self.kernel(**{name: fields[name] for name in self.reads}, **(options or {}))

    def weight_kernel(self) -> PairKernel | None:
        """The weights as a kernel of their own (one more total of a pass), or None."""
        return None if self.weights is None else PairKernel(self.weights, aggregate="sum")

    def value(
        self,
        *,
        total: float,
        n_pairs: float,
        weight_total: float | None = None,
        effectiveness: NDArray[Any] | None = None,
    ) -> float:
        """The measure's value from the sum of the terms over ``n_pairs`` pairs.

        ``weight_total`` (the sum of the weights over the same pairs) is needed with
        ``weights``, ``effectiveness`` (the (m,) array) by a ``finish`` that reads it.
        """
        if self.weights is None:
            value = self.scale * (total / n_pairs if self.aggregate == "mean" else total)
        elif weight_total is None:
            raise ValueError("weight_total is needed: the kernel declares weights")
        else:
            from .validation import undefined

            value = self.scale * total / weight_total if weight_total != 0 else undefined("every pair weight is 0")
        if self.finish is None:
            return value
        m = int(round((1.0 + math.sqrt(1.0 + 8.0 * n_pairs)) / 2.0))
        return float(self.finish(value, m=m, effectiveness=effectiveness))


def pair_kernel(
    kernel: Callable[..., Any],
    *,
    aggregate: str = "mean",
    scale: float = 1.0,
    weights: Callable[..., Any] | None = None,
    finish: Callable[..., float] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator declaring that a measure is ``scale`` × the mean (or sum) of a pair kernel.

    Parameters
    ----------
    kernel : callable
        The per-pair term, reading the same fields as the measure (for pairs,
        see the module docstring) and accepting its keyword options.
    aggregate : {"mean", "sum"}, default "mean"
        Over the unordered pairs u < v.
    scale : float, default 1.0
    weights, finish : callable, optional
        A weighted mean's weights and a last step (see :class:`PairKernel`).

    Returns
    -------
    callable
        A decorator that returns the measure function unchanged, with a
        ``__puf_pair_kernel__`` attribute holding the :class:`PairKernel`.

    Raises
    ------
    ValueError
        If the kernel reads other fields than the measure, or a field no pair has.

    Examples
    --------
    >>> import numpy as np
    >>> def weighted_gap(effectiveness, similarity):
    ...     s_u, s_v = effectiveness
    ...     return similarity * np.abs(s_u - s_v)
    >>> @pair_kernel(weighted_gap)
    ... def my_puf(effectiveness, similarity):
    ...     s, sim = np.asarray(effectiveness), np.asarray(similarity)
    ...     u, v = np.triu_indices(s.size, 1)
    ...     return float(np.mean(weighted_gap((s[u], s[v]), sim[u, v])))
    >>> my_puf.__puf_pair_kernel__.reads
    ('effectiveness', 'similarity')
    """
    form = PairKernel(kernel, aggregate=aggregate, scale=scale, weights=weights, finish=finish)

    def attach(function):
        if set(signature_reads(function)) != set(form.reads):
            raise ValueError(
                f"kernel {function_name(kernel)!r} reads {form.reads} but measure "
                f"{function_name(function)!r} reads {signature_reads(function)}"
            )
        function.__puf_pair_kernel__ = form
        return function

    return attach


def pair_kernel_of(function: Callable[..., Any]) -> tuple[PairKernel, dict[str, Any]] | None:
    """The :class:`PairKernel` of a measure function and the options bound to it, or None.

    Options bound with :func:`functools.partial` (as :func:`puf.register` and a
    measure's ``instances`` bind them) are handed to the kernel.

    Examples
    --------
    >>> import functools, puf
    >>> form, options = pair_kernel_of(functools.partial(puf.lipschitz_violation,
    ...                                                  lipschitz_constant=2.0))
    >>> form.reads, options
    (('effectiveness', 'similarity'), {'lipschitz_constant': 2.0})
    >>> pair_kernel_of(puf.sd) is None
    True
    """
    options = {}
    while isinstance(function, functools.partial):
        if function.args:
            return None  # positional binding: the kernel cannot be handed the same arguments
        options = {**function.keywords, **options}
        function = function.func
    form = getattr(function, "__puf_pair_kernel__", None)
    return (form, options) if isinstance(form, PairKernel) else None
