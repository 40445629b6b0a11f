"""``puf report --data --max-pairs N --sample N``: the real-data tables at any size, on a small dataset.

40 users have 780 pairs: ``--max-pairs 779`` puts them over the limit, ``--max-pairs 780`` not.
To stay quick, the synthetic sweeps are left out (their m is small: the options do not reach them),
the property verdicts and the power section are stubbed and no PNG is drawn (test_reports_real.py
checks those); the real-data tables are computed for real, on three rankers.
"""

import pandas as pd
import pytest

import puf.reports.figures
import puf.reports.power
import puf.reports.report as report_module
import puf.reports.sweeps as sweeps_module
from puf.cli import main

PAIRS = 40 * 39 // 2  # the toy files' 40 users (tests/conftest.py)


class _RealOnly(dict):
    """SWEEPS as the real-data sections read them (by name), with no synthetic sweep to run."""

    def values(self):
        return []


def _blank(path):
    path.write_bytes(b"")
    return path


@pytest.fixture(scope="module")
def run_report(toy, stub_verdicts, tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    made = {}

    def run(*options):
        if options not in made:
            out = tmp_path_factory.mktemp("report") / "out"
            patch = pytest.MonkeyPatch()
            stub_verdicts(patch)
            patch.setattr(report_module, "REAL_RANKERS", "random,mostpop,ease")
            patch.setattr(sweeps_module, "SWEEPS", _RealOnly(sweeps_module.SWEEPS))
            patch.setattr(puf.reports.figures, "save_figure", lambda figure, path, **_: _blank(path))
            patch.setattr(puf.reports.power, "power_section", lambda out, **_: None)
            patch.setenv("PUF_HARNESS_CACHE", str(cache))
            try:
                args = ["report", "--quick", "--quiet", "--workers", "1", "--out", str(out), "--data", str(toy)]
                assert main([*args, *options]) == 0
            finally:
                patch.undo()
            made[options] = out
        return made[options]

    return run


REAL_FILES = ("toy_rankers.csv", "toy_agreement.csv", "toy_zero_relevance.csv", "toy_skewness.csv", "responses.csv")


def test_max_pairs_at_or_above_the_pair_count_changes_nothing(run_report):
    plain, limited = run_report(), run_report("--max-pairs", str(PAIRS))
    for name in REAL_FILES:
        assert (plain / name).read_bytes() == (limited / name).read_bytes(), name
    before = set((plain / "report.md").read_text(encoding="utf-8").splitlines())
    new = [line for line in (limited / "report.md").read_text(encoding="utf-8").splitlines() if line not in before]
    assert all("--max-pairs" in line or "user pairs" in line for line in new), new  # the provenance alone
    assert not (limited / "toy_skipped.csv").exists() and not (limited / "toy_estimates.csv").exists()


def test_max_pairs_below_the_pair_count_lists_the_skipped_measures_with_reasons(run_report):
    plain, out = run_report(), run_report("--max-pairs", str(PAIRS - 1))
    skipped = pd.read_csv(out / "toy_skipped.csv")
    assert {"PUF-P", "PUF-NDCG", "UF", "Inconsistency-P"} <= set(skipped.measure)
    assert skipped.reason.str.contains(f"{PAIRS} user pairs, more than max_pairs = {PAIRS - 1}").all()
    rankers, full = pd.read_csv(out / "toy_rankers.csv", index_col="ranker"), pd.read_csv(plain / "toy_rankers.csv")
    assert set(rankers.columns) == set(full.columns) - {"ranker"} - set(skipped.measure)
    sweep = pd.read_csv(out / "toy_zero_relevance.csv", keep_default_na=False)
    assert {"road", "ci_low", "ci_high", "reason"} <= set(sweep.columns)
    rows = sweep[sweep.measure == "PUF-P"]
    assert (rows.road == "skipped").all() and (rows.score == "").all()
    assert rows.reason.str.contains("--sample N").all()
    assert set(sweep.loc[sweep.measure == "SD-P", "road"]) == {"exact"}
    page = (out / "report.md").read_text(encoding="utf-8")
    assert f"Skipped at this size: PUF-P (its exact road reads all {PAIRS} user pairs" in page
    assert "Skipped at 40 users (not drawn, no label): " in page
    assert "| UF | skipped | skipped |" in page  # a row in the sweep's label table, not a gap
    assert "--max-pairs 779" in (out / "settings.json").read_text()
    labels = pd.read_csv(out / "responses.csv", keep_default_na=False)
    assert "PUF-P" not in set(labels.loc[labels.data.str.startswith("toy"), "measure"])


def test_sample_gives_the_skipped_pair_measures_estimates_with_intervals(run_report):
    out = run_report("--max-pairs", str(PAIRS - 1), "--sample", "3000")
    estimates = pd.read_csv(out / "toy_estimates.csv")
    assert {"PUF-P", "PUF-NDCG", "UF"} <= set(estimates.measure)
    assert (estimates.pairs == 3000).all()
    assert (estimates.ci_low <= estimates.value).all() and (estimates.value <= estimates.ci_high).all()
    assert set(pd.read_csv(out / "toy_skipped.csv").measure) == {"Inconsistency-P", "Inconsistency-NDCG"}
    sweep = pd.read_csv(out / "toy_zero_relevance.csv")
    rows = sweep[sweep.measure == "PUF-NDCG"]
    assert (rows.road == "sampled").all() and (rows.ci_low <= rows.score).all() and (rows.score <= rows.ci_high).all()
    page = (out / "report.md").read_text(encoding="utf-8")
    assert "PUF-P (sampled)" in page and "95% interval" in page
    assert "Estimated from 3,000 drawn user pairs per point" in page
    assert "Skipped at this size: Inconsistency-P" in page
    assert "The sampled measures (MD-P, MD-NDCG, PUF-P" in page  # the agreement section says what it reads


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--max-pairs", "0.5", "--max-pairs must be a whole number of pairs >= 1 such as 1e9, got '0.5'"),
        ("--max-pairs", "many", "--max-pairs must be a whole number of pairs >= 1 such as 1e9, got 'many'"),
        ("--sample", "1", "--sample must be >= 2 pairs, got 1"),
    ],
)
def test_bad_pair_options_are_refused_before_any_work(tmp_path, capsys, option, value, message):
    out = tmp_path / "never-made"
    assert main(["report", "--quick", "--quiet", "--out", str(out), "--data", "no-such-set", option, value]) == 2
    assert message in capsys.readouterr().err  # before the dataset is even looked at
    assert not out.exists()


