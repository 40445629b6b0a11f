"""Continuity where the measure is defined (jumps by bisection), lipschitz-continuity beside it,
and subgroup-consistency's strict premise."""

from types import SimpleNamespace

import numpy as np
import pytest

from puf import Population, as_measure, measure
from puf.properties import CATALOG, verdicts
from puf.properties.cases.case import Case, distance
from puf.properties.catalog.judges import consistent
from puf.properties.catalog.continuity import JUMP_DISTANCE, jump, narrow_to_jump


def _value(name):
    m = as_measure(name)
    return lambda pop: float(m(**{f: v for f, v in pop.fields().items() if f in m.reads}))


def _segment(start, end):
    a = Population(np.array(start, dtype=float), np.eye(len(start)))
    return a, a.replace(effectiveness=np.array(end, dtype=float))


def test_both_properties_are_in_the_catalog_with_what_they_test():
    assert CATALOG["continuity"].judge is jump and CATALOG["continuity"].narrow is narrow_to_jump
    assert "Lipschitz" in CATALOG["lipschitz-continuity"].source
    assert "Dwork" not in CATALOG["continuity"].source


def test_a_step_is_narrowed_to_two_close_populations_across_it():
    start, end = _segment([0.0, 0.2, 0.9], [1.0, 0.2, 0.9])
    found = narrow_to_jump(lambda pop: float(pop.effectiveness[0] >= 0.37), start, end)
    assert found is not None
    low, high, f_low, f_high = found
    assert (f_low, f_high) == (0.0, 1.0)
    assert distance(low, high) <= JUMP_DISTANCE
    assert low.effectiveness[0] < 0.37 <= high.effectiveness[0]


@pytest.mark.filterwarnings("ignore::puf.UndefinedMeasureWarning")  # an end with a zero user
@pytest.mark.parametrize("name", ["sd", "gini", "ge-0", "max-min", "atkinson-2"])
def test_continuous_indices_show_no_jump_even_where_steep(name):
    # Near a zero mean (Gini) or a zero user (GE(0)) the slope is large, not infinite.
    for start, end in ([0.0, 0.001, 0.5], [0.4, 0.0, 0.1]), ([1e-6, 0.3, 0.3], [0.9, 0.3, 0.2]):
        a, b = _segment(start, end)
        assert narrow_to_jump(_value(name), a, b) is None


