"""synthetic.similarity: exact mean and sample skewness, rank-preserving reshaping, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import skew, spearmanr

from puf.synthetic import (
    SkewnessReshaper,
    off_diagonal,
    power_skewness,
    reshape_skewness,
    sample_skewness,
    similarity_matrix,
    skewness_interval,
)

families = st.sampled_from(["beta", "lognormal"])
means = st.floats(0.01, 0.99)


def test_sample_skewness_by_hand():
    # values 0, 0, 0, 1: mean 1/4, m2 = (3 (1/4)^2 + (3/4)^2) / 4 = 3/16,
    # m3 = (3 (-1/4)^3 + (3/4)^3) / 4 = (-3/64 + 27/64) / 4 = 3/32, skew = (3/32) / (3/16)^1.5
    assert sample_skewness([0, 0, 0, 1]) == pytest.approx((3 / 32) / (3 / 16) ** 1.5, abs=1e-12)
    assert sample_skewness([0.3, 0.3]) == 0.0  # constant: 0 by convention
    rng = np.random.default_rng(0)
    x = rng.standard_exponential(300_000)  # several passes of the chunked moments
    assert sample_skewness(x) == pytest.approx(skew(x), abs=1e-10)


def test_interval_documented_values():
    # m = 3: N = 3 pairs, 0.75 (N-2)/sqrt(N-1) = 0.75/sqrt(2)
    assert skewness_interval(3) == pytest.approx((-0.75 / np.sqrt(2), 0.75 / np.sqrt(2)))
    assert skewness_interval(2) == (0.0, 0.0)
    # at m >= 20 the cap of 10 binds: N = 190, 0.75 * 188 / sqrt(189) = 10.26
    assert skewness_interval(20) == (-10.0, 10.0)
    lo, hi = skewness_interval(200)
    assert lo <= -1.5 and hi >= 8  # the required minimum interval at mean 0.2


@pytest.mark.parametrize("family", ["beta", "lognormal"])
@pytest.mark.parametrize("target", [-1.5, -1.0, 0.0, 0.5, 2.0, 4.0, 8.0])
def test_targets_at_mean_02(family, target):
    s = similarity_matrix(200, skewness=target, mean=0.2, family=family, random_state=1)
    values = off_diagonal(s)
    assert abs(skew(values) - target) < 1e-5  # well inside the required 0.05
    assert values.mean() == pytest.approx(0.2, abs=1e-12)
    assert np.array_equal(s, s.T) and s.min() >= 0 and s.max() <= 1
    assert np.all(np.diag(s) == 1.0)


@settings(max_examples=30, deadline=None)
@given(
    m=st.integers(200, 260),
    fraction=st.floats(-1.0, 1.0),
    mean=means,
    family=families,
    seed=st.integers(0, 2**32 - 1),
)
def test_skewness_and_mean_exact_anywhere_in_the_interval(m, fraction, mean, family, seed):
    target = fraction * skewness_interval(m)[1]
    s = similarity_matrix(m, skewness=target, mean=mean, family=family, random_state=seed)
    values = off_diagonal(s)
    assert abs(skew(values) - target) < 0.05
    assert abs(skew(values) - target) < 1e-5
    assert values.mean() == pytest.approx(mean, abs=1e-12)
    assert np.array_equal(s, s.T)
    assert 0.0 <= s.min() and s.max() <= 1.0


@settings(max_examples=40, deadline=None)
@given(m=st.integers(2, 40), fraction=st.floats(-1.0, 1.0), mean=means, family=families)
def test_small_matrices_still_hit_the_target(m, fraction, mean, family):
    target = fraction * skewness_interval(m)[1]
    values = off_diagonal(similarity_matrix(m, skewness=target, mean=mean, family=family, random_state=0))
    assert abs(sample_skewness(values) - target) < 1e-5
    assert values.mean() == pytest.approx(mean, abs=1e-12)


def test_same_random_state_is_byte_identical():
    a = similarity_matrix(150, skewness=3.0, random_state=7)
    b = similarity_matrix(150, skewness=3.0, random_state=np.random.default_rng(7))
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != similarity_matrix(150, skewness=3.0, random_state=8).tobytes()
    observed = similarity_matrix(80, skewness=1.0, random_state=0)
    c = reshape_skewness(observed, skewness=-1.0, random_state=3)
    assert c.tobytes() == reshape_skewness(observed, skewness=-1.0, random_state=3).tobytes()


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(20, 60),
    target=st.floats(-1.5, 8.0),
    zeros=st.floats(0.0, 0.8),
    seed=st.integers(0, 1000),
)
def test_reshape_keeps_order_and_hits_target(m, target, zeros, seed):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((m, m)) ** 3, 1)
    upper[rng.random((m, m)) < zeros] = 0.0  # many exact ties, as in real Jaccard
    observed = upper + upper.T + np.eye(m)
    reshaped = reshape_skewness(observed, skewness=target, random_state=seed)
    before, after = off_diagonal(observed), off_diagonal(reshaped)
    assert abs(sample_skewness(after) - target) < 1e-5
    assert after.mean() == pytest.approx(before.mean(), abs=1e-12)
    # Strictly ordered observed pairs stay in the same order.
    order = np.argsort(before, kind="stable")
    distinct = np.diff(before[order]) > 0
    assert np.all(np.diff(after[order])[distinct] >= 0)
    assert np.array_equal(np.diag(reshaped), np.diag(observed))
    assert np.array_equal(reshaped, reshaped.T)


def test_reshape_rank_correlation_and_explicit_mean():
    rng = np.random.default_rng(0)
    a = rng.random((50, 50))
    observed = (a + a.T) / 2
    reshaped = reshape_skewness(observed, skewness=5.0, mean=0.1, family="lognormal", random_state=0)
    assert spearmanr(off_diagonal(observed), off_diagonal(reshaped))[0] == pytest.approx(1.0)
    assert off_diagonal(reshaped).mean() == pytest.approx(0.1, abs=1e-12)


def test_power_by_hand():
    # Off-diagonal values 0, 1/4, 1: three values have zero skewness iff the middle one is
    # their mean, (0 + x + 1) / 3 = x, i.e. x = 1/2; 0 and 1 are fixed points of x -> x**alpha,
    # so (1/4)**alpha = 1/2, alpha = 1/2, and 1/4 becomes 1/2.
    observed = np.array([[1.0, 0.0, 0.25], [0.0, 1.0, 1.0], [0.25, 1.0, 1.0]])
    powered = power_skewness(observed, skewness=0.0)
    np.testing.assert_allclose(powered, [[1.0, 0.0, 0.5], [0.0, 1.0, 1.0], [0.5, 1.0, 1.0]], atol=1e-9)
    assert powered[0, 1] == 0.0 and powered[1, 2] == 1.0  # exactly fixed


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(20, 60),
    target=st.floats(0.0, 6.0),
    zeros=st.floats(0.0, 0.4),
    seed=st.integers(0, 1000),
)
def test_power_keeps_order_and_hits_target(m, target, zeros, seed):
    # With at most 40% zero pairs the alpha -> 0 limit (a 0/1 sample, share q >= 0.6 of ones)
    # has skewness (1 - 2q)/sqrt(q(1 - q)) <= -0.4 < 0; a unique largest pair pushes the
    # alpha -> inf limit towards (N - 2)/sqrt(N - 1) >= 13 for N >= 190 pairs: 0..6 is inside.
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((m, m)) ** 3, 1)
    upper[rng.random((m, m)) < zeros] = 0.0
    observed = upper + upper.T + np.eye(m)
    powered = power_skewness(observed, skewness=target)
    before, after = off_diagonal(observed), off_diagonal(powered)
    assert abs(sample_skewness(after) - target) < 1e-6
    assert abs(skew(after) - target) < 1e-6
    order = np.argsort(before, kind="stable")
    assert np.all(np.diff(after[order]) >= 0)  # the order of the pairs is kept
    assert np.array_equal(after[before == 0], before[before == 0])
    assert np.array_equal(powered, powered.T)
    assert np.array_equal(np.diag(powered), np.diag(observed))
    assert 0.0 <= powered.min() and powered.max() <= 1.0


def test_power_moves_the_mean_and_is_deterministic():
    rng = np.random.default_rng(1)
    a = rng.random((50, 50))
    observed = (a + a.T) / 2
    low, high = power_skewness(observed, skewness=0.0), power_skewness(observed, skewness=3.0)
    # A larger power makes every value in (0, 1) smaller: the mean falls as skewness rises.
    assert off_diagonal(high).mean() < off_diagonal(low).mean()
    assert spearmanr(off_diagonal(observed), off_diagonal(high))[0] == pytest.approx(1.0)
    assert power_skewness(observed, skewness=3.0).tobytes() == high.tobytes()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: similarity_matrix(1, skewness=0.0), "m must be >= 2"),
        (lambda: similarity_matrix(10, skewness=0.0, mean=0.0), "mean must lie strictly inside"),
        (lambda: similarity_matrix(10, skewness=0.0, mean=1.0), "mean must lie strictly inside"),
        (lambda: similarity_matrix(200, skewness=10.5), r"achievable interval is \[-10, 10\]"),
        (lambda: similarity_matrix(2, skewness=0.5), r"achievable interval is \[0, 0\]"),
        (lambda: similarity_matrix(10, skewness=float("nan")), "finite"),
        (lambda: similarity_matrix(10, skewness=0.0, family="gamma"), "unknown family 'gamma'; known: beta, lognormal"),
        (lambda: reshape_skewness(np.ones((2, 3)), skewness=0.0), "square"),
        (lambda: reshape_skewness([[1, 0.2], [0.3, 1]], skewness=0.0), "symmetric"),
        (lambda: reshape_skewness(np.eye(3), skewness=0.0), "observed off-diagonal mean is 0.0"),
        (lambda: reshape_skewness(np.full((3, 3), 0.5), skewness=3.0), "unreachable"),
        (lambda: power_skewness(np.ones((2, 3)), skewness=0.0), "square"),
        (lambda: power_skewness([[1, 0.2], [0.3, 1]], skewness=0.0), "symmetric"),
        (lambda: power_skewness([[1, 1.5], [1.5, 1]], skewness=0.0), "similarity"),
        (lambda: power_skewness(np.eye(4), skewness=float("nan")), "skewness must be a finite"),
        (lambda: power_skewness(np.eye(4), skewness="2"), "skewness must be a finite"),
        # Constant off-diagonal values: every power is constant, skewness 0 only.
        (
            lambda: power_skewness(np.full((4, 4), 0.5), skewness=1.0),
            r"unreachable by a power transform of this matrix: the achievable interval is \[0, 0\]",
        ),
        # 4 of 6 pairs zero: the alpha -> 0 end is a 0/1 sample with q = 1/3 ones, skewness
        # (1 - 2/3)/sqrt(2/9) = 0.707, so a negative target is out of reach.
        (
            lambda: power_skewness([[1, 0.2, 0.5, 0], [0.2, 1, 0, 0], [0.5, 0, 1, 0], [0, 0, 0, 1]], skewness=-1.0),
            "unreachable by a power transform",
        ),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("family", ["beta", "lognormal"])
def test_the_reshaper_equals_reshape_skewness_to_the_bit(family):
    # 1,100 users: 604,450 pairs, past the subsample the solver starts from; rounded values tie.
    rng = np.random.default_rng(4)
    observed = rng.random((1_100, 1_100))
    observed = np.round((observed + observed.T) / 2, 1)
    reshaper = SkewnessReshaper(observed, family=family, random_state=7)
    for skewness in (-1.0, 0.0, 3.0, -1.0):
        want = reshape_skewness(observed, skewness=skewness, family=family, random_state=7)
        assert reshaper(skewness).tobytes() == want.tobytes()


def test_reshapers_of_one_seed_share_their_draws_and_stay_exact():
    # Two similarities of one seed (Jaccard and sim_UF of one world) draw one base sample and
    # solve one theta a skewness; each is still the one reshape_skewness gives, at its own mean.
    rng = np.random.default_rng(5)
    a, b = rng.random((50, 50)), rng.random((50, 50)) ** 3
    a, b = (a + a.T) / 2, (b + b.T) / 2
    reshapers = [SkewnessReshaper(s, random_state=seed) for seed in (2, 3) for s in (a, b)]
    for skewness in (2.0, -1.0, 2.0):
        for reshaper, (seed, s) in zip(reshapers, [(seed, s) for seed in (2, 3) for s in (a, b)]):
            want = reshape_skewness(s, skewness=skewness, random_state=seed)
            assert reshaper(skewness).tobytes() == want.tobytes()
