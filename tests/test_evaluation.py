"""evaluate_runs, read_run, measure_agreement, the `puf evaluate` CLI, and ML-100K itself."""

import dataclasses
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from puf import UndefinedMeasureWarning
from puf.data import preprocess
from puf.evaluation import (
    MEASURE_COLUMNS,
    evaluate_runs,
    measure_agreement,
    per_user_effectiveness,
    read_run,
    run_rankers,
)


@pytest.fixture
def tiny():
    """Users a, b, c with one training and one test item each (ratios 1:0:1).

    train: a={x}, b={y}, c={x};  test: a={y}, b={x}, c={z};  items x=0, y=1, z=2.
    """
    frame = pd.DataFrame(
        {"user_id": list("aabbcc"), "item_id": list("xyyxxz"), "rating": [5.0] * 6, "timestamp": [1, 2] * 3}
    )
    data = preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1)
    return dataclasses.replace(data, item_features=np.eye(3), feature_names=("x", "y", "z"))


def test_evaluate_runs_hand_computed(tiny):
    # lists (k=1): a->y (hit), b->y (miss), c->x (miss): P = NDCG = (1, 0, 0)
    table = evaluate_runs(tiny, {"mine": [[1], [1], [0]]}, k=1, gamma=1.0)
    row = table.loc["mine"]
    assert list(table.columns) == [c.replace("@k", "@1") for c in MEASURE_COLUMNS]
    assert row["P@1"] == pytest.approx(1 / 3) and row["NDCG@1"] == pytest.approx(1 / 3)
    assert row["SD-P"] == pytest.approx(math.sqrt(2) / 3)  # sqrt(p(1-p)), p = 1/3
    assert row["Gini-P"] == pytest.approx(2 / 3)  # Gini = fraction at zero
    # Jaccard: J(a,c) = 1, others 0; PUF = 2/(3·2)·(J(a,b)|1-0| + J(a,c)|1-0| + J(b,c)|0|) = 1/3
    assert row["PUF-P"] == pytest.approx(1 / 3)
    # phi_u(L_v): a's item y is in a's own list (no envy); b's item x is in c's list but not
    # b's: envy(b, c) = 1; c's item z is in no list. ME = 1/6 over the 6 ordered pairs,
    # MME = (0 + 1 + 0)/3, PEU = one envious user of three
    assert row["ME"] == pytest.approx(1 / 6)
    assert row["MME"] == pytest.approx(1 / 3) and row["PEU"] == pytest.approx(1 / 3)
    # gamma = 1: sim_UF = Jaccard; t = mean + SD of (0, 1, 0) = 1/3 + √2/3 < 1 so U* = {(a, c)};
    # d_L(a, c) = 1 - cos(e_y, e_x) = 1; UF = ln(1 · 1) = 0
    assert row["UF"] == pytest.approx(0.0, abs=1e-12)
    assert table.attrs["k"] == 1 and table.attrs["gamma"] == 1.0


def test_evaluate_runs_pads_short_lists_and_checks_shapes(tiny):
    table = evaluate_runs(tiny, {"short": [[1], [0], [2]]}, k=2)
    assert table.loc["short", "P@2"] == pytest.approx(0.5)  # every list hits, 1 of 2 slots
    with pytest.raises(ValueError, match=r"runs\['bad'\] has 2 rows but dataset '' has 3 users"):
        evaluate_runs(tiny, {"bad": [[1], [0]]})
    with pytest.raises(ValueError, match=r"runs\['dup'\] row 0 lists item 1 more than once"):
        evaluate_runs(tiny, {"dup": [[1, 1], [0, 2], [2, 0]]})
    with pytest.raises(ValueError, match="runs must name at least one run"):
        evaluate_runs(tiny, {})
    bare = evaluate_runs(dataclasses.replace(tiny, item_features=None), {"m": [[1], [1], [0]]})
    assert "UF" not in bare.columns and "PUF-P" in bare.columns and "ME" in bare.columns
    assert "an .item file" in bare.attrs["skipped"]["UF"]


