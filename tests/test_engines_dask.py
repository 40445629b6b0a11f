"""engine="dask" on an in-process LocalCluster equals the local engine; clear errors otherwise."""

import logging
import sys
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from puf.engines import envy_measures, puf_from_histories, uf_streaming
from puf.engines import dask as dask_engine

S = np.random.default_rng(0).random(120)
HISTORIES = sp.random(120, 40, density=0.15, random_state=np.random.default_rng(1), format="csr")


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster, set_as_default=False) as c:
            yield c


@pytest.mark.parametrize("similarity", ["jaccard", "cosine"])
@pytest.mark.parametrize("method", ["exact", "sample"])
def test_dask_equals_local(client, similarity, method):
    options = dict(similarity=similarity, method=method, block_size=16)
    if method == "sample":
        options.update(sample_size=2000, random_state=7, block_size=300)
    local = puf_from_histories(S, HISTORIES, **options)
    remote = puf_from_histories(S, HISTORIES, engine="dask", scheduler=client, **options)
    assert abs(float(remote) - float(local)) <= 1e-10
    if method == "sample":
        assert remote == local  # same draws, same chunks, same reduction order


def test_a_sampled_pass_sends_its_drawn_pairs_as_data_not_in_the_task_graph(client, caplog):
    """At the default 1e6 pairs the graph held every task's pairs (15.26 MiB; 305 MiB at 2e7) and
    dask warned "Sending large graph"; the pairs are scattered now, and the value is the local one."""
    options = dict(method="sample", random_state=7)
    local = puf_from_histories(S, HISTORIES, **options)
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING, logger="distributed"):
        warnings.simplefilter("always")
        remote = puf_from_histories(S, HISTORIES, engine="dask", scheduler=client, **options)
    said = [str(warning.message) for warning in caught] + [record.getMessage() for record in caplog.records]
    assert not [text for text in said if "large graph" in text]
    assert remote.n_pairs == 1_000_000 and remote == local


def test_dask_by_address_and_streaming_measures(client):
    address = client.scheduler.address
    assert (
        abs(puf_from_histories(S, HISTORIES, engine="dask", scheduler=address) - puf_from_histories(S, HISTORIES))
        <= 1e-10
    )
    rng = np.random.default_rng(2)
    rankings = np.array([rng.permutation(40)[:5] for _ in range(120)])
    relevance = sp.random(120, 40, density=0.2, random_state=rng, format="csr")
    local = envy_measures(rankings, relevance, block_size=25)
    remote = envy_measures(rankings, relevance, block_size=25, engine="dask", scheduler=client)
    assert all(abs(remote[key] - local[key]) <= 1e-10 for key in local)
    features = np.eye(40)[:, :4] + 0.1
    local_uf = uf_streaming(HISTORIES, features, rankings, features, gamma=0.5, block_size=32)
    remote_uf = uf_streaming(
        HISTORIES, features, rankings, features, gamma=0.5, block_size=32, engine="dask", scheduler=client
    )
    assert abs(remote_uf - local_uf) <= 1e-10


def test_unreachable_scheduler_fails_fast(monkeypatch):
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr(dask_engine, "CONNECT_TIMEOUT", 1)
    start = time.perf_counter()
    with pytest.raises(ValueError, match="cannot reach the dask scheduler"):
        puf_from_histories(S, HISTORIES, engine="dask", scheduler="tcp://127.0.0.1:9")
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize(
    "address, said",
    [
        ("tcp://127.0.0.1", "is not a dask scheduler's address: give PROTOCOL://HOST:PORT"),
        ("http://127.0.0.1:8787", "is not a dask scheduler's address"),
        ("", "is not a dask scheduler's address"),
        ("tls://127.0.0.1:8786", "is a TLS address, and dask has no TLS settings here"),
    ],
)
def test_an_address_dask_cannot_use_is_refused_at_once(address, said):
    """A malformed address hung 10 s in dask before a traceback; a tls:// one without TLS settings
    was an internal error: each is one ValueError now, before any connection."""
    pytest.importorskip("dask.distributed")
    with pytest.raises(ValueError, match=said):
        puf_from_histories(S, HISTORIES, engine="dask", scheduler=address)


