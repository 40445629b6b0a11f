"""Shared pieces of the flaw corpus (private): the record of one planted measure and formulas."""

import numpy as np

from puf import as_measure, measure


def upper_pairs(m):
    return np.triu_indices(m, k=1)


def pair_gaps(effectiveness):
    s = np.asarray(effectiveness, dtype=np.float64)
    return np.abs(s[:, None] - s[None, :])


def puf_of(effectiveness, weights):
    """2/(m(m−1)) Σ_{u<v} w(u,v)·|S(u) − S(v)| for a weight matrix ``weights``."""
    m = len(effectiveness)
    rows, cols = upper_pairs(m)
    return float(2.0 * np.sum(np.asarray(weights)[rows, cols] * pair_gaps(effectiveness)[rows, cols])
                 / (m * (m - 1)))


def envy(utility):
    utility = np.asarray(utility, dtype=np.float64)
    out = np.maximum(utility - np.diag(utility)[:, None], 0.0)
    np.fill_diagonal(out, 0.0)
    return out


def planted(function, *, family, flaw, expected, range=(0.0, 1.0), control=False):
    """Return the corpus entry of ``function``: its Measure, family, flaw and expected verdicts."""
    name = function.__name__.lstrip("_").replace("_", "-")
    return {"measure": as_measure(measure(function, name=name, range=range, definition=flaw)),
            "name": name, "family": family, "flaw": flaw, "expected": dict(expected),
            "control": control}
