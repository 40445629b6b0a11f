"""Measure metadata: the :class:`Measure` record and the :func:`measure` decorator.

A measure is a plain function whose required parameters are
:class:`~puf.Population` field names; those names are what it reads, always
taken from the signature. :func:`measure` attaches the rest (label, family,
range, direction, definition, reference, the similarity it reads in studies)
where the function is defined, and what is read off the function itself
(:func:`signature_reads`, :func:`check_options`, :func:`first_docstring_line`)
lives here too. The registry (:mod:`puf.registry`) builds its built-ins from
the decorated functions of the measure modules; this module holds no
registry, so those modules can import it without a cycle.
"""

from __future__ import annotations

__all__ = [
    "FAMILIES",
    "Measure",
    "measure",
    "bind",
    "check_similarity_choice",
    "signature_reads",
    "check_options",
    "first_docstring_line",
    "function_name",
]

import difflib
import functools
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .population import FIELDS

#: How close (:func:`difflib.get_close_matches`' ratio) an option's name is to a field's when it is
#: taken for a misspelt field ("similarty", "efectiveness"; not "similarities" or "utilities").
_MISSPELT = 0.85


def function_name(function: object) -> str:
    """``function.__name__``, or its repr for a callable without one (a partial, an instance).

    Examples
    --------
    >>> import functools, puf
    >>> function_name(puf.sd), function_name(functools.partial(max))
    ('sd', 'functools.partial(<built-in function max>)')
    """
    return getattr(function, "__name__", repr(function))


def signature_reads(function: Callable[..., Any]) -> tuple[str, ...]:
    """The Population fields a measure reads: its parameters named after :data:`puf.population.FIELDS`.

    Returns the field-named parameters in parameter order; raises ValueError
    if the signature cannot be read, a required parameter is not a field name,
    no parameter is one, a positional-only option comes before a positional-only
    field (the field could not be passed alone), or the function is ``async``.

    Examples
    --------
    >>> signature_reads(lambda similarity, effectiveness, *, scale=2.0: 0.0)
    ('similarity', 'effectiveness')
    >>> def spread(effectiveness, /):
    ...     return max(effectiveness) - min(effectiveness)
    >>> signature_reads(spread)
    ('effectiveness',)
    >>> def wrapper(*args, **kwargs):
    ...     return spread(*args, **kwargs)
    >>> signature_reads(wrapper)
    Traceback (most recent call last):
    ...
    ValueError: measure 'wrapper' takes only (*args, **kwargs), no Population field: a decorator's wrapper? give it @functools.wraps(function)
    """
    if inspect.iscoroutinefunction(function):
        raise ValueError(
            f"measure {function_name(function)!r} is a coroutine function (async def), whose call "
            "returns no number; define it with def"
        )
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot read the signature of measure {function!r}") from exc
    reads: list[str] = []
    option = None  # a positional-only parameter that is no field
    for p in parameters:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.kind is p.POSITIONAL_ONLY and p.name in FIELDS and option is not None:
            raise ValueError(
                f"measure {function_name(function)!r} takes its option {option!r} before the field "
                f"{p.name!r}, both positional-only (before '/'); put the fields first"
            )
        option = p.name if p.kind is p.POSITIONAL_ONLY and p.name not in FIELDS else option
        close = difflib.get_close_matches(p.name, FIELDS, n=1)
        if p.name in FIELDS:
            reads.append(p.name)
        elif p.default is p.empty:
            method = " (a method named from its class: name an instance's, or make it a staticmethod)"
            raise ValueError(
                f"measure {function_name(function)!r} has a required parameter "
                f"{p.name!r} that is not a Population field"
                + (f"; did you mean {close[0]!r}? Known" if close else "; known")
                + f" fields: {', '.join(FIELDS)}"
                + (method if p.name in ("self", "cls") and not reads else "")
            )
        elif difflib.get_close_matches(p.name, FIELDS, n=1, cutoff=_MISSPELT):
            # An option a letter away from a field would silently keep its default: the harness
            # passes fields by their names only.
            raise ValueError(
                f"measure {function_name(function)!r} has an option {p.name!r} (default {p.default!r}) "
                f"that is not a Population field; did you mean {close[0]!r}? The field would never "
                "be passed to it: name the parameter as the field, or the option unlike any field"
            )
    if not reads and parameters and all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters):
        raise ValueError(  # what a decorator without functools.wraps shows of the function
            f"measure {function_name(function)!r} takes only {inspect.signature(function)}, no Population "
            "field: a decorator's wrapper? give it @functools.wraps(function)"
        )
    if not reads:
        raise ValueError(
            f"measure {function_name(function)!r} reads no Population field; "
            f"name a parameter one of {', '.join(FIELDS)}"
        )
    return tuple(reads)


