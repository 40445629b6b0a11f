"""The measured power of the search, as stored: the table every search-only ``holds`` quotes.

``power_table.json`` (beside this module) holds the detection rate of every property per
example budget and the sound controls' false alarms, measured on the flaw corpus by
:mod:`properties.knowledge.power` (``python benchmarks/power.py --write``). The runner reads
it here, so quoting the table does not load the corpus that measured it.
"""

from __future__ import annotations

__all__ = ["POWER_TABLE", "measured_power"]

from typing import Any
import functools
import json
from pathlib import Path

POWER_TABLE = Path(__file__).resolve().parent / "power_table.json"
"""The measured table (``python benchmarks/power.py --write``) the verdicts quote."""


@functools.lru_cache(maxsize=1)
def _stored() -> dict[str, Any]:
    if not POWER_TABLE.is_file():
        return {}
    with open(POWER_TABLE, encoding="utf-8") as handle:
        return json.load(handle)


def measured_power(property_name: str, max_examples: int) -> tuple[float, int] | None:
    """Return the measured detection rate of ``property_name`` at the largest measured budget
    not above ``max_examples`` (with that budget), or None when none was measured.

    Examples
    --------
    >>> rate, budget = measured_power("range", 60)
    >>> 0.0 <= rate <= 1.0, budget <= 60
    (True, True)
    """
    table = _stored().get("detection", {})
    budgets = sorted(int(b) for b in table if int(b) <= max_examples)
    for budget in reversed(budgets):
        rate = table[str(budget)].get(property_name)
        if rate is not None:
            return float(rate), budget
    return None
