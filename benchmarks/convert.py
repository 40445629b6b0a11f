"""Time the conversion of a MovieLens-20M-sized archive to atomic files, and its peak memory.

Writes a generated ``ml-20m.zip`` in GroupLens' exact raw format (``ml-20m/ratings.csv`` and
``movies.csv`` with headers; 138,493 users, 26,744 movies, 20,000,263 ratings by default, as in
the real archive), then runs ``puf data convert ml-20m`` on it in a child process and reports
the wall time, CPU time and peak resident memory of that process. ``--ratings`` scales it down.

Usage::

    python benchmarks/convert.py [--ratings N] [--folder DIR]
"""

import argparse
import pathlib
import resource
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np
import pandas as pd


def write_archive(path, n_ratings, n_users=138_493, n_items=26_744, seed=0):
    """A generated ``ml-20m.zip``: power-law item popularity, half-star ratings, timestamps."""
    rng = np.random.default_rng(seed)
    popularity = 1.0 / np.arange(1, n_items + 1) ** 0.9
    items = rng.choice(n_items, size=n_ratings, p=popularity / popularity.sum()) + 1
    users = np.sort(rng.integers(1, n_users + 1, size=n_ratings))
    ratings = pd.DataFrame(
        {
            "userId": users,
            "movieId": items,
            "rating": rng.integers(1, 11, size=n_ratings) / 2,
            "timestamp": rng.integers(789652009, 1427784002, size=n_ratings),
        }
    )
    movies = pd.DataFrame(
        {
            "movieId": np.arange(1, n_items + 1),
            "title": [f"Movie {i}, The ({1900 + i % 115})" for i in range(n_items)],
            "genres": np.where(np.arange(n_items) % 50 == 0, "(no genres listed)", "Comedy|Drama"),
        }
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with archive.open("ml-20m/ratings.csv", "w", force_zip64=True) as handle:
            handle.write(ratings.to_csv(index=False, float_format="%.1f").encode())
        archive.writestr("ml-20m/movies.csv", movies.to_csv(index=False))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=int, default=20_000_263)
    parser.add_argument("--folder", default=None, help="work folder (default: a temporary one)")
    args = parser.parse_args(argv)
    folder = pathlib.Path(args.folder or tempfile.mkdtemp(prefix="puf-convert-"))
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / "ml-20m.zip"
    started = time.perf_counter()
    write_archive(archive, args.ratings)
    print(
        f"generated {archive} ({archive.stat().st_size / 1e6:.0f} MB, {args.ratings:,} ratings) "
        f"in {time.perf_counter() - started:.1f} s"
    )
    out = folder / "atomic"
    command = [
        sys.executable,
        "-m",
        "puf.cli",
        "data",
        "convert",
        "ml-20m",
        str(archive),
        "--out",
        str(out),
        "--no-progress",
    ]
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"puf data convert ml-20m: {wall:.1f} s wall, {usage.ru_utime + usage.ru_stime:.1f} s "
        f"CPU, peak RSS {usage.ru_maxrss / 1024**2:.2f} GB; "
        f"ml-20m.inter {(out / 'ml-20m.inter').stat().st_size / 1e6:.0f} MB"
    )


if __name__ == "__main__":
    main()