@pytest.mark.parametrize("option, value", [("--max-pairs", "1e9"), ("--sample", "1000")])
def test_pair_options_without_data_are_refused(tmp_path, capsys, option, value):
    assert main(["report", "--quick", "--quiet", "--out", str(tmp_path / "o"), option, value]) == 2
    assert "--max-pairs and --sample need --data" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_build_report_refuses_bad_pair_limits_naming_them(tmp_path):
    from puf.evaluation import Study
    from puf.reports.report import build_report

    with pytest.raises(ValueError, match="max_pairs"):
        build_report(tmp_path, quick=True, data="ml-100k", study=Study(max_pairs=0))
    with pytest.raises(ValueError, match="sample must be >= 2 pairs, got 1"):
        build_report(tmp_path, quick=True, data="ml-100k", study=Study(sample=1))


def test_the_worlds_of_a_sweep_share_one_sampled_uf(monkeypatch):
    """Worlds differing in relevance alone draw UF's pairs once: UF reads histories and lists only."""
    import puf
    import puf.engines
    from puf.reports.sweeps import Base, point_results

    calls, real = [], puf.engines.sample_uf
    monkeypatch.setattr(puf.engines, "sample_uf", lambda *args, **options: calls.append(1) or real(*args, **options))
    base, cache = Base(n_users=20, n_items=100, k=5, sample=500), {}
    found = [point_results(base.replace(zero_relevance=p), 0, puf.variants("UF"), cache) for p in (0.0, 0.5, 1.0)]
    assert len(calls) == 1
    assert len({f.values["world"][0] for f in found}) == 1
    assert {f.estimates["world"]["UF"].n_pairs for f in found} == {500}
    point_results(base, 1, puf.variants("UF"), cache)  # another seed: other pairs
    assert len(calls) == 2
