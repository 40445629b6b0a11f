"""Figures and report documents on small hand-made tables."""

import base64
import io
import re

import matplotlib.image
import numpy as np
import pandas as pd

from reports.figures import OKABE_ITO, plot_heatmap, plot_sweep, save_figure
from reports.render import VERDICT_STYLE, Section, render_html, render_markdown


def _table():
    rows = []
    for seed in (0, 1):
        for p in (0.0, 0.5, 1.0):
            rows.append(("Gini-P", p, seed, p if p < 1 else np.nan))
            rows.append(("SD-P", p, seed, np.sqrt(p * (1 - p)) + 0.01 * seed))
    return pd.DataFrame(rows, columns=["measure", "value", "seed", "score"])


def test_panels_per_family_and_undefined_points_are_marked():
    fig = plot_sweep(_table(), title="T", xlabel="share", families={"Gini-P": "Gini", "SD-P": "SD"},
                     percent=True)
    gini, sd = fig.axes[:2]
    assert (gini.get_title(), sd.get_title()) == ("Gini", "SD")
    # The mean line of Gini has a gap (NaN) at 100%, and an "undefined" marker there.
    line = gini.get_lines()[0]
    assert np.isnan(line.get_ydata()[-1])
    # One legend under the grid names every line once, and the undefined marker.
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["Gini-P", "undefined (NaN)", "SD-P"]
    # The cross sits inside the axes (y = 5% of the axes height), not on or below the edge.
    cross = gini.get_lines()[-1]
    assert cross.get_marker() == "x" and cross.get_ydata().tolist() == [0.05] and cross.get_clip_on()
    # Band = min to max over the two seeds (they differ for SD).
    assert len(sd.collections) == 1
    assert line.get_color().lower() == OKABE_ITO[0].lower()
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
    verdicts = pd.DataFrame([("sd", "range", "holds", ""), ("sd", "similarity-sensitive", "violated",
                                                               "ignores similarity <b>")],
                            columns=["measure", "property", "verdict", "detail"])
    section = Section("sweep", "Sweep & co", "text", png, pd.DataFrame({"measure": ["SD-P"], "label": ["flat"]}),
                      ["sweep.csv"])
    kwargs = dict(title="R", provenance={"seeds": "0, 1"}, sections=[section], verdicts=verdicts,
                  verdict_note="note")
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
