"""One loader for every entry point: a command-line measure spec -> :class:`~puf.Measure`.

``puf check``, ``pytest --measure`` and ``puf report --measure`` all read their
measure through :func:`load_measure`, so the three spellings below work the
same everywhere, from any working directory.
"""

from __future__ import annotations

__all__ = ["load_measure", "user_spec", "spec_of", "file_modules"]

from typing import Any
import functools
import hashlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from .metadata import Measure, bind, first_docstring_line
from .registry import MEASURES, as_measure

_FILE_MODULE_PREFIX = "_puf_measure_"


def _one_line(exc):
    """The first line of ``exc``; its type is named unless it is a plain import failure."""
    if isinstance(exc, ImportError) and str(exc):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return text.splitlines()[0]


def _is_file(source):
    return source.endswith(".py") or "/" in source or os.sep in source


def _import_file(source):
    path = Path(source).expanduser()
    if not path.is_file():
        raise ValueError(f"cannot import {source!r}: no such file")
    path = path.resolve()
    # One module per file, whatever the spelling of its path: loading it twice gives the
    # same functions (so a measure given twice is recognised), and the name is registered
    # like an import so its functions pickle by reference into forked worker processes.
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"{_FILE_MODULE_PREFIX}{path.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    if str(path.parent) not in sys.path:
        sys.path.append(str(path.parent))  # its sibling modules import, as for a script
    loader = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(loader)
    sys.modules[name] = module
    try:
        loader.loader.exec_module(module)
    except KeyboardInterrupt:
        del sys.modules[name]
        raise
    except BaseException as exc:  # SystemExit at import time too: the user's file, one line
        del sys.modules[name]
        hint = ""
        if isinstance(exc, ImportError) and "no known parent package" in str(exc):  # a relative import
            hint = (
                f"; a module of a package: name it by its import path: {path.parent.name}.{path.stem}:FUNCTION, "
                f"with {path.parent.parent} on PYTHONPATH"
            )
        raise ValueError(f"cannot import {source!r}: {_one_line(exc)}{hint}") from None
    return module


def _import_module(source):
    # A researcher's module next to them imports first, as `python -m` would find it: the
    # folders of measure files loaded earlier (appended for their sibling imports) never
    # shadow it, so `mine:f` means the `mine.py` in the current folder.
    here = os.getcwd()
    if sys.path[:1] != [here]:
        if here in sys.path:
            sys.path.remove(here)
        sys.path.insert(0, here)
    try:
        return importlib.import_module(source)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # any import-time failure is the user's module, in one line
        raise ValueError(f"cannot import module {source!r}: {_one_line(exc)}") from None


