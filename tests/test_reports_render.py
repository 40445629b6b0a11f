"""Figures and report documents on small hand-made tables."""

import base64
import io
import re

import matplotlib.image
import numpy as np
import pandas as pd

from puf.reports.figures import plot_heatmap, plot_sweep, save_figure
from puf.reports.render import VERDICT_STYLE, Section, render_html, render_markdown


def _table():
    rows = []
    for seed in (0, 1):
        for p in (0.0, 0.5, 1.0):
            rows.append(("Gini-P", p, seed, p if p < 1 else np.nan))
            rows.append(("SD-P", p, seed, np.sqrt(p * (1 - p)) + 0.01 * seed))
    return pd.DataFrame(rows, columns=["measure", "value", "seed", "score"])


def test_one_panel_per_measure_paper_first_and_undefined_points_are_bands():
    fig = plot_sweep(_table(), title="T", xlabel="share", families={"Gini-P": "Gini", "SD-P": "SD"}, percent=True)
    sd, gini = fig.axes[:2]
    assert (sd.get_title(), gini.get_title()) == ("SD-P", "Gini-P")  # the paper's order: SD, Gini
    # The mean line of Gini has a gap (NaN) at 100%, over a hatched band, never a point at 0.
    line = gini.get_lines()[0]
    assert np.isnan(line.get_ydata()[-1])
    assert [patch.get_hatch() for patch in gini.patches] == ["///"] and not sd.patches
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["undefined (NaN or ±inf): no value"]
    # Band = min to max over the two seeds (they differ for SD).
    assert len(sd.collections) == 1
    assert "mean over 2 seeds" in fig._suptitle.get_text()


def test_hue_gives_one_line_per_level(tmp_path):
    table = _table().assign(gamma=lambda t: np.where(t.seed == 0, 0.0, 1.0))
    fig = plot_sweep(table, title="T", xlabel="share", hue="gamma")
    assert fig.axes[0].get_legend() is None  # one legend for the whole figure
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:2] == ["γ = 0", "γ = 1"]  # one spelling: γ, never gamma
    path = save_figure(fig, tmp_path / "f.png")
    assert matplotlib.image.imread(path).shape[2] in (3, 4)


def test_heatmap_writes_values():
    matrix = pd.DataFrame([[1.0, np.nan], [np.nan, 1.0]], index=["a", "b"], columns=["a", "b"])
    texts = [t.get_text() for t in plot_heatmap(matrix, title="m").axes[0].texts]
    assert texts == ["1.00", "n/a", "n/a", "1.00"]


def _pages(tmp_path):
    fig = plot_sweep(_table(), title="T", xlabel="x")
    png = save_figure(fig, tmp_path / "sweep.png")
    verdicts = pd.DataFrame(
        [("sd", "range", "holds", ""), ("sd", "similarity-sensitive", "violated", "ignores similarity <b>")],
        columns=["measure", "property", "verdict", "detail"],
    )
    section = Section(
        "sweep", "Sweep & co", "text", png, pd.DataFrame({"measure": ["SD-P"], "label": ["flat"]}), ["sweep.csv"]
    )
    kwargs = dict(title="R", provenance={"seeds": "0, 1"}, sections=[section], verdicts=verdicts, verdict_note="note")
    return render_html(**kwargs), render_markdown(**kwargs), png


def test_html_embeds_the_png_and_escapes_text(tmp_path):
    page, _, png = _pages(tmp_path)
    (src,) = re.findall(r'<img src="([^"]+)"', page)
    assert base64.b64decode(src.split(",", 1)[1]) == png.read_bytes()
    assert matplotlib.image.imread(io.BytesIO(png.read_bytes()), format="png").ndim == 3
    assert "Sweep &amp; co" in page and "ignores similarity &lt;b&gt;" in page
    assert VERDICT_STYLE["violated"][0] in page and VERDICT_STYLE["holds"][0] in page
    assert '<a href="sweep.csv">' in page


