"""Build the sensitivity report: run the sweeps and the property catalog, write every file.

:func:`build_report` is what ``puf report`` runs: the built-in sweeps of
:data:`reports.sweeps.SWEEPS` on synthetic worlds (plus the zero-relevance and
skewness sweeps and the measure-agreement study on a real dataset with
``data=``), their trends, one PNG per figure, one CSV per sweep,
``responses.csv``, ``contrasts.csv``, ``findings.csv`` (what the run found,
:mod:`reports.findings`), ``properties.json`` (every verdict with its
counterexample), ``settings.json``, and ``index.html`` / ``report.md``.
"""

from __future__ import annotations

__all__ = ["SETTINGS", "build_report", "sweep_extra"]

from pathlib import Path
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

from puf.properties.running.budget import DEFAULT_TIME_LIMIT, example_budget
from puf.metadata import Measure
from puf.parallel import usable_cores
from puf.world import World
from puf.evaluation.study import Study
import pandas as pd
from .render import Section
from .sweeps import Base, BuiltinSweep

#: The report's sizes, seeds and example budgets, ``quick`` and ``full``.
SETTINGS = {
    # Sizes chosen to meet the time budgets on 2 cores (quick < 60 s, full < 5 min); the
    # property budgets are the ones shared with puf check (properties/running/budget.py).
    "quick": {"n_users": 100, "n_items": 600, "n_seeds": 2, "max_examples": example_budget(quick=True)},
    "full": {"n_users": 200, "n_items": 1000, "n_seeds": 5, "max_examples": example_budget()},
}


