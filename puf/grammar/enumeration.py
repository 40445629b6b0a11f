"""The grammar as a grid of candidate forms: what ``puf design`` enumerates.

A grammar is a dict: ``"pair"`` maps each :class:`~puf.grammar.PairForm` option
to the values to try (their product is enumerated, combinations the form
refuses skipped), ``"index"`` maps each index form of
:data:`~puf.grammar.INDEX_FORMS` to its parameter values (``[null]`` for a
form without one). :func:`load_grammar` reads one from a JSON file.
"""

from __future__ import annotations

__all__ = ["DEFAULT_GRAMMAR", "enumerate_forms", "load_grammar"]

import itertools
import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from .forms import INDEX_FORMS, IndexForm, PairForm

DEFAULT_GRAMMAR: dict[str, dict[str, list[Any]]] = {
    "pair": {
        "weight": ["1", "sim", "sim^2", "sim>=t"],
        "gap": ["abs", "square", "excess", "violation"],
        "aggregation": ["pairs", "all-pairs", "max", "user-max"],
        "normalisation": ["none", "mean", "weights"],
        "threshold": [0.5],
        "lipschitz": [1.0],
    },
    "index": {
        "ge": [-1.0, 0.0, 0.5, 1.0, 2.0, 3.0],
        "atkinson": [0.5, 1.0, 2.0],
        "cv": [None],
        "jain": [None],
        "hoover": [None],
    },
}
"""The default grid: 128 pair forms and 12 index forms."""

_PAIR_OPTIONS = ("weight", "gap", "aggregation", "normalisation", "coefficient", "root", "threshold", "lipschitz")


def enumerate_forms(
    grammar: Mapping[str, Any] | None = None, *, kinds: Iterable[str] = ("pair", "index")
) -> list[PairForm | IndexForm]:
    """Every form of ``grammar`` (default :data:`DEFAULT_GRAMMAR`), pair forms first.

    Parameters
    ----------
    grammar : dict, optional
    kinds : tuple of {"pair", "index"}, default both
        Which parts of the grammar to enumerate ("index": the inequality forms only).

    Returns
    -------
    list of PairForm or IndexForm
        Without duplicates, in grid order.

    Examples
    --------
    >>> len(enumerate_forms()), len(enumerate_forms(kinds=("index",)))
    (140, 12)
    """
    grammar = DEFAULT_GRAMMAR if grammar is None else grammar
    check_grammar(grammar)
    forms: list[PairForm | IndexForm] = []
    if "pair" in kinds and "pair" in grammar:
        grid = grammar["pair"]
        names = [n for n in _PAIR_OPTIONS if n in grid]
        for values in itertools.product(*(grid[n] for n in names)):
            options = dict(zip(names, values))
            if options.get("weight") != "sim>=t":
                options.pop("threshold", None)
            if options.get("gap") not in ("excess", "violation"):
                options.pop("lipschitz", None)
            try:
                forms.append(PairForm(**options))
            except ValueError:  # a combination the form refuses (a mean of a max, ...)
                continue
    if "index" in kinds and "index" in grammar:
        for name, parameters in grammar["index"].items():
            forms.extend(IndexForm(name, p) for p in parameters)
    return list(dict.fromkeys(forms))


def check_grammar(grammar: object) -> None:
    """Raise ValueError naming the first entry of ``grammar`` that is not a grid of forms."""
    if not isinstance(grammar, dict) or not set(grammar) <= {"pair", "index"}:
        raise ValueError(f"a grammar must be a dict with keys 'pair' and/or 'index', got {grammar!r}")
    for name, values in grammar.get("pair", {}).items():
        if name not in _PAIR_OPTIONS or not isinstance(values, list) or not values:
            raise ValueError(
                f"grammar 'pair' entry {name!r} must be one of {', '.join(_PAIR_OPTIONS)} "
                f"with a non-empty list of values, got {values!r}"
            )
    for name, values in grammar.get("index", {}).items():
        if name not in INDEX_FORMS or not isinstance(values, list) or not values:
            raise ValueError(
                f"grammar 'index' entry {name!r} must be one of {', '.join(INDEX_FORMS)} "
                f"with a non-empty list of parameters, got {values!r}"
            )


def load_grammar(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a grammar from a JSON file (the shape of :data:`DEFAULT_GRAMMAR`).

    Examples
    --------
    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.json")
    >>> _ = open(path, "w").write(json.dumps({"index": {"ge": [2.0]}}))
    >>> enumerate_forms(load_grammar(path))
    [IndexForm(form='ge', parameter=2.0)]
    """
    try:
        with open(path, encoding="utf-8") as handle:
            grammar = json.load(handle)
    except OSError as exc:
        raise ValueError(f"grammar file {path!r} cannot be read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"grammar file {path!r} is not JSON: {exc}") from None
    check_grammar(grammar)
    return grammar
