"""The verdict runner, `puf check` and the pytest plugin, on planted measures with known flaws."""

import importlib.metadata
import json
import re
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

from puf.properties import CATALOG, all_verdicts, verdict_matrix, verdicts, verdicts_in_background
from puf import load_measure, measure
from puf.properties.running.display import format_verdicts
from puf.cli import main

pytest_plugins = ["pytester"]


def ignores_similarity(effectiveness, similarity):
    """Spread of effectiveness; reads similarity and never uses it (the flaw the PUF paper finds)."""
    return float(np.ptp(effectiveness))


def rewards_disparity(effectiveness):
    """Fairer (lower) the more unequal the users are: 0.5 − spread / 2."""
    return 0.5 - 0.5 * float(np.ptp(effectiveness))


def raises_on_ties(effectiveness):
    """Crashes whenever two users tie."""
    if len(set(effectiveness.tolist())) < len(effectiveness):
        raise ZeroDivisionError("tie")
    return float(np.ptp(effectiveness))


SLEEP = 30.0  # far beyond the time limit: a harness that waited for the call would take this long


def sleeps(effectiveness):
    time.sleep(SLEEP)
    return 0.0


def returns_text(effectiveness):
    return "fair"


def bad_parameter(effectiveness, popularity):
    return 0.0


def _by_property(results):
    return {v.property: v for v in results}


@pytest.fixture(scope="module")
def ignoring():
    return _by_property(
        verdicts(
            ignores_similarity,
            properties=["similarity-sensitive", "similarity-zero", "anonymity", "effectiveness-sensitive"],
        )
    )


def test_a_measure_ignoring_similarity_violates_the_similarity_properties(ignoring):
    # It reads similarity, so no proof shows that no change of it moves the value: the failed
    # search for a witness is `not-found`, with the candidates it tried (the grid's included).
    assert {p: v.status for p, v in ignoring.items()} == {
        "similarity-sensitive": "not-found",
        "similarity-zero": "violated",
        "anonymity": "holds",
        "effectiveness-sensitive": "holds",
    }


def gaps_follow_similarity(effectiveness, similarity):
    """Spearman's correlation of the pairs' similarity with their gaps |S(u) − S(v)|: NaN when
    either is constant (two users, one pair; a similarity of nobody or everyone alike)."""
    import scipy.stats

    s, iu = np.asarray(effectiveness, dtype=float), np.triu_indices(len(effectiveness), 1)
    with np.errstate(all="ignore"), warnings.catch_warnings(action="ignore"):
        return float(scipy.stats.spearmanr(np.asarray(similarity)[iu], np.abs(s[:, None] - s)[iu]).statistic)


def test_a_rank_correlation_with_similarity_finds_its_similarity_witness():
    """Such a measure is undefined on a constant similarity, which the grid's first three changes
    are: the grid also turns one alike pair into another, and there the change is seen (the few
    drawn examples here alone were each undefined)."""
    (found,) = verdicts(gaps_follow_similarity, properties=["similarity-sensitive"], max_examples=5)
    assert found.status == "holds" and found.reason.startswith("witness: value"), found.reason
    assert found.example["before"]["similarity"] != found.example["after"]["similarity"]


def test_counterexamples_are_minimal(ignoring):
    example = ignoring["similarity-zero"].example
    # Two users with different effectiveness suffice: the spread is > 0 with every similarity 0.
    assert len(example["before"]["effectiveness"]) == 2
    assert example["before"]["similarity"] == [[1.0, 0.0], [0.0, 1.0]]
    assert example["value_before"] > 0 and example["violation"] > 0
    witness = ignoring["effectiveness-sensitive"].example
    assert len(witness["before"]["effectiveness"]) == 2
    assert witness["value_before"] != witness["value_after"]


def test_a_measure_rewarding_disparity():
    found = _by_property(
        verdicts(
            rewards_disparity,
            properties=["disparity-monotone", "pigou-dalton", "zero-at-equality", "range", "similarity-monotone"],
        )
    )
    assert {p: v.status for p, v in found.items()} == {
        "disparity-monotone": "violated",
        "pigou-dalton": "violated",
        "zero-at-equality": "violated",
        "range": "holds",
        "similarity-monotone": "holds",
    }
    example = found["disparity-monotone"].example
    assert len(example["before"]["effectiveness"]) == 2
    # Widening the gap lowered the value: before > after for a lower-is-fairer measure.
    assert example["value_before"] > example["value_after"]


def test_a_raising_measure_is_a_finding_of_defined_and_set_aside_elsewhere():
    found = _by_property(verdicts(raises_on_ties, properties=["defined", "anonymity"], max_examples=30))
    assert found["defined"].status == "violated"
    assert "ZeroDivisionError: tie" in found["defined"].reason
    assert found["defined"].example["before"]["effectiveness"] in ([0.0, 0.0], [0.01, 0.01])
    # The ties are set aside as NaN would be; anonymity is judged on the rest of the domain.
    assert found["anonymity"].status == "holds" and found["anonymity"].n_undefined > 0