def test_the_bisection_finds_a_jump_where_a_similarity_crosses_a_threshold():
    def puf_over_alike(pop):
        s, sim = pop.effectiveness, pop.similarity
        w = sim * (sim > 0.618)
        return float(np.sum(np.triu(w * np.abs(s[:, None] - s[None, :]), 1)))

    start = Population(np.array([0.0, 1.0, 0.5]), np.eye(3))
    end = start.replace(similarity=np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    low, high, f_low, f_high = narrow_to_jump(puf_over_alike, start, end)
    assert low.similarity[0, 1] <= 0.618 < high.similarity[0, 1]
    assert f_high - f_low == pytest.approx(0.618, abs=1e-9)


def test_the_judge_wants_a_close_pair_and_a_gap_beyond_rounding():
    peu = as_measure("peu")
    close = SimpleNamespace(segment=False, delta=1e-15, before=None)
    assert jump(peu, 0.0, 0.5, close) > 0
    assert jump(peu, 0.25, 0.25 + 1e-13, close) < 0  # rounding, not a jump
    assert jump(peu, 0.0, 0.5, SimpleNamespace(segment=True, delta=1e-15, before=None)) == -np.inf
    assert jump(peu, 0.0, 0.5, SimpleNamespace(segment=False, delta=1e-6, before=None)) == -np.inf


def test_a_step_measure_violates_continuity_and_sd_and_gini_hold_it():
    @measure(name="half-step", range=(0.0, 1.0))
    def half_step(effectiveness):
        return float(np.mean(effectiveness) > 0.4137)

    step = verdicts(half_step, properties=["continuity", "lipschitz-continuity"], max_examples=10, random_state=0)
    assert [v.status for v in step] == ["violated", "violated"]
    example = step[0].example
    assert set(example["before"]) == {"effectiveness"}  # the fields the measure reads only
    for name in ("sd", "gini"):
        (found,) = verdicts(name, properties=["continuity"], max_examples=10, random_state=0)
        assert found.status in ("holds", "proven"), (name, found.reason)


def _ge2(s):
    s = np.asarray(s, dtype=float)
    return float(np.mean((s / s.mean()) ** 2 - 1) / 2)


def test_subgroup_consistency_a_group_falling_by_less_than_the_tolerance_is_a_fall():
    # A high-mean group weighs about 4 in GE(2) of the whole: it falls by 5e-10 (below the
    # 1e-9 tolerance) while the whole falls by about 2e-9 (above it). Both fell: consistent.
    group, others = np.array([0.9, 1.0]), np.array([0.0, 0.0, 0.0, 0.0, 0.01, 0.0])
    tau = 9e-9
    moved = group + np.array([tau, -tau])
    values = {"group": _ge2(group), "group_changed": _ge2(moved)}
    before, after = _ge2(np.r_[group, others]), _ge2(np.r_[moved, others])
    assert 0 < values["group"] - values["group_changed"] < 1e-9 < before - after
    case = Case(Population(np.r_[group, others], np.eye(8)), values=values)
    assert consistent(as_measure("ge-2"), before, after, case) < 0
    # The same fall of the whole with the group unchanged (within its resolution) is a violation.
    still = {"group": values["group"], "group_changed": values["group"]}
    assert consistent(as_measure("ge-2"), before, after, Case(case.before, values=still)) > 0


def _above_mean_plus_sd(similarity, list_distance):
    """A UF-like mean over the pairs whose similarity is above the pairs' mean plus their SD."""
    iu = np.triu_indices(len(similarity), 1)
    sims = similarity[iu]
    mask = sims > sims.mean() + sims.std()
    return float(np.mean(sims[mask] * list_distance[iu][mask])) if mask.any() else 0.0


def test_a_threshold_at_a_spread_jumps_where_every_entry_is_tied():
    """Tied entries have a spread of 0: one nudged above the rest crosses the threshold. The
    hand-made segment shows it at m = 3 (drawn segments found it at m = 61, where no user leaves)."""
    (verdict,) = verdicts(_above_mean_plus_sd, properties=["continuity"], max_examples=5)
    assert verdict.status == "violated" and verdict.example["change"].startswith("every similarity entry tied")
    assert len(verdict.example["before"]["similarity"]) == 3


def test_a_hand_made_segment_moving_a_field_the_measure_does_not_read_is_not_tried():
    from puf.properties.running.runner import _replayed_cases

    reads_s = as_measure(lambda effectiveness: float(np.max(effectiveness)))
    tried = [case.change for case in _replayed_cases(reads_s, CATALOG["continuity"], False)]
    assert [change for change in tried if "tied at 0.5" in change] == [
        "every effectiveness entry tied at 0.5, then effectiveness[0] moved to 0.6"
    ]


def _weighted_gap(effectiveness, similarity):
    """Σ sim·|gap| / Σ sim over pairs, 0 when no two users are similar: a weighted mean."""
    iu = np.triu_indices(len(effectiveness), 1)
    weights = np.asarray(similarity)[iu]
    gaps = np.abs(np.subtract.outer(effectiveness, effectiveness))[iu]
    return float((weights * gaps).sum() / weights.sum()) if weights.sum() > 0 else 0.0


def test_a_mean_weighted_by_similarity_jumps_where_no_two_users_are_similar():
    """At S = (0, 1) the value is 1 for any similarity > 0 and 0 at similarity 0: the drawn
    segments missed it at the default budget ("holds"); the hand-made one shows it at m = 2."""
    (verdict,) = verdicts(_weighted_gap, properties=["continuity"], known=False)
    assert verdict.status == "violated" and verdict.example["change"].startswith("no two users similar")
    assert len(verdict.example["before"]["effectiveness"]) == 2


def test_a_ratio_over_the_range_is_steep_near_equality():
    """Mean |S − mean| / (max − min) moves by a fixed amount however small the gaps: slope 2·10³ at
    gaps of 10⁻⁴, far above the bound 10 (the drawn cases missed it: "holds")."""

    def deviation_over_range(effectiveness):
        s = np.asarray(effectiveness, dtype=float)
        if np.ptp(s) == 0:
            raise ValueError("every S equal")
        return float(np.mean(np.abs(s - s.mean())) / np.ptp(s))

    (verdict,) = verdicts(deviation_over_range, properties=["lipschitz-continuity"], known=False)
    assert verdict.status == "violated" and verdict.example["change"].startswith("three users nearly equal")


def _atkinson_one(pop):
    """1 − geometric mean / mean, 1 where some S is 0: continuous, as steep as S^(1/m) there."""
    s = pop.effectiveness
    with np.errstate(divide="ignore"):
        return float(1.0 - np.exp(np.mean(np.log(s))) / s.mean())


@pytest.mark.parametrize("m", [2, 10, 40])
def test_a_steep_continuous_change_at_a_zero_is_no_jump(m):
    """Towards S(u) = 0 the Atkinson index with ε = 1 rises like S(u)^(1/m): over ten halvings a
    gap keeps half its size when m ≥ 10, and it was called a jump (at the segment's end, where t's
    float step of 2⁻⁵³ also stopped the halvings); halved on from the nearer end, it shrinks."""
    start = Population(np.linspace(0.3, 0.9, m), np.eye(m))
    end = start.replace(effectiveness=np.where(np.arange(m) == 0, 0.0, start.effectiveness))
    assert narrow_to_jump(_atkinson_one, start, end) is None
    near = start.replace(effectiveness=np.where(np.arange(m) == 0, 2.0**-55, start.effectiveness))
    assert narrow_to_jump(_atkinson_one, near, end) is None  # a pair 10⁻¹⁷ apart, as a shrunk find is
    step = lambda pop: float(pop.effectiveness[0] == 0.0)  # noqa: E731  (a jump at the same place)
    assert narrow_to_jump(step, start, end) is not None and narrow_to_jump(step, near, end) is not None
