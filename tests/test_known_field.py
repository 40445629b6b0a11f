"""The known verdicts of the field's measures: file shape and replayed examples.

Each ``properties/knowledge/known/<measure>.json`` of the field's measures pins the true
verdict of every catalog property, one reason a line, and the example behind
each violated universal cell (its counterexample) and each existential cell
that holds (its witness). Here every stored example is replayed through the
property's own judge; ``tests/test_properties_builtin.py`` compares every
file with the runner's verdicts.
"""

import dataclasses
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from puf.properties import CATALOG, STATUSES
from puf.properties.cases.case import Case
from puf.properties.cases.groups import grouped_similarity
from puf import MEASURES, Population, UndefinedMeasureWarning, as_measure

KNOWN = Path(__file__).resolve().parent.parent / "properties" / "knowledge" / "known"
FIELD = [name for name, m in MEASURES.items() if "PUF paper" not in m.reference]  # not the PUF paper's
ONE_POPULATION = {name for name, p in CATALOG.items() if p.single_population}


def load(name):
    with open(KNOWN / f"{name}.json", encoding="utf-8") as handle:
        return json.load(handle)


def _population(fields):
    """A stored population; a field its measure does not read is not stored: neutral here (the
    groups of a subgroup example: 1 within a group, 0 across)."""
    given = {f: np.asarray(v, dtype=np.float64) for f, v in fields.items() if f != "groups"}
    m = len(next(iter(given.values())))
    given.setdefault("effectiveness", np.zeros(m))
    given.setdefault("similarity", np.eye(m) if "groups" not in fields else grouped_similarity(fields["groups"]))
    return Population(**given)


def replay(name, property_name, example):
    """Return (value before, value after or None, the judge's excess) of a stored example."""
    from puf.synthetic import weighted_gap_sum

    measure, prop = as_measure(name), CATALOG[property_name]
    before = _population(example["before"])
    after = None if example.get("after") is None else _population(example["after"])
    delta, strict = math.inf, False
    if after is not None:
        old, new = before.fields(), after.fields()
        if before.m == after.m:  # replication changes the size: no δ to speak of
            delta = max(float(np.max(np.abs(new[f] - old[f]))) for f in old) or math.inf
        strict = (
            weighted_gap_sum(after.effectiveness, after.similarity)
            - weighted_gap_sum(before.effectiveness, before.similarity)
        ) > 1e-9
    case = Case(before, after, example["change"], strict=strict, delta=delta)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        if prop.derived is not None:  # the subgroups or candidate extremes the judge reads
            case = dataclasses.replace(
                case,
                values={key: float(measure(**population.fields())) for key, population in prop.derived(case).items()},
            )
        value_before = float(measure(**before.fields()))
        value_after = None if after is None else float(measure(**after.fields()))
    if property_name == "defined":
        return value_before, None, math.inf if not math.isfinite(value_before) else -1.0
    return value_before, value_after, prop.judge(measure, value_before, value_after, case)


@pytest.mark.parametrize("name", FIELD)
def test_known_file_shape(name):
    data = load(name)
    assert data["measure"] == name
    assert list(data["verdicts"]) == list(CATALOG)
    assert list(data["reasons"]) == [p for p in CATALOG if p in data["reasons"]]  # where one is needed
    assert set(data["verdicts"].values()) <= set(STATUSES)
    assert all(isinstance(r, str) and r and "\n" not in r for r in data["reasons"].values())
    for prop, status in data["verdicts"].items():
        kind = CATALOG[prop].kind
        backed = (kind == "universal" and status in ("violated", "not-found")) or (
            kind == "existential" and status == "holds"
        )
        assert (prop in data["examples"]) == backed, prop
    reads = set(as_measure(name).reads)
    for prop, example in data["examples"].items():
        # Only the fields the measure reads, and those the property acts on or judges by.
        needs = set(CATALOG[prop].needs) if len(CATALOG[prop].needs) < 4 else set()
        if CATALOG[prop].grouped and "similarity" not in reads:  # the groups, not the matrix encoding them
            needs = needs - {"similarity"} | {"groups"}
        assert reads <= set(example["before"]) <= reads | needs | set(CATALOG[prop].uses), prop
        assert (example["after"] is None) == (prop in ONE_POPULATION), prop


@pytest.mark.parametrize("name", FIELD)
def test_stored_examples_back_their_verdicts(name):
    """A violated (or not-found) universal cell's example and an existential cell's witness have excess > 0."""
    data = load(name)
    for prop, example in data["examples"].items():
        before, after, excess = replay(name, prop, example)
        assert excess > 0, (name, prop, before, after, excess)
        if isinstance(example.get("value_before"), float):
            assert before == pytest.approx(example["value_before"], abs=1e-12)
