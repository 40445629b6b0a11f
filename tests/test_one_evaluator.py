"""One evaluator: a registered measure reaches every table through World.population, with no other code.

A throwaway measure is registered (and removed afterwards); it must show up in ``puf evaluate``'s
table and agreement (the heat map's cells), in the sweeps of its family, and in ``puf check
--all``'s verdict matrix, with the value World.population gives. The World's memo of its m x m
pieces is checked here too.
"""

import json
import pickle

import numpy as np
import pandas as pd
import pytest

import puf
from puf.evaluation import score_variants, study_similarity
from puf.reports.sweeps import Base, point_scores
from puf.cli import main
from puf.reports.figures import plot_heatmap
from puf.reports.sweeps import SWEEPS

NAME = "throwaway-gap"
SMALL = Base(n_users=20, n_items=120, k=5)


def widest_similar_gap(effectiveness, similarity):
    """max over u != v of sim(u, v) |S(u) - S(v)|."""
    s = np.asarray(effectiveness, dtype=float)
    weighted = np.asarray(similarity) * np.abs(s[:, None] - s[None, :])
    np.fill_diagonal(weighted, 0.0)
    return float(weighted.max())


@pytest.fixture
def throwaway():
    measure = puf.register(widest_similar_gap, name=NAME, definition="widest similarity-weighted gap")
    try:
        yield measure
    finally:
        puf.MEASURES.pop(NAME)


def write_dataset(folder):
    """20 users with 10 interactions each over 16 items in 4 genres (RecBole atomic files)."""
    rows = [f"u{u}\ti{(3 * u + j) % 16}\t5\t{j}" for u in range(20) for j in range(10)]
    (folder / "toy.inter").write_text(
        "user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows) + "\n"
    )
    genres = ("Drama", "Noir Drama", "War", "Comedy")
    (folder / "toy.item").write_text(
        "item_id:token\tgenre:token_seq\n" + "\n".join(f"i{i}\t{genres[i % 4]}" for i in range(16)) + "\n"
    )
    return folder / "toy.inter", folder / "toy.item"


def test_a_registered_measure_reaches_puf_evaluate_and_its_agreement(throwaway, tmp_path, capsys):
    inter, item = write_dataset(tmp_path)
    assert (
        main(
            [
                "evaluate",
                "--inter",
                str(inter),
                "--item",
                str(item),
                "--rankers",
                "mostpop,random",
                "--k",
                "3",
                "--out",
                str(tmp_path / "out"),
                "--format",
                "json",
                "-q",
            ]
        )
        == 0
    )
    printed = json.loads(capsys.readouterr().out)
    assert {f"{NAME}-P", f"{NAME}-NDCG"} <= set(printed["mostpop"])
    scores = pd.read_csv(tmp_path / "out" / "scores.csv", index_col="ranker")
    agreement = pd.read_csv(tmp_path / "out" / "agreement.csv", index_col=0)
    assert f"{NAME}-NDCG" in scores.columns and f"{NAME}-NDCG" in agreement.index
    assert f"{NAME}-NDCG" in agreement.columns
    figure = plot_heatmap(agreement, title="agreement")
    assert f"{NAME}-NDCG" in [t.get_text() for t in figure.axes[0].get_yticklabels()]
    # The value is the measure on the Population World.population derives for NDCG@3, Jaccard.
    from puf.data import load_atomic, to_world
    from puf.evaluation import run_rankers

    dataset = load_atomic(inter, item)  # as puf evaluate --inter --item reads it
    world = to_world(dataset, run_rankers(dataset, "mostpop", k=3)["mostpop"])
    expected = throwaway(**world.population(metric="ndcg", k=3).fields())
    assert printed["mostpop"][f"{NAME}-NDCG"] == pytest.approx(expected, abs=1e-12)


def test_a_registered_measure_joins_the_sweeps_of_its_family(throwaway):
    assert f"{NAME}-P" in SWEEPS["zero_relevance"].measures
    assert f"{NAME}-NDCG" in SWEEPS["pairing"].measures  # similarity-aware, by what it reads
    table = SWEEPS["skewness"].run(seeds=[0], base=SMALL, quick=True)
    assert {f"{NAME}-P", f"{NAME}-NDCG"} <= set(table.measure)
    zero = SWEEPS["zero_relevance"].run(seeds=[0], base=SMALL, quick=True)
    got = zero[(zero.measure == f"{NAME}-P") & (zero.value == 0.5)].score.item()
    population = SMALL.world(zero_relevance=0.5, random_state=0).population(metric="precision")
    assert got == pytest.approx(widest_similar_gap(population.effectiveness, population.similarity), abs=1e-12)


