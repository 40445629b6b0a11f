"""Measure metadata in one place: the @measure declarations, reads from signatures, variants' data."""

import functools
import importlib
import inspect
import sys
import types

import numpy as np
import pytest

import puf
from puf import registry
from puf.metadata import Measure, measure, signature_reads
from puf.population import FIELDS

BUILTINS = list(puf.MEASURES)  # every registered measure at import: the built-ins
# The display labels tables and figures have always shown: pinned, so that none changes unseen.
LABELS = {
    "sd": "SD",
    "gini": "Gini",
    "puf": "PUF",
    "puf-as-printed": "PUF-as-printed",
    "me": "ME",
    "me-as-printed": "ME-as-printed",
    "mme": "MME",
    "peu": "PEU",
    "uf": "UF",
    "ge-0": "GE-0",
    "ge-1": "GE-1",
    "ge-2": "GE-2",
    "atkinson-0.5": "Atkinson-0.5",
    "atkinson-1": "Atkinson-1",
    "atkinson-2": "Atkinson-2",
    "cv": "CV",
    "jain": "Jain",
    "hoover": "Hoover",
    "variance": "Variance",
    "mean-difference": "MD",
    "max-min": "Max-min",
    "inconsistency": "Inconsistency",
    "lipschitz-violation": "Lipschitz-violation",
    "lipschitz-excess": "Lipschitz-excess",
}


def fields_in_signature(function):
    """Plain reading of the rule: the parameters named after Population fields, in order."""
    return tuple(p for p in inspect.signature(function).parameters if p in FIELDS)


def declared(name):
    """The Measure a built-in's decorator declared: on its function, or among its instances."""
    function = puf.MEASURES[name].function
    base = function.func if isinstance(function, functools.partial) else function
    candidates = base.__puf_instances__ or (base.__puf_measure__,)
    return base, next(m for m in candidates if m.name == name)


def plain_builtin_order():
    """The rule read plainly: each module of BUILTIN_MODULES, its decorated functions by source
    line, each function's instances (or itself)."""
    names = []
    for module_name in registry.BUILTIN_MODULES:
        module = sys.modules.get(f"puf.{module_name}") or importlib.import_module(f"puf.{module_name}")
        functions = [
            f
            for f in vars(module).values()
            if callable(f) and hasattr(f, "__puf_measure__") and getattr(f, "__module__", None) == module.__name__
        ]
        for f in sorted(set(functions), key=lambda f: inspect.getsourcelines(f)[1]):
            names += [m.name for m in (f.__puf_instances__ or (f.__puf_measure__,))]
    return names


def test_fields_passed_positional_only_are_passed_in_order():
    """A measure written with "/" (its fields positional-only) is called with them in order, its
    options by name; an option before a positional-only field, or an async measure, is refused."""

    def gap(effectiveness, similarity, /, *, scale=1.0):
        return scale * float(np.max(effectiveness) - np.min(effectiveness)) * float(similarity[0, 1])

    pop = puf.Population([0.2, 0.6], [[1.0, 0.5], [0.5, 1.0]])
    declared = puf.as_measure(gap)
    assert declared.reads == ("effectiveness", "similarity")
    assert declared(**pop.fields()) == pytest.approx(0.2)
    assert puf.evaluate_measures(pop, [declared]) == {"gap": pytest.approx(0.2)}
    (verdict,) = puf.properties.verdicts(gap, properties=["range"], max_examples=5)
    assert verdict.status in ("holds", "proven"), verdict.reason

    def option_first(k=3, effectiveness=(), /):
        return 0.0

    with pytest.raises(ValueError, match="takes its option 'k' before the field 'effectiveness'"):
        signature_reads(option_first)

    async def later(effectiveness):
        return 0.0

    with pytest.raises(ValueError, match="'later' is a coroutine function .async def., whose call returns no number"):
        signature_reads(later)


def test_a_misspelt_field_is_named_with_the_field_meant():
    """A required parameter a letter off a field is refused with the field it meant; so is an
    option that close to one (it would keep its default: fields are passed by name only). Options
    merely like a field ("similarities", "similarity_floor") are options."""

    def sd(effectivness):
        return float(np.std(effectivness))

    with pytest.raises(ValueError, match="'effectivness' that is not a Population field; did you mean 'effectiveness'"):
        signature_reads(sd)

    def scored(scores):
        return 0.0

    with pytest.raises(ValueError, match="'scores' that is not a Population field; known fields: effectiveness, "):
        signature_reads(scored)

    def weighted(effectiveness, similarty=None):
        return 0.0

    with pytest.raises(ValueError, match=r"option 'similarty' \(default None\) .*did you mean 'similarity'\?"):
        signature_reads(weighted)

    def floored(effectiveness, *, similarities=None, similarity_floor=0.0, utilities=()):
        return 0.0

    assert signature_reads(floored) == ("effectiveness",)


def test_registry_order_is_module_order_then_definition_order():
    assert list(puf.MEASURES) == [m.name for m in registry.builtin_measures()] == plain_builtin_order()
    assert list(puf.MEASURES)[:9] == [n for n, m in puf.MEASURES.items() if "PUF paper" in m.reference]


