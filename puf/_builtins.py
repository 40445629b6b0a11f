"""The built-in measures with their metadata: the PUF paper's nine and the field's fifteen.

Kept apart from :mod:`puf.registry` so that the registry's machinery stays
small; :data:`puf.MEASURES` is filled from :func:`builtin_measures` when the
registry is imported. Each default parameter value of a parametrised measure
(GE's α, Atkinson's ε) is its own entry; :func:`puf.register` adds others.
"""

__all__ = ["builtin_measures"]

import functools
import math

from . import dispersion as _d
from . import inequality as _i
from . import lipschitz as _l
from . import measures as _m
from .registry import FAMILIES, Measure

_UNBOUNDED = (-math.inf, math.inf)
_NONNEGATIVE = (0.0, math.inf)
_INEQUALITY, _ENVY, _SIMILAR = FAMILIES[:3]


def _fixed(function, **options):
    """The built-in at one parameter value, keeping its name for tracebacks."""
    bound = functools.partial(function, **options)
    bound.__name__ = function.__name__
    return bound


def builtin_measures():
    """Return the built-in measures in registry order: the PUF paper's nine, then the field's."""
    return (
        Measure(_m.pairwise_user_unfairness, "puf", ("effectiveness", "similarity"),
                definition="2/(m(m−1)) Σ_{u<v} sim(u,v)·|S(u)−S(v)|", family=_SIMILAR),
        Measure(_m.puf_as_printed, "puf-as-printed", ("effectiveness", "similarity"),
                definition="2/(m(m−1)) Σ_{u≠v} sim(u,v)·|S(u)−S(v)| (the paper's printed form, 2×PUF)",
                family=_SIMILAR, tables=False),
        Measure(_m.sd, "sd", ("effectiveness",), definition="standard deviation (ddof=0) of S",
                family=_INEQUALITY),
        Measure(_m.gini, "gini", ("effectiveness",),
                definition="Σ_j (2j−m−1)·S_(j) / (m·Σ S); undefined when Σ S = 0", family=_INEQUALITY),
        Measure(_m.mean_envy, "me", ("utility",),
                definition="1/(m(m−1)) Σ_{u≠v} max(φ_u(L_v) − φ_u(L_u), 0)", family=_ENVY),
        Measure(_m.mean_envy_as_printed, "me-as-printed", ("utility",),
                definition="2/(m(m−1)) Σ_{u≠v} envy(u,v) (the appendix's printed form, 2×ME)",
                family=_ENVY, tables=False),
        Measure(_m.mean_max_envy, "mme", ("utility",),
                definition="(1/m) Σ_u max_{v≠u} envy(u,v)", family=_ENVY),
        Measure(_m.proportion_envious_users, "peu", ("utility",),
                definition="(1/m) Σ_u 1{max_{v≠u} envy(u,v) > ε}, ε = 0.05", family=_ENVY),
        Measure(_m.uf, "uf", ("similarity", "list_distance"), range=_UNBOUNDED,
                definition="ln Σ_{sim ≥ mean+SD} sim(u,v)·d_L(u,v)", family=_SIMILAR, similarity="uf"),
        Measure(_fixed(_i.generalized_entropy, alpha=0.0), "ge-0", ("effectiveness",), range=_NONNEGATIVE,
                definition="mean log deviation −(1/m) Σ ln(S/μ); undefined when μ = 0 or some S = 0",
                family=_INEQUALITY),
        Measure(_fixed(_i.generalized_entropy, alpha=1.0), "ge-1", ("effectiveness",), range=_NONNEGATIVE,
                definition="Theil T (1/m) Σ (S/μ) ln(S/μ), 0·ln 0 = 0; undefined when μ = 0",
                family=_INEQUALITY),
        Measure(_fixed(_i.generalized_entropy, alpha=2.0), "ge-2", ("effectiveness",), range=_NONNEGATIVE,
                definition="GE(2) = 1/(2m) Σ [(S/μ)² − 1] = CV²/2; undefined when μ = 0",
                family=_INEQUALITY),
        Measure(_fixed(_i.atkinson, epsilon=0.5), "atkinson-0.5", ("effectiveness",),
                definition="1 − [(1/m) Σ (S/μ)^½]²; undefined when μ = 0", family=_INEQUALITY),
        Measure(_fixed(_i.atkinson, epsilon=1.0), "atkinson-1", ("effectiveness",),
                definition="1 − geometric mean / μ; undefined when some S = 0", family=_INEQUALITY),
        Measure(_fixed(_i.atkinson, epsilon=2.0), "atkinson-2", ("effectiveness",),
                definition="1 − harmonic mean / μ; undefined when some S = 0", family=_INEQUALITY),
        Measure(_i.coefficient_of_variation, "cv", ("effectiveness",), range=_NONNEGATIVE,
                definition="σ/μ (ddof=0); undefined when μ = 0", family=_INEQUALITY),
        Measure(_i.jain_unfairness, "jain", ("effectiveness",),
                definition="1 − (Σ S)² / (m Σ S²), one minus Jain's index; undefined when μ = 0",
                family=_INEQUALITY),
        Measure(_i.hoover, "hoover", ("effectiveness",),
                definition="½ Σ |S − μ| / Σ S; undefined when μ = 0", family=_INEQUALITY),
        Measure(_d.variance, "variance", ("effectiveness",), range=(0.0, 0.25),
                definition="(1/m) Σ (S − μ)² (Rastegarpanah et al. 2019)", family=_INEQUALITY),
        Measure(_d.mean_difference, "mean-difference", ("effectiveness",),
                definition="1/(m(m−1)) Σ_{u≠v} |S(u)−S(v)| (PUF with every similarity 1)",
                family=_INEQUALITY),
        Measure(_i.max_min, "max-min", ("effectiveness",),
                definition="1 − min S / max S; undefined when max S = 0", family=_INEQUALITY),
        Measure(_l.inconsistency, "inconsistency", ("effectiveness", "similarity"),
                definition="(1/m) Σ_u |S(u) − mean S over the n = 5 most similar others|; "
                           "undefined when m < 6", family=_SIMILAR),
        Measure(_l.lipschitz_violation, "lipschitz-violation", ("effectiveness", "similarity"),
                definition="share of pairs u<v with |S(u)−S(v)| > L·(1 − sim(u,v)), L = 1",
                family=_SIMILAR),
        Measure(_l.lipschitz_excess, "lipschitz-excess", ("effectiveness", "similarity"),
                definition="2/(m(m−1)) Σ_{u<v} max(0, |S(u)−S(v)| − L·(1 − sim(u,v))), L = 1",
                family=_SIMILAR),
    )
