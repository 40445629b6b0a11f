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

__all__ = ["KNOWN_DIR", "verdict_record", "verdict_document", "plain_reasons", "run_verdicts"]

import json
from pathlib import Path

from puf import properties
KNOWN_DIR = Path(properties.__file__).parent / "known"


def verdict_record(verdict):
    """One verdict as its JSON record: ``Verdict.to_dict()`` without the wall time.

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> record = verdict_record(verdicts("sd", properties=["range"], max_examples=5)[0])
    >>> record["measure"], record["property"], record["status"], "seconds" in record
    ('sd', 'range', 'holds', False)
    """
    return {k: v for k, v in verdict.to_dict().items() if k != "seconds"}


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


def _one(measure, name, max_examples, random_state):
    """One (measure, property) verdict as a record (runs in a worker)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined values are verdicts here, not noise
        (result,) = properties.verdicts(measure, properties=[name], max_examples=max_examples,
                                        random_state=random_state)
    return verdict_record(result)


def run_verdicts(measures, *, max_examples, random_state, bar):
    """Run the property catalog on every measure; return the records in measure, catalog order.

    Every (measure, property) check is one task, so ``bar`` advances by one per
    check and its remaining time is estimated from checks, not from whole
    measures. Tasks run in forked worker processes (a user's measure loaded from
    a file is there too), one per available core; every property is seeded on
    its own, so the result does not depend on the number of workers or the order.

    Examples
    --------
    >>> from puf import as_measure
    >>> class Bar:
    ...     def update(self, n=1): pass
    >>> records = run_verdicts([as_measure("sd")], max_examples=5, random_state=0, bar=Bar())
    >>> len(records) == len(properties.CATALOG), records[0]["property"]
    (True, 'range')
    """
    import multiprocessing
    import os
    from concurrent.futures import as_completed

    from puf.processes import worker_pool

    import random

    tasks = [(i, j, m, name) for i, m in enumerate(measures) for j, name in enumerate(properties.CATALOG)]
    # Checks differ in cost by measure and property; a fixed shuffle mixes them evenly, so the
    # bar's rate (and remaining time) holds from the start instead of jumping at a slow measure.
    random.Random(0).shuffle(tasks)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    results = {}
    if min(cores, len(tasks)) > 1 and "fork" in multiprocessing.get_all_start_methods():
        with worker_pool(cores, start_method="fork") as pool:  # killed on Ctrl-C or SIGTERM
            futures = {pool.submit(_one, m, name, max_examples, random_state): (i, j)
                       for i, j, m, name in tasks}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                bar.update(1)
    else:
        for i, j, m, name in tasks:
            results[i, j] = _one(m, name, max_examples, random_state)
            bar.update(1)
    return [results[key] for key in sorted(results)]
