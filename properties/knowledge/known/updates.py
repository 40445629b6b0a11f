"""Write a property's cells and examples into every known file, keeping everything else.

A measure's file is built from its verdicts by :func:`known_from_verdicts`. A new catalog
property (or a changed one) is pinned by running it on every built-in and
merging its verdicts into ``properties/knowledge/known/<measure>.json``: ``puf check --all --property
NAME --update-known``. A cell whose verdict is unchanged keeps its reason and its stored
example; a new or changed cell gets its verdict, its shrunk example and the runner's reason
where that reason is one a person should review (:func:`stored_reason`): never what the search
covered (that is the run's output and the power table's) and never a reason that follows from
what the measure reads (:mod:`properties.knowledge.known.derived` derives it wherever a cell is shown).
Literature citations and the other cells are left as they were.

:func:`normalise_known` brings a file written otherwise (by hand, or by an older writer) to the
same rule; ``python -m puf.properties.knowledge.known.updates --normalise`` applies it to every known file.
"""

from __future__ import annotations

__all__ = [
    "stored_reason",
    "known_from_verdicts",
    "merge_verdicts",
    "update_known",
    "normalise_known",
    "normalise_files",
]

from pathlib import Path
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
import json
import sys

from . import check_known, json_number, known_measures, known_path, write_known
from .derived import derived_reason, is_coverage, without_coverage
from ...catalog.listing import CATALOG, get_property
from ...running.verdict import Verdict


def stored_reason(measure: Any, prop: str, status: str, reason: str) -> str | None:
    """The reason a known file stores for a cell, or None when it stores none.

    None for a reason that only says what a search covered (a clause of coverage is cut from
    an argument: :func:`properties.knowledge.known.derived.without_coverage`), for a cell whose reason
    follows from what the measure reads (:func:`properties.knowledge.known.derived.derived_reason`) and
    for a ``proven`` cell (its proof's scope, in ``proofs``, says it). Otherwise ``reason``.

    Examples
    --------
    >>> stored_reason("sd", "similarity-monotone", "holds", "SD ignores similarity")
    >>> stored_reason("sd", "continuity", "holds", "no counterexample in 60 examples (m = 2–6; largest m = 6)")
    >>> stored_reason("sd", "continuity", "holds",
    ...               "SD is 1-Lipschitz; the search found no counterexample in 5 examples up to m = 4 (budget 5, seed 0)")
    'SD is 1-Lipschitz'
    """
    reason = without_coverage(reason)
    if status == "proven" or not reason or is_coverage(reason):
        return None
    if derived_reason(measure, get_property(prop), status) is not None:
        return None
    return reason


def known_from_verdicts(measure: Any, results: Iterable[Verdict]) -> dict[str, Any]:
    """Return a known file's content built from one measure's verdicts.

    The reasons are the runner's, where :func:`stored_reason` keeps them; rewrite each
    into the argument behind the cell, or what its example shows, before committing the file.

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> data = known_from_verdicts("sd", verdicts("sd", max_examples=10))
    >>> data["verdicts"]["similarity-zero"], "similarity-zero" in data["examples"]
    ('violated', True)
    >>> "similarity-zero" in data["reasons"], "continuity" in data["reasons"]  # derived; coverage
    (False, False)
    """
    from puf import as_measure

    measure = as_measure(measure)
    data = {"measure": measure.name, "proofs": {}, "verdicts": {}, "reasons": {}, "examples": {}}
    for v in results:
        if v.status == "proven":
            data["proofs"][v.property] = v.scope
        data["verdicts"][v.property] = "holds" if v.status == "proven" else v.status
        reason = stored_reason(measure, v.property, v.status, v.reason)
        if reason is not None:
            data["reasons"][v.property] = reason
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


def _in_catalog_order(data: dict[str, Any]) -> dict[str, Any]:
    for key in ("verdicts", "reasons", "examples", "proofs", "literature"):
        if key in data:
            data[key] = {p: data[key][p] for p in CATALOG if p in data[key]}
    return data