def first_docstring_line(function: Callable[..., Any]) -> str:
    """The first line of ``function``'s docstring (a partial's: its function's), or "" (a measure's
    default definition).

    Examples
    --------
    >>> def spread(effectiveness):
    ...     '''max S − min S.
    ...
    ...     Longer text.
    ...     '''
    >>> import functools
    >>> first_docstring_line(spread), first_docstring_line(functools.partial(spread))
    ('max S − min S.', 'max S − min S.')
    >>> first_docstring_line(lambda effectiveness: 0.0)
    ''
    """
    while isinstance(function, functools.partial):
        function = function.func
    return (inspect.getdoc(function) or "").split("\n")[0]


def check_options(function: Callable[..., Any], options: Mapping[str, object]) -> None:
    """Raise ValueError unless ``function`` takes every key of ``options`` as a keyword option.

    Checked here, not when the measure is first called: a misspelt option
    would otherwise surface as a TypeError deep in a study.

    Examples
    --------
    >>> import puf
    >>> check_options(puf.generalized_entropy, {"alpha": 3})
    >>> check_options(puf.generalized_entropy, {"alfa": 3})
    Traceback (most recent call last):
    ...
    ValueError: options ['alfa'] are not options of 'generalized_entropy'; it takes ['alpha']
    """
    parameters = inspect.signature(function).parameters
    if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return
    takes = [
        p.name
        for p in parameters.values()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in FIELDS
    ]
    unknown = [key for key in options if key not in takes]
    if unknown:
        raise ValueError(
            f"options {unknown} are not options of {function_name(function)!r}; it takes {takes or 'none'}"
        )


FAMILIES = ("inequality indices", "envy", "similarity-aware", "other")
"""Families of measures, in the order tables and figures group them."""
UNBOUNDED = (-math.inf, math.inf)
NONNEGATIVE = (0.0, math.inf)

# Metadata a measure may declare, with the defaults of an undecorated function.
_DEFAULTS = dict(
    label=None,
    range=(0.0, 1.0),
    direction="lower",
    definition=None,
    family=None,
    reference="",
    similarity="jaccard",
    gamma=None,
    panel=None,
    tables=True,
    attainable=None,
    study_options=(),
    engine_output=None,
)


