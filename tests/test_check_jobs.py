"""One measure's properties over processes: the same verdicts, two imports a process (one serves
the calls, one asks the finds again, each population as the first call of a process)."""

import textwrap

import pytest

from puf.cli import main
from puf.properties import all_verdicts, verdicts
from puf.properties.running import isolation

COUNTED = """
import os

with open(os.environ["PUF_TEST_IMPORTS"], "a") as log:
    log.write(f"{os.getpid()}\\n")  # one line per import of this module

def gap(effectiveness):
    return float(max(effectiveness) - min(effectiveness))
"""

PROPERTIES = ["range", "anonymity", "zero-at-equality", "pigou-dalton", "scale-invariance"]


@pytest.fixture()
def counted(tmp_path, monkeypatch):
    """``counted.py:gap`` and the file its imports are counted in."""
    (tmp_path / "counted.py").write_text(textwrap.dedent(COUNTED))
    monkeypatch.setenv("PUF_TEST_IMPORTS", str(tmp_path / "imports.txt"))
    return tmp_path


def _imports(folder):
    path = folder / "imports.txt"
    return len(path.read_text().splitlines()) if path.exists() else 0


def _rows(results):
    return [(v.property, v.status, v.reason, repr(v.example)) for v in results]


def test_processes_give_the_verdicts_of_one_and_import_the_measure_once_for_each_worker(counted):
    measure = isolation.load_isolated(f"{counted / 'counted.py'}:gap")
    assert _imports(counted) == 1
    alone = verdicts(measure, properties=PROPERTIES, max_examples=5)
    assert _imports(counted) == 2  # one worker served every property, one asked their finds alone
    spread = verdicts(measure, properties=PROPERTIES, max_examples=5, n_jobs=2)
    assert _rows(spread) == _rows(alone)
    # a process keeps its two workers from one property to the next: four imports, not ten
    assert _imports(counted) <= 2 + 2 * 2
    assert isolation.live_workers() == 0


def test_all_verdicts_keeps_a_measures_import_across_its_properties_and_ends_it(counted):
    measure = isolation.load_isolated(f"{counted / 'counted.py'}:gap")
    isolation.release_workers()
    before = _imports(counted)
    all_verdicts([measure], properties=PROPERTIES, max_examples=5)  # in this process
    assert _imports(counted) == before + 2 and isolation.live_workers() == 0


@pytest.mark.parametrize("n_jobs", [0, -1, 1.5, True, "2"])
def test_a_job_count_that_is_no_positive_integer_is_refused_by_name(n_jobs):
    with pytest.raises(ValueError, match=rf"^n_jobs must be an integer >= 1, got {n_jobs!r}$".replace(".", r"\.")):
        verdicts("sd", properties=["range"], n_jobs=n_jobs)


def test_check_prints_the_same_table_with_jobs(counted, capsys):
    spec = f"{counted / 'counted.py'}:gap"
    tables = []
    for jobs in ("1", "2"):
        argv = ["check", spec, "--max-examples", "5", "--jobs", jobs, "--quiet"]
        assert main([*argv, *(a for p in PROPERTIES for a in ("--property", p))]) == 0
        tables.append(capsys.readouterr().out)
    assert tables[0] == tables[1] and "pigou-dalton" in tables[0]
