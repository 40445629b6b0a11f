"""puf: individual user fairness measures for recommender systems.

The measures (PUF, SD, Gini, ME, MME, PEU, UF), per-user effectiveness,
user similarities, the data model (:class:`World` -> :class:`Population`)
and the registry that evaluates any measure by its parameter names.
"""

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "UndefinedMeasureWarning",
    "Population",
    "World",
    "FIELDS",
    "Measure",
    "MEASURES",
    "measure",
    "as_measure",
    "evaluate",
    "load_measure",
    "pairwise_user_unfairness",
    "puf",
    "puf_as_printed",
    "sd",
    "gini",
    "mean_envy",
    "mean_envy_as_printed",
    "mean_max_envy",
    "proportion_envious_users",
    "uf",
    "EFFECTIVENESS",
    "precision_at_k",
    "recall_at_k",
    "ndcg_at_k",
    "hit_rate_at_k",
    "reciprocal_rank_at_k",
    "average_precision_at_k",
    "SIMILARITIES",
    "jaccard_similarity",
    "cosine_similarity",
    "js_similarity",
    "uf_similarity",
    "utility_matrix",
    "list_distance",
]

from ._validation import UndefinedMeasureWarning
from .effectiveness import (
    EFFECTIVENESS,
    average_precision_at_k,
    hit_rate_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
)
from .lists import list_distance, utility_matrix
from .measures import (
    gini,
    mean_envy,
    mean_envy_as_printed,
    mean_max_envy,
    pairwise_user_unfairness,
    proportion_envious_users,
    puf,
    puf_as_printed,
    sd,
    uf,
)
from .population import Population
from .registry import FIELDS, MEASURES, Measure, as_measure, evaluate, measure
from .loader import load_measure
from .similarity import (
    SIMILARITIES,
    cosine_similarity,
    jaccard_similarity,
    js_similarity,
    uf_similarity,
)
from .world import World
