"""Build the sensitivity report: run the sweeps and the property catalog, write every file.

:func:`build_report` is what ``puf report`` runs: the built-in sweeps of
:data:`reports.sweeps.SWEEPS` on synthetic worlds (plus the zero-relevance and
skewness sweeps and the measure-agreement study on a real dataset with
``data=``), their response labels, one PNG per figure, one CSV per sweep,
``responses.csv``, ``properties.json`` (every verdict with its counterexample),
``settings.json``, and ``index.html`` / ``report.md``.
"""

__all__ = ["SETTINGS", "build_report"]

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
        One tqdm bar over the whole run.

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
    from tqdm.auto import tqdm

    from reports.render import render_html, render_markdown
    from reports.sweeps import SWEEPS, Base

    setting = SETTINGS["quick" if quick else "full"]
    seeds = [random_state + i for i in range(setting["n_seeds"])]
    base = Base(n_users=setting["n_users"], n_items=setting["n_items"])
    real = _real_data(data, random_state=random_state) if data else None
    measures = _matrix_measures(extra)
    total = (sum(s.n_worlds(quick=quick, n_seeds=len(seeds)) for s in SWEEPS.values())
             + len(measures) * len(properties.CATALOG))
    if real is not None:
        total += sum(SWEEPS[n].n_worlds(quick=quick, n_seeds=len(seeds)) for n in _REAL_SWEEPS)
    bar = tqdm(total=total, desc="puf report", unit="step", disable=not progress)
    cache, sections, labels = {}, [], []
    try:
        for spec in SWEEPS.values():
            bar.set_description(f"sweep {spec.name}")
            table = spec.run(seeds=seeds, base=base, extra=extra, quick=quick, cache=cache, progress=bar)
            sections.append(_sweep_section(out, spec, table, base, seeds, cache, labels))
        if real is not None:
            sections += _real_sections(out, real, seeds, extra, quick, bar, labels, cache)
        bar.set_description("property verdicts")
        verdicts, records, note = _verdicts(measures, setting["max_examples"], random_state, bar)
    finally:
        bar.close()
    all_labels = pd.concat(labels, ignore_index=True)
    all_labels.to_csv(out / "responses.csv", index=False)
    (out / "properties.json").write_text(json.dumps(
        {"note": note, "verdicts": records}, indent=2, ensure_ascii=False) + "\n")
    provenance = _provenance(quick, setting, seeds, random_state, base, extra, data, command)
    (out / "settings.json").write_text(json.dumps(provenance, indent=2, ensure_ascii=False) + "\n")
    pages = dict(title="puf-harness sensitivity report", provenance=provenance, sections=sections,
                 verdicts=verdicts, verdict_note=note, notes=[_RESPONSE_NOTE])
    (out / "index.html").write_text(render_html(**pages), encoding="utf-8")
    (out / "report.md").write_text(render_markdown(**pages), encoding="utf-8")
    return out / "index.html"