def test_markdown_links_the_png_and_tabulates_verdicts(tmp_path):
    _, text, _ = _pages(tmp_path)
    assert "![Sweep & co](sweep.png)" in text
    assert "| measure | range | similarity-sensitive |" in text
    assert "| sd | ✓ holds | ✗ violated |" in text
    assert "- **sd** / similarity-sensitive (violated): ignores similarity <b>" in text


def _pairing_table(levels):
    rows = [
        ("PUF-P", level, x, seed, x + 0.1 * i + 0.01 * seed)
        for i, level in enumerate(levels)
        for x in (0.0, 1.0, 2.0)
        for seed in (0, 1)
    ]
    return pd.DataFrame(rows, columns=["measure", "pairing", "value", "seed", "score"])


def test_a_pairing_has_one_colour_in_every_figure():
    from puf.reports.figures import LEVEL_STYLE

    colours = []
    for levels in (("random", "most_fair", "most_unfair"), ("most_fair", "most_unfair")):
        fig = plot_sweep(_pairing_table(levels), title="T", xlabel="x", hue="pairing")
        colours.append({line.get_label(): line.get_color() for line in fig.axes[0].get_lines()})
    for level in ("most_fair", "most_unfair"):
        label = f"pairing = {level}"
        assert colours[0][label] == colours[1][label] == LEVEL_STYLE[level][0]


def test_default_gamma_is_bold_and_named():
    table = _table().assign(gamma=lambda t: np.where(t.seed == 0, 0.5, 1.0))
    fig = plot_sweep(table, title="T", xlabel="share", hue="gamma", default=0.5)
    widths = {line.get_label(): line.get_linewidth() for line in fig.axes[0].get_lines()}
    assert widths["γ = 0.5 (default)"] > widths["γ = 1"]


def test_log_scale_where_a_curve_spans_decades():
    rows = [("PUF-P", x, 0, 10.0**-x) for x in range(5)] + [("SD-P", x, 0, 0.5) for x in range(5)]
    table = pd.DataFrame(rows, columns=["measure", "value", "seed", "score"])
    fig = plot_sweep(table, title="T", xlabel="x", logy=True)
    scales = {ax.get_title(): ax.get_yscale() for ax in fig.axes if ax.get_visible()}
    assert scales == {"PUF-P": "log", "SD-P": "linear"}


def test_identical_p_and_ndcg_variants_become_one_line():
    from puf.reports.tables import merge_identical

    table = pd.concat([_table(), _table().assign(measure=lambda t: t.measure.str.replace("-P", "-NDCG"))])
    table.loc[(table.measure == "SD-NDCG") & (table.value == 0.5), "score"] += 0.1  # SD differs
    merged, names = merge_identical(table)
    assert names == ["Gini-P = Gini-NDCG"]
    assert sorted(merged.measure.unique()) == ["Gini-P = Gini-NDCG", "SD-NDCG", "SD-P"]


def test_twenty_two_measures_get_their_own_panels_and_scales():
    """One panel per measure (its own y scale), five columns, a user's measures last."""
    names = [f"M{i}" for i in range(22)]
    family = {n: ("inequality indices", "your measures", "similarity-aware")[i % 3] for i, n in enumerate(names)}
    rows = [(n, x, 0, (i + 1) * x) for i, n in enumerate(names) for x in (0.0, 0.5, 1.0)]
    fig = plot_sweep(
        pd.DataFrame(rows, columns=["measure", "value", "seed", "score"]), title="T", xlabel="x", families=family
    )
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 22 and all(len(ax.get_lines()) == 1 for ax in panels)
    titles = [ax.get_title() for ax in panels]
    assert titles[-7:] == [n for n in names if family[n] == "your measures"]
    assert panels[0].get_ylim()[1] < panels[-1].get_ylim()[1]  # own scales
    assert fig.get_size_inches()[0] * 110 <= 1400


def test_family_comes_from_measure_metadata_when_present(monkeypatch):
    import dataclasses

    import puf
    from puf.reports.sections import family as _family

    assert _family("SD-NDCG") == "inequality indices" == puf.MEASURES["sd"].family
    assert _family("SD-P = SD-NDCG") == "inequality indices"
    assert _family("widest_gap-P") == "your measures"
    tagged = dataclasses.replace(puf.MEASURES["sd"], family="similarity-aware")
    monkeypatch.setitem(puf.MEASURES, "sd", tagged)
    assert _family("SD-NDCG") == "similarity-aware"


