"""Sweeps, variants and bases: labels, tidy output, world reuse, artificial relevance."""

import numpy as np
import pandas as pd
import pytest

import puf
from puf import variants
from puf.reports.sweeps import Base, observed_skewness, point_population
from puf.reports.artificial_relevance import artificial_relevance
from puf.reports.sweeps import COLUMNS, SWEEPS, sweep

SMALL = Base(n_users=20, n_items=120, k=5)


@pytest.mark.parametrize(
    "spec, label, metric, panel, name",
    [
        ("SD-NDCG", "SD-NDCG", "NDCG", "SD", "sd"),
        ("sd-ndcg", "SD-NDCG", "NDCG", "SD", "sd"),
        ("Gini-P", "Gini-P", "P", "Gini", "gini"),
        ("PUF-as-printed-P", "PUF-as-printed-P", "P", "PUF-as-printed", "puf-as-printed"),
        ("uf", "UF", None, "UF", "uf"),
        ("MME", "MME", None, "Envy", "mme"),
        ("NDCG@k", "NDCG@k", "NDCG", "Effectiveness", "mean effectiveness"),
    ],
)
def test_variant_labels(spec, label, metric, panel, name):
    (v,) = variants(spec)
    assert (v.label, v.metric, v.panel, v.measure.name) == (label, metric, panel, name)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("SD", "reads effectiveness: name a metric"),
        ("UF-P", "reads no effectiveness"),
        ("nope-P", "unknown measure 'nope'"),
    ],
)
def test_bad_variant_labels(spec, message):
    with pytest.raises(ValueError, match=message):
        variants(spec)


def test_user_functions_expand_over_metrics():
    def envy_gap(utility):
        return float(np.max(utility) - np.min(utility))

    def gap(effectiveness, similarity):
        return 0.0

    assert [v.label for v in variants(envy_gap)] == ["envy_gap"]
    assert [v.label for v in variants(gap)] == ["gap-P", "gap-NDCG"]


def test_sweep_is_tidy_and_ordered():
    table = sweep(["SD-P", "UF"], parameter="gamma", values=[0.0, 1.0], seeds=[3, 4], base=SMALL)
    assert list(table.columns) == COLUMNS
    assert len(table) == 2 * 2 * 2
    assert table[["value", "seed", "measure"]].values.tolist()[:4] == [
        [0.0, 3, "SD-P"],
        [0.0, 3, "UF"],
        [0.0, 4, "SD-P"],
        [0.0, 4, "UF"],
    ]
    # SD reads no similarity: gamma leaves it alone.
    sd = table[table.measure == "SD-P"].pivot(index="seed", columns="value", values="score")
    np.testing.assert_array_equal(sd[0.0], sd[1.0])


def test_sweep_scores_equal_direct_evaluation():
    """One point by hand: the world, its population, the registry's measures."""
    table = sweep(["PUF-NDCG", "ME", "UF"], parameter="zero_relevance", values=[0.3], seeds=[7], base=SMALL)
    world = SMALL.world(zero_relevance=0.3, random_state=7)
    ndcg = world.population(metric="ndcg", similarity="jaccard")
    with_uf = world.population(metric="ndcg", similarity="uf", gamma=SMALL.gamma)
    got = dict(zip(table.measure, table.score))
    assert got["PUF-NDCG"] == pytest.approx(puf.puf(ndcg.effectiveness, ndcg.similarity), abs=1e-12)
    assert got["ME"] == pytest.approx(puf.mean_envy(ndcg.utility), abs=1e-12)
    assert got["UF"] == pytest.approx(puf.uf(with_uf.similarity, with_uf.list_distance), abs=1e-12)


def test_skewness_is_reached_and_undefined_is_nan():
    from scipy.stats import skew

    similarity = point_population(SMALL.replace(skewness=2.0), 0, {}).similarity  # what PUF-P reads
    assert skew(similarity[np.triu_indices(20, k=1)]) == pytest.approx(2.0, abs=0.05)
    table = sweep(["Gini-P"], parameter="zero_relevance", values=[1.0], seeds=[0], base=SMALL)
    assert np.isnan(table.score.iloc[0])


