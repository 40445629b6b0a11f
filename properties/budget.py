"""The example budget: ONE definition shared by ``puf check``, ``pytest --measure``,
``puf report`` (full and ``--quick``) and ``puf power``.

A budget is the number of Hypothesis examples per property before the
property's weight: the measured power table (``puf power``) showed which
properties need more examples than others to find planted flaws, and those
get a larger share (:data:`PROPERTY_WEIGHTS`). The same seed and budget give
the same verdicts everywhere.
"""

__all__ = ["DEFAULT_MAX_EXAMPLES", "QUICK_MAX_EXAMPLES", "PROPERTY_WEIGHTS", "examples_for"]

DEFAULT_MAX_EXAMPLES = 60
"""Examples per property of ``puf check``, ``pytest --measure`` and the full report."""

QUICK_MAX_EXAMPLES = 20
"""Examples per property of ``puf report --quick``."""

PROPERTY_WEIGHTS = {}
"""Multiplier of the budget per property, from the power table (1 when absent)."""


def examples_for(property_name, max_examples):
    """Return the number of examples ``property_name`` gets at budget ``max_examples``.

    Examples
    --------
    >>> examples_for("range", 60)
    60
    >>> examples_for("range", 1)
    1
    """
    return max(1, round(max_examples * PROPERTY_WEIGHTS.get(property_name, 1.0)))
