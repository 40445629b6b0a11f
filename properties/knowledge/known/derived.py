"""Reasons that follow from what a measure reads, derived here and never stored in a known file.

A cell's reason is stored in ``properties/knowledge/known/<measure>.json`` only where it says something a
reader needs: the argument behind a ``holds``, where the measure is undefined, what a
counterexample shows. A reason that follows from the measure's ``reads`` (its ``@measure``
metadata, from its signature) and the property's ``needs`` and ``uses`` — "the measure reads no
similarity, so the change leaves the value unchanged" — is derived by :func:`derived_reason`,
and what a search covered ("no counterexample in N examples up to m = M") belongs to the run's
output and the power table, never to a known file (:func:`is_coverage`). A reason is derived
from a :class:`~puf.properties.catalog.property.Property` itself, not from its name, so this module
stands below the catalog's listing (the runner derives reasons with it);
:func:`properties.knowledge.pinned.cell_reason` is the reason every display of a pinned cell
shows.
"""

from __future__ import annotations

__all__ = ["COVERAGE", "is_coverage", "without_coverage", "unread_reason", "unreached", "unranked", "derived_reason"]

from collections.abc import Sequence
from typing import Any
import re

from ...catalog.property import SCORE_ONLY, Property

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


def unreached(measure: Any, prop: Property) -> bool:
    """True when the change of ``prop`` acts only on fields ``measure`` does not read, at the
    level it is checked at: every case leaves the measure's inputs, so its value, exactly as
    they were.

    Examples
    --------
    >>> from puf.properties import get_property
    >>> unreached("sd", get_property("strict-similarity-monotone")), unreached("puf", get_property("similarity-monotone"))
    (True, False)
    """
    from puf import as_measure
    from ...cases.case import measure_level

    measure = as_measure(measure)
    needs = set(prop.needs)
    return bool(needs) and not set(measure.reads or ()) & needs and _reaches(prop, measure_level(measure))


def unranked(measure: Any, prop: Property) -> bool:
    """True when ``prop`` ranks two pairings by fields (``uses``) that ``measure`` does not read:
    to the measure the pairings differ only in who gets which outcome.

    Examples
    --------
    >>> from puf.properties import get_property
    >>> unranked("gini", get_property("rearrangement")), unranked("puf", get_property("rearrangement"))
    (True, False)
    """
    from puf import as_measure
    from ...catalog.judges import rearranged

    reads = set(as_measure(measure).reads or ())
    return prop.judge is rearranged and bool(prop.uses) and not reads & set(prop.uses)


def derived_reason(measure: Any, prop: Property, status: str) -> str | None:
    """The reason of a cell that follows from what ``measure`` reads, or None when none does.

    Parameters
    ----------
    measure : str, callable or Measure
        Anything :func:`puf.as_measure` accepts; its ``reads`` decide.
    prop : Property
        A catalog property (:func:`puf.properties.get_property` finds one by name).
    status : str
        The cell's verdict (``proven`` counts as ``holds``).

    Returns
    -------
    str or None
        For a measure that reads none of the fields the property's change acts on: the change
        leaves its value unchanged (a weak property ``holds``; a strict or existential one is
        ``violated``; a property fixing those fields on one population cannot make the value the
        fairest). For a measure that reads none of the fields the property ranks two pairings
        by (``uses``): it cannot rank them (``violated``). A cell ``not-applicable`` because the
        measure is read at world level and the property is stated at score level only
        (:data:`~properties.catalog.property.SCORE_ONLY`), or because it reads none of the fields a
        single population of the property is made of, says so. None otherwise.

    Examples
    --------
    >>> from puf.properties import get_property
    >>> derived_reason("sd", get_property("similarity-monotone"), "holds")
    'the measure reads no similarity, so the change leaves the value unchanged'
    >>> derived_reason("sd", get_property("rearrangement"), "violated")
    'the measure reads no similarity, by which the property ranks the two pairings, so it cannot rank them'
    >>> derived_reason("puf", get_property("similarity-monotone"), "holds") is None
    True
    >>> derived_reason("sd", get_property("envy-free-fairest"), "not-applicable")
    'the measure reads no utility, of which every case of the property is made'
    >>> derived_reason("uf", get_property("similar-treated-alike"), "not-applicable")
    'read at world level: the property is stated at score level only'
    """
    from puf import as_measure
    from ...cases.case import measure_level

    measure = as_measure(measure)
    status = "holds" if status == "proven" else status
    unread = unreached(measure, prop)
    fields = _fields(prop.needs)
    if status == "not-applicable":
        if prop.world == SCORE_ONLY and measure_level(measure) == "world":
            return "read at world level: the property is stated at score level only"
        made_of = unread and prop.single_population  # (its one population is made of those fields)
        return f"the measure reads no {fields}, of which every case of the property is made" if made_of else None
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
    if unranked(measure, prop) and status == "violated":
        return f"the measure reads no {_fields(prop.uses)}, by which the property ranks the two pairings, so it cannot rank them"
    return None