def test_cell_reasons_come_from_the_known_file_when_it_pins_the_verdict(tmp_path, monkeypatch):
    import json

    from puf.reports import verdicts as report_verdicts

    monkeypatch.setattr(report_verdicts, "KNOWN_DIR", tmp_path)
    (tmp_path / "sd.json").write_text(
        json.dumps(
            {
                "measure": "sd",
                "verdicts": {"range": "holds", "similarity-sensitive": "violated"},
                "reasons": {
                    "range": "SD of values in [0, 1] is at most 0.5",
                    "similarity-sensitive": "SD reads no similarity: no change of it moves SD",
                },
            }
        )
    )
    records = [
        {"measure": "sd", "property": "range", "status": "holds", "reason": "no counterexample"},
        {"measure": "sd", "property": "similarity-sensitive", "status": "holds", "reason": "a witness"},
        {"measure": "mine", "property": "range", "status": "violated", "reason": "value 2 > 1"},
    ]
    reasons = report_verdicts.plain_reasons(records)
    assert reasons["sd", "range"] == "SD of values in [0, 1] is at most 0.5"
    assert reasons["sd", "similarity-sensitive"] == "a witness"  # the file pins another verdict
    assert reasons["mine", "range"] == "value 2 > 1"  # a user's measure has no file
    verdicts = pd.DataFrame(
        [("sd", "range", "holds", reasons["sd", "range"], "no counterexample")],
        columns=["measure", "property", "verdict", "reason", "detail"],
    )
    page = render_html(
        title="R",
        provenance={},
        sections=[],
        verdicts=verdicts,
        statements={"range": "the value lies in the declared range"},
    )
    assert 'title="holds: SD of values in [0, 1] is at most 0.5 (this run: no counterexample)"' in page
    assert '<th title="range: the value lies in the declared range">' in page


def test_free_mean_ratio_panel_tells_the_pairings_apart():
    from puf.reports.tables import relative_to_random

    rows = [
        ("PUF-P", pairing, x, 0, factor * 10.0**-x)
        for pairing, factor in (("random", 1.0), ("most_fair", 0.5), ("most_unfair", 1.2))
        for x in range(4)
    ]
    rows += [("SD-P", pairing, x, 0, 0.5) for pairing in ("random", "most_fair") for x in range(4)]
    table = pd.DataFrame(rows, columns=["measure", "pairing", "value", "seed", "score"])
    out, names = relative_to_random(table)
    assert names == ["PUF-P ÷ random pairing"]  # SD does not fall over a decade: no ratio panel
    ratio = out[out.measure == names[0]].groupby("pairing")["score"].agg(["min", "max"])
    np.testing.assert_allclose(ratio.loc["most_fair"], 0.5)
    np.testing.assert_allclose(ratio.loc["most_unfair"], 1.2)


def test_power_figure_is_byte_identical_on_a_rerun(tmp_path):
    from puf.reports.power import power_section

    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    assert power_section(first, budgets=[60]) is not None  # the measured table ships with the package
    power_section(second, budgets=[60])
    # power.png was written without save_figure, so it carried matplotlib's Software tag
    assert b"Software" not in (first / "power.png").read_bytes()
    assert (first / "power.png").read_bytes() == (second / "power.png").read_bytes()


def test_a_measure_undefined_on_the_whole_sweep_is_named_in_the_title_not_drawn():
    rows = [("GE-0-P", p, 0, 0.0 if p == 0 else np.nan) for p in (0.0, 0.5, 1.0)]
    table = pd.concat([_table(), pd.DataFrame(rows, columns=["measure", "value", "seed", "score"])])
    fig = plot_sweep(table, title="T", xlabel="share", families={"Gini-P": "Gini", "SD-P": "SD", "GE-0-P": "Gini"})
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == ["SD-P", "Gini-P"]
    assert "not drawn, NaN or ±inf at all but at most one point: GE-0-P" in fig._suptitle.get_text()


