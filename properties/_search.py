"""Search helpers run inside one example (private): jumps narrowed by bisection.

A continuity case may carry a *segment*, two populations of the same users
far apart. :func:`narrow_jump` walks it: it evaluates the measure at a few
points, keeps the adjacent pair whose values differ most, and halves that
interval, keeping the half whose values differ more, until the two ends are
closer than ``tolerance`` in every field. A jump (a threshold at any value,
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


def narrow_jump(evaluate, start, end, *, tolerance=1e-7, points=8, starts=2):
    """Return ``(pop_a, pop_b, value_a, value_b)``: the steepest short piece of the segment.

    ``evaluate`` maps a population to a float (NaN allowed: NaN points are never kept).
    The segment is cut into ``points`` pieces; the ``starts`` pieces whose change departs
    most from the median change are each halved down to ``tolerance``, and the piece with
    the largest change per unit of distance is returned. None when fewer than two points
    of the segment have finite values.
    """
    grid = [k / points for k in range(points + 1)]
    values = [evaluate(interpolate(start, end, t)) for t in grid]
    steps = [(i, values[i + 1] - values[i]) for i in range(points)
             if math.isfinite(values[i]) and math.isfinite(values[i + 1])]
    if not steps:
        return None
    typical = float(np.median([step for _, step in steps]))
    chosen = sorted(steps, key=lambda item: -abs(item[1] - typical))[:starts]
    length = distance(start, end)
    best = None
    for i, _ in chosen:
        low, high, f_low, f_high = grid[i], grid[i + 1], values[i], values[i + 1]
        while (high - low) * length > tolerance:
            mid = 0.5 * (low + high)
            f_mid = evaluate(interpolate(start, end, mid))
            if not math.isfinite(f_mid):
                break
            if abs(f_mid - f_low) >= abs(f_high - f_mid):
                high, f_high = mid, f_mid
            else:
                low, f_low = mid, f_mid
        ratio = abs(f_high - f_low) / max((high - low) * length, 1e-300)
        if best is None or ratio > best[0]:
            best = (ratio, low, high, f_low, f_high)
    _, low, high, f_low, f_high = best
    return interpolate(start, end, low), interpolate(start, end, high), f_low, f_high
