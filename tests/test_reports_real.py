"""``puf report --data``: the real-data sections, on a small hand-made RecBole dataset.

The property verdicts are stubbed here (they are the same as without --data and are checked
by test_reports_report.py); everything else runs for real: loading, rankers, agreement, and
the zero-relevance and skewness sweeps on real histories and lists with artificial relevance.
"""

import numpy as np
import pandas as pd
import pytest

import puf.reports.report as report_module
from puf.cli import main


@pytest.fixture(scope="module")
def report(toy, stub_verdicts, tmp_path_factory):
    out = tmp_path_factory.mktemp("real") / "out"
    patch = pytest.MonkeyPatch()
    stub_verdicts(patch)
    # The baselines only (the neural rankers have their own tests), and a private lists cache.
    patch.setattr(report_module, "REAL_RANKERS", "random,mostpop,userknn,itemknn,ease")
    patch.setenv("PUF_HARNESS_CACHE", str(tmp_path_factory.mktemp("cache")))
    try:
        assert main(["report", "--quick", "--quiet", "--out", str(out), "--data", str(toy)]) == 0
    finally:
        patch.undo()
    return out


def test_real_data_files(report):
    for name in (
        "toy_rankers.csv",
        "toy_agreement.csv",
        "toy_agreement.png",
        "toy_measures.png",
        "toy_zero_relevance.csv",
        "toy_zero_relevance.png",
        "toy_skewness.csv",
        "toy_skewness.png",
        "zero_relevance.csv",
    ):
        assert (report / name).is_file(), name
    page = (report / "index.html").read_text(encoding="utf-8")
    assert page.count("<img ") == 5 + 4 + 1  # synthetic sweeps; measures, agreement, 2 real sweeps; power
    assert "Measure agreement on toy" in page and "Measures per ranker on toy" in page


def test_artificial_relevance_gives_the_identities_on_real_lists(report):
    table = pd.read_csv(report / "toy_zero_relevance.csv")
    scores = table.pivot_table(index=["value", "seed"], columns="measure", values="score", dropna=False)
    p = scores.index.get_level_values("value").to_numpy()
    # 40 users: round(40 p) / 40 = p exactly for p in 0, 0.1, ..., 1.
    np.testing.assert_allclose(scores["SD-NDCG"], np.sqrt(p * (1 - p)), rtol=0, atol=1e-12)
    np.testing.assert_allclose(scores["Gini-P"][p < 1], p[p < 1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(scores["PUF-NDCG"][(p == 0) | (p == 1)], 0.0, rtol=0, atol=1e-12)
    # Histories and lists are the real ones at every share: UF cannot move.
    assert scores["UF"].nunique() == 1


def test_agreement_is_a_tau_matrix(report):
    tau = pd.read_csv(report / "toy_agreement.csv", index_col="measure")
    assert list(tau.index) == list(tau.columns)
    values = tau.to_numpy()
    finite = np.isfinite(values)
    assert (np.abs(values[finite]) <= 1 + 1e-12).all()
    np.testing.assert_allclose(values[finite], values.T[finite])
    rankers = pd.read_csv(report / "toy_rankers.csv", index_col="ranker")
    assert {"random", "mostpop", "ease"} <= set(rankers.index)


def test_real_labels_are_in_responses(report):
    labels = pd.read_csv(report / "responses.csv", keep_default_na=False)
    real = labels[labels["data"].str.startswith("toy")]
    assert set(real["sweep"]) == {"zero_relevance", "skewness"}
    got = {(r.sweep, r.measure, r.condition): r.trend for r in real.itertuples()}
    assert got["zero_relevance", "UF", ""] == "flat"
    assert got["skewness", "SD-P", "pairing = random"] == "flat"


def test_unknown_dataset_is_a_clean_error(tmp_path, capsys):
    code = main(["report", "--quick", "--quiet", "--out", str(tmp_path / "o"), "--data", "no-such-set"])
    assert code == 2
    assert "unknown dataset 'no-such-set'" in capsys.readouterr().err