def build_report(
    out: Path,
    *,
    quick: bool = False,
    extra: Sequence[Measure] = (),
    random_state: int = 0,
    data: str | None = None,
    design: Mapping[str, Any] | None = None,
    progress: bool = False,
    command: str = "puf report",
    workers: int | None = None,
    study: Study | None = None,
    rankers: str | Sequence[str] | None = None,
    known: Mapping[str, str] | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> Path:
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
    design : dict, optional
        Adds the "Designed measures" section (:func:`puf.reports.design.design_section`):
        ``require`` (and optionally ``forbid``, ``grammar``, ``grammar_name``), searched at
        the report's example budget and seed.
    progress : bool
        One tqdm bar per stage (real data with ``data=``, sweeps, property verdicts),
        each named ``[i/n]`` with its own remaining time.
    workers : int, optional
        Processes for the sweeps' worlds (:func:`reports.sweeps.sweep`); default one
        per core, 1 runs them in this process. The files are the same whatever it is.
    study : puf.evaluation.Study, optional
        With ``data``: the real data's settings, as ``puf evaluate`` takes them (its seed is
        ``random_state``). ``max_pairs`` skips the measures on the exact roads over all
        m(m−1)/2 user pairs when there are more pairs than this (each real-data table lists
        them as skipped, with the reason); ``sample`` estimates the pair measures (and UF)
        from this many drawn pairs, with 95% intervals, marked as sampled; ``engine`` and
        ``scheduler`` run the measures-per-ranker evaluation's engine blocks on a dask
        cluster. The synthetic sections are unaffected. Default ``Study()``.
    rankers : str or sequence of str, optional
        With ``data``: the rankers of the real-data sections, names or ``"all"``
        (:func:`puf.evaluation.run_rankers`); default :data:`REAL_RANKERS`.
    known : dict of str to str, optional
        Measure name -> the known file ``puf check MEASURE --known FILE`` wrote: that
        measure's cells are the verdicts pinned there (:func:`reports.verdicts.pinned_records`).
    time_limit : float, default :data:`~puf.properties.running.budget.DEFAULT_TIME_LIMIT`
        Seconds allowed per call of a measure in the property verdicts and the designed
        measures' search (``puf report --time-limit``; the sweeps' user measures carry the
        same limit from their loading, :func:`puf.properties.running.isolation.load_isolated`).

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

    from puf import properties
    from puf.reports.render import render_html, render_markdown
    from puf.reports.sections import RESPONSE_NOTE, sweep_section
    from puf.reports.sweeps import SWEEPS
    from puf.reports.sweeps import Base
    from puf.reports.verdicts import pinned_records, verdict_document, verdict_record

    study = replace(Study() if study is None else study, random_state=random_state)
    pairs = _pair_limits(study.max_pairs, study.sample)
    setting = SETTINGS["quick" if quick else "full"]
    workers = usable_cores() if workers is None else workers
    seeds = [random_state + i for i in range(setting["n_seeds"])]
    base = Base(n_users=setting["n_users"], n_items=setting["n_items"])
    measures = _matrix_measures(extra)
    n_stages, stage = (3, 2) if data else (2, 1)
    real = None
    # Begun first, at a lower priority: the checks take the cores the sweeps leave idle.
    with properties.verdicts_in_background(
        measures,
        n_jobs=usable_cores(),
        nice=True,
        max_examples=setting["max_examples"],
        random_state=random_state,
        time_limit=time_limit,
    ) as collect:
        if data:  # first, so that a bad name or a failed download stops the run at once
            with _stage(progress, 1, n_stages, f"real data {data}: load, rankers", 1, "step") as bar:
                real = _real_data(data, study=study, rankers=rankers)
                bar.update(1)
        cache, sections, labels, contrasts, zero = {}, [], [], [], {}
        worlds = sum(s.n_worlds(quick=quick, n_seeds=len(seeds)) for s in SWEEPS.values())
        if real is not None:
            worlds += sum(SWEEPS[n].n_worlds(quick=quick, n_seeds=len(seeds)) for n in _REAL_SWEEPS)
        with _stage(progress, stage, n_stages, "sweeps", worlds, "world") as bar:
            for spec in SWEEPS.values():
                bar.set_postfix_str(spec.name)
                table = spec.run(
                    seeds=seeds,
                    base=base,
                    extra=sweep_extra(spec, extra),
                    quick=quick,
                    cache=cache,
                    progress=bar,
                    workers=workers,
                )
                sections.append(sweep_section(out, spec, table, base, seeds, cache, labels, contrasts=contrasts))
                if spec.name == "zero_relevance":
                    zero[base.name] = (spec.name, table)
            if real is not None:
                tables = (labels, contrasts, zero)
                sections += _real_sections(out, real, seeds, extra, quick, bar, tables, cache, workers)
        checks = len(measures) * len(properties.CATALOG)
        with _stage(progress, n_stages, n_stages, "property verdicts", checks, "check") as bar:
            records = pinned_records([verdict_record(v) for v in collect(bar)], known or {})
    note = _verdict_note(setting["max_examples"], random_state, quick, known or {})
    designed = _designed(out, design, setting["max_examples"], random_state, progress, time_limit)
    unsteady = {r["measure"] for r in records if r["property"] == "deterministic" and r["status"] == "violated"}
    found = _findings(out, labels, contrasts, zero, extra, unsteady)
    (out / "properties.json").write_text(
        json.dumps(verdict_document(records, note), indent=2, ensure_ascii=False) + "\n"
    )
    provenance = _provenance(quick, setting, seeds, random_state, base, extra, data, command)
    provenance.update(_more_provenance(design, setting["max_examples"], random_state, data, pairs))
    (out / "settings.json").write_text(json.dumps(provenance, indent=2, ensure_ascii=False) + "\n")
    pages = dict(
        title="puf-harness sensitivity report",
        findings=found,
        provenance=provenance,
        sections=sections,
        verdicts=_verdict_table(records, measures),
        verdict_note=note,
        notes=[RESPONSE_NOTE],
        statements={name: p.statement for name, p in properties.CATALOG.items()},
        caveat=_QUICK_CAVEAT.format(n=setting["max_examples"]) if quick else "",
        after_verdicts=_power(out, setting["max_examples"]) + designed,
    )
    (out / "index.html").write_text(render_html(**pages, folder=out), encoding="utf-8")
    (out / "report.md").write_text(render_markdown(**pages), encoding="utf-8")
    return out / "index.html"


def _power(out: Path, budget: int) -> list[Section]:
    """Shown right after the verdict matrix: what a "holds" of this search is worth (none without a table)."""
    from puf.reports.power import power_section

    section = power_section(out, budgets=[budget])
    return [section] if section else []


