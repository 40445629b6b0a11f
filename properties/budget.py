"""The example budget: ONE definition shared by ``puf check``, ``pytest --measure``,
``puf report`` (full and ``--quick``) and ``puf power``.

A budget is the number of Hypothesis examples per property, the same for every
property. The same seed and budget give the same verdicts everywhere.
"""

__all__ = ["DEFAULT_MAX_EXAMPLES", "QUICK_MAX_EXAMPLES"]

DEFAULT_MAX_EXAMPLES = 60
"""Examples per property of ``puf check``, ``pytest --measure`` and the full report."""

QUICK_MAX_EXAMPLES = 20
"""Examples per property of ``puf report --quick``."""