def test_a_find_a_measure_does_not_repeat_is_no_violation():
    """A measure that samples (no seed) gives another value on the same population: a gap between
    two of its values shows nothing of anonymity, so the verdict is undefined and says why; the
    determinism property, which is about repeated calls, still shows the flaw."""
    import random

    def sampled_spread(effectiveness):
        return float(np.ptp(effectiveness)) * random.uniform(0.5, 1.0)

    found = _by_property(verdicts(sampled_spread, properties=["anonymity", "deterministic"], max_examples=30))
    assert found["anonymity"].status == "undefined"
    assert found["anonymity"].reason.startswith("not reproducible: asked again, the same population gave")
    assert found["deterministic"].status == "violated"


def test_a_find_far_above_a_measures_jitter_stands():
    """A measure whose values jitter in their last digits (a float sum in a varying order) but
    depend on the users' labels shows anonymity's negation all the same: the jitter is far below
    the gap between the two values."""
    import random

    def first_user(effectiveness):
        return float(effectiveness[0]) + random.random() * 1e-12

    (verdict,) = verdicts(first_user, properties=["anonymity"], max_examples=30)
    assert verdict.status == "violated"


def _search_with(calls, name):
    """A search of property ``name`` whose measure is called through ``calls`` (a MeasureCalls)."""
    from puf import as_measure
    from puf.properties import get_property
    from puf.properties.running.search import PropertySearch

    return PropertySearch(
        as_measure(lambda effectiveness: 0.0),
        get_property(name),
        measure_calls=calls,
        max_examples=5,
        time_limit=1.0,
        time_budget=60.0,
    )


@pytest.mark.parametrize(
    "again, said",
    [("timeout", None), ("raise", "not reproducible: asked again on the same populations, the measure raised (boom)")],
)
def test_a_find_asked_again_too_slowly_stands_and_one_that_raises_does_not(again, said):
    """Asked again, a call over the time limit is no evidence that the values move (the find
    stands); a raise on a population that gave a value is."""
    from puf import Population
    from puf.properties.cases.case import Case
    from puf.properties.running.runner import MEASURE_CALLS
    from puf.properties.running.search import MeasureCalls

    asked = []

    def call(measure, population, time_limit):
        asked.append(population)
        if len(asked) <= 2:
            return float(len(asked))  # 1, then 2 on the relabelled users: an anonymity find
        raise MEASURE_CALLS.timed_out() if again == "timeout" else MEASURE_CALLS.raised("boom")

    calls = MeasureCalls(call, MEASURE_CALLS.fresh, MEASURE_CALLS.raised, MEASURE_CALLS.timed_out)
    search = _search_with(calls, "anonymity")
    pop = Population([0.0, 1.0], np.eye(2))
    assert search.replay([Case(pop, pop.permute([1, 0]), "users relabelled: order=[1, 0]")])
    assert search.unsteady() == said


def test_a_sampling_measure_that_repeats_its_find_once_by_chance_is_still_not_reproducible():
    """A bootstrap's values on two users are few, so asked again once it can give the find's two
    values again; asked a second time it moves, and the find is not shown."""
    from puf import Population
    from puf.properties.cases.case import Case
    from puf.properties.running.runner import MEASURE_CALLS
    from puf.properties.running.search import MeasureCalls

    values = iter([0.0, 0.5, 0.0, 0.5, 0.5, 0.0, 0.0, 0.5])  # the find, the same again, then moved
    calls = MeasureCalls(lambda *_: next(values), MEASURE_CALLS.fresh, MEASURE_CALLS.raised, MEASURE_CALLS.timed_out)
    search = _search_with(calls, "anonymity")
    pop = Population([0.0, 1.0], np.eye(2))
    assert search.replay([Case(pop, pop.permute([1, 0]), "users relabelled: order=[1, 0]")])
    assert search.unsteady().startswith("not reproducible: asked again, the same population gave 0.5, not 0")


KEEPS_EARLIER_CALLS = '''
import numpy as np

_largest = [0.0]


def running_max(effectiveness):
    """The largest SD asked so far: once S = (0, 1) was asked, every population gets 0.5 or more."""
    _largest[0] = max(_largest[0], float(np.std(effectiveness)))
    return _largest[0]


def doubled(effectiveness):
    return 2.0 * float(max(effectiveness))
'''


