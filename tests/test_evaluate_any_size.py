"""``puf evaluate`` at any size: --measure with a pair kernel, --sample, --memory, skipped measures."""

import json
import textwrap

import numpy as np
import pandas as pd
import pytest

from puf.cli import main


@pytest.fixture()
def toy(tmp_path):
    rng = np.random.default_rng(0)
    rows = [
        f"u{u}\ti{i}\t{rng.integers(3, 6)}\t{t}"
        for u in range(30)
        for t, i in enumerate(sorted(rng.choice(40, 14, replace=False)))
    ]
    (tmp_path / "toy.inter").write_text(
        "user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows)
    )
    (tmp_path / "toy.item").write_text(
        "item_id:token\tgenre:token_seq\n" + "\n".join(f"i{i}\tG{i % 3} G{i % 5}" for i in range(40))
    )
    (tmp_path / "mine.py").write_text(
        textwrap.dedent('''
        import numpy as np
        import puf

        def gap_pairs(effectiveness, similarity):
            s_u, s_v = effectiveness
            return np.abs(s_u - s_v) * (similarity > 0.1)

        @puf.pair_kernel(gap_pairs)
        @puf.measure(name="close-gap", label="Close-gap")
        def close_gap(effectiveness, similarity):
            """Mean gap over pairs more than 0.1 similar (dense form)."""
            s, sim = np.asarray(effectiveness), np.asarray(similarity)
            u, v = np.triu_indices(s.size, 1)
            return float(np.mean(np.abs(s[u] - s[v]) * (sim[u, v] > 0.1)))
        ''')
    )
    return tmp_path


def _evaluate(folder, *options, item=True):
    args = [
        "evaluate",
        "--inter",
        str(folder / "toy.inter"),
        "--rankers",
        "mostpop,itemknn",
        "--format",
        "json",
        "--out",
        str(folder / "out"),
        "--force",
        "--quiet",
        "--cache",
        str(folder / "cache"),
        *options,
    ]
    if item:
        args[3:3] = ["--item", str(folder / "toy.item")]
    return main(args)


def test_a_users_pair_measure_runs_on_the_tiles_and_equals_its_dense_form(toy, capsys):
    spec = f"{toy / 'mine.py'}:close_gap"
    assert _evaluate(toy, "--measure", spec) == 0
    dense = json.loads(capsys.readouterr().out)
    assert _evaluate(toy, "--measure", spec, "--memory", "1kB") == 0  # the tiled road
    tiled = json.loads(capsys.readouterr().out)
    for ranker in dense:
        assert "Close-gap-P" in dense[ranker] and "Close-gap-NDCG" in dense[ranker]
        for column, value in dense[ranker].items():
            if value is not None and column in tiled[ranker]:
                assert tiled[ranker][column] == pytest.approx(value, abs=1e-10), column


def test_sample_gives_every_pair_measure_an_interval(toy, capsys):
    assert _evaluate(toy, "--sample", "5000", "--measure", f"{toy / 'mine.py'}:close_gap") == 0
    estimates = pd.read_csv(toy / "out" / "estimates.csv")
    assert {"PUF-P", "PUF-NDCG", "MD-P", "Lipschitz-excess-NDCG", "UF", "Close-gap-P"} <= set(estimates.measure)
    assert (estimates.pairs == 5000).all()
    assert (estimates.ci_low <= estimates.value).all() and (estimates.value <= estimates.ci_high).all()


def test_a_measure_with_no_streamed_form_is_listed_as_skipped_beyond_memory(toy, capsys):
    (toy / "dense.py").write_text(
        textwrap.dedent("""
        import numpy as np

        def widest(effectiveness, similarity):
            return float(np.max(np.asarray(similarity) * 0.0))
        """)
    )
    assert _evaluate(toy, "--measure", f"{toy / 'dense.py'}:widest", "--memory", "1kB") == 0
    captured = capsys.readouterr()
    assert "skipped widest-P at 30 users" in captured.err and "memory limit" in captured.err
    skipped = pd.read_csv(toy / "out" / "skipped.csv")
    assert set(skipped.measure) == {"widest-P", "widest-NDCG"}
    assert "widest-P" not in json.loads(captured.out)["mostpop"]


def test_without_an_item_file_uf_alone_is_skipped_naming_the_file(toy, capsys):
    assert _evaluate(toy, item=False) == 0
    captured = capsys.readouterr()
    table = json.loads(captured.out)
    assert "UF" not in table["mostpop"] and table["mostpop"]["PUF-NDCG"] is not None
    assert "skipped UF" in captured.err and ".item file" in captured.err


def _pair_road_labels(m):
    import puf
    from puf.evaluation.planner import PAIR_ROADS, plan_roads

    chosen = puf.variants()
    return {v.label for v, road in zip(chosen, plan_roads(chosen, m=m)) if road.kind in PAIR_ROADS}


