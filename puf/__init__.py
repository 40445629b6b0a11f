"""puf: individual user fairness measures for recommender systems.

The measures (PUF, SD, Gini, ME, MME, PEU, UF and the field's inequality
indices and similarity-aware measures), per-user effectiveness,
user similarities, the data model (:class:`World` -> :class:`Population`)
and the registry that evaluates any measure by its parameter names.
"""

__version__ = "0.1.0"

import importlib

# Every public name, with the module it lives in (and so, in this order, ``__all__``). Names load
# on first use (PEP 562), so that ``import puf`` is cheap: the pytest plugin
# (puf.properties.running.plugin) is imported by every pytest run in an environment that has the harness,
# and must not pull numpy in with it.
_HOME = {
    "UndefinedMeasureWarning": "validation",
    "Population": "population",
    "World": "world",
    "FIELDS": "population",
    "FAMILIES": "metadata",
    "Measure": "metadata",
    "MEASURES": "registry",
    "measure": "metadata",
    "as_measure": "registry",
    "register": "registry",
    "evaluate_measures": "registry",
    "declared_gamma": "registry",
    "load_measure": "loader",
    "Variant": "variant",
    "variants": "variant",
    "pairwise_user_unfairness": "paper_score_measures",
    "puf": "paper_score_measures",
    "puf_as_printed": "paper_score_measures",
    "sd": "paper_score_measures",
    "gini": "paper_score_measures",
    "mean_envy": "paper_list_measures",
    "mean_envy_as_printed": "paper_list_measures",
    "mean_max_envy": "paper_list_measures",
    "proportion_envious_users": "paper_list_measures",
    "uf": "paper_list_measures",
    "generalized_entropy": "inequality",
    "atkinson": "inequality",
    "coefficient_of_variation": "inequality",
    "jain_unfairness": "inequality",
    "hoover": "inequality",
    "variance": "dispersion",
    "mean_difference": "dispersion",
    "max_min": "dispersion",
    "inconsistency": "lipschitz",
    "lipschitz_violation": "lipschitz",
    "lipschitz_excess": "lipschitz",
    "EFFECTIVENESS": "effectiveness",
    "precision_at_k": "effectiveness",
    "recall_at_k": "effectiveness",
    "ndcg_at_k": "effectiveness",
    "hit_rate_at_k": "effectiveness",
    "reciprocal_rank_at_k": "effectiveness",
    "average_precision_at_k": "effectiveness",
    "SIMILARITIES": "similarity",
    "jaccard_similarity": "similarity",
    "cosine_similarity": "similarity",
    "js_similarity": "similarity",
    "uf_similarity": "similarity",
    "utility_matrix": "lists",
    "list_distance": "lists",
    "PairKernel": "pair_kernels",
    "pair_kernel": "pair_kernels",
}

__all__ = ["__version__", *_HOME]


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
