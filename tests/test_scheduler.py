"""``--scheduler``: ``puf evaluate`` and the report's real data run the engines' blocks on a dask cluster.

A LocalCluster with one worker process stands for a cluster: the values must be the local
run's to 1e-10, and the engines' tasks must have run on it.
"""

import io

import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

from puf.cli import main


def evaluate(tmp_path, capsys, *options):
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    code = main(
        ["evaluate", "--data", "ml-100k", "--rankers", "mostpop,itemknn", "--format", "csv", "--out", str(out), "-q"]
        + list(options)
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return pd.read_csv(io.StringIO(captured.out), index_col="ranker")


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=":0") as running:
        yield running


def test_evaluate_on_a_cluster_equals_the_local_run(cluster, tmp_path, capsys):
    local = evaluate(tmp_path, capsys)
    assert "run_task" not in cluster.scheduler.task_prefixes
    remote = evaluate(tmp_path, capsys, "--scheduler", cluster.scheduler_address)
    assert "run_task" in cluster.scheduler.task_prefixes  # the engines' blocks ran as the cluster's tasks
    assert list(remote.columns) == list(local.columns) and list(remote.index) == list(local.index)
    np.testing.assert_allclose(remote.to_numpy(), local.to_numpy(), rtol=0, atol=1e-10, equal_nan=True)


def test_the_reports_real_data_runs_on_the_cluster(cluster):
    from puf.evaluation import Study
    from puf.reports.report import _real_data

    local = _real_data("ml-100k", study=Study(), rankers="mostpop")["scores"]
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        remote = _real_data("ml-100k", study=Study(engine="dask", scheduler=client), rankers="mostpop")["scores"]
    np.testing.assert_allclose(remote.to_numpy(), local.to_numpy(), rtol=0, atol=1e-10, equal_nan=True)


def test_an_unreachable_scheduler_fails_before_any_work(tmp_path, capsys):
    code = main(["evaluate", "--data", "ml-100k", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path / "o")])
    assert code == 2
    assert "--scheduler tcp://127.0.0.1:9: cannot reach the dask scheduler" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    assert main(["report", "--quick", "--out", str(tmp_path / "r"), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "--scheduler needs --data" in capsys.readouterr().err


def test_jobs_beside_a_scheduler_is_refused_before_any_work(tmp_path, capsys):
    """--jobs sets the local engine's threads; with --scheduler no local engine runs, and it was ignored."""
    argv = ["evaluate", "--data", "ml-100k", "--jobs", "2", "--scheduler", "tcp://127.0.0.1:9"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    said = capsys.readouterr().err
    assert "--jobs 2 sets the local engine's threads, and --scheduler tcp://127.0.0.1:9 runs" in said
    assert "cannot reach" not in said and len(said.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_report_scheduler_reaches_the_real_data_settings(cluster, tmp_path, monkeypatch):
    from puf.reports import report

    seen = {}

    def record(out, **options):
        seen.update(options, connected=options["study"].scheduler.status)
        (out / "index.html").write_text("")
        return out / "index.html"

    monkeypatch.setattr(report, "build_report", record)
    monkeypatch.setattr("puf.cli.commands.report._check_data", lambda name: None)
    argv = ["report", "--quick", "--quiet", "--data", "ml-100k", "--out", str(tmp_path / "r")]
    assert main([*argv, "--scheduler", cluster.scheduler_address]) == 0
    assert seen["study"].engine == "dask" and seen["connected"] == "running"
    assert f"--scheduler {cluster.scheduler_address}" in seen["command"]


CLOSE_GAP = """
import numpy as np
import puf


def gap_pairs(effectiveness, similarity):
    s_u, s_v = effectiveness
    return np.abs(s_u - s_v) * (similarity > 0.1)


@puf.pair_kernel(gap_pairs)
@puf.measure(name="close-gap", label="Close-gap")
def close_gap(effectiveness, similarity):
    s, sim = np.asarray(effectiveness), np.asarray(similarity)
    u, v = np.triu_indices(s.size, 1)
    return float(np.mean(gap_pairs((s[u], s[v]), sim[u, v])))
"""


def test_a_measure_given_as_a_file_runs_on_the_cluster(cluster, tmp_path, capsys):
    """A FILE.py measure's module is named for its path, which the workers never loaded: its pair
    kernel reaches them by value, and the pair pass on the cluster gives the local values."""
    (tmp_path / "mine.py").write_text(CLOSE_GAP)
    options = ["--measure", f"{tmp_path / 'mine.py'}:close_gap", "--memory", "1MB"]
    local = evaluate(tmp_path, capsys, *options)
    remote = evaluate(tmp_path, capsys, *options, "--scheduler", cluster.scheduler_address)
    assert {"Close-gap-P", "Close-gap-NDCG"} <= set(remote.columns)
    np.testing.assert_allclose(remote.to_numpy(), local.to_numpy(), rtol=0, atol=1e-10, equal_nan=True)