def test_a_find_left_from_earlier_calls_is_not_reproducible_alone(tmp_path):
    """The number check asks S = (0, 1) first, so a running maximum gives 0.5 at equality: asked
    alone, as the first call of a new process, the population gives 0, and the cell is undefined,
    not violated. A find that shows alone too stays violated."""
    (tmp_path / "kept.py").write_text(KEEPS_EARLIER_CALLS, encoding="utf-8")
    (kept,) = verdicts(
        load_measure(f"{tmp_path / 'kept.py'}:running_max"), properties=["zero-at-equality"], max_examples=5
    )
    assert kept.status == "undefined", kept.reason
    assert kept.reason.startswith(
        "not reproducible alone: each population asked alone, as the first call of a new process, gave 0, not 0.5: no violation"
    )
    (doubled,) = verdicts(load_measure(f"{tmp_path / 'kept.py'}:doubled"), properties=["range"], max_examples=5)
    assert doubled.status == "violated", doubled.reason


RAISES_AT_ZERO = '''
import numpy as np


def raises_at_zero(effectiveness):
    """Spread over mean: raises at S = 0 and leaves [0, 1] (2.0 at S = (0, 0, 1))."""
    mean = float(np.mean(effectiveness))
    if mean == 0:
        raise ZeroDivisionError("division by zero")
    return float(np.ptp(effectiveness)) / mean / 1.5
'''


def test_a_population_asked_first_that_raises_leaves_deterministic_judged_on_p(tmp_path):
    """``deterministic`` asks other populations before P again, one of them P's users at 0 and 1
    in turn: a measure that refuses that one alone is judged on P's values, not set aside."""
    from puf.properties.running.display import format_example

    (tmp_path / "picky.py").write_text(
        "import numpy as np\n\ndef gap(effectiveness):\n"
        "    assert not (max(effectiveness) == 1 and min(effectiveness) == 0), 'degenerate'\n"
        "    return float(np.ptp(effectiveness))\n",
        encoding="utf-8",
    )
    (verdict,) = verdicts(load_measure(f"{tmp_path / 'picky.py'}:gap"), properties=["deterministic"], max_examples=20)
    assert verdict.status == "holds" and verdict.n_examples > 0, verdict.reason
    example = {"change": "P relabelled, then P again", "value_before": 0.0, "value_after": 0.005, "violation": 0.005}
    example |= {"before": {"effectiveness": [0.01, 0.0]}, "after": {"effectiveness": [0.0, 0.01]}}
    assert format_example(example, indent=0, repeated=True).splitlines()[1:] == [
        "value of P alone 0, asked after the other population 0.005",
        "effectiveness (P)            [0.01 0.  ]",
        "effectiveness (asked first)  [0.   0.01]",
    ]


def test_a_subgroup_property_names_what_the_measure_raised_on_a_population_it_derives():
    """``subgroup-decomposability`` sets a group at its mean: a measure that raises when every
    user is equal is undefined there, and the verdict names the error and that population."""

    def gap_of_unequal(effectiveness):
        if max(effectiveness) == min(effectiveness):
            raise ValueError("all users equal")
        return float(np.ptp(effectiveness))

    (verdict,) = verdicts(gap_of_unequal, properties=["subgroup-decomposability"], max_examples=20)
    assert verdict.status == "undefined"
    assert "e.g. ValueError: all users equal, on the derived population group_at_mean" in verdict.reason


def test_a_measure_raising_at_zero_gets_a_full_row_and_its_range_violation(tmp_path):
    (tmp_path / "planted.py").write_text(RAISES_AT_ZERO, encoding="utf-8")  # importable by fresh workers
    found = _by_property(verdicts(load_measure(f"{tmp_path / 'planted.py'}:raises_at_zero"), max_examples=30))
    assert found["range"].status == "violated" and found["range"].example["value_before"] > 1
    assert found["defined"].status == "violated" and "ZeroDivisionError" in found["defined"].reason
    # The row says once where the measure is undefined: no other cell is lost to it.
    assert [p for p, v in found.items() if v.status == "undefined"] == []
    assert found["zero-at-equality"].status == "holds"  # a spread of 0 wherever it is defined


def mad2(effectiveness):
    """Twice the median absolute deviation: attains 1 at m = 5 only on S = (0, 0, ½, 1, 1) and its relabellings."""
    s = np.asarray(effectiveness)
    return float(2 * np.median(np.abs(s - np.median(s))))


def test_a_failed_search_for_a_witness_is_not_a_violation():
    found = _by_property(verdicts(mad2, properties=["attainable-range", "similarity-sensitive"], max_examples=30))
    assert found["attainable-range"].status == "holds"  # the grid {0, ½, 1}^5 reaches 1 at m = 5
    # It reads no similarity: that is the proof that no similarity change moves it.
    assert (
        found["similarity-sensitive"].status == "violated"
        and "reads no similarity" in found["similarity-sensitive"].reason
    )


def capped(effectiveness):
    """The spread, capped below 1 for m ≥ 3 by a factor no grid point undoes: 1 is reached at m = 2 only."""
    return float(np.ptp(effectiveness)) * (1.0 if len(effectiveness) == 2 else 0.9)


