"""Reader for RecBole's atomic files (``.inter``, ``.item``, ``.user``, ...).

An atomic file is a tab-separated table whose first line names every column
as ``name:type``. RecBole defines four types:

=============  ==============================  =====================================
type           meaning                         pandas column
=============  ==============================  =====================================
``token``      one discrete value              ``str`` (text kept verbatim)
``token_seq``  space-separated discrete values  ``object``: a ``tuple`` of ``str``
``float``      one continuous value            ``float64`` (an empty cell is NaN)
``float_seq``  space-separated numbers         ``object``: a ``tuple`` of ``float``
=============  ==============================  =====================================

Lines are split on ``\\n`` (a trailing ``\\r`` is dropped, so the CRLF files
shipped by some RecBole packages read the same); blank lines are skipped, as
RecBole's own loader does. Every problem is reported as ``ValueError`` naming
the file, the 1-based line number (the header is line 1) and the problem.
"""

from __future__ import annotations

__all__ = ["ATOMIC_TYPES", "read_atomic", "write_atomic"]

import codecs
import csv
import io
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

#: The field types of RecBole atomic files.
ATOMIC_TYPES = ("token", "token_seq", "float", "float_seq")


def _parse_header(path, line):
    names, types = [], []
    for position, cell in enumerate(line.split("\t"), start=1):
        name, colon, kind = cell.rpartition(":")
        if not colon or not name:
            raise ValueError(
                f"{path}: line 1: header cell {position} {cell!r} has no type; "
                f"expected 'name:type' with type one of {', '.join(ATOMIC_TYPES)}"
            )
        if kind not in ATOMIC_TYPES:
            raise ValueError(
                f"{path}: line 1: header cell {position} {cell!r} has unknown type {kind!r}; "
                f"known types: {', '.join(ATOMIC_TYPES)}"
            )
        if name in names:
            raise ValueError(f"{path}: line 1: field {name!r} appears twice in the header")
        names.append(name)
        types.append(kind)
    return names, types


def _bad_float(path, name, cells, lines, numbers):
    bad = np.flatnonzero(np.isnan(numbers) & (cells != ""))
    # float("nan") is a legal spelling; only text that does not parse is an error.
    bad = [i for i in bad if cells[i].strip().lower() not in ("nan", "+nan", "-nan")]
    if bad:
        i = bad[0]
        raise ValueError(f"{path}: line {lines[i]}: field {name!r} (float) holds non-numeric value {cells[i]!r}")


def _float_column(path, name, cells, lines):
    numbers = pd.to_numeric(pd.Series(cells, dtype=object).str.strip().replace("", np.nan), errors="coerce").to_numpy(
        dtype=np.float64
    )
    _bad_float(path, name, cells, lines, numbers)
    return numbers


def _float_seq_column(path, name, cells, lines):
    out = np.empty(len(cells), dtype=object)
    for i, cell in enumerate(cells):
        try:
            out[i] = tuple(float(x) for x in cell.split())
        except ValueError:
            bad = next(x for x in cell.split() if not _is_float(x))
            raise ValueError(
                f"{path}: line {lines[i]}: field {name!r} (float_seq) holds non-numeric value {bad!r}"
            ) from None
    return out


def _is_float(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _token_seq_column(cells):
    out = np.empty(len(cells), dtype=object)
    out[:] = [tuple(cell.split()) for cell in cells]
    return out


def read_atomic(
    path: str | os.PathLike[str], *, columns: Sequence[str] | None = None, encoding: str = "utf-8-sig"
) -> pd.DataFrame:
    """Read one RecBole atomic file into a DataFrame with proper dtypes.

    Parameters
    ----------
    path : str or os.PathLike
        The atomic file (``.inter``, ``.item``, ``.user`` or any other suffix).
    columns : sequence of str, optional
        Field names to keep (without their ``:type``), in this order. Default:
        every field in file order. Unknown names raise ``ValueError``.
    encoding : str, default "utf-8-sig"
        Text encoding of the file (UTF-8; a leading byte-order mark is dropped).

    Returns
    -------
    pandas.DataFrame
        One column per field, named without its type; ``frame.attrs["types"]``
        maps each column to its atomic type and ``frame.attrs["path"]`` is the
        file read. Token columns are ``str``; float columns ``float64``;
        sequence columns hold tuples.

    Raises
    ------
    ValueError
        A header cell without a type or with an unknown type, a repeated field,
        a line with the wrong number of cells, a float cell that is not a
        number, an empty file: the message names the file, line and problem.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "toy.item").write_text(
    ...     "item_id:token\\tgenre:token_seq\\tyear:float\\n"
    ...     "i1\\tAction Comedy\\t1995\\n"
    ...     "i2\\tDrama\\t\\n")
    >>> frame = read_atomic(folder / "toy.item")
    >>> frame["genre"].tolist(), frame["year"].tolist()
    ([('Action', 'Comedy'), ('Drama',)], [1995.0, nan])
    >>> frame.attrs["types"]["genre"]
    'token_seq'
    """
    path = os.fspath(path)
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ValueError(
            f"{path}: line {line}: byte 0x{raw[exc.start]:02x} at column {column} is "
            f"not valid {exc.encoding.upper()} text; save the file as UTF-8"
        ) from None
    except LookupError:
        raise ValueError(f"encoding must be a text encoding Python knows, got {encoding!r}") from None
    header = text.split("\n", 1)[0].removesuffix("\r")
    if not header:
        raise ValueError(f"{path}: line 1: missing header (expected 'name:type' cells)")
    names, types = _parse_header(path, header)
    width = len(names)
    # UTF-8 bytes as read: the line and cell counts and the C reader need no copy of the text.
    utf8 = raw if codecs.lookup(encoding).name in ("utf-8", "utf-8-sig") else text.encode("utf-8")
    lines, counts = _line_cell_counts(utf8)
    wrong = np.flatnonzero(counts != width)
    if wrong.size:
        i = int(wrong[0])
        raise ValueError(
            f"{path}: line {lines[i]}: expected {width} tab-separated cells (one per header field), got {counts[i]}"
        )
    if columns is None:
        keep = list(range(width))
    else:
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise ValueError(f"{path}: columns {unknown} are not fields of this file; fields: {names}")
        keep = [names.index(c) for c in columns]
    table = _fast_table(utf8, types, keep, lines.size)
    if table is None:
        table = _slow_table(path, text, lines, names, types, keep)
    data = {}
    for j in keep:
        column = table[j]
        if types[j] == "token":
            data[names[j]] = pd.Series(column, dtype=str)
        elif types[j] == "float":
            data[names[j]] = pd.Series(column, dtype=np.float64)
        elif types[j] == "token_seq":
            data[names[j]] = pd.Series(_token_seq_column(column), dtype=object)
        else:
            data[names[j]] = pd.Series(_float_seq_column(path, names[j], column, lines), dtype=object)
    frame = pd.DataFrame(data, index=pd.RangeIndex(lines.size))
    frame.attrs["types"] = {names[j]: types[j] for j in keep}
    frame.attrs["path"] = path
    return frame


def _line_cell_counts(utf8):
    """Return the 1-based numbers of the non-blank lines after the header and their cell counts."""
    # Vectorised over the UTF-8 bytes: a Python loop over a million lines costs seconds.
    data = np.frombuffer(utf8, dtype=np.uint8)
    newlines = np.flatnonzero(data == 10)
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [data.size]))
    carriage = (ends > starts) & (data[np.maximum(ends - 1, 0)] == 13)
    ends = ends - carriage
    tabs = np.flatnonzero(data == 9)
    counts = np.searchsorted(tabs, ends) - np.searchsorted(tabs, starts) + 1
    numbers = np.arange(1, starts.size + 1, dtype=np.int64)
    body = (ends > starts) & (numbers > 1)
    return numbers[body], counts[body]


