"""MovieLens 10M and 20M archives (GroupLens' raw formats) -> atomic files."""

from __future__ import annotations

__all__ = ["movielens_10m", "movielens_20m"]

import io
import itertools
import pathlib
import zipfile

import numpy as np
import pandas as pd

from tqdm.auto import tqdm

from ._raw import decoded, genre_tokens, member_blocks, member_bytes, numeric_table, token_text
from .atomic import write_atomic


_COLUMNS = ["userId", "movieId", "rating", "timestamp"]
_TYPES = {"user_id": "token", "item_id": "token", "rating": "float", "timestamp": "float"}


def _write_ratings(archive, folder, name, member, separator, progress):
    """Convert the ratings member block by block (bounded memory), naming a bad line in the file."""
    blocks = member_blocks(archive, member)
    first_line = 1
    if separator == ",":  # ratings.csv opens with its header
        first, _, body = next(blocks, b"").partition(b"\n")
        header = decoded(first).strip()
        if header.split(",") != _COLUMNS:
            raise ValueError(f"{member}: line 1: expected the header {','.join(_COLUMNS)}, got {header!r}")
        blocks, first_line = itertools.chain([body] if body else [], blocks), 2
    with open(folder / f"{name}.inter", "w", encoding="utf-8", newline="\n") as handle:
        handle.write("\t".join(f"{c}:{t}" for c, t in _TYPES.items()) + "\n")
        for block in tqdm(blocks, desc=f"{name}.inter", leave=False, disable=not progress, unit="block"):
            data = block.replace(b"::", b"\t") if separator == "::" else block
            ratings = numeric_table(data, _COLUMNS, "\t" if separator == "::" else ",", member, first_line=first_line)
            ratings = ratings.astype({"userId": np.int64, "movieId": np.int64})
            ratings.to_csv(handle, sep="\t", header=False, index=False, lineterminator="\n")
            first_line += block.count(b"\n")


def _write_movies(folder, name, movies):
    items = pd.DataFrame(
        {
            "item_id": movies["movieId"].astype(str),
            "movie_title": token_text(movies["title"]),
            "genre": genre_tokens(movies["genres"], "|"),
        }
    )
    write_atomic(
        items, folder / f"{name}.item", types={"item_id": "token", "movie_title": "token", "genre": "token_seq"}
    )


def movielens_10m(archive: zipfile.ZipFile, folder: pathlib.Path, *, progress: bool = True) -> None:
    """Convert ``ml-10m.zip`` (``UserID::MovieID::Rating::Timestamp``) to atomic files.

    Parameters
    ----------
    archive : zipfile.ZipFile
        The open archive.
    folder : pathlib.Path
        Where ``ml-10m.inter`` and ``ml-10m.item`` are written.
    progress : bool, default True
        Show a tqdm bar while writing.

    Examples
    --------
    >>> import io, pathlib, tempfile, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as z:
    ...     z.writestr("ml-10M100K/ratings.dat", "1::122::5::838985046\\n1::185::4.5::838983525\\n")
    ...     z.writestr("ml-10M100K/movies.dat", "122::Boomerang (1992)::Comedy|Romance\\n"
    ...                "185::Net, The (1995)::Action|Crime|Thriller\\n")
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> movielens_10m(zipfile.ZipFile(buffer), folder, progress=False)
    >>> (folder / "ml-10m.inter").read_text().splitlines()[1]
    '1\\t122\\t5.0\\t838985046.0'
    """
    _write_ratings(archive, folder, "ml-10m", "ratings.dat", "::", progress)
    rows = [line.split("::", 2) for line in decoded(member_bytes(archive, "movies.dat")).splitlines() if line.strip()]
    if any(len(r) != 3 for r in rows):
        bad = next(i for i, r in enumerate(rows) if len(r) != 3)
        raise ValueError(f"movies.dat: line {bad + 1}: expected MovieID::Title::Genres")
    _write_movies(folder, "ml-10m", pd.DataFrame(rows, columns=["movieId", "title", "genres"]))


def movielens_20m(archive: zipfile.ZipFile, folder: pathlib.Path, *, progress: bool = True) -> None:
    """Convert ``ml-20m.zip`` (``ratings.csv`` and ``movies.csv``, with headers) to atomic files.

    Parameters
    ----------
    archive : zipfile.ZipFile
        The open archive.
    folder : pathlib.Path
        Where ``ml-20m.inter`` and ``ml-20m.item`` are written.
    progress : bool, default True
        Show a tqdm bar while writing.

    Examples
    --------
    >>> import io, pathlib, tempfile, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as z:
    ...     z.writestr("ml-20m/ratings.csv", "userId,movieId,rating,timestamp\\n1,2,3.5,1112486027\\n")
    ...     z.writestr("ml-20m/movies.csv", 'movieId,title,genres\\n2,"Jumanji, The (1995)",'
    ...                "Adventure|Children|Fantasy\\n")
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> movielens_20m(zipfile.ZipFile(buffer), folder, progress=False)
    >>> (folder / "ml-20m.item").read_text().splitlines()[1]
    '2\\tJumanji, The (1995)\\tAdventure Children Fantasy'
    """
    _write_ratings(archive, folder, "ml-20m", "ratings.csv", ",", progress)
    try:
        movies = pd.read_csv(
            io.StringIO(decoded(member_bytes(archive, "movies.csv"))), dtype=str, keep_default_na=False
        )
    except (ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"movies.csv: not in the expected format ({exc})") from None
    if list(movies.columns) != ["movieId", "title", "genres"]:
        raise ValueError(
            f"movies.csv: line 1: expected the header movieId,title,genres, got {','.join(movies.columns)!r}"
        )
    _write_movies(folder, "ml-20m", movies)
