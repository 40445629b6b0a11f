"""The flaw corpus: measures with planted flaws, and sound controls, to measure search power.

Each entry is a dict with ``name``, ``measure`` (a :class:`puf.Measure`),
``family``, ``flaw`` (what was planted) and ``expected`` (the verdicts the
harness should reach: for a flawed measure the cells its flaw breaks, for a
control its full row, the true verdicts of the measure it implements).
Families: :mod:`~properties.corpus.normalisation`, :mod:`~properties.corpus.thresholds`,
:mod:`~properties.corpus.weighting`, :mod:`~properties.corpus.special`,
:mod:`~properties.corpus.inequality`, :mod:`~properties.corpus.axioms` and
:mod:`~properties.corpus.reach` (flaws), :mod:`~properties.corpus.controls`.
``puf power`` runs them (:mod:`properties.power`).
"""

from __future__ import annotations

__all__ = ["FLAWED", "CONTROLS", "CORPUS", "get_entry"]

from typing import Any
from . import axioms, inequality, normalisation, pair_axioms, reach, special, thresholds, weighting
from .controls import CONTROLS

#: The corpus entries with planted flaws, family by family.
FLAWED = [
    *normalisation.FLAWS,
    *thresholds.FLAWS,
    *weighting.FLAWS,
    *special.FLAWS,
    *inequality.FLAWS,
    *axioms.FLAWS,
    *reach.FLAWS,
    *pair_axioms.FLAWS,
]
#: Every corpus entry (planted flaws and sound controls) by name.
CORPUS = {entry["name"]: entry for entry in (*FLAWED, *CONTROLS)}


def get_entry(name: str) -> dict[str, Any]:
    """Return the corpus entry called ``name``.

    Examples
    --------
    >>> entry = get_entry("puf-similarity-cutoff")
    >>> entry["expected"], entry["measure"].reads
    ({'continuity': 'violated'}, ('effectiveness', 'similarity'))
    >>> len(FLAWED) >= 50, len(CONTROLS) >= 10
    (True, True)
    """
    try:
        return CORPUS[name]
    except KeyError:
        raise ValueError(f"unknown corpus entry {name!r}") from None