def test_empty_test_set_is_an_error(tiny):
    frame = pd.DataFrame({"user_id": list("aab"), "item_id": list("xyx"), "rating": 5.0, "timestamp": [1, 2, 1]})
    data = dataclasses.replace(preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1), item_features=np.eye(2))
    with pytest.raises(ValueError, match="user 'b' has an empty test set"):
        evaluate_runs(data, {"m": [[1], [1]]})


def test_per_user_effectiveness_is_tidy(tiny):
    table = per_user_effectiveness(tiny, {"r1": [[1], [1], [0]], "r2": [[0], [0], [2]]}, k=1)
    assert list(table.columns) == ["ranker", "user_id", "P@1", "NDCG@1"]
    assert table["P@1"].tolist() == [1, 0, 0, 0, 1, 1]


def write_run(tmp_path, text, name="run.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_read_run_by_rank_and_by_score(tiny, tmp_path):
    by_rank = write_run(tmp_path, "user,item,rank\na,z,2\na,y,1\nc,z,1\nb,x,1\n")
    assert read_run(by_rank, tiny).tolist() == [[1, 2], [0, -1], [2, -1]]
    by_score = write_run(tmp_path, "user_id\titem_id\tscore\na\tz\t0.2\na\ty\t0.9\n", "run.tsv")
    assert read_run(by_score, tiny, k=1, missing="pad").tolist() == [[1], [-1], [-1]]
    with pytest.raises(
        ValueError,
        match=r"run.tsv: the run lists no item for 2 of the 3 users "
        r"of dataset '' \(first: 'b'\)",
    ):
        read_run(by_score, tiny)
    # ties keep file order; a header in RecBole style is accepted
    tied = write_run(tmp_path, "user:token,item:token,score:float\nb,z,1\nb,y,1\n", "tied.csv")
    assert read_run(tied, tiny, missing="pad")[1].tolist() == [2, 1]
    # a spreadsheet's byte-order mark does not hide the header
    bom = tmp_path / "bom.csv"
    bom.write_bytes("\ufeffuser,item,rank\na,y,1\n".encode("utf-8"))
    assert read_run(bom, tiny, missing="pad")[0].tolist() == [1]


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("user,item\na,x\n", 1, "header must name one user column"),
        ("user,item,rank\na,x\n", 2, "expected 3 cells, got 2"),
        ("user,item,rank\na,x,first\n", 2, "rank 'first' is not a number"),
        ("user,item,score\na,x,nan\n", 2, "score 'nan' is not finite"),
        ("user,item,rank\na,x,1\nzed,x,1\n", 3, "user 'zed' is not in dataset"),
        ("user,item,rank\na,w,1\n", 2, "item 'w' is not in dataset"),
        ("user,item,rank\na,x,1\na,y,2\na,x,3\n", 4, "item 'x' is listed twice for user 'a' (first on line 2)"),
    ],
)
def test_read_run_errors_name_file_and_line(tiny, tmp_path, text, line, problem):
    path = write_run(tmp_path, text)
    with pytest.raises(ValueError) as caught:
        read_run(path, tiny)
    assert str(caught.value).startswith(f"{path}: line {line}: ")
    assert problem in str(caught.value)


def test_read_run_user_with_empty_test_set(tmp_path):
    frame = pd.DataFrame({"user_id": list("aab"), "item_id": list("xyx"), "rating": 5.0, "timestamp": [1, 2, 1]})
    data = preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1)
    path = write_run(tmp_path, "user,item,rank\na,x,1\nb,y,1\n")
    with pytest.raises(ValueError, match=r"line 3: user 'b' has an empty test set"):
        read_run(path, data)