@pytest.mark.parametrize("name", BUILTINS)
def test_reads_label_and_family_come_from_the_decorator(name):
    m = puf.MEASURES[name]
    base, decl = declared(name)
    assert m is decl  # the registry holds the decorator's own object: no second list
    assert m.reads == fields_in_signature(m.function) == fields_in_signature(base)
    assert all(inspect.signature(base).parameters[f].default is inspect.Parameter.empty for f in m.reads)
    assert m.label and m.label == LABELS.get(name, m.label)
    assert m.family in puf.FAMILIES and m.definition


def test_the_pinned_labels_are_the_registrys():
    assert {name: puf.MEASURES[name].label for name in LABELS} == LABELS
    labels = [m.label for m in puf.MEASURES.values()]
    assert len(set(labels)) == len(labels)


def test_parametrised_builtins_bind_their_option():
    s = np.array([0.2, 0.4, 0.9])
    for name, option in [("ge-0", {"alpha": 0.0}), ("ge-1", {"alpha": 1.0}), ("ge-2", {"alpha": 2.0})]:
        assert puf.MEASURES[name](effectiveness=s) == puf.generalized_entropy(s, **option)
    for name, eps in [("atkinson-0.5", 0.5), ("atkinson-1", 1.0), ("atkinson-2", 2.0)]:
        assert puf.MEASURES[name](effectiveness=s) == puf.atkinson(s, epsilon=eps)
    assert puf.MEASURES["ge-2"].reference == "Shorrocks 1980; Speicher et al. KDD 2018"
    assert puf.MEASURES["ge-0"].reference == "Shorrocks 1980"  # the decorator's, inherited


def test_handwritten_reads_is_checked_against_the_signature():
    def gap(similarity, effectiveness):
        return 0.0

    assert Measure(gap, "gap", reads=("similarity", "effectiveness")).reads == ("similarity", "effectiveness")
    with pytest.raises(ValueError, match=r"declares reads \('effectiveness',\) but its signature reads"):
        Measure(gap, "gap", reads=("effectiveness",))
    with pytest.raises(ValueError, match="declares reads"):
        measure(reads=("utility",))(gap)
    assert signature_reads(functools.partial(gap, similarity=None)) == ("similarity", "effectiveness")


@pytest.mark.parametrize(
    "metadata, match",
    [
        (dict(colour="red"), "unknown metadata"),
        (dict(similarity="euclid"), "unknown similarity 'euclid'"),
        (dict(similarity="uf"), "takes gamma: declare gamma in"),
        (dict(similarity="uf", gamma=1.5), "takes gamma"),
        (dict(gamma=0.5), "gamma must be None"),
        (dict(label=3), "label must be a string"),
        (dict(instances=[{"name": "x"}]), "'name' and 'options'"),
    ],
)
def test_decorator_rejects_bad_metadata_where_it_is_written(metadata, match):
    with pytest.raises(ValueError, match=match):
        measure(**metadata)


def test_a_new_builtin_is_one_decorated_function(monkeypatch):
    module = types.ModuleType("puf._throwaway_measures")
    exec(
        "from puf.metadata import measure\n"
        "@measure(name='spread', label='Spread', reference='nobody 2026')\n"
        "def spread(effectiveness):\n"
        "    '''Max minus min.'''\n"
        "    return float(max(effectiveness) - min(effectiveness))\n",
        module.__dict__,
    )
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(registry, "BUILTIN_MODULES", registry.BUILTIN_MODULES + ("_throwaway_measures",))
    found = registry.builtin_measures()
    assert [m.name for m in found] == BUILTINS + ["spread"]
    assert (found[-1].label, found[-1].reads, found[-1].definition) == ("Spread", ("effectiveness",), "Max minus min.")


def test_labels_and_panels_shape_the_variants():
    assert [v.label for v in puf.variants("MD-P") + puf.variants("mean-difference-P")] == ["MD-P", "MD-P"]
    assert {v.panel for v in puf.variants() if v.measure.family == "envy"} == {"Envy"}

    def gap(effectiveness):
        return 0.0

    # Registered without a label: shown by its name, on its own panel.
    puf.register(gap, name="gap")
    try:
        assert [(v.label, v.panel) for v in puf.variants("gap-P")] == [("gap-P", "gap")]
        puf.register(gap, name="gap", label="Gap", replace=True)
        assert [v.label for v in puf.variants("GAP-NDCG")] == ["Gap-NDCG"]
    finally:
        puf.MEASURES.pop("gap")
    ge3 = puf.register(puf.generalized_entropy, name="ge-3", options={"alpha": 3})
    try:  # a new value of a parametrised built-in: its name, not the function's label
        assert (ge3.label, ge3.family, ge3.reference) == ("ge-3", "inequality indices", "Shorrocks 1980")
    finally:
        puf.MEASURES.pop("ge-3")


