"""Publishers' raw formats -> RecBole atomic files, the form every loader here reads.

Each converter reads one source's exact raw format and writes ``<name>.inter`` (and
``<name>.item``) into a folder. The interactions keep their raw values; relevance is decided
later by :func:`puf.data.preprocess`, with the same rule for every dataset: a ``rating``
column is thresholded (``rating >= 3``), and a dataset without one is implicit feedback, every
interaction relevant.

========== =================================== ===================================================
name       raw files read                      atomic files written
========== =================================== ===================================================
ml-10m     ``ml-10M100K/ratings.dat``,         ``user_id, item_id, rating, timestamp``;
           ``movies.dat`` (``::``-separated)   ``item_id, movie_title, genre`` (token_seq)
ml-20m     ``ml-20m/ratings.csv``,             the same
           ``movies.csv`` (CSV, header, UTF-8)
lastfm     ``user_artists.dat``, ``artists``,  ``user_id, item_id, weight, timestamp``;
           ``tags``, ``user_taggedartists``    ``item_id, artist_name, tags`` (token_seq)
qk-video   Tenrec's ``QK-video.csv``           ``user_id, item_id, timestamp``;
                                               ``item_id, category``
========== =================================== ===================================================

Last.fm's play counts (``weight``) are implicit feedback: every listened artist is relevant
(no threshold; the count is kept for whoever wants another rule). They carry no time, so the
``timestamp`` of ``lastfm.inter`` is a fixed random order (``numpy.random.default_rng(0)``
over the file's rows): the 60/20/20 split is then a random split, the same on every machine.
An artist's ``tags`` are the three tags users applied to it most often (ties by tag id),
spaces written as ``_``; an artist nobody tagged has none. QK-video's rows carry no time
either; their order in the file is used. Its ``click == 1`` rows are the interactions.

Text files that are not valid UTF-8 are read as Latin-1 (HetRec's files mix the two).
"""

from __future__ import annotations

__all__ = ["CONVERTERS", "convert"]

import os
import pathlib
import zipfile

import numpy as np
import pandas as pd

from ._raw import tab_table, token_text, write_interactions
from .atomic import write_atomic
from .movielens import movielens_10m, movielens_20m


def lastfm(archive: zipfile.ZipFile, folder: pathlib.Path, *, progress: bool = True) -> None:
    """Convert ``hetrec2011-lastfm-2k.zip`` (tab-separated, with headers) to atomic files.

    Parameters
    ----------
    archive : zipfile.ZipFile
        The open archive.
    folder : pathlib.Path
        Where ``lastfm.inter`` and ``lastfm.item`` are written.
    progress : bool, default True
        Show a tqdm bar while writing.

    Examples
    --------
    >>> import io, pathlib, tempfile, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as z:
    ...     z.writestr("user_artists.dat", "userID\\tartistID\\tweight\\n2\\t51\\t13883\\n2\\t52\\t11690\\n")
    ...     z.writestr("artists.dat", "id\\tname\\turl\\tpictureURL\\n51\\tDuran Duran\\tu\\tp\\n"
    ...                "52\\tMorcheeba\\tu\\tp\\n")
    ...     z.writestr("tags.dat", "tagID\\ttagValue\\n1\\tnew wave\\n")
    ...     z.writestr("user_taggedartists.dat",
    ...                "userID\\tartistID\\ttagID\\tday\\tmonth\\tyear\\n2\\t51\\t1\\t1\\t4\\t2009\\n")
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> lastfm(zipfile.ZipFile(buffer), folder, progress=False)
    >>> (folder / "lastfm.item").read_text().splitlines()[1:]
    ['51\\tDuran Duran\\tnew_wave', '52\\tMorcheeba\\t']
    """
    plays = tab_table(archive, "user_artists.dat", ["userID", "artistID", "weight"])
    try:
        weight = plays["weight"].astype(np.float64)
    except ValueError as exc:
        raise ValueError(f"user_artists.dat: a weight is not a number ({exc})") from None
    order = np.random.default_rng(0).permutation(len(plays)).astype(np.float64)
    interactions = pd.DataFrame(
        {"user_id": plays["userID"], "item_id": plays["artistID"], "weight": weight, "timestamp": order}
    )
    write_interactions(
        interactions,
        folder / "lastfm.inter",
        {"user_id": "token", "item_id": "token", "weight": "float", "timestamp": "float"},
        progress,
    )
    artists = tab_table(archive, "artists.dat", ["id", "name"])
    tags = tab_table(archive, "tags.dat", ["tagID", "tagValue"])
    tagged = tab_table(archive, "user_taggedartists.dat", ["userID", "artistID", "tagID"])
    names = dict(zip(tags["tagID"], tags["tagValue"].str.strip().str.replace(r"\s+", "_", regex=True)))
    counts = tagged.groupby(["artistID", "tagID"]).size().reset_index(name="n")
    counts["tag_number"] = pd.to_numeric(counts["tagID"], errors="coerce")
    counts = counts.sort_values(["artistID", "n", "tag_number"], ascending=[True, False, True])
    top = (
        counts.groupby("artistID")
        .head(3)
        .groupby("artistID")["tagID"]
        .agg(lambda ids: tuple(names.get(t, t) for t in ids))
    )
    items = pd.DataFrame(
        {
            "item_id": artists["id"],
            "artist_name": token_text(artists["name"]),
            "tags": artists["id"].map(top).map(lambda v: v if isinstance(v, tuple) else ()),
        }
    )
    write_atomic(items, folder / "lastfm.item", types={"item_id": "token", "artist_name": "token", "tags": "token_seq"})


