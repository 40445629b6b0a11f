"""A measure's signature: the Population fields it reads, its keyword options, its first line.

What :mod:`puf.metadata` reads off a measure function, kept apart so that the
metadata module stays small: :func:`signature_reads` (the fields, by parameter
name), :func:`check_options` (options bound to it exist) and
:func:`first_docstring_line` (its default definition).
"""

__all__ = ["FIELDS", "signature_reads", "check_options", "first_docstring_line", "function_name"]

import inspect

FIELDS = ("effectiveness", "similarity", "utility", "list_distance")
"""The Population fields a measure may read, by parameter name."""


def function_name(function):
    """``function.__name__``, or its repr for a callable without one (a partial, an instance).

    Examples
    --------
    >>> import functools, puf
    >>> function_name(puf.sd), function_name(functools.partial(max))
    ('sd', 'functools.partial(<built-in function max>)')
    """
    return getattr(function, "__name__", repr(function))


def signature_reads(function):
    """The Population fields a measure reads: its parameters named after :data:`FIELDS`.

    Returns the field-named parameters in parameter order; raises ValueError
    if the signature cannot be read, a required parameter is not a field name,
    or no parameter is one.

    Examples
    --------
    >>> signature_reads(lambda similarity, effectiveness, *, scale=2.0: 0.0)
    ('similarity', 'effectiveness')
    """
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
                f"measure {function_name(function)!r} has a required parameter "
                f"{p.name!r} that is not a Population field; known fields: {', '.join(FIELDS)}"
            )
    if not reads:
        raise ValueError(f"measure {function_name(function)!r} reads no Population field; "
                         f"name a parameter one of {', '.join(FIELDS)}")
    return tuple(reads)


def first_docstring_line(function):
    """The first line of ``function``'s docstring, or "" (a measure's default definition).

    Examples
    --------
    >>> def spread(effectiveness):
    ...     '''max S − min S.
    ...
    ...     Longer text.
    ...     '''
    >>> first_docstring_line(spread), first_docstring_line(lambda effectiveness: 0.0)
    ('max S − min S.', '')
    """
    return (inspect.getdoc(function) or "").split("\n")[0]


def check_options(function, options):
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
    takes = [p.name for p in parameters.values()
             if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in FIELDS]
    unknown = [key for key in options if key not in takes]
    if unknown:
        raise ValueError(f"options {unknown} are not options of {function_name(function)!r}; "
                         f"it takes {takes or 'none'}")
