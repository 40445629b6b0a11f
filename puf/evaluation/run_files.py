"""Ranked lists as rows: TREC run files, CSV/TSV/Parquet tables and DataFrames, one shape out.

A table holds a row per listed item (user, item, and rank or score or both) or a row per user
(user, and the user's items best first, in one cell: a list, or ids separated by spaces, commas
or ``|``).
A file without a header is read as ``user item score`` lines, as Elliot and LibRec write a run,
or as ``user [item:score,...]`` lines, as MyMediaLite writes one. JSON holds records (a list, or
JSON Lines), a table as pandas' ``to_json`` writes one (any named layout), or an object of each user's list: ids best
first, ``[item, score]`` pairs (Surprise's ``get_top_n`` dumped) or an ``{item: score}`` object.
Any text file may be gzip-compressed.

Every source becomes one table of ``user_id``, ``item_id`` (external ids, as text; None in
the one row of a user whose list is given empty), ``key`` (lower is better: the rank, or
minus the score), ``tie`` (what breaks equal keys) and ``where`` (the line or row it came from,
for messages); :func:`puf.evaluation.lists.read_lists` turns that table into rankings.
"""

from __future__ import annotations

__all__ = ["COLUMN_NAMES", "INSTALL_PARQUET", "list_rows"]

import csv
import gzip
import json
import os
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

#: The column names recognised in a header (compared in lower case, a RecBole type such as
#: ``:token`` left out), per role; the ``columns`` option names others. ``items`` is a row per
#: user: the user's list, best first, in one cell.
COLUMN_NAMES = {
    "user": ("user", "user_id", "userid", "uid"),
    "item": ("item", "item_id", "itemid", "iid"),
    "rank": ("rank",),
    "score": ("score", "prediction"),
    "items": ("items", "item_list", "item_ids", "item_id_list", "recommendations"),
}

_NAMES = {name for known in COLUMN_NAMES.values() for name in known}  # every name a header may use

_HEADER = (
    "the header must name one user column (user or user_id) and either one item column (item or "
    "item_id) with rank or score (or both), or one items column (items or item_list: each user's "
    "list, best first)"
)

#: What to install to read Parquet files, said when pyarrow is missing.
INSTALL_PARQUET = 'reading a Parquet run needs pyarrow; install it with: pip install "puf-harness[parquet]"'

_TREC_SUFFIXES = (".trec", ".run")
_JSON_LINES = (".jsonl", ".ndjson")
_JSON_SUFFIXES = (".json", *_JSON_LINES)


def _field(name: object) -> str:
    return str(name).strip().lower().split(":")[0]


def _roles(source: str, header: list, columns: Mapping[str, str] | None, line: str = "line 1: ") -> dict[str, int]:
    """Column position per role from a header (``line`` in a message) and the given names: user,
    item, and rank or score (a row per item), or user and items (a row per user)."""
    fields = [_field(cell) for cell in header]
    given = {role: _field(name) for role, name in (columns or {}).items()}
    unknown = set(given) - set(COLUMN_NAMES)
    if unknown:
        raise ValueError(f"columns names roles {sorted(unknown)}; the roles are user, item, rank, score and items")
    if "items" in given and {"item", "rank", "score"} & set(given):
        raise ValueError("columns must name items (a row per user) or item, rank and score (a row per item), not both")
    chosen_order = {"rank", "score"} & set(given)
    found, twice = {}, []
    for role, names in COLUMN_NAMES.items():
        wanted: tuple[str, ...]
        if role in given:
            wanted = (given[role],)
        elif chosen_order and role in ("rank", "score"):
            continue  # the order column given is the only one looked for
        elif "items" in given and role != "user":
            continue  # a row per user given: no item or order column looked for
        else:
            wanted = names
        at = [i for i, f in enumerate(fields) if f in wanted]
        if len(at) == 1:
            found[role] = at[0]
        elif at:
            twice.append(f"{role} is named twice ({', '.join(str(header[i]) for i in at)}: say which in columns)")
    if "user" in found and "item" in found and ({"rank", "score"} & set(found)):
        # both: ordered by score, rank breaking ties, as trec_eval orders a TREC run
        return {role: found[role] for role in ("user", "item", "rank", "score") if role in found}
    if "user" in found and "items" in found:
        return {"user": found["user"], "items": found["items"]}
    named = ", ".join(f"{role}={name}" for role, name in given.items())
    raise ValueError(
        f"{source}: {line}{_HEADER}"
        + (
            f" (columns given: {named})"
            if named
            else "; other names are given in columns (--columns user=A,item=B,score=C)"
        )
        + "".join(f"; {clash}" for clash in twice)
        + f"; got {header}"
    )