def test_free_mean_skewness_is_reached_by_a_power():
    from scipy.stats import skew

    jaccard = point_population(SMALL, 0, {}).similarity  # what PUF-P reads
    for target in (0.0, 4.0):
        similarity = point_population(SMALL.replace(skewness=target, skewness_mean="free"), 0, {}).similarity
        upper = np.triu_indices(20, k=1)
        assert skew(similarity[upper]) == pytest.approx(target, abs=1e-6)
        alpha = np.log(similarity[upper][jaccard[upper] > 0]) / np.log(jaccard[upper][jaccard[upper] > 0])
        assert np.ptp(alpha[np.isfinite(alpha)]) < 1e-9  # one power for every pair
    with pytest.raises(ValueError, match="skewness_mean must be 'fixed' or 'free'"):
        SMALL.replace(skewness_mean="loose")


def test_worlds_are_drawn_once_per_point():
    calls = []

    def worlds(*, zero_relevance, pairing, random_state):
        calls.append((zero_relevance, pairing, random_state))
        return SMALL.world(zero_relevance=zero_relevance, pairing=pairing, random_state=random_state)

    base, cache = SMALL.replace(worlds=worlds), {}
    sweep(["SD-P"], parameter="gamma", values=[0.0, 0.5, 1.0], seeds=[0, 1], base=base, cache=cache)
    sweep(["UF"], parameter="skewness", values=[1.0, 2.0], seeds=[0, 1], base=base, cache=cache)
    assert sorted(calls) == [(0.5, "random", 0), (0.5, "random", 1)]


def mean_log(effectiveness):
    """Undefined where a user's effectiveness is 0, as a log is; it raises there."""
    if np.any(np.asarray(effectiveness) <= 0):
        raise ValueError("math domain error")
    return -float(np.mean(np.log(effectiveness)))


def test_a_measure_is_undefined_where_it_raises_and_the_table_says_what_it_raised():
    table = sweep(["SD-P", mean_log], parameter="zero_relevance", values=[0.0, 0.5], seeds=[0, 1], base=SMALL)
    rows = table[table["measure"] == "mean_log-P"]
    assert list(rows["road"]) == ["exact", "exact", "raised", "raised"]  # value 0.0 (both seeds), then 0.5
    assert rows["score"].isna().tolist() == [False, False, True, True]
    assert set(rows.loc[rows["road"] == "raised", "reason"]) == {"ValueError: math domain error"}
    sd = table[table["measure"] == "SD-P"]
    assert set(sd["road"]) == {"exact"} and sd["score"].notna().all()


def test_a_sweep_without_a_raise_has_no_road_columns():
    assert list(sweep(["SD-P"], parameter="zero_relevance", values=[0.5], seeds=[0], base=SMALL).columns) == COLUMNS


def test_a_measure_over_its_time_limit_still_stops_the_sweep_naming_itself_and_the_point():
    def slow(effectiveness):
        raise TimeoutError("measure 'slow' timed out after 2 s")

    with pytest.raises(ValueError, match=r"slow-P failed at zero_relevance=0.5, seed 0: TimeoutError: measure 'slow'"):
        sweep([slow], parameter="zero_relevance", values=[0.5], seeds=[0], base=SMALL)


def test_a_study_takes_a_raise_as_stop_or_undefined_only():
    from puf.evaluation import variant_scores

    world = SMALL.world(zero_relevance=0.5, pairing="random", random_state=0)
    with pytest.raises(ValueError, match=r"^raised must be 'stop' or 'undefined', got 'skip'$"):
        variant_scores(world, variants("SD-P"), raised="skip")


def test_the_section_of_a_sweep_says_where_a_measure_raised(tmp_path):
    from puf.reports.sections import sweep_section

    spec = SWEEPS["zero_relevance"]
    table = spec.run(seeds=[0], base=SMALL, extra=(puf.as_measure(mean_log),), quick=True)
    section = sweep_section(tmp_path, spec, table, SMALL, [0], {}, [])
    told = " ".join(section.text.split())
    shares = ", ".join(f"{p / 10:g}" for p in range(1, 11))  # every share but 0: someone's effectiveness is 0
    assert f"mean_log-P and mean_log-NDCG raised at 10 of their 11 points each (zero_relevance = {shares})" in told
    assert "the first time ValueError: math domain error: their values there are undefined" in told


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(pairing="best"), "pairing must be one of"),
        (dict(gamma=2.0), "gamma must lie in"),
        (dict(similarity="cosine"), "similarity must be"),
        (dict(n_users=0), "n_users must be >= 1"),
        # these were a numpy TypeError, accepted (True as skewness 1), or a TypeError at the cache
        (dict(skewness="a"), "skewness must be a finite number or None, got 'a'"),
        (dict(skewness=True), "skewness must be a finite number or None, got True"),
        (dict(worlds=5), "worlds must be None or a callable"),
        (dict(world_options={"sigma": 1.0}), r"world_options must be a tuple of \(name, value\) pairs"),
    ],
)
def test_base_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Base(**kwargs)


