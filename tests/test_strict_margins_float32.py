"""The strict halves of ``similar-treated-alike`` and ``envy-free-fairest`` follow the coarse-float
rule of every strict judgment (:func:`~puf.properties.catalog.judges.strict_excess`): a float32
measure whose distance from its fairest end is within float32's rounding is neither violated nor
passed, and a float64 measure is judged to the bit as before."""

import dataclasses
import math

import numpy as np
import pytest

from puf import Population, as_measure
from puf.properties import get_property, verdicts
from puf.properties.cases.case import Case
from puf.properties.catalog.judges import MEASURE_EPSILON, resolution, unfairness


def _closeness(dtype):
    """One minus the mean over pairs of sim·|gap|, computed in ``dtype``: 1 (its fairest end)
    when similar users are treated alike."""

    def closeness(effectiveness, similarity):
        s, w = np.asarray(effectiveness, dtype=dtype), np.asarray(similarity, dtype=dtype)
        gaps = np.abs(s[:, None] - s[None, :]) * w
        return dtype(1) - dtype(gaps[np.triu_indices(s.size, 1)].mean())

    return dataclasses.replace(as_measure(closeness), direction="higher")


def _one_pair_told_apart(m=300):
    """Users 0 and 1 identical, everyone else similar to no one, all at 0.5; then user 0 moved
    0.01: the value leaves its fairest end by 0.01 / (m(m−1)/2), 2.2e-7 at m = 300, within
    float32's rounding of a mean over 44,850 pairs (about 3.6e-5)."""
    similarity = np.eye(m)
    similarity[0, 1] = similarity[1, 0] = 1.0
    pop = Population(np.full(m, 0.5), similarity)
    moved = pop.effectiveness.copy()
    moved[0] = 0.51
    return Case(pop, pop.replace(effectiveness=moved), "user 0 moved 0.01 from its cluster")


def _judged(prop, measure, case, epsilon):
    values = [float(measure(**p.fields())) for p in (case.before, case.after)]
    token = MEASURE_EPSILON.set(epsilon)
    try:
        return get_property(prop).judge(measure, *values, case), values
    finally:
        MEASURE_EPSILON.reset(token)


def test_a_float32_pair_told_apart_within_its_rounding_is_undecided_not_violated():
    case = _one_pair_told_apart()
    excess, (before, after) = _judged("similar-treated-alike", _closeness(np.float32), case, 2.0**-23)
    assert before == 1.0 and 0 < before - after < 1e-6  # float32 shows the move, below its rounding
    token = MEASURE_EPSILON.set(2.0**-23)
    try:
        assert before - after < resolution(case.before.m, after, before)  # the old margin called it violated
    finally:
        MEASURE_EPSILON.reset(token)
    assert math.isnan(excess)


def test_a_float32_measure_blind_to_the_move_is_still_violated():
    def blind(effectiveness, similarity):  # at its fairest end whatever the users get
        return np.float32(0.0) * np.float32(np.sum(effectiveness))

    excess, _ = _judged("similar-treated-alike", as_measure(blind), _one_pair_told_apart(4), 2.0**-23)
    assert excess > 0


@pytest.mark.parametrize("m", [4, 300])
def test_float64_margins_of_similar_treated_alike_are_unchanged_to_the_bit(m):
    case = _one_pair_told_apart(m)
    measure = _closeness(np.float64)
    excess, (before, after) = _judged("similar-treated-alike", measure, case, 2.0**-52)
    apart = unfairness(measure, after) - unfairness(measure, measure.fairest)
    assert excess == resolution(m, after, measure.fairest) - apart < 0


def _envious(value):
    """Two users, user 0 valuing user 1's list 0.02 above its own: envy, so the value must leave
    the fairest end."""
    pop = Population([0.5, 0.5], np.eye(2), utility=[[0.5, 0.52], [0.2, 0.4]])
    return Case(pop), value