def _findings(
    out: Path,
    labels: Sequence[pd.DataFrame],
    contrasts: Sequence[pd.DataFrame],
    zero: Mapping[str, tuple[str, pd.DataFrame]],
    extra: Sequence[Measure],
    unsteady: Collection[str],
) -> list[Any]:
    """Write responses.csv, contrasts.csv and findings.csv; return the findings, read from the first
    two (``unsteady``: the measures whose ``deterministic`` verdict is violated)."""
    import pandas as pd

    from puf.reports.findings import finding_table, findings

    trends = pd.concat(labels, ignore_index=True)
    trends.to_csv(out / "responses.csv", index=False)
    pairings = pd.concat(contrasts, ignore_index=True)
    pairings.to_csv(out / "contrasts.csv", index=False)
    found = findings(trends, pairings, zero, yours=[m.name for m in extra], unsteady=unsteady)
    finding_table(found).to_csv(out / "findings.csv", index=False)
    return found


def _pair_limits(max_pairs: int | None, sample: int | None) -> dict[str, int | None]:
    """``max_pairs`` and ``sample``, checked before any work by their one check, :class:`Base`'s (ValueError)."""
    from puf.reports.sweeps import Base

    Base(max_pairs=max_pairs, sample=sample)
    return {"max_pairs": max_pairs, "sample": sample}


def _more_provenance(
    design: Mapping[str, Any] | None,
    max_examples: int,
    random_state: int,
    data: str | None,
    pairs: Mapping[str, int | None],
) -> dict[str, str]:
    """The provenance rows of the options given: the measure design, the real data's pair limits."""
    more = {}
    if design is not None:
        more["measure design"] = _design_provenance(design, max_examples, random_state)
    max_pairs, sample = pairs["max_pairs"], pairs["sample"]
    if data and (max_pairs is not None or sample is not None):
        limit = "no limit" if max_pairs is None else f"the exact pair roads skipped beyond {max_pairs:,} user pairs"
        drawn = f"; pair measures and UF estimated from {sample:,} drawn pairs (95% intervals)" if sample else ""
        more["user pairs"] = (
            f"real data only (--max-pairs, --sample): {limit}{drawn}; the synthetic sections compute every measure"
        )
    return more


def _designed(
    out: Path,
    design: Mapping[str, Any] | None,
    max_examples: int,
    random_state: int,
    progress: bool,
    time_limit: float,
) -> list[Section]:
    """The "Designed measures" section, as a list (empty without ``design``)."""
    if design is None:
        return []
    from puf.reports.design import design_section

    # The designer's own bar follows the stages' bars.
    section = design_section(
        out,
        **design,
        max_examples=max_examples,
        random_state=random_state,
        n_jobs=usable_cores(),
        progress=progress,
        time_limit=time_limit,
    )
    return [section]


def _design_provenance(design: Mapping[str, Any], max_examples: int, random_state: int) -> str:
    forbid = design.get("forbid") or ()
    return (
        f"puf design --require {','.join(design['require'])}"
        + (f" --forbid {','.join(forbid)}" if forbid else "")
        + f" on {design.get('grammar_name', 'the default grid')}: proofs smt, up to {max_examples} examples, "
        f"random_state={random_state} (design.json)"
    )


def _verdict_table(records: Sequence[Mapping[str, Any]], measures: Sequence[Measure]) -> pd.DataFrame:
    """The matrix's long table: one row per cell, the rows in the matrix's family order."""
    import pandas as pd

    import puf
    from puf import properties
    from puf.reports.verdicts import plain_reasons

    reasons = plain_reasons(records)
    # A user's measure has no known file with a plain reason per cell: its cells show the
    # counterexample itself (hover and report.md), as the built-ins' reasons describe theirs.
    verdicts = pd.DataFrame(
        [
            {
                "measure": r["measure"],
                "family": _family(r["measure"]),
                "property": r["property"],
                "verdict": r["status"],
                "reason": reasons[r["measure"], r["property"]],
                "detail": r["reason"],
                "informational": properties.CATALOG[r["property"]].informational,
                "example": None if r["measure"] in puf.MEASURES else r.get("example"),
            }
            for r in records
        ]
    )
    rank = {m.name: i for i, m in enumerate(measures)}
    return verdicts.sort_values("measure", key=lambda c: c.map(rank), kind="stable")


