"""The swap search's pieces: the same numbers, bit for bit, as the plain computation they replace.

The plain search takes its products as the search does, on the distinct columns of A
(``_swaps.times_gaps``): how a BLAS kernel rounds a product's last bit depends on the machine
(the whole product and the product of its distinct columns agree to rounding only), and every
road of the search takes the same products, so the roads agree bit for bit on any machine.
"""

import numpy as np
import pytest

from puf.synthetic import _swaps
from puf.synthetic import pairing as module


def plain_best_swaps(change, tolerance, most):
    """The improving swaps as the plain road picks them: argpartition of the whole matrix, a stable argsort."""
    count = int((change < -tolerance).sum())
    if count == 0:
        return np.array([], dtype=np.int64)
    size = min(count, most)
    flat = np.argpartition(change.ravel(), size - 1)[:size]
    return flat[np.argsort(change.ravel()[flat], kind="stable")]


def plain_swap_changes(similarity, gaps, cost, sign):
    diagonal = np.diag(cost)
    change = sign * (cost + cost.T - diagonal[:, None] - diagonal[None, :] + 2.0 * similarity * gaps)
    change[np.tril_indices_from(change)] = np.inf
    return change


def plain_local_search(values, similarity, sign):
    """The swap search written with the plain pieces above (no batch arrays kept, no shortcuts)."""
    a, m = values.copy(), values.shape[0]
    tolerance = module._RELATIVE_GAIN * max(1.0, float(similarity.sum()))
    gaps = np.abs(a[:, None] - a[None, :])
    cost = _swaps.times_gaps(similarity, gaps, _swaps.distinct_columns(a))
    for round_ in range(1, m * m + 1):
        change = _swaps.swap_changes(a, similarity, gaps, cost, sign)
        flat = plain_best_swaps(change, tolerance, 4 * m)
        if flat.size == 0:
            break
        used, first, second = np.zeros(m, dtype=bool), [], []
        for k, l in zip(*np.divmod(flat, m)):
            if used[k] or used[l]:
                continue
            gain = change[k, l]
            if first:
                h = np.abs(a[l] - a[second]) - np.abs(a[k] - a[second])
                h -= np.abs(a[l] - a[first]) - np.abs(a[k] - a[first])
                weights = similarity[k, first] - similarity[l, first]
                weights -= similarity[k, second] - similarity[l, second]
                gain += sign * float(np.einsum("i,i->", weights, h))
            if gain < -tolerance:
                used[k] = used[l] = True
                first.append(k)
                second.append(l)
        left = similarity[:, first] - similarity[:, second]
        cost += _swaps.times_gaps(left, gaps, _swaps.distinct_columns(a), (second, first))
        cost.T[first + second] = cost.T[second + first]
        a[first + second] = a[second + first]
        gaps = np.abs(a[:, None] - a[None, :])
        if round_ % 50 == 0:
            cost = _swaps.times_gaps(similarity, gaps, _swaps.distinct_columns(a))
    return a


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tied", [False, True])
def test_best_swaps_are_the_plain_ones(seed, tied):
    rng = np.random.default_rng(seed)
    m = 30
    change = rng.integers(-6, 3, size=(m, m)).astype(float) if tied else rng.normal(size=(m, m))
    change[np.tril_indices(m)] = np.inf
    for most in (1, 7, 40, 4 * m, m * m):
        for tolerance in (1e-9, 0.5):
            assert np.array_equal(_swaps.best_swaps(change, tolerance, most), plain_best_swaps(change, tolerance, most))


