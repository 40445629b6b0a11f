"""The roads are planned within the limit the dense builders' guard applies (puf.memory, one home)."""

import numpy as np
import pytest

import puf
from puf.evaluation.planner import dense_bytes, plan_roads
from puf.evaluation.roads import score_worlds
from puf.memory import DEFAULT_BUDGET, MemoryNeeded, available_memory, check_memory, memory_budget, memory_limit


def _reads_utility(effectiveness, utility):
    return float(np.mean(utility))


def _world(m=30, n=20, seed=0):
    rng = np.random.default_rng(seed)
    histories = (rng.random((m, n)) < 0.3).astype(float)
    relevance = (rng.random((m, n)) < 0.2).astype(float)
    rankings = np.argsort(-rng.random((m, n)), axis=1)[:, :5]
    return puf.World(histories, relevance, rankings, np.eye(n))


def test_the_planner_reads_puf_max_memory(monkeypatch):
    chosen = puf.variants(_reads_utility)[:1]
    needs = dense_bytes(1_000, 2)
    monkeypatch.setenv("PUF_MAX_MEMORY", str(needs - 1))
    assert memory_budget() == available_memory() == needs - 1
    (road,) = plan_roads(chosen, m=1_000)
    assert road.kind == "skipped" and road.needs == needs
    monkeypatch.setenv("PUF_MAX_MEMORY", str(needs))
    assert plan_roads(chosen, m=1_000)[0].kind == "dense"


def test_memory_limit_sets_the_budget_and_the_guard_at_once(monkeypatch):
    monkeypatch.delenv("PUF_MAX_MEMORY", raising=False)
    assert 0 < memory_budget() <= DEFAULT_BUDGET
    with memory_limit(10**6):
        assert memory_budget() == available_memory() == 10**6
        with pytest.raises(MemoryNeeded):
            check_memory(10**6 + 1, what="a piece")
        with memory_limit(10**9):
            assert memory_budget() == 10**9
        assert memory_budget() == 10**6
    assert 0 < memory_budget() <= DEFAULT_BUDGET


def test_a_dense_road_is_never_refused_by_the_guard(monkeypatch):
    # The limit between one dense piece and the dense road of a measure reading U: the guard
    # would accept each builder, the planner must still see that the road does not fit.
    world, chosen = _world(), puf.variants(_reads_utility)[:1]
    needs = dense_bytes(world.m, 2)
    for limit in (needs // 7, needs - 1, needs):
        monkeypatch.setenv("PUF_MAX_MEMORY", str(limit))
        scores = score_worlds({"w": world}, chosen)
        assert scores.roads[0].kind == ("dense" if limit >= needs else "skipped")
        assert np.isfinite(scores.values["w"][0]) == (limit >= needs)


def test_an_explicit_memory_is_the_guards_limit_while_scoring(monkeypatch):
    monkeypatch.setenv("PUF_MAX_MEMORY", "1K")  # the guard alone would refuse every dense piece
    world, chosen = _world(), puf.variants(_reads_utility)[:1]
    scores = score_worlds({"w": world}, chosen, memory=dense_bytes(world.m, 2))
    assert scores.roads[0].kind == "dense" and np.isfinite(scores.values["w"][0])
    assert available_memory() == 1024  # the explicit limit ends with the call