def _index_out(table: pd.DataFrame) -> pd.DataFrame:
    """A frame whose named index is a column of its own (``set_index("user")``): that column back."""
    named = [name for name in table.index.names if name is not None]
    if named and not {str(name) for name in named} & {str(column) for column in table.columns}:
        return table.reset_index()
    return table


def _kind_of(cell: str) -> str:
    """What a rank or score cell that is not a finite number is instead."""
    try:
        float(cell)
    except ValueError:
        return "a number"
    return "finite"


#: An item of a list written with its score, ``item:score`` (MyMediaLite): the id, then the score.
_WITH_SCORE = re.compile(r"^(.+):[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def _listed(cell: object) -> list[str]:
    """A user's items, best first, from one cell: a list or an array (Parquet, a DataFrame) of ids,
    ``(item, score)`` pairs or records naming the item (``itemId``), or text of ids separated by
    spaces, commas, ``;`` or ``|`` (a printed list's brackets and quotes left out, and an
    ``item:score``'s score); an empty or missing cell lists none, a number one item."""
    if isinstance(cell, str):
        parts = (part.strip("'\"") for part in re.split(r"[\s,;|]+", cell.strip().strip("[]()")))
        return [scored[1] if (scored := _WITH_SCORE.match(part)) else part for part in parts if part]
    if cell is None or (np.ndim(cell) == 0 and pd.isna(cell)):
        return []
    entries: Any = cell.tolist() if isinstance(cell, np.ndarray) else cell
    if np.ndim(cell) == 0 and not isinstance(entries, Mapping):
        entries = [entries]
    return [str(_item_of(entry)).strip() for entry in entries]


def _item_of(entry: object) -> object:
    """The item of a list's entry: the entry, or the item of an ``(item, score)`` pair or of a
    record (Spark ALS's ``recommendForAllUsers`` gives ``{itemId, rating}`` structs)."""
    if isinstance(entry, Mapping):
        return next(
            (v for k, v in entry.items() if _field(k) in COLUMN_NAMES["item"]), next(iter(entry.values()), None)
        )
    if isinstance(entry, (list, tuple, np.ndarray)) and len(entry) == 2:
        return entry[0]
    return entry


def _user_lists(table: pd.DataFrame, where: np.ndarray, roles: dict[str, int]) -> pd.DataFrame:
    """The rows of a table with a row per user: an item's place in its user's cell is its rank."""
    lists: list[list[Any]] = [_listed(cell) or [None] for cell in table.iloc[:, roles["items"]]]
    # (None: the one row of an empty list)
    sizes = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    users = table.iloc[:, roles["user"]].astype(str).str.strip().to_numpy(dtype=object)
    ranks = [np.arange(1, n + 1, dtype=np.float64) for n in sizes]
    return pd.DataFrame(
        {
            "user_id": np.repeat(users, sizes),
            "item_id": np.asarray([item for listed in lists for item in listed], dtype=object),
            "key": np.concatenate(ranks) if ranks else np.empty(0),
            "tie": np.zeros(int(sizes.sum())),
            "where": np.repeat(where, sizes),
        }
    )


def _table_rows(source: str, table: pd.DataFrame, where: np.ndarray, columns, place: str) -> pd.DataFrame:
    """The rows of a table whose columns are named (CSV, TSV, Parquet, DataFrame)."""
    roles = _roles(source, list(table.columns), columns, "line 1: " if place == "line" else "")
    if "items" in roles:
        return _user_lists(table, where, roles)
    numbers = {}
    for order in ("rank", "score"):
        if order not in roles:
            continue
        raw = table.iloc[:, roles[order]]
        numbers[order] = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(numbers[order]))
        if bad.size:
            cell = str(raw.iloc[bad[0]])
            raise ValueError(f"{source}: {place} {where[bad[0]]}: {order} {cell!r} is not {_kind_of(cell)}")
    users = table.iloc[:, roles["user"]].astype(str).str.strip().to_numpy(dtype=object)
    if set(numbers) == {"score"} and "score" not in (columns or {}) and _counts_up(users, numbers["score"]):
        raise ValueError(
            f"{source}: the score column {table.columns[roles['score']]!r} holds 1, 2, 3, ... in every "
            "user's order: ranks, which read as scores would reverse every list; say which it is in "
            "columns (--columns rank=NAME, or score=NAME if it is a score)"
        )
    return pd.DataFrame(
        {
            "user_id": users,
            "item_id": table.iloc[:, roles["item"]].astype(str).str.strip().to_numpy(dtype=object),
            "key": -numbers["score"] if "score" in numbers else numbers["rank"],
            "tie": numbers["rank"] if len(numbers) == 2 else np.zeros(len(table)),
            "where": where,
        }
    )


