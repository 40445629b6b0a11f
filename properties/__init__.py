"""properties: the property catalog, Hypothesis strategies and the verdict runner.

Put any fairness measure through the catalog with :func:`verdicts`; see
:data:`CATALOG` for the properties. Attributes load lazily so that the pytest
plugin (:mod:`properties.running.plugin`) stays inert and cheap unless ``--measure`` is
given.
"""

from __future__ import annotations

from typing import Any
import importlib

# Every public name, with the module it lives in (and so, in this order, ``__all__``).
_HOME = {
    "CATALOG": "catalog.listing",
    "Property": "catalog.property",
    "get_property": "catalog.listing",
    "catalog_frame": "catalog.listing",
    "Verdict": "running.verdict",
    "STATUSES": "catalog.property",
    "verdicts": "running.matrix",
    "all_verdicts": "running.matrix",
    "verdicts_in_background": "running.matrix",
    "verdict_matrix": "running.matrix",
    "verdict_frame": "running.matrix",
    "effectiveness_vectors": "cases.strategies",
    "similarity_matrices": "cases.strategies",
    "populations": "cases.strategies",
    "worlds": "cases.strategies",
}

__all__ = list(_HOME)


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
