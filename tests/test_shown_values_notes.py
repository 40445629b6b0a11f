"""A value another row shows outside the declared range, or NaN or infinite, where the range or
defined row holds, is said in a closing line: every example is a valid population, so that row's
search missed one."""

import dataclasses
from types import SimpleNamespace

import numpy as np

from puf import as_measure
from puf.cli import main
from puf.properties import verdicts
from puf.properties.running.display import defined_note, example_size, range_note


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


def envy_over_gap(effectiveness, utility):
    """The largest envy over the effectiveness gap of its pair: inf at a tie, and near one far above 1."""
    s, u = np.asarray(effectiveness), np.asarray(utility)
    envy, gap = u - np.diag(u)[:, None], np.abs(s[:, None] - s[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.nanmax(np.where(envy > 0, envy / gap, 0.0)))


def spread_over_gap(effectiveness):
    """A thousandth of the spread to 1 over the largest gap: small wherever the drawn gaps are."""
    s = np.asarray(effectiveness, dtype=float)
    return float(1e-3 * (1.0 - s.min()) / (s.max() - s.min()))


def test_the_range_row_itself_finds_a_ratio_that_runs_away_beside_a_tie_or_a_zero():
    # The hand-made extremes moved by a step of a millionth: next to where each ratio is undefined.
    for function, fields in ((envy_over_gap, ["effectiveness", "utility"]), (spread_over_gap, ["effectiveness"])):
        (row,) = verdicts(as_measure(function), properties=["range"], max_examples=10)
        assert row.status == "violated" and row.example["value_before"] > 1.0, row
        assert example_size(row.example) == 2 and set(row.example["before"]) == set(fields), row.example
        assert range_note(as_measure(function), [row]) is None


def test_no_line_where_the_range_row_shows_it_or_the_values_are_within_a_coarse_rounding():
    measure = as_measure(two_below_a_millionth)
    rows = verdicts(measure, properties=["range", "continuity"], max_examples=10)
    assert range_note(measure, [dataclasses.replace(rows[0], status="violated"), rows[1]]) is None
    rounding = {**rows[1].example, "value_after": 1.0 + 1e-4}  # float16 rounds 1 to within 2 · 2⁻¹⁰ at m = 2
    assert range_note(measure, [rows[0], dataclasses.replace(rows[1], example=rounding)]) is None


def test_a_nan_shown_in_another_row_is_said_where_the_defined_row_holds():
    nan_shown = {"value_before": 0.1, "value_after": float("nan"), "before": {"effectiveness": [0.0, 0.5]}}
    rows = [
        SimpleNamespace(property="defined", status="holds", example=None),
        SimpleNamespace(property="pigou-dalton", status="holds", example=None),
        SimpleNamespace(property="strict-transfer", status="undefined", example=nan_shown),
    ]
    assert defined_note(rows) == (
        "Its defined row holds, but its strict-transfer row shows the value nan (m = 2): the defined search drew "
        "no population like that one."
    )
    assert defined_note([SimpleNamespace(property="defined", status="violated", example=nan_shown), *rows[1:]]) is None
    assert defined_note(rows[:2]) is None


def test_pytest_measure_gives_both_lines_from_what_its_tests_recorded():
    from puf.properties.running.plugin import _VERDICT, _notes

    def report(name, status, example):
        read = {"status": status, "n_examples": 5, "example": example, "reads": ["effectiveness"]}
        read.update(direction="lower", range=[0.0, 1.0])
        return SimpleNamespace(nodeid=f"mine.py:f::{name}", user_properties=[(_VERDICT, read)])

    lines = _notes(
        [
            report("range", "holds", {}),
            report("defined", "holds", {}),
            report("continuity", "violated", {"value_before": 0.0, "value_after": 7.5, "m": 3}),
            report("pigou-dalton", "undefined", {"value_before": float("inf"), "m": 4}),
        ]
    )
    assert lines == [
        "mine.py:f: Its range row holds, but its continuity row shows the value 7.5 (m = 3), outside the declared "
        "range [0, 1]: the range search drew no population like that one. A measure whose values lie elsewhere "
        "declares where: @puf.measure(range=(low, high)).",
        "mine.py:f: Its defined row holds, but its pigou-dalton row shows the value inf (m = 4): the defined search "
        "drew no population like that one.",
    ]
