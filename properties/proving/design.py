"""The measure designer: search the grammar for the measures that meet chosen properties.

:func:`design` enumerates a grammar (:func:`puf.grammar.enumerate_forms`) and
decides each candidate's cells in order, the required properties first, then
the forbidden ones: by proof where one exists (a composition rule, or z3 for
m ≤ 4 with ``proofs="smt"``), by the search otherwise. A candidate is rejected
at its first failing cell (with that cell's counterexample); the others get
their full catalog row and are ranked by how many of their cells are proven.
"""

from __future__ import annotations

__all__ = ["design", "INEQUALITY"]

from typing import Any
from collections.abc import Mapping, Sequence

from puf import as_measure
from puf.grammar import BUILTIN_FORMS, PairForm, enumerate_forms, grammar_measure
from puf.metadata import Measure
from puf.parallel import map_tasks

from ..running.budget import DEFAULT_TIME_LIMIT, example_budget
from ..catalog.listing import CATALOG, get_property
from .proofs import check_mode, combine, prove, settles
from ..running.runner import confirmed, verdicts
from .candidate import Candidate, Cell


INEQUALITY = "inequality"
"""``kinds`` value for the inequality forms only: the candidates that read effectiveness alone."""


# Pair forms that are positive multiples of an index form's built-in: (2/m²)Σ_{u<v}(ΔS)²/μ² = 2σ²/μ²
# = 4·GE(2), and its root is √2·CV (tests/test_grammar.py checks both).
_MULTIPLES = {
    PairForm(gap="square", aggregation="all-pairs", normalisation="mean"): "ge-2",
    PairForm(gap="square", aggregation="all-pairs", normalisation="mean", root=True): "cv",
}


def _unit(form: Any) -> Any:
    """``form`` with its coefficient 1 (a form without one as it is)."""
    from dataclasses import replace

    return replace(form, coefficient=1.0) if hasattr(form, "coefficient") else form


def _alias(form: Any) -> str:
    """The built-in this form is a positive multiple of ("∝ gini"), or ""."""
    unit = _unit(form)
    if unit in _MULTIPLES:
        return f"∝ {_MULTIPLES[unit]}"
    for name, builtin in BUILTIN_FORMS.items():
        if _unit(builtin) == unit:
            return name if builtin == form else f"∝ {name}"
    return ""


def decide(
    measure: Measure,
    prop: str,
    *,
    proofs: str,
    max_examples: int,
    random_state: int | None,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> Cell:
    """One cell: by proof when one settles it, else by the search (proofs off)."""
    entry = get_property(prop)
    proof = prove(measure, entry, mode=proofs, confirm=confirmed)
    if settles(proof):
        return Cell(prop, "proven", "proof", proof.argument, proof.scope)
    if proof is not None and proof.status == "violated":
        return Cell(prop, "violated", "proof", f"counterexample {proof.scope}", None, proof.example)
    # A fixed-m proof covers small m only: the search decides, and the proof adds its scope.
    (v,) = verdicts(
        measure,
        [entry],
        max_examples=max_examples,
        random_state=random_state,
        proofs="none",
        time_limit=time_limit,
    )
    status, reason, example, scope = combine(v.status, v.reason, v.example, proof)
    return Cell(prop, status, "search" if scope is None else "search and proof", reason, scope, example)


def _meets(cell: Cell, wanted: bool) -> bool:
    holding = cell.status in ("proven", "holds")
    return holding if wanted else cell.status == "violated"


def _one(job: tuple[Any, tuple[str, ...], tuple[str, ...], dict[str, Any]]) -> Candidate:
    form, require, forbid, options = job
    measure = as_measure(grammar_measure(form))
    candidate = Candidate(measure.name, form, _alias(form))
    for prop, wanted in [(p, True) for p in require] + [(p, False) for p in forbid]:
        cell = decide(measure, prop, **options)
        candidate.cells.append(cell)
        if not _meets(cell, wanted):
            candidate.failed = cell
            return candidate
    rest = [p for p in CATALOG if p not in require and p not in forbid]
    candidate.cells += [decide(measure, p, **options) for p in rest]
    return candidate


def design(
    require: Sequence[str],
    forbid: Sequence[str] = (),
    *,
    grammar: Mapping[str, Any] | None = None,
    kinds: Sequence[str] | str = ("pair", "index"),
    proofs: str = "smt",
    max_examples: int | None = None,
    random_state: int | None = 0,
    time_limit: float = DEFAULT_TIME_LIMIT,
    n_jobs: int = 1,
    progress: bool = False,
) -> tuple[list[Candidate], list[Candidate]]:
    """Return ``(accepted, rejected)`` candidates of the grammar for the required properties.

    Parameters
    ----------
    require, forbid : sequence of str
        Catalog properties that must hold (``holds`` or ``proven``) / must be violated.
    grammar : dict, optional
        Default :data:`puf.grammar.DEFAULT_GRAMMAR`.
    kinds : tuple of {"pair", "index"} or "inequality", default both
        Which forms to enumerate; "inequality": every form that reads effectiveness alone.
    proofs : {"smt", "rules", "none"}, default "smt"
        How cells are proven before the search is asked (see :func:`properties.verdicts`).
    max_examples, random_state
        The search's budget and seed, for the cells no proof settles.
    time_limit : float, default :data:`~puf.properties.running.budget.DEFAULT_TIME_LIMIT`
        Seconds allowed per call of a candidate.
    n_jobs : int, default 1
        Worker processes over candidates.
    progress : bool, default False
        A tqdm bar over candidates.

    Returns
    -------
    (list of Candidate, list of Candidate)
        Accepted, ranked by proven cells (most first), then by name; rejected,
        in grid order, each with ``failed``.

    Examples
    --------
    >>> ok, no = design(["scale-invariance"], grammar={"index": {"ge": [2.0], "cv": [None]}},
    ...                 proofs="rules", max_examples=20)
    >>> sorted(c.name for c in ok), no
    (['cv', 'ge(2)'], [])
    """
    for prop in [*require, *forbid]:
        get_property(prop)
    check_mode(proofs)
    max_examples = example_budget(max_examples)
    if kinds == INEQUALITY:
        forms = [f for f in enumerate_forms(grammar) if f.reads == ("effectiveness",)]
    else:
        forms = enumerate_forms(grammar, kinds=tuple(kinds))
    options = dict(proofs=proofs, max_examples=max_examples, random_state=random_state, time_limit=time_limit)
    jobs = [(f, tuple(require), tuple(forbid), options) for f in forms]
    candidates = map_tasks(_one, jobs, n_jobs=n_jobs, progress=progress, desc="puf design", unit="form")
    accepted = sorted((c for c in candidates if c.failed is None), key=lambda c: (-c.n_proven, c.name))
    return accepted, [c for c in candidates if c.failed is not None]
