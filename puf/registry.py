"""The measure registry: names, metadata, and evaluation by parameter name.

A measure is any function whose required parameters are
:class:`~puf.Population` field names. :func:`measure` attaches optional
metadata; :func:`as_measure` turns a name or a plain function into a
:class:`Measure`; :func:`evaluate` passes a population's fields by name;
:func:`register` adds a measure (or a built-in at another parameter value) to
:data:`MEASURES`, from which ``puf measures``, ``puf check --all``, ``puf
evaluate`` and the report's sweeps all read. Each measure belongs to one of
:data:`FAMILIES`.
"""

__all__ = ["FIELDS", "FAMILIES", "Measure", "MEASURES", "measure", "as_measure", "register", "evaluate"]

import functools
import inspect
import numbers
from dataclasses import dataclass

FIELDS = ("effectiveness", "similarity", "utility", "list_distance")
FAMILIES = ("inequality indices", "envy", "similarity-aware", "other")
"""Families of measures, in the order tables and figures group them."""


@dataclass(frozen=True)
class Measure:
    """A fairness measure with the metadata the harness reads.

    Parameters
    ----------
    function : callable
        The measure; its required parameters are Population field names.
    name : str
        Short name, as used in tables and on the command line.
    reads : tuple of str
        The Population fields the function reads, in parameter order.
    range : tuple of float, default (0.0, 1.0)
        Declared (low, high) range of values.
    direction : {"lower", "higher"}, default "lower"
        Which end is fairer.
    definition : str
        One-line definition.
    family : str, optional
        One of :data:`FAMILIES`; default from ``reads``: "similarity-aware"
        when it reads similarity, "envy" when it reads utility, "inequality
        indices" when it reads effectiveness alone, else "other".
    similarity : str or None, default None
        The similarity it reads in studies on real or synthetic data: None for
        the study's default (Jaccard over histories), "uf" for sim_UF.
    tables : bool, default True
        Whether studies (``puf evaluate``, the report's sweeps) show it; False
        for forms kept only for the property check (the printed forms).

    Examples
    --------
    >>> m = as_measure("sd")
    >>> m.reads, m.range, m.direction, m.family
    (('effectiveness',), (0.0, 1.0), 'lower', 'inequality indices')
    >>> m(effectiveness=[0.0, 1.0])
    0.5
    """

    function: object
    name: str
    reads: tuple
    range: tuple = (0.0, 1.0)
    direction: str = "lower"
    definition: str = ""
    family: str | None = None
    similarity: str | None = None
    tables: bool = True

    def __post_init__(self):
        if self.family is None:
            object.__setattr__(self, "family", _default_family(self.reads))
        elif self.family not in FAMILIES:
            raise ValueError(f"family must be one of {', '.join(map(repr, FAMILIES))}, got {self.family!r}")

    def __call__(self, **fields):
        return self.function(**{name: fields[name] for name in self.reads})

    @property
    def fairest(self):
        """The fairest value of the declared range (its lower end when lower is fairer)."""
        return self.range[0] if self.direction == "lower" else self.range[1]


def _default_family(reads):
    if "similarity" in reads:
        return "similarity-aware"
    if "utility" in reads:
        return "envy"
    return "inequality indices" if reads == ("effectiveness",) else "other"


def _reads(function):
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot read the signature of measure {function!r}") from exc
    reads = []
    for p in parameters:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name in FIELDS:
            reads.append(p.name)
        elif p.default is p.empty:
            raise ValueError(
                f"measure {getattr(function, '__name__', function)!r} has a required parameter "
                f"{p.name!r} that is not a Population field; known fields: {', '.join(FIELDS)}"
            )
    if not reads:
        raise ValueError(
            f"measure {getattr(function, '__name__', function)!r} reads no Population field; "
            f"name a parameter one of {', '.join(FIELDS)}"
        )
    return tuple(reads)


def measure(function=None, *, name=None, range=(0.0, 1.0), direction="lower", definition=None,
            family=None):
    """Decorator attaching harness metadata to a user's measure; the function is unchanged.

    Parameters
    ----------
    function : callable, optional
        The measure (when used as ``@measure`` without arguments).
    name : str, optional
        Display name; defaults to the function's name.
    range : tuple of float, default (0.0, 1.0)
        Declared range of values.
    direction : {"lower", "higher"}, default "lower"
        Which end is fairer.
    definition : str, optional
        One-line definition; defaults to the docstring's first line.
    family : str, optional
        One of :data:`FAMILIES`; default from the fields it reads.

    Returns
    -------
    callable
        ``function`` itself, with a ``__puf_measure__`` attribute.

    Examples
    --------
    >>> import numpy as np
    >>> @measure(name="range-gap", definition="max S − min S")
    ... def range_gap(effectiveness):
    ...     return float(np.ptp(effectiveness))
    >>> as_measure(range_gap).name
    'range-gap'
    """
    if direction not in ("lower", "higher"):
        raise ValueError(f"direction must be 'lower' or 'higher', got {direction!r}")
    try:
        low, high = (float(v) for v in range)
    except (TypeError, ValueError):
        raise ValueError(f"range must be two numbers (low, high), got {range!r}") from None
    if not low <= high:
        raise ValueError(f"range must be (low, high) with low <= high, got {range!r}")
    if family is not None and family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(map(repr, FAMILIES))}, got {family!r}")

    def attach(func):
        _reads(func)
        func.__puf_measure__ = dict(
            name=name or func.__name__,
            range=(low, high),
            direction=direction,
            definition=definition or (inspect.getdoc(func) or "").split("\n")[0],
            family=family,
        )
        return func

    return attach(function) if function is not None else attach


