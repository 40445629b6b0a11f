"""Known verdicts and examples of the built-in measures, one JSON file per measure.

``properties/knowledge/known/<measure-name>.json`` pins a measure's true verdict on every
catalog property (``verdicts``), says why in one line (``reasons``) and stores
the examples behind the verdicts (``examples``: the counterexample of a
violated universal property, the witness of an existential one, the input on
which the measure is undefined). The verdict runner tries every stored example
of a property, from every file, before any generated one, so a known
violation is found whatever Hypothesis' version or luck, for any measure.
The format is described in ``properties/knowledge/known/README.md``.
"""

from __future__ import annotations

__all__ = [
    "json_number",
    "PINNED_SOURCE",
    "known_path",
    "load_known",
    "known_measures",
    "known_examples",
    "check_known",
    "pinned_status",
    "write_known",
    "example_case",
]

from typing import Any, NoReturn
from collections.abc import Mapping
import os
import functools
import json
import math
import re
from pathlib import Path

import numpy as np

from puf.population import FIELDS
from puf.population import Population
from ...cases.case import Case
from ...catalog.property import STATUSES, Property


_HOME = Path(__file__).resolve().parent


PINNED_SOURCE = "pinned"
"""The source a measure's own pinned file's examples are labelled with when replayed
("known example (pinned): …"; :mod:`properties.knowledge.pinned`)."""


def known_path(name: str) -> Path:
    """Return the path of the known file of measure ``name`` (it may not exist).

    Examples
    --------
    >>> known_path("puf").name
    'puf.json'
    """
    return _HOME / f"{name}.json"


@functools.lru_cache(maxsize=None)
def _read(name: str) -> dict[str, Any] | None:
    path = known_path(name)
    if not path.is_file():
        return None
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    check_known(data)  # by property name: the catalog checks it in the tests and on writing
    return data


def load_known(name: str) -> dict[str, Any] | None:
    """Return the parsed known file of measure ``name``, or None when there is none.

    Examples
    --------
    >>> load_known("gini")["verdicts"]["defined"]
    'violated'
    >>> load_known("no-such-measure") is None
    True
    """
    data = _read(name)
    return None if data is None else json.loads(json.dumps(data))


def pinned_status(name: str, property_name: str, *, proofs: str = "rules") -> str:
    """The status the runner should report for a pinned cell: ``proven`` where a recorded proof applies.

    A proof "for every m" applies with ``proofs="rules"`` or ``"smt"``, a fixed-m
    proof ("by SMT") with ``proofs="smt"`` only; otherwise the pinned verdict. A ``violated``
    ``attainable-range`` is the solver's proof (``properties.proving.bounds``): the search
    alone (``proofs="none"``) says ``not-found`` there.

    Examples
    --------
    >>> pinned_status("puf", "anonymity"), pinned_status("puf", "anonymity", proofs="none")
    ('proven', 'holds')
    >>> pinned_status("puf", "attainable-range"), pinned_status("puf", "attainable-range", proofs="none")
    ('violated', 'not-found')
    """
    data = _read(name)
    if data is None:
        raise ValueError(f"no known file for measure {name!r}")
    status = data["verdicts"][property_name]
    if status == "violated" and property_name == "attainable-range" and proofs == "none":
        return "not-found"
    scope = data.get("proofs", {}).get(property_name)
    if scope is None or proofs == "none" or (scope.endswith("by SMT") and proofs != "smt"):
        return status
    return "proven"


def known_measures() -> list[str]:
    """Return the names of every measure with a known file, sorted.

    Examples
    --------
    >>> "puf" in known_measures()
    True
    """
    return sorted(p.stem for p in _HOME.glob("*.json"))


