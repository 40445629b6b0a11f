"""Reasons that follow from what a measure reads, derived here and never stored in a known file.

A cell's reason is stored in ``properties/knowledge/known/<measure>.json`` only where it says something a
reader needs: the argument behind a ``holds``, where the measure is undefined, what a
counterexample shows. A reason that follows from the measure's ``reads`` (its ``@measure``
metadata, from its signature) and the property's ``needs`` and ``uses`` — "the measure reads no
similarity, so the change leaves the value unchanged" — is derived by :func:`derived_reason`,
and what a search covered ("no counterexample in N examples up to m = M") belongs to the run's
output and the power table, never to a known file (:func:`is_coverage`). :func:`cell_reason` is
the reason every display of a pinned cell shows: the stored one, else the derived one, else the
proof's scope.
"""

from __future__ import annotations

__all__ = ["COVERAGE", "is_coverage", "without_coverage", "unread_reason", "derived_reason", "cell_reason"]

from collections.abc import Mapping, Sequence
from typing import Any
import re

COVERAGE = ("no counterexample", "examples up to", "budget ", "seed ")
"""Phrases of a search's coverage: a stored reason holding one of them is run output."""

_CLAUSE = re.compile(r"(^|; )the search found no counterexample in \d+ examples up to m = \d+ \([^)]*\)$")


def is_coverage(reason: str) -> bool:
    """True when ``reason`` holds text of a search's coverage (:data:`COVERAGE`).

    Examples
    --------
    >>> is_coverage("a shift leaves every gap unchanged; the search found no counterexample in 9 examples"
    ...             " up to m = 4 (budget 5, seed 0)")
    True
    >>> is_coverage("a shift leaves every gap unchanged")
    False
    """
    return any(phrase in reason for phrase in COVERAGE)


def without_coverage(reason: str) -> str:
    """``reason`` without the clause a search appends ("; the search found no counterexample in N
    examples up to m = M (budget B, seed S)"); "" when that clause was all of it.

    Examples
    --------
    >>> without_coverage("SD ≤ ½; the search found no counterexample in 9 examples up to m = 4 (budget 5, seed 0)")
    'SD ≤ ½'
    >>> without_coverage("the search found no counterexample in 9 examples up to m = 4 (budget 5, seed 0)")
    ''
    """
    return _CLAUSE.sub("", reason).strip()


def _fields(names: Sequence[str]) -> str:
    return " or ".join(name.replace("_", " ") for name in names)


def unread_reason(needs: Sequence[str]) -> str:
    """Why no change of ``needs`` alone can move a measure that reads none of them: the proof that
    an existential property has no witness.

    Examples
    --------
    >>> unread_reason(("similarity",))
    'the measure reads no similarity, so no change of it alone moves the value'
    """
    return f"the measure reads no {_fields(needs)}, so no change of it alone moves the value"


def _reaches(prop: Any, level: str) -> bool:
    """True when ``prop.needs`` names every field its change reaches at ``level``.

    At score level the change acts on ``needs`` alone. At world level a change of histories
    reaches the similarity alone, but a change of effectiveness is one of relevance or lists,
    which reach utility and list distance too: a property needing effectiveness is taken at its
    word there only when it names the utility as well.
    """
    needs = set(prop.needs)
    return level == "score" or needs == {"similarity"} or "utility" in needs


def derived_reason(measure: Any, prop: Any, status: str) -> str | None:
    """The reason of a cell that follows from what ``measure`` reads, or None when none does.

    Parameters
    ----------
    measure : str, callable or Measure
        Anything :func:`puf.as_measure` accepts; its ``reads`` decide.
    prop : str or Property
        A catalog property's name, or a Property.
    status : str
        The cell's verdict (``proven`` counts as ``holds``).

    Returns
    -------
    str or None
        For a measure that reads none of the fields the property's change acts on: the change
        leaves its value unchanged (a weak property ``holds``; a strict or existential one is
        ``violated``; a property fixing those fields on one population cannot make the value the
        fairest). For a measure that reads none of the fields the property ranks two pairings
        by (``uses``): it cannot rank them (``violated``). None otherwise.

    Examples
    --------
    >>> derived_reason("sd", "similarity-monotone", "holds")
    'the measure reads no similarity, so the change leaves the value unchanged'
    >>> derived_reason("sd", "rearrangement", "violated")
    'the measure reads no similarity, by which the property ranks the two pairings, so it cannot rank them'
    >>> derived_reason("puf", "similarity-monotone", "holds") is None
    True
    """
    from puf import as_measure
    from ...catalog.listing import get_property
    from ...catalog.judges import rearranged
    from ...running.search import measure_level

    measure = as_measure(measure)
    prop = get_property(prop) if isinstance(prop, str) else prop
    status = "holds" if status == "proven" else status
    reads = set(measure.reads or ())
    unread = bool(prop.needs) and not reads & set(prop.needs) and _reaches(prop, measure_level(measure))
    fields = _fields(prop.needs)
    if unread and prop.kind == "existential":
        return unread_reason(prop.needs) if status == "violated" else None
    if unread and prop.single_population:
        return (
            f"the measure reads no {fields}, so fixing it as the property does leaves the value to the fields "
            "it reads, short of the fairest end on the example"
            if status == "violated"
            else None
        )
    if unread and status in ("holds", "violated"):
        where = "" if status == "holds" else ", where the property wants it to move"
        return f"the measure reads no {fields}, so the change leaves the value unchanged{where}"
    # The rearrangement's two pairings differ only in who of the alike users gets which outcome.
    if prop.judge is rearranged and prop.uses and not reads & set(prop.uses) and status == "violated":
        return f"the measure reads no {_fields(prop.uses)}, by which the property ranks the two pairings, so it cannot rank them"
    return None


def cell_reason(data: Mapping[str, Any], prop: str, *, measure: Any = None) -> str | None:
    """The reason a pinned cell shows: its stored reason, else the one derived from what the
    measure reads (:func:`derived_reason`), else its proof's scope; None when it has none of them
    (the run's own reason is shown then: what the search covered, and its measured power).

    Parameters
    ----------
    data : dict
        A known file (a built-in's or a researcher's pinned file).
    prop : str
        A property it pins.
    measure : str, callable or Measure, optional
        The measure (default: ``data["measure"]`` where it is a registered name).

    Examples
    --------
    >>> from puf.properties.knowledge.known import load_known
    >>> cell_reason(load_known("sd"), "similarity-monotone")
    'the measure reads no similarity, so the change leaves the value unchanged'
    >>> cell_reason(load_known("sd"), "translation-invariance")
    'a shift leaves every gap unchanged'
    >>> cell_reason({"measure": "mine", "verdicts": {"range": "holds"}, "reasons": {},
    ...              "proofs": {"range": "for every m, by bounds of the blocks"}}, "range")
    'proven for every m, by bounds of the blocks'
    """
    stored = data.get("reasons", {}).get(prop)
    if stored:
        return str(stored)
    status = data.get("verdicts", {}).get(prop)
    derived = None if status is None else _derived_or_none(measure or data.get("measure"), prop, status)
    if derived:
        return derived
    scope = data.get("proofs", {}).get(prop)
    return f"proven {scope}" if scope else None


def _derived_or_none(measure: Any, prop: str, status: str) -> str | None:
    """:func:`derived_reason`, or None for a measure that is not registered (a pinned file's name)."""
    from puf import MEASURES

    if isinstance(measure, str) and measure not in MEASURES:
        return None
    try:
        return derived_reason(measure, prop, status)
    except ValueError:  # a property no longer in the catalog
        return None
