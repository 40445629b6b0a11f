"""Search helpers run inside one example (private): jumps narrowed by bisection.

A continuity case may carry a *segment*, two populations of the same users
far apart. :func:`narrow_jump` walks it: it evaluates the measure at a few
points and halves the pieces, keeping a small beam of the pieces whose values
differ most, until the two ends are closer than ``tolerance`` in every field. A jump (a threshold at any value,
a tie broken, a user filtered out) survives the halving, so the last pair
shows a change far larger than its distance; on a Lipschitz measure the
ratio stays bounded by the Lipschitz constant, so no false alarm arises.
"""

import math

import numpy as np


def interpolate(start, end, t):
    """The population ``start + t·(end − start)`` (every field both have)."""
    a, b = start.fields(), end.fields()
    return start.replace(**{f: a[f] + t * (b[f] - a[f]) for f in a if f in b})


def distance(start, end):
    """Max-norm distance between two populations of the same users."""
    a, b = start.fields(), end.fields()
    return max(float(np.max(np.abs(b[f] - a[f]))) for f in a if f in b)


def narrow_jump(evaluate, start, end, *, tolerance=1e-7, points=8, beam=3):
    """Return ``(pop_a, pop_b, value_a, value_b)``: the steepest short piece of the segment.

    ``evaluate`` maps a population to a float (NaN allowed: NaN points are never kept).
    The segment is cut into ``points`` pieces; every piece is halved, and the ``beam``
    halves whose values differ most are kept and halved again, down to ``tolerance``.
    A jump keeps its size as its piece shrinks while a continuous change halves with it,
    so a jump's piece stays in the beam even when the measure's trend elsewhere is larger.
    None when fewer than two points of the segment have finite values.
    """
    grid = [k / points for k in range(points + 1)]
    values = [evaluate(interpolate(start, end, t)) for t in grid]
    pieces = [(grid[i], grid[i + 1], values[i], values[i + 1]) for i in range(points)
              if math.isfinite(values[i]) and math.isfinite(values[i + 1])]
    if not pieces:
        return None
    length = distance(start, end)
    while pieces and (pieces[0][1] - pieces[0][0]) * length > tolerance:
        halves = []
        for low, high, f_low, f_high in pieces:
            mid = 0.5 * (low + high)
            f_mid = evaluate(interpolate(start, end, mid))
            if not math.isfinite(f_mid):
                continue
            halves += [(low, mid, f_low, f_mid), (mid, high, f_mid, f_high)]
        if not halves:
            break
        halves.sort(key=lambda piece: -abs(piece[3] - piece[2]))
        pieces = halves[:beam]
    low, high, f_low, f_high = max(pieces, key=lambda piece: abs(piece[3] - piece[2]))
    return interpolate(start, end, low), interpolate(start, end, high), f_low, f_high
