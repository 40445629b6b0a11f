"""Build the sensitivity report: run the sweeps and the property catalog, write every file.

:func:`build_report` is what ``puf report`` runs: the built-in sweeps of
:data:`reports.sweeps.SWEEPS` on synthetic worlds (plus the zero-relevance and
skewness sweeps and the measure-agreement study on a real dataset with
``data=``), their response labels, one PNG per figure, one CSV per sweep,
``responses.csv``, ``properties.json`` (every verdict with its counterexample),
``settings.json``, and ``index.html`` / ``report.md``.
"""

__all__ = ["SETTINGS", "build_report", "sweep_extra"]

SETTINGS = {
    # Sizes chosen to meet the time budgets on 2 cores (quick < 60 s, full < 5 min).
    "quick": {"n_users": 100, "n_items": 600, "n_seeds": 2, "max_examples": 10},
    "full": {"n_users": 200, "n_items": 1000, "n_seeds": 5, "max_examples": 60},
}


def build_report(out, *, quick=False, extra=(), random_state=0, data=None, progress=False,
                 command="puf report"):
    """Run everything and write the report into the existing directory ``out``.

    Parameters
    ----------
    out : pathlib.Path
        Output directory (created by the caller; files in it are overwritten).
    quick : bool
        Use ``SETTINGS["quick"]`` instead of ``SETTINGS["full"]``.
    extra : sequence of puf.Measure
        User measures, added to every sweep and to the verdict matrix.
    random_state : int
        Seeds ``random_state, random_state + 1, ...`` and the property search.
    data : str, optional
        A real dataset name (adds the real-data sections).
    progress : bool
        One tqdm bar per stage (real data with ``data=``, sweeps, property verdicts),
        each named ``[i/n]`` with its own remaining time.

    Returns
    -------
    pathlib.Path
        The written ``index.html``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> # Skipped in the doctest run: a quick report takes tens of seconds.
    >>> build_report(out, quick=True).name  # doctest: +SKIP
    'index.html'
    """
    import json

    import pandas as pd
    import properties

    from reports.render import render_html, render_markdown
    from reports.sweeps import SWEEPS, Base
    from reports.verdicts import plain_reasons, run_verdicts, verdict_document

    setting = SETTINGS["quick" if quick else "full"]
    seeds = [random_state + i for i in range(setting["n_seeds"])]
    base = Base(n_users=setting["n_users"], n_items=setting["n_items"])
    measures = _matrix_measures(extra)
    n_stages, stage = (3, 2) if data else (2, 1)
    real = None
    if data:  # first, so that a bad name or a failed download stops the run at once
        with _stage(progress, 1, n_stages, f"real data {data}: load, rankers", 1, "step") as bar:
            real = _real_data(data, random_state=random_state)
            bar.update(1)
    cache, sections, labels = {}, [], []
    worlds = sum(s.n_worlds(quick=quick, n_seeds=len(seeds)) for s in SWEEPS.values())
    if real is not None:
        worlds += sum(SWEEPS[n].n_worlds(quick=quick, n_seeds=len(seeds)) for n in _REAL_SWEEPS)
    with _stage(progress, stage, n_stages, "sweeps", worlds, "world") as bar:
        for spec in SWEEPS.values():
            bar.set_postfix_str(spec.name)
            table = spec.run(seeds=seeds, base=base, extra=sweep_extra(spec, extra), quick=quick,
                             cache=cache, progress=bar)
            sections.append(_sweep_section(out, spec, table, base, seeds, cache, labels))
        if real is not None:
            sections += _real_sections(out, real, seeds, extra, quick, bar, labels, cache)
    checks = len(measures) * len(properties.CATALOG)
    with _stage(progress, n_stages, n_stages, "property verdicts", checks, "check") as bar:
        records = run_verdicts(measures, max_examples=setting["max_examples"],
                               random_state=random_state, bar=bar)
    note = _verdict_note(setting["max_examples"], random_state, quick)
    all_labels = pd.concat(labels, ignore_index=True)
    all_labels.to_csv(out / "responses.csv", index=False)
    (out / "properties.json").write_text(json.dumps(
        verdict_document(records, note), indent=2, ensure_ascii=False) + "\n")
    provenance = _provenance(quick, setting, seeds, random_state, base, extra, data, command)
    (out / "settings.json").write_text(json.dumps(provenance, indent=2, ensure_ascii=False) + "\n")
    reasons = plain_reasons(records)
    verdicts = pd.DataFrame([{"measure": r["measure"], "property": r["property"], "verdict": r["status"],
                              "reason": reasons[r["measure"], r["property"]], "detail": r["reason"]}
                             for r in records])
    # Sections shown right after the verdict matrix (e.g. what a "holds" is worth).
    after_verdicts = []
    pages = dict(title="puf-harness sensitivity report", provenance=provenance, sections=sections,
                 verdicts=verdicts, verdict_note=note, notes=[_RESPONSE_NOTE],
                 statements={name: p.statement for name, p in properties.CATALOG.items()},
                 caveat=_QUICK_CAVEAT.format(n=setting["max_examples"]) if quick else "",
                 after_verdicts=after_verdicts)
    (out / "index.html").write_text(render_html(**pages, folder=out), encoding="utf-8")
    (out / "report.md").write_text(render_markdown(**pages), encoding="utf-8")
    return out / "index.html"


