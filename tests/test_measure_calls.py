"""The measure-call boundary on planted measures: warm-up, time limits, numbers in wrappers,
state fixed on a first call."""

import sys
import textwrap
import time

import numpy as np
import pytest

import puf
from puf.cli import main
from puf.properties import verdicts
from puf.properties.running.budget import DEFAULT_TIME_LIMIT
from puf.properties.running.calls import check_returns_number
from puf.properties.running.isolation import load_isolated, release_workers, warm_up_limit
from puf.returned import returned_kind, returned_number

pytest_plugins = ["pytester"]

PLANTED = """
import time
import numpy as np

_STARTED = False
_NORMALISER = None

def slow_start(effectiveness):
    global _STARTED
    if not _STARTED:
        time.sleep(3)  # an import, a compilation, a cache: once per process, over the 2 s default limit
        _STARTED = True
    return float(np.ptp(effectiveness))

def first_normalised(effectiveness):
    global _NORMALISER
    if _NORMALISER is None:
        _NORMALISER = max(float(np.max(effectiveness)), 1e-3)  # fixed on the first call, kept
    return float(np.ptp(effectiveness)) / _NORMALISER

def stuck(effectiveness):
    while True:
        pass

def one_element_array(effectiveness):
    return np.array([np.ptp(effectiveness)])

def one_element_list(effectiveness):
    return [float(np.ptp(effectiveness))]

def nested_one_element(effectiveness):
    return np.array([[np.ptp(effectiveness)]], dtype=np.float32)

def one_element_tensor(effectiveness):
    import torch

    return torch.tensor([float(np.ptp(effectiveness))])

def huge_at_a_gap(effectiveness):
    return 10**400 if np.ptp(effectiveness) > 0.5 else 0  # an exact int beyond the float range

_CACHE = {}

def cached_on_sum(effectiveness):
    key = (len(effectiveness), round(float(np.sum(effectiveness)), 12))  # a summary key: a bug
    return _CACHE.setdefault(key, float(np.std(effectiveness)))

def sleepy(effectiveness):
    time.sleep(0.05)
    return float(np.ptp(effectiveness))

def per_user(effectiveness):
    return np.asarray(effectiveness) - np.mean(effectiveness)
"""


@pytest.fixture()
def planted(tmp_path):
    path = tmp_path / "planted.py"
    path.write_text(textwrap.dedent(PLANTED))
    yield path
    release_workers()


def test_a_measure_slow_on_its_first_call_gets_its_verdicts_at_the_default_limit(planted):
    assert DEFAULT_TIME_LIMIT < 3  # slow_start's first call in a process sleeps 3 s
    started = time.perf_counter()
    results = verdicts(
        load_isolated(f"{planted}:slow_start"), properties=["range", "anonymity", "deterministic"], max_examples=5
    )
    assert [(v.property, v.status) for v in results] == [
        ("range", "holds"),
        ("anonymity", "holds"),
        ("deterministic", "holds"),
    ], [v.reason for v in results]
    assert time.perf_counter() - started < 120


def test_the_warm_up_is_bounded_and_a_hang_still_times_out_at_the_limit(planted):
    assert warm_up_limit(0.2) == pytest.approx(2.0)
    (verdict,) = verdicts(load_isolated(f"{planted}:stuck"), properties=["range"], max_examples=3, time_limit=0.2)
    assert (verdict.status, verdict.reason) == ("undefined", "timed out after 0.2 s")


def test_state_fixed_on_the_first_call_in_a_process_is_not_deterministic(planted):
    (verdict,) = verdicts(load_isolated(f"{planted}:first_normalised"), properties=["deterministic"], max_examples=10)
    assert verdict.status == "violated", verdict.reason
    (twin,) = verdicts(load_isolated(f"{planted}:slow_start"), properties=["deterministic"], max_examples=3)
    assert twin.status == "holds"  # slow on its first call, but the same value


@pytest.mark.parametrize("name", ["one_element_array", "one_element_list", "nested_one_element", "one_element_tensor"])
def test_a_number_in_a_one_element_wrapper_is_read_as_its_number(planted, name):
    if name == "one_element_tensor":
        pytest.importorskip("torch")
    measure = load_isolated(f"{planted}:{name}")
    assert measure(effectiveness=np.array([0.25, 1.0])) == 0.75
    (verdict,) = verdicts(measure, properties=["range"], max_examples=5)
    assert verdict.status in ("holds", "proven"), verdict.reason


def test_anything_else_is_named_with_its_type_its_shape_and_the_fix(planted):
    with pytest.raises(ValueError) as info:
        check_returns_number(load_isolated(f"{planted}:per_user"), 2.0)
    message = str(info.value)
    assert "measure 'per_user' does not return a number: it returned ndarray of shape (2,)" in message
    assert "return one real number (a float, or a 0-d or one-element array, list or tensor)" in message
    pop = puf.Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]])
    assert puf.evaluate_measures(pop, [puf.measure(lambda effectiveness: [0.5], name="wrapped")]) == {"wrapped": 0.5}
    with pytest.raises(ValueError, match=r"returned ndarray of shape \(2,\) .*, not a real number: return one"):
        puf.evaluate_measures(pop, [puf.measure(lambda effectiveness: np.zeros(2), name="vector")])