def as_measure(function):
    """Return the :class:`Measure` for a registered name, a Measure, or any function.

    Parameters
    ----------
    function : str, Measure or callable
        A name in :data:`MEASURES`, or a function whose parameters are field names.

    Returns
    -------
    Measure

    Examples
    --------
    >>> as_measure("puf").reads
    ('effectiveness', 'similarity')
    >>> as_measure(lambda effectiveness: 0.0).reads
    ('effectiveness',)
    """
    if isinstance(function, Measure):
        return function
    if isinstance(function, str):
        try:
            return MEASURES[function]
        except KeyError:
            raise ValueError(
                f"unknown measure {function!r}; known measures: {', '.join(MEASURES)}"
            ) from None
    if not callable(function):
        raise ValueError(f"a measure must be a name or a callable, got {function!r}")
    meta = getattr(function, "__puf_measure__", None) or {}
    doc = (inspect.getdoc(function) or "").split("\n")[0]
    return Measure(
        function=function,
        name=meta.get("name", getattr(function, "__name__", "measure")),
        reads=_reads(function),
        range=meta.get("range", (0.0, 1.0)),
        direction=meta.get("direction", "lower"),
        definition=meta.get("definition", doc),
        family=meta.get("family"),
    )


def register(function, *, name, options=None, replace=False, **metadata):
    """Add a measure to :data:`MEASURES`, e.g. a built-in at another parameter value.

    Parameters
    ----------
    function : callable or Measure
        The measure function (or a Measure, whose metadata are the defaults).
    name : str
        The registered name; must be new unless ``replace``.
    options : dict, optional
        Keyword options bound to the function (``{"alpha": 3}``).
    replace : bool, default False
        Allow replacing a measure already registered under ``name``.
    **metadata
        ``range``, ``direction``, ``definition``, ``family``, ``similarity``,
        ``tables``, as for :class:`Measure`.

    Returns
    -------
    Measure
        The registered measure; from now on ``puf measures``, ``puf check``
        and the studies include it.

    Examples
    --------
    >>> import math, puf
    >>> ge3 = register(puf.generalized_entropy, name="ge-3", options={"alpha": 3},
    ...                range=(0, math.inf), definition="GE(3)")
    >>> round(evaluate(puf.Population([0.0, 1.0], [[1, 0], [0, 1]]), ["ge-3"])["ge-3"], 6)
    0.5
    >>> MEASURES.pop("ge-3").name
    'ge-3'
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    if name in MEASURES and not replace:
        raise ValueError(f"a measure {name!r} is already registered; pass replace=True to replace it")
    base = function if isinstance(function, Measure) else as_measure(function)
    bound = base.function if not options else functools.partial(base.function, **options)
    fields = {"range": base.range, "direction": base.direction, "definition": base.definition,
              "family": base.family, "similarity": base.similarity, "tables": base.tables}
    unknown = set(metadata) - set(fields)
    if unknown:
        raise ValueError(f"unknown metadata {sorted(unknown)}; known: {', '.join(fields)}")
    fields.update(metadata)
    fields["range"] = tuple(float(v) for v in fields["range"])
    if fields["direction"] not in ("lower", "higher"):
        raise ValueError(f"direction must be 'lower' or 'higher', got {fields['direction']!r}")
    registered = Measure(bound, name, _reads(bound), **fields)
    MEASURES[name] = registered
    return registered


def evaluate(population, names=None):
    """Evaluate measures on a population, passing its fields by parameter name.

    Parameters
    ----------
    population : Population
        The per-user arrays.
    names : str, callable, or iterable of (str or callable), optional
        Registered names or user functions (a single one may be given alone);
        default every measure in :data:`MEASURES` whose fields the population has.

    Returns
    -------
    dict of str to float

    Raises
    ------
    ValueError
        If ``population`` is not a Population, a name is unknown, two measures
        share a name (the second would overwrite the first), a measure reads a
        field the population lacks, or a measure returns something that is not
        a real number (the message names the measure).

    Examples
    --------
    >>> from puf import Population
    >>> pop = Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]])
    >>> evaluate(pop, ["sd", "puf"])
    {'sd': 0.5, 'puf': 0.5}
    """
    from .population import Population

    if not isinstance(population, Population):
        raise ValueError(f"population must be a puf.Population, got {type(population).__name__}; "
                         "build one with puf.Population(effectiveness, similarity, ...)")
    fields = population.fields()
    if names is None:
        chosen = [m for m in MEASURES.values() if all(f in fields for f in m.reads)]
    else:
        if isinstance(names, (str, Measure)) or callable(names):
            names = [names]  # one measure, not a sequence of characters
        chosen = [as_measure(n) for n in names]
    seen = {}
    for m in chosen:
        if m.name in seen:
            raise ValueError(f"two measures are named {m.name!r}; the second would replace the "
                             "first: give them distinct names (puf.measure(name=...))")
        seen[m.name] = m
        missing = [f for f in m.reads if f not in fields]
        if missing:
            raise ValueError(f"measure {m.name!r} reads {missing} but the population has no such field")
    results = {}
    for m in chosen:
        value = m(**fields)
        number = _as_real(value)
        if number is None:
            raise ValueError(f"measure {m.name!r} returned {_shown(value)}, not a real number")
        results[m.name] = number
    return results


def _as_real(value):
    """``value`` as a float when it is one real number (a 0-d array counts), else None."""
    if hasattr(value, "ndim") and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)


def _shown(value):
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


MEASURES = {}
"""Every registered measure by name: the built-ins (:mod:`puf._builtins`) and any :func:`register` adds."""

from ._builtins import builtin_measures  # noqa: E402  (needs Measure, defined above)

MEASURES.update((m.name, m) for m in builtin_measures())
