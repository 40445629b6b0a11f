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
    "evaluate_measures",
    "declared_gamma",
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
    "PairKernel",
    "pair_kernel",
]

import importlib

# Every public name, with the module it lives in. Names load on first use (PEP 562), so that
# ``import puf`` is cheap: the pytest plugin (puf.properties.plugin) is imported by every pytest
# run in an environment that has the harness, and must not pull numpy in with it.
_HOME = {
    "UndefinedMeasureWarning": "validation",
    "EFFECTIVENESS": "effectiveness",
    "average_precision_at_k": "effectiveness",
    "hit_rate_at_k": "effectiveness",
    "ndcg_at_k": "effectiveness",
    "precision_at_k": "effectiveness",
    "recall_at_k": "effectiveness",
    "reciprocal_rank_at_k": "effectiveness",
    "max_min": "dispersion",
    "mean_difference": "dispersion",
    "variance": "dispersion",
    "atkinson": "inequality",
    "coefficient_of_variation": "inequality",
    "generalized_entropy": "inequality",
    "hoover": "inequality",
    "jain_unfairness": "inequality",
    "inconsistency": "lipschitz",
    "lipschitz_excess": "lipschitz",
    "lipschitz_violation": "lipschitz",
    "list_distance": "lists",
    "utility_matrix": "lists",
    "mean_envy": "paper_list_measures",
    "mean_envy_as_printed": "paper_list_measures",
    "mean_max_envy": "paper_list_measures",
    "proportion_envious_users": "paper_list_measures",
    "uf": "paper_list_measures",
    "gini": "paper_score_measures",
    "pairwise_user_unfairness": "paper_score_measures",
    "puf": "paper_score_measures",
    "puf_as_printed": "paper_score_measures",
    "sd": "paper_score_measures",
    "FAMILIES": "metadata",
    "FIELDS": "metadata",
    "Measure": "metadata",
    "measure": "metadata",
    "Population": "population",
    "MEASURES": "registry",
    "as_measure": "registry",
    "evaluate_measures": "registry",
    "register": "registry",
    "declared_gamma": "registry",
    "load_measure": "loader",
    "SIMILARITIES": "similarity",
    "cosine_similarity": "similarity",
    "jaccard_similarity": "similarity",
    "js_similarity": "similarity",
    "uf_similarity": "similarity",
    "Variant": "variant",
    "variants": "variant",
    "World": "world",
    "PairKernel": "pair_kernels",
    "pair_kernel": "pair_kernels",
}


def __getattr__(name):
    if name in _HOME:
        value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    else:  # a built-in measure's function is puf.<its name> without being listed above
        value = _builtin_measure_function(name)
    globals()[name] = value
    return value


def _builtin_measure_function(name):
    if name.startswith("_"):  # copy, pickle, doctest and IPython probe such names: load nothing
        raise AttributeError(f"module 'puf' has no attribute {name!r}")
    registry = importlib.import_module(".registry", __name__)
    for module_name in registry.BUILTIN_MODULES:
        value = getattr(importlib.import_module(f".{module_name}", __name__), name, None)
        if hasattr(value, "__puf_measure__"):
            return value
    raise AttributeError(f"module 'puf' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