def test_best_swaps_of_a_matrix_with_no_improvement_is_empty():
    assert _swaps.best_swaps(np.full((4, 4), np.inf), 1e-9, 16).size == 0


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("m", [5, 300])  # 300: more than one block of rows
def test_swap_changes_are_the_whole_matrix_formula(sign, m):
    rng = np.random.default_rng(m)
    s = rng.random((m, m))
    s = (s + s.T) / 2
    np.fill_diagonal(s, 0.0)
    a = rng.random(m)
    gaps = np.abs(a[:, None] - a[None, :])
    cost = s @ gaps
    got = _swaps.swap_changes(a, s, gaps, cost, sign)
    want = plain_swap_changes(s, gaps, cost, sign)
    upper = np.triu_indices(m, 1)
    assert np.array_equal(got[upper], want[upper])
    assert np.isinf(got[np.tril_indices(m)]).all()


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("m, binary, tied", [(30, True, True), (60, True, False), (45, False, True), (90, True, True)])
def test_local_search_is_the_plain_search(sign, m, binary, tied):
    rng = np.random.default_rng(m)
    upper = np.triu(rng.integers(0, 4, size=(m, m)) / 4 if tied else rng.random((m, m)) ** 3, 1)
    s = upper + upper.T
    values = (rng.random(m) < 0.5).astype(float) if binary else rng.integers(0, 3, size=m) / 2
    assert np.array_equal(module._local_search(values, s, sign), plain_local_search(values, s, sign))


@pytest.mark.parametrize("kind", ["binary", "three", "continuous"])
@pytest.mark.parametrize("m", [12, 600])  # 600: more than one block of the product's inner dimension
def test_products_on_distinct_columns_are_the_whole_products(kind, m):
    rng = np.random.default_rng(m)
    s = rng.random((m, m)) ** 3
    s = (s + s.T) / 2
    a = {"binary": (rng.random(m) < 0.5) * 1.0, "three": rng.integers(0, 3, size=m) / 2, "continuous": rng.random(m)}
    a = a[kind]
    gaps = np.abs(a[:, None] - a[None, :])
    columns = _swaps.distinct_columns(a)
    assert (columns is None) == (kind == "continuous")
    # To rounding: the last bit of a BLAS product depends on the machine's kernel.
    np.testing.assert_allclose(_swaps.times_gaps(s, gaps, columns), s @ gaps, rtol=1e-13, atol=1e-13)
    for batch in (1, 3, 20):
        first, second = [int(i) for i in rng.choice(m, batch)], [int(i) for i in rng.choice(m, batch)]
        left = s[:, first] - s[:, second]
        want = left @ (gaps[second] - gaps[first])
        np.testing.assert_allclose(
            _swaps.times_gaps(left, gaps, columns, (second, first)), want, rtol=1e-13, atol=1e-13
        )


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("tied", [False, True])  # tied: equal gains, so some rounds order them on the whole matrix
def test_a_two_valued_assignment_takes_the_plain_swaps_on_the_cross_block(sign, tied, monkeypatch):
    roads = []
    for name in ("cross_best", "whole_best"):
        real = getattr(_swaps, name)
        monkeypatch.setattr(_swaps, name, lambda *a, real=real, name=name: roads.append(name) or real(*a))
    rng = np.random.default_rng(7)
    m = 200
    upper = np.triu(rng.integers(0, 4, size=(m, m)) / 4 if tied else rng.random((m, m)) ** 3, 1)
    s = upper + upper.T
    values = 0.1 + 0.7 * (rng.random(m) < 0.5)
    assert np.array_equal(module._local_search(values, s, sign), plain_local_search(values, s, sign))
    assert "cross_best" in roads and ("whole_best" in roads) == tied
    s[0, 1] += 1e-13  # not exactly symmetric: the search of every pair
    roads.clear()
    assert np.array_equal(module._local_search(values, s, sign), plain_local_search(values, s, sign))
    assert not roads


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("entries", [1, 500])  # changes computed a row, or about eight rows, at a time
def test_the_cross_block_read_in_row_blocks_gives_the_same_swaps(sign, entries, monkeypatch):
    rng = np.random.default_rng(11)
    m = 120
    upper = np.triu(rng.random((m, m)) ** 3, 1)
    s = upper + upper.T
    values = 0.1 + 0.7 * (rng.random(m) < 0.5)
    whole = module._local_search(values, s, sign)
    monkeypatch.setattr(_swaps, "_CROSS_BLOCK_ENTRIES", entries)
    assert np.array_equal(module._local_search(values, s, sign), whole)
    assert np.array_equal(whole, plain_local_search(values, s, sign))