def _stage(progress: bool, number: int, count: int, name: str, total: int, unit: str) -> Any:
    """The tqdm bar of one stage, ``[number/count] name``: each stage has its own honest ETA."""
    from tqdm.auto import tqdm

    # smoothing=0: the rate is the average since the stage began (its checks are shuffled, so
    # that average holds), not the last few steps, which jump between cheap and costly checks.
    return tqdm(total=total, desc=f"[{number}/{count}] {name}", unit=unit, disable=not progress, smoothing=0)


def sweep_extra(spec: BuiltinSweep, extra: Sequence[Measure] = ()) -> tuple[Measure, ...]:
    """Measures added to a built-in sweep: registered measures it does not list, then ``extra``.

    The zero-relevance and both skewness sweeps run every registered measure (a new
    built-in drops in with no code here) that studies show (``tables=True``: all but
    the printed forms, 2 × another measure); the pairing and γ sweeps keep their own list.

    Examples
    --------
    >>> from puf.reports.sweeps import SWEEPS
    >>> [m.name for m in sweep_extra(SWEEPS["pairing"])]
    []
    """
    from puf import MEASURES
    from puf import variants

    if spec.name not in ("zero_relevance", "skewness", "skewness_free_mean"):
        return tuple(extra)
    listed = {v.measure.name for label in spec.measures for v in variants(label)}
    missing = [m for name, m in MEASURES.items() if name not in listed and m.tables]
    return tuple(missing) + tuple(extra)


def _verdict_note(max_examples: int, random_state: int, quick: bool, known: Mapping[str, str]) -> str:
    pinned = "".join(
        f" The cells of {name} are the verdicts pinned in {path} (`puf check --known`); where this "
        "run's search found otherwise, the cell's reason says so."
        for name, path in known.items()
    )
    return (
        f"Verdicts of the property catalog (properties.verdicts, as in `puf check --all`): up to "
        f"{max_examples} Hypothesis examples per property, random_state={random_state}"
        f"{' (--quick: a small search)' if quick else ''}. Hover a property for its statement "
        "and a cell for its reason in plain language; properties.json holds every counterexample." + pinned
    )


_QUICK_CAVEAT = (
    "Made with --quick: smaller worlds, 2 seeds and a small property search (up to {n} "
    "examples per property). A violated cell is shown by its counterexample whatever "
    "the search size; a holds cell means only that {n} examples found none. Run "
    "`puf report` without --quick for the full search."
)


_REAL_SWEEPS = ("zero_relevance", "skewness")


def _matrix_measures(extra: Sequence[Measure]) -> list[Measure]:
    """The matrix's rows: the built-ins grouped by family (``puf.FAMILIES`` order), then ``extra``."""
    from puf import FAMILIES, MEASURES

    return sorted(MEASURES.values(), key=lambda m: FAMILIES.index(m.family)) + list(extra)


def _family(name: str) -> str:
    from puf import MEASURES

    return MEASURES[name].family if name in MEASURES else "your measures"


