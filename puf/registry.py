"""The measure registry: names, and evaluation by parameter name.

A measure is any function whose required parameters are
:class:`~puf.Population` field names. :func:`measure` declares its metadata
(:mod:`puf.metadata`); :func:`as_measure` turns a name or a plain function into
a :class:`Measure`; :func:`evaluate_measures` passes a population's fields by name;
:func:`register` adds a measure (or a built-in at another parameter value) to
:data:`MEASURES`, from which ``puf measures``, ``puf check --all``, ``puf
evaluate`` and the report's sweeps all read. The built-ins are the decorated
functions of the measure modules (:data:`BUILTIN_MODULES`), in the order they
are defined there: adding one is one decorated function.
"""

from __future__ import annotations

__all__ = [
    "MEASURES",
    "BUILTIN_MODULES",
    "as_measure",
    "register",
    "evaluate_measures",
    "builtin_measures",
    "is_registered",
    "declared_gamma",
]

import functools
import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .metadata import Measure, bind, first_docstring_line
from .population import Population
from .returned import RETURN_FIX, returned_kind, returned_number

BUILTIN_MODULES = ("paper_score_measures", "paper_list_measures", "inequality", "dispersion", "lipschitz")
"""The modules (of :mod:`puf`) whose decorated measures are the built-ins, in registry order."""


def as_measure(function: str | Measure | Callable[..., Any]) -> Measure:
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
            raise ValueError(f"unknown measure {function!r}; known measures: {', '.join(MEASURES)}") from None
    if not callable(function):
        raise ValueError(f"a measure must be a name or a callable, got {function!r}")
    declared = getattr(function, "__puf_measure__", None)
    if isinstance(declared, Measure) and declared.function is function:
        return declared
    return Measure(function, getattr(function, "__name__", "measure"), definition=first_docstring_line(function))


def register(
    function: Callable[..., Any] | Measure,
    *,
    name: str,
    options: Mapping[str, Any] | None = None,
    replace: bool = False,
    **metadata: Any,
) -> Measure:
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
        ``label``, ``range``, ``direction``, ``definition``, ``family``,
        ``reference``, ``similarity``, ``gamma``, ``panel``, ``tables``,
        ``attainable``, ``study_options``, as for
        :class:`Measure`; the others are the function's (its label and panel
        are not: a new name is shown as itself unless ``label`` is given).

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
    >>> round(evaluate_measures(puf.Population([0.0, 1.0], [[1, 0], [0, 1]]), ["ge-3"])["ge-3"], 6)
    0.5
    >>> MEASURES.pop("ge-3").name
    'ge-3'
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    if name in MEASURES and not replace:
        raise ValueError(f"a measure {name!r} is already registered; pass replace=True to replace it")
    registered = bind(as_measure(function), name=name, options=options, **metadata)
    MEASURES[name] = registered
    return registered


def evaluate_measures(
    population: Population, names: str | Callable[..., Any] | Iterable[str | Callable[..., Any]] | None = None
) -> dict[str, float]:
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
    >>> evaluate_measures(pop, ["sd", "puf"])
    {'sd': 0.5, 'puf': 0.5}
    """
    if not isinstance(population, Population):
        raise ValueError(
            f"population must be a puf.Population, got {type(population).__name__}; "
            "build one with puf.Population(effectiveness, similarity, ...)"
        )
    fields = population.fields()
    if names is None:
        chosen = [m for m in MEASURES.values() if all(f in fields for f in m.reads)]
    else:
        if isinstance(names, (str, Measure)) or callable(names):
            names = [names]  # one measure, not a sequence of characters
        elif not isinstance(names, Iterable):
            raise ValueError(f"names must be a measure name, a callable or a list of them, got {names!r}")
        chosen = [as_measure(n) for n in names]
    seen = {}
    for m in chosen:
        if m.name in seen:
            raise ValueError(
                f"two measures are named {m.name!r}; the second would replace the "
                "first: give them distinct names (puf.measure(name=...))"
            )
        seen[m.name] = m
        missing = [f for f in m.reads if f not in fields]
        if missing:
            raise ValueError(f"measure {m.name!r} reads {missing} but the population has no such field")
    results = {}
    for m in chosen:
        value = m(**fields)
        number = returned_number(value)
        if number is None:
            raise ValueError(f"measure {m.name!r} returned {_shown(value)}, not a real number: {RETURN_FIX}")
        results[m.name] = number
    return results


def _shown(value):
    text = repr(value)
    return f"{returned_kind(value)} {text if len(text) <= 40 else text[:37] + '...'}"


def builtin_measures() -> tuple[Measure, ...]:
    """Return the built-in measures: each decorated function of :data:`BUILTIN_MODULES`.

    In module order, then in the order the functions are defined; a function
    declared with ``instances`` gives one measure per parameter value instead
    of itself.

    Returns
    -------
    tuple of Measure

    Examples
    --------
    >>> [m.name for m in builtin_measures()][:4]
    ['puf', 'puf-as-printed', 'sd', 'gini']
    """
    found: list[Any] = []
    for module_name in BUILTIN_MODULES:
        module = importlib.import_module(f".{module_name}", __package__)
        for value in vars(module).values():  # definition order; an alias repeats a function
            declared = getattr(value, "__puf_measure__", None)
            if (
                isinstance(declared, Measure)
                and declared.function is value
                and value.__module__ == module.__name__
                and value not in found
            ):
                found.append(value)
    return tuple(m for f in found for m in (f.__puf_instances__ or (f.__puf_measure__,)))


def is_registered(measure: Measure) -> bool:
    """Return whether ``measure`` is one of :data:`MEASURES` (the harness's own: it runs in-process).

    A parametrised built-in back from a process pool's pickle is a new, equal
    ``functools.partial``, and still the registered measure.

    Examples
    --------
    >>> import pickle
    >>> copy = pickle.loads(pickle.dumps(as_measure("ge-0")))
    >>> is_registered(copy), is_registered(as_measure(lambda effectiveness: 0.0))
    (True, False)
    """
    f, registered = measure.function, getattr(MEASURES.get(measure.name), "function", None)
    if isinstance(f, functools.partial) and isinstance(registered, functools.partial):
        return (f.func, f.args, f.keywords) == (registered.func, registered.args, registered.keywords)
    return any(m.function is f for m in MEASURES.values())


def declared_gamma(similarity: str) -> float | None:
    """Return the γ the registered measures reading ``similarity`` declare; None if it takes none.

    The one default of γ: UF declares ``similarity="uf", gamma=0.5``, and
    everything that computes sim_UF without being given γ (``World.similarity``,
    ``puf evaluate``, the report) uses that.

    Raises
    ------
    ValueError
        If ``similarity`` is unknown, or takes γ but no registered measure
        declares one.

    Examples
    --------
    >>> declared_gamma("uf"), declared_gamma("jaccard")
    (0.5, None)
    """
    from .similarity import takes_gamma

    if not takes_gamma(similarity):
        return None
    for m in MEASURES.values():
        if m.similarity == similarity:
            return m.gamma
    raise ValueError(
        f"similarity {similarity!r} takes gamma and no registered measure declares one: pass gamma in [0, 1]"
    )


MEASURES = {m.name: m for m in builtin_measures()}
"""Every registered measure by name: the built-ins (:func:`builtin_measures`) and any :func:`register` adds."""
