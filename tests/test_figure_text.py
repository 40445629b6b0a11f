"""Every figure of `puf report` (and with a user's `--measure`) keeps its texts apart and inside it.

Measured with matplotlib's own text extents after drawing: no two texts' boxes overlap and
none leaves the figure, with the report's 24 built-in measures, a user's two, and the
power table's properties.
"""

import textwrap

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from puf import load_measure
from puf.reports.sweeps import Base
from puf.reports.power import plot_power
from puf.reports.report import sweep_extra
from puf.reports.sections import sweep_figure
from puf.reports.sweeps import SWEEPS
from puf.reports.tables import merge_coinciding, merge_identical, relative_to_random

USER = '''
import numpy as np


def squared_gap(effectiveness, similarity):
    """Similarity-weighted mean squared gap (coincides with PUF on 0/1 effectiveness)."""
    s = np.asarray(effectiveness)
    upper = np.triu_indices(len(s), 1)
    return float(np.mean(similarity[upper] * (s[:, None] - s[None, :])[upper] ** 2))


def widest_similar_gap(effectiveness, similarity):
    """Largest gap over pairs at least half similar."""
    s = np.asarray(effectiveness)
    upper = np.triu_indices(len(s), 1)
    gaps = np.abs(s[:, None] - s[None, :])[upper]
    close = similarity[upper] >= 0.5
    return float(gaps[close].max()) if close.any() else 0.0
'''


def _texts(fig):
    """(text, box) of every text drawn: visible, non-empty, tick labels only where a tick is shown."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    hidden = set()
    for ax in fig.axes:
        for axis, (low, high) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            low, high = sorted((low, high))
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - 1e-9 * abs(high - low) <= tick.get_loc() <= high + 1e-9 * abs(high - low):
                    hidden.update({id(tick.label1), id(tick.label2)})
    found = []
    for text in fig.findobj(Text):
        axes = text.axes
        if (
            not text.get_visible()
            or not text.get_text().strip()
            or id(text) in hidden
            or (axes is not None and not axes.get_visible())
        ):
            continue
        if any(not parent.get_visible() for parent in _parents(text)):
            continue
        found.append((text.get_text(), text.get_window_extent(renderer)))
    return found, fig.bbox


def _parents(text):
    artist = getattr(text, "_parent_figure", None)  # legends and their boxes set no parent
    return [artist] if artist is not None and artist is not text.figure else []


def assert_readable(fig, name):
    texts, frame = _texts(fig)
    for text, box in texts:
        assert (
            box.x0 >= frame.x0 - 1 and box.y0 >= frame.y0 - 1 and box.x1 <= frame.x1 + 1 and box.y1 <= frame.y1 + 1
        ), f"{name}: {text!r} leaves the figure"
    for i, (a, box_a) in enumerate(texts):
        for b, box_b in texts[i + 1 :]:
            overlap = (
                min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0),
                min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0),
            )
            assert min(overlap) <= 1, f"{name}: {a!r} and {b!r} overlap"


@pytest.fixture(scope="module")
def user_measures(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mine")
    (folder / "mymeasure.py").write_text(textwrap.dedent(USER), encoding="utf-8")
    return tuple(load_measure(f"{folder / 'mymeasure.py'}:{name}") for name in ("squared_gap", "widest_similar_gap"))


@pytest.mark.parametrize("with_user", [False, True], ids=["builtins", "with --measure"])
@pytest.mark.parametrize("name", list(SWEEPS))
def test_sweep_figures_keep_texts_apart_and_inside(name, with_user, user_measures):
    spec, base, cache = SWEEPS[name], Base(n_users=30, n_items=150, k=5), {}
    extra = sweep_extra(spec, user_measures if with_user else ())
    table = spec.run(seeds=[0, 1], base=base, extra=extra, quick=True, cache=cache)
    drawn, _ = merge_identical(table)
    drawn, _ = merge_coinciding(drawn)
    if name == "skewness_free_mean":
        drawn, _ = relative_to_random(drawn)
    fig = sweep_figure(spec, drawn, base, [0, 1], cache)
    assert fig.get_size_inches()[0] * 110 <= 1400  # the report's width at its 110 dpi
    assert_readable(fig, name)


def test_power_figure_keeps_texts_apart_and_inside():
    import json

    import pandas as pd

    from puf.properties.knowledge.power_table import POWER_TABLE

    stored = json.loads(POWER_TABLE.read_text(encoding="utf-8"))
    detection = pd.DataFrame(stored["detection"])
    detection.columns = [int(c) for c in detection.columns]
    fig = plot_power(detection.sort_index(axis=1), stored.get("false_alarms", {}), [60])
    assert_readable(fig, "power")


def test_the_check_sees_an_overlap():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2))
    ax = fig.subplots()
    ax.set_axis_off()
    ax.text(0.5, 0.5, "one label")
    ax.text(0.52, 0.5, "another label")
    with pytest.raises(AssertionError, match="overlap"):
        assert_readable(fig, "planted")
    fig = Figure(figsize=(3, 2))
    fig.text(0.9, 0.5, "a text running off the right edge")
    with pytest.raises(AssertionError, match="leaves the figure"):
        assert_readable(fig, "planted")
    assert np.isfinite(fig.get_size_inches()).all()
