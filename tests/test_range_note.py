"""A value another row shows outside the declared range, where the range row holds, is said in a
closing line: every example is a valid population, so the range search missed one."""

import dataclasses

import numpy as np

from puf import as_measure
from puf.cli import main
from puf.properties import verdicts
from puf.properties.running.display import range_note


def two_below_a_millionth(effectiveness):
    """The mean, but 2 where every S is below a millionth and one is not 0: a value no drawn
    population (S on a grid of hundredths) reaches, and continuity's bisection towards 0 does."""
    s = np.asarray(effectiveness, dtype=float)
    return 2.0 if 0 < s.max() < 1e-6 else float(s.mean())


def test_a_value_out_of_range_in_another_row_is_said_where_the_range_row_holds(capsys):
    measure = as_measure(two_below_a_millionth)
    rows = verdicts(measure, properties=["range", "continuity"], max_examples=10)
    assert [v.status for v in rows] == ["holds", "violated"]
    note = range_note(measure, rows)
    assert note is not None and note.startswith("Its range row holds, but its continuity row shows the value 2 (m = 2)")
    assert main(["check", f"{__file__}:two_below_a_millionth", "--property", "range,continuity", "--quiet"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "outside the declared range [0, 1]: the range search drew no population like that one" in out


def test_no_line_where_the_range_row_shows_it_or_the_values_are_within_a_coarse_rounding():
    measure = as_measure(two_below_a_millionth)
    rows = verdicts(measure, properties=["range", "continuity"], max_examples=10)
    assert range_note(measure, [dataclasses.replace(rows[0], status="violated"), rows[1]]) is None
    rounding = {**rows[1].example, "value_after": 1.0 + 1e-4}  # float16 rounds 1 to within 2 · 2⁻¹⁰ at m = 2
    assert range_note(measure, [rows[0], dataclasses.replace(rows[1], example=rounding)]) is None
