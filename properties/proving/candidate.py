"""What the designer decides: a :class:`Candidate` form of the grammar and its decided :class:`Cell`
of each property, the records :mod:`properties.proving.design` fills and
:mod:`properties.proving.design_display` shows (so the display does not import the designer).
"""

from __future__ import annotations

__all__ = ["Cell", "Candidate"]

from typing import Any
import math
from dataclasses import asdict, dataclass, field

from puf.grammar import IndexForm, PairForm


@dataclass(frozen=True)
class Cell:
    """One decided cell: status, how it was decided ("proof" or "search"), scope, reason, example."""

    property: str
    status: str
    by: str
    reason: str = ""
    scope: str | None = None
    example: dict[str, Any] | None = None


@dataclass
class Candidate:
    """A form of the grammar with its decided cells; ``failed`` is its first failing cell, if any."""

    name: str
    form: PairForm | IndexForm
    alias: str = ""
    cells: list[Cell] = field(default_factory=list)
    failed: Cell | None = None

    @property
    def n_proven(self) -> int:
        return sum(c.status == "proven" for c in self.cells)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the form's options, the cells, the first failing cell."""
        return _finite_or_text(
            {
                "name": self.name,
                "alias": self.alias,
                "kind": type(self.form).__name__,
                "form": asdict(self.form),
                "n_proven": self.n_proven,
                "cells": [asdict(c) for c in self.cells],
                "failed": None if self.failed is None else asdict(self.failed),
            }
        )


def _finite_or_text(value: Any) -> Any:
    """``value`` with NaN and infinities as the strings "nan", "inf", "-inf" (as verdicts are written)."""
    if isinstance(value, dict):
        return {k: _finite_or_text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_text(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value
