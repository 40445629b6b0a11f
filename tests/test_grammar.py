"""puf.grammar: the forms equal the built-ins, the symbolic expressions equal the numpy blocks,
and a grammar measure is an ordinary measure (registry, loader, pickling, bad input)."""

import math
import pickle
import warnings

import numpy as np
import pytest

import puf
from puf.grammar import (
    BUILTIN_FORMS,
    DEFAULT_GRAMMAR,
    IndexForm,
    PairForm,
    builtin_form,
    enumerate_forms,
    grammar_measure,
    load_grammar,
)


def _populations(count, seed, *, max_users=9):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        m = int(rng.integers(2, max_users + 1))
        s = rng.random(m)
        if trial % 4 == 0:
            s[rng.integers(m)] = 0.0
        if trial % 6 == 0:
            s = np.round(s * 4) / 4  # ties, and gaps equal to an allowance L·(1 − sim)
        a = rng.random((m, m))
        sim = (a + a.T) / 2
        if trial % 5 == 0:
            sim = np.round(sim * 2) / 2
        np.fill_diagonal(sim, 1.0)
        yield s, sim


def _value(measure, s, sim):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", puf.UndefinedMeasureWarning)
        return puf.as_measure(measure)(effectiveness=s, similarity=sim)


@pytest.mark.parametrize("name", list(BUILTIN_FORMS))
def test_each_builtin_equals_its_form_to_1e_12(name):
    form = grammar_measure(BUILTIN_FORMS[name])
    for s, sim in _populations(150, seed=len(name)):
        expected, got = _value(name, s, sim), _value(form, s, sim)
        assert (math.isnan(expected) and math.isnan(got)) or abs(expected - got) <= 1e-12, (name, s)


def _plain_pair_loop(form, s, sim):
    """The pair form by its definition, one pair at a time."""
    m = len(s)
    weight = {
        "1": lambda x: 1.0,
        "sim": lambda x: x,
        "sim^2": lambda x: x * x,
        "sim>=t": lambda x: float(x >= form.threshold),
    }[form.weight]
    gap = {
        "abs": lambda a, b, x: abs(a - b),
        "square": lambda a, b, x: (a - b) ** 2,
        "excess": lambda a, b, x: max(0.0, abs(a - b) - form.lipschitz * (1 - x)),
        "violation": lambda a, b, x: float(abs(a - b) > form.lipschitz * (1 - x)),
    }[form.gap]
    term = {(u, v): weight(sim[u][v]) * gap(s[u], s[v], sim[u][v]) for u in range(m) for v in range(m) if u != v}
    pairs = [(u, v) for u in range(m) for v in range(u + 1, m)]
    value = {
        "pairs": sum(term[p] for p in pairs) / len(pairs),
        "all-pairs": sum(term.values()) / m**2,
        "max": max(term[p] for p in pairs),
        "user-max": sum(max(term[(u, v)] for v in range(m) if v != u) for u in range(m)) / m,
    }[form.aggregation]
    if form.normalisation == "mean":
        value /= (sum(s) / m) ** (1 if form.gap == "abs" else 2)
    if form.normalisation == "weights":  # a weighted mean over the pairs, whichever mean
        value = sum(term[p] for p in pairs) / sum(weight(sim[u][v]) for u, v in pairs)
    value *= form.coefficient
    return math.sqrt(value) if form.root else value


def test_every_pair_form_of_the_default_grammar_matches_a_plain_loop():
    forms = enumerate_forms(kinds=("pair",))
    for s, sim in _populations(6, seed=3, max_users=6):
        s = np.maximum(s, 0.05)  # no all-zero mean, no zero weight sum: every form is defined
        sim = np.maximum(sim, 0.05)
        for form in forms:
            assert abs(form.value(s, sim) - _plain_pair_loop(form, s, sim)) <= 1e-12, form


def test_symbolic_expressions_evaluate_to_the_numpy_values():
    forms = enumerate_forms()
    for s, sim in _populations(4, seed=5, max_users=5):
        s = np.maximum(s, 0.05)
        sim = np.maximum(sim, 0.05)
        m = len(s)
        point = {"S": s.tolist(), "w": {(i, j): sim[i, j] for i in range(m) for j in range(i + 1, m)}}
        for form in forms:
            assert abs(form.symbolic(m).value(point) - form.value(s, sim)) <= 1e-12, form