def test_sweep_argument_errors():
    with pytest.raises(ValueError, match="unknown parameter 'k'"):
        sweep(["SD-P"], parameter="k", values=[1], seeds=[0])
    with pytest.raises(ValueError, match="at least one"):
        sweep([], parameter="gamma", values=[1.0], seeds=[0])
    for seed in (0.5, -1, True):  # 0.5 ran as seed 0
        with pytest.raises(ValueError, match=f"seeds must be integers >= 0, got {seed!r}"):
            sweep(["SD-P"], parameter="gamma", values=[1.0], seeds=[seed])


def test_artificial_relevance_exact_counts_and_identities():
    world = SMALL.world(zero_relevance=0.0, random_state=1)
    for fraction in (0.0, 0.25, 0.5, 1.0):
        relabelled = artificial_relevance(world, fraction, random_state=2)
        p = puf.precision_at_k(relabelled.rankings, relabelled.relevance)
        n = puf.ndcg_at_k(relabelled.rankings, relabelled.relevance)
        assert set(p.tolist()) <= {0.0, 1.0} and (p == 0).sum() == round(fraction * 20)
        np.testing.assert_array_equal(p, n)
        # Histories and lists are untouched.
        assert (relabelled.histories != world.histories).nnz == 0
        np.testing.assert_array_equal(relabelled.rankings, world.rankings)


def test_artificial_relevance_pairing_orders_puf():
    world = SMALL.world(zero_relevance=0.0, random_state=1)
    jaccard = world.similarity("jaccard")
    value = {}
    for mode in ("most_fair", "random", "most_unfair"):
        w = artificial_relevance(world, 0.5, pairing=mode, random_state=3)
        value[mode] = puf.puf(puf.precision_at_k(w.rankings, w.relevance), jaccard)
    assert value["most_fair"] <= value["random"] <= value["most_unfair"]


def test_builtin_sweeps_cover_the_issue():
    assert list(SWEEPS) == ["zero_relevance", "skewness", "skewness_free_mean", "pairing", "gamma"]
    assert SWEEPS["zero_relevance"].values == tuple(i / 10 for i in range(11))
    assert set(SWEEPS["zero_relevance"].measures) >= {
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
    }
    # Registry-driven: the zero-relevance sweep shows every study variant.
    assert SWEEPS["zero_relevance"].measures == tuple(v.label for v in variants())
    assert min(SWEEPS["skewness"].values) == -1.0 and max(SWEEPS["skewness"].values) == 8.0
    assert SWEEPS["gamma"].levels == (0.0, 0.25, 0.5, 0.75, 1.0)


def test_gamma_sweep_makes_puf_read_sim_uf():
    table = SWEEPS["gamma"].run(seeds=[0], base=SMALL, quick=True)
    puf_scores = table[(table.measure == "PUF-P") & (table.value == 0.5)].set_index("gamma").score
    assert puf_scores[0.0] != puf_scores[1.0]  # sim_JS versus Jaccard


def test_observed_skewness_is_the_jaccard_skewness():
    from scipy.stats import skew

    jaccard = SMALL.world(zero_relevance=0.5, random_state=0).similarity("jaccard")
    assert observed_skewness(SMALL, [0]) == pytest.approx(skew(jaccard[np.triu_indices(20, k=1)]))


@pytest.mark.parametrize("name", ["pairing", "skewness"])
def test_determinism_byte_identical_csv(tmp_path, name):
    a = SWEEPS[name].run(seeds=[0, 1], base=SMALL, quick=True)
    b = SWEEPS[name].run(seeds=[0, 1], base=SMALL, quick=True)
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert isinstance(a, pd.DataFrame)


def test_one_metric_may_be_given_alone():
    def gap(effectiveness):
        return float(max(effectiveness) - min(effectiveness))

    # a bare "NDCG" was read as the metrics "N", "D", "C", "G" and refused
    assert [v.label for v in variants(gap, metrics="NDCG")] == ["gap-NDCG"]
    assert variants(gap, metrics="NDCG") == variants(gap, metrics=("NDCG",))


