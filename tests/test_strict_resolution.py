"""A strict judgment of a measure that returns a coarser float (float32): a change within that
float's rounding is neither a violation nor a pass; a violation is reported only where the
values show the step failed. float64 measures are judged as before, to the bit."""

import math

import numpy as np

from puf import Population, as_measure
from puf.properties import get_property
from puf.properties.cases.case import Case
from puf.properties.catalog.judges import MEASURE_EPSILON, resolution, strict_excess, strictly_fairer
from puf.properties.running.matrix import verdicts


def _pair_gaps(dtype):
    """Mean over pairs of sim·|gap|, computed and returned in ``dtype``."""

    def pair_gaps(effectiveness, similarity):
        s, w = np.asarray(effectiveness, dtype=dtype), np.asarray(similarity, dtype=dtype)
        gaps = np.abs(s[:, None] - s[None, :]) * w
        return dtype(gaps[np.triu_indices(s.size, 1)].mean())

    return pair_gaps


def _reversed_pair_gaps(effectiveness, similarity):
    """Mean over pairs of (1 − sim)·|gap| in float32: a raise of similarity lowers it."""
    s, w = np.asarray(effectiveness, dtype=np.float32), np.asarray(similarity, dtype=np.float32)
    gaps = np.abs(s[:, None] - s[None, :]) * (1 - w)
    return np.float32(gaps[np.triu_indices(s.size, 1)].mean())


def _small_raise():
    """m = 20; the similarity of a pair 0.01 apart raised by 0.01: a rise of 0.01·0.01/190 ≈ 5.3e-7
    of a value near 0.45 (users at 0 or 1, most alike), within float32's rounding of a mean over
    190 pairs (about 1e-6)."""
    rng = np.random.default_rng(3)
    s = rng.integers(0, 2, size=20).astype(float)
    s[:2] = [0.5, 0.51]
    sim = np.round(rng.uniform(0.8, 1.0, size=(20, 20)), 4)
    sim = np.triu(sim, 1) + np.triu(sim, 1).T + np.eye(20)
    sim[0, 1] = sim[1, 0] = 0.5
    raised = sim.copy()
    raised[0, 1] = raised[1, 0] = 0.51
    pop = Population(s, sim)
    return Case(pop, pop.replace(similarity=raised), "sim(0,1) raised 0.5 → 0.51")


def _judged(dtype, case):
    measure, fn = as_measure(_pair_gaps(dtype)), _pair_gaps(dtype)
    before, after = (float(fn(p.effectiveness, p.similarity)) for p in (case.before, case.after))
    return get_property("strict-similarity-monotone").judge(measure, before, after, case), before, after


def test_a_real_raise_within_float32s_rounding_is_undecided_not_a_violation():
    case = _small_raise()
    excess, before, after = _judged(np.float64, case)
    assert after - before > 5e-7 and excess < 0  # in float64 the raise is there, far beyond its resolution
    token = MEASURE_EPSILON.set(2.0**-23)
    try:
        excess, before, after = _judged(np.float32, case)
        assert 0 < after - before < resolution(20, before, after)  # seen in float32, below its resolution
        assert math.isnan(excess)  # neither a violation nor a pass
    finally:
        MEASURE_EPSILON.reset(token)


def test_a_float32_step_the_wrong_way_beyond_its_rounding_is_still_a_violation():
    measure = as_measure("sd")
    token = MEASURE_EPSILON.set(2.0**-23)
    try:
        # A transfer that raised a float32 SD of 0.3 by 1e-5 (its rounding at m = 4: about 1.4e-7).
        assert strictly_fairer(measure, 0.3, 0.30001, Case(Population([0.0, 0.2, 0.4, 1.0], np.eye(4)))) > 0
        assert strict_excess(4, 1e-5, 0.3) < 0  # a fall beyond the rounding holds
    finally:
        MEASURE_EPSILON.reset(token)


def test_float64_strict_margins_are_unchanged_to_the_bit():
    for m, gain, values in [(3, 0.0, (0.5,)), (262, 1.8e-13, (-0.788795, -0.7887950000002)), (87, -1e-3, (2.5, 2.4))]:
        assert strict_excess(m, gain, *values) == resolution(m, *values) - gain


def test_float32_pair_gaps_keep_strict_similarity_monotone_and_a_reversed_one_breaks_it():
    """The researcher's float32 PUF holds (its small raises are undecided, its large ones pass); a
    float32 measure that falls as similarity rises is still violated."""
    found = verdicts(as_measure(_pair_gaps(np.float32)), properties=["strict-similarity-monotone"], max_examples=30)
    assert [v.status for v in found] == ["holds"]
    found = verdicts(as_measure(_reversed_pair_gaps), properties=["strict-similarity-monotone"], max_examples=30)
    assert [v.status for v in found] == ["violated"] and "lowered" in found[0].reason


def test_an_undecided_alternative_does_not_hide_a_violating_one():
    """The worst of a case's alternatives is chosen by excess; an undecided one (NaN) ranks last."""
    import dataclasses

    from puf.properties.running.runner import MEASURE_CALLS
    from puf.properties.running.search import evaluate_case

    def judge(measure, before, after, case):
        return math.nan if case.change == "undecided" else after - before

    prop = dataclasses.replace(get_property("strict-transfer"), judge=judge)
    pop = Population([0.0, 0.5, 1.0], np.eye(3))
    wider = Case(pop, pop.replace(effectiveness=[0.0, 0.0, 1.0]), "wider")
    case = Case(pop, pop.replace(effectiveness=[0.1, 0.5, 0.9]), "undecided", alternatives=(wider,))
    chosen, before, after = evaluate_case(case, as_measure("sd"), prop, 10.0, measure_calls=MEASURE_CALLS)
    assert chosen.change == "wider" and after > before
