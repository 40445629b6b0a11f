"""The ``puf`` command line: version and the measures table."""

import subprocess
import sys

import puf
from reports.cli import main


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exit:
        assert exit.code == 0
    assert capsys.readouterr().out.strip() == f"puf-harness {puf.__version__}"


def test_measures_table_lists_every_registered_measure(capsys):
    assert main(["measures"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["name", "reads", "range", "fairer"]
    names = [line.split()[0] for line in out[2:]]
    assert names == list(puf.MEASURES)
    assert len(names) == 24  # the PUF paper's nine and the field's fifteen
    assert all(any(f in line for f in ("similarity-aware", "inequality indices", "envy"))
               for line in out[2:])
    assert any("inf" in line for line in out if line.startswith("uf "))


def test_console_script_runs_as_module():
    result = subprocess.run(
        [sys.executable, "-m", "reports.cli", "measures", "--format", "names"],
        capture_output=True, text=True, check=True,
    )
    assert result.stdout.split() == list(puf.MEASURES)