def test_an_end_not_reached_is_not_found_never_violated():
    verdict = verdicts(capped, properties=["attainable-range"], max_examples=20)[0]
    assert verdict.status == "not-found"
    assert "not reached, nor by the grid" in verdict.reason and "no proof either way" in verdict.reason
    # Shrunk to the smallest size where the end is not reached.
    assert verdict.reason.startswith("m = 3:") and len(verdict.example["before"]["effectiveness"]) == 3


def test_a_measure_too_slow_for_large_populations_is_judged_on_the_smaller_ones():
    def slow_when_large(effectiveness):
        if len(effectiveness) > 12:
            time.sleep(1.0)
        return float(np.ptp(effectiveness))

    verdict = verdicts(slow_when_large, properties=["range"], time_limit=0.2, max_examples=30)[0]
    assert verdict.status == "holds" and max(verdict.sizes) <= 12
    assert "set aside: a call there timed out after 0.2 s)" in verdict.reason
    assert "this search finds" not in verdict.reason  # the power measured is the whole search's


def test_a_slow_measure_hits_the_time_limit():
    start = time.perf_counter()
    verdict = verdicts(sleeps, properties=["range"], time_limit=0.2)[0]
    assert verdict.status == "undefined" and verdict.reason == "timed out after 0.2 s"
    assert time.perf_counter() - start < SLEEP  # the call was stopped, not waited for (however busy the machine)


def test_bad_interfaces_raise_value_error():
    with pytest.raises(ValueError, match="does not return a number"):
        verdicts(returns_text)
    with pytest.raises(ValueError, match="popularity"):
        verdicts(bad_parameter)


def test_a_measure_that_returns_no_number_at_a_corner_gets_its_verdicts():
    """None on two users only (undefined there, in the measure's own convention) is a finding of
    ``defined`` at m = 2, not a broken interface: the interface is read on six users too."""

    def none_below_three(effectiveness):
        return None if len(effectiveness) < 3 else float(np.std(effectiveness))

    found = {v.property: v for v in verdicts(none_below_three, properties=["defined", "range"], max_examples=10)}
    assert found["range"].status == "holds"
    assert found["defined"].status == "violated" and len(found["defined"].example["before"]["effectiveness"]) == 2
    assert found["defined"].reason.startswith("on a valid population it returned NoneType, not a number")


def test_a_masked_value_is_undefined_not_its_hidden_data():
    """numpy's masked constant (a mean over no unmasked user) is NaN, a finding of ``defined``; its
    item() is 0.0, which read as the value would be a wrong number."""

    def masked_cv(effectiveness):
        s = np.ma.masked_equal(np.asarray(effectiveness, dtype=float), 0.0)
        return s.std() / s.mean()

    (verdict,) = verdicts(masked_cv, properties=["defined"], max_examples=10)
    assert verdict.status == "violated" and set(verdict.example["before"]["effectiveness"]) == {0.0}
    assert verdict.reason == "returned nan on a valid population"


def test_pandas_missing_value_is_undefined_not_a_refusal():
    """pandas' NA (a nullable mean over no value) is NaN, a finding of ``defined``, as numpy's
    masked constant is; it was 'returned NAType, not a number', refused where it is all it returns."""
    import pandas as pd

    def nullable_cv(effectiveness):
        s = pd.array(list(effectiveness), dtype="Float64")
        s = s[s > 0]  # the users with an effectiveness: none at S = 0, whose mean is NA
        return s.std(ddof=0) / s.mean()

    (verdict,) = verdicts(nullable_cv, properties=["defined"], max_examples=10)
    assert verdict.status == "violated" and set(verdict.example["before"]["effectiveness"]) == {0.0}
    assert verdict.reason == "returned nan on a valid population"


def test_a_nan_is_shown_with_the_warning_the_measure_gave():
    """A NaN the measure returns with a warning (numpy's 0/0) is shown with it: what it divided by zero."""

    def cv(effectiveness):
        s = np.asarray(effectiveness, dtype=float)
        return np.std(s) / np.mean(s)

    divided = "RuntimeWarning: invalid value encountered in scalar divide"
    (defined,) = verdicts(cv, properties=["defined"], max_examples=10)
    assert defined.reason == f"returned nan on a valid population, after {divided}"
    assert defined.example["warning"] == divided and set(defined.example["before"]["effectiveness"]) == {0.0}
    (anonymity,) = verdicts(lambda effectiveness: np.float64(0.0) / 0.0, properties=["anonymity"], max_examples=5)
    assert anonymity.status == "undefined" and f"(e.g. nan, after {divided})" in anonymity.reason


