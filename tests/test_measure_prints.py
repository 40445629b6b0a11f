"""What a user's measure prints in its worker: kept in a file the command names, off the terminal."""

import tempfile
import textwrap

import pytest

from puf.cli import main
from puf.properties.running import isolation

LOUD = """
import sys

print("loading the model")

def loud(effectiveness):
    print("called on", len(effectiveness), "users")
    print("a warning of my own", file=sys.stderr)
    return float(max(effectiveness) - min(effectiveness))
"""


@pytest.fixture()
def loud(tmp_path, monkeypatch):
    """``loud.py`` in ``tmp_path``, where the commands' temporary files go too."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    path = tmp_path / "loud.py"
    path.write_text(textwrap.dedent(LOUD))
    return path


def _kept(folder):
    return sorted(folder.glob("puf-prints-*.txt"))


def test_check_keeps_a_measures_prints_off_the_terminal_and_names_their_file(loud, tmp_path, capfd):
    assert main(["check", f"{loud}:loud", "--property", "anonymity", "--max-examples", "3", "--quiet"]) == 0
    out, err = capfd.readouterr()
    assert err == ""  # nothing the measure printed reached the harness's stderr (its fd 2)
    (kept,) = _kept(tmp_path)
    lines = kept.read_text().splitlines()
    assert lines[0] == "loading the model"
    assert "a warning of my own" in lines and any(line.startswith("called on") for line in lines)
    table, note = out.rsplit("puf check: ", 1)  # the note comes last, after the table
    assert "anonymity  holds" in table
    assert " ".join(note.split()) == (
        f"the measure printed {len(lines):,} lines (the first: 'loading the model'); kept in {kept}"
    )


def test_a_measure_that_prints_nothing_leaves_no_file_and_no_note(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / "quiet.py").write_text("def quiet(effectiveness):\n    return float(max(effectiveness))\n")
    assert main(["check", f"{tmp_path / 'quiet.py'}:quiet", "--property", "range", "--max-examples", "3"]) == 0
    out, err = capfd.readouterr()
    assert "printed" not in out and err == ""
    assert _kept(tmp_path) == []


def test_what_an_import_printed_before_it_failed_is_kept(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / "broken.py").write_text('print("loading the model")\nraise ImportError("no GPU")\n')
    for command in (["check"], ["report", "--out", str(tmp_path / "out"), "--measure"]):
        assert main([*command, f"{tmp_path / 'broken.py'}:f"]) == 2
        out, err = capfd.readouterr()
        name = f"puf {command[0]}"
        assert err.strip() == f"{name}: cannot import '{tmp_path / 'broken.py'}': no GPU"
        kept = _kept(tmp_path)[-1]
        assert kept.read_text() == "loading the model\n"
        assert " ".join(out.split()) == (
            f"{name}: the measure printed 1 line (the first: 'loading the model'); kept in {kept}"
        )
        kept.unlink()


def test_printed_to_takes_stdout_and_stderr_of_workers_started_in_the_block(loud, tmp_path, capfd):
    path = tmp_path / "printed.txt"
    before = isolation.load_isolated(f"{loud}:loud")
    assert capfd.readouterr().err == "loading the model\n"  # a worker of no block prints to stderr
    with isolation.printed_to(path):
        assert isolation.load_isolated(f"{loud}:loud")(effectiveness=[0.0, 0.5]) == 0.5
    assert path.read_text() == "loading the model\ncalled on 2 users\na warning of my own\n"
    assert capfd.readouterr().err == ""
    assert isolation.live_workers() == 0  # the block's workers ended with it
    assert before(effectiveness=[0.0, 1.0]) == 1.0  # after it, a worker prints to stderr again
    assert capfd.readouterr().err == "loading the model\ncalled on 2 users\na warning of my own\n"
    isolation.release_workers()


def test_a_line_printed_before_a_hang_is_kept(tmp_path, monkeypatch):
    # Python buffers a file's stdout by the block: the worker writes each line at once instead
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)
    (tmp_path / "hangs.py").write_text(
        "import time\ndef hangs(effectiveness):\n    print('before the hang')\n    time.sleep(60)\n"
    )
    with isolation.printed_to(tmp_path / "printed.txt"):
        with pytest.raises(TimeoutError):
            isolation.load_isolated(f"{tmp_path / 'hangs.py'}:hangs", time_limit=0.5)(effectiveness=[0.0])
    assert (tmp_path / "printed.txt").read_text() == "before the hang\n"


def test_a_forked_workers_prints_reach_the_file_not_a_copy_of_the_harness_stream(tmp_path):
    from puf import as_measure

    # under pytest (or in a notebook) sys.stdout is an object of this process, copied by the fork
    measure = as_measure(lambda effectiveness: print("from a fork") or 1.0)
    with isolation.printed_to(tmp_path / "printed.txt"):
        assert isolation.worker_for(measure).call({"effectiveness": [0.0]}, 10.0) == (1.0, "float")
    assert (tmp_path / "printed.txt").read_text() == "from a fork\n"


def test_without_a_writable_temporary_folder_the_prints_go_to_stderr_and_the_check_runs(loud, capfd, monkeypatch):
    def unwritable(**options):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", unwritable)
    assert main(["check", f"{loud}:loud", "--property", "anonymity", "--max-examples", "3", "--quiet"]) == 0
    out, err = capfd.readouterr()
    assert "anonymity  holds" in out and "printed" not in out
    assert "loading the model" in err and "called on" in err
