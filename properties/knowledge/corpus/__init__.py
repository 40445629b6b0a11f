"""The flaw corpus: measures with planted flaws, and sound controls, to measure search power.

Each entry is a dict with ``name``, ``measure`` (a :class:`puf.Measure`),
``family``, ``flaw`` (what was planted) and ``expected`` (the verdicts the
harness should reach: for a flawed measure the cells its flaw breaks, for a
control its full row, the true verdicts of the measure it implements).
Families: :mod:`~properties.knowledge.corpus.normalisation`, :mod:`~properties.knowledge.corpus.thresholds`,
:mod:`~properties.knowledge.corpus.weighting`, :mod:`~properties.knowledge.corpus.special`,
:mod:`~properties.knowledge.corpus.inequality`, :mod:`~properties.knowledge.corpus.transfers_and_groups`,
:mod:`~properties.knowledge.corpus.reach`, :mod:`~properties.knowledge.corpus.jumps` and
:mod:`~properties.knowledge.corpus.welfare` (flaws), :mod:`~properties.knowledge.corpus.controls`.
``puf power`` runs them (:mod:`properties.knowledge.power`).
"""

from __future__ import annotations

__all__ = ["FLAWED", "CONTROLS", "CORPUS", "get_entry"]

from typing import Any
from . import (
    inequality,
    jumps,
    normalisation,
    pairs,
    reach,
    special,
    thresholds,
    transfers_and_groups,
    weighting,
    welfare,
)
from .controls import CONTROLS

#: The corpus entries with planted flaws, family by family.
FLAWED = [
    *normalisation.FLAWS,
    *thresholds.FLAWS,
    *weighting.FLAWS,
    *special.FLAWS,
    *inequality.FLAWS,
    *transfers_and_groups.FLAWS,
    *reach.FLAWS,
    *jumps.FLAWS,
    *welfare.FLAWS,
    *pairs.FLAWS,
]
#: Every corpus entry (planted flaws and sound controls) by name.
CORPUS = {entry["name"]: entry for entry in (*FLAWED, *CONTROLS)}


def get_entry(name: str) -> dict[str, Any]:
    """Return the corpus entry called ``name``.

    Examples
    --------
    >>> entry = get_entry("puf-similarity-cutoff")
    >>> entry["expected"], entry["measure"].reads
    ({'lipschitz-continuity': 'violated'}, ('effectiveness', 'similarity'))
    >>> len(FLAWED) >= 50, len(CONTROLS) >= 10
    (True, True)
    """
    try:
        return CORPUS[name]
    except KeyError:
        raise ValueError(f"unknown corpus entry {name!r}") from None