def test_same_random_state_same_verdicts():
    first = [
        v.to_dict() for v in verdicts("gini", properties=["pigou-dalton", "defined"], max_examples=20, random_state=3)
    ]
    second = [
        v.to_dict() for v in verdicts("gini", properties=["pigou-dalton", "defined"], max_examples=20, random_state=3)
    ]
    for a, b in zip(first, second):
        a.pop("seconds"), b.pop("seconds")
    assert first == second
    json.dumps(first)  # JSON-ready: NaN became "nan"


def test_matrix_and_display():
    results = all_verdicts(["sd", "me"], properties=["range", "similarity-zero"], max_examples=10)
    matrix = verdict_matrix(results=results)
    assert matrix.index.tolist() == ["sd", "me"]
    assert matrix.columns.tolist() == ["range", "similarity-zero"]
    assert matrix.loc["sd", "similarity-zero"] == "violated"
    assert {v.level for v in results} == {"score", "world"}
    text = format_verdicts([v for v in results if v.measure == "sd"], catalog=CATALOG)
    assert "VIOLATED" in text and "counterexample (m = 2)" in text


def test_verdicts_begun_in_the_background_are_those_of_one_process():
    options = dict(properties=["range", "similarity-zero"], max_examples=10)
    with verdicts_in_background(["sd", "me"], n_jobs=2, nice=True, **options) as collect:
        background = [v.to_dict() for v in collect(False)]
    inline = [v.to_dict() for v in all_verdicts(["sd", "me"], **options)]
    for a, b in zip(background, inline):
        a.pop("seconds"), b.pop("seconds")
    assert background == inline and len(inline) == 4


def test_catalog_documents_every_property():
    for prop in CATALOG.values():
        assert prop.statement and prop.formal and prop.source and prop.meant_for
        assert prop.kind in ("universal", "existential")


# --- puf check --------------------------------------------------------------------------------


