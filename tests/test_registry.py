"""The registry: names, metadata, evaluation by parameter name, user measures."""

import math

import numpy as np
import pytest

import puf
from puf import MEASURES, Population, as_measure, evaluate_measures, measure

BUILTINS = list(MEASURES)  # every registered measure at import: the built-ins


def population_with_everything():
    return Population(
        effectiveness=[0.0, 0.5, 1.0],
        similarity=[[1, 0.2, 0.4], [0.2, 1, 0.6], [0.4, 0.6, 1]],
        utility=[[0.1, 0.5, 0.2], [0.3, 0.3, 0.9], [0, 0, 1]],
        list_distance=[[0, 0.5, 1], [0.5, 0, 0.2], [1, 0.2, 0]],
    )


def test_registry_has_the_builtins_with_metadata():
    assert list(MEASURES) == [m.name for m in puf.registry.builtin_measures()]
    for name, m in MEASURES.items():
        assert m.name == name
        assert m.direction == "lower"
        assert m.definition
        assert set(m.reads) <= set(puf.FIELDS)
    assert MEASURES["uf"].range == (-math.inf, math.inf)
    assert MEASURES["puf-as-printed"].range == (0.0, 1.0)  # declared; the harness shows it exceeds


def test_evaluate_passes_fields_by_name():
    pop = population_with_everything()
    with pytest.warns(puf.UndefinedMeasureWarning):  # GE(0), Atkinson(ε >= 1) at S = 0; m < 6
        results = evaluate_measures(pop)
    assert list(results) == BUILTINS
    assert results["puf"] == puf.puf(pop.effectiveness, pop.similarity)
    assert results["me"] == puf.mean_envy(pop.utility)
    assert results["uf"] == puf.uf(pop.similarity, pop.list_distance)


def test_evaluate_skips_measures_whose_fields_are_absent_by_default():
    pop = Population([0.0, 1.0], [[1, 0.5], [0.5, 1]])
    with pytest.warns(puf.UndefinedMeasureWarning):
        assert list(evaluate_measures(pop)) == [
            n for n, m in MEASURES.items() if set(m.reads) <= {"effectiveness", "similarity"}
        ]
        assert {"puf", "sd", "gini", "ge-0"} <= set(evaluate_measures(pop)) and "me" not in evaluate_measures(pop)
    with pytest.raises(ValueError, match="utility"):
        evaluate_measures(pop, ["me"])


def test_user_function_and_decorator():
    def spread(effectiveness):
        """Max minus min."""
        return float(np.ptp(effectiveness))

    @measure(name="weighted", range=(0, 2), direction="lower", definition="test")
    def weighted(similarity, effectiveness, *, scale=2.0):
        return float(scale * np.mean(similarity) * np.mean(effectiveness))

    pop = population_with_everything()
    assert evaluate_measures(pop, [spread, weighted]) == {
        "spread": 1.0,
        "weighted": pytest.approx(2.0 * np.mean(pop.similarity) * 0.5),
    }
    assert as_measure(spread).definition == "Max minus min."
    assert as_measure(weighted).reads == ("similarity", "effectiveness")
    assert as_measure(weighted).range == (0.0, 2.0)


@pytest.mark.parametrize(
    "bad, match",
    [
        ("nope", "unknown measure 'nope'; known measures: puf, puf-as-printed"),
        (42, "must be a name or a callable"),
        (lambda effectiveness, ratings: 0.0, "required parameter 'ratings'"),
        (lambda: 0.0, "reads no Population field"),
    ],
)
def test_as_measure_rejects_bad_measures(bad, match):
    with pytest.raises(ValueError, match=match):
        as_measure(bad)


def test_decorator_rejects_bad_metadata():
    with pytest.raises(ValueError, match="direction"):
        measure(direction="up")
    with pytest.raises(ValueError, match="range"):
        measure(range=(1, 0))
    with pytest.raises(ValueError, match="tables must be True or False, got 'no'"):
        measure(tables="no")  # was taken as bool("no"), True: shown in every study


