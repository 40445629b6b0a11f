"""The verdict matrix of a report, and the one JSON schema of every verdict file.

``puf report`` writes ``properties.json`` and ``puf check --json FILE`` writes
FILE in one schema (:func:`verdict_document`)::

    {"note": "how the verdicts were obtained",
     "verdicts": [Verdict.to_dict() without "seconds", ...]}

(wall time is left out so the same seed writes the same file; NaN and
infinities are the strings "nan", "inf", "-inf"). Each cell's plain-language
reason comes from ``properties/known/<measure>.json`` (key ``"reasons"``)
where that file exists and pins the verdict the run found, else from the
verdict's own ``reason`` (a user's measure has no file).
"""

__all__ = ["KNOWN_DIR", "verdict_record", "verdict_document", "plain_reasons"]

import json
from pathlib import Path

from puf import properties
KNOWN_DIR = Path(properties.__file__).parent / "known"


def verdict_record(verdict):
    """One verdict as its JSON record: ``Verdict.to_dict()`` without the wall time.

    The budget and the seed, the same for every verdict of a run, are said once
    in the document's note instead.

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> record = verdict_record(verdicts("sd", properties=["range"], max_examples=5)[0])
    >>> record["measure"], record["property"], record["status"], "seconds" in record
    ('sd', 'range', 'holds', False)
    """
    return {k: v for k, v in verdict.to_dict().items()
            if k not in ("seconds", "max_examples", "random_state")}


def verdict_document(records, note):
    """The JSON document of a list of verdict records (see the module docstring).

    Examples
    --------
    >>> verdict_document([], "none run")
    {'note': 'none run', 'verdicts': []}
    """
    return {"note": note, "verdicts": list(records)}


def _known_reasons(name):
    """(verdicts, reasons) of the measure's known file, or two empty dicts without one."""
    path = KNOWN_DIR / f"{name}.json"
    if not path.is_file():
        return {}, {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get("verdicts", {}), data.get("reasons", {})


def plain_reasons(records):
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
    known, out = {}, {}
    for r in records:
        if r["measure"] not in known:
            known[r["measure"]] = _known_reasons(r["measure"])
        pinned, reasons = known[r["measure"]]
        use_known = pinned.get(r["property"]) == r["status"] and reasons.get(r["property"])
        out[r["measure"], r["property"]] = reasons[r["property"]] if use_known else r["reason"]
    return out