def _stage(progress, number, count, name, total, unit):
    """The tqdm bar of one stage, ``[number/count] name``: each stage has its own honest ETA."""
    from tqdm.auto import tqdm

    # smoothing=0: the rate is the average since the stage began (its checks are shuffled, so
    # that average holds), not the last few steps, which jump between cheap and costly checks.
    return tqdm(total=total, desc=f"[{number}/{count}] {name}", unit=unit, disable=not progress,
                smoothing=0)


def sweep_extra(spec, extra=()):
    """Measures added to a built-in sweep: registered measures it does not list, then ``extra``.

    The zero-relevance and both skewness sweeps run every registered measure (a new
    built-in drops in with no code here), except the printed forms (``*-as-printed``,
    2 × another measure); the pairing and γ sweeps keep their own list.

    Examples
    --------
    >>> from reports.sweeps import SWEEPS
    >>> [m.name for m in sweep_extra(SWEEPS["pairing"])]
    []
    """
    from puf import MEASURES
    from reports.variants import variants

    if spec.name not in ("zero_relevance", "skewness", "skewness_free_mean"):
        return tuple(extra)
    listed = {v.measure.name for label in spec.measures for v in variants(label)}
    missing = [m for name, m in MEASURES.items() if name not in listed and not name.endswith("-as-printed")]
    return tuple(missing) + tuple(extra)


def _verdict_note(max_examples, random_state, quick):
    return (f"Verdicts of the property catalog (properties.verdicts, as in `puf check --all`): up to "
            f"{max_examples} Hypothesis examples per property, random_state={random_state}"
            f"{' (--quick: a small search)' if quick else ''}. Hover a property for its statement "
            "and a cell for its reason in plain language; properties.json holds every counterexample.")


_QUICK_CAVEAT = ("Made with --quick: smaller worlds, 2 seeds and a small property search (up to {n} "
                 "examples per property). A violated cell is shown by its counterexample whatever "
                 "the search size; a holds cell means only that {n} examples found none. Run "
                 "`puf report` without --quick for the full search.")


_TEXT = {
    "zero_relevance": "A share p of users gets lists with no relevant item, the rest fully relevant "
                      "lists. Known values: SD = √(p(1 − p)), Gini = p (undefined at p = 100%), "
                      "PUF = 0 at p = 0 and 1.",
    "skewness": "Skewness at a FIXED mean: the base world's similarities (Jaccard for PUF, sim_UF "
                "for UF) are mapped by rank onto distributions of growing skewness at their observed "
                "mean (synthetic.reshape_skewness); effectiveness and lists stay fixed. Which users "
                "have zero relevance (half of them) is random, or chosen so that similar users have "
                "equal (most_fair) or unequal (most_unfair) effectiveness. The dashed line is the base "
                "worlds' own skewness of what the panel reads (Jaccard, or sim_UF in the UF panel). "
                "Under random pairing PUF is flat here, and should be: "
                "when effectiveness is assigned independently of similarity, E[PUF] = mean(sim) · "
                "E|S(u) − S(v)|, which a reshaping at a fixed mean leaves unchanged; PUF moves only "
                "where effectiveness follows similarity (most_fair, most_unfair). The free-mean "
                "skewness sweep (synthetic worlds) lets the mean move.",
    "skewness_free_mean": "Skewness with the mean FREE: the same similarities raised to a power, "
                          "sim' = sim ** α, α > 0 solved so that the off-diagonal skewness hits each "
                          "value (synthetic.power_skewness): the order of the pairs is kept, 0 and 1 "
                          "stay fixed, and the mean falls as the skewness rises (most pairs become "
                          "less similar). Here PUF falls as the skewness rises under every pairing, "
                          "random included, where E[PUF] = mean(sim) · E|S(u) − S(v)| falls with the "
                          "mean; SD reads no similarity and stays flat. Panels whose values span a "
                          "factor of 10 or more have a log scale, so the pairings stay apart as PUF "
                          "falls towards 0. The sweep starts at skewness 0: powers of sparse "
                          "similarities cannot reliably reach negative skewness (the lower limit is "
                          "the skewness of a 0/1 sample). The dashed line is the base worlds' own "
                          "skewness of what the panel reads.",
    "pairing": "The zero-relevance users chosen most fairly (similar users get equal "
               "effectiveness) and most unfairly (similar users get unequal effectiveness), by "
               "synthetic.pair on Jaccard, across the zero-relevance share.",
    "gamma": "sim_UF = γ·Jaccard + (1 − γ)·sim_JS(item features), read by UF and (here) by PUF, "
             "across the zero-relevance share. The bold line is the default γ = 0.5 used everywhere "
             "else in this report (the CSV names the column gamma).",
}
_EXPECTED = {1: "a measure should rise with it", -1: "a measure should fall with it",
             0: "either direction counts"}