def test_measure_agreement_hand_computed():
    table = pd.DataFrame(
        {
            "P": [0.1, 0.2, 0.3, 0.4],
            "SD": [0.4, 0.3, 0.2, 0.1],
            "PUF": [0.1, 0.3, 0.2, 0.4],
            "flat": [1.0] * 4,
            "gap": [0.1, np.nan, 0.3, 0.2],
        },
        index=list("abcd"),
    )
    tau = measure_agreement(table)
    assert tau.loc["P", "SD"] == pytest.approx(-1.0)
    # PUF vs P: 6 pairs, one discordant (b, c): (5 - 1) / 6
    assert tau.loc["P", "PUF"] == pytest.approx(4 / 6)
    assert math.isnan(tau.loc["P", "flat"]) and math.isnan(tau.loc["flat", "flat"])
    # NaN rows are dropped pairwise: P vs gap over a, c, d: pairs (a,c)+, (a,d)+, (c,d)- -> 1/3
    assert tau.loc["P", "gap"] == pytest.approx(1 / 3)
    assert np.allclose(tau.to_numpy(), tau.to_numpy().T, equal_nan=True)
    assert tau.loc["P", "P"] == 1.0
    with pytest.raises(ValueError, match=r"has no columns \['nope'\]"):
        measure_agreement(table, columns=["P", "nope"])


def test_run_rankers_excludes_validation_items():
    frame = pd.DataFrame(
        {"user_id": ["a"] * 5 + ["b"] * 5, "item_id": list("vwxyz") * 2, "rating": 5.0, "timestamp": list(range(10))}
    )
    data = preprocess(frame, core=1, min_train=1)  # per user: train v,w,x; valid y; test z
    runs = run_rankers(data, ["mostpop"], k=3)
    assert runs["mostpop"].tolist() == [[4, -1, -1], [4, -1, -1]]
    runs = run_rankers(data, ["mostpop"], k=3, split="valid")
    assert runs["mostpop"].tolist() == [[3, 4, -1], [3, 4, -1]]


def cli(argv):
    """``puf`` itself: its failures are reported by the one handler, puf.cli.main."""
    from puf.cli import main

    return main(argv)


def toy_files(tmp_path):
    rows = [f"u{u}\ti{(u + j) % 12}\t{3 + (j % 3)}\t{j}" for u in range(10) for j in range(9)]
    inter = tmp_path / "toy.inter"
    inter.write_text("user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows) + "\n")
    item = tmp_path / "toy.item"
    item.write_text(
        "item_id:token\tgenre:token_seq\n"
        + "\n".join(f"i{i}\t{['Drama', 'Comedy War', 'Action'][i % 3]}" for i in range(12))
        + "\n"
    )
    return inter, item


def test_cli_with_own_files_and_run(tmp_path, capsys):
    inter, item = toy_files(tmp_path)
    run = write_run(tmp_path, "user,item,rank\n" + "".join(f"u{u},i{(u + 8) % 12},1\n" for u in range(10)))
    out = tmp_path / "out"
    code = cli(
        [
            "evaluate",
            "--inter",
            str(inter),
            "--item",
            str(item),
            "--run",
            f"mine={run}",
            "--rankers",
            "mostpop,itemknn",
            "--out",
            str(out),
            "--format",
            "json",
            "-q",
        ]
    )
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed) == {"mine", "mostpop", "itemknn"}
    assert set(printed["mine"]) == {c.replace("@k", "@10") for c in MEASURE_COLUMNS}
    assert {p.name for p in out.iterdir()} == {
        "scores.csv",
        "per_user.csv",
        "agreement.csv",
        "timings.csv",
        "lists.csv",
    }
    assert printed["mine"]["P@10"] == pytest.approx(0.1)  # each list holds the test item
    per_user = pd.read_csv(out / "per_user.csv")
    assert len(per_user) == 3 * 10 and set(per_user["ranker"]) == {"mine", "mostpop", "itemknn"}


def test_cli_errors_exit_2(tmp_path, capsys):
    inter, item = toy_files(tmp_path)
    assert cli(["evaluate", "--inter", str(inter), "--rankers", "svd", "--out", str(tmp_path / "o"), "-q"]) == 2
    assert "unknown ranker 'svd'" in capsys.readouterr().err
    assert cli(["evaluate", "--data", "ml-5k", "-q"]) == 2
    assert "neither a known name" in capsys.readouterr().err
    assert cli(["evaluate", "--inter", str(inter), "--run", "nameless", "-q"]) == 2
    assert "--run must be NAME=FILE" in capsys.readouterr().err