def load_measure(spec: str | Measure) -> Measure:
    """Return the :class:`~puf.Measure` that a command-line spec names.

    Parameters
    ----------
    spec : str or Measure
        A Measure is returned as it is. ``MODULE:FUNCTION`` (an importable module; the working directory is
        importable), ``FILE.py:FUNCTION`` (a path, relative or absolute, to a
        Python file; its folder is importable for its own imports), or a name
        in :data:`puf.MEASURES`. ``FUNCTION`` may be dotted (``Class.method``).

    Returns
    -------
    Measure

    Raises
    ------
    ValueError
        One line naming the spec: not a spec, no such file or module, an import
        error (any exception, ``SystemExit`` included, raised while importing), no
        such attribute, not callable, or a parameter that is not a Population field.

    Examples
    --------
    >>> load_measure("sd").name
    'sd'
    >>> load_measure("puf.paper_score_measures:gini").reads
    ('effectiveness',)
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "mine.py"
    >>> _ = path.write_text("def spread(effectiveness):\\n    return float(max(effectiveness))\\n")
    >>> load_measure(f"{path}:spread").name
    'spread'

    A callable without a name of its own (an instance, a ``functools.partial``), or whose own
    name is not the spec's (a lambda, a decorator's wrapper), takes the name the spec gives it:

    >>> partial = path.with_name("partial.py")
    >>> _ = partial.write_text("import functools\\ndef gap(effectiveness, p=1):\\n    return 0.0\\n"
    ...                        "gap_2 = functools.partial(gap, p=2)\\ntop = lambda effectiveness: 1.0\\n")
    >>> load_measure(f"{partial}:gap_2").name, load_measure(f"{partial}:gap_2").definition
    ('gap_2', '')
    >>> load_measure(f"{partial}:top").name
    'top'

    A partial of a built-in (or of any function declared with :func:`puf.measure`) keeps its
    declared facts:

    >>> theil = path.with_name("theil.py")
    >>> _ = theil.write_text("import functools, puf\\ntheil = functools.partial(puf.generalized_entropy, alpha=1)\\n")
    >>> load_measure(f"{theil}:theil").name, load_measure(f"{theil}:theil").range
    ('theil', (0.0, inf))
    >>> load_measure("no_such_file.py:f")
    Traceback (most recent call last):
    ...
    ValueError: cannot import 'no_such_file.py': no such file
    """
    if isinstance(spec, Measure):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a measure spec must be MODULE:FUNCTION, FILE.py:FUNCTION or a registered name, got {spec!r}")
    spec = spec.strip()
    source, sep, attribute = spec.rpartition(":")
    if not sep:
        if spec in MEASURES:
            return MEASURES[spec]
        raise ValueError(
            f"expected MODULE:FUNCTION, FILE.py:FUNCTION or a registered measure "
            f"name ({', '.join(MEASURES)}), got {spec!r}"
        )
    if not source or not attribute:
        raise ValueError(f"expected MODULE:FUNCTION or FILE.py:FUNCTION, got {spec!r}")
    is_file = _is_file(source)
    target = _import_file(source) if is_file else _import_module(source)
    where = repr(source) if is_file else f"module {source!r}"
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ValueError(f"{where} has no attribute {attribute!r}") from None
    if not callable(target):
        raise ValueError(f"{spec!r} is not callable (it is a {type(target).__name__})")
    name = attribute.rpartition(".")[2]
    if hasattr(target, "__puf_measure__") or getattr(target, "__name__", None) == name:
        return as_measure(target)
    # An instance, a partial, a lambda, a wrapper: named as the spec names it; a partial of a
    # declared measure (its options given by keyword) keeps that measure's facts, as
    # puf.register's options do.
    if isinstance(target, functools.partial) and not target.args and hasattr(target.func, "__puf_measure__"):
        return bind(as_measure(target.func), name=name, options=target.keywords)
    return Measure(target, name, definition=first_docstring_line(target))


def user_spec(spec: object) -> str | None:
    """Return ``spec`` as it names the same function from any folder (a file's path made absolute),
    or None when it names none of a user's: a registered name, a function of ``puf``, not a spec.

    Examples
    --------
    >>> import os
    >>> user_spec(" mine.py:top") == os.path.abspath("mine.py") + ":top", user_spec("mine:top")
    (True, 'mine:top')
    >>> user_spec("sd"), user_spec("puf.paper_score_measures:gini"), user_spec(None)
    (None, None, None)
    """
    source, sep, attribute = spec.strip().rpartition(":") if isinstance(spec, str) else ("", "", "")
    if not sep or source == "puf" or source.startswith("puf."):
        return None
    return f"{os.path.abspath(os.path.expanduser(source)) if _is_file(source) else source}:{attribute}"


def spec_of(function: object) -> str | None:
    """Return the spec that loads ``function`` again in a new interpreter; None when it has none (a
    lambda, a closure, a partial, an instance, a function of ``__main__``, one its module does not
    hold under its name: defined in a doctest or an ``exec``, or replaced since).

    Examples
    --------
    >>> from puf.paper_score_measures import gini
    >>> def spread(effectiveness):
    ...     return max(effectiveness) - min(effectiveness)
    >>> spec_of(gini), spec_of(lambda effectiveness: 0.0), spec_of(spread)
    ('puf.paper_score_measures:gini', None, None)
    """
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    qualname = getattr(function, "__qualname__", "")
    if not module or module.__name__ == "__main__" or not qualname or "<" in qualname:
        return None
    held: Any = module
    for part in qualname.split("."):
        held = getattr(held, part, None)
    if held is not function and getattr(held, "function", None) is not function:  # (a Measure of it)
        return None
    file = getattr(module, "__file__", None) if module.__name__.startswith(_FILE_MODULE_PREFIX) else None
    return f"{file or module.__name__}:{qualname}"


def file_modules() -> list[ModuleType]:
    """The modules :func:`load_measure` made of ``FILE.py`` specs: named for their file's path, so
    a process that did not load them (a dask worker) cannot import them by name.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "mine.py"
    >>> _ = path.write_text("def top(effectiveness):\\n    return max(effectiveness)")
    >>> module = load_measure(f"{path}:top").function.__module__
    >>> module in [m.__name__ for m in file_modules()]
    True
    """
    return [module for name, module in list(sys.modules.items()) if name.startswith(_FILE_MODULE_PREFIX)]