def test_variants_carry_their_similarity_as_data():
    (uf,) = puf.variants("UF")
    assert (uf.similarity, uf.gamma) == ("uf", 0.5) == (puf.MEASURES["uf"].similarity, puf.MEASURES["uf"].gamma)
    for v in puf.variants():
        if v.measure.name != "uf":
            assert (v.similarity, v.gamma) == ("jaccard", None), v.label
    with pytest.raises(ValueError, match="unknown similarity"):
        puf.Variant("x", puf.MEASURES["sd"], "P", "x", similarity="euclid")
    with pytest.raises(ValueError, match="gamma must be None"):
        puf.Variant("x", puf.MEASURES["sd"], "P", "x", gamma=0.5)


def test_a_variant_on_the_population_it_names_matches_the_function():
    world = puf.World(
        np.array([[1, 1, 0, 0], [0, 1, 1, 0], [1, 0, 0, 1]]),
        np.array([[0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 1, 0]]),
        [[2, 3], [0, 2], [1, 3]],
        np.array([[1.0, 0], [0, 1], [1, 1], [1, 0]]),
    )
    for spec in ("UF", "PUF-NDCG"):
        (v,) = puf.variants(spec)
        pop = world.population(metric="ndcg", similarity=v.similarity, gamma=v.gamma)
        expected = (
            puf.uf(world.similarity("uf", gamma=0.5), pop.list_distance)
            if spec == "UF"
            else puf.puf(pop.effectiveness, world.similarity("jaccard"))
        )
        assert v(pop.fields()) == pytest.approx(expected, abs=1e-12)


def test_core_puf_takes_the_matrix_only():
    with pytest.raises(ValueError, match="puf.engines.puf_from_histories"):
        puf.pairwise_user_unfairness([0.0, 1.0], "jaccard")
    with pytest.raises(TypeError, match="histories"):
        puf.pairwise_user_unfairness([0.0, 1.0], histories=np.eye(2))


def test_one_similarity_dispatch():
    from puf.similarity import compute_similarity, similarity_parameters

    histories = np.array([[1.0, 1, 0], [0, 1, 1], [1, 0, 1]])
    features = np.array([[1.0, 0], [0, 1], [1, 1]])
    world = puf.World(histories, np.eye(3), [[0], [1], [2]], features)
    assert similarity_parameters("js") == ("item_features",)
    np.testing.assert_array_equal(world.similarity("js"), puf.js_similarity(histories, features))
    np.testing.assert_array_equal(
        world.similarity("uf", gamma=0.25), puf.uf_similarity(histories, features, gamma=0.25)
    )
    np.testing.assert_array_equal(world.similarity("cosine"), puf.cosine_similarity(histories))
    with pytest.raises(ValueError, match="needs item_features"):
        compute_similarity("js", histories)
    with pytest.raises(ValueError, match="unknown similarity 'nope'"):
        world.similarity("nope")


def test_gamma_has_one_default_the_one_uf_declares():
    import dataclasses
    from puf.reports.sweeps import Base

    world = puf.World(np.array([[1, 1, 0], [0, 1, 1]]), np.array([[0, 0, 1], [1, 0, 0]]), [[0], [1]], np.eye(3))
    gamma = puf.MEASURES["uf"].gamma
    assert puf.declared_gamma("uf") == gamma and puf.declared_gamma("jaccard") is None
    np.testing.assert_array_equal(world.similarity("uf"), world.similarity("uf", gamma=gamma))
    np.testing.assert_array_equal(world.population(similarity="uf").similarity, world.similarity("uf", gamma=gamma))
    assert Base().gamma == gamma
    uf = puf.MEASURES["uf"]
    puf.MEASURES["uf"] = dataclasses.replace(uf, gamma=0.25)
    try:
        np.testing.assert_array_equal(world.similarity("uf"), world.similarity("uf", gamma=0.25))
    finally:
        puf.MEASURES["uf"] = uf


def test_study_options_reach_every_measure_declaring_them():
    import dataclasses
    import pandas as pd
    from puf.data import preprocess
    from puf.evaluation import evaluate_runs

    @measure(name="my-envy", label="My-envy", study_options=("epsilon",))
    def my_envy(utility, *, epsilon=0.05):
        return float(puf.proportion_envious_users(utility, epsilon=epsilon))

    frame = pd.DataFrame(
        {"user_id": list("aabbcc"), "item_id": list("xyyxxz"), "rating": [5.0] * 6, "timestamp": [1, 2] * 3}
    )
    data = dataclasses.replace(preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1), item_features=np.eye(3))
    runs = {"mine": [[1], [1], [0]]}
    for epsilon in (0.0, 1.0, None):
        table = evaluate_runs(data, runs, k=1, epsilon=epsilon, measures=["peu", my_envy])
        assert table.loc["mine", "My-envy"] == table.loc["mine", "PEU"]
    assert (
        evaluate_runs(data, runs, k=1, epsilon=0.0, measures=["peu"]).loc["mine", "PEU"]
        != evaluate_runs(data, runs, k=1, epsilon=1.0, measures=["peu"]).loc["mine", "PEU"]
    )
    with pytest.raises(ValueError, match="not options of"):
        measure(study_options=("eps",))(lambda utility, *, epsilon=0.05: 0.0)