# ---- real data: ML-100K (fetched by .ci/run; skipped offline outside CI) -------------------


def test_ml100k_shape(ml100k):
    assert (ml100k.n_users, ml100k.n_items) == (942, 1203)
    assert ml100k.item_features.shape == (1203, 19)
    assert min(ml100k.train.groupby("user").size()) >= 5


PAPER_COLUMNS = (
    "P@k",
    "NDCG@k",
    "SD-P",
    "SD-NDCG",
    "Gini-P",
    "Gini-NDCG",
    "ME",
    "MME",
    "PEU",
    "UF",
    "PUF-P",
    "PUF-NDCG",
)


@pytest.fixture(scope="module")
def ml100k_table(ml100k, ml100k_runs):
    """The PUF paper's twelve columns (the whole field is checked in test_ml100k_whole_field)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMeasureWarning)
        return evaluate_runs(ml100k, ml100k_runs, k=10, measures=PAPER_COLUMNS)


def test_ml100k_rankers_are_sensible(ml100k_table):
    table = ml100k_table
    p = table["P@10"]
    assert p["ease"] > 1.2 * p["mostpop"] and p["itemknn"] > 1.2 * p["mostpop"]
    assert p["random"] < 0.03 < p["mostpop"]
    assert table["NDCG@10"]["ease"] > table["NDCG@10"]["mostpop"]
    # docs/design.md: only Gini on all-zero effectiveness and UF with an empty/zero sum are
    # undefined; neither happens on ML-100K, so every measure is a finite number.
    assert np.isfinite(table.to_numpy()).all(), table
    assert ((table.drop(columns="UF") >= 0) & (table.drop(columns="UF") <= 1)).all().all()


def test_ml100k_agreement(ml100k_table):
    tau = measure_agreement(ml100k_table)
    assert tau.shape == (12, 12)
    assert np.isfinite(tau.to_numpy()).all()
    assert tau.loc["P@10", "NDCG@10"] > 0.5


def test_ml100k_whole_field(ml100k, ml100k_runs, ml100k_table):
    from puf import variants

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        table = evaluate_runs(ml100k, ml100k_runs, k=10)
    assert list(table.columns) == [c.replace("@k", "@10") for c in MEASURE_COLUMNS]
    # The paper's columns are the same numbers whether or not the other measures run.
    pd.testing.assert_frame_equal(table[ml100k_table.columns], ml100k_table)
    # Some user has P@10 = 0 under every ranker on ML-100K: the indices that take ln S or
    # 1/S are undefined there, and only those.
    undefined = {c for c in table.columns if table[c].isna().any()}
    assert undefined == {
        f"{name}-{metric}" for name in ("GE-0", "Atkinson-1", "Atkinson-2") for metric in ("P", "NDCG")
    }
    for v in variants():
        low, high = v.measure.range
        values = table[v.label.replace("@k", "@10")].dropna()
        assert ((values >= low) & (values <= high)).all(), v.label
    tau = measure_agreement(table)
    assert tau.shape == (len(MEASURE_COLUMNS), len(MEASURE_COLUMNS))
    assert tau.loc["Gini-P", "Hoover-P"] > 0.5 and tau.loc["SD-P", "Variance-P"] == 1.0


def test_cli_names_every_file_it_wrote(tmp_path, capsys):
    inter, item = toy_files(tmp_path)
    out = tmp_path / "out"
    assert (
        cli(["evaluate", "--inter", str(inter), "--item", str(item), "--rankers", "mostpop,random", "--out", str(out)])
        == 0
    )
    err = capsys.readouterr().err
    wrote = err[err.rindex("wrote") :]  # the last note, folded to the terminal's width
    assert all(p.name in wrote for p in out.iterdir()), wrote  # timings.csv included