_RESPONSE_NOTE = (
    "How the tables read. shape: the mean curve over seeds against the x axis, in words (rises, falls, "
    "peaks at, V-shaped, flat, irregular; a step within the flatness tolerance is no step). label: "
    "the same curve against the sweep's driver: flat when its total change (max − min) is within "
    "max(1e-9, 2% of its largest magnitude); otherwise responds (|Spearman ρ| ≥ 0.8 in the expected "
    "direction), wrong direction, or non-monotone. A curve that takes one value at tied driver values "
    "(p and 1 − p plant the same p(1 − p)) is ranked once per tie, so an exact function of the "
    "driver has ρ = ±1; undefined points (NaN) are left out and named in shape. Drivers: the planted "
    "disparity p(1 − p) for a zero-relevance share (expected to rise with it), the skewness itself "
    "(either direction). In sweeps crossed with the pairing, the row 'unfair − fair' compares the two "
    "pairings: change is the mean of most_unfair − most_fair and ρ the share of points where "
    "most_unfair is higher.")
_REAL_SWEEPS = ("zero_relevance", "skewness")


def _matrix_measures(extra):
    from puf import MEASURES

    return list(MEASURES.values()) + list(extra)


def _family(label):
    """The family a measure label is drawn with: the measure's ``family`` metadata when it has one.

    Without metadata, a built-in keeps its own group (SD, Gini, Envy, UF, PUF) and every
    user measure goes into one group.
    """
    from reports.variants import variants

    label = label.split(" = ")[0]  # a merged "SD-P = SD-NDCG"
    try:
        variant = variants(label)[0]
    except ValueError:  # a user's measure, labelled NAME-METRIC
        return "your measures"
    family = getattr(variant.measure, "family", None)
    if family:
        return str(family)
    from puf import MEASURES

    builtin = variant.measure.name in MEASURES or variant.family == "Effectiveness"
    return variant.family if builtin else "your measures"


def _families(table):
    return {label: _family(label) for label in table["measure"].unique()}


def _merge_rows(responses, merged):
    """Response rows of a merged pair (SD-P = SD-NDCG) shown once, under the merged name."""
    rename = {name.split(" = ")[0]: name for name in merged}
    twins = {name.split(" = ")[1] for name in merged}
    shown = responses[~responses["measure"].isin(twins)].copy()
    shown["measure"] = shown["measure"].replace(rename)
    return shown


def _skewness_markers(spec, base, seeds, cache):
    """Per panel: the base worlds' observed skewness of the similarity that panel reads."""
    import numpy as np

    from scipy.stats import skew

    from reports.bases import _blend, _world_fields

    jaccard, blend = [], []
    for seed in seeds:
        fields = _world_fields(base, seed, cache)
        upper = np.triu_indices_from(fields["jaccard"], k=1)
        jaccard.append(skew(fields["jaccard"][upper]))
        blend.append(skew(_blend(fields["jaccard"], fields["js"], base.gamma)[upper]))
    j, b = float(np.mean(jaccard)), float(np.mean(blend))
    return {"UF": (b, f"observed sim_UF skewness ({b:.2f}), UF panel"),
            "*": (j, f"observed Jaccard skewness ({j:.2f})")}


