"""The flaw corpus, the power table, the bisection search and ``puf power``."""

import math

import numpy as np
import pytest

from puf.properties import CATALOG, STATUSES, verdicts
from puf.properties.cases.case import distance
from puf.properties.running.search import narrow_jump
from puf.properties.knowledge.corpus import CONTROLS, CORPUS, FLAWED, get_entry
from puf.properties.knowledge.power import detection_rate, power_runs, power_summary
from puf import Population
from puf.cli import main


def test_the_corpus_covers_every_property_with_enough_flaws_and_controls():
    assert len(FLAWED) >= 50 and len(CONTROLS) >= 10
    covered = {p for entry in FLAWED for p in entry["expected"]}
    assert covered == set(CATALOG)
    for entry in CORPUS.values():
        assert set(entry["expected"]) <= set(CATALOG), entry["name"]
        assert set(entry["expected"].values()) <= set(STATUSES), entry["name"]
        if entry["control"]:
            assert list(entry["expected"]) == list(CATALOG), entry["name"]
        else:
            assert entry["flaw"] and entry["expected"], entry["name"]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_corpus_measure_returns_a_number_on_a_plain_population(name):
    entry = get_entry(name)
    if {"utility", "list_distance"} & set(entry["measure"].reads):
        pop = Population(
            [0.2, 0.6, 0.9],
            np.full((3, 3), 0.3),
            utility=np.full((3, 3), 0.4),
            list_distance=np.ones((3, 3)) - np.eye(3),
        )
    else:
        pop = Population([0.2, 0.6, 0.9], [[1, 0.3, 0.6], [0.3, 1, 0.2], [0.6, 0.2, 1]])
    value = entry["measure"](**pop.fields())
    assert isinstance(float(value), float)


# One planted flaw per family and hard kind (threshold, m >= 5, special value, large gaps),
# and two controls: run in CI at a small budget.
SUBSET = [
    "puf-over-m",
    "puf-similarity-cutoff",
    "puf-gap-outliers",
    "puf-nan-at-seven-users",
    "deviation-from-first-four",
    "puf-duplicates-dropped",
    "half-minus-sd",
    "sd-ddof1",
    "gini-epsilon",
    "mean-pair-gap",
    "puf-sorted-effectiveness",
]


@pytest.fixture(scope="module")
def subset_runs():
    return power_runs(check=verdicts, budgets=[30], seeds=[0], names=SUBSET + ["sd-by-hand", "puf-double-loop"])


def test_the_search_finds_the_subsets_planted_flaws_at_a_small_budget(subset_runs):
    planted = subset_runs[~subset_runs["control"]]
    missed = planted[planted["found"] != planted["expected"]]
    assert detection_rate(subset_runs) >= 0.9, missed[["measure", "property", "found"]].to_string()


def test_no_false_alarm_on_the_controls(subset_runs):
    table = power_summary(subset_runs)
    controls = subset_runs[subset_runs["control"] & (subset_runs["expected"] == "holds")]
    assert len(controls) > 10
    assert float(table.loc["false alarms", 30]) == 0.0, controls[controls["found"] != "holds"]


def test_bisection_finds_a_jump_at_an_odd_threshold_and_no_jump_in_a_lipschitz_measure():
    def cut(pop):
        return float(pop.similarity[0, 1] >= 0.4137)

    def smooth(pop):
        return 3.0 * float(pop.similarity[0, 1])

    start = Population([0.0, 1.0], [[1, 0.05], [0.05, 1]])
    end = Population([0.0, 1.0], [[1, 0.95], [0.95, 1]])
    low, high, f_low, f_high = narrow_jump(cut, start, end)
    assert abs(f_high - f_low) == 1.0 and distance(low, high) < 1e-6
    assert low.similarity[0, 1] <= 0.4137 <= high.similarity[0, 1]
    low, high, f_low, f_high = narrow_jump(smooth, start, end)
    assert abs(f_high - f_low) / distance(low, high) == pytest.approx(3.0, rel=1e-6)


def test_bisection_skips_undefined_points():
    def undefined_at_ends(pop):
        x = float(pop.effectiveness[0])
        return math.nan if x in (0.0, 1.0) else x

    start, end = Population([0.0, 0.5], np.eye(2)), Population([1.0, 0.5], np.eye(2))
    low, high, f_low, f_high = narrow_jump(undefined_at_ends, start, end)
    assert math.isfinite(f_low) and math.isfinite(f_high)