def test_evaluate_refuses_names_that_are_neither_a_measure_nor_a_list():
    pop = puf.Population([0.0, 1.0], [[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="names must be a measure name, a callable or a list"):
        puf.evaluate_measures(pop, 5)  # was a TypeError: 'int' object is not iterable


def test_register_checks_options_where_they_are_given():
    with pytest.raises(ValueError, match=r"options must be a dict of keyword options, got \[3\]"):
        puf.register(puf.generalized_entropy, name="ge-x", options=[3])
    # a misspelt option was refused as "cannot read the signature of measure functools.partial"
    with pytest.raises(
        ValueError,
        match=r"options \['alpah'\] are not options of "
        r"'generalized_entropy'; it takes \['alpha'\]",
    ):
        puf.register(puf.generalized_entropy, name="ge-x", options={"alpah": 3})
    assert "ge-x" not in puf.MEASURES


def test_a_measure_called_without_a_field_it_reads_names_it():
    with pytest.raises(
        ValueError,
        match=r"measure 'puf' reads \['similarity'\] but was given "
        r"only \['effectiveness'\]",
    ):
        puf.as_measure("puf")(effectiveness=[0.0, 1.0])  # was a bare KeyError


def test_a_callable_without_a_name_is_named_by_its_spec_here_and_in_its_worker(tmp_path):
    from puf.properties.running.isolation import load_isolated, release_workers

    path = tmp_path / "nameless.py"
    path.write_text(
        "import functools\n"
        "class Spread:\n"
        "    '''max S − min S, as an object.'''\n"
        "    def __call__(self, effectiveness):\n"
        "        return float(max(effectiveness) - min(effectiveness))\n"
        "def power_gap(effectiveness, p=1):\n"
        "    '''max S^p − min S^p.'''\n"
        "    return float(max(effectiveness) ** p - min(effectiveness) ** p)\n"
        "spread = Spread()\n"
        "square_gap = functools.partial(power_gap, p=2)\n"
        "import puf\n"
        "theil = functools.partial(puf.generalized_entropy, alpha=1)\n"
    )
    try:
        for load in (puf.load_measure, load_isolated):
            spread, square = load(f"{path}:spread"), load(f"{path}:square_gap")
            assert (spread.name, spread.label) == ("spread", "spread")
            assert (square.name, square.label) == ("square_gap", "square_gap")
            assert (spread.definition, square.definition) == ("max S − min S, as an object.", "max S^p − min S^p.")
            assert square.function(effectiveness=[0.5, 1.0]) == 0.75
            theil = load(f"{path}:theil")  # a partial of a built-in keeps its declared facts
            assert (theil.name, theil.range, theil.direction) == ("theil", (0.0, math.inf), "lower")
            assert theil.function(effectiveness=[0.2, 0.4]) == as_measure("ge-1").function(effectiveness=[0.2, 0.4])
    finally:
        release_workers()


def test_a_method_named_from_its_class_and_a_module_of_a_package_get_what_to_name_instead(tmp_path):
    class Measures:
        def gap(self, effectiveness):
            return float(max(effectiveness) - min(effectiveness))

    with pytest.raises(ValueError, match=r"'self' .* \(a method named from its class: name an instance's, or make"):
        as_measure(Measures.gap)
    assert as_measure(Measures().gap).reads == ("effectiveness",)
    package = tmp_path / "fairpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_util.py").write_text("def spread(s):\n    return max(s) - min(s)\n")
    (package / "measures.py").write_text(
        "from ._util import spread\n\ndef gap(effectiveness):\n    return spread(effectiveness)\n"
    )
    with pytest.raises(
        ValueError, match=rf"name it by its import path: fairpkg\.measures:FUNCTION, with {tmp_path} on"
    ):
        puf.load_measure(f"{package / 'measures.py'}:gap")
