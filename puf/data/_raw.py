"""What the converters share: reading archive members and text, writing large atomic files."""

from __future__ import annotations

__all__ = [
    "ROWS_PER_WRITE",
    "decoded",
    "genre_tokens",
    "member_blocks",
    "member_bytes",
    "numeric_table",
    "tab_table",
    "token_text",
    "write_interactions",
]

import io
import pathlib
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

ROWS_PER_WRITE = 1_000_000


def decoded(data: bytes) -> str:
    """Bytes as text: UTF-8 (a byte-order mark dropped), else Latin-1."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _member(archive, file_name):
    """The member whose base name is ``file_name`` (the one folder level varies)."""
    names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == file_name]
    if not names:
        raise ValueError(f"{archive.filename}: has no file {file_name!r}; is it the right archive?")
    return names[0]


def member_bytes(archive: zipfile.ZipFile, file_name: str) -> bytes:
    """The bytes of the member whose base name is ``file_name`` (a small one: a table of items, tags)."""
    name = _member(archive, file_name)
    try:
        return archive.read(name)
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise ValueError(f"{archive.filename}: {name} is damaged ({exc})") from None


BLOCK_BYTES = 64 << 20
"""Bytes of a member inflated at a time by :func:`member_blocks`."""


def member_blocks(archive: zipfile.ZipFile, file_name: str) -> Iterator[bytes]:
    r"""The member whose base name is ``file_name`` as blocks of whole lines, inflated as a stream.

    Each block holds about :data:`BLOCK_BYTES` (a longer line is kept whole), so a large member
    (20 million ratings) is converted in bounded memory.

    Examples
    --------
    >>> import io, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as z:
    ...     z.writestr("ml-10M100K/ratings.dat", "1::2::5::9\n1::3::4::9")
    >>> list(member_blocks(zipfile.ZipFile(buffer), "ratings.dat"))
    [b'1::2::5::9\n', b'1::3::4::9\n']
    """
    name = _member(archive, file_name)
    rest = b""
    try:
        with archive.open(name) as stream:
            for chunk in iter(lambda: stream.read(BLOCK_BYTES), b""):
                whole, cut, rest = (rest + chunk).rpartition(b"\n")
                if cut:  # else no line ends yet: all of it is the rest
                    yield whole + cut
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise ValueError(f"{archive.filename}: {name} is damaged ({exc})") from None
    if rest:
        yield rest + b"\n"


def token_text(values: pd.Series) -> pd.Series:
    """Token text: tabs and line breaks (which would split atomic cells) become spaces."""
    return values.astype(str).str.replace(r"[\t\r\n]", " ", regex=True)


def write_interactions(frame: pd.DataFrame, path: pathlib.Path, types: Mapping[str, str], progress: bool) -> None:
    """Write a large numeric table fast: the header, then blocks through pandas' C writer."""
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("\t".join(f"{c}:{types[c]}" for c in frame.columns) + "\n")
        for begin in tqdm(
            range(0, len(frame), ROWS_PER_WRITE), desc=path.name, leave=False, disable=not progress, unit="Mrows"
        ):
            frame.iloc[begin : begin + ROWS_PER_WRITE].to_csv(
                handle, sep="\t", header=False, index=False, lineterminator="\n"
            )


def numeric_table(
    data: bytes, columns: Sequence[str], separator: str, path: str | pathlib.Path, *, first_line: int = 1
) -> pd.DataFrame:
    """A headerless table of numbers; a non-numeric or missing value names its line
    (``first_line``: the file's line number of the first row of ``data``)."""

    def read(dtype: Any) -> pd.DataFrame:
        return pd.read_csv(io.BytesIO(data), sep=separator, header=None, names=columns, engine="c", dtype=dtype)

    try:
        try:
            frame = read(np.float64 if "rating" in columns else None)
        except ValueError:  # a cell that is not a number: read again as text to find its line
            frame = read(None).apply(pd.to_numeric, errors="coerce")
            if not frame.isna().any().any():
                raise
    except (ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"{path}: not in the expected format ({exc})") from None
    if frame.isna().any().any():
        row = int(np.flatnonzero(frame.isna().any(axis=1).to_numpy())[0])
        raise ValueError(f"{path}: line {row + first_line}: a missing or non-numeric value")
    return frame


def tab_table(archive: zipfile.ZipFile, file_name: str, columns: list[str]) -> pd.DataFrame:
    """A tab-separated member with a header starting with ``columns``, as text cells."""
    text = decoded(member_bytes(archive, file_name))
    try:
        frame = pd.read_csv(
            io.StringIO(text), sep="\t", dtype=str, keep_default_na=False, quoting=3
        )  # csv.QUOTE_NONE: HetRec's names hold bare quotes
    except (ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"{file_name}: not in the expected format ({exc})") from None
    if list(frame.columns[: len(columns)]) != columns:
        raise ValueError(
            f"{file_name}: line 1: expected the header {' '.join(columns)!r}, got {' '.join(frame.columns)!r}"
        )
    return frame


def genre_tokens(values: pd.Series, separator: str) -> pd.Series:
    """``"A|B"`` -> ``("A", "B")``; none for MovieLens' ``(no genres listed)``."""

    def split(text):
        if not isinstance(text, str) or text.strip() in ("", "(no genres listed)"):
            return ()
        return tuple(g.strip().replace(" ", "_") for g in text.split(separator) if g.strip())

    return values.map(split)
