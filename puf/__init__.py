"""puf: individual user fairness measures for recommender systems.

The measures (PUF, SD, Gini, ME, MME, PEU, UF and the field's inequality
indices and similarity-aware measures), per-user effectiveness,
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
    "FAMILIES",
    "Measure",
    "MEASURES",
    "measure",
    "as_measure",
    "register",
    "evaluate",
    "load_measure",
    "Variant",
    "variants",
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
    "generalized_entropy",
    "atkinson",
    "coefficient_of_variation",
    "jain_unfairness",
    "hoover",
    "variance",
    "mean_difference",
    "max_min",
    "inconsistency",
    "lipschitz_violation",
    "lipschitz_excess",
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
from .dispersion import mean_difference, variance
from .inequality import (
    atkinson,
    coefficient_of_variation,
    generalized_entropy,
    hoover,
    jain_unfairness,
    max_min,
)
from .lipschitz import inconsistency, lipschitz_excess, lipschitz_violation
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
from .registry import FAMILIES, FIELDS, MEASURES, Measure, as_measure, evaluate, measure, register
from .loader import load_measure
from .similarity import (
    SIMILARITIES,
    cosine_similarity,
    jaccard_similarity,
    js_similarity,
    uf_similarity,
)
from ._variants import Variant, variants
from .world import World