def test_a_grammar_measure_is_an_ordinary_measure(tmp_path):
    made = grammar_measure(PairForm(weight="sim^2", gap="excess", lipschitz=0.5), name="sq-excess")
    measure = puf.as_measure(made)
    assert measure.reads == ("effectiveness", "similarity") and measure.family == "similarity-aware"
    assert measure.range == (0.0, 1.0) and builtin_form(measure) == made.form
    pop = puf.Population([0.0, 1.0, 0.5], np.ones((3, 3)))
    registered = puf.register(made, name="sq-excess-test")
    try:
        values = puf.evaluate_measures(pop, ["sq-excess-test", made])
        assert values["sq-excess-test"] == values["sq-excess"] == pytest.approx(2 / 3)  # sim = 1: MD
    finally:
        puf.MEASURES.pop(registered.name)
    assert pickle.loads(pickle.dumps(made))([0.0, 1.0], np.ones((2, 2))) == made([0.0, 1.0], np.ones((2, 2)))
    path = tmp_path / "mine.py"
    path.write_text(
        "from puf.grammar import IndexForm, grammar_measure\n"
        "theil = grammar_measure(IndexForm('ge', 1.0), name='theil')\n"
    )
    loaded = puf.load_measure(f"{path}:theil")
    assert loaded.name == "theil" and loaded.reads == ("effectiveness",)
    assert loaded(effectiveness=[0.0, 1.0]) == pytest.approx(math.log(2))


def test_bad_forms_name_the_argument_and_undefined_values_warn():
    with pytest.raises(ValueError, match="unknown gap 'gapp'"):
        PairForm(gap="gapp")
    with pytest.raises(ValueError, match="normalisation 'mean' needs a homogeneous gap"):
        PairForm(gap="excess", normalisation="mean")
    with pytest.raises(ValueError, match="lipschitz must be a finite number >= 0, got -1"):
        PairForm(gap="excess", lipschitz=-1)
    with pytest.raises(ValueError, match="index form 'cv' takes no parameter"):
        IndexForm("cv", 2.0)
    with pytest.raises(ValueError, match="effectiveness"):
        grammar_measure(PairForm())([0.5, 1.5])
    with pytest.warns(puf.UndefinedMeasureWarning):
        assert math.isnan(grammar_measure(IndexForm("ge", 0.0))([0.0, 1.0]))
    with pytest.warns(puf.UndefinedMeasureWarning):
        assert math.isnan(grammar_measure(PairForm(weight="sim", normalisation="weights"))([0.0, 1.0], np.eye(2)))


def test_grammar_files_are_read_and_checked(tmp_path):
    path = tmp_path / "grammar.json"
    path.write_text('{"index": {"ge": [0.5, 2.0]}, "pair": {"gap": ["abs"]}}')
    assert [f.name() for f in enumerate_forms(load_grammar(path))] == ["1·abs/pairs", "ge(0.5)", "ge(2)"]
    path.write_text('{"index": {"theil": [1]}}')
    with pytest.raises(ValueError, match="grammar 'index' entry 'theil'"):
        load_grammar(path)
    assert len(enumerate_forms(DEFAULT_GRAMMAR)) == 140


def test_the_designer_s_multiples_are_exact():
    square = PairForm(gap="square", aggregation="all-pairs", normalisation="mean")
    for s, sim in _populations(40, seed=11):
        if s.mean() > 0:
            assert abs(square.value(s) - 4 * _value("ge-2", s, sim)) <= 1e-12
            root = PairForm(gap="square", aggregation="all-pairs", normalisation="mean", root=True)
            assert abs(root.value(s) - math.sqrt(2) * _value("cv", s, sim)) <= 1e-12


def test_every_pair_form_that_is_a_mean_over_pairs_streams_its_value_on_the_tiles():
    """The pair kernel (weights and finish included) over tiles of pairs = the form's dense value, 1e-10."""
    from puf.engines.pair_pass import PairJob, pair_sums
    from puf.grammar.kernels import form_kernel
    from puf.pair_kernels import pair_kernel_of

    rng = np.random.default_rng(0)
    m = 23
    s, a = rng.random(m), rng.random((m, m))
    sim = (a + a.T) / 2
    np.fill_diagonal(sim, 1.0)
    streamed = 0
    for form in enumerate_forms(kinds=("pair",)):
        kernel = form_kernel(form)
        if kernel is None:
            assert form.aggregation in ("max", "user-max")
            continue
        assert pair_kernel_of(grammar_measure(form)) == (kernel, {})
        jobs = [PairJob(kernel, {}, s)] + ([PairJob(kernel.weight_kernel(), {}, s)] if kernel.weights else [])
        totals = pair_sums(jobs, m=m, similarity="matrix", inputs={"matrix": sim}, block_size=7, width=5, n_jobs=1)
        value = kernel.value(
            total=totals[0],
            n_pairs=m * (m - 1) / 2,
            weight_total=totals[-1] if kernel.weights else None,
            effectiveness=s,
        )
        assert value == pytest.approx(form.value(s, sim), abs=1e-10), form.name()
        streamed += 1
    assert streamed == 80
