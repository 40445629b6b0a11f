"""MovieLens 10M and 20M archives (GroupLens' raw formats) -> atomic files."""

from __future__ import annotations

__all__ = ["movielens_10m", "movielens_20m"]

import io
import pathlib
import zipfile

import numpy as np
import pandas as pd

from ._raw import decoded, genre_tokens, member_bytes, numeric_table, token_text, write_interactions
from .atomic import write_atomic


def _movielens(archive, folder, name, ratings, movies, progress):
    interactions = ratings.rename(columns={"userId": "user_id", "movieId": "item_id"})
    interactions = interactions[["user_id", "item_id", "rating", "timestamp"]]
    write_interactions(
        interactions,
        folder / f"{name}.inter",
        {"user_id": "token", "item_id": "token", "rating": "float", "timestamp": "float"},
        progress,
    )
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
    columns = ["userId", "movieId", "rating", "timestamp"]
    ratings = numeric_table(member_bytes(archive, "ratings.dat").replace(b"::", b"\t"), columns, "\t", "ratings.dat")
    ratings = ratings.astype({"userId": np.int64, "movieId": np.int64})
    rows = [line.split("::", 2) for line in decoded(member_bytes(archive, "movies.dat")).splitlines() if line.strip()]
    if any(len(r) != 3 for r in rows):
        bad = next(i for i, r in enumerate(rows) if len(r) != 3)
        raise ValueError(f"movies.dat: line {bad + 1}: expected MovieID::Title::Genres")
    movies = pd.DataFrame(rows, columns=["movieId", "title", "genres"])
    _movielens(archive, folder, "ml-10m", ratings, movies, progress)


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
    first, _, body = member_bytes(archive, "ratings.csv").partition(b"\n")
    header = decoded(first).strip()
    if header.split(",") != ["userId", "movieId", "rating", "timestamp"]:
        raise ValueError(f"ratings.csv: line 1: expected the header userId,movieId,rating,timestamp, got {header!r}")
    ratings = numeric_table(body, ["userId", "movieId", "rating", "timestamp"], ",", "ratings.csv", first_line=2)
    ratings = ratings.astype({"userId": np.int64, "movieId": np.int64})
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
    _movielens(archive, folder, "ml-20m", ratings, movies, progress)
