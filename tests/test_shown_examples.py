"""An example is shown as it is: its words describe the population shown, not the one drawn, and
the fields a change moves print with the digits that tell their two states apart."""

import numpy as np
import pytest

from puf import Population, as_measure
from puf.properties import get_property, verdicts
from puf.properties.cases.case import Case
from puf.properties.cases.extreme_cases import candidates
from puf.properties.cases.large_draws import example_world
from puf.properties.cases.user_cases import described
from puf.properties.running.display import format_example
from puf.properties.running.runner import MEASURE_CALLS
from puf.properties.running.search import Found, PropertySearch
from puf.properties.running.shrink import shrink


def log_m_times_the_largest(effectiveness):
    """Over the range [0, 1] from m = 3 on (ln 3 > 1), the more so the more users."""
    s = np.asarray(effectiveness, dtype=float)
    return float(np.log(len(s)) * s.max())


def test_a_hand_made_population_shrunk_is_described_at_the_size_shown():
    drawn = Population(np.eye(300)[0], np.ones((300, 300)))
    search = PropertySearch(
        as_measure(log_m_times_the_largest),
        get_property("range"),
        measure_calls=MEASURE_CALLS,
        max_examples=5,
        time_limit=2.0,
        time_budget=60.0,
    )
    with pytest.raises(Found):
        search.check(Case(drawn, change=f"explicit: {described(drawn)}"))
    assert shrink(search)
    example = search.failure[1]
    assert example["before"]["effectiveness"] == [1.0, 0.0, 0.0]
    assert example["change"] == (
        "explicit: m = 3, one user at S = 1, the others at 0, everyone similar "
        "(shrunk from m = 300: users the change leaves alone removed)"
    )


def test_a_verdict_shows_the_words_of_its_own_example():
    # The worst of the hand-made populations is the largest; the one shown is the smallest.
    (verdict,) = verdicts(as_measure(log_m_times_the_largest), properties=["range"], max_examples=5)
    text = format_example(verdict.example, indent=0)
    assert verdict.status == "violated" and text.startswith("counterexample (m = 3): explicit: m = 3, ")
    assert "m = 300," not in text


def raises_at_a_zero(effectiveness):
    """max/min − 1, raising where some user is at 0 (as a ratio of effectiveness does)."""
    s = np.asarray(effectiveness, dtype=float)
    if s.min() == 0:
        raise ZeroDivisionError("min effectiveness is 0")
    return float(s.max() / s.min() - 1)


def test_the_extremes_made_simpler_are_described_as_shown():
    # The first extreme, S = (0, 1) with everyone similar, raises; shrinking makes its 1 a 0.
    (verdict,) = verdicts(as_measure(raises_at_a_zero), properties=["defined"], max_examples=5, known=False)
    assert verdict.status == "violated" and verdict.example["before"]["effectiveness"] == [0.0, 0.0]
    assert verdict.example["change"] == (
        "explicit: m = 2, S = 0, everyone similar (shrunk from m = 2: 1 value made simpler)"
    )


def test_fields_a_change_moves_print_differently():
    example = {
        "change": "effectiveness moved along a segment, narrowed by bisection to δ = 2.43e-16",
        "value_before": 0.0,
        "value_after": 0.6931471805599453,
        "violation": 0.69,
        "error": None,
        "before": {"effectiveness": [0.0, 0.0], "similarity": [[1.0, 0.5], [0.5, 1.0]]},
        "after": {"effectiveness": [2.43e-16, 0.0], "similarity": [[1.0, 0.5], [0.5, 1.0]]},
    }
    lines = format_example(example, indent=0).splitlines()
    before = next(line for line in lines if line.startswith("effectiveness (before)"))
    after = next(line for line in lines if line.startswith("effectiveness (after)"))
    assert before.split(")", 1)[1].strip() != after.split(")", 1)[1].strip()
    assert "2.43e-16" in after
    assert not any(line.startswith("similarity (after)") for line in lines)  # unchanged: shown once
    close = {**example, "after": {**example["after"], "effectiveness": [0.5 + 1e-9, 0.0]}}
    close["before"] = {**example["before"], "effectiveness": [0.5, 0.0]}
    shown = [line.split(")", 1)[1].split() for line in format_example(close, indent=0).splitlines()[2:4]]
    assert shown[0] != shown[1]


def test_fields_apart_at_four_decimals_keep_four():
    example = {
        "change": "a transfer",
        "value_before": 0.25,
        "value_after": 0.2,
        "violation": 0.05,
        "error": None,
        "before": {"effectiveness": [0.1, 0.3]},
        "after": {"effectiveness": [0.2, 0.2]},
    }
    assert format_example(example, indent=0).splitlines()[2:] == [
        "effectiveness (before) [0.1 0.3]",
        "effectiveness (after)  [0.2 0.2]",
    ]


def test_the_designer_shows_a_rejected_forms_two_populations_apart():
    from puf.properties.proving.candidate import Candidate, Cell
    from puf.properties.proving.design_display import format_design

    example = {"before": {"effectiveness": [0.5, 0.0]}, "after": {"effectiveness": [0.5 + 1e-9, 0.0]}}
    cell = Cell("continuity", "violated", "search", example=example)
    rejected = Candidate("1·abs/pairs", form=None, cells=[cell], failed=cell)
    line = format_design([], [rejected], require=["continuity"]).splitlines()[-1]
    before, after = line.split("S = ")[1].split(" → ")
    assert before != after and "0.500000001" in after


