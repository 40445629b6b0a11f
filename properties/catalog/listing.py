"""The property catalog: what a fairness measure should (or is claimed to) satisfy, in order.

Each property is one entry (the keyword arguments of a
:class:`~puf.properties.catalog.property.Property`) in the module of its family: who the
users are (:mod:`~properties.catalog.user_properties`), their outcomes
(:mod:`~properties.catalog.outcome_properties`), their similarity
(:mod:`~properties.catalog.similarity_properties`), every field at once
(:mod:`~properties.catalog.field_properties`) and the inequality literature's axioms
(:mod:`~properties.catalog.inequality_axioms`). This module lists the families in :data:`FAMILIES`, whose
order, each family's entries in the order of its module, is the order verdicts, known files and
tables follow. The runner knows no property by name: adding one is its entry in its family's
module, plus its pinned verdicts in ``properties/knowledge/known/`` (written by ``puf check``).
"""

from __future__ import annotations

__all__ = ["FAMILIES", "CATALOG", "PROOF_RULES", "in_order", "get_property", "catalog_frame"]

from typing import Any
from collections.abc import Iterable, Mapping

import pandas as pd

from .inequality_axioms import INEQUALITY_AXIOM_ENTRIES
from .continuity import CONTINUITY_ENTRIES
from .pair_axioms import PAIR_ENTRIES
from .welfare_axioms import WELFARE_ENTRIES
from .field_properties import FIELD_ENTRIES
from .outcome_properties import OUTCOME_ENTRIES
from .property import Property
from .similarity_properties import SIMILARITY_ENTRIES
from .user_properties import USER_ENTRIES

#: The families of the catalog, in the order verdicts, known files and tables list them; each
#: family's entries follow in the order of its module (a new property in a family touches no list).
FAMILIES = (
    USER_ENTRIES,
    OUTCOME_ENTRIES,
    SIMILARITY_ENTRIES,
    FIELD_ENTRIES,
    CONTINUITY_ENTRIES,
    INEQUALITY_AXIOM_ENTRIES,
    WELFARE_ENTRIES,
    PAIR_ENTRIES,
)


def in_order(families: Iterable[tuple[Mapping[str, Any], ...]]) -> dict[str, Property]:
    """The entries of ``families`` as properties, family by family, each name once.

    Examples
    --------
    >>> in_order([(dict(name="a"),), (dict(name="a"),)])
    Traceback (most recent call last):
    ...
    ValueError: the catalog names a property twice: a
    """
    entries = [entry for family in families for entry in family]
    names = [entry["name"] for entry in entries]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"the catalog names a property twice: {', '.join(twice)}")
    return {entry["name"]: Property(**entry) for entry in entries}


#: Every property by name, family by family (:data:`FAMILIES`).
CATALOG = in_order(FAMILIES)

#: Property name -> its composition rule, for the properties that have one (``docs/guide/proofs.md``).
PROOF_RULES = {name: p.proof_rule for name, p in CATALOG.items() if p.proof_rule is not None}


def get_property(name: str | Property) -> Property:
    """Return the :class:`Property` called ``name``.

    Examples
    --------
    >>> get_property("pigou-dalton").source.startswith("inequality")
    True
    >>> get_property("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown property 'nope'; known properties: range, defined, ...
    """
    if isinstance(name, Property):
        return name
    try:
        return CATALOG[name]
    except KeyError:
        raise ValueError(f"unknown property {name!r}; known properties: {', '.join(CATALOG)}") from None


def catalog_frame() -> pd.DataFrame:
    """Return the catalog as a pandas DataFrame, one row per property.

    Examples
    --------
    >>> catalog_frame().loc["anonymity", "kind"]
    'universal'
    """
    return pd.DataFrame([p.to_dict() for p in CATALOG.values()]).set_index("name")