def test_a_cluster_without_workers_is_named_so():
    """Every worker gone (or none started): dask's 'No valid workers found' is told as the cluster's
    state and what to do, not as the failure of each measure's pass."""
    dask = pytest.importorskip("dask")
    from distributed import Client, LocalCluster

    from puf.engines.dask import DaskExecutor

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):  # (dask waits 30 s for a worker)
        with LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty:
            with Client(empty, set_as_default=False) as client:
                with pytest.raises(ValueError, match=r"the dask cluster at .* has no workers .*; start its workers"):
                    DaskExecutor(client).map(lambda shared, task: shared + task, 1, [1, 2])


def test_no_client_and_bad_scheduler_type():
    pytest.importorskip("dask.distributed")
    with pytest.raises(ValueError, match="scheduler"):
        puf_from_histories(S, HISTORIES, engine="dask", scheduler=42)


def test_missing_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ImportError, match=r'pip install "puf-harness\[dask\]"'):
        puf_from_histories(S, HISTORIES, engine="dask", scheduler="tcp://127.0.0.1:9")


def _killing_scatter(client, times, broadcast=True):
    """``client.scatter`` that, on its first ``times`` calls scattering the shared arrays (``broadcast``)
    or else the tasks' data, then kills every worker (their nannies restart them)."""
    import os

    real, calls = client.scatter, []

    def scatter(*args, **kwargs):
        future = real(*args, **kwargs)
        if kwargs.get("broadcast", False) != broadcast:
            return future
        calls.append(1)
        if len(calls) <= times:
            before = set(client.scheduler_info()["workers"])
            try:
                client.run(os._exit, 1)
            except Exception:  # noqa: BLE001 (the workers died before answering, as meant)
                pass
            deadline = time.monotonic() + 60
            while set(client.scheduler_info()["workers"]) & before and time.monotonic() < deadline:
                time.sleep(0.05)
            client.wait_for_workers(1, timeout=60)
        return future

    return scatter


@pytest.fixture
def dying_client():
    """A cluster of one worker process under a nanny, which restarts it when it dies."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(processes=True, n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster:
        with distributed.Client(cluster, set_as_default=False) as c:
            yield c


def test_shared_arrays_lost_with_their_workers_are_scattered_again_and_the_value_is_exact(dying_client, monkeypatch):
    """The run ended in FutureCancelledError ('lost dependencies'), though the client had the data."""
    local = puf_from_histories(S, HISTORIES, engine="local", block_size=16)
    monkeypatch.setattr(dying_client, "scatter", _killing_scatter(dying_client, times=1))
    assert puf_from_histories(S, HISTORIES, engine="dask", scheduler=dying_client, block_size=16) == local


def test_drawn_pairs_lost_with_their_workers_are_scattered_again_and_the_value_is_exact(dying_client, monkeypatch):
    """A sampled pass's tasks hold scattered pairs, which die with their worker as the shared arrays do."""
    options = dict(method="sample", sample_size=200_000, random_state=7)
    local = puf_from_histories(S, HISTORIES, **options)
    attempts = []
    real_attempt = dask_engine.DaskExecutor._attempt
    monkeypatch.setattr(
        dask_engine.DaskExecutor, "_attempt", lambda self, *args: attempts.append(1) or real_attempt(self, *args)
    )
    monkeypatch.setattr(dying_client, "scatter", _killing_scatter(dying_client, times=1, broadcast=False))
    assert puf_from_histories(S, HISTORIES, engine="dask", scheduler=dying_client, **options) == local
    assert len(attempts) == 2  # the first attempt's pairs died with the worker


def test_shared_arrays_lost_every_time_end_in_one_line_naming_the_workers(dying_client, monkeypatch):
    monkeypatch.setattr(dask_engine, "ATTEMPTS", 2)
    monkeypatch.setattr(dying_client, "scatter", _killing_scatter(dying_client, times=2))
    with pytest.raises(ValueError) as lost:
        puf_from_histories(S, HISTORIES, engine="dask", scheduler=dying_client, block_size=16)
    message = str(lost.value)
    assert "lost 2 times (lost: tcp://127.0.0.1:" in message and "engine='local'" in message and "\n" not in message


def test_dask_runs_the_jaccard_engines_compiled_tile_and_equals_its_numpy_road(client, monkeypatch):
    from puf.engines import jaccard

    assert jaccard.compiled_puf_tile is not None  # numba is in the test extra
    monkeypatch.setattr(jaccard, "COMPILED_MIN_PAIRS", 0)
    remote = puf_from_histories(S, HISTORIES, block_size=16, engine="dask", scheduler=client)
    monkeypatch.setattr(jaccard, "compiled_puf_tile", None)
    assert abs(puf_from_histories(S, HISTORIES, block_size=16) - remote) <= 1e-12 * remote