def test_envy_free_fairest_sets_aside_a_float32_distance_within_its_rounding():
    measure = dataclasses.replace(as_measure(lambda utility: 1.0), direction="higher")
    case, value = _envious(float(np.float32(1.0) - np.float32(2.0**-23)))  # one float32 step below 1
    judge = get_property("envy-free-fairest").judge
    token = MEASURE_EPSILON.set(2.0**-23)
    try:
        assert 1.0 - value < resolution(2, value)  # the old margin called it violated
        assert math.isnan(judge(measure, value, None, case))
        # A float32 value of 0 at its fairest end is exact: there, despite the envy, it is violated.
        assert judge(as_measure(lambda utility: 0.0), 0.0, None, case) > 0
    finally:
        MEASURE_EPSILON.reset(token)
    gain = 1.0 - value
    assert judge(measure, value, None, case) == resolution(2, value) - gain < 0  # float64: as before


def _jain32(effectiveness):
    """Jain's index computed in float32 (1 is fairest): it reads effectiveness alone, and a
    composite transfer that keeps the variance leaves it unchanged in exact arithmetic."""
    s = np.asarray(effectiveness, dtype=np.float32)
    total = s.sum()
    return np.float32(1.0) if total == 0 else np.float32(total * total / (s.size * (s * s).sum()))


@pytest.fixture(scope="module")
def jain32_verdicts():
    from puf.properties import verdicts

    measure = dataclasses.replace(as_measure(_jain32), direction="higher")
    names = ["strict-similarity-monotone", "transfer-sensitivity", "rearrangement"]
    return {v.property: v for v in verdicts(measure, properties=names, max_examples=20)}


def test_a_change_the_float32_measure_cannot_read_is_judged_as_float64(jain32_verdicts):
    # A raise of similarity never reaches a measure of effectiveness: its step is exactly 0,
    # not a rounding, so the strict property is violated as for any float.
    verdict = jain32_verdicts["strict-similarity-monotone"]
    assert verdict.status == "violated", verdict.reason
    assert verdict.reason.startswith("the measure reads no similarity, so the change leaves the value unchanged")
    assert verdict.example["value_before"] == verdict.example["value_after"]


def test_steps_within_float32_rounding_are_counted_as_undecided_not_as_nan(jain32_verdicts):
    # Every composite transfer leaves Jain's index within float32's rounding of itself.
    verdict = jain32_verdicts["transfer-sensitivity"]
    assert verdict.status == "undefined"
    assert verdict.reason.startswith("undecided on all ")
    assert "NaN" not in verdict.reason
    assert "within the resolution of the float type the measure returns" in verdict.reason
    # The pairings, told apart by similarity it does not read, are one relabelled to it: a tie to
    # the bit is no rounding, and it cannot rank them, as the float64 Jain's index cannot.
    pairing = jain32_verdicts["rearrangement"]
    assert pairing.status == "violated" and "reads no similarity" in pairing.reason, pairing.reason


def gini32(effectiveness):
    """Gini's index computed in float32, as 2·Σ i·S₍ᵢ₎ / (m·Σ S) − (m + 1)/m: at equal effectiveness
    a difference of two terms near 1, which float32 rounds to ±1.2e-7 rather than 0."""
    s = np.sort(np.asarray(effectiveness, dtype=np.float32))
    m, total = s.size, s.sum()
    if not total > 0:
        return np.float32(0.0)
    ranks = np.arange(1, m + 1, dtype=np.float32)
    return np.float32(2) * (ranks * s).sum() / (np.float32(m) * total) - np.float32(m + 1) / np.float32(m)


def test_a_float32_equality_missed_by_its_own_rounding_is_no_violation():
    """Equal effectiveness gives the float32 Gini ±1.2e-7 (zero-at-equality, a copy of the users:
    replication-invariance, and below its range's 0): float32's rounding of terms near 1, set aside
    as undecided, not a violation. A miss far beyond that rounding still is one."""
    assert gini32([0.35] * 6) != 0 and gini32([0.1] * 7) < 0
    measure = as_measure(gini32)
    measure = dataclasses.replace(measure, range=(0.0, 1.0))
    found = {
        v.property: v for v in verdicts(measure, properties=["zero-at-equality", "replication-invariance", "range"])
    }
    assert {p: v.status for p, v in found.items() if v.status == "violated"} == {}, {
        p: v.reason for p, v in found.items()
    }
    off = as_measure(lambda effectiveness: np.float32(0.01) + gini32(effectiveness))
    (missed,) = verdicts(off, properties=["zero-at-equality"])
    assert missed.status == "violated"