def _provenance(
    quick: bool,
    setting: Mapping[str, Any],
    seeds: Sequence[int],
    random_state: int,
    base: Base,
    extra: Sequence[Measure],
    data: str | None,
    command: str,
) -> dict[str, str]:
    import hypothesis
    import matplotlib
    import numpy as np
    import pandas as pd

    import puf

    user = ", ".join(f"{m.name} (reads {', '.join(m.reads)})" for m in extra) or "none"
    return {
        "command": command,
        "data": (
            f"synthetic worlds: synthetic.world(n_users={base.n_users}, n_items={base.n_items}, "
            f"k={base.k}, zero_relevance=p, random_state=seed), one per sweep point and seed"
            + (f"; real data: {data} (see its sections)" if data else "")
        ),
        "mode": ("quick (--quick): small worlds and a small property search" if quick else "full"),
        "seeds": f"{', '.join(map(str, seeds))} (--random-state {random_state})",
        "fixed settings": (
            f"k = {base.k}; zero-relevance share {base.zero_relevance:.0%} where not swept; "
            f"UF reads sim_UF with γ = {base.gamma}; PUF and other measures read Jaccard "
            "(sim_UF(γ) in the γ sweep)"
        ),
        "your measures": user,
        "property search": f"up to {setting['max_examples']} examples per property, random_state={random_state}",
        "versions": (
            f"puf-harness {puf.__version__}, numpy {np.__version__}, pandas {pd.__version__}, "
            f"matplotlib {matplotlib.__version__}, hypothesis {hypothesis.__version__}"
        ),
        "reproduce": (
            "the same command writes byte-identical CSV files, and the same verdicts "
            "unless a property search stops at its time budget (said in its reason)"
        ),
    }


REAL_RANKERS = "all"
"""Rankers of the real-data sections: every installed one (the paper's seven with the extra)."""


def _real_data(name: str, *, study: Study, rankers: str | Sequence[str] | None = None) -> dict[str, Any]:
    """Load a dataset, run the rankers (cached lists), evaluate them; lists of the best ranker for sweeps."""
    from puf.data import load, to_world
    from puf.data.dataset_cache import cache_dir
    from puf.evaluation import evaluate_runs, measure_agreement, run_rankers
    from puf.reports.artificial_relevance import RelabelledWorlds
    from puf.reports.realdata import agreement_rankers

    dataset = load(name)
    chosen = REAL_RANKERS if rankers is None else rankers
    seed = study.random_state if isinstance(study.random_state, int) else None
    runs = run_rankers(dataset, chosen, k=10, random_state=seed, cache=cache_dir() / "runs")
    settings = ("max_pairs", "sample", "random_state", "engine", "scheduler", "n_jobs")
    # A measure that raises on a ranker's lists is undefined there, said in the section, as on a sweep.
    options = {name: getattr(study, name) for name in settings}
    scores = evaluate_runs(dataset, runs, k=10, raised="undefined", **options)
    agreeing, note = agreement_rankers(scores)
    ranker = "ease" if "ease" in runs else next(iter(runs))
    return {
        "name": dataset.name,
        "dataset": dataset,
        "scores": scores,
        "agreement": measure_agreement(scores.loc[agreeing]),
        "agreement_over": note,
        "agreement_rankers": len(agreeing),
        "ranker": ranker,
        "worlds": RelabelledWorlds(to_world(dataset, runs[ranker])),
        "pairs": {"max_pairs": study.max_pairs, "sample": study.sample},
    }


