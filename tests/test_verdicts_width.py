"""A verdict table fits the terminal's width: details and examples wrap under their column."""

from puf.properties import CATALOG, verdicts
from puf.properties.running.display import format_example, format_verdicts


def test_a_verdict_table_fits_its_width_and_says_the_same():
    results = verdicts("gini", properties=["range", "similarity-zero", "attainable-range"], max_examples=5)
    wide = format_verdicts(results, catalog=CATALOG)
    assert max(len(line) for line in wide.splitlines()) > 100  # the details are long sentences
    narrow = format_verdicts(results, catalog=CATALOG, width=100)
    assert max(len(line) for line in narrow.splitlines()) <= 100
    assert narrow.split() == wide.split()  # the same words, only the lines broken


def test_an_example_wraps_its_change_and_its_matrices():
    example = {
        "change": "every user copied 2 times (a user and its copies: similarity 1) " * 3,
        "value_before": 0.5,
        "value_after": None,
        "violation": 0.5,
        "error": None,
        "after": None,
        "before": {"effectiveness": [i / 40 for i in range(40)]},
    }
    text = format_example(example, indent=10, width=60)
    assert max(len(line) for line in text.splitlines()) <= 60
    assert all(line.startswith(" " * 10) for line in text.splitlines())
    assert format_example(example, indent=10).split() == text.split()  # the same words and numbers
