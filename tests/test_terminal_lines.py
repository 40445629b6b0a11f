"""Every command's terminal output fits 100 columns on a wider terminal: its help, its tables,
its verdicts and their examples, its notes. The costly work a command does (a power run, a
report, a benchmark, the matrix of every built-in) is replaced by a small result of the
shape it returns; the formatting the command does with it is the command's own."""

import dataclasses
import json
import re
import sys
import textwrap
import warnings

import numpy as np
import pandas as pd
import pytest

from puf.cli import main
from puf.lines import WIDTH

PLANTED = '''
import numpy as np


def spread_log(effectiveness):
    """Over its range at m = 3 (log m times the largest S), and jumps away from S = 0."""
    s = np.asarray(effectiveness, dtype=float)
    return float(np.log(len(s)) * s.max()) if s.any() else 0.0
'''


def _lines(capsys):
    captured = capsys.readouterr()
    return (captured.out + captured.err).splitlines()


def _help(argv, capsys):
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return _lines(capsys)


def _evaluate_inputs(folder):
    rows = [f"u{u}\ti{(u + j) % 8}\t4\t{j}" for u in range(6) for j in range(8)]
    (folder / "toy.inter").write_text("user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows))
    (folder / "toy.item").write_text(
        "item_id:token\tgenre:token_seq\n" + "\n".join(f"i{i}\tG{i % 3}" for i in range(8))
    )
    return ["--inter", str(folder / "toy.inter"), "--item", str(folder / "toy.item")]


def _stand_ins(monkeypatch, planted_verdicts):
    """The costly work of check --all, power, report and bench replaced by results of its shape."""
    import puf
    import puf.properties
    from puf.cli.commands import bench
    from puf.properties.knowledge import power
    from puf.reports import report

    every = [dataclasses.replace(v, measure=name) for name in puf.MEASURES for v in planted_verdicts]
    monkeypatch.setattr(puf.properties, "all_verdicts", lambda **options: every)
    budgets = [10, 20, 30, 60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 30720]
    table = pd.DataFrame(
        np.full((4, len(budgets)), 0.955), index=["range", "overall", "false alarms", "seconds"], columns=budgets
    )
    monkeypatch.setattr(power, "power_runs", lambda *args, **kwargs: pd.DataFrame())
    monkeypatch.setattr(power, "power_summary", lambda runs: table)
    monkeypatch.setattr(report, "build_report", lambda *args, **kwargs: None)
    row = {"size": "small", "users": 3000, "interactions": 167856, "case": "jaccard-puf-sample"}
    timed = {"seconds": 12.5, "cpu_seconds": 20.25, "peak_mb": 1234.5, "value": 0.123456789}
    monkeypatch.setattr(
        bench, "run_benchmarks", lambda *args, **kwargs: [{**row, "engine": timed, "dense": dict(timed)}]
    )


def test_every_command_prints_lines_of_at_most_100_columns_on_a_wide_terminal(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "250")  # a wide terminal: the commands still print 100 columns
    (tmp_path / "planted.py").write_text(textwrap.dedent(PLANTED))
    spec = f"{tmp_path / 'planted.py'}:spread_log"
    lines = []
    for argv in ([], ["check"], ["design"], ["power"], ["report"], ["evaluate"], ["bench"], ["measures"]):
        lines += _help(argv, capsys)
    for action in ("fetch", "list", "convert", "split"):
        lines += _help(["data", action], capsys)

    properties = "range,continuity,similar-treated-alike,translation-invariance,attainable-range,defined"
    known, verdict_json = tmp_path / "planted.known.json", tmp_path / "v.json"
    assert main(["check", spec, "--property", properties, "--max-examples", "5", "--known", str(known)]) == 0
    lines += _lines(capsys)
    assert main(["check", spec, "--property", "range", "--max-examples", "5", "--json", str(verdict_json)]) == 0
    lines += _lines(capsys)

    from puf.properties import verdicts
    from puf.properties.running.isolation import load_isolated

    planted = verdicts(load_isolated(spec), properties=properties.split(","), max_examples=5)
    _stand_ins(monkeypatch, planted)
    assert main(["check", "--all", "--quiet"]) == 0
    lines += _lines(capsys)

    grammar = tmp_path / "grammar.json"
    grammar.write_text(json.dumps({"index": {"cv": [None], "ge": [-1.0, 2.0]}}))
    design = ["design", "--require", "anonymity,translation-invariance,zero-at-equality,scale-invariance"]
    assert main([*design, "--grammar", str(grammar), "--max-examples", "5", "--quiet"]) == 0
    lines += _lines(capsys)
    assert main(["power", "--budgets", "10", "--seeds", "1", "--quiet"]) == 0
    lines += _lines(capsys)
    assert main(["report", "--quick", "--quiet", "--out", str(tmp_path / "report")]) == 0
    lines += _lines(capsys)
    assert main(["report", "--quick", "--out", str(tmp_path / "report-shown"), "--measure", spec]) == 0
    lines += _lines(capsys)
    assert main(["bench", "--size", "small", "--quiet"]) == 0
    lines += _lines(capsys)
    rankers = "mostpop,random,itemknn"
    assert main(["evaluate", *_evaluate_inputs(tmp_path), "--rankers", rankers, "--out", str(tmp_path / "e")]) == 0
    lines += _lines(capsys)
    assert main(["measures"]) == 0
    lines += _lines(capsys)
    assert main(["data", "list", "--cache", str(tmp_path / "cache")]) == 0
    lines += _lines(capsys)
    from puf.cli.commands import measures

    monkeypatch.setattr(measures, "run", lambda args: warnings.warn("a warning of many words " * 8, stacklevel=2) or 0)
    assert main(["measures"]) == 0
    lines += _lines(capsys)

    assert len(lines) > 200  # every command above printed
    # A word longer than a line (a temporary folder's path) stays whole, on a line of its own.
    too_wide = [line for line in lines if len(line) > WIDTH and len(line.split()) > 1]
    assert not too_wide, "\n".join(too_wide)


def test_progress_bars_take_the_width_of_the_commands_lines(tmp_path):
    """tqdm reads its width when it is imported: a command run afresh, on a wide terminal."""
    import os
    import subprocess
    import sys

    argv = ["evaluate", *_evaluate_inputs(tmp_path), "--rankers", "mostpop,random", "--out", str(tmp_path / "e")]
    env = {**os.environ, "COLUMNS": "250"}
    env.pop("TQDM_NCOLS", None)
    run = subprocess.run([sys.executable, "-m", "puf.cli", *argv], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    bars = [line for line in run.stderr.replace("\r", "\n").splitlines() if line.startswith("rankers:")]
    assert bars and all(len(line) <= WIDTH for line in bars)
    assert max(len(line) for line in bars) > 90  # as wide as the commands' lines, not tqdm's default


def test_a_warning_during_a_progress_bar_gets_a_line_of_its_own(monkeypatch, capsys):
    from tqdm import tqdm

    from puf.cli.commands import measures

    def run(args):
        with tqdm(total=3, desc="rankers", file=sys.stderr) as bar:
            bar.update(1)
            warnings.warn("the ranker stopped early", stacklevel=2)
            bar.update(2)
        return 0

    monkeypatch.setattr(measures, "run", run)
    assert main(["measures"]) == 0
    shown = re.split(r"[\r\n]", capsys.readouterr().err)
    assert "puf measures: warning: the ranker stopped early" in [line.strip() for line in shown]


class _Terminal:
    """A stream that says it is a terminal, as stderr is when a person runs the command."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_a_failure_is_folded_at_a_terminal_and_one_line_in_a_pipe(tmp_path, monkeypatch, capsys):
    """A measure that returns a generator is refused in a message of 160 columns: folded to the
    commands' width at a terminal, one line where a tool reads stderr (a pipe: capsys)."""
    (tmp_path / "gen.py").write_text("def spread(effectiveness):\n    yield max(effectiveness)\n")
    argv = ["check", f"{tmp_path / 'gen.py'}:spread", "--property", "range", "--quiet"]
    monkeypatch.setenv("COLUMNS", "250")
    assert main(argv) == 2
    (piped,) = capsys.readouterr().err.splitlines()
    assert len(piped) > WIDTH and "does not return a number: it returned generator" in piped
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(argv) == 2
    folded = terminal.text.splitlines()
    assert len(folded) > 1 and all(len(line) <= WIDTH for line in folded)
    assert " ".join(" ".join(folded).split()) == " ".join(piped.split())


def test_puf_check_of_one_measure_draws_a_bar_over_its_properties_at_a_terminal(monkeypatch, capsys):
    """A bar at a terminal, cleared before the table; none in a pipe (capsys) or with --quiet."""
    argv = ["check", "sd", "--property", "range,defined", "--max-examples", "3"]
    assert main(argv) == 0
    assert "property" not in capsys.readouterr().err
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(argv) == 0
    assert "puf check sd:" in terminal.text and "/2 [" in terminal.text  # (drawn as often as tqdm's interval lets it)
    assert all(len(line) <= WIDTH for line in terminal.text.replace("\r", "\n").splitlines())
    terminal.text = ""
    assert main([*argv, "--quiet"]) == 0
    assert terminal.text == ""
