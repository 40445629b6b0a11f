"""A researcher's own measure, end to end, from a fresh folder: pin with `puf check --known`,
then `pytest --measure ... --known ...` (or the ini setting) passes on the pinned verdicts and
fails naming a cell whose verdict changed."""

import importlib.metadata
import json
import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]

MEASURE = '''
import numpy as np


def gap(effectiveness, similarity):
    """Similarity-weighted mean squared gap over unordered pairs."""
    s = np.asarray(effectiveness)
    upper = np.triu_indices(len(s), 1)
    return float(np.mean(similarity[upper] * (s[:, None] - s[None, :])[upper] ** 2))
'''
# Three times the gap: it leaves [0, 1], so the pinned 'range: holds' breaks.
TRIPLED = MEASURE.replace("return float(np.mean(", "return 3 * float(np.mean(")


def _plugin_args():
    """Load the plugin explicitly unless the installed entry point already does."""
    names = {e.value for e in importlib.metadata.entry_points(group="pytest11")}
    return [] if "puf.properties.running.plugin" in names else ["-p", "puf.properties.running.plugin"]


def _pin(folder, budget):
    """`puf check mymeasure.py:gap --known mymeasure.known.json` in ``folder``; the file's content."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "puf.cli",
            "check",
            "mymeasure.py:gap",
            "--known",
            "mymeasure.known.json",
            "--quiet",
            *budget["check"],
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads((folder / "mymeasure.known.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pinned_folder(tmp_path_factory, researcher_budget):
    folder = tmp_path_factory.mktemp("researcher")
    (folder / "mymeasure.py").write_text(MEASURE, encoding="utf-8")
    return folder, _pin(folder, researcher_budget)


def _copy(pytester, pinned_folder, measure=MEASURE, known=None):
    folder, data = pinned_folder
    pytester.makepyfile(mymeasure=measure)
    (pytester.path / "mymeasure.known.json").write_text(json.dumps(known or data), encoding="utf-8")


def test_the_pinned_verdicts_pass_and_the_header_counts_them(pytester, pinned_folder, researcher_budget):
    _, data = pinned_folder
    assert "violated" in data["verdicts"].values()  # pigou-dalton and scale-invariance at least
    _copy(pytester, pinned_folder)
    result = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--measure",
        "mymeasure.py:gap",
        "--known",
        "mymeasure.known.json",
    )
    skipped = list(data["verdicts"].values()).count("not-applicable")  # envy-free-fairest: no utility read
    assert skipped >= 1
    result.assert_outcomes(passed=len(data["verdicts"]) - skipped, skipped=skipped)
    result.stdout.fnmatch_lines(
        [
            f"puf-harness: mymeasure.py:gap x {len(data['verdicts'])} "
            "properties, verdicts pinned in mymeasure.known.json",
            f"collected {len(data['verdicts'])} items",
        ]
    )


def test_a_changed_verdict_fails_naming_its_cell(pytester, pinned_folder, researcher_budget):
    _copy(pytester, pinned_folder, measure=TRIPLED)
    result = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--measure",
        "mymeasure.py:gap",
        "--known",
        "mymeasure.known.json",
        "-k",
        "(range and not arrangement and not attainable) or pigou or scale",
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["*gap / range: pinned holds in mymeasure.known.json, now violated*", "*counterexample (m = 2)*"]
    )


def test_a_stored_counterexample_that_no_longer_shows_the_violation_fails(pytester, pinned_folder, researcher_budget):
    _, data = pinned_folder
    stale = json.loads(json.dumps(data))
    example = stale["examples"]["pigou-dalton"]
    # The stored transfer replaced by one between two equal users: no violation left in it.
    example["before"]["effectiveness"] = [0.5] * len(example["before"]["effectiveness"])
    example["after"]["effectiveness"] = [0.5] * len(example["after"]["effectiveness"])
    _copy(pytester, pinned_folder, known=stale)
    result = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--measure",
        "mymeasure.py:gap",
        "--known",
        "mymeasure.known.json",
        "-k",
        "pigou",
    )
    result.assert_outcomes(failed=1)
    said = " ".join(result.stdout.str().split())  # the message folds to 100 columns
    assert "gap / pigou-dalton: pinned violated in mymeasure.known.json" in said
    assert "stored counterexample no longer shows it" in said
    assert "re-pin it with `puf check mymeasure.py:gap --known mymeasure.known.json`" in said


def test_measure_alone_collects_only_the_measures_tests(pytester, researcher_budget):
    # Run from a folder above a clone: its test files are not collected unless named.
    pytester.makepyfile(mymeasure=MEASURE)
    pytester.makepyfile(test_clone="def test_of_the_clone():\n    assert False\n")
    alone = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--measure",
        "mymeasure.py:gap",
        "-k",
        "scale",
        "--co",
        "-q",
    )
    alone.stdout.no_fnmatch_line("*test_of_the_clone*")
    alone.stdout.fnmatch_lines(["mymeasure.py:gap::scale-invariance"])
    named = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--measure",
        "mymeasure.py:gap",
        "test_clone.py",
        "--co",
        "-q",
    )
    named.stdout.fnmatch_lines(["*test_of_the_clone*"])


def test_pinning_says_where_it_wrote_the_file(tmp_path):
    (tmp_path / "mymeasure.py").write_text(MEASURE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "puf.cli", "check", "mymeasure.py:gap", "--property", "range", "--known", "k.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())  # the line folds to the terminal's width
    assert f"pinned 1 verdict of gap (mymeasure.py:gap) in {tmp_path / 'k.json'}" in said


def test_the_ini_setting_runs_it_from_plain_pytest(pytester, pinned_folder, researcher_budget):
    _, data = pinned_folder
    _copy(pytester, pinned_folder)
    pytester.makefile(".ini", pytest="[pytest]\npuf_measures = mymeasure.py:gap\npuf_known = mymeasure.known.json\n")
    sub = pytester.mkdir("sub")  # paths are relative to the ini file, not to the working folder
    result = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--rootdir",
        str(pytester.path),
        str(sub),
        "-k",
        "pigou or scale or lipschitz",
    )
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*verdicts pinned in *mymeasure.known.json"])


def test_without_known_informational_properties_never_fail(pytester, researcher_budget):
    pytester.makepyfile(mymeasure=MEASURE)
    result = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--measure",
        "mymeasure.py:gap",
        "-k",
        "scale or pigou or attainable",
    )
    result.assert_outcomes(passed=2, failed=1)  # scale-invariance and attainable-range pass, pigou-dalton fails
    result.stdout.fnmatch_lines(
        [
            "*property 'pigou-dalton' is violated*",
            "*findings that are not failures*",
            "mymeasure.py:gap / scale-invariance: violated (informational)*",
            "mymeasure.py:gap / attainable-range: witness not found*",
        ]
    )
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "findings that are not failures" in line)
    end = next(i for i, line in enumerate(lines) if "short test summary" in line)
    assert start < end and max(len(line) for line in lines[start:end]) <= 100  # the long reason folded


def test_known_files_that_do_not_pair_are_usage_errors(pytester, pinned_folder, researcher_budget):
    _copy(pytester, pinned_folder)
    two = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--measure",
        "sd",
        "--measure",
        "mymeasure.py:gap",
        "--known",
        "mymeasure.known.json",
    )
    two.stderr.fnmatch_lines(["*--known: give one file per --measure, in order (2 measures, 1 known file)*"])
    missing = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--measure",
        "mymeasure.py:gap",
        "--known",
        "other.json",
    )
    missing.stderr.fnmatch_lines(["*--known other.json: no such file*"])
    other = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--measure",
        "sd",
        "--known",
        "mymeasure.known.json",
        "-k",
        "range",
    )
    other.stdout.fnmatch_lines(["*pins measure 'gap', not 'sd'*"])


def test_pinning_again_keeps_the_stored_examples(pinned_folder, researcher_budget):
    folder, first = pinned_folder
    again = _pin(folder, researcher_budget)
    assert again["verdicts"] == first["verdicts"]
    assert {p: (e["before"], e["after"]) for p, e in again["examples"].items()} == {
        p: (e["before"], e["after"]) for p, e in first["examples"].items()
    }
    assert all(
        e["change"].startswith("known example (pinned): ") and e["change"].count("known example") == 1
        for e in again["examples"].values()
    )


JAIN = """
import numpy as np