def qk_video(
    path: str | os.PathLike[str], folder: pathlib.Path, *, name: str = "qk-video", progress: bool = True
) -> None:
    """Convert Tenrec's ``QK-video.csv`` (CSV with a header) to atomic files.

    Tenrec is distributed after its licence form is accepted, so it is not fetched: download
    ``QK-video.csv`` yourself, then ``puf data convert qk-video QK-video.csv --out DIR``.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file: columns ``user_id, item_id, click, ...`` and ``video_category``.
    folder : pathlib.Path
        Where ``<name>.inter`` and ``<name>.item`` are written.
    name : str, default "qk-video"
        Stem of the atomic files.
    progress : bool, default True
        Show a tqdm bar while writing.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "QK-video.csv").write_text(
    ...     "user_id,item_id,click,follow,like,share,video_category,watching_times,gender,age\\n"
    ...     "1,7,1,0,0,0,2,1,1,3\\n1,8,0,0,0,0,1,0,1,3\\n")
    >>> qk_video(folder / "QK-video.csv", folder, progress=False)
    >>> (folder / "qk-video.inter").read_text().splitlines()
    ['user_id:token\\titem_id:token\\ttimestamp:float', '1\\t7\\t0']
    """
    path = pathlib.Path(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"{path}: cannot be read as CSV ({exc})") from None
    missing = [c for c in ("user_id", "item_id", "click", "video_category") if c not in frame]
    if missing:
        raise ValueError(f"{path}: line 1: no column {missing[0]!r}; columns: {list(frame.columns)}")
    clicked = frame[frame["click"].str.strip() == "1"]
    interactions = pd.DataFrame(
        {
            "user_id": clicked["user_id"],
            "item_id": clicked["item_id"],
            "timestamp": np.flatnonzero((frame["click"].str.strip() == "1").to_numpy()),
        }
    )
    write_interactions(
        interactions, folder / f"{name}.inter", {"user_id": "token", "item_id": "token", "timestamp": "float"}, progress
    )
    items = frame.drop_duplicates("item_id")[["item_id", "video_category"]]
    write_atomic(
        items.rename(columns={"video_category": "category"}),
        folder / f"{name}.item",
        types={"item_id": "token", "category": "token"},
    )


#: Dataset name -> the function converting its publisher's archive to atomic files.
CONVERTERS = {"ml-10m": movielens_10m, "ml-20m": movielens_20m, "lastfm": lastfm}


def convert(
    source: str, archive_path: str | os.PathLike[str], folder: str | os.PathLike[str], *, progress: bool = True
) -> list[pathlib.Path]:
    """Convert a downloaded archive of a known source into atomic files in ``folder``.

    Parameters
    ----------
    source : str
        ``"ml-10m"``, ``"ml-20m"`` or ``"lastfm"``.
    archive_path : str or os.PathLike
        The zip archive as its publisher distributes it.
    folder : str or os.PathLike
        Existing folder the atomic files are written into.
    progress : bool, default True
        Show tqdm bars.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    ValueError
        An unknown ``source``; an archive that is not a zip, is damaged, lacks a file, or holds
        a file not in the source's format (the message names the file and the line).

    Examples
    --------
    >>> convert("ml-30m", "x.zip", ".")
    Traceback (most recent call last):
    ...
    ValueError: source must be one of ml-10m, ml-20m, lastfm, got 'ml-30m'
    """
    if source not in CONVERTERS:
        raise ValueError(f"source must be one of {', '.join(CONVERTERS)}, got {source!r}")
    folder = pathlib.Path(folder)
    try:
        archive = zipfile.ZipFile(archive_path)
    except (zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"{archive_path}: not a readable zip archive ({exc})") from None
    with archive:
        _check_declared_sizes(archive, archive_path, source)  # before anything is inflated
        try:
            damaged = archive.testzip()  # CRC of every member: a flipped byte is caught here
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            raise ValueError(f"{archive_path}: damaged archive ({exc})") from None
        if damaged is not None:
            raise ValueError(f"{archive_path}: damaged archive ({damaged} fails its CRC)")
        before = set(folder.iterdir())
        CONVERTERS[source](archive, folder, progress=progress)
    return sorted(set(folder.iterdir()) - before)


def _check_declared_sizes(archive, archive_path, source):
    """Refuse a member declaring more bytes than any file of ``source`` can hold, naming both sizes."""
    from .sources import DATASETS

    limit = DATASETS[source].largest_member
    for info in archive.infolist():
        if info.file_size > limit:
            raise ValueError(
                f"{archive_path}: member {info.filename} declares {info.file_size:,} bytes inflated, more "
                f"than any file of {source} can hold ({limit:,} bytes); refused before inflating it"
            )
