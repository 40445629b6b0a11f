"""The built-in measures that are expressions of the grammar, and how to find a measure's form.

Each entry of :data:`BUILTIN_FORMS` is tested equal to its built-in to 1e-12 on
random populations (``tests/test_grammar.py``), so a proof about the form is a
proof about the built-in.
"""

from __future__ import annotations

__all__ = ["BUILTIN_FORMS", "builtin_form"]

from ..metadata import Measure
from .forms import IndexForm, PairForm
from .measure import form_of

BUILTIN_FORMS: dict[str, PairForm | IndexForm] = {
    "puf": PairForm(weight="sim", gap="abs"),
    "puf-as-printed": PairForm(weight="sim", gap="abs", coefficient=2.0),
    "sd": PairForm(gap="square", aggregation="all-pairs", coefficient=0.5, root=True),
    "gini": PairForm(gap="abs", aggregation="all-pairs", normalisation="mean", coefficient=0.5),
    "ge-0": IndexForm("ge", 0.0),
    "ge-1": IndexForm("ge", 1.0),
    "ge-2": IndexForm("ge", 2.0),
    "atkinson-0.5": IndexForm("atkinson", 0.5),
    "atkinson-1": IndexForm("atkinson", 1.0),
    "atkinson-2": IndexForm("atkinson", 2.0),
    "cv": IndexForm("cv"),
    "jain": IndexForm("jain"),
    "hoover": IndexForm("hoover"),
    "variance": PairForm(gap="square", aggregation="all-pairs", coefficient=0.5),
    "mean-difference": PairForm(gap="abs"),
    "lipschitz-violation": PairForm(gap="violation", lipschitz=1.0),
    "lipschitz-excess": PairForm(gap="excess", lipschitz=1.0),
}
"""Built-in measure name -> the grammar form it equals (Gini = ½·(1/m²)Σ_{u,v}|ΔS| / μ, ...)."""


def builtin_form(measure: Measure) -> PairForm | IndexForm | None:
    """The grammar form of ``measure``: its own, or that of the built-in it is; else None.

    A registered measure counts as the built-in only when it is that very
    function (``puf.register(puf.gini, name="gini-2")`` with other options is not).

    Examples
    --------
    >>> import puf
    >>> builtin_form(puf.as_measure("gini")).normalisation
    'mean'
    >>> builtin_form(puf.as_measure(lambda effectiveness: 0.0)) is None
    True
    """
    from ..registry import builtin_measures

    own = form_of(measure.function)
    if own is not None:
        return own
    form = BUILTIN_FORMS.get(measure.name)
    if form is None:
        return None
    builtin = {m.name: m for m in builtin_measures()}.get(measure.name)
    return form if builtin is not None and builtin.function is measure.function else None
