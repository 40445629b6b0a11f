"""A measure's pinned verdicts: a known file read back and compared with a new run.

``puf check MEASURE --known FILE`` writes FILE (the format of
``properties/knowledge/known/README.md``); ``pytest --measure MEASURE --known FILE``
reads it with :func:`read_pinned`, hands it to the runner (its stored examples
are replayed before anything else, :func:`puf.properties.verdicts`'s
``known``), and judges each new verdict against its pinned one with
:func:`pinned_change`: the same status, and for a cell backed by a stored
example (a counterexample, a witness, an undefined input) the verdict found
again on that very example.

A file may pin fewer properties than the catalog holds (it was written before a
property was added): those cells are unpinned, and the runner's verdict stands
alone (:func:`unpinned_failure`). :func:`cell_reason` is the reason every display
of a pinned cell shows: the stored one, else the one derived from what the
measure reads (:mod:`properties.knowledge.known.derived`), else the proof's scope.
"""

from __future__ import annotations

__all__ = ["read_pinned", "pinned_change", "unpinned_failure", "from_pinned", "cell_reason"]

from collections.abc import Mapping
from typing import Any
import os
import json
from pathlib import Path
from .known import PINNED_SOURCE
from ..catalog.property import STATUSES, Property
from ..running.verdict import Verdict


def read_pinned(
    path: str | os.PathLike[str], *, catalog: Mapping[str, Property], measure: str | None = None
) -> dict[str, Any]:
    """Read and check a pinned file; return its content.

    Parameters
    ----------
    path : str or pathlib.Path
        A known file, as ``puf check MEASURE --known FILE`` writes it.
    catalog : dict of str to Property
        The properties it may pin (:data:`puf.properties.CATALOG`).
    measure : str, optional
        The name of the measure it must pin (its ``"measure"`` field).

    Returns
    -------
    dict
        ``measure``, ``verdicts``, ``reasons`` and ``examples``.

    Raises
    ------
    ValueError
        Naming the file and the problem: missing, not JSON, not the known-file
        format, an unknown property or status, or pinned for another measure.

    Examples
    --------
    >>> import tempfile, os
    >>> from puf.properties import CATALOG
    >>> path = os.path.join(tempfile.mkdtemp(), "mine.known.json")
    >>> _ = open(path, "w").write('{"measure": "gap", "verdicts": {"range": "holds"}, '
    ...                           '"reasons": {}, "examples": {}}')
    >>> read_pinned(path, catalog=CATALOG, measure="gap")["verdicts"]
    {'range': 'holds'}
    >>> read_pinned(path, catalog=CATALOG, measure="other")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --known ...mine.known.json: pins measure 'gap', not 'other'
    """
    where = f"--known {path}"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{where}: no such file (write it with `puf check MEASURE --known {path}`)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{where}: cannot read it as JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("measure"), str):
        raise ValueError(f"{where}: must be an object with a string 'measure'")
    for key in ("verdicts", "reasons", "examples"):
        if not isinstance(data.get(key, {}), dict):
            raise ValueError(f"{where}: {key!r} must be an object")
        data.setdefault(key, {})
    for prop, status in data["verdicts"].items():
        if prop not in catalog:
            raise ValueError(f"{where}: unknown property {prop!r}; known: {', '.join(catalog)}")
        if status not in STATUSES:
            raise ValueError(f"{where}: verdict of {prop!r} must be one of {', '.join(STATUSES)}, got {status!r}")
    for prop, example in data["examples"].items():
        if prop not in catalog or not isinstance(example, dict) or not isinstance(example.get("before"), dict):
            raise ValueError(
                f"{where}: example of {prop!r} must be a known property's example with a 'before' population"
            )
    if measure is not None and data["measure"] != measure:
        raise ValueError(f"{where}: pins measure {data['measure']!r}, not {measure!r}")
    return data


def from_pinned(verdict: Verdict) -> bool:
    """True when the verdict's example is a pinned file's stored example, replayed.

    Examples
    --------
    >>> from puf.properties.running.verdict import Verdict
    >>> v = Verdict("gap", "range", "violated", "universal", "score", 1, 0, "r",
    ...             {"change": "known example (pinned): S = (0, 1)"})
    >>> from_pinned(v)
    True
    """
    change = (verdict.example or {}).get("change") or ""
    return change.startswith(f"known example ({PINNED_SOURCE})")


def _now(verdict: Verdict) -> str:
    """What the new verdict says, in one line."""
    return f"now {verdict.status}: {verdict.reason}"