def _real_sections(
    out: Path,
    real: Mapping[str, Any],
    seeds: Sequence[int],
    extra: Sequence[Measure],
    quick: bool,
    bar: Any,
    found: tuple[list[pd.DataFrame], list[pd.DataFrame], dict[str, tuple[str, pd.DataFrame]]],
    cache: dict[Any, World],
    workers: int = 1,
) -> list[Section]:
    """The real data's sections; each sweep's trends, contrasts and zero-relevance table join ``found``."""
    from puf.reports.sweeps import Base
    from puf.reports.figures import plot_heatmap, save_figure
    from puf.reports.render import Section
    from puf.reports.sections import TEXT, sweep_section
    from puf.reports.sweeps import SWEEPS

    name, world = real["name"], real["worlds"].world
    stem = name.replace("-", "_")
    real["scores"].to_csv(out / f"{stem}_rankers.csv")
    real["agreement"].to_csv(out / f"{stem}_agreement.csv", index_label="measure")
    figure = save_figure(
        plot_heatmap(real["agreement"], title=_agreement_title(name, real["agreement_rankers"])),
        out / f"{stem}_agreement.png",
    )
    from puf.reports.pair_limits import agreement_text
    from puf.reports.realdata import dense_similarity_beyond_memory

    limited = any(value is not None for value in real.get("pairs", {}).values())
    sections = [_measures_section(out, real, stem)]
    sections += [
        Section(
            f"{stem}_agreement",
            f"Measure agreement on {name}",
            f"Kendall's τ between every pair of measures over the scores of "
            f"{real['agreement_over']} (the PUF paper's Figure 1); raw values "
            "are compared, so effectiveness (higher is better) and fairness (lower is "
            "fairer) point in opposite directions." + (agreement_text(real["scores"]) if limited else ""),
            figure,
            real["agreement"].round(3).reset_index(names="measure"),
            [f"{stem}_rankers.csv", f"{stem}_agreement.csv"],
        )
    ]
    base = Base(
        n_users=world.m,
        n_items=world.n_items,
        k=10,
        worlds=real["worlds"],
        name=f"{name} ({real['ranker']} lists)",
        **real.get("pairs", {}),
    )
    for key in _REAL_SWEEPS:
        spec = SWEEPS[key]
        bar.set_postfix_str(f"{name}: {key}")
        too_big = dense_similarity_beyond_memory(spec, world.m)
        if too_big:
            bar.update(spec.n_worlds(quick=quick, n_seeds=len(seeds)))
            sections.append(
                Section(f"{stem}_{key}", f"{spec.title}: {name}", f"Skipped at {world.m:,} users: {too_big}.")
            )
            continue
        chosen = sweep_extra(spec, extra)
        table = spec.run(seeds=seeds, base=base, extra=chosen, quick=quick, cache=cache, progress=bar, workers=workers)
        if key == "zero_relevance":
            found[2][base.name] = (f"{stem}_{key}", table)
        text = (
            f"{name}'s training histories (real Jaccard similarities) and the {real['ranker']} "
            f"ranker's top-10 lists, with artificial relevance: {TEXT[key]}"
        )
        sections.append(
            sweep_section(
                out,
                spec,
                table,
                base,
                seeds,
                cache,
                found[0],
                contrasts=found[1],
                key=f"{stem}_{key}",
                title=f"{spec.title}: {name}",
                text=text,
            )
        )
    return sections


def _agreement_title(name: str, rankers: int) -> str:
    """The heatmap's title; over fewer than 3 rankers it says that every τ is ±1 by construction.

    Examples
    --------
    >>> _agreement_title("ml-100k", 2)
    'Measure agreement over 2 rankers, ml-100k (every τ is ±1 over 2 rankers: run 3 or more)'
    """
    few = f" (every τ is ±1 over {rankers} rankers: run 3 or more)" if rankers < 3 else ""
    return f"Measure agreement over {rankers} rankers, {name}{few}"


def _measures_section(out: Path, real: Mapping[str, Any], stem: str) -> Section:
    """The measures-per-ranker section: its figure, table and CSV; with pair limits, what was skipped or sampled."""
    from puf.evaluation import write_pair_limits
    from puf.reports.figures import save_figure
    from puf.reports.pair_limits import estimate_table, estimates_text, ranker_table
    from puf.reports.realdata import plot_measures_per_ranker, raised_runs_text, skipped_text
    from puf.reports.render import Section

    name, scores = real["name"], real["scores"]
    bars = save_figure(
        plot_measures_per_ranker(scores, title=f"Measures per ranker, {name}"), out / f"{stem}_measures.png"
    )
    files, more, table = [f"{stem}_rankers.csv"], [], scores.reset_index().round(4)
    text = (
        f"P@10, NDCG@10 and every fairness measure of the top-10 lists of "
        f"{len(scores)} rankers (the PUF paper's real-data study; lists "
        "cached by dataset, ranker, seed and settings)." + skipped_text(scores) + raised_runs_text(scores)
    )
    pairs = real.get("pairs", {})
    if any(value is not None for value in pairs.values()):
        table = ranker_table(scores)
        files += write_pair_limits(scores, out, stem=f"{stem}_")
        estimates = estimate_table(scores)
        if estimates is not None:
            text += estimates_text(scores, files=[f"{stem}_estimates.csv"])
            more.append(("The sampled estimates, each with its 95% interval and the pairs drawn.", estimates))
    return Section(f"{stem}_measures", f"Measures per ranker on {name}", text, bars, table, files, more_tables=more)