def jain(effectiveness):
    s = np.asarray(effectiveness, dtype=float)
    return 1.0 if not s.any() else float(s.sum() ** 2 / (s.size * (s * s).sum()))
"""


def test_a_measure_that_reads_as_higher_is_fairer_is_told_how_to_declare_it(pytester, researcher_budget):
    """An undeclared Jain's index fails zero-at-equality, disparity-monotone and pigou-dalton, as
    the default lower-is-fairer reading asks; the summary says why, once, and how to declare it."""
    pytester.makepyfile(mine=JAIN)
    result = pytester.runpytest_subprocess(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        *researcher_budget["pytest"],
        "--measure",
        "mine.py:jain",
        "-k",
        "zero-at-equality or disparity-monotone or pigou-dalton",
    )
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["*findings that are not failures*", "mine.py:jain: Every verdict takes lower*"])
    assert sum("reads the other way" in line for line in result.stdout.lines) == 1
    assert any('@puf.measure(direction="higher")' in line for line in result.stdout.lines)


TENSOR = """
def sd(effectiveness):
    return effectiveness.float().std(unbiased=False).item()  # written for a torch tensor
"""


def test_a_measure_that_raises_on_every_example_is_told_so_once(pytester, researcher_budget):
    """Every property undefined by one error: the summary names the error and what the measure is given."""
    pytester.makepyfile(mine=TENSOR)
    result = pytester.runpytest_subprocess(
        *_plugin_args(), "-p", "no:cacheprovider", *researcher_budget["pytest"], "--measure", "mine.py:sd"
    )
    lines = [line for line in result.stdout.lines if "raised on every example" in line]
    assert len(lines) == 1 and lines[0].startswith("mine.py:sd: The measure raised on every example of")
    assert "AttributeError: 'numpy.ndarray' object has no attribute 'float'" in " ".join(result.stdout.lines)


def test_check_tells_a_measure_that_raises_on_every_example_but_not_one_that_raises_at_a_corner(tmp_path, capsys):
    from puf.cli import main

    (tmp_path / "mine.py").write_text(
        TENSOR + "\ndef mean_log(effectiveness):\n    import math\n"
        "    return sum(math.log(x) for x in effectiveness) / len(effectiveness)\n"
    )
    options = ["--max-examples", "5", "--quiet"]
    assert main(["check", f"{tmp_path / 'mine.py'}:sd", *options]) == 0
    note = " ".join(capsys.readouterr().out.split("The measure raised on every example of ", 1)[1].split())
    from puf.properties import CATALOG

    count, rest = note.split(" of its ", 1)
    assert int(count) >= len(CATALOG) // 2  # all but defined (violated by the raise) and n/a cells
    assert rest.startswith(f"{len(CATALOG)} properties, each time AttributeError: 'numpy.ndarray' object has no")
    assert note.endswith("as a float64 numpy array (effectiveness of m values).")
    assert main(["check", f"{tmp_path / 'mine.py'}:mean_log", *options]) == 0  # raises at 0 only
    assert "raised on every example" not in capsys.readouterr().out


CALLS_COUNTED = MEASURE.replace("import numpy as np", "import os\nimport numpy as np").replace(
    '    """Similarity-weighted', '    open("calls.txt", "a").write("call\\\\n")\n    """Similarity-weighted'
)


def test_under_xdist_each_verdict_is_computed_once_and_the_findings_reach_the_summary(pytester, researcher_budget):
    """pytest -n 2: the workers share the measure's properties (its calls are those of one
    process, not twice them), the tests' outcomes are one process's, and the summary lists the
    findings and the measure's note, which the workers send with their reports."""
    pytester.makepyfile(mymeasure=CALLS_COUNTED.replace("def gap(", "def jain_like(") + JAIN)
    calls = pytester.path / "calls.txt"
    outcomes, counts, summaries = [], [], []
    for spread in ([], ["-n", "2"]):
        calls.unlink(missing_ok=True)
        result = pytester.runpytest_subprocess(
            *_plugin_args(),
            "-p",
            "no:cacheprovider",
            *spread,
            *researcher_budget["pytest"],
            "--measure",
            "mymeasure.py:jain_like",
            "--measure",
            "mymeasure.py:jain",
            "-k",
            "scale or pigou or attainable or zero-at or disparity-monotone",
        )
        outcomes.append({k: v for k, v in result.parseoutcomes().items() if k != "deselected"})  # (xdist: none)
        counts.append(len(calls.read_text().splitlines()))
        lines = result.stdout.lines
        start = next(i for i, line in enumerate(lines) if "findings that are not failures" in line)
        summaries.append(sorted(lines[start + 1 : next(i for i, line in enumerate(lines) if "short test" in line)]))
    assert outcomes[0] == outcomes[1] and summaries[0] == summaries[1]
    assert counts[1] < 1.5 * counts[0]  # (each worker's first calls are its own)
    assert sum("mymeasure.py:jain: Every verdict takes lower" in line for line in summaries[1]) == 1
    assert any(
        line.startswith("mymeasure.py:jain_like / scale-invariance: violated (informational)") for line in summaries[1]
    )
