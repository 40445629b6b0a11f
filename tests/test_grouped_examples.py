"""Examples of the subgroup axioms on a measure that reads no similarity show each user's group,
not the similarity matrix that encodes the groups; a stored example of that form replays."""

import json

import numpy as np
import pytest

from puf import Population, as_measure
from puf.properties import CATALOG, verdicts
from puf.properties.cases.groups import group_labels
from puf.properties.cases.subgroup_cases import changed_group
from puf.properties.knowledge.known import check_known, example_case, load_known
from puf.properties.cases.case import Case
from puf.properties.running.display import format_example
from puf.properties.running.runner import MEASURE_CALLS
from puf.properties.running.search import PropertySearch

GROUPED = [name for name, prop in CATALOG.items() if prop.grouped]


def test_the_subgroup_axioms_read_similarity_as_groups():
    assert GROUPED == ["subgroup-decomposability", "subgroup-consistency"]


@pytest.mark.parametrize("name", GROUPED)
def test_an_effectiveness_only_measure_is_shown_groups_not_a_similarity_matrix(name):
    (verdict,) = verdicts("gini", properties=[name], max_examples=5)
    assert verdict.status == "violated", verdict.reason
    for side in ("before", "after"):
        fields = verdict.example[side]
        assert set(fields) == {"effectiveness", "groups"}
        assert len(fields["groups"]) == len(fields["effectiveness"])
    text = format_example(verdict.example, indent=0)
    assert "similarity" not in text
    groups = verdict.example["before"]["groups"]
    assert "groups" in text and f"[{' '.join(map(str, groups))}]" in text  # integers, not floats


@pytest.mark.parametrize("measure, shown", [("sd", "groups"), ("puf", "similarity")])
def test_a_similarity_reading_measure_is_still_shown_its_similarity(measure, shown):
    pop = Population([0.1, 0.3, 0.5, 0.7], np.kron(np.eye(2), [[1.0, 0.4], [0.4, 1.0]]))
    case = Case(pop, pop.replace(effectiveness=[0.2, 0.2, 0.5, 0.7]), "group 0 redistributed")
    search = PropertySearch(
        as_measure(measure),
        CATALOG["subgroup-consistency"],
        measure_calls=MEASURE_CALLS,
        max_examples=1,
        time_limit=2.0,
        time_budget=60.0,
    )
    snapshot = search.snapshot(case, 0.1, 0.2, None)
    assert list(snapshot["before"]) == ["effectiveness", shown]
    expected = [0, 0, 1, 1] if shown == "groups" else pop.similarity.tolist()
    assert snapshot["before"][shown] == expected


@pytest.mark.parametrize("measure", ["gini", "sd", "hoover"])
def test_a_stored_groups_example_replays_to_its_pinned_verdict(measure):
    known = load_known(measure)
    check_known(known)
    example = known["examples"]["subgroup-decomposability"]
    assert "similarity" not in example["before"] and "groups" in example["before"]
    case = example_case("subgroup-decomposability", example, source=measure)
    groups, index = changed_group(case)
    assert group_labels(case.before.similarity) == example["before"]["groups"] and index is not None
    assert len(json.dumps(example)) < 1000  # m numbers and m labels, not an m × m matrix
    (verdict,) = verdicts(measure, properties=["subgroup-decomposability"], max_examples=1)
    assert verdict.status == "violated" and verdict.example["change"].startswith(f"known example ({measure})")


def test_a_groups_example_is_checked_like_a_similarity_one():
    known = load_known("gini")
    broken = json.loads(json.dumps(known))
    del broken["examples"]["subgroup-consistency"]["before"]["groups"]
    with pytest.raises(ValueError, match="fields it acts on"):
        check_known(broken, catalog=CATALOG)
    # groups stand for similarity only where the property reads it as groups
    stray = json.loads(json.dumps(known))
    stray["examples"]["similarity-monotone"] = {
        "change": "a similarity raised",
        "before": {"effectiveness": [0.0, 1.0], "groups": [0, 1]},
        "after": {"effectiveness": [1.0, 0.0], "groups": [0, 1]},
    }
    with pytest.raises(ValueError, match="fields it acts on"):
        check_known(stray, catalog=CATALOG)
