"""The section of one sweep in the report: its text, figure, and trend tables.

:func:`sweep_section` writes the sweep's CSV and PNG and returns the
:class:`reports.render.Section`: the text says what was varied, its "reading"
(collapsed on the page) which curves were merged and, computed from the worlds,
why the fixed-mean skewness curves turn where they do and where UF is undefined;
the figure groups measures by :func:`family`; the table gives each curve its
trend as x rises (:func:`reports.response.trend`), and a sweep crossed with the
pairing a second table comparing the most unfair pairing with the most fair one.
"""

from __future__ import annotations

__all__ = ["TEXT", "RESPONSE_NOTE", "family", "sweep_figure", "sweep_section"]


from collections.abc import Sequence
from pathlib import Path
from typing import Any
import pandas as pd
from matplotlib.figure import Figure

from puf.world import World

from .render import Section
from .sweeps import Base, BuiltinSweep


#: What each built-in sweep varies, as its section says.
TEXT = {
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
#: How the trend tables read, said once at the end of the report.
RESPONSE_NOTE = (
    "How the tables read. trend: what the mean curve over seeds does as x rises — flat (its total "
    "change, max − min, within max(1e-9, 2% of its largest magnitude)), rising, falling, rising then "
    "flat (two or more steps at the end within that tolerance), flat then rising, rising then falling "
    "(with where it peaks), falling then rising, or non-monotone (more than one turn); a move counts "
    "once it passes the tolerance, so a slow steady rise is rising. undefined at: the x values where "
    "the measure is undefined (NaN), left out of the trend. change: max − min of the mean curve. In "
    "sweeps crossed with the pairing, a second table compares the two pairings of the same "
    "populations: the mean of most_unfair − most_fair, and at how many points most_unfair is higher "
    "by more than the tolerance."
)


def family(label: str) -> str:
    """The family a measure label is drawn with: the measure's ``family`` metadata when it has one.

    Without metadata, a built-in keeps its own group (SD, Gini, Envy, UF, PUF) and every
    user measure goes into one group.

    Parameters
    ----------
    label : str
        A sweep's measure label (``"SD-NDCG"``, ``"ME"``, a merged ``"SD-P = SD-NDCG"``).

    Returns
    -------
    str

    Examples
    --------
    >>> family("SD-P = SD-NDCG"), family("MME"), family("widest_gap-P")
    ('inequality indices', 'envy', 'your measures')
    """
    from puf import variants

    from puf.reports.tables import members

    label = members(label)[0]  # a merged "SD-P = SD-NDCG" or "PUF = f (P and NDCG)"
    try:
        variant = variants(label)[0]
    except ValueError:  # a user's measure, labelled NAME-METRIC
        return "your measures"
    return variant.measure.family  # every Measure has one (puf.metadata derives a default)


def _families(table: pd.DataFrame) -> dict[str, str]:
    return {label: family(label) for label in table["measure"].unique()}


def _skewness_markers(
    spec: BuiltinSweep, base: Base, seeds: Sequence[int], cache: dict[Any, World]
) -> dict[str, tuple[float, str]]:
    """Per panel: the base worlds' observed skewness of the similarity that panel reads."""
    from puf.reports.sweeps import observed_skewness

    j, b = (observed_skewness(base, seeds, cache, similarity=name) for name in ("jaccard", "uf"))
    return {
        "UF": (b, f"observed sim_UF skewness ({b:.2f}), UF panel"),
        "*": (j, f"observed Jaccard skewness ({j:.2f})"),
    }


def _jaccard_mean(base: Base, seeds: Sequence[int], cache: dict[Any, World]) -> float:
    import numpy as np

    from puf.reports.sweeps import pair_statistic, point_population

    base, values = base.replace(skewness=None), []
    for seed in seeds:
        values.append(pair_statistic(point_population(base, seed, cache, similarity="jaccard").similarity, "mean"))
    return float(np.mean(values))


def _fixed_mean_text(table: pd.DataFrame, base: Base, seeds: Sequence[int], cache: dict[Any, World]) -> str:
    """Why the fair and unfair PUF curves turn near one skewness, and where UF is undefined."""
    import numpy as np

    mu = _jaccard_mean(base, seeds, cache)
    bound = (1 - 2 * mu) / np.sqrt(mu * (1 - mu))
    text = (
        f" The most_fair and most_unfair PUF curves turn (V-shaped, or peaked) near skewness "
        f"{bound:.1f}: that is the skewness of a 0/1 sample with the Jaccard mean μ = {mu:.3f}, "
        f"(1 − 2μ)/√(μ(1 − μ)), where a reshaping at this mean puts a few pairs at 1 and every "
        "other pair at 0. Up to there, more skewness moves similarity onto the most similar "
        "pairs, which the pairing made equal (most_fair) or unequal (most_unfair); past it, a "
        "higher skewness can only come from a thinner top tail, with every other pair lifted "
        "towards the mean, so similarity follows the pairing less and both curves return "
        "towards the random one."
    )
    uf = table[table["measure"] == "UF"].groupby("value")["score"].mean()
    undefined = [f"{x:g}" for x, v in uf.items() if not np.isfinite(v)]
    if undefined:
        text += (
            f" UF is undefined (NaN, the cross in its panel) at skewness {', '.join(undefined)}: "
            "a left-skewed sample has a short upper tail, and no pair reaches UF's threshold "
            "mean + SD of sim_UF, so its pair set U* is empty; UF's label is read over its "
            "defined points only."
        )
    return text


def sweep_figure(
    spec: BuiltinSweep,
    drawn: pd.DataFrame,
    base: Base,
    seeds: Sequence[int],
    cache: dict[Any, World],
    *,
    title: str | None = None,
) -> Figure:
    """The figure of a sweep's drawn table (merged and ratio curves included).

    Examples
    --------
    >>> from puf.reports.sweeps import SWEEPS
    >>> from puf.reports.sweeps import Base
    >>> base = Base(n_users=20, n_items=100, k=5)
    >>> table = SWEEPS["pairing"].run(seeds=[0], base=base, quick=True)
    >>> sweep_figure(SWEEPS["pairing"], table, base, [0], {}).axes[0].get_title()
    'PUF-P'
    """
    from puf.reports.figures import plot_sweep

    marker = _skewness_markers(spec, base, seeds, cache) if spec.parameter == "skewness" else None
    xlabel = _XLABEL[spec.parameter]
    return plot_sweep(
        drawn,
        title=title or spec.title,
        xlabel=xlabel,
        families=_families(drawn),
        hue=spec.cross,
        percent=spec.parameter == "zero_relevance",
        marker=marker,
        default=base.gamma if spec.cross == "gamma" else None,
        logy=spec.name == "skewness_free_mean",
    )


def sweep_section(
    out: Path,
    spec: BuiltinSweep,
    table: pd.DataFrame,
    base: Base,
    seeds: Sequence[int],
    cache: dict[Any, World],
    labels: list[pd.DataFrame],
    *,
    contrasts: list[pd.DataFrame] | None = None,
    key: str | None = None,
    title: str | None = None,
    text: str | None = None,
) -> Section:
    """Write a sweep's CSV and PNG into ``out``; return its report Section.

    Parameters
    ----------
    out : pathlib.Path
        The report folder.
    spec : reports.sweeps.BuiltinSweep
    table : pandas.DataFrame
        The sweep's output.
    base : reports.sweeps.Base
        Where its worlds came from (the observed skewness and Jaccard mean are read there).
    seeds : list of int
    cache : dict
        The report's world cache.
    labels : list
        The sweep's trends (:func:`reports.response.sweep_responses`, with ``data`` and
        ``figure`` columns) are appended to it.
    contrasts : list, optional
        The sweep's pairing contrasts (:func:`reports.response.pairing_contrasts`, same
        columns added) are appended to it.
    key, title, text : str, optional
        File stem and anchor, heading, text; default the sweep's own.

    Returns
    -------
    reports.render.Section

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from puf.reports.sweeps import SWEEPS
    >>> from puf.reports.sweeps import Base
    >>> base, out, labels = Base(n_users=20, n_items=100, k=5), pathlib.Path(tempfile.mkdtemp()), []
    >>> table = SWEEPS["pairing"].run(seeds=[0], base=base, quick=True)
    >>> section = sweep_section(out, SWEEPS["pairing"], table, base, [0], {}, labels)
    >>> sorted(p.name for p in out.iterdir()), section.table_note[:25]
    (['pairing.csv', 'pairing.png'], "Each curve's trend as the")
    """
    from puf.reports.figures import save_figure
    from puf.reports.tables import merge_coinciding, merge_identical, relative_to_random
    from puf.reports.render import Section
    from puf.reports.pair_limits import pair_text, raised_text, split_pair_rows, with_roads
    from puf.reports.response import pairing_contrasts, sweep_responses

    key = key or spec.name
    table.to_csv(out / f"{key}.csv", index=False)
    raised = raised_text(table)  # a measure that raised at points: where, and what
    table, skipped, sampled = split_pair_rows(table)  # with max_pairs or sample: what was skipped, sampled
    responses = sweep_responses(spec, table)
    responses.insert(0, "data", base.name)
    responses.insert(2, "figure", key)
    labels.append(responses)
    contrast = pairing_contrasts(spec, table)
    contrast.insert(0, "data", base.name)
    contrast.insert(2, "figure", key)
    if contrasts is not None:
        contrasts.append(contrast)
    drawn, merged = merge_identical(table)
    drawn, coinciding = merge_coinciding(drawn)
    text = (text or TEXT[spec.name]) + pair_text(skipped, sampled, m=base.n_users, sample=base.sample) + raised
    if spec.name == "skewness_free_mean":
        drawn, relative = relative_to_random(drawn)
        if relative:
            text += (
                f" The panels {', '.join(relative)} divide each pairing's value by the random "
                "pairing's at the same skewness and seed, so the pairings stay apart however "
                "small the values become."
            )
    reading = _reading(spec, table, base, seeds, cache, merged, coinciding)
    figure = save_figure(sweep_figure(spec, drawn, base, seeds, cache, title=title), out / f"{key}.png")
    shown = _trend_rows(responses, merged + coinciding, spec)
    if skipped or sampled:
        shown = with_roads(shown, skipped, sampled)
    more = []
    if len(contrast):
        more.append(
            (
                "The same populations paired most unfairly against most fairly: the mean of "
                "most_unfair − most_fair over the sweep, and at how many points most_unfair is higher.",
                _contrast_rows(contrast, merged + coinciding),
            )
        )
    note = f"Each curve's trend as the {_XLABEL[spec.parameter]} rises (how the tables read: end of the page)."
    return Section(
        key,
        title or spec.title,
        text,
        figure,
        shown,
        [f"{key}.csv"],
        table_note=note,
        more_tables=more,
        details=reading,
    )


def _reading(
    spec: BuiltinSweep,
    table: pd.DataFrame,
    base: Base,
    seeds: Sequence[int],
    cache: dict[Any, World],
    merged: Sequence[str],
    coinciding: Sequence[str],
) -> str:
    """How to read the figure: which curves were merged and why, why the curves turn where they do."""
    text = ""
    if merged:
        named = ", ".join(merged) if len(merged) <= 3 else f"{len(merged)} measures, e.g. {', '.join(merged[:2])}"
        text += (
            f"P and NDCG coincide here ({named}: one line, one table row each): every list is fully "
            "relevant or holds no relevant item, so each user's P@k and NDCG@k are both 1 or both 0."
        )
    if coinciding:
        text += (
            f" These measures coincide on this sweep's populations: {'; '.join(coinciding)} "
            "(equal at every point and seed, to 1e-12; one line and one table row each). Every "
            "user's effectiveness is 0 or 1 here, so every gap |S(u) − S(v)| is 0 or 1, and "
            "measures that differ only in how they weigh a gap (|gap|, gap², "
            "max(0, |gap| − (1 − sim))) take the same value on such gaps; on graded "
            "effectiveness they need not agree."
        )
    if spec.name == "skewness":
        text += _fixed_mean_text(table, base, seeds, cache)
    if spec.parameter == "skewness":
        text += (
            " Measures that read no similarity are here for contrast: they can only be flat "
            "along this axis (their level may differ by pairing)."
        )
    return text.strip()


def _trend_rows(responses: pd.DataFrame, merged: Sequence[str], spec: BuiltinSweep) -> pd.DataFrame:
    """The trend table a section shows: a merged pair once, a measure's rows together, named columns."""
    from puf.reports.tables import merged_rows

    columns = ["measure"] + (["condition"] if spec.cross else []) + ["trend", "undefined_at", "change"]
    shown = merged_rows(responses, merged)[columns].round({"change": 4})
    order = {m: i for i, m in enumerate(dict.fromkeys(shown["measure"]))}
    shown = shown.sort_values("measure", key=lambda c: c.map(order), kind="stable")
    return shown.rename(
        columns={
            "trend": f"trend as the {_XLABEL[spec.parameter]} rises",
            "undefined_at": "undefined at",
            "change": "change (max − min)",
        }
    )


def _contrast_rows(contrast: pd.DataFrame, merged: Sequence[str]) -> pd.DataFrame:
    from puf.reports.tables import merged_rows

    shown = merged_rows(contrast, merged)
    return pd.DataFrame(
        {
            "measure": shown["measure"],
            "most_unfair against most_fair": shown["verdict"],
            "points where most_unfair is higher": [f"{a} of {n}" for a, n in zip(shown["above"], shown["points"])],
            "mean of most_unfair − most_fair": shown["gap"].round(4),
        }
    )


_XLABEL = {
    "zero_relevance": "share of users with zero relevance",
    "skewness": "skewness of the similarity distribution",
}