def test_a_registered_measure_gets_a_row_of_the_verdict_matrix(throwaway, capsys):
    assert main(["check", "--all", "--property", "range", "--max-examples", "3", "--jobs", "1", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()  # the measures in blocks that fit the width
    headers = [line.split() for line in out if line.startswith("property ")]
    assert any(NAME in header for header in headers) and out[1].split()[0] == "range"


def test_every_variant_reads_the_population_of_its_metric_and_similarity():
    world = SMALL.world(zero_relevance=0.3, random_state=2)
    chosen = puf.variants("PUF-P") + puf.variants("UF") + puf.variants("ME") + puf.variants("NDCG@k")
    got = score_variants(world, chosen, gamma=0.5)
    precision = world.population(metric="precision")
    with_uf = world.population(similarity="uf", gamma=0.5)
    # The engines (pair pass, UF, envy) add in another order than the dense measures: 1e-12.
    assert got == pytest.approx(
        [
            puf.puf(precision.effectiveness, precision.similarity),
            puf.uf(with_uf.similarity, with_uf.list_distance),
            puf.mean_envy(precision.utility),
            float(np.mean(with_uf.effectiveness)),
        ],
        rel=1e-12,
        abs=1e-12,
    )
    # The study's similarity replaces Jaccard, never what a variant declares as its own.
    assert [study_similarity(v, "cosine") for v in chosen[:2]] == ["cosine", "uf"]
    assert point_scores(SMALL.replace(zero_relevance=0.3, similarity="uf"), 2, chosen[:1], {}) == [
        pytest.approx(
            puf.puf(world.population(metric="precision", similarity="uf", gamma=0.5).effectiveness, with_uf.similarity),
            rel=1e-12,
        )
    ]


def test_a_failing_measure_names_itself_and_the_run():
    def broken(effectiveness):
        raise RuntimeError("boom")

    world = SMALL.world(zero_relevance=0.5, random_state=0)
    with pytest.raises(ValueError, match=r"measure broken-P failed on run 'x': RuntimeError: boom"):
        score_variants(world, puf.variants(broken), where=" on run 'x'")


def test_world_memoises_its_pieces_once_per_world(monkeypatch):
    import puf.lists

    calls = []
    for owner, name in ((puf.World, "similarity"), (puf.lists, "utility_matrix"), (puf.lists, "list_distance")):
        original = getattr(owner, name)
        monkeypatch.setattr(owner, name, lambda *a, _f=original, _n=name, **kw: calls.append(_n) or _f(*a, **kw))
    world = SMALL.world(zero_relevance=0.5, random_state=0)
    first = world.population(metric="precision")
    second = world.population(metric="ndcg")
    assert sorted(calls) == ["list_distance", "similarity", "utility_matrix"]
    np.testing.assert_array_equal(first.similarity, second.similarity)
    # New relevance keeps the similarities and list distances, not the utility.
    relabelled = world.replace(relevance=world.relevance * 2)
    relabelled.population()
    assert sorted(calls) == ["list_distance", "similarity", "utility_matrix", "utility_matrix"]
    # New lists keep the similarities only; a pickle keeps no piece.
    world.replace(rankings=world.rankings[::-1]).population()
    assert calls.count("similarity") == 1 and calls.count("list_distance") == 2
    pickle.loads(pickle.dumps(world)).population()
    assert calls.count("similarity") == 2


def test_a_similarity_that_takes_no_gamma_is_one_piece_for_every_gamma(monkeypatch):
    calls = []
    original = puf.World.similarity
    monkeypatch.setattr(
        puf.World,
        "similarity",
        lambda self, name="jaccard", **kw: calls.append((name, kw["gamma"])) or original(self, name, **kw),
    )
    world = SMALL.world(zero_relevance=0.5, random_state=0)
    jaccard = [world.population(similarity="jaccard", gamma=g).similarity for g in (1.0, 0.5)]
    uf = [world.population(similarity="uf", gamma=g).similarity for g in (1.0, 0.5)]
    assert calls == [("jaccard", 1.0), ("uf", 1.0), ("uf", 0.5)]
    np.testing.assert_array_equal(jaccard[1], original(world, "jaccard"))
    np.testing.assert_array_equal(uf[1], original(world, "uf", gamma=0.5))


def test_a_seeds_worlds_share_their_similarities_along_a_sweep(monkeypatch):
    """Synthetic worlds of one seed differ in relevance alone: one Jaccard per seed (UF's engine
    streams sim_UF, and its value is kept while the histories and lists are)."""
    calls = []
    original = puf.World.similarity
    monkeypatch.setattr(
        puf.World, "similarity", lambda self, name="jaccard", **kw: calls.append(name) or original(self, name, **kw)
    )
    table = SWEEPS["zero_relevance"].run(seeds=[0, 1], base=SMALL, quick=True)
    assert table.value.nunique() == 11
    assert sorted(calls) == ["jaccard", "jaccard"]