def test_the_reading_of_a_measure_undefined_everywhere_says_so_not_that_it_did_not_run():
    from puf.reports.findings import findings

    columns = ["data", "sweep", "figure", "measure", "condition", "trend", "change"]
    rows = [("synthetic", "zero_relevance", "zero_relevance", "mine-NDCG", "", "undefined", 0.0)]
    rows += [
        ("synthetic", "skewness", "skewness", "mine-NDCG", f"pairing = {p}", "undefined", float("nan"))
        for p in ("random", "most_fair")
    ]
    contrasts = pd.DataFrame(
        [("synthetic", "skewness", "skewness", "mine-NDCG", "undefined", float("nan"), 0, 0)],
        columns=["data", "sweep", "figure", "measure", "verdict", "gap", "above", "points"],
    )
    (finding,) = [
        f
        for f in findings(pd.DataFrame(rows, columns=columns), contrasts, {}, yours=["mine"])
        if f.claim == "your measure mine"
    ]
    assert finding.sentence == (
        "Zero-relevance sweep: mine-NDCG is undefined, change 0; undefined along the skewness sweeps; "
        "most unfair against most fair pairing on the skewness sweep: undefined (no point where both are defined)."
    )
    # a sweep with points where both pairings are defined is the one quoted, whichever comes first
    defined = pd.concat([contrasts, contrasts.assign(sweep="pairing", verdict="no difference", gap=0.0, points=1)])
    quoted = findings(pd.DataFrame(rows, columns=columns), defined, {}, yours=["mine"])[-1].sentence
    assert quoted.endswith(
        "most unfair against most fair pairing on the pairing sweep: no difference at 0 of 1 points."
    )
    alone = findings(pd.DataFrame(rows[:1], columns=columns), contrasts.iloc[:0], {}, yours=["mine"])
    assert "not run on the skewness sweeps; not in a pairing sweep" in alone[-1].sentence
    # undefined on the pairing sweep but defined on the skewness one: that one is quoted, by name
    other = defined.assign(points=[3, 0], above=[3, 0], verdict=["unfair above", "undefined"])
    quoted = findings(pd.DataFrame(rows, columns=columns), other, {}, yours=["mine"])[-1].sentence
    assert quoted.endswith(
        "most unfair against most fair pairing on the skewness sweep: unfair above at 3 of 3 points."
    )
    # defined at two points of eleven: flat over those, and the reading says where it was not
    mostly = pd.DataFrame([(*rows[0][:5], "flat", 0.0)], columns=columns).assign(
        undefined_at="10%, 20%, 30%, 40%, 50%, 60%, 70%, 80%, 90%"
    )
    assert findings(mostly, contrasts.iloc[:0], {}, yours=["mine"])[-1].sentence.startswith(
        "Zero-relevance sweep: mine-NDCG is flat, change 0 (undefined at 9 points: 10%, ..., 90%; read over the rest);"
    )


def test_puf_and_a_users_copy_of_puf_are_read_on_the_same_pairing_sweep():
    """The opening's PUF sentence reads the pairing sweep; a user's measure is read on that sweep
    too (it read the one with the most points, listed first: another sweep than PUF's)."""
    from puf.reports.findings import findings

    columns = ["data", "sweep", "figure", "measure", "verdict", "gap", "above", "points"]
    contrasts = pd.DataFrame(
        [
            ("synthetic", sweep, sweep, name, "unfair above", 0.1, above, 5)
            for name in ("PUF-NDCG", "copy-NDCG")
            for sweep, above in (("skewness", 5), ("pairing", 3))
        ],
        columns=columns,
    )
    responses = pd.DataFrame(
        [("synthetic", "zero_relevance", "zero_relevance", n, "", "rising", 0.3) for n in ("PUF-NDCG", "copy-NDCG")],
        columns=["data", "sweep", "figure", "measure", "condition", "trend", "change"],
    )
    found = {f.claim: f.sentence for f in findings(responses, contrasts, {}, yours=["copy"])}
    assert "On the pairing sweep PUF-NDCG scores the most unfair pairing higher at 3 of 5 points" in " ".join(
        found.values()
    )
    assert found["your measure copy"].endswith("pairing on the pairing sweep: unfair above at 3 of 5 points.")
