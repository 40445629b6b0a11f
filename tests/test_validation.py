"""Bad input: every case raises ValueError naming the argument, before any computation."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import puf
from puf import validation
from puf import Population, World

S2 = [0.2, 0.8]
SIM2 = [[1.0, 0.5], [0.5, 1.0]]
U2 = [[0.5, 0.2], [0.1, 0.9]]
RANKS = np.array([[0, 1], [2, 3]])
REL = sp.csr_matrix(np.array([[1.0, 0, 2, 0], [0, 1, 0, 1]]))
HIST = sp.csr_matrix(np.array([[1, 1, 0, 0], [0, 1, 1, 0]]))
FEAT = np.array([[1.0, 0], [0, 1], [1, 1], [0, 1]])

INVALID = [
    # (id, call, message fragment)
    ("effectiveness-nan", lambda: puf.sd([0.1, np.nan]), r"effectiveness must be finite, got nan"),
    ("effectiveness-inf", lambda: puf.gini([0.1, np.inf]), r"effectiveness must be finite, got inf"),
    ("effectiveness-above-1", lambda: puf.puf([0.1, 1.5], SIM2), r"effectiveness must lie in \[0, 1\], got .*1\.5"),
    ("effectiveness-negative", lambda: puf.sd([-0.1, 0.5]), r"effectiveness must lie in \[0, 1\], got .*-0\.1"),
    ("effectiveness-2d", lambda: puf.sd([[0.1, 0.5]]), r"effectiveness must be one-dimensional"),
    ("effectiveness-strings", lambda: puf.sd(["a", "b"]), r"effectiveness must be numeric"),
    ("similarity-nan", lambda: puf.puf(S2, [[1, np.nan], [np.nan, 1]]), r"similarity must be finite"),
    ("similarity-above-1", lambda: puf.puf(S2, [[1, 1.2], [1.2, 1]]), r"similarity must lie in \[0, 1\], got .*1\.2"),
    (
        "similarity-non-square",
        lambda: puf.puf(S2, [[1, 0.5, 0]]),
        r"similarity must be a square \(m, m\) matrix, got shape \(1, 3\)",
    ),
    (
        "similarity-asymmetric",
        lambda: puf.puf(S2, [[1, 0.5], [0.4, 1]]),
        r"similarity must be symmetric, got similarity\[0,1\]=0\.5",
    ),
    ("user-count-mismatch", lambda: puf.puf([0.1, 0.2, 0.3], SIM2), r"similarity has 2 users but effectiveness has 3"),
    ("one-user-puf", lambda: puf.puf([0.5], [[1.0]]), r"effectiveness must describe at least 2 users"),
    ("one-user-me", lambda: puf.mean_envy([[0.5]]), r"utility must describe at least 2 users"),
    ("utility-above-1", lambda: puf.mean_max_envy([[0.5, 1.1], [0, 0]]), r"utility must lie in \[0, 1\]"),
    ("epsilon-negative", lambda: puf.proportion_envious_users(U2, epsilon=-0.1), r"epsilon must be >= 0, got -0\.1"),
    ("epsilon-nan", lambda: puf.proportion_envious_users(U2, epsilon=float("nan")), r"epsilon must be a finite real"),
    ("list-distance-negative", lambda: puf.uf(SIM2, [[0, -1], [-1, 0]]), r"list_distance must be non-negative"),
    ("uf-base", lambda: puf.uf(SIM2, [[0, 1], [1, 0]], base=1), r"base must be a finite number > 1"),
    ("k-zero", lambda: puf.precision_at_k(RANKS, REL, k=0), r"k must be >= 1, got 0"),
    ("k-not-int", lambda: puf.ndcg_at_k(RANKS, REL, k=1.5), r"k must be a positive integer, got 1\.5"),
    ("k-above-list", lambda: puf.recall_at_k(RANKS, REL, k=3), r"k"),
    (
        "ranking-duplicate",
        lambda: puf.precision_at_k([[0, 0], [2, 3]], REL),
        r"rankings row 0 lists item 0 more than once",
    ),
    (
        "ranking-out-of-range",
        lambda: puf.ndcg_at_k([[0, 9], [2, 3]], REL),
        r"rankings item id 9 .* out of range for 4 items",
    ),
    ("ranking-negative-id", lambda: puf.hit_rate_at_k([[0, -3], [2, 3]], REL), r"rankings item ids must be >= 0"),
    (
        "relevance-negative",
        lambda: puf.ndcg_at_k(RANKS, sp.csr_matrix(np.array([[1.0, 0, -2, 0], [0, 1, 0, 1]]))),
        r"relevance must be non-negative, got -2",
    ),
    (
        "relevance-nan",
        lambda: puf.precision_at_k(RANKS, np.array([[1.0, 0, np.nan, 0], [0, 1, 0, 1]])),
        r"relevance must be finite",
    ),
    (
        "relevance-frame-negative",
        lambda: puf.precision_at_k(RANKS, pd.DataFrame({"user": [0], "item": [1], "relevance": [-1.0]})),
        r"relevance must be non-negative",
    ),
    ("gamma-above-1", lambda: puf.uf_similarity(HIST, FEAT, gamma=1.5), r"gamma must lie in \[0, 1\], got 1\.5"),
    ("gamma-negative", lambda: puf.uf_similarity(HIST, FEAT, gamma=-0.5), r"gamma must lie in \[0, 1\], got -0\.5"),
    (
        "features-zero-row",
        lambda: puf.js_similarity(HIST, np.array([[1.0, 0], [0, 0], [1, 1], [0, 1]])),
        r"item_features row 1 sums to zero",
    ),
    ("features-negative", lambda: puf.js_similarity(HIST, -FEAT), r"item_features must be non-negative"),
    (
        "histories-negative",
        lambda: puf.jaccard_similarity(sp.csr_matrix(np.array([[1.0, -1]]))),
        r"histories must be non-negative",
    ),
    (
        "population-utility-shape",
        lambda: Population(S2, SIM2, utility=np.zeros((3, 3))),
        r"utility has 3 users but effectiveness has 2",
    ),
    ("world-rankings-users", lambda: World(HIST, REL, RANKS[:1], FEAT), r"rankings has 1 users but histories has 2"),
    (
        "random-state",
        lambda: validation.check_random_state("seed"),
        r"random_state must be None, an int or a numpy Generator",
    ),
]


@pytest.mark.parametrize("call, match", [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_invalid_input_raises_value_error_naming_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_table_covers_at_least_twenty_cases():
    assert len({c[0] for c in INVALID}) == len(INVALID) >= 20


def test_symmetry_tolerance_is_1e_12():
    tiny = 1e-13
    puf.puf(S2, [[1, 0.5], [0.5 + tiny, 1]])
    with pytest.raises(ValueError, match="symmetric"):
        puf.puf(S2, [[1, 0.5], [0.5 + 1e-11, 1]])


def test_checks_leave_the_callers_sparse_matrix_alone():
    rel = sp.csr_matrix((np.array([1.0, 0.0, 2.0]), np.array([0, 1, 1]), np.array([0, 2, 3])), shape=(2, 2))
    before = rel.data.copy()
    puf.precision_at_k([[0], [1]], rel)
    np.testing.assert_array_equal(rel.data, before)


def test_exponential_gain_rejects_overflowing_grades():
    with pytest.raises(ValueError, match="overflow gain='exponential'"):
        puf.ndcg_at_k([[0]], sp.csr_matrix(np.array([[2000.0]])), gain="exponential")


def test_pair_matrix_checks_in_row_blocks_report_whole_matrix_indices(monkeypatch):
    monkeypatch.setattr(validation, "_CHECK_BLOCK_ELEMENTS", 4)  # 2 rows per block for m = 4
    sim = np.full((4, 4), 0.5)
    np.testing.assert_array_equal(validation.check_similarity(sim), sim)
    bad = sim.copy()
    bad[3, 1] = 2.0
    with pytest.raises(ValueError, match=r"got 2\.0 at index \(3, 1\)"):
        validation.check_pair_matrix(bad, name="utility")
    bad = sim.copy()
    bad[2, 0] = 0.4
    with pytest.raises(ValueError, match=r"similarity\[0,2\]=0\.5 but similarity\[2,0\]=0\.4"):
        validation.check_similarity(bad)
    bad = sim.copy()
    bad[3, 3] = np.nan
    with pytest.raises(ValueError, match=r"must be finite, got nan at index \(3, 3\)"):
        validation.check_similarity(bad)


def test_uf_engine_and_dense_uf_share_the_base_check():
    from puf.engines import uf_streaming

    features = np.eye(3)
    for base in (float("inf"), 1, True, "e"):
        with pytest.raises(ValueError, match="base must be a finite number > 1"):
            puf.uf(SIM2, [[0, 1], [1, 0]], base=base)
        with pytest.raises(ValueError, match="base must be a finite number > 1"):
            uf_streaming(np.eye(2, 3), features, np.array([[0], [1]]), features, k=1, base=base)
    assert puf.uf(SIM2, [[0, 1], [1, 0]], base=np.int64(2)) == puf.uf(SIM2, [[0, 1], [1, 0]], base=2)


def test_list_distance_of_another_size_names_the_similarity():
    with pytest.raises(ValueError, match="list_distance has 3 users but similarity has 2"):
        puf.uf(SIM2, np.zeros((3, 3)))


def test_a_float_order_is_not_a_permutation():
    from puf.validation import check_permutation

    with pytest.raises(ValueError, match=r"order must be a permutation of range\(2\)"):
        check_permutation([1.0, 0.0], 2)


def test_a_frozen_matrix_is_checked_once_and_a_thawed_one_again():
    from puf.validation import check_similarity

    matrix = np.array([[1.0, 0.5], [0.5, 1.0]])
    matrix.flags.writeable = False
    assert check_similarity(matrix) is matrix
    assert check_similarity(matrix) is matrix  # remembered: no second pass
    matrix.flags.writeable = True
    matrix[0, 1] = 0.7  # no longer immutable: checked again, and refused
    with pytest.raises(ValueError, match="symmetric"):
        check_similarity(matrix)