_TEXT = {
    "zero_relevance": "A share p of users gets lists with no relevant item, the rest fully relevant "
                      "lists. Known values: SD = sqrt(p(1 − p)), Gini = p (undefined at p = 100%), "
                      "PUF = 0 at p = 0 and 1.",
    "skewness": "Skewness at a FIXED mean: the base world's similarities (Jaccard for PUF, sim_UF "
                "for UF) are mapped by rank onto distributions of growing skewness at their observed "
                "mean (synthetic.reshape_skewness); effectiveness and lists stay fixed. Which users "
                "have zero relevance (half of them) is random, or chosen so that similar users have "
                "equal (most_fair) or unequal (most_unfair) effectiveness. The dashed line is the base "
                "worlds' own Jaccard skewness. Under random pairing PUF is flat here, and should be: "
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
                          "mean; SD reads no similarity and stays flat. The sweep starts at skewness 0: powers of sparse similarities "
                          "cannot reliably reach negative skewness (the lower limit is the skewness of "
                          "a 0/1 sample). The dashed line is the base worlds' own Jaccard skewness.",
    "pairing": "The zero-relevance users chosen most fairly (similar users get equal "
               "effectiveness) and most unfairly (similar users get unequal effectiveness), by "
               "synthetic.pair on Jaccard, across the zero-relevance share.",
    "gamma": "sim_UF = γ·Jaccard + (1 − γ)·sim_JS(item features), read by UF and (here) by PUF, "
             "across the zero-relevance share.",
}
_RESPONSE_NOTE = (
    "Response labels compare each curve's mean over seeds with the sweep's driver: flat when its "
    "total change (max − min) is within max(1e-9, 2% of its largest magnitude); otherwise responds "
    "(|Spearman ρ| ≥ 0.8 in the expected direction), wrong direction, or non-monotone. Drivers: the "
    "planted disparity p(1 − p) for a zero-relevance share (expected to rise with it), the skewness "
    "itself (either direction; at a fixed mean in one sweep, with the mean free in the other). In "
    "sweeps crossed with the pairing, the row 'unfair − fair' compares the two pairings: change is "
    "the mean of most_unfair − most_fair and ρ the share of points where most_unfair is higher.")
_REAL_SWEEPS = ("zero_relevance", "skewness")


def _matrix_measures(extra):
    from puf import MEASURES

    return list(MEASURES.values()) + list(extra)


def _family(label):
    from reports.variants import METRICS, variants

    try:
        return variants(label)[0].family
    except ValueError:  # a user's measure: its panel is its name
        name, _, metric = label.rpartition("-")
        return name if name and metric in METRICS else label


def _families(table):
    return {label: _family(label) for label in table["measure"].unique()}


def _sweep_section(out, spec, table, base, seeds, cache, labels, *, key=None, title=None, text=None):
    from reports.figures import plot_sweep, save_figure
    from reports.render import Section
    from reports.response import sweep_responses
    from reports.bases import observed_skewness

    key = key or spec.name
    table.to_csv(out / f"{key}.csv", index=False)
    responses = sweep_responses(spec, table)
    responses.insert(0, "data", base.name)
    labels.append(responses)
    marker = observed_skewness(base, seeds, cache) if spec.parameter == "skewness" else None
    xlabel = {"zero_relevance": "share of users with zero relevance",
              "skewness": "skewness of the similarity distribution"}[spec.parameter]
    fig = plot_sweep(table, title=title or spec.title, xlabel=xlabel,
                     families=None if spec.cross else _families(table), hue=spec.cross,
                     percent=spec.parameter == "zero_relevance", marker=marker,
                     marker_label=None if marker is None else f"observed ({marker:.2f})")
    figure = save_figure(fig, out / f"{key}.png")
    shown = responses[["measure", "condition", "label", "rho", "change"]].round({"rho": 3, "change": 4})
    return Section(key, title or spec.title, text or _TEXT[spec.name], figure, shown, [f"{key}.csv"])


def _plain(value):
    """JSON-ready copy: arrays to lists, NaN/inf to None."""
    import math

    import numpy as np

    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _measure_verdicts(measure, max_examples, random_state):
    """Every property's verdict on one measure, as JSON-ready records (runs in a worker)."""
    import warnings

    import properties

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined values are verdicts here, not noise
        results = properties.verdicts(measure, max_examples=max_examples, random_state=random_state)
    # Wall time is left out so that the same --random-state writes the same file.
    return [{k: v for k, v in _plain(r.to_dict()).items() if k != "seconds"} for r in results]