def test_an_int_beyond_the_float_range_is_infinite_not_an_error_of_the_measure(planted):
    (verdict,) = verdicts(load_isolated(f"{planted}:huge_at_a_gap"), properties=["defined"], max_examples=20)
    assert verdict.status == "violated" and verdict.reason == "returned inf on a valid population"


def test_a_module_that_parses_its_arguments_at_import_sees_none_of_the_workers(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(
        "import argparse\n\nparser = argparse.ArgumentParser()\nparser.add_argument('--alpha', default=0.5)\n"
        "ARGS = parser.parse_args()\n\n"
        "def gap(effectiveness):\n    return float(max(effectiveness) - min(effectiveness)) * float(ARGS.alpha)\n"
    )
    assert load_isolated(f"{path}:gap")(effectiveness=np.array([0.0, 1.0])) == 0.5


def test_a_workers_start_imports_the_measures_and_no_scipy_pandas_or_hypothesis(tmp_path):
    """A spec's worker is a new interpreter, started again after every crash, timeout and fresh check:
    what it imports before it answers is each of those starts' cost."""
    import subprocess

    path = tmp_path / "mine.py"
    path.write_text("import numpy as np\n\ndef sd(effectiveness):\n    return float(np.std(effectiveness))\n")
    script = (
        "import sys; from puf.properties.running._channel import _load\n"
        f"for spec in ('sd', 'puf', 'gini', {str(path) + ':sd'!r}):\n"
        "    assert _load(spec)[1][0] == 'ready', spec\n"
        "print(sorted({name.split('.')[0] for name in sys.modules} & {'scipy', 'pandas', 'hypothesis', 'matplotlib'}))"
    )
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]", found.stderr


def test_the_number_reader_on_every_wrapper():
    torch = pytest.importorskip("torch")
    assert returned_number(torch.tensor(0.5)) == 0.5 and returned_number(torch.tensor([[0.25]])) == 0.25
    assert returned_number(torch.tensor([0.5, 1.0])) is None and returned_kind(torch.zeros(2, 3)) == (
        "Tensor of shape (2, 3)"
    )
    assert [returned_number(v) for v in (np.array(2), (3,), [[np.float32(0.5)]], 7)] == [2.0, 3.0, 0.5, 7.0]
    assert [returned_number(v) for v in (None, "1", [], [1, 2], np.bool_(True), 1 + 0j)] == [None] * 6


