"""The ``puf`` command line: version and the measures table."""

import re
import subprocess
import sys

import puf
from puf.cli import main


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exit:
        assert exit.code == 0
    assert capsys.readouterr().out.strip() == f"puf-harness {puf.__version__}"


def test_measures_table_lists_every_registered_measure(capsys):
    assert main(["measures"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:5] == ["name", "reads", "declared", "values", "fairer"]
    names = [line.split()[0] for line in out[2:]]
    assert names == list(puf.MEASURES)
    assert len(names) == 24  # the PUF paper's nine and the field's fifteen
    assert all(any(f in line for f in ("similarity-aware", "inequality indices", "envy"))
               for line in out[2:])
    assert any("∞" in line for line in out if line.startswith("uf "))
    # Declared and attainable range, as the README's table lists them.
    rows = {line.split()[0]: line for line in out[2:]}
    assert re.search(r"\[0, 1\] +\[0, 0\.5\] ", rows["sd"])
    assert re.search(r"\[0, 1\] +\[0, 2\] ", rows["puf-as-printed"])


def test_console_script_runs_as_module():
    result = subprocess.run(
        [sys.executable, "-m", "puf.cli", "measures", "--format", "names"],
        capture_output=True, text=True, check=True,
    )
    assert result.stdout.split() == list(puf.MEASURES)
