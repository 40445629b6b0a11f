"""The verdict matrix of a report, and the one JSON schema of every verdict file.

``puf report`` writes ``properties.json`` and ``puf check --json FILE`` writes
FILE in one schema (:func:`verdict_document`)::

    {"note": "how the verdicts were obtained",
     "verdicts": [Verdict.to_dict() without "seconds", ...]}

(wall time is left out so the same seed writes the same file; NaN and
infinities are the strings "nan", "inf", "-inf"). Each cell's plain-language
reason comes from ``properties/knowledge/known/<measure>.json`` where that file exists and
pins the verdict the run found (its stored reason, else the one derived from what
the measure reads: :func:`puf.properties.knowledge.pinned.cell_reason`), else from
the verdict's own ``reason`` (a user's measure has no file).
"""

from __future__ import annotations

__all__ = ["KNOWN_DIR", "verdict_record", "verdict_document", "plain_reasons", "example_reason", "pinned_records"]

from collections.abc import Iterable, Mapping
from typing import Any
import json
import os
from pathlib import Path

from puf import properties
from puf.properties.knowledge.pinned import cell_reason
from puf.properties.running.verdict import Verdict

#: The folder of the known files (``properties/knowledge/known/<measure>.json``).
KNOWN_DIR = Path(properties.__file__).parent / "knowledge" / "known"


def verdict_record(verdict: Verdict) -> dict[str, Any]:
    """One verdict as its JSON record: ``Verdict.to_dict()`` without the wall time.

    The budget and the seed, the same for every verdict of a run, are said once
    in the document's note instead.

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> record = verdict_record(verdicts("sd", properties=["range"], max_examples=5)[0])
    >>> record["measure"], record["property"], record["status"], "seconds" in record
    ('sd', 'range', 'proven', False)
    """
    return {k: v for k, v in verdict.to_dict().items() if k not in ("seconds", "max_examples", "random_state")}


def verdict_document(records: Iterable[Mapping[str, Any]], note: str) -> dict[str, Any]:
    """The JSON document of a list of verdict records (see the module docstring).

    Examples
    --------
    >>> verdict_document([], "none run")
    {'note': 'none run', 'verdicts': []}
    """
    return {"note": note, "verdicts": list(records)}


def _known_file(name: str) -> dict[str, Any]:
    """The measure's known file, or an empty one without a file."""
    path = KNOWN_DIR / f"{name}.json"
    if not path.is_file():
        return {"measure": name, "verdicts": {}, "reasons": {}}
    return dict(json.loads(path.read_text(encoding="utf-8")))


def plain_reasons(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """The plain-language reason of every (measure, property) cell.

    A known file's reason is used where the file pins the status this run
    found (a reason written for ``violated`` would mislead on a ``holds``);
    otherwise the runner's own reason.

    Parameters
    ----------
    records : list of dict
        Verdict records (``measure, property, status, reason``).

    Returns
    -------
    dict of (str, str) to str

    Examples
    --------
    >>> plain_reasons([{"measure": "my_measure", "property": "range", "status": "holds",
    ...                 "reason": "no counterexample in 10 examples"}])
    {('my_measure', 'range'): 'no counterexample in 10 examples'}
    """
    known: dict[str, dict[str, Any]] = {}
    out = {}
    for r in records:
        if r["measure"] not in known:
            known[r["measure"]] = _known_file(r["measure"])
        data = known[r["measure"]]
        pinned = data["verdicts"].get(r["property"]) == r["status"]
        reason = cell_reason(data, r["property"], catalog=properties.CATALOG) if pinned else None
        out[r["measure"], r["property"]] = reason or example_reason(r)
    return out


def _value(value: float | str | None) -> str:
    return "NaN" if value in (None, "nan") else f"{float(value):.4g}"


def example_reason(record: Mapping[str, Any]) -> str:
    """A cell's reason in plain language from its own example: what should hold, what happened.

    For a cell no known file explains (a user's measure): the property's statement,
    then the example's change and values, then the run's own detail.

    Examples
    --------
    >>> example_reason({"property": "range", "status": "violated", "reason": "violation 2",
    ...                 "example": {"change": "known example (x): S = (0, 1)", "before": {
    ...                     "effectiveness": [0.0, 1.0]}, "after": None, "value_before": 3.0}})
    'Expected: the value lies in the declared range. Here: S = (0, 1) (m = 2) gives 3 (violation 2).'
    """
    import re

    example = record.get("example") or {}
    if record["status"] not in ("violated", "undefined") or not example.get("before"):
        return record["reason"]
    statement = properties.CATALOG[record["property"]].statement
    change = re.sub(r"^known example( \([^)]*\))?: ", "", example.get("change") or "")
    m = len(next(iter(example["before"].values())))
    if example.get("after") is None:
        happened = f"gives {_value(example.get('value_before'))}"
    elif properties.CATALOG[record["property"]].fresh_workers:  # (its after is the population asked first)
        before, after = _value(example.get("value_before")), _value(example.get("value_after"))
        happened = f"gives {before} alone and {after} asked after the other population"
    else:
        happened = f"moves the value {_value(example.get('value_before'))} → {_value(example.get('value_after'))}"
    return f"Expected: {statement}. Here: {change} (m = {m}) {happened} ({record['reason']})."


def pinned_records(
    records: Iterable[Mapping[str, Any]], known: Mapping[str, str | os.PathLike[str]]
) -> list[dict[str, Any]]:
    """The records with each cell of a pinned measure as its known file pins it.

    ``puf check MEASURE --known FILE`` pins a measure's verdicts; a report given the
    same file shows those verdicts, so the two never disagree. A cell the file pins
    takes its status (``proven`` where the file holds a proof), reason and example;
    where this run's search found otherwise, the reason says so. Cells the file
    does not pin, and other measures, keep this run's verdict.

    Parameters
    ----------
    records : list of dict
        Verdict records (``measure, property, status, reason, example``).
    known : dict of str to path
        Measure name -> its known file (checked by :func:`puf.properties.knowledge.pinned.read_pinned`).

    Returns
    -------
    list of dict

    Raises
    ------
    ValueError
        If a file cannot be read or pins another measure.

    Examples
    --------
    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "gap.known.json")
    >>> _ = open(path, "w").write(json.dumps({"measure": "gap", "verdicts": {"range": "violated"},
    ...     "reasons": {"range": "exceeds 1"}, "examples": {}}))
    >>> [r["status"] for r in pinned_records([{"measure": "gap", "property": "range", "status": "holds",
    ...     "reason": "none found"}], {"gap": path})]
    ['violated']
    """
    from puf.properties.knowledge.pinned import read_pinned

    pinned = {name: read_pinned(path, catalog=properties.CATALOG, measure=name) for name, path in known.items()}
    out = []
    for r in records:
        data = pinned.get(r["measure"], {})
        status = data.get("verdicts", {}).get(r["property"])
        if status is None:
            out.append(dict(r))
            continue
        status = "proven" if status == "holds" and r["property"] in data.get("proofs", {}) else status
        found = "" if r["status"] == status else f"; this run's search found {r['status']}: {r['reason']}"
        reason = cell_reason(data, r["property"], catalog=properties.CATALOG) or r["reason"]
        example = data.get("examples", {}).get(r["property"]) or (r.get("example") if not found else None)
        source = f"Pinned in {os.path.basename(str(known[r['measure']]))}{found}"
        out.append({**r, "status": status, "reason": f"{source}: {reason}", "example": example})
    return out
