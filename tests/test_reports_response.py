"""Response labels on hand-made curves, the arithmetic in the comments."""

import math

import numpy as np
import pandas as pd
import pytest

from puf.reports.response import ATOL, RHO_MIN, RTOL, contrast, label_table, response, sweep_responses
from puf.reports.sweeps import SWEEPS

P = np.linspace(0.0, 1.0, 11)
DISPARITY = P * (1 - P)


def test_sd_like_curve_responds_with_rho_one():
    # sqrt is increasing, so the ranks of sqrt(p(1-p)) equal those of p(1-p): rho = 1.
    got = response(DISPARITY, np.sqrt(DISPARITY))
    assert got.label == "responds"
    assert got.rho == pytest.approx(1.0)
    assert got.change == pytest.approx(0.5)  # max sqrt(.25) - min 0


def test_flat_within_the_stated_tolerance():
    # change 0.009 <= max(1e-9, 0.02 * 5.01) = 0.1002: flat
    got = response(DISPARITY, 5.0 + 0.009 * (P > 0.5))
    assert got.label == "flat"
    assert got.tolerance == pytest.approx(RTOL * 5.009)
    assert math.isnan(got.rho)
    # A curve identically 0 is flat by the absolute tolerance.
    assert response(DISPARITY, np.zeros(11)).label == "flat"
    assert ATOL == 1e-9 and RHO_MIN == 0.8


def test_wrong_direction_and_either_direction():
    falling = 1.0 - DISPARITY
    assert response(DISPARITY, falling).label == "wrong direction"
    assert response(DISPARITY, falling, expected=0).label == "responds"
    assert response(DISPARITY, falling, expected=-1).label == "responds"


def test_gini_like_curve_is_non_monotone_in_disparity():
    # Gini = p keeps rising after p = 0.5 where the disparity falls; NaN at p = 1 is dropped.
    curve = np.where(P < 1, P, np.nan)
    got = response(DISPARITY, curve)
    assert got.label == "non-monotone"
    assert abs(got.rho) < RHO_MIN


def test_undefined_curve():
    assert response([0.0, 1.0], [np.nan, 0.3]).label == "undefined"


def test_bad_arguments():
    with pytest.raises(ValueError, match="expected must be"):
        response([0, 1], [0, 1], expected=2)
    with pytest.raises(ValueError, match="one length"):
        response([0, 1], [0, 1, 2])


def test_contrast():
    # mean(unfair - fair) = (0 + .2 + .3)/3 = 1/6 > tolerance 0.02 * 0.5: responds, 2 of 3 points higher
    got = contrast([0.0, 0.1, 0.2], [0.0, 0.3, 0.5])
    assert got.label == "responds" and got.change == pytest.approx(1 / 6) and got.rho == pytest.approx(2 / 3)
    assert contrast([0.3, 0.5], [0.1, 0.2]).label == "wrong direction"
    assert contrast([0.3], [0.3]).label == "flat"


def test_label_table_averages_seeds_first():
    # Two seeds whose noise cancels: the mean curve is exactly p(1-p).
    rows = [("M", p, seed, d + (0.01 if seed else -0.01)) for p, d in zip(P, DISPARITY) for seed in (0, 1)]
    table = pd.DataFrame(rows, columns=["measure", "value", "seed", "score"])
    labels = label_table(table, driver=lambda x: x * (1 - x))
    assert labels.label.tolist() == ["responds"]
    assert labels.change.iloc[0] == pytest.approx(0.25)


def test_sweep_responses_adds_the_pairing_contrast():
    rows = []
    for pairing, level in (("most_fair", 0.1), ("most_unfair", 0.3)):
        rows += [("PUF-P", "zero_relevance", pairing, p, 0, level * d * 4) for p, d in zip(P, DISPARITY)]
        rows += [("UF", "zero_relevance", pairing, p, 0, 2.0) for p in P]
    table = pd.DataFrame(rows, columns=["measure", "parameter", "pairing", "value", "seed", "score"])
    labels = sweep_responses(SWEEPS["pairing"], table)
    got = {(r.measure, r.condition): r.label for r in labels.itertuples()}
    assert got["PUF-P", "pairing = most_fair"] == "responds"
    assert got["PUF-P", "unfair − fair"] == "responds"
    assert got["UF", "unfair − fair"] == "flat"
    assert got["UF", "pairing = most_unfair"] == "flat"
