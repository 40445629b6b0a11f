"""Nothing forgotten: every registered measure carries every fact the harness reads.

In the manner of scikit-learn's ``check_estimator``: one sweep over :data:`puf.MEASURES`
checks each built-in for what the tables, the studies and the property check need, so a
new built-in that forgets one fails here by name. ``test_a_new_builtin_needs_only_its_known_file``
then adds a throwaway built-in to a copy of the package -- one decorated function in a measure
module and its known file, nothing else -- and runs the suite's registry sweeps on the copy.
"""

import functools
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import puf
from puf import MEASURES
from puf.properties import CATALOG
from puf.properties.knowledge.known import known_measures, load_known

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"^[a-z][a-z0-9.]*(-[a-z0-9.]+)*$")  # what the command line and file names take


def _function(m):
    """The function a measure's decorator was written on (an instance binds it in a partial)."""
    return m.function.func if isinstance(m.function, functools.partial) else m.function


@pytest.mark.parametrize("name", list(MEASURES))
def test_every_measure_declares_what_tables_and_studies_show(name):
    m = MEASURES[name]
    assert NAME.match(m.name), m.name
    assert m.label and m.definition and m.attainable, (m.label, m.definition, m.attainable)
    assert m.family in puf.FAMILIES and m.panel and m.direction in ("lower", "higher")
    assert m.similarity in puf.SIMILARITIES


@pytest.mark.parametrize("name", list(MEASURES))
def test_every_measure_function_is_documented_and_public(name):
    function = _function(MEASURES[name])
    doc = inspect.getdoc(function) or ""
    for section in ("Parameters", "Returns", "Examples"):
        assert f"\n{section}\n---" in doc, f"{function.__name__}: no {section} section"
    assert getattr(puf, function.__name__) is function  # puf.<function name>


@pytest.mark.parametrize("name", list(MEASURES))
def test_every_measure_has_a_complete_known_file(name):
    data = load_known(name)
    assert data is not None, f"no properties/knowledge/known/{name}.json"
    assert list(data["verdicts"]) == list(CATALOG)
    assert list(data["reasons"]) == [p for p in CATALOG if p in data["reasons"]]  # where one is needed


def test_the_fields_a_measure_may_read_are_the_populations():
    import dataclasses

    assert puf.FIELDS == tuple(f.name for f in dataclasses.fields(puf.Population))


def test_every_known_file_is_a_registered_measure():
    assert set(known_measures()) <= set(MEASURES)


def test_every_measure_reaches_every_table():
    from puf.cli.commands.measures import measures_table
    from puf.evaluation import measure_columns
    from puf.reports.sweeps import SWEEPS

    assert [row["name"] for row in measures_table()] == list(MEASURES)
    columns, swept = set(measure_columns()), set(SWEEPS["zero_relevance"].measures)
    for m in MEASURES.values():
        shown = {v.label for v in puf.variants() if v.measure is m}
        assert bool(shown) == m.tables, m.name
        assert shown <= columns and shown <= swept, m.name


# ---- a throwaway built-in -------------------------------------------------------------------

THROWAWAY = '''

@measure(name="range-gap", label="Range-gap", family=_INEQUALITY, reference="none",
         definition="max S − min S", attainable="[0, 1]")
def range_gap(effectiveness):
    """The gap between the best-off and the worst-off user's effectiveness.

    Parameters
    ----------
    effectiveness : array-like of shape (m,)
        Per-user effectiveness in [0, 1].

    Returns
    -------
    float

    Examples
    --------
    >>> range_gap([0.25, 1.0])
    0.75
    """
    s = check_effectiveness(effectiveness)
    return float(s.max() - s.min())
'''

#: The sweeps of the suite that go over every registered measure. Left out: the slow full-matrix
#: pin, tests/test_properties_builtin.py, which compares the runner with the known file this test
#: writes from the same runner (it would show nothing here), and tests/test_known_field.py, the
#: review of the stored examples and reasons a person writes; this file's complete-known-file
#: check holds the throwaway's file to the catalog.
SWEEPS_OF_THE_SUITE = (
    "tests/test_measure_metadata.py",
    "tests/test_registry.py",
    "tests/test_every_measure.py",
    "tests/test_field_measures.py",
    "puf/dispersion.py",
)


def _copy_of_the_package(target):
    """The tracked and untracked files of this tree in ``target``, laid out as installed."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-co", "--exclude-standard"], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    for relative in filter(None, listed):
        source = ROOT / relative
        if source.is_file():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / relative)
    package_dirs = {"synthetic", "properties", "reports", "cli"}  # pyproject's package-dir
    for folder in package_dirs:
        os.symlink(target / folder, target / "puf" / folder)


@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs the source tree under git"
)
def test_a_new_builtin_needs_only_its_known_file(tmp_path, matrix_budget):
    copy = tmp_path / "tree"
    _copy_of_the_package(copy)
    module = copy / "puf" / "dispersion.py"
    text = module.read_text(encoding="utf-8")
    assert "check_effectiveness" in text and "_INEQUALITY" in text
    module.write_text(text + THROWAWAY, encoding="utf-8")  # the one decorated function
    env = dict(os.environ, PYTHONPATH=str(copy), CI="true")
    known = copy / "properties" / "knowledge" / "known" / "range-gap.json"
    # its known file written at the built-in matrix's budget (tests/conftest.py)
    budget = [] if matrix_budget is None else ["--max-examples", str(matrix_budget)]
    checked = subprocess.run(
        [sys.executable, "-m", "puf.cli", "check", "range-gap", "--quiet", "--known", str(known), *budget],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
    )
    assert checked.returncode in (0, 1), checked.stderr  # 1: some property is violated
    data = json.loads(known.read_text(encoding="utf-8"))
    assert data["verdicts"]["similarity-sensitive"] == "violated"  # it reads effectiveness alone
    where = subprocess.run(
        [sys.executable, "-c", "import puf; print(puf.MEASURES['range-gap'].name, puf.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.split() == ["range-gap", str(copy / "puf" / "__init__.py")], where.stderr
    only = "not a_new_builtin"
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k", only, *SWEEPS_OF_THE_SUITE],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
    )
    assert suite.returncode == 0, suite.stdout[-3000:]
    ran = re.search(r"(\d+) passed", suite.stdout)
    assert (
        ran
        and "range-gap"
        in subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "--collect-only",
                "-p",
                "no:cacheprovider",
                "tests/test_every_measure.py",
            ],
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
        ).stdout
    )