def test_coinciding_lines_are_named_on_their_panel():
    same = _pairing_table(("random", "most_fair", "most_unfair")).assign(score=lambda t: t.value + 0.01 * t.seed)
    notes = [t.get_text() for ax in plot_sweep(same, title="T", xlabel="x", hue="pairing").axes for t in ax.texts]
    two = same[same.pairing != "random"]
    both = [t.get_text() for ax in plot_sweep(two, title="T", xlabel="x", hue="pairing").axes for t in ax.texts]
    apart = _pairing_table(("most_fair", "most_unfair"))  # 0.1 apart at every point
    none = [t.get_text() for ax in plot_sweep(apart, title="T", xlabel="x", hue="pairing").axes for t in ax.texts]
    assert (notes, both, none) == (["all 3 lines coincide"], ["both lines coincide"], [])


def test_lines_apart_are_not_named_coinciding_for_an_infinite_point():
    """A value of +inf (a ratio over a zero) at one point of both lines: they stay apart everywhere
    else, and the tolerance they are compared with is the finite values' (it was inf: 'coincide')."""
    import warnings

    apart = _pairing_table(("most_fair", "most_unfair")).assign(score=lambda t: t.score.where(t.value < 2.0, np.inf))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (numpy warned of an infinite tolerance)
        fig = plot_sweep(apart, title="T", xlabel="x", hue="pairing")
    assert [t.get_text() for ax in fig.axes for t in ax.texts] == []


def test_every_gamma_level_has_its_own_colour_and_marker():
    levels = (0.0, 0.25, 0.5, 0.75, 1.0)
    table = pd.concat([_table().assign(gamma=g, score=lambda t, g=g: t.score + g) for g in levels])
    lines = plot_sweep(table, title="T", xlabel="share", hue="gamma", default=0.5).axes[0].get_lines()
    assert len({line.get_color() for line in lines}) == len({line.get_marker() for line in lines}) == 5


def test_the_power_figure_says_when_it_was_measured_and_lists_the_flat_properties():
    from puf.reports.power import plot_power

    detection = pd.DataFrame({10: [0.5, 1.0, 0.75], 60: [1.0, 1.0, 0.9]}, index=["range", "defined", "overall"])
    fig = plot_power(detection, {}, [60], measured="stored measurement, not made by this report: 2026-12-01")
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == ["overall", "range"]
    title = fig._suptitle.get_text()
    assert "stored measurement, not made by this report: 2026-12-01" in title
    assert "every planted flaw found at every measured budget (no panel): defined" in title


def test_every_panel_spans_the_x_range_of_all_and_the_bottom_ones_label_it():
    # As a shared x axis would: measure "B" is defined at two points only, its undefined ends
    # widen its own band past the data, and the marker lies beyond the sweep; every panel takes
    # the union of all of them, with the same ticks, and only the lowest panel of each column
    # (of two: D and E, with the slot under D empty) shows the x tick labels.
    x = np.linspace(0.0, 1.0, 5)
    rows = [
        {"measure": name, "value": v, "seed": 0, "score": np.nan if name == "B" and not 0.25 <= v <= 0.5 else v}
        for name in "ABCDE"
        for v in x
    ]
    fig = plot_sweep(pd.DataFrame(rows), title="T", xlabel="x", ncols=2, marker=1.2, marker_label="m")
    fig.draw_without_rendering()
    panels = {ax.get_title(): ax for ax in fig.axes if ax.get_visible()}
    assert sorted(panels) == list("ABCDE")
    limits = {ax.get_xlim() for ax in panels.values()}
    assert len(limits) == 1
    (low, high), step = limits.pop(), x[1] - x[0]
    assert low < -step / 2 and high > 1.2  # B's band before x = 0, the marker after x = 1
    ticks = {tuple(ax.get_xticks()) for ax in panels.values()}
    assert len(ticks) == 1
    shown = {name: any(t.label1.get_visible() for t in ax.xaxis.get_major_ticks()) for name, ax in panels.items()}
    assert shown == {"A": False, "B": False, "C": False, "D": True, "E": True}