def _fast_table(utf8, types, keep, n_rows):
    """Parse the UTF-8 bytes with pandas' C reader; None when any cell needs the careful path."""
    floats = [j for j in keep if types[j] == "float"]
    try:
        frame = pd.read_csv(
            io.BytesIO(utf8),  # bytes: a StringIO of the text would hold 4 bytes a character
            encoding="utf-8-sig",
            sep="\t",
            header=None,
            skiprows=1,
            usecols=keep,
            dtype={j: (np.float64 if j in floats else str) for j in keep},
            quoting=csv.QUOTE_NONE,
            keep_default_na=False,
            na_values={j: [""] for j in floats},
            skip_blank_lines=True,
            engine="c",
        )
    except (ValueError, pd.errors.ParserError):
        return None
    # A stray carriage return inside a cell would shift rows: trust only an exact count.
    if len(frame) != n_rows:
        return None
    return {j: frame[j].to_numpy() for j in keep}


def _slow_table(path, text, lines, names, types, keep):
    raw = [line.removesuffix("\r") for line in text.split("\n")]
    rows = [raw[n - 1].split("\t") for n in lines]
    table = {}
    for j in keep:
        cells = np.empty(len(rows), dtype=object)
        cells[:] = [row[j] for row in rows]
        table[j] = _float_column(path, names[j], cells, lines) if types[j] == "float" else cells
    return table


def _format_cell(value, kind):
    if kind == "token":
        return str(value)
    if kind == "float":
        return "" if pd.isna(value) else repr(float(value))
    if kind == "token_seq":
        return " ".join(str(v) for v in value)
    return " ".join(repr(float(v)) for v in value)


def write_atomic(frame: pd.DataFrame, path: str | os.PathLike[str], *, types: Mapping[str, str] | None = None) -> None:
    """Write a DataFrame as a RecBole atomic file (the inverse of :func:`read_atomic`).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to write.
    path : str or os.PathLike
        Destination file; overwritten.
    types : dict of str to str, optional
        Atomic type of each column; default ``frame.attrs["types"]``, and for
        columns missing there ``float`` for numeric dtypes, else ``token``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import pandas as pd
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "toy.inter"
    >>> write_atomic(pd.DataFrame({"user_id": ["u1"], "item_id": ["i1"], "rating": [4.0]}),
    ...              target)
    >>> target.read_text().splitlines()
    ['user_id:token\\titem_id:token\\trating:float', 'u1\\ti1\\t4.0']
    """
    given = dict(frame.attrs.get("types", {}))
    given.update(types or {})
    kinds = {}
    for column in frame.columns:
        kind = given.get(column)
        if kind is None:
            kind = "float" if pd.api.types.is_numeric_dtype(frame[column]) else "token"
        if kind not in ATOMIC_TYPES:
            raise ValueError(f"types[{column!r}] must be one of {ATOMIC_TYPES}, got {kind!r}")
        kinds[column] = kind
    lines = ["\t".join(f"{c}:{kinds[c]}" for c in frame.columns)]
    columns = [[_format_cell(v, kinds[c]) for v in frame[c]] for c in frame.columns]
    lines.extend("\t".join(cells) for cells in zip(*columns))
    with open(os.fspath(path), "w", encoding="utf-8", newline="\n") as handle:
        handle.write("\n".join(lines) + "\n")