def test_a_holds_verdict_says_sizes_and_examples():
    # proofs="none": the search's own verdict (a rule proves SD's anonymity for every m)
    (v,) = verdicts("sd", properties=["anonymity"], max_examples=20, random_state=0, proofs="none")
    assert v.status == "holds" and v.sizes and "examples (m = " in v.reason


def test_puf_power_prints_the_table(capsys):
    assert (
        main(
            [
                "power",
                "--budgets",
                "5",
                "--seeds",
                "1",
                "--measure",
                "sd-times-three",
                "--measure",
                "sd-by-hand",
                "--quiet",
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "range" in out and "false alarms" in out and "overall" in out


def test_puf_power_rejects_bad_options(capsys):
    assert main(["power", "--budgets", "0"]) == 2
    assert main(["power", "--measure", "no-such-entry"]) == 2
    assert "unknown corpus entry" in capsys.readouterr().err


def test_power_runs_skips_done_runs_and_reports_each_run_as_it_finishes():
    seen = []
    runs = power_runs(
        check=verdicts,
        plan=[("sd-times-three", 3, 0), ("sd-times-three", 3, 1), ("puf-over-m", 3, 0)],
        skip=[("sd-times-three", 3, 1)],
        on_run=seen.append,
        properties=["range"],
    )
    assert sorted({(r["measure"], r["seed"]) for rows in seen for r in rows}) == [
        ("puf-over-m", 0),
        ("sd-times-three", 0),
    ]
    assert set(runs["property"]) == {"range"} and len(runs) == sum(len(rows) for rows in seen)


def test_the_benchmark_appends_runs_and_resumes_without_repeating_them(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "power.py"
    spec = importlib.util.spec_from_file_location("power_benchmark", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "runs.csv"
    argv = [
        "--budgets",
        "3",
        "--seeds",
        "2",
        "--jobs",
        "1",
        "--names",
        "sd-times-three,puf-over-m",
        "--csv",
        str(out),
        "--quiet",
    ]
    bench.main(argv)
    first = out.read_text()
    bench.main(argv)  # everything already there: nothing runs, nothing is appended
    assert out.read_text() == first and "4 runs planned, 4 already in" in capsys.readouterr().err
    runs = bench.read_runs([out])
    assert len(runs.drop_duplicates(["measure", "seed"])) == 4 and runs["load1"].notna().all()
    assert bench.coverage(runs)["3"]["partial_seeds"]["0"] == ["puf-over-m", "sd-times-three"]


def test_a_pairing_blind_measure_fails_rearrangement_on_the_first_example():
    for name in ["mean-pair-gap", "sd-times-mean-similarity", "puf-sorted-effectiveness"]:
        for seed in range(3):
            (v,) = verdicts(
                get_entry(name)["measure"], properties=["rearrangement"], max_examples=1, random_state=seed, known=False
            )
            assert v.status == "violated", (name, seed, v.reason)
    (v,) = verdicts("puf", properties=["rearrangement"], max_examples=5, known=False)
    assert v.status == "holds"


def test_a_threshold_count_of_envy_gets_its_effectiveness_witness():
    # Seed 3 drew no witness for PEU's control in 60 examples before the regraded alternatives.
    (v,) = verdicts(
        get_entry("envious-share")["measure"],
        properties=["effectiveness-sensitive"],
        max_examples=60,
        random_state=3,
        known=False,
    )
    assert v.status == "holds", v.reason


def test_the_benchmark_records_a_command_a_reader_can_rerun(tmp_path):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "power.py"
    spec = importlib.util.spec_from_file_location("power_benchmark", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    inside = str(bench.ROOT / "benchmarks" / "power_runs" / "search.csv")
    assert bench.command_line(["--from-csv", inside, "--write"]) == (
        "python benchmarks/power.py --from-csv benchmarks/power_runs/search.csv --write"
    )
    with pytest.raises(SystemExit):  # a file outside the repository cannot be named for a rerun
        bench.main(["--from-csv", str(tmp_path / "runs.csv"), "--write"])


def test_false_alarms_are_counted_per_property():
    import pandas as pd

    from puf.properties.knowledge.power import false_alarms_by_property

    runs = pd.DataFrame(
        {
            "control": [True, True, True, False],
            "property": ["deterministic", "deterministic", "attainable-range", "range"],
            "budget": [60] * 4,
            "expected": ["holds", "holds", "violated", "violated"],
            "found": ["violated", "holds", "holds", "holds"],
        }
    )
    assert false_alarms_by_property(runs)[60].to_dict() == {"deterministic": 0.5}  # only true holds cells count