@dataclass(frozen=True)
class Measure:
    """A fairness measure with the metadata the harness reads.

    Parameters
    ----------
    function : callable
        The measure; its required parameters are Population field names.
    name : str
        Short name, as used in :data:`puf.MEASURES` and on the command line.
    reads : tuple of str, optional
        The Population fields the function reads, in parameter order. Always
        derived from the signature; a given value must equal it (ValueError);
        empty or None: not given.
    label : str, optional
        Display name in tables and legends (``"SD"``, ``"MD"``); default ``name``.
    range : tuple of float, default (0.0, 1.0)
        Declared (low, high) range of values.
    direction : {"lower", "higher"}, default "lower"
        Which end is fairer.
    definition : str, default ""
        One-line definition. :func:`measure` and :func:`puf.as_measure` fill
        in the first line of the function's docstring when none is given.
    family : str, optional
        One of :data:`FAMILIES`; default from ``reads``: "similarity-aware"
        when it reads similarity, "envy" when it reads utility, "inequality
        indices" when it reads effectiveness alone, else "other".
    reference : str, default ""
        A short citation of where the measure comes from.
    similarity : str, default "jaccard"
        The similarity (a key of :data:`puf.SIMILARITIES`) it reads in studies
        on real or synthetic data; UF declares ``"uf"``.
    gamma : float or None, default None
        γ of that similarity when it takes one (sim_UF: required, in [0, 1]);
        None otherwise.
    panel : str, optional
        The figure panel its variants share (the envy measures share "Envy");
        default ``label``.
    tables : bool, default True
        Whether studies (``puf evaluate``, the report's sweeps) show it; False
        for forms kept only for the property check (the printed forms).
    attainable : str, optional
        The values it can take on valid input of m users, as an interval
        (``"[0, 0.5]"`` for SD, ``"[0, (m−1)/m]"`` for Gini); ``puf measures``
        shows it next to the declared range, which is what the ``range``
        property checks (the printed forms reach 2, outside their declared
        [0, 1]). None when unknown (a measure registered at run time).
    study_options : tuple of str, default ()
        Keyword options of its function that a study sets from its own
        settings: PEU declares ``("epsilon",)``, so ``puf evaluate --epsilon``
        reaches every measure that declares ``epsilon``, by metadata, not name.
    engine_output : tuple of (str, float), optional
        Which output of its scale engine the measure's value is, and the factor
        applied to it: the envy measures declare theirs among
        :func:`puf.engines.envy_measures`' ``me``, ``mme`` and ``peu``
        (ME-as-printed: ``("me", 2.0)``), so one engine pass gives them all.

    Examples
    --------
    >>> import puf
    >>> m = puf.as_measure("sd")
    >>> m.reads, m.label, m.range, m.direction, m.family
    (('effectiveness',), 'SD', (0.0, 1.0), 'lower', 'inequality indices')
    >>> Measure(puf.sd, "sd", reads=("similarity",))
    Traceback (most recent call last):
    ...
    ValueError: measure 'sd' declares reads ('similarity',) but its signature reads ('effectiveness',)
    """

    function: Callable[..., Any]
    name: str
    reads: tuple[str, ...] = ()
    label: str | None = None
    range: tuple[float, float] = (0.0, 1.0)
    direction: str = "lower"
    definition: str = ""
    family: str | None = None
    reference: str = ""
    similarity: str = "jaccard"
    gamma: float | None = None
    panel: str | None = None
    tables: bool = True
    attainable: str | None = None
    study_options: tuple[str, ...] = ()
    engine_output: tuple[str, float] | None = None
    # Not a field: how many of the fields read come first and positional-only ("/"), passed in order.
    _positional: ClassVar[int] = 0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        derived = signature_reads(self.function)
        if self.reads and tuple(self.reads) != derived:
            raise ValueError(
                f"measure {self.name!r} declares reads {tuple(self.reads)!r} but its signature reads {derived!r}"
            )
        checked = _checked_metadata({f: getattr(self, f) for f in _DEFAULTS})
        check_options(self.function, dict.fromkeys(checked["study_options"]))
        checked["family"] = checked["family"] or _default_family(derived)
        checked["label"] = checked["label"] or self.name
        checked["panel"] = checked["panel"] or checked["label"]
        checked["definition"], checked["reference"] = checked["definition"] or "", checked["reference"] or ""
        for field, value in dict(checked, reads=derived).items():
            object.__setattr__(self, field, value)
        parameters = inspect.signature(self.function).parameters.values()
        object.__setattr__(
            self, "_positional", sum(p.kind is p.POSITIONAL_ONLY and p.name in FIELDS for p in parameters)
        )

    def __call__(self, **fields: Any) -> Any:
        missing = [name for name in self.reads if name not in fields]
        if missing:
            raise ValueError(f"measure {self.name!r} reads {missing} but was given only {sorted(fields)}")
        given = [fields[name] for name in self.reads]
        n = self._positional
        return self.function(*given[:n], **dict(zip(self.reads[n:], given[n:])))

    @property
    def fairest(self) -> float:
        """The fairest value of the declared range (its lower end when lower is fairer).

        Examples
        --------
        >>> import puf
        >>> puf.as_measure("sd").fairest
        0.0
        """
        return self.range[0] if self.direction == "lower" else self.range[1]


def _default_family(reads):
    if "similarity" in reads:
        return "similarity-aware"
    if "utility" in reads:
        return "envy"
    return "inequality indices" if reads == ("effectiveness",) else "other"


def _checked_metadata(meta):
    """``meta`` with its range as floats; ValueError naming the first bad entry."""
    if meta["direction"] not in ("lower", "higher"):
        raise ValueError(f"direction must be 'lower' or 'higher', got {meta['direction']!r}")
    try:
        low, high = (float(v) for v in meta["range"])
    except (TypeError, ValueError):
        raise ValueError(f"range must be two numbers (low, high), got {meta['range']!r}") from None
    if not low <= high:
        raise ValueError(f"range must be (low, high) with low <= high, got {meta['range']!r}")
    if meta["family"] is not None and meta["family"] not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(map(repr, FAMILIES))}, got {meta['family']!r}")
    for field in ("label", "panel", "definition", "reference", "attainable"):
        if meta[field] is not None and not isinstance(meta[field], str):
            raise ValueError(f"{field} must be a string, got {meta[field]!r}")
    if not isinstance(meta["tables"], bool):  # bool("no") would be True
        raise ValueError(f"tables must be True or False, got {meta['tables']!r}")
    gamma = check_similarity_choice(meta["similarity"], meta["gamma"])
    options = meta["study_options"]
    if isinstance(options, str) or not all(isinstance(o, str) for o in options):
        raise ValueError(f"study_options must be a tuple of option names, got {options!r}")
    output = meta["engine_output"]
    if output is not None:
        if not (isinstance(output, tuple) and len(output) == 2 and isinstance(output[0], str)):
            raise ValueError(f"engine_output must be (output name, factor), got {output!r}")
        output = (output[0], float(output[1]))
    return dict(
        meta,
        range=(low, high),
        gamma=gamma,
        tables=bool(meta["tables"]),
        study_options=tuple(options),
        engine_output=output,
    )


