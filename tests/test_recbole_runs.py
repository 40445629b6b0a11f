"""The README's RecBole export recipe: a RecBole-style top-k file enters ``puf evaluate --run``.

The file is hand-made in the format the recipe writes (RecBole atomic header
``user_id:token item_id:token score:float``, external tokens, tab-separated), so the test
needs no RecBole.
"""

import io

import numpy as np
import pandas as pd
import pytest

from puf.data import load_atomic
from puf.cli import main


@pytest.fixture()
def toy(tmp_path):
    rng = np.random.default_rng(0)
    rows = [f"u{u}\ti{i}\t4\t{t}" for u in range(12) for t, i in enumerate(rng.choice(20, 10, replace=False))]
    (tmp_path / "toy.inter").write_text(
        "user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows) + "\n"
    )
    (tmp_path / "toy.item").write_text(
        "item_id:token\tgenre:token_seq\n" + "\n".join(f"i{i}\tG{i % 3} G{i % 5}" for i in range(20))
    )
    return tmp_path


def recbole_style_run(dataset, path):
    """What the recipe writes: each user's test items first (best scores), then unseen others."""
    test, train = dataset.matrix("test"), dataset.matrix("train")
    lines = ["user_id:token\titem_id:token\tscore:float"]
    for u, user in enumerate(dataset.users):
        relevant = test.indices[test.indptr[u] : test.indptr[u + 1]]
        others = [
            i
            for i in range(dataset.n_items)
            if i not in relevant and i not in train.indices[train.indptr[u] : train.indptr[u + 1]]
        ]
        for rank, item in enumerate(list(relevant) + others[: 10 - len(relevant)]):
            lines.append(f"{user}\t{dataset.items[item]}\t{10.0 - rank}")
    path.write_text("\n".join(lines) + "\n")
    return np.diff(test.indptr)


def test_recbole_style_run_is_evaluated(toy, capsys):
    dataset = load_atomic(toy / "toy.inter", toy / "toy.item")
    n_relevant = recbole_style_run(dataset, toy / "ngcf.tsv")
    code = main(
        [
            "evaluate",
            "--inter",
            str(toy / "toy.inter"),
            "--item",
            str(toy / "toy.item"),
            "--run",
            f"ngcf={toy / 'ngcf.tsv'}",
            "--format",
            "csv",
            "--out",
            str(toy / "out"),
            "--quiet",
        ]
    )
    assert code == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="ranker")
    assert table.loc["ngcf", "NDCG@10"] == pytest.approx(1.0, abs=1e-12)
    assert table.loc["ngcf", "P@10"] == pytest.approx(np.mean(np.minimum(n_relevant, 10)) / 10, abs=1e-12)


def test_recbole_internal_ids_are_a_clear_error(toy, capsys):
    """RecBole's internal ids (1, 2, ... with 0 = [PAD]) must be mapped back to tokens first."""
    (toy / "ids.tsv").write_text("user_id:token\titem_id:token\tscore:float\n1\t3\t0.9\n")
    code = main(
        [
            "evaluate",
            "--inter",
            str(toy / "toy.inter"),
            "--item",
            str(toy / "toy.item"),
            "--run",
            f"ngcf={toy / 'ids.tsv'}",
            "--out",
            str(toy / "out"),
            "--quiet",
        ]
    )
    assert code == 2
    assert "line 2: user '1' is not in dataset" in capsys.readouterr().err
