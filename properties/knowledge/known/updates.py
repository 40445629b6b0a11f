"""Write a property's cells and examples into every known file, keeping everything else.

A measure's file is built from its verdicts by :func:`known_from_verdicts`. A new catalog
property (or a changed one) is pinned by running it on every built-in and
merging its verdicts into ``properties/known/<measure>.json``: ``puf check --all --property
NAME --update-known``. A cell whose verdict is unchanged keeps its reason and its stored
example; a new or changed cell gets the runner's reason, for a person to rewrite into the
argument or the counterexample behind it. Every ``holds`` cell of a universal property also
ends with what the search covered (:func:`searched_reason`): the examples and the largest m
of this run, replacing the clause an earlier run wrote. Literature citations and the other
cells are left as they were.
"""

from __future__ import annotations

__all__ = ["known_from_verdicts", "merge_verdicts", "update_known", "searched_reason"]

from pathlib import Path
from collections.abc import Iterable, Mapping
from typing import Any
import json
import re

from . import check_known, json_number, known_path, write_known
from ...running.runner import Verdict

_SEARCHED = re.compile(r"; the search found no counterexample in \d+ examples up to m = \d+ \([^)]*\)$")


def known_from_verdicts(measure: Any, results: Iterable[Verdict]) -> dict[str, Any]:
    """Return a known file's content built from one measure's verdicts.

    The reasons are the runner's; rewrite those of ``holds`` cells into the
    argument why the property holds before committing the file.

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> data = known_from_verdicts("sd", verdicts("sd", max_examples=10))
    >>> data["verdicts"]["similarity-zero"], "similarity-zero" in data["examples"]
    ('violated', True)
    """
    from puf import as_measure

    measure = as_measure(measure)
    data = {"measure": measure.name, "proofs": {}, "verdicts": {}, "reasons": {}, "examples": {}}
    for v in results:
        if v.status == "proven":
            data["proofs"][v.property] = v.scope
        data["verdicts"][v.property] = "holds" if v.status == "proven" else v.status
        data["reasons"][v.property] = v.reason
        keep = (v.status in ("violated", "not-found", "undefined") and v.kind == "universal") or (
            v.status == "holds" and v.kind == "existential"
        )
        if keep and v.example and v.example.get("before"):
            example = {k: v.example[k] for k in ("change", "before", "after")}
            example["value_before"] = json_number(v.example.get("value_before"))
            example["value_after"] = json_number(v.example.get("value_after"))
            data["examples"][v.property] = example
    if not data["proofs"]:
        del data["proofs"]
    return data


def searched_reason(reason: str, verdict: "Verdict") -> str:
    """``reason`` ending with what ``verdict``'s search covered, for a universal ``holds``
    (or searched proven) cell: "; the search found no counterexample in N examples up to m = M
    (budget B, seed S)". An earlier such clause is replaced (and dropped from a cell its proof
    settled without a search); other cells' reasons are returned unchanged.

    Parameters
    ----------
    reason : str
        The cell's reason (the argument behind it).
    verdict : Verdict
        The cell's verdict from a run.

    Returns
    -------
    str

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> (v,) = verdicts("sd", properties=["continuity"], max_examples=5, random_state=0)
    >>> once = searched_reason("SD moves by at most δ", v)
    >>> once.startswith("SD moves by at most δ; the search found no counterexample in "), searched_reason(once, v) == once
    (True, True)
    >>> (proven,) = verdicts("sd", properties=["range"], max_examples=5, random_state=0)
    >>> searched_reason("SD ≤ ½; the search found no counterexample in 9 examples up to m = 4 (budget 5, seed 0)", proven)
    'SD ≤ ½'
    """
    if verdict.status == "proven" and not verdict.sizes:  # settled by its proof, not searched
        return _SEARCHED.sub("", reason)
    if verdict.kind != "universal" or verdict.status not in ("holds", "proven") or not verdict.sizes:
        return reason
    seed = "random" if verdict.random_state is None else verdict.random_state
    return _SEARCHED.sub("", reason) + (
        f"; the search found no counterexample in {verdict.n_examples} examples up to m = "
        f"{max(verdict.sizes)} (budget {verdict.max_examples}, seed {seed})"
    )


def merge_verdicts(data: Mapping[str, Any], results: Iterable[Verdict]) -> dict[str, Any]:
    """Return ``data`` (a parsed known file, possibly missing properties) with ``results``
    (one measure's verdicts) merged in, every present property in catalog order.

    Returns
    -------
    dict
        The merged file; ``data`` itself is not changed.

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> from puf.properties.knowledge.known import load_known
    >>> old = load_known("sd")
    >>> new = merge_verdicts(old, verdicts("sd", properties=["range"], max_examples=5))
    >>> new["reasons"]["range"].startswith(old["reasons"]["range"].split("; the search")[0]), list(new) == list(old)
    (True, True)
    """
    from ...catalog.listing import CATALOG

    merged = json.loads(json.dumps(data))
    fresh = known_from_verdicts(data["measure"], results)
    for v in results:
        name = v.property
        status = fresh["verdicts"][name]  # a proven cell is pinned as holds, its scope in proofs
        unchanged = merged["verdicts"].get(name) == status and name in merged["reasons"]
        if unchanged:
            merged["reasons"][name] = searched_reason(merged["reasons"][name], v)
        else:
            merged["reasons"][name] = fresh["reasons"][name]
        merged["verdicts"][name] = status
        if name in fresh.get("proofs", {}):
            merged.setdefault("proofs", {})[name] = fresh["proofs"][name]
        if unchanged and name in merged["examples"] and name not in fresh["examples"]:
            continue  # the stored example still shows the verdict: kept as it was written
        # The run replayed the stored example first and shrank it: the fresh one replaces it.
        merged["examples"].pop(name, None)
        if name in fresh["examples"]:
            merged["examples"][name] = fresh["examples"][name]
    for key in ("verdicts", "reasons"):
        merged[key] = {p: merged[key][p] for p in CATALOG if p in merged[key]}
    merged["examples"] = {p: merged["examples"][p] for p in CATALOG if p in merged["examples"]}
    if "proofs" in merged:
        merged["proofs"] = {p: merged["proofs"][p] for p in CATALOG if p in merged["proofs"]}
    return merged


def update_known(results: Iterable[Verdict]) -> list[Path]:
    """Merge ``results`` (verdicts of any measures) into their known files; return the paths
    written. Measures without a known file are left out.

    Examples
    --------
    >>> update_known([])
    []
    """
    by_measure = {}
    for v in results:
        by_measure.setdefault(v.measure, []).append(v)
    written = []
    for name, found in by_measure.items():
        path = known_path(name)
        if not path.is_file():
            continue
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        check_known(data, partial=True)
        write_known(merge_verdicts(data, found), path, partial=True)
        written.append(path)
    return written
