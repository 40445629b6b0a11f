"""Checked fields of an atomic file: numbers where numbers are needed, one row per item.

:func:`~puf.data.read_atomic` reads each field as its header declares. The harness
needs more of some fields: the rating and the timestamp are numbers whatever their
declared type, and an ``.item`` file gives one value per item. A breach is a
``ValueError`` naming the file, the line and the field, as the reader's own are.
"""

from __future__ import annotations

__all__ = ["numeric_field", "one_row_per_key"]

import numpy as np
import pandas as pd
from numpy.typing import NDArray


def _line_of(frame, row):
    """``"PATH: line N"`` of the frame's row ``row`` (blank lines skipped, as the reader does)."""
    path = frame.attrs.get("path")
    if not path:
        return f"row {row + 1}"
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        numbers = [n for n, line in enumerate(handle, start=1) if n > 1 and line.rstrip("\n").removesuffix("\r")]
    return f"{path}: line {numbers[row]}" if row < len(numbers) else f"{path}: row {row + 1}"


def numeric_field(frame: pd.DataFrame, name: str) -> NDArray[np.float64]:
    """Return field ``name`` of an atomic table as float64; ValueError unless it holds numbers.

    A ``float`` field is returned as it is; a ``token`` field is accepted when
    every cell spells a number; a sequence field (``float_seq``,
    ``token_seq``) holds several values per line and is refused. An empty or
    NaN cell is refused in every field (it would be dropped or sorted last unseen).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"rating": ["4", "good"]})
    >>> frame.attrs["types"] = {"rating": "token"}
    >>> numeric_field(frame, "rating")
    Traceback (most recent call last):
    ...
    ValueError: row 2: field 'rating' (token) holds 'good', not a number
    >>> numeric_field(frame.iloc[:1], "rating").tolist()
    [4.0]
    """
    column = frame[name]
    kind = frame.attrs.get("types", {}).get(name, str(column.dtype))
    if column.dtype.kind in "fiub":
        numbers = column.to_numpy(dtype=np.float64)
        missing = np.flatnonzero(np.isnan(numbers))
        if missing.size:
            raise ValueError(
                f"{_line_of(frame, int(missing[0]))}: field {name!r} ({kind}) holds an empty or NaN cell, not a number"
            )
        return numbers
    if kind in ("float_seq", "token_seq"):
        row = next((i for i, v in enumerate(column) if len(v) != 1), 0) if len(column) else 0
        shown = " ".join(map(str, column.iloc[row])) if len(column) else ""
        raise ValueError(
            f"{_line_of(frame, row)}: field {name!r} ({kind}) holds a sequence "
            f"{shown!r}; {name} needs one number per line: declare it "
            f"'{name}:float'"
        )
    text = column.astype(str).str.strip()
    numbers = pd.to_numeric(text.replace("", np.nan), errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(np.isnan(numbers))  # not a number, "" and "nan" included
    if bad.size:
        row = int(bad[0])
        raise ValueError(f"{_line_of(frame, row)}: field {name!r} ({kind}) holds {column.iloc[row]!r}, not a number")
    return numbers


def one_row_per_key(frame: pd.DataFrame, key: str, *, what: str) -> pd.DataFrame:
    """Return ``frame`` with one row per ``key``; ValueError when a key's rows disagree.

    The same row listed twice is read once; two rows for one key that differ
    in any field are refused, naming both lines: which one holds would be a guess.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"item_id": ["a", "a", "b"], "genre": [("X",), ("X",), ("Y",)]})
    >>> one_row_per_key(items, "item_id", what="item")["item_id"].tolist()
    ['a', 'b']
    >>> items.loc[1, "genre"] = ("Y",)
    >>> one_row_per_key(items, "item_id", what="item")
    Traceback (most recent call last):
    ...
    ValueError: row 2: item 'a' is listed twice with different values (first at row 1): give each item one line
    """
    keys = frame[key].astype(str)
    repeated = keys.duplicated(keep=False).to_numpy()
    if not repeated.any():
        return frame
    shown = frame.astype(str)  # tuples and floats compare by their text, NaN included
    distinct = shown.drop_duplicates()
    clash = distinct[key].duplicated(keep=False)
    if clash.any():
        value = distinct[key][clash].iloc[0]
        rows = np.flatnonzero((keys == value).to_numpy())
        first = int(rows[0])
        second = next(int(r) for r in rows[1:] if not shown.iloc[r].equals(shown.iloc[first]))
        raise ValueError(
            f"{_line_of(frame, second)}: {what} {value!r} is listed twice with "
            f"different values (first at {_line_of(frame, first).rpartition(': ')[2]}): "
            f"give each {what} one line"
        )
    return frame.loc[~keys.duplicated().to_numpy()]
