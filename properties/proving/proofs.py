"""Proofs of a property for a grammar measure, and how they combine with the search's verdict.

:func:`prove` tries the composition rules (:mod:`properties.proving.proof_rules`, every
m) and, with ``mode="smt"``, the fixed-m solver (:mod:`properties.proving.smt`).
:func:`combine` joins a proof with the search's verdict: a ``proven`` cell is
the search's ``holds`` plus the proof's scope, never weaker; a solver's
counterexample (already confirmed by the judge :func:`prove` is handed) replaces a
search that found none; a solver that stops leaves the search's verdict, with a note.
"""

from __future__ import annotations

__all__ = ["PROOF_MODES", "Proof", "prove", "rule_argument", "settles", "combine"]

from collections.abc import Callable
from typing import Any, TypeGuard
import functools
from dataclasses import dataclass

from puf.grammar import builtin_form
from puf.metadata import Measure

from ..cases.case import Case
from ..catalog.property import Property
from .proof_rules import ProofRule

PROOF_MODES = ("none", "rules", "smt")
"""``none``: search only; ``rules``: composition rules (every m); ``smt``: rules, then z3 for fixed m."""


@dataclass(frozen=True)
class Proof:
    """A proof's outcome for one cell: ``status`` in {"proven", "violated", "unknown"}.

    Examples
    --------
    >>> import puf
    >>> from puf.properties import get_property
    >>> p = prove(puf.as_measure("puf"), get_property("anonymity"))
    >>> p.status, p.scope
    ('proven', 'for every m, by symmetric aggregation')
    """

    status: str
    scope: str = ""
    argument: str = ""
    example: dict | None = None


def rule_argument(measure: Measure, form: Any, prop: Property) -> tuple[str, str] | None:
    """``(rule name, argument)`` proving ``prop`` for every m by its composition rule, or None.

    The rule is the property's ``proof_rule`` (a catalog property has the one of its entry); a
    plain function as rule is cited by its name.

    Examples
    --------
    >>> import puf
    >>> from puf.grammar import builtin_form
    >>> from puf.properties import get_property
    >>> m = puf.as_measure("puf")
    >>> rule_argument(m, builtin_form(m), get_property("anonymity"))[0]
    'symmetric aggregation'
    >>> rule_argument(m, builtin_form(m), get_property("pigou-dalton")) is None
    True
    """
    rule = prop.proof_rule
    if rule is None or form is None:
        return None
    if not isinstance(rule, ProofRule):
        rule = ProofRule(getattr(rule, "__name__", "composition rule").replace("_", " "), rule)
    return rule.argument(measure, form)


def check_mode(mode: str) -> str:
    """Return ``mode`` or raise ValueError naming it (one of :data:`PROOF_MODES`)."""
    if mode not in PROOF_MODES:
        raise ValueError(f"proofs must be one of {', '.join(PROOF_MODES)}, got {mode!r}")
    return mode


def prove(
    measure: Measure,
    prop: Property,
    *,
    mode: str = "rules",
    max_users: int = 4,
    timeout: float = 5.0,
    confirm: Callable[[Measure, Property, Case], dict[str, Any] | None] | None = None,
) -> Proof | None:
    """Prove (or refute) one property of ``measure`` where its grammar form allows; else None.

    Parameters
    ----------
    measure : puf.Measure
    prop : Property
        The property (:func:`puf.properties.get_property` finds a catalog one by name).
    mode : {"rules", "smt", "none"}, default "rules"
    max_users : int, default 4
        The largest m the solver is asked about.
    timeout : float, default 5.0
        Seconds per solver call.
    confirm : callable, optional
        ``confirm(measure, prop, case)``: the judge's snapshot of a solver's counterexample when
        the judge confirms it, else None (the runner's :func:`~puf.properties.running.runner.confirmed`).
        Required with ``mode="smt"``: a solver's counterexample counts only once the judge confirms it.

    Returns
    -------
    Proof or None
        None when the measure has no grammar form, or no rule applies and the
        solver was not asked.

    Raises
    ------
    ValueError
        If ``mode`` is not one of :data:`PROOF_MODES`, or is "smt" without ``confirm``.
    """
    check_mode(mode)
    if mode == "smt" and confirm is None:
        raise ValueError("confirm is required with mode='smt' (the judge of a solver's counterexample), got None")
    form = builtin_form(measure)
    if form is None or mode == "none":
        return None
    rule = rule_argument(measure, form, prop)
    if rule is not None:
        return Proof("proven", f"for every m, by {rule[0]}", rule[1])
    if mode != "smt" or confirm is None:
        return None
    from .smt import smt_decide

    judged = functools.partial(confirm, measure, prop)
    result = smt_decide(measure, form, prop, confirm=judged, max_users=max_users, timeout=timeout)
    if result is None:
        return None
    return Proof(result.status, result.scope, result.note, result.example)


def settles(proof: Proof | None) -> TypeGuard[Proof]:
    """True when ``proof`` settles its cell for every m, so no search is needed (a scope for
    m ≤ 4 leaves larger m to the search; a refutation is confirmed by the judge first).

    Examples
    --------
    >>> settles(Proof("proven", "for every m, by symmetric aggregation")), settles(Proof("proven", "for m ≤ 4, by SMT"))
    (True, False)
    >>> settles(None)
    False
    """
    return proof is not None and proof.status == "proven" and proof.scope.startswith("for every m")


def combine(
    status: str, reason: str, example: dict[str, Any] | None, proof: Proof | None
) -> tuple[str, str, dict[str, Any] | None, str | None]:
    """``(status, reason, example, scope)`` of a cell from the search's verdict and a proof.

    Examples
    --------
    >>> combine("holds", "no counterexample in 60 examples", None,
    ...         Proof("proven", "for every m, by symmetric aggregation", "a symmetric sum"))[:2]
    ('proven', 'proven for every m, by symmetric aggregation; no counterexample in 60 examples')
    >>> combine("holds", "no counterexample", None, Proof("unknown", "", "m = 2: unknown after 5 s"))[1]
    'no counterexample; SMT: m = 2: unknown after 5 s'
    """
    if proof is None:
        return status, reason, example, None
    if proof.status == "proven":
        note = f" (SMT stopped at {proof.argument})" if proof.scope.endswith("SMT") and proof.argument else ""
        if status == "holds":
            return "proven", f"proven {proof.scope}{note}; {reason}", example, proof.scope
        if status == "violated":  # the judge's counterexample outranks a proof: say so loudly
            return status, f"{reason} (contradicts the proof {proof.scope})", example, None
        return status, reason, example, None
    if proof.status == "violated" and status == "violated":
        return status, reason, example, None  # the search's shrunk counterexample is the smaller
    if proof.status == "violated":
        violation = (proof.example or {}).get("violation")
        shown = "" if violation is None else f", violation {violation:.3g}"
        return ("violated", f"counterexample {proof.scope}, confirmed numerically{shown}", proof.example, None)
    return status, f"{reason}; SMT: {proof.argument}", example, None