def test_max_pairs_lists_the_exact_pair_measures_as_skipped_and_keeps_the_rest(toy, capsys):
    assert _evaluate(toy) == 0
    full = json.loads(capsys.readouterr().out)
    assert _evaluate(toy, "--max-pairs", "434") == 0  # 30 users have 435 pairs
    captured = capsys.readouterr()
    table = json.loads(captured.out)
    skipped = pd.read_csv(toy / "out" / "skipped.csv")
    pair_roads = _pair_road_labels(30)
    assert {"PUF-P", "PUF-NDCG", "UF", "Inconsistency-P", "Lipschitz-excess-NDCG"} <= pair_roads
    assert set(skipped.measure) == pair_roads
    assert skipped.reason.str.contains("435 user pairs, more than max_pairs = 434").all()
    by_measure = dict(zip(skipped.measure, skipped.reason))
    assert by_measure["PUF-P"].endswith("estimates it from N drawn pairs")
    assert by_measure["UF"].endswith("estimates it from N drawn pairs")
    assert by_measure["Inconsistency-P"].endswith("it has no sampled estimate")
    assert "skipped PUF-P at 30 users" in captured.err and "--sample N" in captured.err
    for ranker, values in table.items():
        assert set(values) == set(full[ranker]) - pair_roads
        assert values == {column: full[ranker][column] for column in values}  # the rest unchanged
    assert _evaluate(toy, "--max-pairs", "435") == 0
    assert json.loads(capsys.readouterr().out) == full
    assert not (toy / "out" / "skipped.csv").exists()


def test_max_pairs_with_sample_estimates_the_pair_measures(toy, capsys):
    assert _evaluate(toy, "--max-pairs", "1e2", "--sample", "5000") == 0
    estimates = pd.read_csv(toy / "out" / "estimates.csv")
    skipped = pd.read_csv(toy / "out" / "skipped.csv")
    assert {"PUF-P", "PUF-NDCG", "UF", "Lipschitz-excess-P"} <= set(estimates.measure)
    assert set(skipped.measure) == {"Inconsistency-P", "Inconsistency-NDCG"}  # no sampled road


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--memory", "lots", "--memory must be a size"),
        ("--max-pairs", "0.5", "--max-pairs must be a whole number of pairs"),
        ("--max-pairs", "many", "--max-pairs must be a whole number of pairs"),
        ("--sample", "1", "--sample must be >= 2"),
        ("--measure", "nowhere.py:f", "cannot import"),
    ],
)
def test_bad_options_are_refused_before_any_work(toy, capsys, option, value, message):
    assert _evaluate(toy, option, value) == 2
    assert message in capsys.readouterr().err


GRAMMAR_MEASURES = """
import puf
from puf.grammar import PairForm, grammar_measure

FORMS = {
    "weighted": PairForm(weight="sim", gap="abs", normalisation="weights"),
    "rooted": PairForm(weight="sim>=t", gap="square", aggregation="all-pairs", normalisation="mean",
                       coefficient=0.5, root=True, threshold=0.2),
    "gini-form": PairForm(gap="abs", aggregation="all-pairs", normalisation="mean", coefficient=0.5),
}
streamed = {name: grammar_measure(form, name=f"g-{name}", label=f"G-{name}") for name, form in FORMS.items()}
g_weighted, g_rooted, g_gini = streamed.values()


def _dense(form):
    # The same form as a plain function: no pair kernel, so it takes the dense road.
    if "similarity" in form.reads:
        return lambda effectiveness, similarity: grammar_measure(form)(effectiveness, similarity)
    return lambda effectiveness: grammar_measure(form)(effectiveness)


d_weighted, d_rooted, d_gini = (
    puf.measure(name=f"d-{name}", label=f"D-{name}")(_dense(form)) for name, form in FORMS.items()
)
"""


def test_grammar_pair_measures_stream_on_the_tiles_and_equal_their_dense_value(tmp_path, capsys):
    """A weighted mean, all-pairs with μ and a root, an S-only form: tiles and matrix = dense, to 1e-10."""
    import puf
    from puf.evaluation.planner import plan_roads
    from puf.grammar import PairForm, grammar_measure

    rng = np.random.default_rng(1)  # 10 of 16 items each: the top-10 lists hit, NDCG@10 varies
    rows = [f"u{u}\ti{i}\t3\t{t}" for u in range(30) for t, i in enumerate(rng.choice(16, 10, replace=False))]
    (tmp_path / "toy.inter").write_text(
        "user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows)
    )
    genres = "\n".join(f"i{i}\tG{i % 3} G{i % 5}" for i in range(16))
    (tmp_path / "toy.item").write_text("item_id:token\tgenre:token_seq\n" + genres)
    (tmp_path / "grammar_measures.py").write_text(GRAMMAR_MEASURES)
    specs = [f"{tmp_path / 'grammar_measures.py'}:{p}_{n}" for n in ("weighted", "rooted", "gini") for p in "gd"]
    options = [arg for spec in specs for arg in ("--measure", spec)]
    assert _evaluate(tmp_path, *options, "--rankers", "itemknn", "--memory", "1kB") == 0  # tiles from histories
    tiled = json.loads(capsys.readouterr().out)["itemknn"]
    assert _evaluate(tmp_path, *options, "--rankers", "itemknn") == 0  # the matrix in memory; D- dense
    held = json.loads(capsys.readouterr().out)["itemknn"]
    for name in ("weighted", "rooted", "gini-form"):
        dense = held[f"D-{name}-NDCG"]
        assert dense > 0.01, name
        assert tiled[f"G-{name}-NDCG"] == pytest.approx(dense, abs=1e-10), name
        assert held[f"G-{name}-NDCG"] == pytest.approx(dense, abs=1e-10), name
    gini = puf.variants(puf.as_measure(grammar_measure(PairForm(gap="abs", aggregation="all-pairs"))))
    assert [r.kind for r in plan_roads(gini, m=30, memory=10**3)] == ["pairs"] * len(gini)
    assert [r.kind for r in plan_roads(gini, m=30)] == ["effectiveness"] * len(gini)
