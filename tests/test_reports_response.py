"""Trend labels and pairing contrasts on hand-made curves, the arithmetic in the comments."""

import numpy as np
import pandas as pd
import pytest

from puf.reports.response import ATOL, RTOL, TRENDS, contrast, label_table, pairing_contrasts, sweep_responses, trend
from puf.reports.sweeps import SWEEPS

P = np.linspace(0.0, 1.0, 11)
NAN = float("nan")


def _share(curve):
    return trend(P, np.asarray(curve, dtype=float), fmt="{:.0%}")


def test_the_zero_relevance_curves_of_the_inequality_and_envy_measures_rise():
    # Gini = p, undefined at p = 1 (mean 0); ME, MME and PEU as the report's sweep measures them:
    # a steady rise whose steps (0.0035) are far below 2% of the largest value's... no: above its
    # tolerance 0.02 * 0.0348 = 0.0007, so every step counts.
    gini = np.where(P < 1, P, NAN)
    me = 0.0348 * P
    mme = [0.0, 0.0239, 0.0474, 0.0724, 0.0971, 0.1217, 0.1463, 0.1705, 0.1965, 0.2208, 0.2447]
    peu = P
    for curve in (gini, me, mme, peu):
        assert _share(curve) == "rising"


def test_a_rise_of_steps_each_within_the_tolerance_is_still_a_rise():
    # Steps of 0.001 on a curve of largest value 0.1: each step is under the tolerance 0.002, the
    # total change 0.01 is over it.
    curve = 0.09 + 0.001 * np.arange(11)
    assert _share(curve) == "rising"


def test_flat_stretches_ties_and_turns():
    assert _share([0.0] + [1.0] * 10) == "rising then flat (from 10%)"  # max − min
    assert _share([2.0] * 5 + [2.0 + i for i in range(1, 7)]) == "flat then rising (from 40%)"
    assert _share(np.sqrt(P * (1 - P))) == "rising then falling (highest at 50%)"  # SD
    assert _share(1 - np.sqrt(P * (1 - P))) == "falling then rising (lowest at 50%)"
    assert _share([1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0]) == "non-monotone"
    # Ties within the tolerance (2% of 5.0 = 0.1): no move at all.
    assert _share(5.0 + 0.05 * (P > 0.5)) == "flat"
    assert _share(np.zeros(11)) == "flat" and ATOL == 1e-9 and RTOL == 0.02


def test_undefined_points_are_left_out_and_too_few_is_undefined():
    assert _share([NAN] * 10 + [0.3]) == "undefined"
    assert _share([0.0] + [NAN] * 10) == "undefined"
    assert _share([NAN, 0.1, NAN, 0.3, 0.4, NAN, 0.6, 0.7, 0.8, 0.9, 1.0]) == "rising"
    assert all(_share(c).split(" (")[0] in TRENDS for c in ([NAN] * 11, P, -P, [1.0, 0.0] * 5 + [1.0]))


def test_trend_refuses_curves_of_another_length():
    with pytest.raises(ValueError, match="one length"):
        trend([0, 1], [0, 1, 2])


def test_contrast():
    # mean(unfair − fair) = (0 + .2 + .3)/3 = 1/6 > tolerance 0.02 * 0.5; two points above by more than it
    got = contrast([0.0, 0.1, 0.2], [0.0, 0.3, 0.5])
    assert got.verdict == "unfair above" and got.gap == pytest.approx(1 / 6) and (got.above, got.points) == (2, 3)
    assert contrast([0.3, 0.5], [0.1, 0.2]).verdict == "unfair below"
    assert contrast([0.3], [0.3]).verdict == "no difference"
    assert contrast([NAN], [0.3]).verdict == "undefined"