def _jaccard_mean(base, seeds, cache):
    import numpy as np

    from reports.bases import _world_fields

    values = []
    for seed in seeds:
        jaccard = _world_fields(base, seed, cache)["jaccard"]
        values.append(jaccard[np.triu_indices_from(jaccard, k=1)].mean())
    return float(np.mean(values))


def _fixed_mean_text(table, base, seeds, cache):
    """Why the fair and unfair PUF curves turn near one skewness, and where UF is undefined."""
    import numpy as np

    mu = _jaccard_mean(base, seeds, cache)
    bound = (1 - 2 * mu) / np.sqrt(mu * (1 - mu))
    text = (f" The most_fair and most_unfair PUF curves turn (V-shaped, or peaked) near skewness "
            f"{bound:.1f}: that is the skewness of a 0/1 sample with the Jaccard mean μ = {mu:.3f}, "
            f"(1 − 2μ)/√(μ(1 − μ)), where a reshaping at this mean puts a few pairs at 1 and every "
            "other pair at 0. Up to there, more skewness moves similarity onto the most similar "
            "pairs, which the pairing made equal (most_fair) or unequal (most_unfair); past it, a "
            "higher skewness can only come from a thinner top tail, with every other pair lifted "
            "towards the mean, so similarity follows the pairing less and both curves return "
            "towards the random one.")
    uf = table[table["measure"] == "UF"].groupby("value")["score"].mean()
    undefined = [f"{x:g}" for x, v in uf.items() if not np.isfinite(v)]
    if undefined:
        text += (f" UF is undefined (NaN, the cross in its panel) at skewness {', '.join(undefined)}: "
                 "a left-skewed sample has a short upper tail, and no pair reaches UF's threshold "
                 "mean + SD of sim_UF, so its pair set U* is empty; UF's label is read over its "
                 "defined points only.")
    return text


def _sweep_section(out, spec, table, base, seeds, cache, labels, *, key=None, title=None, text=None):
    from reports.figures import merge_identical, plot_sweep, save_figure
    from reports.render import Section
    from reports.response import sweep_responses

    key = key or spec.name
    table.to_csv(out / f"{key}.csv", index=False)
    responses = sweep_responses(spec, table)
    responses.insert(0, "data", base.name)
    labels.append(responses)
    drawn, merged = merge_identical(table)
    text = text or _TEXT[spec.name]
    if merged:
        text += (f" P and NDCG coincide here ({', '.join(merged)}: one line, one table row): every "
                 "list is fully relevant or holds no relevant item, so each user's P@k and NDCG@k "
                 "are both 1 or both 0.")
    if spec.name == "skewness":
        text += _fixed_mean_text(table, base, seeds, cache)
    if spec.parameter == "skewness":
        text += (" Measures that read no similarity are here for contrast: they can only be flat "
                 "along this axis (their level may differ by pairing).")
    marker = _skewness_markers(spec, base, seeds, cache) if spec.parameter == "skewness" else None
    xlabel = {"zero_relevance": "share of users with zero relevance",
              "skewness": "skewness of the similarity distribution"}[spec.parameter]
    fig = plot_sweep(drawn, title=title or spec.title, xlabel=xlabel, families=_families(drawn),
                     hue=spec.cross, percent=spec.parameter == "zero_relevance", marker=marker,
                     default=base.gamma if spec.cross == "gamma" else None,
                     logy=spec.name == "skewness_free_mean", ncols=4 if drawn["measure"].nunique() > 9 else 3)
    figure = save_figure(fig, out / f"{key}.png")
    columns = ["measure"] + (["condition"] if spec.cross else []) + ["shape", "label", "rho", "change"]
    shown = _merge_rows(responses, merged)[columns].round({"rho": 3, "change": 4})
    order = {m: i for i, m in enumerate(dict.fromkeys(shown["measure"]))}  # a measure's rows together
    shown = shown.sort_values("measure", key=lambda c: c.map(order), kind="stable")
    shown = shown.rename(columns={"shape": "curve against x", "label": "against the driver", "rho": "ρ"})
    driver = (f"Driver of the labels: {spec.driver} ({_EXPECTED[spec.expected]})"
              + ("; the row unfair − fair compares the two pairings" if spec.cross == "pairing" else "")
              + ". The column curve against x describes the plot itself.")
    return Section(key, title or spec.title, text, figure, shown, [f"{key}.csv"], table_note=driver)


