"""``puf evaluate``'s printed table: it fits the terminal, keeps effectiveness, never prints 0 for a non-zero."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puf.cli import main
from puf.cli.commands.score_table import format_table, number


def _toy(tmp_path):
    rows = [f"u{u}\ti{(u + j) % 12}\t{3 + (j % 3)}\t{j}" for u in range(10) for j in range(9)]
    inter = tmp_path / "toy.inter"
    inter.write_text("user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows) + "\n")
    item = tmp_path / "toy.item"
    item.write_text(
        "item_id:token\tgenre:token_seq\n"
        + "\n".join(f"i{i}\t{['Drama', 'Comedy War', 'Action'][i % 3]}" for i in range(12))
        + "\n"
    )
    return ["--inter", str(inter), "--item", str(item)]


def _evaluate(tmp_path, capsys, *options):
    out = tmp_path / "out"
    assert main(["evaluate", *_toy(tmp_path), "--out", str(out), "-q", *options]) == 0
    printed = capsys.readouterr()
    return printed.out, printed.err, pd.read_csv(out / "scores.csv", index_col="ranker")


@pytest.mark.parametrize("columns", [60, 100])
def test_the_printed_table_fits_the_terminal_and_holds_every_measure(tmp_path, capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    printed, _, scores = _evaluate(tmp_path, capsys, "--rankers", "mostpop,itemknn,random")
    lines = printed.splitlines()
    assert max(len(line) for line in lines) <= columns
    rows = {line.split()[0] for line in lines if line.strip()}
    assert set(scores.columns) <= rows  # one row per measure, in a block per group of rankers
    assert {"mostpop", "itemknn", "random"} <= {word for line in lines for word in line.split()}


def test_a_measure_adds_to_the_table_and_keeps_effectiveness(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    printed, _, scores = _evaluate(tmp_path, capsys, "--rankers", "mostpop", "--measure", "puf")
    assert {"P@10", "NDCG@10", "PUF-P", "PUF-NDCG", "SD-P"} <= set(scores.columns)
    rows = {line.split()[0] for line in printed.splitlines() if line.strip()}
    assert {"P@10", "NDCG@10", "PUF-NDCG"} <= rows


def test_kendall_tau_over_two_rankers_is_marked(tmp_path, capsys):
    _, said, _ = _evaluate(tmp_path, capsys, "--rankers", "mostpop,random")
    said = " ".join(said.split())  # the note folds to the terminal's width
    assert "over 2 rankers, where every Kendall's τ is +1 or −1 by construction" in said
    _, said, _ = _evaluate(tmp_path, capsys, "--rankers", "mostpop,random,itemknn", "--force")
    assert "Kendall's τ" not in said


@given(st.floats(min_value=-1e12, max_value=1e12))
def test_a_non_zero_never_prints_as_zero(value):
    text = number(value)
    assert (float(text) == 0) == (value == 0)
    assert math.isclose(float(text), value, rel_tol=1e-3)


def test_the_table_splits_rankers_into_blocks_of_the_width():
    table = pd.DataFrame(
        np.full((6, 2), 0.123456), index=pd.Index([f"ranker{i}" for i in range(6)], name="ranker"), columns=["A", "B"]
    )
    text = format_table(table, "table", width=40)
    # A ranker column takes 8 characters beside the 7 of the names: four fit in 40.
    assert max(map(len, text.splitlines())) <= 40 and text.count("measure") == 2
    assert format_table(table, "table", width=200).count("measure") == 1
    table.loc["ranker0", "A"] = float("nan")
    assert "undefined" in format_table(table, "table", width=200)


PICKY = """
import numpy as np

def picky(effectiveness):
    s = np.asarray(effectiveness)
    if np.allclose(s * 10, np.round(s * 10)):  # P@10's values, multiples of 0.1
        raise ValueError("no measure of P@10")
    return float(s.mean())
"""


def test_a_measure_that_raises_on_a_run_is_undefined_there_and_named_and_the_table_stays(tmp_path, capsys):
    (tmp_path / "picky.py").write_text(PICKY)
    printed, err, scores = _evaluate(
        tmp_path, capsys, "--rankers", "mostpop,random", "--measure", f"{tmp_path / 'picky.py'}:picky"
    )
    assert scores["picky-P"].isna().all() and scores["P@10"].notna().all()
    told = " ".join(err.split())  # (a line folded to the terminal's width)
    assert told.count("raised on") == 1
    assert (
        "puf evaluate: picky-P raised on 2 of 2 runs (mostpop, random), undefined there: ValueError: no measure of P@10"
    ) in told
    assert "picky-P" in printed
    raised = pd.read_csv(tmp_path / "out" / "raised.csv")
    assert raised.to_dict("records") == [
        {"ranker": ranker, "measure": "picky-P", "error": "ValueError: no measure of P@10"}
        for ranker in ("mostpop", "random")
    ]


def test_what_a_measure_prints_goes_to_stderr_and_stdout_holds_the_table_alone(tmp_path, capsys):
    (tmp_path / "loud.py").write_text(
        "import numpy as np\n\ndef loud(effectiveness):\n    print('called on', len(effectiveness))\n"
        "    return float(np.std(effectiveness))\n"
    )
    printed, err, scores = _evaluate(
        tmp_path, capsys, "--rankers", "mostpop", "--measure", f"{tmp_path / 'loud.py'}:loud"
    )
    assert "called on" not in printed and printed.split()[0] == "ranker"  # the table, from its first word
    assert err.count("called on 10") == 2  # P and NDCG, 10 users
    assert scores["loud-P"].notna().all()