def test_label_table_averages_seeds_first_and_names_undefined_points():
    # Two seeds whose noise cancels: the mean curve is exactly p; NaN at p = 1 on both seeds.
    rows = [("M", p, seed, (p if p < 1 else NAN) + (0.01 if seed else -0.01)) for p in P for seed in (0, 1)]
    labels = label_table(pd.DataFrame(rows, columns=["measure", "value", "seed", "score"]), x_format="{:.0%}")
    assert labels.trend.tolist() == ["rising"] and labels.undefined_at.tolist() == ["100%"]
    assert labels.change.iloc[0] == pytest.approx(0.9)


def test_sweep_responses_and_the_pairing_contrast_are_separate_tables():
    rows = []
    for pairing, level in (("most_fair", 0.1), ("most_unfair", 0.3)):
        rows += [("PUF-P", "zero_relevance", pairing, p, 0, level * p * (1 - p) * 4) for p in P]
        rows += [("UF", "zero_relevance", pairing, p, 0, 2.0) for p in P]
    table = pd.DataFrame(rows, columns=["measure", "parameter", "pairing", "value", "seed", "score"])
    labels = sweep_responses(SWEEPS["pairing"], table)
    got = {(r.measure, r.condition): r.trend for r in labels.itertuples()}
    assert got["PUF-P", "pairing = most_fair"] == "rising then falling (highest at 50%)"
    assert got["UF", "pairing = most_unfair"] == "flat"
    contrasts = {r.measure: r for r in pairing_contrasts(SWEEPS["pairing"], table).itertuples()}
    # Nine interior points where 0.3·4p(1 − p) > 0.1·4p(1 − p); the ends are 0 under both.
    assert contrasts["PUF-P"].verdict == "unfair above" and (contrasts["PUF-P"].above, contrasts["PUF-P"].points) == (
        9,
        11,
    )
    assert contrasts["UF"].verdict == "no difference"
    assert pairing_contrasts(SWEEPS["zero_relevance"], table.drop(columns="pairing")).empty


def test_the_identities_are_read_at_the_realised_share():
    """With m = 3 a nominal share of 0.5 puts round(1.5) = 2 users at zero relevance: q = 2/3."""
    from puf.reports.findings import _identities

    rows = []
    for p, q in ((0.0, 0.0), (0.5, 2 / 3), (1.0, 1.0)):
        rows += [("P@k", p, 0, 1 - q), ("SD-P", p, 0, np.sqrt(q * (1 - q))), ("Gini-P", p, 0, q if q < 1 else NAN)]
    sd, gini = _identities("toy", pd.DataFrame(rows, columns=["measure", "value", "seed", "score"]), "toy_zero")
    assert sd.reproduced and gini.reproduced
    assert sd.sentence.startswith("Largest |SD − √(q(1 − q))| over every point and seed: 0 (q is the realised share")


def test_a_measure_found_not_deterministic_has_its_reading_say_so():
    """A user's measure whose deterministic verdict is violated (a sampled estimate) moves by noise
    on every sweep: its reading says so; a deterministic one's does not."""
    from puf.reports.findings import findings

    rows = [
        ("synthetic", "zero_relevance", "zero_relevance", "mine-P", "", "rising", 0.3),
        ("synthetic", "skewness", "skewness", "mine-P", "pairing = random", "falling", 0.05),
        ("synthetic", "zero_relevance", "zero_relevance", "steady-P", "", "rising", 0.3),
        ("synthetic", "skewness", "skewness", "steady-P", "pairing = random", "flat", 0.0),
    ]
    responses = pd.DataFrame(rows, columns=["data", "sweep", "figure", "measure", "condition", "trend", "change"])
    contrasts = pd.DataFrame(columns=["data", "sweep", "figure", "measure", "verdict", "gap", "above", "points"])
    found = {
        f.claim: f.sentence for f in findings(responses, contrasts, {}, yours=["mine", "steady"], unsteady={"mine"})
    }
    assert found["your measure mine"].endswith("so part of each change here is its own noise.")
    assert "noise" not in found["your measure steady"]
