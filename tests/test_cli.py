"""The ``puf`` command line: version, the measures table, and the one exit-code map."""

import ast
import pathlib
import re
import subprocess
import sys

import pytest

import puf
from puf.cli import main
from puf.data import DownloadError

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exit:
        assert exit.code == 0
    assert capsys.readouterr().out.strip() == f"puf-harness {puf.__version__}"


def test_measures_table_lists_every_registered_measure(capsys):
    assert main(["measures"]) == 0
    blocks = capsys.readouterr().out.split("\n\n")  # the columns that fit, then the definitions
    out = blocks[0].splitlines()
    assert out[0].split()[:5] == ["name", "reads", "declared", "values", "fairer"]
    names = [line.split()[0] for line in out[1:]]
    assert names == list(puf.MEASURES)
    assert len(names) == 24  # the PUF paper's nine and the field's fifteen
    assert all(any(f in line for f in ("similarity-aware", "inequality indices", "envy")) for line in out[1:])
    assert any("∞" in line for line in out if line.startswith("uf "))
    assert "definition" in blocks[-1].splitlines()[0]
    # Declared and attainable range, as the README's table lists them.
    rows = {line.split()[0]: line for line in out[1:]}
    assert re.search(r"\[0, 1\] +\[0, 0\.5\] ", rows["sd"])
    assert re.search(r"\[0, 1\] +\[0, 2\] ", rows["puf-as-printed"])


