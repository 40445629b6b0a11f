"""Controlled user populations and worlds: the generator behind every sweep and property search.

Score level (exact control): :func:`similarity_matrix` and :func:`reshape_skewness`
(similarities with an exact mean and sample skewness), :func:`power_skewness` (a target
skewness by sim ** alpha, the mean free), :func:`zero_relevance_effectiveness`
and :func:`spread_effectiveness` (effectiveness disparity), :func:`pair` (most fair / most
unfair assignment of effectiveness to users; :class:`PairingSearch` for many on one matrix). Interaction level: :func:`world` (a
:class:`puf.World` from latent communities), :func:`summary`, and the World
transformations the property catalog uses.
"""

__all__ = [
    "similarity_matrix",
    "reshape_skewness",
    "SkewnessReshaper",
    "power_skewness",
    "skewness_interval",
    "off_diagonal",
    "sample_skewness",
    "zero_relevance_effectiveness",
    "spread_effectiveness",
    "max_sd",
    "PAIRINGS",
    "PairingSearch",
    "pair",
    "pair_order",
    "weighted_gap_sum",
    "world",
    "summary",
    "more_relevant",
    "less_relevant",
    "set_relevance",
    "add_shared_history",
    "share_items",
    "drop_shared_history",
    "relevance_from_lists",
    "permute_users",
    "replicate",
    "move_outcomes",
]

from ._skewness import sample_skewness
from .effectiveness import max_sd, spread_effectiveness, zero_relevance_effectiveness
from .pairing import PAIRINGS, PairingSearch, pair, pair_order, weighted_gap_sum
from .similarity import (
    SkewnessReshaper,
    off_diagonal,
    power_skewness,
    reshape_skewness,
    similarity_matrix,
    skewness_interval,
)
from .histories import add_shared_history, drop_shared_history, share_items
from .relabel_users import move_outcomes, permute_users, replicate
from .relevance import less_relevant, more_relevant, relevance_from_lists, set_relevance
from .worlds import summary, world