def test_a_float32_measure_that_reads_no_similarity_cannot_rank_the_pairings():
    """To a float32 Gini the most fair and most unfair pairings are one relabelled, both values
    equal to the bit: no rounding of a coarser float hides a strict gain there, so rearrangement
    is violated as for a float64 measure that reads no similarity (it was "holds", every tie set
    aside as undecided)."""
    (found,) = verdicts(as_measure(gini32), properties=["rearrangement"])
    assert found.status == "violated" and "reads no similarity" in found.reason, found.reason


def _sd(dtype):
    def spread(effectiveness):
        s = np.asarray(effectiveness, dtype=dtype)
        return dtype(np.sqrt(np.mean((s - s.mean(dtype=dtype)) ** 2, dtype=dtype)))

    return spread


def test_continuity_and_lipschitz_set_aside_a_coarse_floats_last_unit():
    """Two inputs 8e-16 apart round to neighbouring float32 values and a float32 SD moves by
    3e-8, within its rounding: no jump. A float16 unit at 0.0856 over δ = 6.5e-8 is a slope of
    925, rounding again: no Lipschitz break. Both are undecided, not violated; a float64 SD and a
    real jump are judged as before."""
    near = Population([1.0, 0.8153499662876129], np.eye(2)), Population([1.0, 0.8153499662876137], np.eye(2))
    case = Case(*near, delta=8e-16)
    sd32 = as_measure(_sd(np.float32))
    assert math.isnan(_judged("continuity", sd32, case, 2.0**-23)[0])
    assert _judged("continuity", as_measure(_sd(np.float64)), case, 2.0**-52)[0] < 0
    step = Population([0.1712036, 0.0], np.eye(2)), Population([0.1712037, 0.0], np.eye(2))
    half = as_measure(
        lambda effectiveness: np.float16(np.mean(np.abs(np.subtract(effectiveness, np.mean(effectiveness)))))
    )
    assert math.isnan(_judged("lipschitz-continuity", half, Case(*step, delta=6.5e-8), 2.0**-10)[0])
    found = {v.property: v.status for v in verdicts(sd32, properties=["continuity", "lipschitz-continuity"])}
    assert "violated" not in found.values(), found
    jumps = as_measure(lambda effectiveness: np.float32(np.mean(effectiveness) > 0.5))
    (broken,) = verdicts(jumps, properties=["continuity"])
    assert broken.status == "violated"


def _mean_difference(dtype):
    def mean_difference(effectiveness):
        s = np.asarray(effectiveness, dtype=dtype)
        return dtype(np.abs(s[:, None] - s[None, :]).sum() / (s.size * (s.size - 1)))

    return as_measure(mean_difference)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_a_coarse_mean_difference_is_shown_rising_under_a_composite_transfer(dtype):
    # The first hand-made composite leaves it exactly where it was, within its rounding: undecided.
    (verdict,) = verdicts(_mean_difference(dtype), properties=["transfer-sensitivity"], max_examples=5, known=False)
    example = verdict.example
    assert verdict.status == "violated"
    assert example["change"].startswith("explicit: composite transfer S = (0, 0.35, 0.5, 0.55)")
    assert example["value_after"] - example["value_before"] > 0.015  # Σ|gaps| 1.8 → 1.9, over 12 ordered pairs


def test_a_float64_mean_difference_is_shown_its_exact_tie_first():
    (verdict,) = verdicts(
        _mean_difference(np.float64), properties=["transfer-sensitivity"], max_examples=5, known=False
    )
    assert verdict.status == "violated"
    assert verdict.example["change"].startswith("explicit: composite transfer S = (0, 0.3, 0.4, 0.5)")