def pinned_change(
    verdict: Verdict, pinned: Mapping[str, Any], *, path: str | os.PathLike[str], spec: str | None = None
) -> str | None:
    """Return what changed in one cell against its pinned verdict, or None when nothing did.

    Parameters
    ----------
    verdict : Verdict
        This run's verdict (obtained with the pinned file's examples replayed first).
    pinned : dict
        The pinned file (:func:`read_pinned`); it pins ``verdict.property``.
    path : str
        The file, named in the message.
    spec : str, optional
        The measure as the command line gave it (``FILE.py:FUNCTION``), for the re-pin hint;
        default the pinned measure's name.

    Returns
    -------
    str or None
        A message naming the cell, the pinned and the new verdict: a status that
        differs, or a stored example that no longer shows it (the search may have
        found another).

    Examples
    --------
    >>> from puf.properties.running.verdict import Verdict
    >>> pinned = {"measure": "gap", "verdicts": {"range": "holds"}, "examples": {}}
    >>> v = Verdict("gap", "range", "violated", "universal", "score", 1, 0, "value 2 > 1")
    >>> print(pinned_change(v, pinned, path="gap.json"))
    gap / range: pinned holds in gap.json, now violated: value 2 > 1
    >>> pinned_change(v, {**pinned, "verdicts": {"range": "violated"}}, path="gap.json") is None
    True
    """
    prop = verdict.property
    status = pinned["verdicts"][prop]
    cell = f"{pinned['measure']} / {prop}"
    if verdict.status != status:
        lost = " (its stored example no longer shows it)" if prop in pinned["examples"] else ""
        return f"{cell}: pinned {status} in {path}{lost}, {_now(verdict)}"
    # A verdict without an example (a proof's) has nothing for the stored one to show.
    if prop in pinned["examples"] and status != "not-applicable" and verdict.example and not from_pinned(verdict):
        role = "witness" if verdict.kind == "existential" else "counterexample"
        return (
            f"{cell}: pinned {status} in {path}, and still {status}, but its stored {role} "
            f"no longer shows it (the search found another: {verdict.reason}); re-pin it "
            f"with `puf check {spec or pinned['measure']} --known {path}`"
        )
    return None


def unpinned_failure(verdict: Verdict, *, catalog: Mapping[str, Property]) -> str | None:
    """Why an unpinned verdict fails a test, or None when it passes.

    ``violated`` and ``undefined`` fail, except on an informational property of ``catalog``
    (:data:`puf.properties.CATALOG`: scale and translation invariance describe a measure; neither
    outcome is a defect).

    Examples
    --------
    >>> from puf.properties import CATALOG
    >>> from puf.properties.running.verdict import Verdict
    >>> v = Verdict("gap", "scale-invariance", "violated", "universal", "score", 1, 0, "r")
    >>> unpinned_failure(v, catalog=CATALOG) is None
    True
    >>> unpinned_failure(v.__class__(**{**v.__dict__, "property": "range"}), catalog=CATALOG)
    "property 'range' is violated"
    """
    prop = catalog.get(verdict.property)
    if verdict.status not in ("violated", "undefined") or (prop is not None and prop.informational):
        return None
    return f"property {verdict.property!r} is {verdict.status}"


def cell_reason(
    data: Mapping[str, Any], prop: str, *, catalog: Mapping[str, Property], measure: Any = None
) -> str | None:
    """The reason a pinned cell shows: its stored reason, else the one derived from what the
    measure reads (:func:`derived_reason`), else its proof's scope; None when it has none of them
    (the run's own reason is shown then: what the search covered, and its measured power).

    Parameters
    ----------
    data : dict
        A known file (a built-in's or a researcher's pinned file).
    prop : str
        A property it pins.
    catalog : dict of str to Property
        The catalog (:data:`puf.properties.CATALOG`): a property no longer in it has no derived reason.
    measure : str, callable or Measure, optional
        The measure (default: ``data["measure"]`` where it is a registered name).

    Examples
    --------
    >>> from puf.properties import CATALOG
    >>> from puf.properties.knowledge.known import load_known
    >>> cell_reason(load_known("sd"), "similarity-monotone", catalog=CATALOG)
    'the measure reads no similarity, so the change leaves the value unchanged'
    >>> cell_reason(load_known("sd"), "translation-invariance", catalog=CATALOG)
    'a shift leaves every gap unchanged'
    >>> cell_reason({"measure": "mine", "verdicts": {"range": "holds"}, "reasons": {},
    ...              "proofs": {"range": "for every m, by bounds of the blocks"}}, "range", catalog=CATALOG)
    'proven for every m, by bounds of the blocks'
    """
    stored = data.get("reasons", {}).get(prop)
    if stored:
        return str(stored)
    status = data.get("verdicts", {}).get(prop)
    derived = None if status is None else _derived_or_none(measure or data.get("measure"), catalog.get(prop), status)
    if derived:
        return derived
    scope = data.get("proofs", {}).get(prop)
    return f"proven {scope}" if scope else None


def _derived_or_none(measure: Any, prop: Property | None, status: str) -> str | None:
    """:func:`derived_reason`, or None for a measure that is not registered (a pinned file's name)
    or a property no longer in the catalog (None)."""
    from puf import MEASURES

    from .known.derived import derived_reason

    if isinstance(measure, str) and measure not in MEASURES:
        return None
    if prop is None:
        return None
    return derived_reason(measure, prop, status)