def _verdicts(measures, max_examples, random_state, bar):
    """Run the property catalog on every measure; return (long table, records, note).

    Measures run in parallel worker processes (forked, so a user's measure loaded from a
    file is there too), one per available core; the verdicts are seeded, so the result
    does not depend on the number of workers.
    """
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor, as_completed

    import pandas as pd
    import properties

    step = len(properties.CATALOG)
    workers = min(len(measures), len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
    results = {}
    bar.set_description("property verdicts")
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = {pool.submit(_measure_verdicts, m, max_examples, random_state): i
                       for i, m in enumerate(measures)}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                bar.update(step)
    else:
        for i, measure in enumerate(measures):
            results[i] = _measure_verdicts(measure, max_examples, random_state)
            bar.update(step)
    records = [r for i in range(len(measures)) for r in results[i]]
    table = pd.DataFrame([{"measure": r["measure"], "property": r["property"], "verdict": r["status"],
                           "detail": r["reason"]} for r in records])
    note = (f"Verdicts of the property catalog (properties.verdicts, as in `puf check --all`), up to "
            f"{max_examples} Hypothesis examples per property, random_state={random_state}. Hover a "
            "cell (HTML) for its one-line reason; properties.json holds every counterexample.")
    return table, records, note


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
        "mode": "quick (--quick)" if quick else "full",
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


REAL_RANKERS = "all"
"""Rankers of the real-data sections: every installed one (the paper's seven with the extra)."""


def _real_data(name, *, random_state):
    """Load a dataset, run the rankers (cached lists), evaluate them; lists of the best ranker for sweeps."""
    from puf.data import load, to_world
    from puf.data.fetch import cache_dir
    from puf.evaluation import evaluate_runs, measure_agreement, run_rankers
    from reports.bases import RelabelledWorlds
    from reports.realdata import agreement_rankers

    dataset = load(name)
    runs = run_rankers(dataset, REAL_RANKERS, k=10, random_state=random_state,
                       cache=cache_dir() / "runs")
    scores = evaluate_runs(dataset, runs, k=10, gamma=0.5)
    rankers, note = agreement_rankers(scores)
    ranker = "ease" if "ease" in runs else next(iter(runs))
    return {"name": dataset.name, "dataset": dataset, "scores": scores,
            "agreement": measure_agreement(scores.loc[rankers]), "agreement_over": note,
            "ranker": ranker, "worlds": RelabelledWorlds(to_world(dataset, runs[ranker]))}


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
    from reports.realdata import plot_measures_per_ranker

    bars = save_figure(plot_measures_per_ranker(real["scores"], title=f"Measures per ranker, {name}"),
                       out / f"{stem}_measures.png")
    sections = [Section(f"{stem}_measures", f"Measures per ranker on {name}",
                        f"P@10, NDCG@10 and every fairness measure of the top-10 lists of "
                        f"{len(real['scores'])} rankers (the PUF paper's real-data study; lists "
                        "cached by dataset, ranker, seed and settings).", bars,
                        real["scores"].reset_index().round(4), [f"{stem}_rankers.csv"])]
    sections += [Section(f"{stem}_agreement", f"Measure agreement on {name}",
                        f"Kendall's τ between every pair of measures over the scores of "
                        f"{real['agreement_over']} (the PUF paper's Figure 1); raw values "
                        "are compared, so effectiveness (higher is better) and fairness (lower is "
                        "fairer) point in opposite directions.", figure,
                        real["agreement"].round(3).reset_index(names="measure"),
                        [f"{stem}_rankers.csv", f"{stem}_agreement.csv"])]
    base = Base(n_users=world.m, n_items=world.n_items, k=10, worlds=real["worlds"],
                name=f"{name} ({real['ranker']} lists)")
    for key in _REAL_SWEEPS:
        spec = SWEEPS[key]
        bar.set_description(f"{name}: sweep {key}")
        table = spec.run(seeds=seeds, base=base, extra=extra, quick=quick, cache=cache, progress=bar)
        text = (f"{name}'s training histories (real Jaccard similarities) and the {real['ranker']} "
                f"ranker's top-10 lists, with artificial relevance: {_TEXT[key]}")
        sections.append(_sweep_section(out, spec, table, base, seeds, cache, labels, key=f"{stem}_{key}",
                                       title=f"{spec.title}: {name}", text=text))
    return sections
