"""A crossed sweep runs its levels side by side: the same table as one sweep per level, pieces shared."""

import gc

import numpy as np
import pandas as pd

import puf

from puf.pieces import _HELD, matrix_memo
from puf.reports.sweeps import Base, point_scores
from puf.reports.sweeps import SWEEPS, sweep
from puf.evaluation import roads


def one_sweep_per_level(spec, seeds, base, values):
    """The crossed sweep as it was run before: level by level, each a plain sweep()."""
    base = base.replace(**dict(spec.setting))
    frames = []
    for level in spec.levels:
        point = base.replace(**{spec.cross: level})
        if spec.cross == "gamma":
            point = point.replace(similarity="uf")
        frame = sweep(spec.measures, parameter=spec.parameter, values=values, seeds=seeds, base=point, cache={})
        frame.insert(2, spec.cross, level)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_crossed_sweeps_give_the_tables_of_one_sweep_per_level():
    base = Base(n_users=30, n_items=150, k=5)
    for name, values in (("skewness", (0.0, 2.0)), ("skewness_free_mean", (1.0,)), ("pairing", (0.25, 0.5))):
        spec = SWEEPS[name]
        cut = type(spec)(**{**spec.__dict__, "values": values, "quick_values": values})
        table = cut.run(seeds=[0, 1], base=base, cache={})
        want = one_sweep_per_level(cut, [0, 1], base, values)
        assert table.to_csv(index=False) == want.to_csv(index=False), name


def test_the_pairings_of_one_point_read_one_reshaped_matrix(monkeypatch):
    calls = []
    real = roads.matrix_memo
    monkeypatch.setattr(
        roads, "matrix_memo", lambda matrix, key, compute: real(matrix, key, lambda: calls.append(key) or compute())
    )
    cache, base = {}, Base(n_users=30, n_items=150, k=5, skewness=2.0)
    chosen = puf.variants("Inconsistency-P") + puf.variants("Inconsistency-NDCG")
    for pairing in ("random", "most_fair", "most_unfair"):
        point_scores(base.replace(pairing=pairing), 0, chosen, cache)
    assert len(calls) == 1  # the neighbours of the reshaped Jaccard, once for the three pairings
    held = cache["reshaped", "jaccard"]
    assert held[1] == (0, "fixed", 2.0) and not held[2].flags.writeable


def test_matrix_memo_computes_once_per_frozen_matrix_and_forgets_it():
    frozen = np.arange(4.0)
    frozen.flags.writeable = False
    counted = []
    for _ in range(2):
        value = matrix_memo(frozen, "sum", lambda: counted.append(1) or 6.0)
    assert value.item() == 6.0 and len(counted) == 1 and not value.flags.writeable
    open_matrix = np.arange(4.0)  # writeable: it may change, so never kept
    for _ in range(2):
        matrix_memo(open_matrix, "sum", lambda: counted.append(1) or open_matrix.sum())
    assert len(counted) == 3
    index = id(frozen)
    del frozen, value
    gc.collect()
    assert index not in _HELD


def test_a_sweep_keeps_the_reshapers_of_its_current_seed_alone():
    base, chosen = Base(n_users=30, n_items=150, k=5, skewness=2.0), puf.variants("PUF-P") + puf.variants("UF")
    fresh = {seed: point_scores(base, seed, chosen, {}) for seed in (0, 1)}
    cache = {}
    for seed in (0, 1, 0):  # a seed's reshapers let go and made anew give the same values
        assert point_scores(base, seed, chosen, cache) == fresh[seed]
        assert {key[2] for key in cache if key[:1] == ("reshaper",)} == {seed}
