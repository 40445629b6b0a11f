"""RecBole atomic-file reader: dtypes, line handling and every malformed case."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puf.data import ATOMIC_TYPES, read_atomic, write_atomic

HEADER = "user_id:token\titem_id:token\trating:float\ttags:token_seq\tvec:float_seq"


def write(tmp_path, text, name="toy.inter"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_each_type_gets_its_dtype(tmp_path):
    path = write(tmp_path, HEADER + "\nu1\ti1\t4\ta b\t0.5 1\nu2\ti2\t2.5\t\t\n")
    frame = read_atomic(path)
    assert list(frame.columns) == ["user_id", "item_id", "rating", "tags", "vec"]
    assert frame["user_id"].tolist() == ["u1", "u2"]
    assert pd.api.types.is_string_dtype(frame["user_id"])
    assert frame["rating"].dtype == np.float64
    assert frame["rating"].tolist() == [4.0, 2.5]
    assert frame["tags"].tolist() == [("a", "b"), ()]
    assert frame["vec"].tolist() == [(0.5, 1.0), ()]
    assert frame.attrs["types"] == {
        "user_id": "token",
        "item_id": "token",
        "rating": "float",
        "tags": "token_seq",
        "vec": "float_seq",
    }
    assert frame.attrs["path"] == str(path)


def test_tokens_keep_leading_zeros_and_spaces(tmp_path):
    # zip codes and titles: a token is text, never a number, and may hold spaces
    path = write(tmp_path, "zip:token\ttitle:token\n00501\tToy Story\n", "toy.user")
    frame = read_atomic(path)
    assert frame["zip"].tolist() == ["00501"]
    assert frame["title"].tolist() == ["Toy Story"]


def test_empty_float_is_nan_and_nan_spelling_is_allowed(tmp_path):
    frame = read_atomic(write(tmp_path, "a:token\tx:float\nu\t\nv\tnan\nw\t1e3\n"))
    values = frame["x"].tolist()
    assert math.isnan(values[0]) and math.isnan(values[1]) and values[2] == 1000.0


def test_crlf_reads_like_lf(tmp_path):
    lf = read_atomic(write(tmp_path, HEADER + "\nu1\ti1\t4\ta\t1\n", "lf.inter"))
    crlf = read_atomic(write(tmp_path, (HEADER + "\nu1\ti1\t4\ta\t1\n").replace("\n", "\r\n"), "crlf.inter"))
    pd.testing.assert_frame_equal(lf, crlf)


def test_blank_lines_are_skipped_but_counted(tmp_path):
    path = write(tmp_path, "a:token\tb:float\nx\t1\n\ny\t2\n\nz\n")
    with pytest.raises(ValueError, match=r"line 6: expected 2 tab-separated cells"):
        read_atomic(path)
    path = write(tmp_path, "a:token\tb:float\nx\t1\n\ny\t2\n\n", "ok.inter")
    assert read_atomic(path)["a"].tolist() == ["x", "y"]


def test_careful_path_agrees_with_fast_path(tmp_path):
    # a lone carriage return inside a cell derails pandas' C reader (row count differs),
    # and a float padded with spaces is refused by it: both go through the careful path.
    frame = read_atomic(write(tmp_path, "a:token\tb:float\nx\ry\t 2 \nz\t3\n"))
    assert frame["a"].tolist() == ["x\ry", "z"]
    assert frame["b"].tolist() == [2.0, 3.0]


def test_columns_selects_and_orders(tmp_path):
    path = write(tmp_path, HEADER + "\nu1\ti1\t4\ta\t1\n")
    frame = read_atomic(path, columns=["rating", "user_id"])
    assert list(frame.columns) == ["rating", "user_id"]
    with pytest.raises(ValueError, match=r"columns \['nope'\] are not fields"):
        read_atomic(path, columns=["nope"])


def test_header_only_gives_empty_typed_frame(tmp_path):
    frame = read_atomic(write(tmp_path, "a:token\tb:float\n"))
    assert frame.shape == (0, 2)
    assert frame["b"].dtype == np.float64


MALFORMED = [
    # (file text, expected line, expected problem)
    ("", 1, "missing header"),
    ("\nu\ti\n", 1, "missing header"),
    ("user_id\titem_id:token\nu\ti\n", 1, "has no type"),
    (":token\nu\n", 1, "has no type"),
    ("user_id:int\nu\n", 1, "unknown type 'int'"),
    ("user_id:token\titem_id:Token\nu\ti\n", 1, "unknown type 'Token'"),
    ("a:token\ta:float\nu\t1\n", 1, "appears twice"),
    ("a:token\tb:token\nu\ti\nv\n", 3, "expected 2 tab-separated cells"),
    ("a:token\tb:token\nu\ti\tx\n", 2, "expected 2 tab-separated cells"),
    ("a:token\tr:float\nu\t1\nv\tfive\n", 3, "non-numeric value 'five'"),
    ("a:token\tr:float\nu\t4,5\n", 2, "non-numeric value '4,5'"),
    ("a:token\tv:float_seq\nu\t1 2\nv\t1 x 3\n", 3, "non-numeric value 'x'"),
]


@pytest.mark.parametrize("text, line, problem", MALFORMED)
def test_malformed_file_names_file_line_and_problem(tmp_path, text, line, problem):
    path = write(tmp_path, text, "bad.inter")
    with pytest.raises(ValueError) as caught:
        read_atomic(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: line {line}: "), message
    assert problem in message


def test_unknown_type_message_lists_known_types(tmp_path):
    with pytest.raises(ValueError, match="known types: token, token_seq, float, float_seq"):
        read_atomic(write(tmp_path, "a:str\nx\n"))


tokens = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp")), min_size=1, max_size=8)
floats = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(deadline=None)
@given(rows=st.lists(st.tuples(tokens, floats, st.lists(tokens, max_size=3), st.lists(floats, max_size=3)), max_size=6))
def test_write_then_read_round_trips(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("rt") / "rt.item"
    frame = pd.DataFrame(
        {
            "id": pd.Series([r[0] for r in rows], dtype=object),
            "x": pd.Series([r[1] for r in rows], dtype=np.float64),
            "tags": pd.Series([tuple(r[2]) for r in rows], dtype=object),
            "vec": pd.Series([tuple(r[3]) for r in rows], dtype=object),
        }
    )
    write_atomic(frame, path, types={"id": "token", "x": "float", "tags": "token_seq", "vec": "float_seq"})
    back = read_atomic(path)
    assert back["id"].tolist() == frame["id"].tolist()
    assert back["x"].tolist() == frame["x"].tolist()
    assert back["tags"].tolist() == frame["tags"].tolist()
    assert back["vec"].tolist() == frame["vec"].tolist()
    assert set(back.attrs["types"].values()) <= set(ATOMIC_TYPES)


def test_write_rejects_unknown_type(tmp_path):
    with pytest.raises(ValueError, match=r"types\['a'\] must be one of"):
        write_atomic(pd.DataFrame({"a": [1]}), tmp_path / "x.inter", types={"a": "int"})


def test_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "bom.inter"
    path.write_bytes("\ufeffuser_id:token\tr:float\nu\t1\n".encode("utf-8"))
    assert list(read_atomic(path).columns) == ["user_id", "r"]