def merge_verdicts(data: Mapping[str, Any], results: Iterable[Verdict]) -> dict[str, Any]:
    """Return ``data`` (a parsed known file, possibly missing properties) with ``results``
    (one measure's verdicts) merged in, every present property in catalog order.

    A cell whose verdict is unchanged keeps its stored reason (without coverage text) and
    example; a new or changed one takes the run's verdict, example and reviewable reason.

    Returns
    -------
    dict
        The merged file; ``data`` itself is not changed.

    Examples
    --------
    >>> from puf.properties import verdicts
    >>> from puf.properties.knowledge.known import load_known
    >>> old = load_known("sd")
    >>> new = merge_verdicts(old, verdicts("sd", properties=["range", "continuity"], max_examples=5))
    >>> new["reasons"]["range"] == old["reasons"]["range"], list(new) == list(old)
    (True, True)
    """
    merged = json.loads(json.dumps(data))
    results = list(results)
    fresh = known_from_verdicts(data["measure"], results)
    for v in results:
        name = v.property
        status = fresh["verdicts"][name]  # a proven cell is pinned as holds, its scope in proofs
        unchanged = merged["verdicts"].get(name) == status
        if not unchanged:
            merged["reasons"].pop(name, None)
            if name in fresh["reasons"]:
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
    return normalise_known(_in_catalog_order(merged))


def normalise_known(data: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``data`` (a parsed known file) holding only knowledge: every reason's coverage text
    cut (a reason that was only coverage dropped), every reason equal to the one derived from
    what the measure reads dropped; nothing else changes.

    Examples
    --------
    >>> data = {"measure": "sd", "verdicts": {"similarity-sensitive": "violated", "continuity": "holds"},
    ...         "reasons": {"similarity-sensitive": "the measure reads no similarity, so no change of it alone "
    ...                     "moves the value", "continuity": "SD is 1-Lipschitz; the search found no "
    ...                     "counterexample in 5 examples up to m = 4 (budget 5, seed 0)"}, "examples": {}}
    >>> normalise_known(data)["reasons"]
    {'continuity': 'SD is 1-Lipschitz'}
    """
    out = json.loads(json.dumps(data))
    reasons = {}
    for prop, reason in out.get("reasons", {}).items():
        kept = without_coverage(reason)
        status = out["verdicts"].get(prop)
        if not kept or is_coverage(kept):
            continue
        if status is not None and _derived(out["measure"], prop, status) == kept:
            continue
        reasons[prop] = kept
    out["reasons"] = reasons
    return _in_catalog_order(out)


def _derived(measure: str, prop: str, status: str) -> str | None:
    from puf import MEASURES

    if measure not in MEASURES or prop not in CATALOG:
        return None
    return derived_reason(measure, CATALOG[prop], status)


def _load(path: Path) -> dict[str, Any]:
    """A known file put in catalog order (a file written before the catalog changed order is
    rewritten in the new one), checked."""
    with open(path, encoding="utf-8") as handle:
        data = _in_catalog_order(json.load(handle))
    check_known(data, catalog=CATALOG, partial=True)
    return data


def update_known(results: Iterable[Verdict]) -> list[Path]:
    """Merge ``results`` (verdicts of any measures) into their known files; return the paths
    written. Measures without a known file are left out.

    Examples
    --------
    >>> update_known([])
    []
    """
    by_measure: dict[str, list[Verdict]] = {}
    for v in results:
        by_measure.setdefault(v.measure, []).append(v)
    written = []
    for name, found in by_measure.items():
        path = known_path(name)
        if not path.is_file():
            continue
        write_known(merge_verdicts(_load(path), found), path, catalog=CATALOG, partial=True)
        written.append(path)
    return written


def normalise_files(names: Sequence[str] | None = None) -> list[Path]:
    """Apply :func:`normalise_known` to the known files of ``names`` (default: every one); return
    the paths whose content changed (only those are written).

    Examples
    --------
    >>> normalise_files([])
    []
    """
    changed = []
    for name in known_measures() if names is None else names:
        path = known_path(name)
        with open(path, encoding="utf-8") as handle:
            stored = json.load(handle)
        fixed = normalise_known(_load(path))
        if json.dumps(fixed) != json.dumps(stored):  # order counts: a file in an old order is rewritten
            write_known(fixed, path, catalog=CATALOG, partial=True)
            changed.append(path)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m puf.properties.knowledge.known.updates --normalise``: normalise every known file.

    Examples
    --------
    >>> main(["--help"])
    usage: python -m puf.properties.knowledge.known.updates --normalise
    2
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["--normalise"]:
        print("usage: python -m puf.properties.knowledge.known.updates --normalise")
        return 2
    changed = normalise_files()
    print(f"normalised {len(changed)} known files" + "".join(f"\n  {p.name}" for p in changed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
