"""The disk cache of trained rankers' lists: a damaged entry counts as absent."""

import numpy as np
import pytest

from puf.rankers.cache import load_run, save_run


def test_round_trip(tmp_path):
    save_run(tmp_path, "x.npz", np.array([[3, 1, -1]]), {"seconds": 2.0, "epochs": 4})
    rankings, facts = load_run(tmp_path, "x.npz")
    assert rankings.dtype == np.int64 and rankings.tolist() == [[3, 1, -1]]
    assert facts == {"seconds": 2.0, "epochs": 4}


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty"])
def test_damaged_entry_counts_as_absent(tmp_path, damage):
    save_run(tmp_path, "x.npz", np.arange(200).reshape(20, 10), {"seconds": 1.0})
    path = tmp_path / "x.npz"
    whole = path.read_bytes()
    path.write_bytes({"truncated": whole[: len(whole) // 2], "garbage": b"not a zip at all", "empty": b""}[damage])
    assert load_run(tmp_path, "x.npz") is None


# ``puf evaluate`` in a process whose ALS training first sleeps argv[1] seconds: a run that
# holds its run-cache entry for that long.
SLOW_EVALUATE = """
import sys, time
from puf.rankers.factorization import ALS
fit = ALS.fit
def slow(self, *args, **options):
    time.sleep(float(sys.argv[1]))
    return fit(self, *args, **options)
ALS.fit = slow
from puf.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _slow_evaluate(seconds, toy, cache, out):
    import subprocess
    import sys

    argv = ["evaluate", "--inter", str(toy / "toy.inter"), "--rankers", "als", "--cache", str(cache)]
    command = [sys.executable, "-c", SLOW_EVALUATE, str(seconds), *argv, "--out", str(out), "-q", "--format", "csv"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_entry_lock(cache, process):
    import time

    deadline = time.monotonic() + 120
    while not list((cache / "runs").glob(".toy-als-*.lock")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the slow run never took its run-cache entry"
        time.sleep(0.05)


def test_evaluations_of_other_rankers_run_beside_a_training_one(toy, tmp_path, capsys):
    pytest.importorskip("implicit")
    from puf.cli import main

    cache = tmp_path / "cache"
    first = _slow_evaluate(4, toy, cache, tmp_path / "als")
    try:
        _wait_for_entry_lock(cache, first)
        argv = ["evaluate", "--inter", str(toy / "toy.inter"), "--rankers", "mostpop", "--cache", str(cache)]
        assert main([*argv, "--out", str(tmp_path / "mostpop"), "-q"]) == 0, capsys.readouterr().err
    finally:
        _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert (tmp_path / "mostpop" / "scores.csv").is_file() and (tmp_path / "als" / "scores.csv").is_file()


def test_two_evaluations_of_one_ranker_train_once_and_give_identical_scores(toy, tmp_path, capsys):
    pytest.importorskip("implicit")
    from puf.cli import main

    cache = tmp_path / "cache"
    first = _slow_evaluate(2, toy, cache, tmp_path / "first")
    try:
        _wait_for_entry_lock(cache, first)
        argv = ["evaluate", "--inter", str(toy / "toy.inter"), "--rankers", "als", "--cache", str(cache)]
        assert main([*argv, "--out", str(tmp_path / "second"), "-q"]) == 0, capsys.readouterr().err
    finally:
        _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    timings = {
        run: (tmp_path / run / "timings.csv").read_text().splitlines()[1].split(",") for run in ("first", "second")
    }
    assert timings["first"][2] == "False" and timings["second"][2] == "True"  # trained once, then read
    assert timings["first"][1] == timings["second"][1]  # the training's seconds, stored with the lists
    assert (tmp_path / "first" / "scores.csv").read_text() == (tmp_path / "second" / "scores.csv").read_text()