def _counts_up(users: np.ndarray, values: np.ndarray) -> bool:
    """Whether ``values`` count 1, 2, 3, ... down each user's rows, some user having two or more."""
    if not len(values) or values.min() != 1 or not np.array_equal(values, np.floor(values)):
        return False  # (scores as recommenders give them: no grouping needed to tell)
    position = pd.Series(users).groupby(users, sort=False).cumcount().to_numpy() + 1
    return bool(position.max(initial=0) > 1 and np.array_equal(values, position))


def _headerless(cells: list[str]) -> list[str] | None:
    """The header a first line of data stands for, or None for a line of names: three cells, the
    last a number (``user item score``, as Elliot and LibRec write a run); two, the last a
    bracketed list (``user [item:score,...]``, as MyMediaLite writes one)."""
    if any(_field(cell) in _NAMES for cell in cells):
        return None
    if len(cells) == 2 and cells[1].strip().startswith("["):
        return ["user", "items"]
    try:
        return ["user", "item", "score"] if len(cells) == 3 and np.isfinite(float(cells[2])) else None
    except ValueError:
        return None


def _is_data(cells: list[str]) -> bool:
    """Whether a first line is data, not names: no cell names a role, and one is a number."""
    if any(_field(cell) in _NAMES for cell in cells):
        return False
    return any(re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", cell.strip()) for cell in cells)


def _delimited_rows(path: str, lines: list[str], columns) -> pd.DataFrame:
    """The rows of a CSV, TSV or whitespace-separated file: a header first, or none before lines
    of ``user item score`` (a third column of whole numbers alone could be ranks: refused) or of
    ``user [item:score,...]``."""
    first = lines[0]
    if path.endswith(".tsv") or "\t" in first:
        rows = list(csv.reader(lines, delimiter="\t"))
    elif ";" in first and "," not in first:  # (a spreadsheet's CSV where the decimal mark is a comma)
        rows = list(csv.reader(lines, delimiter=";"))
    elif "," in first or len(first.split()) < 2:
        rows = list(csv.reader(lines, delimiter=","))
    else:  # separated by spaces (LibRec, MyMediaLite): no quoting
        rows = [line.split() for line in lines]
    header, start = rows[0], 2
    if columns is None and (stands_for := _headerless(header)):
        header, start = stands_for, 1
    elif columns is None and _is_data(header):
        raise ValueError(
            f"{path}: line 1 reads as data, not a header: {header}; a file without a header holds "
            "'user item score' lines (three cells) or 'user [item:score,...]' lines (two); name the "
            "columns of any other in a first line: user, item, and rank or score"
        )
    width = len(header)
    kept, numbers = [], []
    for number, row in enumerate(rows[start - 1 :], start=start):
        if not row or not any(cell.strip() for cell in row):
            continue
        if len(row) != width:
            raise ValueError(f"{path}: line {number}: expected {width} cells, got {len(row)}")
        kept.append(row)
        numbers.append(number)
    table = pd.DataFrame(kept, columns=range(width), dtype=object) if kept else pd.DataFrame(columns=range(width))
    table.columns = header
    if start == 1 and "score" in header:
        third = pd.to_numeric(table["score"], errors="coerce").to_numpy(dtype=np.float64)
        if np.isfinite(third).all() and (third == np.round(third)).all():
            raise ValueError(
                f"{path}: line 1: no header, and the third column holds whole numbers alone: ranks or "
                "scores? name the columns in a first line: user, item, and rank or score"
            )
    return _table_rows(path, table, np.asarray(numbers, dtype=np.int64), columns, "line")


def _json_rows(path: str, lines: list[str], columns) -> tuple[str, pd.DataFrame, str]:
    """The rows of a JSON file: records (a list of objects, or one object a line: JSON Lines), a
    table by column (an object whose keys name the roles, as pandas' ``to_json`` writes one), or
    an object of each user's list: ids best first, ``[item, score]`` pairs, or ``{item: score}``."""
    whole: Any = None
    if not path.endswith(_JSON_LINES):
        try:
            whole = json.loads("\n".join(lines))
        except json.JSONDecodeError as error:
            whole = error  # perhaps JSON Lines, read a line at a time below
    if whole is None or isinstance(whole, json.JSONDecodeError):
        return path, _json_lines(path, lines, whole, columns), "line"
    if isinstance(whole, dict) and {"columns", "data"} <= set(whole) and not _names_roles(list(whole), columns):
        table = pd.DataFrame(whole["data"], columns=whole["columns"])  # to_json(orient="split")
    elif isinstance(whole, dict) and {"schema", "data"} <= set(whole):
        table = pd.DataFrame.from_records(whole["data"])  # to_json(orient="table")
    elif isinstance(whole, list) and all(isinstance(record, dict) for record in whole):
        table = pd.DataFrame.from_records(whole)
    elif isinstance(whole, dict) and _names_roles(list(whole), columns):
        table = pd.DataFrame(whole if any(isinstance(v, (list, dict)) for v in whole.values()) else [whole])
    elif isinstance(whole, dict) and _by_index(whole, columns):
        table = pd.DataFrame.from_records(list(whole.values()))  # to_json(orient="index")
    elif isinstance(whole, dict):
        return path, _user_objects(path, whole), "row"
    else:
        raise ValueError(
            f"{path}: a JSON run is a list of records or an object (user -> items, or column -> "
            f"values), got {_kind(whole)}"
        )
    where = np.arange(1, len(table) + 1, dtype=np.int64)
    return path, _table_rows(path, table, where, columns, "row"), "row"


def _json_lines(path: str, lines: list[str], whole_error: json.JSONDecodeError | None, columns) -> pd.DataFrame:
    """The rows of JSON Lines, a record (an object) a line; ``whole_error`` is why the file did not
    read as one JSON value (None: named ``.jsonl`` or ``.ndjson``), said if a line does not read either."""
    records, numbers = [], []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            said = whole_error or error
            raise ValueError(f"{path}: line {said.lineno if whole_error else number}: not JSON: {said.msg}") from None
        if not isinstance(record, dict):
            raise ValueError(f"{path}: line {number}: a JSON Lines record is an object, got {json.dumps(record)[:60]}")
        records.append(record)
        numbers.append(number)
    where = np.asarray(numbers, dtype=np.int64)
    return _table_rows(path, pd.DataFrame.from_records(records), where, columns, "line")


def _kind(value: object) -> str:
    """What a JSON value is, for a message: ``list of int``, ``str``."""
    if isinstance(value, list) and value:
        return f"a list of {type(value[0]).__name__}"
    return type(value).__name__


def _by_index(whole: dict, columns) -> bool:
    """Whether ``whole`` holds a record per key (an object whose keys name the roles)."""
    first = next(iter(whole.values()), None)
    return isinstance(first, dict) and _names_roles(list(first), columns)


def _names_roles(keys: list, columns) -> bool:
    """Whether ``keys`` are a table's column names (they name the roles), not users."""
    try:
        _roles("", keys, columns)
    except ValueError:
        return False
    return True


def _user_objects(path: str, users: dict) -> pd.DataFrame:
    """The rows of a JSON object of each user's list (the ``n``-th user is row ``n``): ids best
    first, ``[item, score]`` pairs or an ``{item: score}`` object, each user's list of one kind."""
    ranked: dict[str, list] = {"user": [], "items": []}
    scored: dict[str, list] = {"user": [], "item": [], "score": [], "where": []}
    ranked_at: list[int] = []
    empty: dict[str, list] = {"user_id": [], "where": []}  # users whose list is given empty
    for number, (user, listed) in enumerate(users.items(), start=1):
        if isinstance(listed, (list, dict)) and not listed:  # an empty list, of either kind
            empty["user_id"].append(str(user).strip())
            empty["where"].append(number)
            continue
        if isinstance(listed, dict):
            pairs = list(listed.items())
        elif isinstance(listed, list) and listed and all(_is_pair(entry) for entry in listed):
            pairs = [tuple(entry) for entry in listed]
        elif isinstance(listed, list) and all(_is_id(entry) for entry in listed):
            ranked["user"].append(user)
            ranked["items"].append([str(entry) for entry in listed])
            ranked_at.append(number)
            continue
        else:
            raise ValueError(
                f"{path}: row {number}: user {user!r}: a list is ids best first, [item, score] pairs "
                f"or an {{item: score}} object, got {json.dumps(listed)[:60]}"
            )
        scored["user"] += [user] * len(pairs)
        scored["item"] += [item for item, _ in pairs]
        scored["score"] += [score for _, score in pairs]
        scored["where"] += [number] * len(pairs)
    if ranked_at and scored["where"]:
        raise ValueError(
            f"{path}: row {ranked_at[0]}: user {ranked['user'][0]!r} lists ids alone where row "
            f"{scored['where'][0]} gives scores: one kind of list for every user"
        )
    if ranked_at:
        rows = _table_rows(path, pd.DataFrame(ranked), np.asarray(ranked_at, dtype=np.int64), None, "row")
    else:
        where = np.asarray(scored.pop("where"), dtype=np.int64)
        rows = _table_rows(path, pd.DataFrame(scored, columns=["user", "item", "score"]), where, None, "row")
    if not empty["where"]:
        return rows
    nothing = pd.DataFrame({**empty, "item_id": None, "key": np.nan, "tie": 0.0})  # a row a user, no item
    return pd.concat([rows, nothing[rows.columns]]).sort_values("where", kind="stable", ignore_index=True)


def _is_pair(entry: object) -> bool:
    """An ``[item, score]`` pair: two entries, the second a number (a bool is no score)."""
    return (
        isinstance(entry, list)
        and len(entry) == 2
        and _is_id(entry[0])
        and isinstance(entry[1], (int, float))
        and not isinstance(entry[1], bool)
    )


def _is_id(entry: object) -> bool:
    """An item id in JSON: text or a whole number (a bool or a float is none)."""
    return isinstance(entry, str) or (isinstance(entry, int) and not isinstance(entry, bool))


def _trec_rows(path: str, lines: list[str]) -> pd.DataFrame:
    """``qid Q0 docid rank score tag`` per line; ordered by score as trec_eval and ranx do, rank breaking ties."""
    users, items, keys, ties, numbers = [], [], [], [], []
    for number, line in enumerate(lines, start=1):
        cells = line.split()
        if not cells:
            continue
        if len(cells) != 6:
            raise ValueError(f"{path}: line {number}: a TREC run line is 'qid Q0 docid rank score tag', got {line!r}")
        for name, cell in (("rank", cells[3]), ("score", cells[4])):
            try:
                value = float(cell)
            except ValueError:
                raise ValueError(f"{path}: line {number}: {name} {cell!r} is not a number") from None
            if not np.isfinite(value):
                raise ValueError(f"{path}: line {number}: {name} {cell!r} is not finite")
        users.append(cells[0])
        items.append(cells[2])
        keys.append(-float(cells[4]))
        ties.append(float(cells[3]))
        numbers.append(number)
    return pd.DataFrame(
        {
            "user_id": np.asarray(users, dtype=object),
            "item_id": np.asarray(items, dtype=object),
            "key": np.asarray(keys, dtype=np.float64),
            "tie": np.asarray(ties, dtype=np.float64),
            "where": np.asarray(numbers, dtype=np.int64),
        }
    )


#: What a file that is not text is, by its first bytes, and what to do instead.
_BINARY = (
    (b"PK\x03\x04", "a zip archive (numpy's .npz, a spreadsheet?)"),
    (b"\x93NUMPY", "a numpy array (.npy)"),
    (b"PAR1", "a Parquet file: name it .parquet"),
    (b"\x80", "a Python pickle"),
    (b"\xff\xfe", "UTF-16 text: save it as UTF-8"),
    (b"\xfe\xff", "UTF-16 text: save it as UTF-8"),
)


def _text_lines(path: str) -> list[str]:
    """The lines of a text run, gzip-compressed or not (pandas' ``to_csv("run.csv.gz")``);
    ValueError naming the file if it is not UTF-8 text."""
    with open(path, "rb") as handle:
        raw = handle.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{path}: a gzip file that does not decompress: {exc}") from None
    try:
        return raw.decode("utf-8-sig").splitlines()  # -sig: spreadsheets' BOM
    except UnicodeDecodeError as exc:
        kind = next((f": {what}" for magic, what in _BINARY if raw.startswith(magic)), "")
        raise ValueError(
            f"{path}: not UTF-8 text (byte {raw[exc.start]:#04x} at offset {exc.start}){kind}; a run is "
            "a CSV, TSV, TREC or JSON text file (gzip-compressed or not) or a .parquet file"
        ) from None


def _is_trec(path: str, first: str) -> bool:
    cells = first.split()  # (a line of another width is named by the TREC reader)
    return path.endswith(_TREC_SUFFIXES) or (len(cells) >= 4 and cells[1].upper() == "Q0")


def list_rows(
    source: str | os.PathLike[str] | pd.DataFrame, *, columns: Mapping[str, str] | None = None
) -> tuple[str, pd.DataFrame, str]:
    """Read ranked lists from a file or a DataFrame as rows of one shape.

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        A TREC run file (``qid Q0 docid rank score tag``, whitespace-separated, no header;
        recognised by a ``.trec`` or ``.run`` name or a first line whose second field is
        ``Q0``), a Parquet file (``.parquet``), a CSV, TSV or space-separated file
        with a header (or without one: ``user item score`` lines, as Elliot and LibRec write a
        run, or MyMediaLite's ``user [item:score,...]``), a JSON file (``.json``: records,
        columns, or an object of each user's list; ``.jsonl``/``.ndjson``: a record a line), any
        of these text files gzip-compressed (``run.csv.gz``), or a DataFrame. A table names its user and item columns and rank (1 = best) or score
        (higher = better), a row per listed item (with both, as LensKit and Microsoft
        Recommenders write a run, the lists are ordered by score, rank breaking ties, as
        trec_eval orders a TREC run); or its user column and an items
        column, a row per user whose cell lists the user's items best first (a list, or ids
        separated by spaces, commas or ``|``): see :data:`COLUMN_NAMES` and ``columns``.
    columns : dict of str to str, optional
        Role -> column name (roles ``user``, ``item``, ``rank`` and ``score``; or ``user`` and
        ``items``), for columns named otherwise; the roles not given are recognised, except
        that naming one of rank and score leaves the other out.

    Returns
    -------
    tuple of (str, pandas.DataFrame, str)
        The source's name for messages, the rows (``user_id``, ``item_id``, ``key``,
        ``tie``, ``where``) and what ``where`` counts (``"line"`` or ``"row"``).

    Raises
    ------
    ValueError
        An empty file, a file that is not UTF-8 text, a header without the columns, a line of
        the wrong width, a rank or score that is not a finite number: the message names the
        file and the line.
    ImportError
        A Parquet file without pyarrow (the message says what to install).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"uid": [7, 7], "movie": ["x", "y"], "score": [0.2, 0.9]})
    >>> name, rows, place = list_rows(frame, columns={"item": "movie"})
    >>> rows[["user_id", "item_id", "key", "where"]].values.tolist()
    [['7', 'x', -0.2, 1], ['7', 'y', -0.9, 2]]
    >>> submission = pd.DataFrame({"customer": ["a", "b"], "prediction": ["x y", "[3, 1]"]})
    >>> _, rows, _ = list_rows(submission, columns={"user": "customer", "items": "prediction"})
    >>> rows[["user_id", "item_id", "key", "where"]].values.tolist()
    [['a', 'x', 1.0, 1], ['a', 'y', 2.0, 1], ['b', '3', 1.0, 2], ['b', '1', 2.0, 2]]
    """
    if isinstance(source, pd.DataFrame):
        where = np.arange(1, len(source) + 1, dtype=np.int64)
        return "the frame", _table_rows("the frame", _index_out(source), where, columns, "row"), "row"
    path = os.fspath(source)
    if path.endswith(".parquet"):
        try:
            import pyarrow  # noqa: F401  (pandas reads Parquet through it)
        except ImportError as exc:
            raise ImportError(INSTALL_PARQUET) from exc
        table = _index_out(pd.read_parquet(path))
        where = np.arange(1, len(table) + 1, dtype=np.int64)
        return path, _table_rows(path, table, where, columns, "row"), "row"
    lines = _text_lines(path)
    named = path.removesuffix(".gz")  # (what the name says of a gzip-compressed file's content)
    if named.endswith(_JSON_SUFFIXES):
        if not any(line.strip() for line in lines):
            raise ValueError(f"{path}: line 1: empty file; expected JSON: records, columns, or each user's list")
        return _json_rows(path, lines, columns)
    if not lines or not lines[0].strip():
        raise ValueError(f"{path}: line 1: empty file; expected a header user,item,rank|score or TREC run lines")
    if _is_trec(named, lines[0]):
        return path, _trec_rows(path, lines), "line"
    return path, _delimited_rows(path, lines, columns), "line"