def test_an_example_says_when_its_values_are_rounded():
    """Values printed to fewer decimals than they have are said to be rounded, with where to find
    them whole; an example whose values print exactly says nothing of it."""
    from puf.properties.running.display import format_example

    def shown(effectiveness):
        example = {
            "change": "a change",
            "value_before": 0.5,
            "value_after": None,
            "violation": 0.5,
            "error": None,
            "after": None,
            "before": {"effectiveness": effectiveness},
        }
        return format_example(example, indent=0, width=100)

    assert "rounded" not in shown([0.0, 0.8438])
    assert shown([0.0, 0.84375]).endswith(
        "(values rounded to the decimals shown; puf check --json FILE writes them whole)"
    )


def test_a_report_says_its_properties_json_holds_the_whole_values():
    from types import SimpleNamespace

    from puf.reports.render import example_lines

    example = {
        "change": "every S halved",
        "value_before": 0.5,
        "value_after": 0.25,
        "before": {"effectiveness": [0.0, 0.84375]},
        "after": {"effectiveness": [0.0, 0.421875]},
    }
    lines = example_lines(SimpleNamespace(verdict="violated", example=example, property="scale-invariance"))
    assert lines[-1] == "(values rounded to the decimals shown; properties.json holds them whole)"


def test_an_attainable_range_not_found_shows_the_population_drawn_and_the_gap_as_such():
    """The example of a range end not reached is the population drawn (at the other end, here), and
    its gap is what every value found falls short of the end by: neither is called "nearest"."""
    from puf.properties.running.display import format_example

    example = {
        "change": "explicit: m = 2, the candidate extremes",
        "value_before": 0.0,
        "value_after": None,
        "violation": 0.307,
        "error": None,
        "after": None,
        "before": {"effectiveness": [0.0, 0.0]},
    }
    lines = format_example(example, status="not-found", indent=0).splitlines()
    assert lines[0].startswith("population drawn (m = 2)")
    assert lines[1] == "value 0; the values found stop 0.307 short of an end of the range"


def test_a_subgroup_example_shows_the_value_of_the_group_it_changed():
    """The subgroup axioms' premise is the changed group's own value: it is shown under the whole's."""
    from puf.properties.running.display import format_example

    example = {
        "change": "groups of sizes [3, 2]; group 0 (users 0–2) redistributed at its mean 0.4667",
        "value_before": 0.36792,
        "value_after": 0.375977,
        "violation": 0.0061,
        "error": None,
        "derived": {"group": 0.399902, "group_changed": 0.400146},
        "before": {"effectiveness": [0.0, 0.5, 0.9, 0.0, 0.5], "groups": [0, 0, 0, 1, 1]},
        "after": {"effectiveness": [0.05, 0.4, 0.95, 0.0, 0.5], "groups": [0, 0, 0, 1, 1]},
    }
    lines = format_example(example, indent=0).splitlines()
    assert lines[1:3] == ["value before 0.36792, after 0.375977", "the group's value before 0.399902, after 0.400146"]


def test_a_user_similar_to_no_one_is_shown_with_the_similarity_that_says_so():
    """dissimilar-independence's premise is read off the similarity: an example of a measure that
    reads none shows it (the words "similar to no one" beside no matrix were unchecked)."""
    (verdict,) = verdicts(
        lambda effectiveness: float(np.std(effectiveness)), properties=["dissimilar-independence"], max_examples=5
    )
    assert verdict.status == "violated" and "similar to no one" in verdict.example["change"]
    similarity = np.array(verdict.example["before"]["similarity"])
    user = int(verdict.example["change"].split("user ")[1].split(",")[0])
    assert np.all(np.delete(similarity[user], user) == 0)


def test_an_attainable_range_not_found_names_the_candidate_nearest_the_end_it_missed():
    """The sample SD (ddof = 1) of two users in [0, 1] is at most √½: the end 1 is missed, the drawn
    population sits at 0, and the candidate nearest 1 is named with its value."""
    (verdict,) = verdicts(
        lambda effectiveness: float(np.std(effectiveness, ddof=1)), properties=["attainable-range"], max_examples=5
    )
    assert verdict.status == "not-found"
    assert verdict.example["nearest"].endswith(", at 0.707")
    text = " ".join(format_example(verdict.example, status="not-found", indent=0).split())
    assert f"short of an end of the range (the nearest: {verdict.example['nearest']})" in text


def test_a_world_measure_of_similar_users_list_distances_reaches_both_ends_on_the_candidate_worlds():
    """Σ sim·d_L / Σ sim is NaN where nobody is alike, so candidate worlds of disjoint histories alone
    read "not found"; the candidates have alike users too, with lists apart (1) and identical (0)."""

    def alike_lists_apart(similarity, list_distance):
        upper = np.triu_indices(len(similarity), 1)
        weights = np.asarray(similarity)[upper]
        with np.errstate(invalid="ignore"):
            return float((weights * np.asarray(list_distance)[upper]).sum() / weights.sum())

    (verdict,) = verdicts(alike_lists_apart, properties=["attainable-range"], max_examples=5)
    assert verdict.status == "holds", verdict.reason
    for m in (2, 3, 6):
        worlds = {
            name: alike_lists_apart(pop.similarity, pop.list_distance)
            for name, pop in candidates(Case(example_world(m).population())).items()
            if pop.list_distance is not None
        }
        alike = [v for name, v in worlds.items() if name.endswith("everyone alike")]
        assert len(worlds) == 8 and min(alike) == 0.0 and max(alike) == 1.0
        assert all(np.isnan(v) for name, v in worlds.items() if name.endswith("nobody alike"))
