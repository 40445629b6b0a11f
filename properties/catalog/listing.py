"""The property catalog: what a fairness measure should (or is claimed to) satisfy, in order.

Each property is one entry (the keyword arguments of a
:class:`~puf.properties.catalog.property.Property`) in the module of its family: who the
users are (:mod:`~properties.catalog.user_properties`), their outcomes
(:mod:`~properties.catalog.outcome_properties`), their similarity
(:mod:`~properties.catalog.similarity_properties`), every field at once
(:mod:`~properties.catalog.field_properties`) and the inequality literature's axioms
(:mod:`~properties.catalog.axioms`). This module lists them in :data:`ORDER`, the order
verdicts, known files and tables follow. The runner knows no property by name: adding one
is its entry in its family's module and its name in :data:`ORDER`, plus its pinned
verdicts in ``properties/knowledge/known/``.
"""

from __future__ import annotations

__all__ = ["ORDER", "CATALOG", "PROOF_RULES", "get_property", "catalog_frame"]

from typing import Any
from collections.abc import Iterable, Mapping

import pandas as pd

from .axioms import AXIOM_ENTRIES
from .continuity import CONTINUITY_ENTRIES
from .pair_axioms import PAIR_ENTRIES
from .welfare_axioms import WELFARE_ENTRIES
from .field_properties import FIELD_ENTRIES
from .outcome_properties import OUTCOME_ENTRIES
from .property import Property
from .similarity_properties import SIMILARITY_ENTRIES
from .user_properties import USER_ENTRIES

#: Every property's name, in the order verdicts, known files and tables list them.
ORDER = (
    "range",
    "defined",
    "anonymity",
    "zero-at-equality",
    "disparity-monotone",
    "pigou-dalton",
    "similarity-monotone",
    "similarity-sensitive",
    "effectiveness-sensitive",
    "similarity-zero",
    "rearrangement",
    "replication-invariance",
    "scale-invariance",
    "translation-invariance",
    "continuity",
    "lipschitz-continuity",
    "strict-transfer",
    "transfer-sensitivity",
    "subgroup-decomposability",
    "subgroup-consistency",
    "attainable-range",
    "lorenz-consistency",
    "equal-additions",
    "mirror-consistency",
    "envy-free-fairest",
    "dissimilar-independence",
    "similar-treated-alike",
    "strict-similarity-monotone",
    "dissimilar-replication",
    "deterministic",
)


def _in_order(families: Iterable[tuple[Mapping[str, Any], ...]], order: tuple[str, ...]) -> dict[str, Property]:
    """The entries of ``families`` as properties in ``order``; every entry placed once.

    Examples
    --------
    >>> _in_order([(dict(name="b"),), (dict(name="a"),)], ("a",))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the catalog's ORDER must name every entry once; not placed: b; ...
    """
    entries = {entry["name"]: entry for family in families for entry in family}
    unplaced, unknown = sorted(set(entries) - set(order)), sorted(set(order) - set(entries))
    if unplaced or unknown or len(set(order)) != len(order):
        raise ValueError(
            f"the catalog's ORDER must name every entry once; not placed: {', '.join(unplaced) or 'none'}; "
            f"without an entry: {', '.join(unknown) or 'none'}"
        )
    return {name: Property(**entries[name]) for name in order}


#: Every property by name, in :data:`ORDER`.
CATALOG = _in_order(
    (
        USER_ENTRIES,
        OUTCOME_ENTRIES,
        SIMILARITY_ENTRIES,
        FIELD_ENTRIES,
        CONTINUITY_ENTRIES,
        AXIOM_ENTRIES,
        WELFARE_ENTRIES,
        PAIR_ENTRIES,
    ),
    ORDER,
)

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