def test_check_exit_codes(tmp_path, capsys):
    this = "tests.test_properties_runner"
    assert main(["check", "no_such_module_xyz:f"]) == 2
    assert "cannot import" in capsys.readouterr().err
    assert main(["check", f"{this}:bad_parameter"]) == 2
    assert "popularity" in capsys.readouterr().err
    assert main(["check", f"{this}:returns_text"]) == 2
    assert "does not return a number" in capsys.readouterr().err
    assert main(["check", f"{this}:nothing_here"]) == 2
    out = tmp_path / "v.json"
    code = main(
        [
            "check",
            f"{this}:ignores_similarity",
            "--property",
            "similarity-zero",
            "--max-examples",
            "10",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "similarity-zero" in printed and "VIOLATED" in printed
    # The schema of puf report's properties.json: {note, verdicts}.
    document = json.loads(out.read_text())
    assert set(document) == {"note", "verdicts"} and "random_state=0" in document["note"]
    assert document["verdicts"][0]["status"] == "violated"


def undeclared_jain(effectiveness):
    """Jain's index, (Σ S)² / (m Σ S²): 1 at equality, higher is fairer, declared nowhere."""
    s = np.asarray(effectiveness, dtype=float)
    return 1.0 if not s.any() else float(s.sum() ** 2 / (s.size * (s * s).sum()))


def test_check_says_when_a_measure_reads_as_higher_is_fairer(capsys):
    """An undeclared higher-is-fairer index violates zero-at-equality, disparity-monotone and
    pigou-dalton, each as the default reading (lower is fairer) asks: the table is followed by a
    line that says so and how to declare it; a measure that declares higher gets no such line."""
    three = "zero-at-equality,disparity-monotone,pigou-dalton"
    assert main(["check", "tests.test_properties_runner:undeclared_jain", "--property", three, "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "this measure reads the other way: 1 at equal effectiveness" in " ".join(printed.split())
    assert '@puf.measure(direction="higher")' in printed
    assert main(["check", "jain", "--property", three, "--quiet"]) == 0  # the built-in declares higher
    assert "reads the other way" not in capsys.readouterr().out


def test_an_envy_measure_is_not_told_that_it_reads_the_other_way(capsys):
    """ME violates the same three properties at its declared direction (envy at equal effectiveness
    is no equality of what it reads), so no line tells it to declare higher; the note was printed
    for ME, MME and PEU before it asked what the measure reads."""
    three = "zero-at-equality,disparity-monotone,pigou-dalton"
    assert main(["check", "me", "--property", three, "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("VIOLATED") == 3 and "reads the other way" not in printed


def test_a_strict_violation_says_what_the_step_did(capsys):
    """PUF at similarity 0 does not move under a transfer: the reason says the transfer left the
    value where it was, not "violation 4.44e-16" (the float resolution a strict fall must beat)."""
    assert main(["check", "puf", "--property", "strict-transfer,transfer-sensitivity", "--quiet"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "the transfer left the value at 0" in printed and "the transfers left the value at 0" in printed
    assert "violation 4.44e-16" not in printed


# --- the pytest plugin -------------------------------------------------------------------------


def _plugin_args():
    """Load the plugin explicitly unless the installed entry point already does."""
    names = {e.value for e in importlib.metadata.entry_points(group="pytest11")}
    return [] if "puf.properties.running.plugin" in names else ["-p", "puf.properties.running.plugin"]


def test_plugin_is_inert_without_measure():
    code = (
        "import sys, puf.properties.running.plugin; "
        "print(sorted(m for m in sys.modules if m.startswith(('properties.', 'hypothesis', "
        "'numpy', 'puf'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # The plugin's own packages are imported with it; puf's public names load on first use.
    assert out.stdout.strip() == "['puf', 'puf.properties', 'puf.properties.running', 'puf.properties.running.plugin']"


def test_plugin_runs_each_property_as_a_test(pytester):
    pytester.makepyfile(
        planted="""
        import numpy as np

        def ignores_similarity(effectiveness, similarity):
            return float(np.ptp(effectiveness))
    """
    )
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess(
        *_plugin_args(),
        "--measure",
        "planted:ignores_similarity",
        "--measure-max-examples",
        "10",
        "-k",
        "similarity-zero or anonymity",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*planted:ignores_similarity::similarity-zero*", "*counterexample (m = 2)*"])
    empty = pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider")
    empty.assert_outcomes()


def test_a_search_calls_the_measure_only_through_the_calls_it_is_handed():
    """The search stands apart from the measure-call boundary: every value and every error it
    sees comes from the MeasureCalls it is given."""
    from puf import Population
    from puf.properties.cases.case import Case
    from puf.properties.running.search import MeasureCalls

    asked = []

    def call(measure, population, time_limit):
        asked.append(population.m)
        if population.m == 3:
            raise LookupError("refused at m = 3")
        return 2.0

    calls = MeasureCalls(call, None, LookupError, TimeoutError)
    search = _search_with(calls, "range")
    assert not search.replay([Case(Population([0.0, 1.0, 0.5], np.eye(3)))])  # its error: set aside
    assert search.undefined == 1 and search.nan_case[1]["error"] == "refused at m = 3"
    assert search.replay([Case(Population([0.0, 1.0], np.eye(2)))])  # its 2.0 is out of range
    assert asked == [3, 2] and search.failure[1]["value_before"] == 2.0


def test_a_property_outside_the_catalog_runs_through_the_same_runner():
    """The runner knows a property only as an object: one built here is checked like the catalog's."""
    from puf.properties import Property
    from puf.properties.catalog import judges
    from puf.properties.cases.case import Case, case_strategy
    from puf.properties.cases.strategies import sources

    @case_strategy
    def halved_cases(draw, level, measure):
        pop, _ = draw(sources(level))
        return Case(pop, pop.replace(effectiveness=pop.effectiveness / 2), "every S halved")

    halving = Property(
        name="halving-invariance",
        statement="halving every S leaves the value unchanged",
        formal="∀ P: f(P[S := S/2]) = f(P)",
        source="this test",
        kind="universal",
        meant_for="relative inequality indices",
        needs=("effectiveness",),
        world="-",
        cases=halved_cases,
        judge=judges.unchanged,
    )
    found = {m: verdicts(m, properties=halving, max_examples=20)[0] for m in ("sd", "gini")}
    assert found["sd"].property == "halving-invariance" and found["sd"].status == "violated"
    assert found["sd"].reason.startswith("counterexample, violation")
    assert found["gini"].status == "holds"
    with pytest.raises(ValueError, match="kind must be 'universal' or 'existential'"):
        Property(
            name="x",
            statement="",
            formal="",
            source="",
            kind="sometimes",
            meant_for="",
            needs=(),
            world="",
            cases=halved_cases,
            judge=judges.unchanged,
        )
    with pytest.raises(ValueError, match="level must be one of"):
        halved_cases("interaction", "sd")


def test_a_verdict_records_its_example_budget_and_seed():
    from puf.properties.running.budget import DEFAULT_MAX_EXAMPLES, example_budget

    (default,) = verdicts("sd", properties=["range"])
    (given,) = verdicts("sd", properties=["range"], max_examples=7, random_state=3)
    assert (default.max_examples, default.random_state) == (DEFAULT_MAX_EXAMPLES, 0)
    assert (given.max_examples, given.random_state) == (7, 3)
    assert example_budget(None) == DEFAULT_MAX_EXAMPLES
    for bad in (0, -1, 2.5, True, "10"):
        with pytest.raises(ValueError, match="max_examples must be an integer >= 1"):
            verdicts("sd", properties=["range"], max_examples=bad)
    with pytest.raises(ValueError, match="time_budget must be"):
        verdicts("sd", properties=["range"], time_budget=0)


def test_a_parametrised_builtin_back_from_a_pool_is_still_the_builtin():
    """A pool pickles ge-0's functools.partial into a new, equal one: it is still trusted, and
    the deterministic property asks it in-process instead of failing to import 'functools:'."""
    import pickle

    from puf import as_measure
    from puf.properties import verdicts
    from puf.registry import is_registered

    copy = pickle.loads(pickle.dumps(as_measure("ge-0")))
    assert copy.function is not as_measure("ge-0").function
    assert is_registered(copy)
    (verdict,) = verdicts(copy, properties=["deterministic"], max_examples=5)
    assert verdict.status == "holds", verdict.reason


def _spread_from(m_min):
    """Twice the spread from m_min users on (beyond [0, 1] when the spread passes ½), the spread below."""

    def measure(effectiveness):
        return float(np.ptp(effectiveness)) * (2.0 if len(effectiveness) >= m_min else 1.0)

    measure.__name__ = f"spread_from_{m_min}"
    return measure


@pytest.mark.parametrize("m_min", [2, 3, 5])
def test_a_range_counterexample_is_shrunk_to_the_smallest_m_that_shows_it(m_min):
    verdict = verdicts(_spread_from(m_min), properties=["range"], max_examples=30, known=False)[0]
    assert verdict.status == "violated"
    before = verdict.example["before"]
    assert len(before["effectiveness"]) == m_min
    assert set(before) == {"effectiveness"}  # an effectiveness-only measure's example shows no similarity
    assert all(v in (0.0, 0.5, 1.0) or v == round(v, 2) for v in before["effectiveness"])


def test_a_strict_transfer_counterexample_needing_four_users_keeps_four():
    # The spread ignores a transfer between two users strictly inside the range: m = 4 at least.
    verdict = verdicts(lambda effectiveness: float(np.ptp(effectiveness)), properties=["strict-transfer"])[0]
    assert verdict.status == "violated"
    assert len(verdict.example["before"]["effectiveness"]) == 4
    assert "similarity" not in verdict.example["before"]


def test_a_violation_that_needs_many_users_says_so():
    verdict = verdicts(_spread_from(13), properties=["range"], max_examples=60, known=False)[0]
    assert verdict.status == "violated" and len(verdict.example["before"]["effectiveness"]) == 13
    assert "it needs its 13 users: none could be removed" in verdict.reason


def test_strict_judgments_use_the_float_resolution_and_show_the_digits_that_differ():
    from types import SimpleNamespace

    from puf import as_measure
    from puf.properties.running.display import format_example
    from puf.properties.catalog.judges import strictly_fairer

    sd, value = as_measure("sd"), 0.788795123456
    at_262 = SimpleNamespace(before=SimpleNamespace(m=262))
    assert strictly_fairer(sd, value, value - 1.8e-13, at_262) < 0  # a real fall, above m·2⁻⁵²·|value|
    assert strictly_fairer(sd, value, value, at_262) > 0  # no fall at all
    example = {
        "change": "a transfer",
        "value_before": value,
        "value_after": value - 1.8e-13,
        "error": None,
        "before": {"effectiveness": [0.0, 1.0]},
        "after": {"effectiveness": [0.5, 0.5]},
    }
    line = format_example(example, indent=0).splitlines()[1]
    before, after = line.removeprefix("value before ").split(", after ")
    assert before != after and float(before) - float(after) == pytest.approx(1.8e-13, rel=0.2)


def _pair_gaps_in_float32(effectiveness, similarity):
    """A pair measure computed and returned in float32, as a researcher's GPU code would."""
    s, w = np.asarray(effectiveness, dtype=np.float32), np.asarray(similarity, dtype=np.float32)
    gaps = np.abs(s[:, None] - s[None, :]) * w
    return np.float32(gaps[np.triu_indices(s.size, 1)].mean())


def test_a_measure_in_float32_is_judged_at_float32s_resolution():
    from puf import as_measure
    from puf.properties.catalog.judges import MEASURE_EPSILON, resolution

    # Relabelling users reorders the float32 sum (a change of about 1e-8 at m = 64), and the
    # mirrored pair of (0.2, 0.4) gives 0.15 both ways, 0.15000001 and 0.14999999 in float32:
    # neither is a change of the measure, whose other properties are judged as before.
    found = {
        v.property: v.status
        for v in verdicts(
            as_measure(_pair_gaps_in_float32),
            properties=["anonymity", "mirror-consistency", "replication-invariance"],
            max_examples=30,
        )
    }
    assert found == {"anonymity": "holds", "mirror-consistency": "holds", "replication-invariance": "violated"}
    assert MEASURE_EPSILON.get() == 2.0**-52  # set for those verdicts only
    assert resolution(64, 0.17) == 64 * 2.0**-52  # float64: m units in the last place of max(1, |value|)


def test_a_property_out_of_a_measures_reach_says_why_it_is_not_applicable():
    def mean_envy(utility):
        u = np.asarray(utility, dtype=float)
        return float(np.maximum(u - np.diag(u)[:, None], 0.0).mean())

    options = dict(max_examples=5, known=False)
    (alike,) = verdicts(mean_envy, properties=["similar-treated-alike"], **options)
    (envy,) = verdicts(lambda effectiveness: float(np.ptp(effectiveness)), properties=["envy-free-fairest"], **options)
    assert (alike.status, alike.reason) == (
        "not-applicable",
        "read at world level: the property is stated at score level only",
    )
    assert (envy.status, envy.reason) == (
        "not-applicable",
        "the measure reads no utility, of which every case of the property is made",
    )


def test_a_range_violation_names_the_declared_range_and_a_plain_functions_default():
    spread = _spread_from(2)  # twice the spread of S: 2 at S = (0, 1)
    (plain,) = verdicts(spread, properties=["range"], max_examples=10)
    assert plain.reason.startswith("value 2 above the declared range [0, 1] by 1 (the default; @measure(range=")
    (declared,) = verdicts(measure(spread, range=(0.0, 1.5)), properties=["range"], max_examples=10)
    assert declared.reason.startswith("value 2 above the declared range [0, 1.5] by 0.5")
    assert "default" not in declared.reason
    (builtin,) = verdicts("me-as-printed", properties=["range"], max_examples=10)  # declares [0, 1]
    assert builtin.reason.startswith("value 2 above the declared range [0, 1] by 1") and "default" not in builtin.reason


def test_a_lipschitz_violation_says_its_slope_and_the_bound():
    """The violation of lipschitz-continuity is a slope less its bound: the reason says the move
    and that the number is the slope's excess over 10·w, so a number like 1.5e4 reads as what it is."""
    from puf.properties import get_property

    def rounded_sd(effectiveness):
        return round(float(np.std(effectiveness)), 3)

    (verdict,) = verdicts(rounded_sd, properties=[get_property("lipschitz-continuity")], max_examples=20)
    assert verdict.status == "violated"
    moved = abs(verdict.example["value_after"] - verdict.example["value_before"])
    assert verdict.reason == (
        f"counterexample: the value moved {moved:.3g}, a slope |Δf|/δ above the bound 10·w by "
        f"{verdict.example['violation']:.3g} (w: the declared range's width, or 1)"
    )


def test_a_decomposition_violation_names_the_check_that_fails():
    """SD is not additively decomposable: the reason names which of the three checks fail."""
    from puf.properties import get_property

    (verdict,) = verdicts("sd", properties=[get_property("subgroup-decomposability")], max_examples=20)
    assert verdict.status == "violated"
    assert re.match(r"counterexample, violation \S+: \((i|ii|iii)\) the whole", verdict.reason), verdict.reason


def test_a_measure_failing_several_stored_examples_is_shown_the_smallest():
    """Stored examples of other measures are replayed smallest first: an SD of a user's own fails
    lorenz-consistency on a stored m = 6 case and on an m = 2 one, and is shown the m = 2 one."""
    from puf.properties import get_property

    def own_sd(effectiveness):
        return float(np.std(effectiveness))

    (verdict,) = verdicts(own_sd, properties=[get_property("lorenz-consistency")], max_examples=5)
    assert verdict.status == "violated" and len(verdict.example["before"]["effectiveness"]) == 2


def test_a_strict_step_within_rounding_is_said_to_leave_the_value():
    """A Gini of sorted values moves by 4.4e-16 under a variance-keeping composite transfer that
    leaves it unchanged in exact arithmetic: the reason says the value was left (within its float
    resolution), not that the transfers lowered it."""
    from puf.properties import get_property

    def gini_sorted(effectiveness):
        s = np.sort(np.asarray(effectiveness, dtype=float))
        m = len(s)
        return float(np.sum((2 * np.arange(1, m + 1) - m - 1) * s) / (m * m * s.mean())) if s.mean() else 0.0

    (verdict,) = verdicts(gini_sorted, properties=[get_property("transfer-sensitivity")], max_examples=5)
    assert verdict.status == "violated"
    assert re.fullmatch(
        r"the transfers left the value at \S+ \(moved \S+, within its float resolution\)", verdict.reason
    )


def test_a_world_level_example_replayed_on_a_score_level_measure_says_where_its_words_come_from():
    """Its change speaks of lists and relevant items, which a score-level example does not show."""
    from puf import as_measure
    from puf.properties import get_property
    from puf.properties.running.runner import _replayed_cases

    for prop in ("zero-at-equality", "pigou-dalton"):
        cases = _replayed_cases(as_measure("sd"), get_property(prop), True)
        worlds = [case for case in cases if case.before.utility is not None]
        assert worlds and all(", at world level):" in case.change.split(": ")[0] + ":" for case in worlds)
        assert not any("at world level)" in case.change for case in cases if case.before.utility is None)
    assert not any("at world level)" in c.change for c in _replayed_cases(as_measure("me"), get_property(prop), True))