def known_examples(property_name: str, *, first: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Return every stored example of one property, from every known file.

    Parameters
    ----------
    property_name : str
        A catalog property.
    first : str, optional
        A measure name whose examples come first (the others follow in file-name order).

    Returns
    -------
    list of (str, dict)
        ``(measure name, snapshot)`` pairs.

    Examples
    --------
    >>> [name for name, _ in known_examples("defined", first="uf")][:2]
    ['uf', 'atkinson-0.5']
    """
    names = known_measures()
    if first in names:
        names.remove(first)
        names.insert(0, first)
    found = []
    for name in names:
        example = (_read(name) or {}).get("examples", {}).get(property_name)
        if example is not None:
            found.append((name, example))
    return found


def _fail(where: str, problem: str) -> NoReturn:
    raise ValueError(f"known file {where}: {problem}")


def check_known(data: Any, *, catalog: Mapping[str, Property] | None = None, partial: bool = False) -> None:
    """Raise ValueError naming the problem unless ``data`` has the known-file format.

    A known file names properties; it is read without the catalog (the runner replays its
    examples by property name). ``catalog`` (:data:`puf.properties.CATALOG`), when given, checks
    it against the catalog too: every property a catalog one, in catalog order, each example
    with the fields its property acts on. ``partial``: properties may then be missing from
    ``verdicts`` (those present still in catalog order), as in a file not yet updated for a new
    property. ``reasons`` holds a line for the
    cells that need one (:mod:`properties.knowledge.known.derived` gives the others'). An optional
    ``literature`` object maps a property to ``{"source", "says", "verdict"}`` (and
    ``"differs"``: why the pinned verdict may differ from the one the literature implies).

    Examples
    --------
    >>> from puf.properties import CATALOG
    >>> check_known({"measure": "x", "verdicts": {}, "reasons": {}, "examples": {}})
    >>> check_known({"measure": "x", "verdicts": {}, "reasons": {}, "examples": {}}, catalog=CATALOG)
    Traceback (most recent call last):
    ...
    ValueError: known file 'x': verdicts must list every catalog property in catalog order
    """
    if not isinstance(data, dict) or not isinstance(data.get("measure"), str):
        _fail("?", "must be an object with a string 'measure'")
    where = repr(data["measure"])
    for key in ("verdicts", "reasons", "examples"):
        if not isinstance(data.get(key), dict):
            _fail(where, f"{key!r} must be an object")
    if catalog is not None:
        _check_against(where, data, catalog, partial=partial)
    for prop, reason in data["reasons"].items():
        if prop not in data["verdicts"] or not isinstance(reason, str) or not reason.strip():
            _fail(where, f"reason of {prop!r} must be a non-empty line for a pinned verdict")
    _check_literature(where, data.get("literature", {}))
    for prop, status in data["verdicts"].items():
        if status not in STATUSES:
            _fail(where, f"verdict of {prop!r} must be one of {', '.join(STATUSES)}, got {status!r}")
    _check_proofs(where, data)
    for prop, example in data["examples"].items():
        _check_example(where, prop, example, None if catalog is None else catalog[prop])


def _check_against(where: str, data: Mapping[str, Any], catalog: Mapping[str, Property], *, partial: bool) -> None:
    """The cells a file pins are the catalog's properties, in catalog order (every one unless ``partial``)."""
    if list(data["verdicts"]) != ([p for p in catalog if p in data["verdicts"]] if partial else list(catalog)):
        _fail(where, "verdicts must list every catalog property in catalog order")
    # A reason is stored only where it says what a reader needs (properties.knowledge.known.derived).
    if list(data["reasons"]) != [p for p in catalog if p in data["reasons"]]:
        _fail(where, "reasons must name catalog properties in catalog order")
    for key, what in (("literature", "literature"), ("proofs", "proof"), ("examples", "example")):
        unknown = [prop for prop in data.get(key, {}) if prop not in catalog]
        if unknown:
            _fail(where, f"{what} for unknown property {unknown[0]!r}")


def _check_example(where: str, prop: str, example: Any, known_as: Property | None) -> None:
    """A stored example holds a population, with the fields its property acts on and an ``after``
    where the property changes one (``known_as``: the catalog's property, when the catalog is given)."""
    before = example.get("before") if isinstance(example, dict) else None
    # The fields every population has that the property acts on (all: the measure's own).
    needs = () if known_as is None else known_as.needs
    acts_on = [] if set(needs) >= set(FIELDS) else [f for f in ("effectiveness", "similarity") if f in needs]
    # A property that reads similarity only as groups may store each user's group instead.
    grouped = known_as is not None and known_as.grouped and isinstance(before, dict) and "groups" in before
    shown = set(before or ()) | ({"similarity"} if grouped else set())
    if not isinstance(before, dict) or not set(FIELDS) & shown or not set(acts_on) <= shown:
        _fail(where, f"example of {prop!r} needs 'before' with the fields it acts on ({', '.join(acts_on)})")
    if known_as is not None and (example.get("after") is None) != known_as.single_population:
        _fail(where, f"example of {prop!r} must {'not ' * (example.get('after') is not None)}have 'after'")


def _check_literature(where: str, literature: Any) -> None:
    if not isinstance(literature, dict):
        _fail(where, "'literature' must be an object")
    for prop, cite in literature.items():
        if not isinstance(cite, dict) or not all(
            isinstance(cite.get(k), str) and cite[k].strip() for k in ("source", "says", "verdict")
        ):
            _fail(where, f"literature of {prop!r} needs non-empty 'source', 'says' and 'verdict'")
        if cite["verdict"] not in STATUSES:
            _fail(where, f"literature verdict of {prop!r} must be one of {', '.join(STATUSES)}")


def _population(fields: Mapping[str, Any]) -> Population:
    """A stored population; a field it does not store (one its measure does not read) at a
    neutral value: effectiveness 0, similarity the identity (nobody alike), or, where it
    stores each user's group (``groups``), 1 within a group and 0 across.

    Examples
    --------
    >>> _population({"effectiveness": [0.0, 0.5, 1.0], "groups": [0, 0, 1]}).similarity.tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    from puf import Population
    from ...cases.groups import grouped_similarity

    given = {f: np.asarray(fields[f], dtype=np.float64) for f in FIELDS if f in fields}
    m = len(next(iter(given.values())))
    given.setdefault("effectiveness", np.zeros(m))
    given.setdefault("similarity", np.eye(m) if fields.get("groups") is None else grouped_similarity(fields["groups"]))
    return Population(**given)


def example_case(property_name: str, example: Mapping[str, Any], *, source: str = "") -> Case:
    """Return a stored example as a runner case (Population before/after, δ, strictness).

    Examples
    --------
    >>> case = example_case("defined", load_known("gini")["examples"]["defined"], source="gini")
    >>> case.before.effectiveness.tolist(), case.change.startswith("known example (gini)")
    ([0.0, 0.0], True)
    """
    from ...cases.case import Case, distance
    from puf.synthetic import weighted_gap_sum

    before = _population(example["before"])
    after = None if example.get("after") is None else _population(example["after"])
    delta, strict = 0.0, False
    if after is not None and after.m == before.m:  # replication changes m: no δ, no pairing
        delta = distance(before, after)
        gap = weighted_gap_sum(after.effectiveness, after.similarity) - weighted_gap_sum(
            before.effectiveness, before.similarity
        )
        strict = gap > 1e-9
    label = f"known example ({source})" if source else "known example"
    # A change stored from a replayed example keeps one label, not one per replay.
    change = re.sub(r"^known example( \([^)]*\))?: ", "", example.get("change", ""))
    return Case(before, after, f"{label}: {change}".rstrip(": "), strict=strict, delta=delta if delta > 0 else math.inf)


def _check_proofs(where: str, data: Mapping[str, Any]) -> None:
    """The optional ``proofs``: property -> scope ("for every m, by <rule>"), on ``holds`` cells only."""
    proofs = data.get("proofs", {})
    if not isinstance(proofs, dict):
        _fail(where, "'proofs' must be an object")
    for prop, scope in proofs.items():
        if not isinstance(scope, str) or not scope.startswith("for "):
            _fail(
                where,
                f"proof scope of {prop!r} must read 'for every m, by <rule>' or 'for m ≤ N, by SMT', got {scope!r}",
            )
        if data["verdicts"].get(prop) != "holds":
            _fail(where, f"proof of {prop!r} on a cell whose verdict is {data['verdicts'].get(prop)!r}, not 'holds'")


def json_number(value: Any) -> Any:
    """A value as a known file stores it: NaN and infinities as the strings "nan", "inf", "-inf".

    Examples
    --------
    >>> json_number(float("inf")), json_number(0.5)
    ('inf', 0.5)
    """
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _dumps(value: Any, depth: int) -> str:
    if isinstance(value, list):  # arrays on one line: a file reads as matrices, not as columns
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict) and value:
        pad = " " * (depth + 1)
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_dumps(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * depth + "}"
    return json.dumps(json_number(value), ensure_ascii=False)


def write_known(
    data: dict[str, Any],
    path: str | os.PathLike[str],
    *,
    catalog: Mapping[str, Property] | None = None,
    partial: bool = False,
) -> None:
    """Check ``data`` and write it as a known file at ``path`` (arrays kept on one line each).

    ``catalog``: check it against the catalog too; ``partial``: allow properties missing from
    it (see :func:`check_known`).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "sd.json")
    >>> write_known(load_known("sd"), path)
    >>> json.load(open(path, encoding="utf-8"))["verdicts"]["range"]
    'holds'
    """
    check_known(data, catalog=catalog, partial=partial)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(_dumps(data, 0) + "\n")
