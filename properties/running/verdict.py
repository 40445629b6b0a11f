"""The verdict of one property on one measure: :class:`Verdict`, the record the runner
(:func:`puf.properties.verdicts`) returns and every reader of verdicts takes (the printed verdicts,
the matrix, the pinned files), so that none of them imports the runner for its type.
"""

from __future__ import annotations

__all__ = ["Verdict"]

from typing import Any
import math
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Verdict:
    """The verdict of one property on one measure.

    Attributes
    ----------
    measure, property : str
        Names.
    status : {"proven", "holds", "violated", "not-found", "undefined", "not-applicable"}
        ``proven``: no counterexample, and a proof (``scope`` says for which m
        and how, :mod:`properties.proving.proofs`); ``holds``: no counterexample (universal) or a witness found
        (existential); ``violated``: a minimal counterexample (universal), or
        a proof that no witness exists (existential: the measure reads none of the
        fields the change touches); ``not-found``: a property that asks for a
        witness (the sensitivities; ``attainable-range`` at some m) found none
        in the candidates its reason counts, the search's and a stronger one's
        (a failed search is no proof); ``undefined``: the measure timed out, or
        raised or was NaN or infinite on every example (elsewhere such examples
        are set aside, counted in ``n_undefined``, and ``defined`` reports them),
        or every example was undecided: a strict step within the resolution of a
        coarser float the measure returns (float32), too small to call either way
        (the reason says which; a change the measure does not read is no such
        step: its value cannot move, and it is judged as a float64 one);
        ``not-applicable``: no example admitted the transformation.
    kind, level : str
        Universal or existential; checked on ``score`` populations or ``world``s.
    n_examples : int
        Examples checked (trivial and undefined ones not counted).
    n_undefined : int
        Examples set aside because the measure returned NaN or ±inf or raised on
        them (the ``defined`` property reports those), or because their judgment
        was undecided (a holds' reason counts those).
    reason : str
        One line saying why.
    example : dict or None
        The counterexample, witness or offending input: ``change``,
        ``before``/``after`` fields, ``value_before``/``value_after``, ``violation``.
    seconds : float
        Wall time of the check.
    sizes : tuple of int
        The numbers of users m of the examples checked.
    power : float or None
        The measured detection rate of this property's search at this budget
        (share of the flaw corpus's planted flaws of the property it finds,
        ``properties/knowledge/power_table.json``); None where not measured.
    max_examples : int or None
        The example budget it was checked at (Hypothesis examples per property).
    random_state : int or None
        The seed it was checked with (None: Hypothesis' own randomness).
    scope : str or None
        For a ``proven`` cell, what the proof covers: "for every m, by <rule>"
        or "for m ≤ 4, by SMT"; None otherwise.

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> v = verdicts("sd", properties=["similarity-sensitive"], max_examples=10)[0]
    >>> v.status, v.to_dict()["property"]
    ('violated', 'similarity-sensitive')
    """

    measure: str
    property: str
    status: str
    kind: str
    level: str
    n_examples: int
    n_undefined: int
    reason: str
    example: dict | None = None
    seconds: float = 0.0
    sizes: tuple = ()
    power: float | None = None
    max_examples: int | None = None
    random_state: int | None = None
    scope: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (NaN and infinities as the strings "nan", "inf", "-inf").

        Examples
        --------
        >>> from puf.properties import verdicts
        >>> v = verdicts("gini", properties=["defined"], max_examples=10)[0]
        >>> v.to_dict()["example"]["value_before"]
        'nan'
        """
        return _json_ready(asdict(self))


def _json_ready(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value