def check_similarity_choice(similarity: str, gamma: object) -> float | None:
    """Return ``gamma`` checked for ``similarity``: in [0, 1] if it takes one, else None.

    Examples
    --------
    >>> check_similarity_choice("uf", 0.5), check_similarity_choice("jaccard", None)
    (0.5, None)
    """
    from .similarity import takes_gamma

    if not takes_gamma(similarity):  # also checks the name
        if gamma is not None:
            raise ValueError(f"gamma must be None: similarity {similarity!r} takes no gamma, got {gamma!r}")
        return None
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not 0.0 <= gamma <= 1.0:
        raise ValueError(f"similarity {similarity!r} takes gamma: declare gamma in [0, 1], got {gamma!r}")
    return float(gamma)


def measure(
    function: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    reads: tuple[str, ...] | None = None,
    instances: Sequence[Mapping[str, Any]] = (),
    **metadata: Any,
) -> Callable[..., Any]:
    """Decorator declaring a measure's metadata where it is defined; the function is unchanged.

    Parameters
    ----------
    function : callable, optional
        The measure (when used as ``@measure`` without arguments).
    name : str, optional
        Registered name; defaults to the function's name.
    reads : tuple of str, optional
        Checked against the signature (ValueError when they differ); the
        fields read always come from the signature.
    instances : sequence of dict, optional
        For a parametrised measure, one entry per registered parameter value:
        ``name`` and ``options`` (keyword arguments bound to the function),
        plus any metadata that differs from the decorator's (``label``,
        ``definition``, ``range``, ...). The built-ins register these instead
        of the function itself.
    **metadata
        ``label``, ``range``, ``direction``, ``definition`` (default the
        docstring's first line), ``family``, ``reference``, ``similarity``,
        ``gamma``, ``panel``, ``tables``, ``attainable``, ``study_options``,
        ``engine_output``, as for :class:`Measure`.

    Returns
    -------
    callable
        ``function`` itself, with a ``__puf_measure__`` attribute holding its
        :class:`Measure` and ``__puf_instances__`` the parametrised ones.

    Examples
    --------
    >>> import numpy as np
    >>> @measure(name="range-gap", label="Range", definition="max S − min S")
    ... def range_gap(effectiveness):
    ...     return float(np.ptp(effectiveness))
    >>> m = range_gap.__puf_measure__
    >>> m.name, m.label, m.reads, m.family
    ('range-gap', 'Range', ('effectiveness',), 'inequality indices')
    >>> [m.name for m in measure(lambda effectiveness, *, p=1: 0.0,
    ...                          instances=[dict(name="p-2", options={"p": 2})]).__puf_instances__]
    ['p-2']
    """
    meta = dict(_DEFAULTS, **_known(metadata))
    _checked_metadata(meta)  # bad metadata fails where it is written, before any function
    for entry in instances:
        if not isinstance(entry, dict) or "name" not in entry or "options" not in entry:
            raise ValueError(f"each instance must be a dict with 'name' and 'options', got {entry!r}")

    def attach(func):
        declared = Measure(
            func,
            name or function_name(func),
            reads or (),
            **dict(meta, definition=meta["definition"] or first_docstring_line(func)),
        )
        func.__puf_measure__ = declared
        func.__puf_instances__ = tuple(_instance(declared, dict(entry)) for entry in instances)
        return func

    return attach(function) if function is not None else attach


def _instance(declared, entry):
    """``declared`` at one parameter value: the options bound, the entry's metadata over the rest."""
    name, options = entry.pop("name"), entry.pop("options")
    return bind(declared, name=name, options=options, **entry)


def bind(declared: Measure, *, name: str, options: Mapping[str, Any] | None = None, **metadata: Any) -> Measure:
    """A :class:`Measure` like ``declared`` under ``name``, with ``options`` bound to its function.

    The label and the panel are not inherited (a new name is shown as itself
    unless ``label`` is given), nor the attainable values when options are
    bound (they depend on them); every other metadata field is, unless given.

    Examples
    --------
    >>> import puf
    >>> bind(puf.as_measure(puf.generalized_entropy), name="ge-3", options={"alpha": 3}).label
    'ge-3'
    """
    function = declared.function
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"options must be a dict of keyword options, got {options!r}")
    if options:
        check_options(function, options)
        bound: Any = functools.partial(function, **options)
        bound.__name__ = function_name(declared.function)  # kept for tracebacks and pickling
        function = bound
    own = ("label", "panel") + (("attainable",) if options else ())
    inherited = {f: getattr(declared, f) for f in _DEFAULTS if f not in own}
    return Measure(function, name, **dict(inherited, **_known(metadata)))


def _known(metadata):
    unknown = set(metadata) - set(_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown metadata {sorted(unknown)}; known: {', '.join(_DEFAULTS)}")
    return metadata