def test_puf_check_takes_a_time_limit_and_a_time_out_names_the_option(planted, capsys):
    assert main(["check", f"{planted}:stuck", "--property", "range", "--max-examples", "2", "--time-limit", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "timed out after 0.2 s" in out
    assert "1 verdict timed out at the limit of 0.2 s per call: raise it with --time-limit SECONDS" in out
    for command in (["check", "sd"], ["design", "--require", "range"]):
        assert main([*command, "--time-limit", "0"]) == 2
        assert "--time-limit must be a finite number of seconds > 0, got 0.0" in capsys.readouterr().err


def test_puf_check_takes_a_time_budget_and_a_search_it_stops_says_so_without_a_power_claim(planted, capsys):
    argv = ["check", f"{planted}:sleepy", "--property", "pigou-dalton", "--time-budget", "1", "--quiet"]
    assert main(argv) == 0
    out = " ".join(capsys.readouterr().out.split())  # (the table wraps its reasons)
    assert "(search stopped at its time budget of 1 s)" in out
    assert "this search finds" not in out  # the corpus measured whole searches
    assert "1 search stopped at its time budget of 1 s (about" in out and "--time-budget SECONDS" in out
    assert main(["check", "sd", "--time-budget", "0"]) == 2
    assert "--time-budget must be a finite number of seconds > 0, got 0.0" in capsys.readouterr().err


def test_a_measure_with_state_kept_between_calls_is_told_its_other_rows_may_show_it(planted, capsys):
    """A cache keyed on (m, Σ S) gives a population a stale value when asked again as well, which
    a find's repeat cannot catch: the deterministic row shows it, and the closing line says what
    it means for the rest."""
    argv = ["check", f"{planted}:cached_on_sum", "--property", "deterministic,range", "--quiet"]
    assert main(argv) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "deterministic VIOLATED" in out
    assert "Its deterministic row is violated: the measure gives a population another value after other calls" in out
    assert main(["check", "sd", "--property", "deterministic,range", "--quiet"]) == 0
    assert "Its deterministic row" not in capsys.readouterr().out


def test_design_passes_its_time_limit_to_every_cell(monkeypatch):
    from puf.properties.proving import design as design_module

    seen = []
    real = design_module.verdicts

    def spy(*args, **kwargs):
        seen.append(kwargs["time_limit"])
        return real(*args, **kwargs)

    monkeypatch.setattr(design_module, "verdicts", spy)
    design_module.design(
        ["range"], grammar={"index": {"cv": [None]}}, kinds=("index",), proofs="none", max_examples=2, time_limit=7.5
    )
    assert seen and set(seen) == {7.5}


def _plugin_args():
    import importlib.metadata

    names = {e.value for e in importlib.metadata.entry_points(group="pytest11")}
    return [] if "puf.properties.running.plugin" in names else ["-p", "puf.properties.running.plugin"]


def test_pytest_takes_a_measure_time_limit(planted, pytester):
    result = pytester.runpytest_inprocess(
        *_plugin_args(),
        "--measure",
        f"{planted}:stuck",
        "--measure-time-limit",
        "0.2",
        "--measure-max-examples",
        "2",
        "-k",
        "range",
        "-p",
        "no:cacheprovider",
    )
    result.stdout.fnmatch_lines(["*timed out after 0.2 s*"])
    refused = pytester.runpytest_inprocess(*_plugin_args(), "--measure", "sd", "--measure-time-limit", "0")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused = pytester.runpytest_inprocess(*_plugin_args(), "--measure", "sd", "--measure-time-budget", "0")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR


def test_pytest_takes_a_measure_time_budget(planted, pytester, monkeypatch):
    from puf.properties.running import runner

    budgets, real = [], runner.verdicts

    def spy(*args, **kwargs):
        budgets.append(kwargs["time_budget"])
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "verdicts", spy)
    result = pytester.runpytest_inprocess(
        *_plugin_args(),
        "--measure",
        f"{planted}:sleepy",
        "--measure-time-budget",
        "1",
        "-k",
        "pigou",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == 0 and budgets == [1.0]


def test_pytest_says_once_that_a_measure_returns_no_number(planted, pytester):
    """``puf check`` refuses such a measure in one line; ``pytest --measure`` fails its first test
    with that line and skips the others, naming the failed one (not a failure per property)."""
    result = pytester.runpytest_inprocess(*_plugin_args(), "--measure", f"{planted}:per_user", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1 and outcomes["skipped"] >= 20, outcomes
    result.stdout.fnmatch_lines(["*does not return a number: it returned ndarray of shape (2,)*"])


def test_a_measure_that_edits_its_input_gets_a_fresh_copy_each_call(tmp_path):
    """An SD computed with -= and **= edits its input in place: every call, in one request or
    many, is given the population as it is, so asking P after another population gives P's value
    and deterministic holds (it was violated: P's arrays came back edited)."""
    from puf.properties import get_property
    from puf.properties.running.calls import FreshCaller

    (tmp_path / "edits.py").write_text(
        "import numpy as np\n"
        "def sd_in_place(effectiveness):\n"
        "    effectiveness -= effectiveness.mean()\n"
        "    effectiveness **= 2\n"
        "    return float(np.sqrt(effectiveness.mean()))\n"
    )
    measure = load_isolated(f"{tmp_path / 'edits.py'}:sd_in_place")
    p, q = puf.Population([0.0, 0.1], np.eye(2)), puf.Population([0.5, 0.5, 0.5], np.eye(3))
    caller = FreshCaller(measure, 10.0)
    try:
        assert caller.many([p, q, p]) == [0.05, 0.0, 0.05]
    finally:
        caller.close()
    (verdict,) = verdicts(measure, properties=[get_property("deterministic")], max_examples=10)
    assert verdict.status == "holds", verdict.reason


def test_a_module_from_a_folder_the_harness_added_loads_in_a_new_process(tmp_path, monkeypatch):
    """A measure of a module the harness imports from a folder it put on its path (a test's, a
    notebook's ``sys.path.append``) is loaded by name in a new interpreter, which is given that path."""
    import importlib

    from puf.properties.running.isolation import fresh_outcomes

    (tmp_path / "lab_measures.py").write_text(
        "def spread(effectiveness):\n    return max(effectiveness) - min(effectiveness)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "path", [*sys.path, tmp_path / "nowhere"])  # (a Path, as people append them)
    monkeypatch.delitem(sys.modules, "lab_measures", raising=False)
    spread = importlib.import_module("lab_measures").spread
    try:
        (found,) = fresh_outcomes(puf.as_measure(spread), [{"effectiveness": [0.0, 0.5]}], time_limit=30.0)
    finally:
        sys.modules.pop("lab_measures", None)
    assert (found.number, found.error) == (0.5, None)


class _SlowFinaliser:
    def __del__(self):
        time.sleep(0.3)  # the alarm goes off here: Python reports an exception of a finaliser and drops it


def _stuck_after_a_finaliser(effectiveness):
    _SlowFinaliser()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pass
    return 0.0


def test_a_time_out_raised_in_a_finaliser_is_raised_again():
    """The in-process limit (a registered measure's, or any where there is no fork) holds when its
    alarm lands in a finaliser the measure ran."""
    from puf.properties.running.calls import Timeout, _in_process

    start = time.monotonic()
    with pytest.raises(Timeout):
        _in_process(puf.as_measure(_stuck_after_a_finaliser), {"effectiveness": [0.0, 1.0]}, 0.1)
    assert time.monotonic() - start < 5