def test_console_script_runs_as_module():
    result = subprocess.run(
        [sys.executable, "-m", "puf.cli", "measures", "--format", "names"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.split() == list(puf.MEASURES)


@pytest.mark.parametrize(
    "error, code, message",
    [
        (DownloadError("pip download failed"), 1, "puf measures: pip download failed\n"),
        (ValueError("k must be >= 1\nsecond line"), 2, "puf measures: k must be >= 1\n"),
        (
            FileNotFoundError(2, "No such file or directory", "x.csv"),
            2,
            "puf measures: x.csv: No such file or directory\n",
        ),
        (ZeroDivisionError("boom"), 70, "puf measures: internal error: ZeroDivisionError: boom (rerun"),
        (KeyboardInterrupt(), 130, "puf measures: interrupted\n"),
    ],
)
def test_every_failure_is_one_line_and_the_code_of_the_one_map(monkeypatch, capsys, error, code, message):
    from puf.cli.commands import measures

    def fail(args):
        raise error

    monkeypatch.setattr(measures, "run", fail)
    monkeypatch.delenv("PUF_DEBUG", raising=False)
    assert main(["measures"]) == code
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path):
    """``puf measures | head -1``: the pipe closes while the table is written; the command ends
    with 141, as SIGPIPE ends a process, and says nothing (it said ``[Errno 32] Broken pipe``)."""
    script = (
        "import os, sys\nfrom puf.cli import main\nread, write = os.pipe()\nos.close(read)\n"
        "sys.stdout = open(write, 'w')\nsys.exit(main(['measures']))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (141, "")


def test_a_sigterm_whose_exception_python_swallowed_is_delivered_again():
    """A signal handled inside an at-fork callback (a pool forking its workers) raises where
    ``os.fork`` reports the exception and goes on: the run would not stop."""
    script = (
        "import os, signal, time\n"
        "from puf.cli.exitcodes import Terminated, exit_code, terminations_interrupt\n"
        "sent = []\n"
        "def after():\n"
        "    if not sent:\n"
        "        sent.append(os.kill(os.getpid(), signal.SIGTERM))\n"
        "        sum(range(10**5))  # the handler runs here, in the callback\n"
        "os.register_at_fork(after_in_parent=after)\n"
        "try:\n"
        "    with terminations_interrupt():\n"
        "        pid = os.fork()\n"
        "        if pid == 0:\n"
        "            os._exit(0)\n"
        "        os.waitpid(pid, 0)\n"
        "        time.sleep(30)\n"
        "    print('went on')\n"
        "except Terminated as exc:\n"
        "    print('ended', exit_code(exc))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout == "ended 143\n", done.stderr


def test_a_run_a_signal_ended_exits_though_a_thread_would_hold_the_exit():
    """A pool's manager thread left waiting on a lock the interrupted code held would keep the
    interpreter from exiting: the program ends with the run's code after its grace period."""
    script = (
        "import threading\n"
        "import puf.cli as cli\n"
        "cli.EXIT_GRACE = 0.5\n"
        "held = threading.Lock()\n"
        "held.acquire()\n"
        "def main(argv=None):\n"
        "    threading.Thread(target=held.acquire).start()  # never returns\n"
        "    return 143\n"
        "cli.main = main\n"
        "cli.command()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 143


def test_an_unknown_option_is_told_with_its_commands_usage(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["evaluate", "--inter", "x.inter", "--bogus"])
    err = capsys.readouterr().err
    assert exit.value.code == 2 and err.startswith("usage: puf evaluate")
    assert err.rstrip().endswith("puf evaluate: error: unrecognized arguments: --bogus")


def test_no_command_spells_an_exit_code():
    """Commands return EXIT_* names or exit_code(exc) (puf.cli.exitcodes), never a number."""
    spelled = []
    for path in sorted((ROOT / "cli" / "commands").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) and type(node.value.value) is int:
                spelled.append(f"{path.name}:{node.lineno} return {node.value.value}")
    assert spelled == []


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["check", "sd", "--jobs", "0"], "--jobs must be >= 1, got 0"),
        (["check", "--all", "--jobs", "-1"], "--jobs must be >= 1, got -1"),
        (["check", "sd", "--random-state", "-1"], "--random-state must be >= 0, got -1"),
        (["power", "--jobs", "0"], "--jobs must be >= 1, got 0"),
        (["bench", "--size", "small", "--timeout", "0"], "--timeout must be a number of seconds > 0"),
        (["bench", "--size", "small", "--seed", "-1"], "--seed must be >= 0, got -1"),
    ],
)
def test_a_worker_count_or_time_limit_below_1_is_refused(capsys, argv, fragment):
    # --jobs 0 or -1 ran with one worker, silently
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "sd", "--known", "{missing}/known.json"],
        ["power", "--csv", "{missing}/runs.csv"],
        ["bench", "--size", "small", "--output", "{missing}/bench.md"],
    ],
)
def test_output_files_are_checked_before_the_work(tmp_path, capsys, monkeypatch, argv):
    import puf.properties
    from puf.properties.knowledge import power
    from puf.cli.commands import bench

    def no_work(*args, **kwargs):
        raise AssertionError("the work started before the output file was checked")

    monkeypatch.setattr(puf.properties, "verdicts", no_work, raising=False)
    monkeypatch.setattr(power, "power_runs", no_work)
    monkeypatch.setattr(bench, "run_benchmarks", no_work)
    argv = [a.format(missing=tmp_path / "no" / "such") for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and err.count("\n") == 1


def test_measures_values_column_comes_from_each_measures_attainable_values():
    from puf.cli.commands.measures import measures_table

    rows = measures_table()
    assert {r["name"]: r["values"] for r in rows} == {n: m.attainable for n, m in puf.MEASURES.items()}
    assert {r["name"]: r["values"] for r in rows}["gini"] == "[0, (m−1)/m]"
    puf.register(puf.sd, name="sd-again")
    puf.register(puf.generalized_entropy, name="ge-3", options={"alpha": 3})
    try:
        values = {r["name"]: r["values"] for r in measures_table()}
        assert values["sd-again"] == "[0, 0.5]" and values["ge-3"] == "—"  # bound: not inherited
    finally:
        puf.MEASURES.pop("sd-again"), puf.MEASURES.pop("ge-3")


@pytest.mark.parametrize(
    "options, message",
    [
        (["--random-state", "-1"], "--random-state must be >= 0, got -1"),
        (["--workers", "0"], "--workers must be >= 1, got 0"),
        (["--rankers", "mostpop"], "--rankers needs --data"),
        (["--rankers", "mostpop,popular", "--data", "ml-100k"], "unknown ranker 'popular'; known rankers: random"),
    ],
)
def test_report_refuses_a_bad_option_before_the_work(tmp_path, capsys, monkeypatch, options, message):
    from puf.reports import report

    def no_work(*args, **kwargs):
        raise AssertionError(f"the report started before {options[0]} was checked")

    monkeypatch.setattr(report, "build_report", no_work)
    assert main(["report", "--quick", *options, "--out", str(tmp_path / "r")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_report_rankers_reach_the_real_data_sections(tmp_path, monkeypatch):
    from puf.reports import report

    seen = {}

    def record(out, **options):
        seen.update(options)
        (out / "index.html").write_text("")
        return out / "index.html"

    monkeypatch.setattr(report, "build_report", record)
    monkeypatch.setattr("puf.cli.commands.report._check_data", lambda name: None)
    argv = [
        "report",
        "--quick",
        "--quiet",
        "--data",
        "ml-100k",
        "--rankers",
        "mostpop, ease",
        "--out",
        str(tmp_path / "r"),
    ]
    assert main(argv) == 0
    assert seen["rankers"] == ["mostpop", "ease"] and "--rankers mostpop, ease" in seen["command"]


def test_a_warning_is_one_line_naming_the_command(capsys):
    import warnings

    from puf.cli import _warnings_in_one_line
    from puf.validation import UndefinedMeasureWarning

    with _warnings_in_one_line("evaluate"):
        warnings.warn(UndefinedMeasureWarning("ge(0) is undefined when some effectiveness value is 0"), stacklevel=1)
    assert capsys.readouterr().err == "puf evaluate: warning: ge(0) is undefined when some effectiveness value is 0\n"


def test_an_unknown_property_is_refused_in_one_line_that_fits_a_terminal(capsys):
    # the refusal listed all of the catalog's names: one line of more than 600 columns
    assert main(["check", "sd", "--property", "anonymity,similarty-zero"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert len(line) <= 100, line
    assert line.startswith("puf check: unknown property 'similarty-zero'; did you mean 'similarity-zero'? known: range")


def test_property_takes_a_comma_list_and_repeats(capsys):
    assert main(["check", "sd", "--property", "range, anonymity", "--property", "defined", "--max-examples", "2"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in ("range", "anonymity", "defined")), out
    assert "continuity" not in out