def _provenance(quick, setting, seeds, random_state, base, extra, data, command):
    import hypothesis
    import matplotlib
    import numpy as np
    import pandas as pd

    import puf

    user = ", ".join(f"{m.name} (reads {', '.join(m.reads)})" for m in extra) or "none"
    return {
        "command": command,
        "data": (f"synthetic worlds: synthetic.world(n_users={base.n_users}, n_items={base.n_items}, "
                 f"k={base.k}, zero_relevance=p, random_state=seed), one per sweep point and seed"
                 + (f"; real data: {data} (see its sections)" if data else "")),
        "mode": ("quick (--quick): small worlds and a small property search" if quick else "full"),
        "seeds": f"{', '.join(map(str, seeds))} (--random-state {random_state})",
        "fixed settings": (f"k = {base.k}; zero-relevance share {base.zero_relevance:.0%} where not swept; "
                           f"UF reads sim_UF with γ = {base.gamma}; PUF and other measures read Jaccard "
                           "(sim_UF(γ) in the γ sweep)"),
        "your measures": user,
        "property search": f"up to {setting['max_examples']} examples per property, "
                           f"random_state={random_state}",
        "versions": (f"puf-harness {puf.__version__}, numpy {np.__version__}, pandas {pd.__version__}, "
                     f"matplotlib {matplotlib.__version__}, hypothesis {hypothesis.__version__}"),
        "reproduce": ("the same command writes byte-identical CSV files, and the same verdicts "
                      "unless a property search stops at its time budget (said in its reason)"),
    }


def _real_data(name, *, random_state):
    """Load a dataset, run the baseline rankers, evaluate them; lists of the best ranker for sweeps."""
    from puf.data import load, to_world
    from puf.evaluation import evaluate_runs, measure_agreement, run_rankers
    from reports.bases import RelabelledWorlds

    dataset = load(name)
    runs = run_rankers(dataset, "all", k=10, random_state=random_state)
    scores = evaluate_runs(dataset, runs, k=10, gamma=0.5)
    ranker = "ease" if "ease" in runs else next(iter(runs))
    return {"name": dataset.name, "dataset": dataset, "scores": scores,
            "agreement": measure_agreement(scores), "ranker": ranker,
            "worlds": RelabelledWorlds(to_world(dataset, runs[ranker]))}


def _real_sections(out, real, seeds, extra, quick, bar, labels, cache):
    from reports.bases import Base
    from reports.figures import plot_heatmap, save_figure
    from reports.render import Section
    from reports.sweeps import SWEEPS

    name, world = real["name"], real["worlds"].world
    stem = name.replace("-", "_")
    real["scores"].to_csv(out / f"{stem}_rankers.csv")
    real["agreement"].to_csv(out / f"{stem}_agreement.csv", index_label="measure")
    figure = save_figure(plot_heatmap(real["agreement"], title=f"Measure agreement over rankers, {name}"),
                         out / f"{stem}_agreement.png")
    sections = [Section(f"{stem}_agreement", f"Measure agreement on {name}",
                        f"Kendall's τ between every pair of measures over the scores of "
                        f"{len(real['scores'])} baseline rankers (the PUF paper's Figure 1); raw values "
                        "are compared, so effectiveness (higher is better) and fairness (lower is "
                        "fairer) point in opposite directions.", figure,
                        real["scores"].reset_index().round(4), [f"{stem}_rankers.csv", f"{stem}_agreement.csv"])]
    base = Base(n_users=world.m, n_items=world.n_items, k=10, worlds=real["worlds"],
                name=f"{name} ({real['ranker']} lists)")
    for key in _REAL_SWEEPS:
        spec = SWEEPS[key]
        bar.set_postfix_str(f"{name}: {key}")
        table = spec.run(seeds=seeds, base=base, extra=sweep_extra(spec, extra), quick=quick,
                         cache=cache, progress=bar)
        text = (f"{name}'s training histories (real Jaccard similarities) and the {real['ranker']} "
                f"ranker's top-10 lists, with artificial relevance: {_TEXT[key]}")
        sections.append(_sweep_section(out, spec, table, base, seeds, cache, labels, key=f"{stem}_{key}",
                                       title=f"{spec.title}: {name}", text=text))
    return sections
