"""synthetic.effectiveness: exact zero counts, exact mean and SD, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puf import gini, sd
from puf.synthetic import max_sd, spread_effectiveness, zero_relevance_effectiveness

seeds = st.integers(0, 2**32 - 1)


@given(m=st.integers(2, 300), fraction=st.floats(0.0, 1.0), high=st.floats(0.0, 1.0), seed=seeds)
def test_exactly_round_fraction_m_zeros(m, fraction, high, seed):
    e = zero_relevance_effectiveness(m, fraction, high=high, random_state=seed)
    assert e.shape == (m,) and e.dtype == np.float64
    assert int((e != high).sum() if high > 0 else m) == (round(fraction * m) if high > 0 else m)
    assert set(np.unique(e)) <= {0.0, high}


def test_zero_sets_are_nested_across_fractions():
    previous = np.zeros(100, dtype=bool)
    for fraction in np.linspace(0, 1, 11):
        zero = zero_relevance_effectiveness(100, fraction, random_state=4) == 0
        assert zero.sum() == round(fraction * 100) and np.all(zero[previous])
        previous = zero


def test_paper_identities():
    # p = 0.3 of 10 users at 0, the rest at 1: SD = sqrt(0.3 * 0.7), Gini = 0.3
    e = zero_relevance_effectiveness(10, 0.3, random_state=0)
    assert sd(e) == pytest.approx(math.sqrt(0.21), abs=1e-12)
    assert gini(e) == pytest.approx(0.3, abs=1e-12)
    # Python's round is half to even: 0.5 * 5 = 2.5 -> 2 zeros
    assert (zero_relevance_effectiveness(5, 0.5, random_state=0) == 0).sum() == 2


def test_max_sd_by_hand():
    # m = 3, mean 0.5: j + f = 1.5 -> one value at 1, one at 0.5, one at 0:
    # mean of squares (1 + 0.25) / 3, minus 0.25: sqrt(5/12 - 1/4) = sqrt(1/6)
    assert max_sd(3, 0.5) == pytest.approx(math.sqrt(1 / 6), abs=1e-15)
    assert max_sd(2, 0.2) == pytest.approx(0.2, abs=1e-15)  # 0.4 and 0: SD 0.2


@settings(max_examples=60, deadline=None)
@given(m=st.integers(2, 200), mean=st.floats(0.01, 0.99), share=st.floats(0.0, 1.0), seed=seeds)
def test_exact_mean_and_sd(m, mean, share, seed):
    target = share * max_sd(m, mean)
    x = spread_effectiveness(m, mean=mean, sd=target, random_state=seed)
    assert x.shape == (m,) and 0.0 <= x.min() and x.max() <= 1.0
    assert abs(x.mean() - mean) < 1e-9
    assert abs(x.std() - target) < 1e-9 * max(1.0, target / 1e-3)


def test_spread_is_continuous_and_reproducible():
    x = spread_effectiveness(500, mean=0.4, sd=0.15, random_state=2)
    assert np.unique(x).size == 500
    assert x.tobytes() == spread_effectiveness(500, mean=0.4, sd=0.15, random_state=2).tobytes()
    z = zero_relevance_effectiveness(50, 0.5, random_state=2)
    assert z.tobytes() == zero_relevance_effectiveness(50, 0.5, random_state=2).tobytes()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: zero_relevance_effectiveness(10, 1.2), r"fraction must lie in \[0, 1\], got 1.2"),
        (lambda: zero_relevance_effectiveness(10, -0.1), r"fraction must lie in \[0, 1\]"),
        (lambda: zero_relevance_effectiveness(1, 0.5), "m must be >= 2"),
        (lambda: zero_relevance_effectiveness(10, 0.5, high=2.0), "high must lie in"),
        (lambda: spread_effectiveness(10, mean=0.0, sd=0.1), "mean must lie strictly inside"),
        (lambda: spread_effectiveness(10, mean=1.5, sd=0.1), "mean must lie strictly inside"),
        (lambda: spread_effectiveness(10, mean=0.5, sd=-0.1), "sd must be >= 0"),
        (lambda: spread_effectiveness(10, mean=0.5, sd=0.6), r"sd must be <= 0.5"),
        (lambda: spread_effectiveness(1, mean=0.5, sd=0.1), "m must be >= 2"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
